//! Sharing an audit: the record (`audit --record`), its verification (`verify`) and
//! the self-contained HTML report (`audit --html`).

use crate::commands::{read, Failure};
use crate::{AuditArgs, BinningArg, LinkArgs, VerifyArgs};
use calibscope_audit::{record_json_of, reverify, FlipsSettings, Producer, Record, Status};
use calibscope_io::Dataset;
use calibscope_share::{BinningId, DataSource, FileRef, Sha256Hasher, ViewState};
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Who writes the CLI's records.
fn producer() -> Producer {
    Producer {
        name: "calibscope-cli".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        build: option_env!("CALIBSCOPE_BUILD").unwrap_or("dev").into(),
    }
}

/// Name, size and SHA-256 of each file (read in 1 MiB slices).
pub fn fingerprints(files: &[PathBuf]) -> Result<Vec<FileRef>, Failure> {
    files
        .iter()
        .map(|path| {
            if path == Path::new("-") {
                return Err(Failure::Usage(
                    "standard input cannot be fingerprinted; give the data files".into(),
                ));
            }
            let fail =
                |e: std::io::Error| Failure::Input(format!("calibscope: {}: {e}", path.display()));
            let mut file = std::fs::File::open(path).map_err(fail)?;
            let mut hasher = Sha256Hasher::new();
            let mut buf = vec![0u8; 1 << 20];
            let mut size = 0u64;
            loop {
                let n = file.read(&mut buf).map_err(fail)?;
                if n == 0 {
                    break;
                }
                size += n as u64;
                hasher.update(&buf[..n]);
            }
            Ok(FileRef {
                name: path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                ),
                size,
                sha256: hasher.finish_hex(),
            })
        })
        .collect()
}

/// The record of an audit run by the CLI.
pub fn record(
    args: &AuditArgs,
    options: calibscope_audit::AuditOptions,
    doc: Value,
    dataset: &Dataset,
) -> Result<Record, Failure> {
    let inputs = fingerprints(&args.files)?;
    let settings = ViewState {
        binning: match args.binning {
            BinningArg::Width => BinningId::Width,
            BinningArg::Mass => BinningId::Mass,
        },
        m: args.bins[0],
        pinned_m: Some(args.flips.flips_ref),
        metric: args.flips.flips_metric.clone(),
        spearman_bins: args.flips.flips_bins.clone(),
        split_seed: args.split_seed,
        cal_fraction: args.cal_fraction,
        data: DataSource::Files {
            files: inputs.clone(),
        },
        mapping: args.mapping.state(),
        ..ViewState::default()
    };
    // the groups' diagrams at the settings the document's groups were audited with
    let groups = calibscope_audit::groups::group_settings_of(&doc).map_err(Failure::Usage)?;
    let tables = calibscope_audit::record_tables_grouped(
        dataset,
        Some(&flips_settings(&args.flips)),
        Some(&args.bootstrap.settings(args.threads)),
        groups.as_ref(),
    )
    .map_err(|e| Failure::Usage(format!("--flips-*: {e}")))?;
    Ok(Record {
        producer: producer(),
        contract: calibscope_audit::CONTRACT,
        inputs,
        settings,
        options,
        audits: vec![doc],
        tables,
    })
}

/// The `--flips-*` options are bin counts of at least 1 (larger ones are clipped to
/// the data's `min(n, 2000)`, as in the app's view).
pub(crate) fn check_flips(f: &crate::FlipsRecordArgs) -> crate::commands::Outcome {
    if f.flips_m == 0 || f.flips_ref == 0 || f.flips_bins.is_empty() || f.flips_bins.contains(&0) {
        return Err(Failure::Usage(
            "--flips-m, --flips-ref and --flips-bins take bin counts of at least 1, e.g. --flips-m 5 --flips-ref 2000 --flips-bins 5,20,2000".into(),
        ));
    }
    Ok(())
}

/// The settings of a record's ranking-flips section (two or more models).
fn flips_settings(f: &crate::FlipsRecordArgs) -> FlipsSettings {
    FlipsSettings {
        metric: f.flips_metric.clone(),
        binning: crate::commands::binning(f.flips_binning).name().into(),
        m: f.flips_m,
        m_ref: f.flips_ref,
        bins: f.flips_bins.clone(),
        temperature_first: f.flips_temperature_first,
    }
}

impl AuditArgs {
    /// Whether the audit writes a record, report, CSV or SVG files.
    pub fn exports(&self) -> bool {
        self.record.is_some() || self.html.is_some() || self.csv.is_some() || self.svg.is_some()
    }
}

/// Writes what `--record`, `--html`, `--csv` and `--svg` ask for.
pub fn write_exports(args: &AuditArgs, record: &Value) -> Result<(), Failure> {
    if let Some(path) = &args.record {
        let text = serde_json::to_string_pretty(record).expect("JSON of a Value");
        write_file(path, &(text + "\n"))?;
    }
    if let Some(path) = &args.html {
        write_file(path, &calibscope_report::html_report(record))?;
    }
    let dirs = [
        (
            &args.csv,
            calibscope_report::csv_files as fn(&Value) -> Vec<(String, String)>,
        ),
        (&args.svg, calibscope_report::svg_files),
    ];
    for (dir, files) in dirs {
        let Some(dir) = dir else { continue };
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", dir.display())))?;
        for (name, text) in files(record) {
            write_file(&dir.join(name), &text)?;
        }
    }
    Ok(())
}

pub fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text)
        .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", path.display())))
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s
    }
}

/// `calibscope verify RECORD FILES...`: recomputes the record from the files and
/// prints ✓ / ✗ per value; exit code 1 when anything differs.
pub fn verify_command(args: VerifyArgs) -> Result<(), Failure> {
    let text = std::fs::read_to_string(&args.record)
        .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", args.record.display())))?;
    let recorded = record_json_of(&text)
        .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", args.record.display())))?;
    let record = Record::from_json(&recorded)
        .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", args.record.display())))?;
    // (with the grouping of the recorded audit)
    let options =
        calibscope_audit::groups::record_parse_options(&recorded, &record.settings.mapping)
            .map_err(Failure::Input)?;
    let parsed = read(&args.files, &options);
    let name = args.files[0].display().to_string();
    let inputs = fingerprints(&args.files)?;
    let (_, checks, notes) =
        reverify(&recorded, &parsed, &name, inputs, producer()).map_err(Failure::Input)?;
    // tables of app views the CLI does not compute are named, not compared
    let mut out: String = notes
        .iter()
        .map(|n| format!("· {n} by the CLI\n"))
        .collect();
    let failed = checks.iter().filter(|c| !c.ok()).count();
    for c in &checks {
        let line = match &c.status {
            Status::Identical { .. } if args.failures_only => continue,
            Status::Identical { value } => format!("✓ {} = {}\n", c.path, short(value)),
            Status::Rounding { .. } if args.failures_only => continue,
            Status::Rounding {
                recorded,
                recomputed,
                ulps,
            } => format!(
                "≈ {}: recorded {}, recomputed {} ({ulps} ulp apart: floating-point rounding of another platform)\n",
                c.path,
                short(recorded),
                short(recomputed)
            ),
            Status::Differs {
                recorded,
                recomputed,
            } => format!(
                "✗ {}: recorded {}, recomputed {}\n",
                c.path,
                short(recorded),
                short(recomputed)
            ),
            Status::Missing {
                in_record: true,
                value,
            } => {
                format!("✗ {}: recorded {}, not recomputed\n", c.path, short(value))
            }
            Status::Missing { value, .. } => {
                format!(
                    "✗ {}: recomputed {}, not in the record\n",
                    c.path,
                    short(value)
                )
            }
            // shown with --failures-only too: verified, but not the recorded value
            Status::DefinitionChanged { .. } => format!(
                "Δ {}: {}\n",
                c.path,
                c.status.definition_sentence().unwrap_or_default()
            ),
        };
        out.push_str(&line);
    }
    let rounding = checks
        .iter()
        .filter(|c| matches!(c.status, Status::Rounding { .. }))
        .count();
    let changed = checks
        .iter()
        .filter(|c| matches!(c.status, Status::DefinitionChanged { .. }))
        .count();
    let changed = if changed > 0 {
        format!(", {changed} of them moved only because a definition changed since")
    } else {
        String::new()
    };
    let contract = if record.contract == calibscope_audit::CONTRACT {
        String::new()
    } else {
        format!("; this calibscope computes v{}", calibscope_audit::CONTRACT)
    };
    out.push_str(&format!(
        "{} values compared: {} verified ({rounding} of them up to floating-point rounding{changed}), {failed} differ or are missing (record by {} {} build {}, metric contract v{}{contract})\n",
        checks.len(),
        checks.len() - failed,
        record.producer.name,
        record.producer.version,
        record.producer.build,
        record.contract
    ));
    crate::commands::write_stdout(&out)?;
    if failed > 0 {
        return Err(Failure::Input(format!(
            "calibscope verify: {failed} of {} values do not match the record",
            checks.len()
        )));
    }
    Ok(())
}

fn read_text(path: &Path) -> Result<String, Failure> {
    std::fs::read_to_string(path)
        .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", path.display())))
}

/// `calibscope link`: a link's view as JSON, or the link of a view or record.
pub fn link_command(args: LinkArgs) -> Result<(), Failure> {
    let state = if let Some(path) = &args.from_json {
        serde_json::from_str::<ViewState>(&read_text(path)?).map_err(|e| {
            Failure::Input(format!("calibscope: {} is not a view: {e}", path.display()))
        })?
    } else if let Some(path) = &args.from_record {
        let record = record_json_of(&read_text(path)?)
            .and_then(|v| Record::from_json(&v))
            .map_err(|e| Failure::Input(format!("calibscope: {}: {e}", path.display())))?;
        record.settings
    } else {
        let text = args.fragment.as_deref().unwrap_or_default();
        let fragment = text.split_once('#').map_or(text, |(_, f)| f);
        let decoded = calibscope_share::decode_lenient(fragment)
            .map_err(|e| Failure::Input(format!("calibscope: {e}")))?;
        for note in &decoded.ignored {
            eprintln!("calibscope: ignored {note}");
        }
        let text = serde_json::to_string_pretty(&decoded.state).expect("JSON of a view");
        return crate::commands::write_stdout(&(text + "\n"));
    };
    crate::commands::write_stdout(&format!("#{}\n", calibscope_share::encode(&state)))
}
