//! Planning: what each column means, from the names and the caller's
//! [`ColumnMapping`], with the guesses recorded in the [`Detection`].

use super::*;

fn perr(code: crate::ErrorCode, message: impl Into<String>) -> PlanError {
    PlanError {
        code,
        message: message.into(),
        column: None,
    }
}

fn find_any(cols: &[Col], names: &[&str]) -> Vec<usize> {
    let mut v = Vec::new();
    for (i, c) in cols.iter().enumerate() {
        if c.width == 1 && names.contains(&norm(&c.name).as_str()) {
            v.push(i);
        }
    }
    v
}

pub(crate) fn split_prefix(name: &str) -> Option<(&'static str, Source, String)> {
    let n = norm(name);
    for p in PROB_PREFIXES {
        if let Some(rest) = n.strip_prefix(p) {
            if !rest.is_empty() {
                return Some((p, Source::Probs, name.trim()[p.len()..].to_string()));
            }
        }
    }
    for p in LOGIT_PREFIXES {
        if let Some(rest) = n.strip_prefix(p) {
            if !rest.is_empty() {
                return Some((p, Source::Logits, name.trim()[p.len()..].to_string()));
            }
        }
    }
    for p in PROB_DIGIT_PREFIXES {
        if let Some(rest) = n.strip_prefix(p) {
            if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) {
                return Some((p, Source::Probs, rest.to_string()));
            }
        }
    }
    None
}

/// Class order of a family of `prefix_<class>` columns: by integer value when every
/// suffix is a non-negative integer, else file order. Returns (columns, names).
pub(crate) fn order_family(fam: &[(usize, String)]) -> (Vec<usize>, Vec<String>) {
    let ints: Option<Vec<u64>> = fam.iter().map(|(_, s)| s.parse::<u64>().ok()).collect();
    let mut v: Vec<(usize, String)> = fam.to_vec();
    if let Some(ints) = ints {
        let mut idx: Vec<usize> = (0..v.len()).collect();
        idx.sort_by_key(|&i| ints[i]);
        v = idx.into_iter().map(|i| fam[i].clone()).collect();
    }
    (
        v.iter().map(|(c, _)| *c).collect(),
        v.into_iter().map(|(_, s)| s).collect(),
    )
}

/// Resolves what each column means from the names (and the user's mapping).
pub(crate) fn plan(cols: &[Col], mapping: &ColumnMapping) -> Result<Plan, Vec<PlanError>> {
    use crate::ErrorCode as E;
    let mut det = Detection {
        columns: cols.iter().map(|c| c.name.clone()).collect(),
        ..Default::default()
    };
    let mut errors = Vec::new();

    // duplicate names: every pair (j < i) of the same normalised name, by i then
    // j, found through the earlier columns of each name (one pass, not one per
    // pair: a header of 10,000 classes took 2.3 s this way)
    let mut earlier: std::collections::HashMap<String, Vec<usize>> =
        std::collections::HashMap::with_capacity(cols.len());
    for (i, col) in cols.iter().enumerate() {
        let same = earlier.entry(norm(&col.name)).or_default();
        if !col.name.trim().is_empty() {
            for &j in same.iter() {
                errors.push(PlanError {
                    code: E::DuplicateColumn,
                    message: format!(
                        "column {:?} appears twice (columns {} and {}); rename one of them",
                        col.name.trim(),
                        j + 1,
                        i + 1
                    ),
                    column: Some(col.name.clone()),
                });
            }
        }
        same.push(i);
    }
    if !errors.is_empty() {
        return Err(errors);
    }

    // (the names are unique from here on: a mapping's columns are found by one look-up each)
    let position: std::collections::HashMap<String, usize> = earlier
        .into_iter()
        .map(|(name, at)| (name, at[0]))
        .collect();
    let named = |name: &str, what: &str, errors: &mut Vec<PlanError>| -> Option<usize> {
        let r = position.get(&norm(name)).copied();
        if r.is_none() {
            errors.push(PlanError {
                code: E::MappingColumnMissing,
                message: format!(
                    "the mapping names {name:?} as the {what} column, but there is no such column (columns: {})",
                    list(cols)
                ),
                column: Some(name.to_string()),
            });
        }
        r
    };

    // label
    let label = match &mapping.label {
        Some(name) => named(name, "label", &mut errors),
        None => {
            let found = find_any(cols, LABEL_NAMES);
            if found.len() > 1 {
                // take the first in priority order
                let best = *found
                    .iter()
                    .min_by_key(|&&i| {
                        LABEL_NAMES
                            .iter()
                            .position(|n| *n == norm(&cols[i].name))
                            .unwrap_or(usize::MAX)
                    })
                    .unwrap();
                det.guess(
                    "label",
                    cols[best].name.clone(),
                    format!(
                        "several columns look like labels ({}); took {:?}",
                        found
                            .iter()
                            .map(|&i| cols[i].name.clone())
                            .collect::<Vec<_>>()
                            .join(", "),
                        cols[best].name
                    ),
                );
                Some(best)
            } else if let Some(&i) = found.first() {
                Some(i)
            } else {
                errors.push(perr(
                    E::MissingLabelColumn,
                    format!(
                        "no label column: name it one of label, y, y_true, target, true, class, or map it explicitly (columns: {})",
                        list(cols)
                    ),
                ));
                None
            }
        }
    };

    let model = match &mapping.model {
        Pick::Absent => None,
        Pick::Column(name) => named(name, "model", &mut errors),
        Pick::Auto => find_any(cols, MODEL_NAMES).first().copied(),
    };
    let id = match &mapping.id {
        Pick::Absent => None,
        Pick::Column(name) => named(name, "id", &mut errors),
        Pick::Auto => find_any(cols, ID_NAMES).first().copied(),
    };

    // pandas' index column (`to_csv` writes it with an empty header): ignored
    let mut reserved = vec![false; cols.len()];
    for (i, c) in cols.iter().enumerate() {
        if c.width == 1 && is_index_name(&c.name) && Some(i) != label {
            reserved[i] = true;
            det.guess(
                "index",
                if c.name.trim().is_empty() {
                    format!("column {} (no name)", i + 1)
                } else {
                    format!("{:?}", c.name.trim())
                },
                "a column without a name (or \"Unnamed: 0\") is the row index pandas' to_csv writes; it was ignored",
            );
        }
    }
    for i in [label, model, id].into_iter().flatten() {
        reserved[i] = true;
    }
    // grouping columns are never read as class-name score columns
    for g in &mapping.groups {
        if let Some(&i) = position.get(&norm(g)) {
            reserved[i] = true;
        }
    }
    let mut class_columns = false;
    let mut class_names: Vec<String> = Vec::new();
    let scores = match &mapping.scores {
        Some(ScoreColumns::Column(name)) => named(name, "score", &mut errors).map(|col| {
            if cols[col].width > 1 {
                PlanScores::Vector {
                    col,
                    source: mapping
                        .source
                        .or_else(|| vector_source(&cols[col].name))
                        .unwrap_or(Source::Probs),
                }
            } else {
                PlanScores::Column {
                    col,
                    source: match mapping.source {
                        Some(s) => SourceChoice::Known(s),
                        None => binary_source(&cols[col].name),
                    },
                }
            }
        }),
        Some(ScoreColumns::Matrix(names)) => {
            let idx: Vec<Option<usize>> = names
                .iter()
                .map(|n| named(n, "score", &mut errors))
                .collect();
            if idx.iter().any(|i| i.is_none()) {
                None
            } else {
                let idx: Vec<usize> = idx.into_iter().map(|i| i.unwrap()).collect();
                if idx.len() == 1 && cols[idx[0]].width > 1 {
                    let col = idx[0];
                    Some(PlanScores::Vector {
                        col,
                        source: mapping
                            .source
                            .or_else(|| vector_source(&cols[col].name))
                            .unwrap_or(Source::Probs),
                    })
                } else if idx.len() < 2 {
                    errors.push(perr(
                        E::InvalidMapping,
                        "a score matrix needs at least 2 columns; map a single binary column as ScoreColumns::Column",
                    ));
                    None
                } else {
                    let source =
                        mapping
                            .source
                            .unwrap_or_else(|| match split_prefix(&cols[idx[0]].name) {
                                Some((_, s, _)) => s,
                                None => Source::Probs,
                            });
                    class_names = idx
                        .iter()
                        .map(|&i| match split_prefix(&cols[i].name) {
                            Some((_, _, s)) => s,
                            None => cols[i].name.trim().to_string(),
                        })
                        .collect();
                    Some(PlanScores::Matrix { cols: idx, source })
                }
            }
        }
        Some(ScoreColumns::TopLabel {
            predicted,
            confidence,
        }) => {
            let p = named(predicted, "predicted-class", &mut errors);
            let c = named(confidence, "confidence", &mut errors);
            match (p, c) {
                (Some(pred), Some(conf)) => Some(PlanScores::TopLabel { pred, conf }),
                _ => None,
            }
        }
        None => detect_scores(
            cols,
            mapping,
            &reserved,
            label.is_some(),
            &mut det,
            &mut class_names,
            &mut class_columns,
            &mut errors,
        ),
    };

    let groups = if errors.is_empty() {
        plan_groups(
            cols,
            mapping,
            label,
            model,
            id,
            &scores,
            &position,
            &mut errors,
        )
    } else {
        Vec::new()
    };
    if !errors.is_empty() {
        return Err(errors);
    }
    let (label, scores) = (label.unwrap(), scores.unwrap());
    if let Some(names) = &mapping.class_names {
        class_names = names.clone();
    }

    // the complete mapping that was used
    let m = &mut det.mapping;
    m.delimiter = mapping.delimiter;
    m.label = Some(cols[label].name.clone());
    m.model = model.map_or(Pick::Absent, |i| Pick::Column(cols[i].name.clone()));
    m.id = id.map_or(Pick::Absent, |i| Pick::Column(cols[i].name.clone()));
    m.groups = groups.iter().map(|&i| cols[i].name.clone()).collect();
    m.class_names = if class_names.is_empty() {
        None
    } else {
        Some(class_names.clone())
    };
    let used: Vec<usize>;
    match &scores {
        PlanScores::Column { col, source } => {
            m.scores = Some(ScoreColumns::Column(cols[*col].name.clone()));
            m.source = match source {
                SourceChoice::Known(s) => Some(*s),
                SourceChoice::Auto => None,
            };
            used = vec![*col];
        }
        PlanScores::Vector { col, source } => {
            m.scores = Some(ScoreColumns::Matrix(vec![cols[*col].name.clone()]));
            m.source = Some(*source);
            used = vec![*col];
        }
        PlanScores::Matrix { cols: c, source } => {
            m.scores = Some(ScoreColumns::Matrix(
                c.iter().map(|&i| cols[i].name.clone()).collect(),
            ));
            m.source = Some(*source);
            used = c.clone();
        }
        PlanScores::TopLabel { pred, conf } => {
            m.scores = Some(ScoreColumns::TopLabel {
                predicted: cols[*pred].name.clone(),
                confidence: cols[*conf].name.clone(),
            });
            m.source = Some(Source::TopLabel);
            used = vec![*pred, *conf];
        }
    }
    let mut in_use = vec![false; cols.len()];
    for i in used
        .iter()
        .copied()
        .chain([label])
        .chain(model)
        .chain(id)
        .chain(groups.iter().copied())
    {
        in_use[i] = true;
    }
    for (i, c) in cols.iter().enumerate() {
        if !in_use[i] {
            det.ignored.push(c.name.clone());
        }
    }
    Ok(Plan {
        label,
        scores,
        model,
        id,
        groups,
        class_names,
        detection: det,
        guessed: mapping.scores.is_none() && mapping.class_names.is_none(),
        class_columns,
        unaligned_models: false,
    })
}

/// The grouping columns of the mapping: each must exist, be a scalar column and
/// have no other role (label, scores, model, id), and at most
/// [`crate::groups::MAX_GROUP_COLUMNS`] of them, each named once.
#[allow(clippy::too_many_arguments)]
fn plan_groups(
    cols: &[Col],
    mapping: &ColumnMapping,
    label: Option<usize>,
    model: Option<usize>,
    id: Option<usize>,
    scores: &Option<PlanScores>,
    position: &std::collections::HashMap<String, usize>,
    errors: &mut Vec<PlanError>,
) -> Vec<usize> {
    use crate::ErrorCode as E;
    let names: Vec<&str> = mapping
        .groups
        .iter()
        .map(|g| g.trim())
        .filter(|g| !g.is_empty())
        .collect();
    if names.len() > crate::groups::MAX_GROUP_COLUMNS {
        errors.push(perr(
            E::InvalidMapping,
            format!(
                "{} grouping columns were given; at most {} can be intersected",
                names.len(),
                crate::groups::MAX_GROUP_COLUMNS
            ),
        ));
        return Vec::new();
    }
    let mut roles: Vec<(usize, &str)> = Vec::new();
    roles.extend(label.map(|i| (i, "label")));
    roles.extend(model.map(|i| (i, "model")));
    roles.extend(id.map(|i| (i, "id")));
    match scores {
        Some(PlanScores::Column { col, .. }) | Some(PlanScores::Vector { col, .. }) => {
            roles.push((*col, "score"))
        }
        Some(PlanScores::Matrix { cols: c, .. }) => roles.extend(c.iter().map(|&i| (i, "score"))),
        Some(PlanScores::TopLabel { pred, conf }) => {
            roles.push((*pred, "predicted-class"));
            roles.push((*conf, "confidence"));
        }
        None => {}
    }
    let mut out: Vec<usize> = Vec::new();
    for name in names {
        let Some(&i) = position.get(&norm(name)) else {
            let free: Vec<String> = cols
                .iter()
                .enumerate()
                .filter(|(i, c)| c.width == 1 && !roles.iter().any(|r| r.0 == *i))
                .map(|(_, c)| c.name.trim().to_string())
                .collect();
            errors.push(PlanError {
                code: E::MappingColumnMissing,
                message: format!(
                    "the grouping names {name:?}, but there is no such column (columns: {}); group by one of the columns the mapping does not use{}",
                    list(cols),
                    if free.is_empty() {
                        " (this file has none)".to_string()
                    } else {
                        format!(": {}", short_list(&free))
                    }
                ),
                column: Some(name.to_string()),
            });
            continue;
        };
        if let Some((_, role)) = roles.iter().find(|r| r.0 == i) {
            errors.push(PlanError {
                code: E::InvalidMapping,
                message: format!(
                    "column {:?} is the {role} column; a grouping is a column the mapping does not otherwise use",
                    cols[i].name.trim()
                ),
                column: Some(cols[i].name.clone()),
            });
        } else if cols[i].width != 1 {
            errors.push(PlanError {
                code: E::InvalidMapping,
                message: format!(
                    "column {:?} holds a vector of {} values per sample; a grouping column holds one value (a string, an integer or a boolean) per sample",
                    cols[i].name.trim(),
                    cols[i].width
                ),
                column: Some(cols[i].name.clone()),
            });
        } else if out.contains(&i) {
            errors.push(PlanError {
                code: E::InvalidMapping,
                message: format!("the grouping names column {:?} twice", cols[i].name.trim()),
                column: Some(cols[i].name.clone()),
            });
        } else {
            out.push(i);
        }
    }
    out
}

fn binary_source(name: &str) -> SourceChoice {
    let n = norm(name);
    if BIN_LOGIT_NAMES.contains(&n.as_str())
        || split_prefix(name).map(|p| p.1) == Some(Source::Logits)
    {
        SourceChoice::Known(Source::Logits)
    } else if BIN_AUTO_NAMES.contains(&n.as_str()) {
        SourceChoice::Auto
    } else {
        SourceChoice::Known(Source::Probs)
    }
}

/// `a, b, c` or `a, b, …, z` for a long list.
pub(crate) fn short_list(names: &[String]) -> String {
    if names.len() <= 6 {
        names.join(", ")
    } else {
        format!(
            "{}, {}, {}, …, {}",
            names[0],
            names[1],
            names[2],
            names[names.len() - 1]
        )
    }
}

fn list(cols: &[Col]) -> String {
    let mut s = cols
        .iter()
        .take(12)
        .map(|c| c.name.trim().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if cols.len() > 12 {
        s.push_str(&format!(", ... ({} in all)", cols.len()));
    }
    s
}

#[allow(clippy::too_many_arguments)]
fn detect_scores(
    cols: &[Col],
    mapping: &ColumnMapping,
    reserved: &[bool],
    has_label: bool,
    det: &mut Detection,
    class_names: &mut Vec<String>,
    class_columns: &mut bool,
    errors: &mut Vec<PlanError>,
) -> Option<PlanScores> {
    // candidates, best first: vector columns, prefix families, binary columns, top-label
    let mut cands: Vec<(PlanScores, String, Vec<String>)> = Vec::new();

    for (i, c) in cols.iter().enumerate() {
        if c.width > 1 {
            if let Some(s) = vector_source(&c.name) {
                let source = mapping.source.unwrap_or(s);
                cands.push((
                    PlanScores::Vector { col: i, source },
                    format!("{:?} ({} classes, {})", c.name, c.width, source.name()),
                    Vec::new(),
                ));
            }
        }
    }
    // prefix families: keyed by prefix
    type Family = (&'static str, Source, Vec<(usize, String)>);
    let mut fams: Vec<Family> = Vec::new();
    for (i, c) in cols.iter().enumerate() {
        if c.width != 1 {
            continue;
        }
        if let Some((p, s, suffix)) = split_prefix(&c.name) {
            match fams.iter_mut().find(|f| f.0 == p) {
                Some(f) => f.2.push((i, suffix)),
                None => fams.push((p, s, vec![(i, suffix)])),
            }
        }
    }
    // logits before probabilities (they carry more), then larger families first
    fams.sort_by_key(|f| (f.1 == Source::Probs, usize::MAX - f.2.len()));
    for (p, s, fam) in &fams {
        let source = mapping.source.unwrap_or(*s);
        if fam.len() >= 2 {
            let (idx, names) = order_family(fam);
            cands.push((
                PlanScores::Matrix { cols: idx, source },
                format!(
                    "{}<class> columns ({} classes, {})",
                    p,
                    fam.len(),
                    source.name()
                ),
                names,
            ));
        } else {
            // a lone p_1 / logit_1 is a binary column
            let suffix = norm(&fam[0].1);
            if ["1", "pos", "positive", "true", "yes"].contains(&suffix.as_str()) {
                cands.push((
                    PlanScores::Column {
                        col: fam[0].0,
                        source: SourceChoice::Known(source),
                    },
                    format!("{:?} (binary, {})", cols[fam[0].0].name, source.name()),
                    Vec::new(),
                ));
            }
        }
    }
    for names in [BIN_LOGIT_NAMES, BIN_PROB_NAMES, BIN_AUTO_NAMES] {
        for i in find_any(cols, names) {
            // (a lone `p1` is already a candidate as its family)
            if cands
                .iter()
                .any(|c| matches!(c.0, PlanScores::Column { col, .. } if col == i))
            {
                continue;
            }
            let source = match mapping.source {
                Some(s) => SourceChoice::Known(s),
                None => binary_source(&cols[i].name),
            };
            cands.push((
                PlanScores::Column { col: i, source },
                format!(
                    "{:?} (binary, {})",
                    cols[i].name,
                    match source {
                        SourceChoice::Known(s) => s.name(),
                        SourceChoice::Auto => "probs or logits by value",
                    }
                ),
                Vec::new(),
            ));
        }
    }
    let preds = find_any(cols, PRED_NAMES);
    let confs = find_any(cols, CONF_NAMES);
    if let (Some(&pred), Some(&conf)) = (preds.first(), confs.first()) {
        cands.push((
            PlanScores::TopLabel { pred, conf },
            format!("top-label {:?} + {:?}", cols[pred].name, cols[conf].name),
            Vec::new(),
        ));
    }
    if cands.is_empty() && has_label {
        // class-name columns: pandas' `DataFrame(model.predict_proba(X),
        // columns=model.classes_)` names each probability column by its class, in
        // `classes_` order; the labels are matched with these names
        let other: Vec<usize> = (0..cols.len())
            .filter(|&i| {
                let n = norm(&cols[i].name);
                !reserved[i]
                    && cols[i].width == 1
                    && ![LABEL_NAMES, PRED_NAMES, CONF_NAMES, MODEL_NAMES, ID_NAMES]
                        .iter()
                        .any(|names| names.contains(&n.as_str()))
            })
            .collect();
        if other.len() >= 2 {
            let source = mapping.source.unwrap_or(Source::Probs);
            let names: Vec<String> = other
                .iter()
                .map(|&i| cols[i].name.trim().to_string())
                .collect();
            det.guess(
                "scores",
                format!(
                    "class-name columns {} ({} classes, {})",
                    short_list(&names),
                    names.len(),
                    source.name()
                ),
                "no column is named like scores (p_<class>, logit_<class>, p, score); the other columns were taken as one score column per class, named by their class in file order (as pandas writes DataFrame(model.predict_proba(X), columns=model.classes_)), and the labels are matched with these names",
            );
            *class_names = names;
            *class_columns = true;
            return Some(PlanScores::Matrix {
                cols: other,
                source,
            });
        }
    }
    if cands.is_empty() {
        errors.push(perr(
            crate::ErrorCode::MissingScoreColumns,
            format!(
                "no score columns: expected p_<class> / logit_<class> / p0..pK columns, one column per class named by the class, a binary p / logit / score column, or yhat + conf (columns: {})",
                list(cols)
            ),
        ));
        return None;
    }
    let (first, what, names) = cands.remove(0);
    if !cands.is_empty() {
        det.guess(
            "scores",
            what.clone(),
            format!(
                "several score columns found; took {what} over {} (logits over probabilities, vectors over one column, over top-label; map the columns to choose)",
                cands
                    .iter()
                    .map(|c| c.1.clone())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        );
    }
    *class_names = names;
    Some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols(names: &[&str]) -> Vec<Col> {
        names
            .iter()
            .map(|n| Col {
                name: n.to_string(),
                width: 1,
            })
            .collect()
    }

    /// Every pair of columns of the same name (trimmed, any case) is one error,
    /// ordered by the later column, then the earlier one; blank names are no
    /// duplicates.
    #[test]
    fn duplicate_columns_are_every_pair_in_order() {
        let c = cols(&["label", "p", " P ", "", "x", "p", " "]);
        let errors = plan(&c, &ColumnMapping::default()).unwrap_err();
        let said: Vec<(String, Option<String>)> =
            errors.into_iter().map(|e| (e.message, e.column)).collect();
        let pair = |name: &str, j: usize, i: usize, col: &str| {
            (
                format!("column {name:?} appears twice (columns {j} and {i}); rename one of them"),
                Some(col.to_string()),
            )
        };
        assert_eq!(
            said,
            vec![
                pair("P", 2, 3, " P "),
                pair("p", 2, 6, "p"),
                pair("p", 3, 6, "p"),
            ]
        );
    }

    /// A header of 10,000 classes: every class column is used, in order (its
    /// planning time is in BENCHMARKS.md).
    #[test]
    fn many_classes_are_planned() {
        let mut names = vec!["label".to_string()];
        names.extend((0..10_000).map(|j| format!("p_{j}")));
        let c: Vec<Col> = names
            .iter()
            .map(|n| Col {
                name: n.clone(),
                width: 1,
            })
            .collect();
        let p = plan(&c, &ColumnMapping::default()).unwrap();
        let PlanScores::Matrix { cols: used, .. } = &p.scores else {
            panic!("a matrix: {:?}", p.scores)
        };
        assert_eq!(used.len(), 10_000);
        assert!(p.detection.ignored.is_empty());
        assert_eq!(p.class_names[9_999], "9999");
    }
}
