//! The columns of a table into a dataset: one prediction set per model, each
//! checked against the contract (METRICS.md §1), its errors located by row.

use super::*;

impl TableBuilder {
    /// Builds the dataset; validates every model (METRICS.md §1).
    pub fn finish(
        self,
        file: &str,
        format: Format,
        mut sink: Sink,
        first_line: Option<u64>,
    ) -> Result<Dataset, ParseErrors> {
        let TableBuilder {
            cols,
            plan,
            models,
            long,
            bad_rows,
            rows,
            labels,
            group_dicts,
            ..
        } = self;
        // (no copy once the parts of a parallel read are joined)
        let mut plan = std::sync::Arc::unwrap_or_clone(plan);
        if rows == 0 {
            sink.push(
                ErrorCode::HeaderOnly,
                Location::default(),
                "the file has a header but no data rows",
            );
            return Err(sink.into_errors(None));
        }
        // source of a `score` column: decided by the values
        let source_of = |plan: &mut Plan, models: &[ModelBuf]| -> Option<Source> {
            match &plan.scores {
                PlanScores::Column { source, col } => Some(match source {
                    SourceChoice::Known(s) => *s,
                    SourceChoice::Auto => {
                        let outside = models
                            .iter()
                            .flat_map(|m| m.values.iter())
                            .find(|v| v.is_finite() && !(0.0..=1.0).contains(*v));
                        let name = cols[*col].name.clone();
                        let s = match outside {
                            Some(v) => {
                                plan.detection.guess(
                                    "source",
                                    "logits",
                                    format!(
                                        "column {name:?} has a value outside [0, 1] ({}), so it was read as logits; map it as probabilities to override",
                                        fmt_num(*v)
                                    ),
                                );
                                Source::Logits
                            }
                            None => {
                                plan.detection.guess(
                                    "source",
                                    "probs",
                                    format!(
                                        "every value of column {name:?} is in [0, 1], so it was read as probabilities; map it as logits to override"
                                    ),
                                );
                                Source::Probs
                            }
                        };
                        plan.detection.mapping.source = Some(s);
                        s
                    }
                }),
                PlanScores::Matrix { source, .. } | PlanScores::Vector { source, .. } => {
                    Some(*source)
                }
                PlanScores::TopLabel { .. } => None,
            }
        };
        let source = source_of(&mut plan, &models);
        let score_cols: Vec<usize> = match &plan.scores {
            PlanScores::Column { col, .. } => vec![*col],
            PlanScores::Matrix { cols, .. } => cols.clone(),
            PlanScores::Vector { col, .. } => vec![*col],
            PlanScores::TopLabel { conf, .. } => vec![*conf],
        };
        let is_vector = matches!(plan.scores, PlanScores::Vector { .. });
        let width = match &plan.scores {
            PlanScores::Matrix { cols, .. } => cols.len(),
            PlanScores::Vector { col, .. } => cols[*col].width,
            _ => 1,
        };

        let mut sets = Vec::with_capacity(models.len());
        let mut group_codes: Option<Vec<Vec<u32>>> = None;
        let mut ids = None;
        let mut file_rows = Vec::new();
        for (mi, m) in models.into_iter().enumerate() {
            let ModelBuf {
                name,
                labels,
                values,
                pred,
                ids: mids,
                file_rows: fr,
                groups: mgroups,
                ..
            } = m;
            if !plan.groups.is_empty() {
                match &group_codes {
                    None => group_codes = Some(mgroups),
                    Some(first) => {
                        // every model's sample must be in the same group
                        let differ =
                            first
                                .iter()
                                .zip(&mgroups)
                                .enumerate()
                                .find_map(|(j, (a, b))| {
                                    (0..a.len().min(b.len()))
                                        .find(|&r| a[r] != b[r])
                                        .map(|r| (j, r))
                                });
                        if let Some((j, r)) = differ {
                            let d = &group_dicts[j];
                            let text = |c: u32| {
                                String::from_utf8_lossy(&d.values[c as usize]).into_owned()
                            };
                            sink.push(
                                ErrorCode::ModelLabelMismatch,
                                Location {
                                    row: fr.get(r).copied(),
                                    model: Some(name.clone()),
                                    sample: Some(r as u64),
                                    column: Some(cols[plan.groups[j]].name.clone()),
                                    ..Default::default()
                                },
                                format!(
                                    "sample {r} of model {name:?} is in group {:?} but the first model's sample {r} is in group {:?}; every model's sample must have the same grouping value",
                                    text(mgroups[j][r]),
                                    text(first[j][r])
                                ),
                            );
                        }
                    }
                }
            }
            let set = match (&plan.scores, source) {
                (PlanScores::Column { .. }, Some(source)) => PredictionSet {
                    labels,
                    scores: Scores::Column {
                        values: Values::F64(values),
                        source,
                    },
                    k: 2,
                },
                (PlanScores::TopLabel { .. }, _) => {
                    PredictionSet::top_label(labels, pred, Values::F64(values))
                }
                (_, source) => PredictionSet {
                    labels,
                    scores: Scores::Matrix {
                        values: Values::F64(values),
                        k: width,
                        source: source.unwrap_or(Source::Probs),
                    },
                    k: width,
                },
            };
            if mi == 0 {
                ids = mids.map(IdBuf::into_ids);
            } else if let (Some(Ids::Int(a)), Some(IdBuf::Int(b))) = (&ids, &mids) {
                // ids must agree across models
                if let Some(r) = (0..a.len().min(b.len())).find(|&r| a[r] != b[r]) {
                    sink.push(
                        ErrorCode::ModelLabelMismatch,
                        Location {
                            row: fr.get(r).copied(),
                            model: Some(name.clone()),
                            sample: Some(r as u64),
                            ..Default::default()
                        },
                        format!(
                            "sample {r} of model {name:?} has id {} but the first model's sample {r} has id {}; every model must list the same samples in the same order",
                            b[r], a[r]
                        ),
                    );
                }
            }
            sets.push((name, set));
            file_rows.push(fr);
        }

        let groups = match group_codes {
            Some(codes) => match crate::groups::assemble(
                plan.groups
                    .iter()
                    .map(|&i| cols[i].name.trim().to_string())
                    .collect(),
                group_dicts,
                codes,
            ) {
                Ok(g) => Some(g),
                Err(message) => {
                    sink.push(
                        ErrorCode::InvalidMapping,
                        Location::default().with_column(cols[plan.groups[0]].name.clone()),
                        message,
                    );
                    None
                }
            },
            None => None,
        };
        let mut ds = Dataset {
            name: crate::stem(file),
            files: vec![file.to_string()],
            format,
            class_names: Vec::new(),
            models: sets,
            ids,
            detection: plan.detection.clone(),
            groups,
        };
        if !long {
            ds.models[0].0 = ds.name.clone();
        }
        ds.class_names = class_names(&plan, &ds);

        // validation
        let mut verrs = Vec::new();
        if !plan.unaligned_models {
            crate::check_same_samples(&ds, &mut sink, |mi, r| {
                file_rows.get(mi).and_then(|v| v.get(r).copied())
            });
        }
        if let Some(l) = first_line {
            for e in &mut sink.errors {
                if e.location.line.is_none() {
                    e.location.line = e.location.row.map(|r| l + r);
                }
            }
        }
        for (mi, (name, set)) in ds.models.iter().enumerate() {
            for e in set.validate() {
                let frow = if long {
                    file_rows[mi].get(e.row).copied().unwrap_or(e.row as u64)
                } else {
                    e.row as u64
                };
                if bad_rows.binary_search(&frow).is_ok() {
                    continue;
                }
                let column = match e.kind {
                    calibscope_core::InputErrorKind::LabelOutOfRange => {
                        Some(cols[plan.label].name.clone())
                    }
                    calibscope_core::InputErrorKind::RowSum => None,
                    _ => e.column.map(|c| {
                        if is_vector {
                            format!("{}[{c}]", cols[score_cols[0]].name)
                        } else {
                            cols[score_cols[c.min(score_cols.len() - 1)]].name.clone()
                        }
                    }),
                };
                let mut loc = Location::row(frow).with_line(first_line.map(|l| l + frow));
                loc.column = column;
                if long {
                    loc.model = Some(name.clone());
                    loc.sample = Some(e.row as u64);
                }
                verrs.push((loc, e, set.k, set.source()));
            }
        }
        let summary =
            super::guess::summarise(file, &plan, &cols, &labels, &ds, &mut sink, &mut verrs);
        finish_errors_with(ds, sink, verrs, summary)
    }
}

fn class_names(plan: &Plan, ds: &Dataset) -> Vec<String> {
    let k = ds.models.iter().map(|m| m.1.k).max().unwrap_or(2);
    if !plan.class_names.is_empty() && plan.class_names.len() == k {
        plan.class_names.clone()
    } else {
        (0..k).map(|i| i.to_string()).collect()
    }
}

/// The message for a contract input error.
fn input_message(e: &calibscope_core::InputError, k: usize, source: Source) -> String {
    use calibscope_core::InputErrorKind as K;
    match e.kind {
        K::NanOrInf => {
            if e.value.is_nan() {
                "missing or NaN score; every score must be a finite number".to_string()
            } else {
                format!(
                    "score {} is infinite; every score must be a finite number",
                    e.value
                )
            }
        }
        K::ProbOutOfRange => {
            let what = if source == Source::TopLabel {
                "confidence"
            } else {
                "probability"
            };
            format!(
                "{what} {} is outside [0, 1]{}",
                fmt_num(e.value),
                if source == Source::Probs {
                    " (are these logits? pass --logits)"
                } else {
                    ""
                }
            )
        }
        K::RowSum => format!(
            "probabilities sum to {}; expected 1 ± 0.001 (are these logits? pass --logits)",
            fmt_num(e.value)
        ),
        K::LabelOutOfRange => format!(
            "label {} is outside 0..{} ({k} classes from the score columns)",
            e.value,
            k.saturating_sub(1)
        ),
    }
}

/// Merges parse-level errors (in `sink`) with the located contract errors; `Ok` when
/// there are none.
pub(crate) fn finish_errors(
    ds: Dataset,
    sink: Sink,
    verrs: Vec<(Location, calibscope_core::InputError, usize, Source)>,
) -> Result<Dataset, ParseErrors> {
    finish_errors_with(ds, sink, verrs, None)
}

/// [`finish_errors`] with the summary of the errors a detected reading explains
/// (which keeps the dataset, as value errors do, so its reading can be shown).
fn finish_errors_with(
    ds: Dataset,
    sink: Sink,
    verrs: Vec<(Location, calibscope_core::InputError, usize, Source)>,
    summary: Option<crate::ParseError>,
) -> Result<Dataset, ParseErrors> {
    if sink.errors.is_empty() && sink.more == 0 && verrs.is_empty() && summary.is_none() {
        return Ok(ds);
    }
    let only_values = sink.errors.is_empty() && sink.more == 0;
    let Sink {
        file,
        mut errors,
        mut more,
        max,
        columns,
    } = sink;
    errors.extend(summary);
    for (loc, e, k, source) in verrs {
        errors.push(crate::ParseError::new(
            ErrorCode::from_input(e.kind),
            &file,
            loc,
            input_message(&e, k, source),
        ));
    }
    errors.sort_by_key(|e| e.location.row.map_or(0, |r| r + 1));
    if errors.len() > max {
        more += errors.len() - max;
        errors.truncate(max);
    }
    Err(ParseErrors {
        errors,
        more,
        dataset: only_values.then(|| Box::new(ds)),
        columns,
    })
}
