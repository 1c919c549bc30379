//! Audit records in the worker: the `calibscope-record/1` of the open data set (the
//! audit crate's own record code, as the CLI's `audit --record`), and the
//! verification of a dropped record against its data files (the audit crate's
//! [`reverify`], as `calibscope verify`).

use calibscope_audit::{
    audit_document, groups::group_settings_of, record_json_of, record_tables_grouped, reverify,
    AuditOptions, Check, FlipsSettings, Method, Producer, RecalibrationSettings, Record, Status,
    RECORD_SCHEMA, REPORT_M,
};
use calibscope_io::{Dataset, Options, ParseErrors, Parsed};
use calibscope_share::{FileRef, ViewState};
use serde_json::Value;

use super::{worker_error, Session};
use crate::proto::{codes, CheckItem, CheckStatus, FromWorker};

/// Who writes the app's records.
pub fn producer(build: &str) -> Producer {
    Producer {
        name: "calibscope-app".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        build: build.into(),
    }
}

/// The options of the app's records: the report's bin count and the view's, the
/// recalibration split of the view with every method its Recalibrate view fits
/// (beta, histogram binning and Venn–Abers always; vector, matrix and Dirichlet
/// scaling on `k` ≥ 3 classes when asked for), ROC points as the CLI writes them.
pub fn record_options(settings: &ViewState, k: usize) -> Result<AuditOptions, String> {
    if !(settings.cal_fraction > 0.0 && settings.cal_fraction < 1.0) {
        return Err("the calibration fraction must lie strictly between 0 and 1".into());
    }
    let mut m_values = vec![REPORT_M, settings.m.max(1)];
    m_values.sort_unstable();
    m_values.dedup();
    let more_methods = if settings.recal_multiclass() {
        Method::more_for(k)
    } else {
        Method::PROB_MAPS.to_vec()
    };
    Ok(AuditOptions {
        m_values,
        recalibration: Some(RecalibrationSettings {
            seed: settings.split_seed,
            fraction: settings.cal_fraction,
            platt_and_isotonic: true,
            // read from the data by the audit (a ragged log's)
            class_positions_differ: false,
            more_methods,
        }),
        roc_max_n: 300,
    })
}

impl Session {
    /// The data set as read (the models' sets are kept by the session's models).
    fn dataset(&self) -> Dataset {
        Dataset {
            models: self
                .models
                .iter()
                .map(|m| (m.name.clone(), m.set.clone()))
                .collect(),
            ..self.dataset.clone()
        }
    }

    /// The record of the open data set (answers [`crate::proto::ToWorker::Record`]);
    /// with the ranking-flips section when there are two or more models and `flips`.
    pub fn record(
        &self,
        id: u64,
        settings: ViewState,
        inputs: Vec<FileRef>,
        flips: Option<FlipsSettings>,
        build: &str,
    ) -> FromWorker {
        let k = self.models.first().map_or(0, |m| m.set.k);
        let options = match record_options(&settings, k) {
            Ok(o) => o,
            Err(e) => return worker_error(id, codes::BAD_PARAMETERS, e),
        };
        let dataset = Ok(self.dataset());
        let name = self.dataset.name.clone();
        let audits = vec![audit_document(&dataset, &name, &options)];
        // the groups' diagrams at the settings the document's groups were audited with
        let tables = group_settings_of(&audits[0]).and_then(|groups| {
            let dataset = dataset.as_ref().expect("the session's data set");
            record_tables_grouped(dataset, flips.as_ref(), None, groups.as_ref())
        });
        let tables = match tables {
            Ok(t) => t,
            Err(e) => return worker_error(id, codes::BAD_PARAMETERS, e),
        };
        let record = Record {
            producer: producer(build),
            contract: calibscope_audit::CONTRACT,
            inputs,
            settings,
            options,
            audits,
            tables,
        };
        FromWorker::Record {
            id,
            record: serde_json::to_string_pretty(&record.to_json()).expect("JSON of a Value")
                + "\n",
        }
    }
}

/// The record among dropped files' texts, if one is: its JSON (schema checked).
pub fn find_record(text: &str) -> Option<Value> {
    record_json_of(text)
        .ok()
        .filter(|v| v["schema"].as_str() == Some(RECORD_SCHEMA))
}

/// Whether a dropped file may be a record (JSON, or an HTML report).
pub fn may_be_record(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".json", ".html", ".htm"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// The parser options of a record (its column mapping).
pub fn record_parse_options(recorded: &Value) -> Result<Options, String> {
    let record = Record::from_json(recorded)?;
    super::options(
        &record.settings.mapping,
        crate::proto::Limits::default(),
        None,
    )
}

/// The checks as the protocol carries them.
pub fn check_items(checks: &[Check]) -> Vec<CheckItem> {
    checks
        .iter()
        .map(|c| {
            let text = |v: &Value| Some(v.to_string());
            let (status, recorded, recomputed) = match &c.status {
                Status::Identical { value } => (CheckStatus::Identical, text(value), text(value)),
                Status::Rounding {
                    recorded,
                    recomputed,
                    ..
                } => (CheckStatus::Rounding, text(recorded), text(recomputed)),
                Status::Differs {
                    recorded,
                    recomputed,
                } => (CheckStatus::Differs, text(recorded), text(recomputed)),
                Status::Missing {
                    in_record: true,
                    value,
                } => (CheckStatus::Missing, text(value), None),
                Status::Missing { value, .. } => (CheckStatus::Extra, None, text(value)),
                Status::DefinitionChanged {
                    recorded,
                    recomputed,
                    ..
                } => (CheckStatus::Definition, text(recorded), text(recomputed)),
            };
            CheckItem {
                path: c.path.clone(),
                status,
                recorded,
                recomputed,
                note: c.status.definition_sentence(),
            }
        })
        .collect()
}

/// Verifies `recorded` against the parsed data files (answers
/// [`crate::proto::ToWorker::Verify`] once the files are read).
pub fn verified(
    id: u64,
    record_file: &str,
    recorded: &Value,
    parsed: Vec<(String, Result<Parsed, ParseErrors>)>,
    opts: &Options,
    inputs: Vec<FileRef>,
    build: &str,
) -> FromWorker {
    let name = parsed.first().map(|p| p.0.clone()).unwrap_or_default();
    let dataset = calibscope_io::assemble(parsed, opts);
    match reverify(recorded, &dataset, &name, inputs, producer(build)) {
        Err(e) => worker_error(id, codes::BAD_REQUEST, format!("{record_file}: {e}")),
        Ok((record, checks, notes)) => FromWorker::Verified {
            id,
            record_file: record_file.into(),
            producer: format!(
                "{} {} (build {}, metric contract v{})",
                record.producer.name,
                record.producer.version,
                record.producer.build,
                record.contract
            ),
            checks: check_items(&checks),
            notes,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use calibscope_io::Parser;

    fn parse(name: &str, bytes: &[u8]) -> Vec<(String, Result<Parsed, ParseErrors>)> {
        let mut p = Parser::new(name.to_string(), Options::default());
        let _ = p.push(bytes);
        vec![(name.to_string(), p.finish_any())]
    }

    fn csv() -> Vec<u8> {
        let mut s = String::from("label,p\n");
        for i in 0..60u32 {
            let p = (i as f64 * 0.37).fract();
            s.push_str(&format!(
                "{},{p}\n",
                u32::from(p > 0.4) ^ (i % 7 == 0) as u32
            ));
        }
        s.into_bytes()
    }

    #[test]
    fn a_record_of_the_app_verifies_and_a_tampered_value_is_flagged() {
        let bytes = csv();
        let opts = Options::default();
        let ds = calibscope_io::assemble(parse("t.csv", &bytes), &opts).unwrap();
        let session = Session::new(ds);
        let settings = ViewState {
            m: 7,
            split_seed: 3,
            ..ViewState::default()
        };
        let inputs = vec![calibscope_share::file_ref("t.csv", &bytes)];
        let FromWorker::Record { record, .. } =
            session.record(1, settings, inputs.clone(), None, "test")
        else {
            panic!("a record")
        };
        let record: Value = serde_json::from_str(&record).unwrap();
        assert_eq!(record["options"]["m_values"], serde_json::json!([7, 15]));
        let text = serde_json::to_string(&record).unwrap();
        let found = find_record(&text).expect("the record is found");
        let check = |rec: &Value| match verified(
            2,
            "r.json",
            rec,
            parse("t.csv", &bytes),
            &opts,
            inputs.clone(),
            "b",
        ) {
            FromWorker::Verified { checks, .. } => checks,
            other => panic!("{other:?}"),
        };
        let checks = check(&found);
        assert!(checks.len() > 100, "{} checks", checks.len());
        assert!(
            checks.iter().all(|c| c.status == CheckStatus::Identical),
            "{:?}",
            checks.iter().find(|c| c.status != CheckStatus::Identical)
        );
        let mut tampered = found.clone();
        let acc = tampered["audits"][0]["binning_free"]["accuracy"]
            .as_f64()
            .unwrap();
        tampered["audits"][0]["binning_free"]["accuracy"] = serde_json::json!(acc + 0.01);
        let bad: Vec<_> = check(&tampered)
            .into_iter()
            .filter(|c| c.status != CheckStatus::Identical)
            .collect();
        assert_eq!(bad.len(), 1);
        assert_eq!(bad[0].path, "audits.0.binning_free.accuracy");
        assert_eq!(bad[0].recomputed, Some(serde_json::json!(acc).to_string()));
        assert!(find_record("label,p\n1,0.5\n").is_none());
        assert!(may_be_record("R.HTML") && !may_be_record("x.csv"));
    }

    #[test]
    fn a_record_before_contract_3_lists_its_definition_changes() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../audit/tests/golden");
        let name = "breast_cancer_logreg_logit.csv";
        let bytes = std::fs::read(dir.join(name)).expect("the golden data");
        let text =
            std::fs::read_to_string(dir.join("breast_cancer_logreg_logit.contract2.record.json"))
                .expect("the golden record");
        let recorded = find_record(&text).expect("a record");
        let opts = record_parse_options(&recorded).unwrap();
        let inputs = vec![calibscope_share::file_ref(name, &bytes)];
        let FromWorker::Verified {
            checks, producer, ..
        } = verified(
            1,
            "old.json",
            &recorded,
            parse(name, &bytes),
            &opts,
            inputs,
            "b",
        )
        else {
            panic!("verified")
        };
        assert!(producer.ends_with("metric contract v2)"), "{producer}");
        let changed: Vec<_> = checks
            .iter()
            .filter(|c| c.status == CheckStatus::Definition)
            .collect();
        assert_eq!(changed.len(), 3, "beyond_ece and two ledger rows");
        for c in &changed {
            assert!(c.path.ends_with(".p_risk"), "{}", c.path);
            assert_eq!(c.recomputed, Some(serde_json::json!(0.0).to_string()));
            let note = c.note.as_deref().unwrap_or_default();
            assert!(
                note.starts_with(
                    "definition changed in contract v3 (P_risk is 0 when CSR ≤ 1): recorded 0."
                ) && note.ends_with(", now 0"),
                "{note}"
            );
        }
        let rest = checks
            .iter()
            .filter(|c| c.status != CheckStatus::Definition);
        assert!(rest
            .clone()
            .all(|c| c.status == CheckStatus::Identical && c.note.is_none()));
        assert!(rest.count() > 1000);
    }
}
