//! A column mapping as a person writes it: the CLI's mapping flags, the web app's
//! mapping panel, share links and audit records all hold a [`MappingRequest`]
//! (strings and lists, empty = detect), and all turn it into a [`ColumnMapping`]
//! here, with the same checks and the same messages.

use crate::mapping::{ColumnMapping, LabelPair, Pick, ScoreColumns, VerbalColumns};
use calibscope_core::Source;

/// A column mapping in words. Every empty field is detected.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct MappingRequest {
    /// Field delimiter of text tables: one character, or `tab`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub delimiter: Option<String>,
    /// The label column.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub label: Option<String>,
    /// What the score columns hold: `probs` or `logits`.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub source: Option<String>,
    /// The score columns: one binary column, or k columns in class order.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub scores: Vec<String>,
    /// Top-label input: the predicted-class column and the confidence column.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub top_label: Vec<String>,
    /// Class names in class order.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub class_names: Vec<String>,
    /// The model column of a long-format table; `none` (or an empty name): the file
    /// holds one model.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub model_column: Option<String>,
    /// The sample id column; `none` (or an empty name): no id column.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Option::is_none"))]
    pub id_column: Option<String>,
    /// Grouping columns (several: their intersections); empty: none, or an
    /// lm-evaluation-harness log's subject or task; `["none"]`: no grouping at all.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub groups: Vec<String>,
    /// Verbalised confidence: the stated-confidence column and the correctness
    /// column, e.g. `["stated", "graded"]`; empty: detected from the header.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub verbalised: Vec<String>,
    /// A multilabel table's label/score column pairs, each `label:score`
    /// (e.g. `["has_cat:cat_score", "has_dog:dog_score"]`); empty: detected from
    /// the header.
    #[cfg_attr(feature = "serde", serde(skip_serializing_if = "Vec::is_empty"))]
    pub multilabel: Vec<String>,
}

fn pick(v: &Option<String>) -> Pick {
    match v.as_deref().map(str::trim) {
        None => Pick::Auto,
        Some("" | "none") => Pick::Absent,
        Some(c) => Pick::Column(c.to_string()),
    }
}

fn nonempty(v: &[String]) -> Vec<String> {
    v.iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

impl MappingRequest {
    /// The request that gives `mapping` (what [`MappingRequest::to_mapping`] turns
    /// back into it), e.g. to offer a [`crate::Candidate`]'s mapping as a form.
    pub fn from_mapping(mapping: &ColumnMapping) -> MappingRequest {
        let pick = |p: &Pick| match p {
            Pick::Auto => None,
            Pick::Absent => Some(String::new()),
            Pick::Column(c) => Some(c.clone()),
        };
        let (scores, top_label) = match &mapping.scores {
            None => (Vec::new(), Vec::new()),
            Some(ScoreColumns::Column(c)) => (vec![c.clone()], Vec::new()),
            Some(ScoreColumns::Matrix(cols)) => (cols.clone(), Vec::new()),
            Some(ScoreColumns::TopLabel {
                predicted,
                confidence,
            }) => (Vec::new(), vec![predicted.clone(), confidence.clone()]),
        };
        MappingRequest {
            delimiter: mapping.delimiter.map(|d| match d {
                b'\t' => "tab".to_string(),
                d => (d as char).to_string(),
            }),
            label: mapping.label.clone(),
            source: mapping.source.and_then(|s| match s {
                Source::Probs => Some("probs".to_string()),
                Source::Logits => Some("logits".to_string()),
                _ => None,
            }),
            scores,
            top_label,
            class_names: mapping.class_names.clone().unwrap_or_default(),
            model_column: pick(&mapping.model),
            id_column: pick(&mapping.id),
            groups: mapping.group_names(),
            verbalised: mapping.verbal.as_ref().map_or(Vec::new(), |v| {
                vec![v.confidence.clone(), v.correct.clone()]
            }),
            multilabel: mapping.multilabel.as_ref().map_or(Vec::new(), |pairs| {
                pairs
                    .iter()
                    .map(|p| format!("{}:{}", p.label, p.score))
                    .collect()
            }),
        }
    }

    /// The [`ColumnMapping`] this request asks for, or a message saying which field
    /// is wrong and what it takes.
    pub fn to_mapping(&self) -> Result<ColumnMapping, String> {
        let delimiter = match self.delimiter.as_deref() {
            None | Some("") => None,
            Some("tab" | "\\t" | "\t") => Some(b'\t'),
            Some(d) if d.len() == 1 && d != "\"" && d != "\n" && d != "\r" => Some(d.as_bytes()[0]),
            Some(d) => {
                return Err(format!(
                    "the delimiter is one character (',' ';' '|') or 'tab', not '{d}'"
                ))
            }
        };
        let scores = match (
            nonempty(&self.scores).as_slice(),
            nonempty(&self.top_label).as_slice(),
        ) {
            ([], []) => None,
            ([one], []) => Some(ScoreColumns::Column(one.clone())),
            (many, []) => Some(ScoreColumns::Matrix(many.to_vec())),
            ([], [predicted, confidence]) => Some(ScoreColumns::TopLabel {
                predicted: predicted.clone(),
                confidence: confidence.clone(),
            }),
            ([], _) => {
                return Err(
                    "top-label input takes two columns: the predicted class and its confidence, e.g. yhat,conf"
                        .into(),
                )
            }
            _ => {
                return Err(
                    "give either score columns or the two top-label columns, not both".into(),
                )
            }
        };
        let source = match self.source.as_deref().map(str::trim) {
            None | Some("") => None,
            Some("probs") => Some(Source::Probs),
            Some("logits") => Some(Source::Logits),
            Some(s) => return Err(format!("scores are 'probs' or 'logits', not '{s}'")),
        };
        let class_names = nonempty(&self.class_names);
        let verbal = match nonempty(&self.verbalised).as_slice() {
            [] => None,
            [confidence, correct] => {
                let other = scores.is_some()
                    || self.label.as_deref().is_some_and(|l| !l.trim().is_empty())
                    || !class_names.is_empty();
                if other {
                    return Err(
                        "verbalised confidence is read from its two columns alone: give no label, score, top-label or class-name columns with it"
                            .into(),
                    );
                }
                Some(VerbalColumns {
                    confidence: confidence.clone(),
                    correct: correct.clone(),
                })
            }
            _ => {
                return Err(
                    "verbalised confidence takes two columns: the stated confidence and the correctness, e.g. confidence,correct"
                        .into(),
                )
            }
        };
        let multilabel = match nonempty(&self.multilabel).as_slice() {
            [] => None,
            pairs => {
                let other = scores.is_some()
                    || self.label.as_deref().is_some_and(|l| !l.trim().is_empty())
                    || !class_names.is_empty()
                    || verbal.is_some();
                if other {
                    return Err(
                        "a multilabel table is read from its label:score pairs alone: give no label, score, top-label, class-name or verbalised columns with them"
                            .into(),
                    );
                }
                let pairs: Vec<LabelPair> = pairs
                    .iter()
                    .map(|p| match p.split_once(':') {
                        Some((label, score)) if !label.trim().is_empty() && !score.trim().is_empty() => Ok(LabelPair {
                            label: label.trim().to_string(),
                            score: score.trim().to_string(),
                        }),
                        _ => Err(format!(
                            "a multilabel pair is a label column and its score column joined by ':', e.g. has_cat:p_cat, not '{p}'"
                        )),
                    })
                    .collect::<Result<_, _>>()?;
                if pairs.len() < 2 {
                    return Err(
                        "a multilabel table has at least two labels (with one, it is a binary table: give its label and score columns instead)"
                            .into(),
                    );
                }
                Some(pairs)
            }
        };
        let mut mapping = ColumnMapping {
            delimiter,
            label: self
                .label
                .as_deref()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
            scores,
            source,
            class_names: (!class_names.is_empty()).then_some(class_names),
            model: pick(&self.model_column),
            id: pick(&self.id_column),
            verbal,
            multilabel,
            ..ColumnMapping::default()
        };
        mapping.set_groups(&self.groups);
        Ok(mapping)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> MappingRequest {
        MappingRequest::default()
    }

    #[test]
    fn empty_requests_detect_everything() {
        assert_eq!(req().to_mapping().unwrap(), ColumnMapping::default());
    }

    /// `none` alone turns grouping off (an lm-evaluation-harness log's own too) and
    /// comes back as `none`; blank names are dropped.
    #[test]
    fn a_grouping_of_none_is_no_grouping() {
        let r = MappingRequest {
            groups: vec![" NONE ".into()],
            ..req()
        };
        let m = r.to_mapping().unwrap();
        assert!(m.ungrouped && m.groups.is_empty());
        assert_eq!(MappingRequest::from_mapping(&m).groups, ["none"]);
        let r = MappingRequest {
            groups: vec!["site".into(), " ".into(), "sex".into()],
            ..req()
        };
        let m = r.to_mapping().unwrap();
        assert!(!m.ungrouped);
        assert_eq!(m.groups, ["site", "sex"]);
        assert_eq!(MappingRequest::from_mapping(&m).groups, ["site", "sex"]);
    }

    #[test]
    fn every_field_maps() {
        let r = MappingRequest {
            delimiter: Some("tab".into()),
            label: Some(" truth ".into()),
            source: Some("logits".into()),
            scores: vec!["a".into(), " b".into(), "".into()],
            class_names: vec!["cat".into(), "dog".into()],
            model_column: Some("none".into()),
            id_column: Some("row".into()),
            ..req()
        };
        let m = r.to_mapping().unwrap();
        assert_eq!(m.delimiter, Some(b'\t'));
        assert_eq!(m.label.as_deref(), Some("truth"));
        assert_eq!(m.source, Some(Source::Logits));
        assert_eq!(
            m.scores,
            Some(ScoreColumns::Matrix(vec!["a".into(), "b".into()]))
        );
        assert_eq!(m.class_names, Some(vec!["cat".into(), "dog".into()]));
        assert_eq!(m.model, Pick::Absent);
        assert_eq!(m.id, Pick::Column("row".into()));
        let top = MappingRequest {
            top_label: vec!["yhat".into(), "conf".into()],
            delimiter: Some(";".into()),
            ..req()
        }
        .to_mapping()
        .unwrap();
        assert_eq!(top.delimiter, Some(b';'));
        assert!(matches!(top.scores, Some(ScoreColumns::TopLabel { .. })));
    }

    #[test]
    fn multilabel_pairs_map_and_come_back() {
        let r = MappingRequest {
            multilabel: vec![
                " has_cat : cat_p".into(),
                "has_dog:dog_p".into(),
                " ".into(),
            ],
            ..req()
        };
        let m = r.to_mapping().unwrap();
        let pairs = m.multilabel.as_ref().unwrap();
        assert_eq!(pairs.len(), 2);
        assert_eq!(
            (pairs[0].label.as_str(), pairs[0].score.as_str()),
            ("has_cat", "cat_p")
        );
        assert_eq!(
            MappingRequest::from_mapping(&m).multilabel,
            ["has_cat:cat_p", "has_dog:dog_p"]
        );
    }

    #[test]
    fn mappings_come_back_as_requests() {
        let m = ColumnMapping {
            delimiter: Some(b'\t'),
            label: Some("y".into()),
            scores: Some(ScoreColumns::Matrix(vec!["p_1".into(), "p_2".into()])),
            source: Some(Source::Logits),
            class_names: Some(vec!["0".into(), "1".into()]),
            model: Pick::Absent,
            id: Pick::Column("row".into()),
            groups: Vec::new(),
            ungrouped: false,
            verbal: None,
            multilabel: None,
        };
        let r = MappingRequest::from_mapping(&m);
        assert_eq!(r.model_column.as_deref(), Some(""));
        assert_eq!(r.to_mapping().unwrap(), m);
        assert_eq!(
            MappingRequest::from_mapping(&ColumnMapping::default()),
            MappingRequest::default()
        );
    }

    #[test]
    fn wrong_fields_say_what_they_take() {
        for (r, says) in [
            (
                MappingRequest {
                    delimiter: Some("::".into()),
                    ..req()
                },
                "delimiter",
            ),
            (
                MappingRequest {
                    top_label: vec!["yhat".into()],
                    ..req()
                },
                "two columns",
            ),
            (
                MappingRequest {
                    scores: vec!["p".into()],
                    top_label: vec!["a".into(), "b".into()],
                    ..req()
                },
                "not both",
            ),
            (
                MappingRequest {
                    source: Some("odds".into()),
                    ..req()
                },
                "'probs' or 'logits'",
            ),
            (
                MappingRequest {
                    multilabel: vec!["a:p_a".into(), "b".into()],
                    ..req()
                },
                "joined by ':'",
            ),
            (
                MappingRequest {
                    multilabel: vec!["a:p_a".into()],
                    ..req()
                },
                "at least two labels",
            ),
            (
                MappingRequest {
                    multilabel: vec!["a:p_a".into(), "b:p_b".into()],
                    label: Some("y".into()),
                    ..req()
                },
                "alone",
            ),
        ] {
            let e = r.to_mapping().unwrap_err();
            assert!(e.contains(says), "{e}");
        }
    }
}
