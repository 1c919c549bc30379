//! Turning several parsed files into one dataset: NumPy halves paired by name, every
//! other file a set of its own, several sets combined (same samples). Used by the
//! native `open_paths` and by the web worker, which parses `File`s itself.

use crate::error::{Location, Sink};
use crate::{
    npy_pair, Dataset, ErrorCode, Format, Options, ParseError, ParseErrors, Parsed, Source,
};

/// Groups parsed files into one dataset. Each input is `(name, parse result)`; the
/// name may carry directories (`dir/x.labels.npy`): halves pair only within the same
/// directory. `NAME.labels.npy` + `NAME.probs.npy` / `NAME.logits.npy` form one
/// prediction set called `NAME`; a plain array without its partner is an error that
/// says which file is missing. No inputs is an error; several sets are combined and
/// must hold the same samples ([`combine`]). The first failing input's errors are
/// returned.
pub fn assemble(
    files: Vec<(String, Result<Parsed, ParseErrors>)>,
    options: &Options,
) -> Result<Dataset, ParseErrors> {
    enum Slot {
        Single(usize),
        Pair {
            key: String,
            stem: String,
            labels: Option<usize>,
            scores: Option<(usize, crate::Source)>,
        },
    }
    let mut slots: Vec<Slot> = Vec::new();
    for (i, (name, _)) in files.iter().enumerate() {
        let Some((stem, role)) = pair_role(name) else {
            slots.push(Slot::Single(i));
            continue;
        };
        let dir = name.rsplit_once(['/', '\\']).map_or("", |(d, _)| d);
        let key = format!("{dir}/{stem}");
        let at = match slots
            .iter()
            .position(|s| matches!(s, Slot::Pair { key: k, .. } if *k == key))
        {
            Some(at) => at,
            None => {
                slots.push(Slot::Pair {
                    key,
                    stem,
                    labels: None,
                    scores: None,
                });
                slots.len() - 1
            }
        };
        if let Slot::Pair { labels, scores, .. } = &mut slots[at] {
            match role {
                None => *labels = Some(i),
                Some(source) => *scores = Some((i, source)),
            }
        }
    }
    let names: Vec<String> = files.iter().map(|f| base_name(&f.0).to_string()).collect();
    let mut parsed: Vec<Option<Result<Parsed, ParseErrors>>> =
        files.into_iter().map(|f| Some(f.1)).collect();
    let mut take = |i: usize| parsed[i].take().expect("each file is used once");
    let needs_pair = |file: &str, message: String| {
        ParseErrors::single(ParseError::new(
            ErrorCode::NpyNeedsPair,
            file,
            Location::default(),
            message,
        ))
    };
    let mut sets = Vec::new();
    for slot in slots {
        match slot {
            Slot::Single(i) => match take(i)? {
                Parsed::Dataset(d) => sets.push(d),
                Parsed::Array(a) => {
                    return Err(needs_pair(
                        &names[i],
                        format!(
                            "this .npy holds a plain {} array without labels; open it together with its pair (NAME.labels.npy + NAME.probs.npy or NAME.logits.npy)",
                            a.shape_text()
                        ),
                    ))
                }
            },
            Slot::Pair { stem, labels: Some(l), scores: Some((s, source)), .. } => {
                match (take(l)?, take(s)?) {
                    (Parsed::Array(la), Parsed::Array(sa)) => sets.push(npy_pair(&stem, la, sa, source, options)?),
                    // a half that is a structured array is a dataset of its own
                    (a, b) => {
                        for p in [a, b] {
                            if let Parsed::Dataset(d) = p {
                                sets.push(d);
                            }
                        }
                    }
                }
            }
            Slot::Pair { stem, labels, scores, .. } => {
                let Some(i) = labels.or(scores.map(|s| s.0)) else { continue };
                match take(i)? {
                    Parsed::Dataset(d) => sets.push(d),
                    Parsed::Array(_) => {
                        return Err(needs_pair(
                            &names[i],
                            format!(
                                "{} has no partner: give {stem}.labels.npy together with {stem}.probs.npy or {stem}.logits.npy",
                                names[i]
                            ),
                        ))
                    }
                }
            }
        }
    }
    match sets.len() {
        0 => Err(ParseErrors::single(ParseError::new(
            ErrorCode::EmptyFile,
            "",
            Location::default(),
            "no files given",
        ))),
        1 => Ok(sets.pop().expect("one set")),
        _ => combine(sets),
    }
}

fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// The pair role a file name implies: `NAME.labels.npy` → `(NAME, None)`,
/// `NAME.probs.npy` → `(NAME, Some(Probs))`, `NAME.logits.npy` → `(NAME, Some(Logits))`.
pub fn pair_role(file_name: &str) -> Option<(String, Option<Source>)> {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let stem = base.strip_suffix(".npy")?;
    for (suffix, role) in [
        (".labels", None),
        (".label", None),
        (".y", None),
        (".probs", Some(Source::Probs)),
        (".proba", Some(Source::Probs)),
        (".logits", Some(Source::Logits)),
    ] {
        if let Some(name) = stem.strip_suffix(suffix) {
            if !name.is_empty() {
                return Some((name.to_string(), role));
            }
        }
    }
    None
}

/// The file name without directories and extension (`a/b/x.csv` → `x`).
pub(crate) fn stem(file: &str) -> String {
    let mut base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    for ext in [".gz", ".zst", ".zstd"] {
        if let Some(s) = base.strip_suffix(ext) {
            if !s.is_empty() {
                base = s;
                break;
            }
        }
    }
    for ext in [
        ".csv", ".tsv", ".txt", ".json", ".jsonl", ".npy", ".npz", ".parquet", ".pq", ".feather",
        ".arrow", ".arrows", ".ipc",
    ] {
        if let Some(s) = base.strip_suffix(ext) {
            if !s.is_empty() {
                return s.to_string();
            }
        }
    }
    base.to_string()
}

/// Checks that every model has the first model's samples: same n, same labels.
pub(crate) fn check_same_samples(
    ds: &Dataset,
    sink: &mut Sink,
    file_row: impl Fn(usize, usize) -> Option<u64>,
) {
    let Some((first_name, first)) = ds.models.first() else {
        return;
    };
    for (mi, (name, set)) in ds.models.iter().enumerate().skip(1) {
        if set.n() != first.n() {
            sink.push(
                ErrorCode::ModelLengthMismatch,
                Location {
                    model: Some(name.clone()),
                    ..Default::default()
                },
                format!(
                    "model {name:?} has {} samples but model {first_name:?} has {}; every model must predict the same samples",
                    set.n(),
                    first.n()
                ),
            );
            continue;
        }
        if let Some(r) = (0..set.n()).find(|&r| set.labels[r] != first.labels[r]) {
            sink.push(
                ErrorCode::ModelLabelMismatch,
                Location {
                    row: file_row(mi, r),
                    model: Some(name.clone()),
                    sample: Some(r as u64),
                    ..Default::default()
                },
                format!(
                    "sample {r}: model {name:?} has label {} but model {first_name:?} has label {}; every model must list the same samples in the same order",
                    set.labels[r], first.labels[r]
                ),
            );
        }
        if set.k != first.k && set.kind() != calibscope_core::Kind::TopLabel {
            sink.push(
                ErrorCode::IncompatibleFiles,
                Location {
                    model: Some(name.clone()),
                    ..Default::default()
                },
                format!(
                    "model {name:?} has {} classes but model {first_name:?} has {}",
                    set.k, first.k
                ),
            );
        }
    }
}

/// Combines datasets read from several files into one multi-model dataset on the
/// same samples. Model names: the file's model names (its stem for a single-model
/// file); a name that repeats gets the file stem prefixed. Labels must agree row by
/// row: a mismatch is an error naming the first differing row.
pub fn combine(datasets: Vec<Dataset>) -> Result<Dataset, ParseErrors> {
    combine_checked(datasets, true)
}

/// [`combine`]; `aligned`: the models must list the same samples (else, see
/// [`crate::Options::unaligned_models`]).
pub(crate) fn combine_checked(
    datasets: Vec<Dataset>,
    aligned: bool,
) -> Result<Dataset, ParseErrors> {
    let mut it = datasets.into_iter();
    let Some(mut out) = it.next() else {
        return Err(ParseErrors::single(ParseError::new(
            ErrorCode::EmptyFile,
            "",
            Location::default(),
            "no files given",
        )));
    };
    let mut any = false;
    let mut differing_groups = None;
    for d in it {
        any = true;
        // every file's samples must be grouped alike
        match (&out.groups, &d.groups) {
            (None, Some(_)) => out.groups = d.groups.clone(),
            (Some(a), Some(b)) if a != b && differing_groups.is_none() => {
                differing_groups = Some(d.name.clone())
            }
            _ => {}
        }
        if d.class_names != out.class_names && d.models[0].1.k == out.models[0].1.k {
            out.detection.guess(
                "class_names",
                out.class_names.join(","),
                format!(
                    "{} names the classes {}; the first file's names were kept",
                    d.name,
                    d.class_names.join(",")
                ),
            );
        }
        for (name, set) in d.models {
            let name = if out.models.iter().any(|m| m.0 == name) {
                format!("{}/{}", d.name, name)
            } else {
                name
            };
            out.models.push((name, set));
        }
        out.files.extend(d.files);
        if out.ids.is_none() {
            out.ids = d.ids;
        }
    }
    if any {
        out.format = Format::MultiFile;
        out.name = out
            .files
            .iter()
            .map(|f| stem(f))
            .collect::<Vec<_>>()
            .join("+");
    }
    let mut sink = Sink::new(&out.name, 100);
    if aligned {
        check_same_samples(&out, &mut sink, |_, r| Some(r as u64));
    }
    if let Some(other) = differing_groups {
        sink.push(
            ErrorCode::IncompatibleFiles,
            Location {
                model: Some(other.clone()),
                ..Default::default()
            },
            format!(
                "{other} groups its samples differently from the first file; every file must list the same samples with the same grouping values"
            ),
        );
    }
    if sink.is_empty() {
        Ok(out)
    } else {
        Err(sink.into_errors(None))
    }
}
