//! Turning several parsed files into one dataset: NumPy halves paired by name, every
//! other file a set of its own, several sets combined (same samples). Used by the
//! native `open_paths` and by the web worker, which parses `File`s itself.

use crate::error::Location;
use crate::{
    combine, npy_pair, pair_role, Dataset, ErrorCode, Options, ParseError, ParseErrors, Parsed,
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
