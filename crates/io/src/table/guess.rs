//! Errors explained by a detected reading of the columns, summarised as one.
//!
//! When the score columns were detected (not given by the mapping) and the errors
//! all follow from that reading, a person gets one question with the mapping(s)
//! that would fit ([`crate::ParseError::candidates`]) instead of one error per row:
//! - a binary column was read but the labels go past 1 ("read as binary from column
//!   score, but labels go to 2: did you mean 3 classes cat, dog, bird?");
//! - the score columns name their classes by integers (`p_1..p_10`) and the labels
//!   are positions `0..k-1` ("did you mean label i = the i-th score column?");
//! - columns taken as class-name columns (nothing else named scores) whose names are
//!   not the label values.

use super::*;
use crate::error::Candidate;
use crate::mapping::{is_index_name, short_list, split_prefix, ColumnMapping, ScoreColumns};
use crate::ParseError;
use calibscope_core::InputError;

/// A contract error found after parsing: where, what, k, source.
pub(crate) type Verr = (Location, InputError, usize, Source);

/// The summary error, when the errors in `sink` / `verrs` follow from a detected
/// reading; the errors it explains are removed from them. `columns` is set when the
/// columns should be offered for mapping by hand.
pub(crate) fn summarise(
    file: &str,
    plan: &Plan,
    cols: &[Col],
    labels: &LabelReader,
    ds: &Dataset,
    sink: &mut Sink,
    verrs: &mut Vec<Verr>,
) -> Option<ParseError> {
    if !plan.guessed || plan.model.is_some() {
        return None;
    }
    let label_name = cols[plan.label].name.clone();
    match &plan.scores {
        PlanScores::Column { col, .. } => binary_past_one(file, plan, cols, ds, verrs, *col),
        PlanScores::Matrix { cols: used, .. } if labels.misses > 0 => {
            let mut e = names_missed(file, plan, cols, labels, used)?;
            e.location.line = sink
                .errors
                .iter()
                .find(|s| s.location.row == e.location.row)
                .and_then(|s| s.location.line);
            // the label errors it explains: the ones the label reader gave
            let before = sink.errors.len();
            sink.errors.retain(|e| {
                !(matches!(e.code, ErrorCode::LabelOutOfRange | ErrorCode::BadLabel)
                    && e.location.column.as_deref() == Some(label_name.as_str())
                    && e.message.contains("is not one of the classes"))
            });
            let kept = (before - sink.errors.len()) as u64;
            sink.more = sink
                .more
                .saturating_sub(labels.misses.saturating_sub(kept) as usize);
            if plan.class_columns {
                sink.columns = cols.iter().map(|c| c.name.clone()).collect();
            }
            Some(e)
        }
        _ => None,
    }
}

fn rows(n: usize) -> String {
    if n == 1 {
        "1 row".into()
    } else {
        format!("{n} rows")
    }
}

/// The mapping of this plan with other score columns / class names.
fn with_scores(
    plan: &Plan,
    scores: Vec<String>,
    class_names: Option<Vec<String>>,
) -> ColumnMapping {
    let mut m = plan.detection.mapping.clone();
    m.scores = Some(ScoreColumns::Matrix(scores));
    m.source = None;
    m.class_names = class_names;
    m
}

/// A binary column read while the labels go past 1.
fn binary_past_one(
    file: &str,
    plan: &Plan,
    cols: &[Col],
    ds: &Dataset,
    verrs: &mut Vec<Verr>,
    col: usize,
) -> Option<ParseError> {
    use calibscope_core::InputErrorKind as K;
    let first = verrs.iter().find(|v| v.1.kind == K::LabelOutOfRange)?;
    let loc = first.0.clone();
    let count = verrs
        .iter()
        .filter(|v| v.1.kind == K::LabelOutOfRange)
        .count();
    let top = ds
        .models
        .iter()
        .flat_map(|m| m.1.labels.iter())
        .copied()
        .max()
        .unwrap_or(0) as usize;
    let k = top + 1;
    // columns that could hold one score per class: a family of that size, or
    // every column that has no other role
    let free: Vec<usize> = (0..cols.len())
        .filter(|&i| {
            cols[i].width == 1
                && i != plan.label
                && Some(i) != plan.id
                && !is_index_name(&cols[i].name)
        })
        .collect();
    let mut options: Vec<Vec<usize>> = Vec::new();
    let mut fams: Vec<(&'static str, Vec<(usize, String)>)> = Vec::new();
    for &i in &free {
        if let Some((p, _, suffix)) = split_prefix(&cols[i].name) {
            match fams.iter_mut().find(|f| f.0 == p) {
                Some(f) => f.1.push((i, suffix)),
                None => fams.push((p, vec![(i, suffix)])),
            }
        }
    }
    for (_, fam) in &fams {
        if fam.len() == k {
            options.push(crate::mapping::order_family(fam).0);
        }
    }
    let others: Vec<usize> = free.iter().copied().filter(|&i| i != col).collect();
    for set in [free, others] {
        if set.len() == k && !options.contains(&set) {
            options.push(set);
        }
    }
    let name = cols[col].name.trim();
    let names = |o: &[usize]| -> Vec<String> {
        o.iter().map(|&i| cols[i].name.trim().to_string()).collect()
    };
    let message = if options.is_empty() {
        format!(
            "read as binary from column {name:?} (the only score column found), but labels go to {top} ({}): a file of {k} classes needs one score column per class (p_0..p_{top}, or named by the classes); map the score columns",
            rows(count)
        )
    } else {
        format!(
            "read as binary from column {name:?}, but labels go to {top} ({}): did you mean {k} classes {}?",
            rows(count),
            options
                .iter()
                .map(|o| short_list(&names(o)))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    };
    verrs.retain(|v| v.1.kind != K::LabelOutOfRange);
    let mut e = ParseError::new(ErrorCode::MappingGuess, file, loc, message);
    e.candidates = options
        .iter()
        .map(|o| Candidate {
            says: format!("{k} classes {}", short_list(&names(o))),
            mapping: with_scores(plan, names(o), None),
        })
        .collect();
    Some(e)
}

/// Class-named score columns whose names are not the label values.
fn names_missed(
    file: &str,
    plan: &Plan,
    cols: &[Col],
    labels: &LabelReader,
    used: &[usize],
) -> Option<ParseError> {
    let k = used.len();
    let (row, text) = labels.miss_first.clone()?;
    let names: Vec<String> = plan.class_names.clone();
    let col_names: Vec<String> = used
        .iter()
        .map(|&i| cols[i].name.trim().to_string())
        .collect();
    let loc = Location::row(row).with_column(cols[plan.label].name.clone());
    let misses = labels.misses;
    let positional = matches!(labels.kind, crate::num::ClassKind::IntNames(_))
        && labels
            .int_range
            .is_some_and(|(lo, hi)| lo >= 0 && (hi as u64) < k as u64);
    if positional {
        let (lo, hi) = labels.int_range.unwrap();
        let mut e = ParseError::new(
            ErrorCode::MappingGuess,
            file,
            loc,
            format!(
                "the score columns were read as classes named {} (from their headers), but {misses} labels are not among these names (the first, {text}, at row {row}); the labels go from {lo} to {hi}: did you mean label i = the i-th score column ({} for 0, …, {} for {})?",
                short_list(&names),
                col_names[0],
                col_names[k - 1],
                k - 1
            ),
        );
        e.candidates = vec![Candidate {
            says: format!(
                "{k} classes, label i = the i-th column: 0 = {}, …, {} = {}",
                col_names[0],
                k - 1,
                col_names[k - 1]
            ),
            mapping: with_scores(
                plan,
                col_names.clone(),
                Some((0..k).map(|i| i.to_string()).collect()),
            ),
        }];
        return Some(e);
    }
    if !plan.class_columns {
        return None;
    }
    Some(ParseError::new(
        ErrorCode::MappingGuess,
        file,
        loc,
        format!(
            "no column is named like scores, so columns {} were taken as one probability column per class, named by the class; but {misses} labels are not among these names (the first, {text:?}, at row {row}): name the score columns after the label values (or p_<class>), or say which columns hold the scores",
            short_list(&col_names)
        ),
    ))
}
