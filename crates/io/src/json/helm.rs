//! HELM `per_instance_stats.json` (stanford-crfm/helm): written by
//! `Runner.run_one` (src/helm/benchmark/runner.py) as
//! `json.dumps(list(map(asdict_without_nones, per_instance_stats)), indent=2)`, a
//! list of `PerInstanceStats` (src/helm/benchmark/metrics/metric.py):
//! `{"instance_id", "perturbation"?, "train_trial_index", "stats": [Stat]}`, each
//! `Stat` (src/helm/benchmark/metrics/statistic.py) `{"name": {"name", "split",
//! "sub_split"?, "perturbation"?}, "count", "sum", "sum_squared", "min", "max",
//! "mean", "variance"?, "stddev"?}` (a per-instance stat has count 1: its `mean` is
//! the value).
//!
//! calibscope reads it as top-label input: the confidence is the `max_prob` stat
//! (the probability the model gave its chosen answer), the correctness the
//! `exact_match` stat (1 right, 0 wrong); each record becomes a row with predicted
//! class 0 and label 0 when right, 1 when wrong (so the top-label outcome is the
//! correctness). Records with a `perturbation` (HELM's robustness and fairness
//! variants of an instance) are not the run's own answers and are skipped (the
//! detection note counts them); a later trial of an instance gets the id
//! `<instance_id>#<trial>`.

use std::borrow::Cow;

use super::scan::J;
use crate::ErrorCode;

fn get<'r, 'a>(rec: &'r [(Cow<'a, str>, J<'a>)], key: &str) -> Option<&'r J<'a>> {
    rec.iter().find(|(n, _)| n == key).map(|(_, v)| v)
}

/// Whether a record is a HELM `PerInstanceStats`.
pub(super) fn is_instance(rec: &[(Cow<'_, str>, J<'_>)]) -> bool {
    get(rec, "instance_id").is_some()
        && get(rec, "train_trial_index").is_some()
        && matches!(get(rec, "stats"), Some(J::Arr(_)))
}

/// Whether the record is a perturbed variant (skipped).
pub(super) fn is_perturbed(rec: &[(Cow<'_, str>, J<'_>)]) -> bool {
    get(rec, "perturbation").is_some_and(|v| !matches!(v, J::Null))
}

fn text(v: &J<'_>) -> Option<String> {
    match v {
        J::Num(n) => Some(String::from_utf8_lossy(n).into_owned()),
        J::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

/// The `mean` of the stat named `name`.
fn stat(rec: &[(Cow<'_, str>, J<'_>)], name: &str) -> Option<String> {
    let Some(J::Arr(stats)) = get(rec, "stats") else {
        return None;
    };
    stats.iter().find_map(|s| {
        let J::Obj(s) = s else { return None };
        let Some(J::Obj(n)) = get(s, "name") else {
            return None;
        };
        let named = get(n, "name").and_then(text).is_some_and(|t| t == name);
        named.then(|| get(s, "mean").and_then(text)).flatten()
    })
}

/// A record of the JSON reader.
type Record = Vec<(Cow<'static, str>, J<'static>)>;

/// One instance as a record of the JSON reader (`id`, `yhat`, `confidence`,
/// `label`), or why it cannot be read: (code, the key at fault, message).
pub(super) fn record(
    rec: &[(Cow<'_, str>, J<'_>)],
) -> Result<Record, (ErrorCode, &'static str, String)> {
    let id = get(rec, "instance_id").and_then(text).ok_or((
        ErrorCode::JsonShape,
        "instance_id",
        "its instance_id is not text".into(),
    ))?;
    let trial = get(rec, "train_trial_index")
        .and_then(text)
        .unwrap_or_default();
    let conf = stat(rec, "max_prob").ok_or((
        ErrorCode::MissingScoreColumns,
        "stats",
        format!("instance {id} has no max_prob stat: HELM writes it for multiple-choice runs that return token probabilities; this run cannot be audited for calibration"),
    ))?;
    let right = stat(rec, "exact_match").ok_or((
        ErrorCode::MissingLabelColumn,
        "stats",
        format!("instance {id} has no exact_match stat to tell whether its answer was right"),
    ))?;
    let label = match right.trim().parse::<f64>() {
        Ok(1.0) => "0",
        Ok(0.0) => "1",
        _ => {
            return Err((
                ErrorCode::BadLabel,
                "stats",
                format!("instance {id}: exact_match is {right}, not 0 or 1"),
            ))
        }
    };
    let id = match trial.trim() {
        "" | "0" => id,
        t => format!("{id}#{t}"),
    };
    let owned = |s: &str| J::Str(Cow::Owned(s.to_string()));
    Ok(vec![
        (Cow::Borrowed("id"), owned(&id)),
        (Cow::Borrowed("yhat"), owned("0")),
        (Cow::Borrowed("confidence"), owned(&conf)),
        (Cow::Borrowed("label"), owned(label)),
    ])
}

/// What the reading found, for the detection note.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Instance records seen (perturbed ones included).
    pub records: u64,
    pub perturbed: u64,
}

impl Tally {
    /// `(chose, why)` of the note.
    pub fn note(&self) -> (String, String) {
        (
            "a HELM per_instance_stats.json: each instance's max_prob stat as the confidence of its answer, its exact_match stat as the answer's correctness (top-label input)".into(),
            format!(
                "{} instance records; {} perturbed variants (robustness and fairness perturbations) skipped",
                self.records - self.perturbed,
                self.perturbed
            ),
        )
    }
}
