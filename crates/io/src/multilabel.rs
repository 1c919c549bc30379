//! Multilabel tables: each row a sample that can have any number of L labels, with
//! one 0/1 column per label saying whether it has it and one score column per label
//! holding the model's probability (or logit) for it, as written from scikit-learn's
//! indicator matrix `Y` and `predict_proba` of a one-vs-rest model, or a Kaggle-style
//! `toxic, p_toxic, …` table.
//!
//! **Reading.** Every (row, label) pair is one binary prediction: the data set has
//! `n × L` rows, sample-major (row `i`'s label `j` is pair `i·L + j`), one binary
//! model, and the grouping column `label` whose groups are the labels. So the data
//! set's audit is the micro-averaged reading (every pair pooled), and each label's
//! audit is its group's, identical to auditing that label's column pair alone. A
//! pair's id is the row's `id` column when there is one, else the row's number
//! (1 = the first data row), so a brushed bin names the file's rows.
//!
//! **Detection** (no flags): no single label column (`label`, `y`, `y_true`, …),
//! and at least two labels whose columns pair up by name: a score column
//! `p_X`, `prob_X`, `proba_X`, `pred_X`, `score_X`, `logit_X` (or `X_p`, `X_prob`,
//! `X_proba`, `X_pred`, `X_score`, `X_logit`) and a label column `X`, `y_X`,
//! `label_X`, `labels_X`, `true_X`, `target_X`, `gold_X`, `is_X` (or `X_true`,
//! `X_label`, `X_target`, `X_gold`, `X_y`). Every score-named column must have its
//! label column. JSON list values (`"y": [0, 1, 1]`, `"probs": [.2, .9, .7]`) are
//! flattened to `y_0, y_1, …` and `p_0, p_1, …`, which pair by index.
//! [`ColumnMapping::multilabel`] names the pairs instead, whatever the names.
//!
//! **Values.** A label cell is `0`/`1` (also `0.0`/`1.0`) or `true`/`false` (any
//! case); a score is a number, a probability in [0, 1] unless the column is a
//! logit column (every label's scores the same kind). Anything else, an empty or
//! NaN score included, is an error located by row, line and column. Nothing is
//! dropped or clipped.

use calibscope_core::data::{PredictionSet, Scores, Values};
use calibscope_core::Source;

use crate::delimited::{for_each_record, header_delimiter};
use crate::error::{ErrorCode, Location, Sink};
use crate::groups::Dict;
use crate::mapping::{
    is_index_name, norm, ColumnMapping, Detection, LabelPair, CONF_NAMES, ID_NAMES, LABEL_NAMES,
    PRED_NAMES,
};
use crate::{Dataset, Format, Ids, Options, ParseErrors, Pick};

/// The name of the grouping column whose groups are the labels.
pub const LABEL_GROUP: &str = "label";

/// What a multilabel reading found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Multilabel {
    /// Each label's name (the stem its two columns share, or its label column's
    /// name when the mapping named the pairs), in the pairs' order.
    pub labels: Vec<String>,
    /// Each label's columns.
    pub pairs: Vec<LabelPair>,
    /// Rows (samples) of the table; the data set has `samples × labels.len()` rows.
    pub samples: usize,
}

const SCORE_PREFIXES: [&str; 6] = ["p_", "prob_", "proba_", "pred_", "score_", "logit_"];
const SCORE_SUFFIXES: [&str; 6] = ["_p", "_prob", "_proba", "_pred", "_score", "_logit"];
const LABEL_PREFIXES: [&str; 8] = [
    "y_", "label_", "labels_", "true_", "target_", "gold_", "is_", "y_true_",
];
const LABEL_SUFFIXES: [&str; 5] = ["_true", "_label", "_target", "_gold", "_y"];

/// The label a score column's name is about (`p_toxic` → `toxic`, as written) and
/// what the column holds, when the name is a score name.
fn score_stem(name: &str) -> Option<(String, Source)> {
    let name = name.trim();
    let n = norm(name);
    let source = |affix: &str| {
        if affix.contains("logit") {
            Source::Logits
        } else {
            Source::Probs
        }
    };
    for p in SCORE_PREFIXES {
        if n.len() > p.len() && n.starts_with(p) {
            return Some((name[p.len()..].to_string(), source(p)));
        }
    }
    for s in SCORE_SUFFIXES {
        if n.len() > s.len() && n.ends_with(s) {
            return Some((name[..name.len() - s.len()].to_string(), source(s)));
        }
    }
    None
}

/// The labels (normalised) a label column's name may be about: itself, and the
/// name without a label prefix or suffix.
fn label_stems(name: &str) -> Vec<String> {
    let n = norm(name);
    let mut stems = vec![n.clone()];
    for p in LABEL_PREFIXES {
        if let Some(s) = n.strip_prefix(p).filter(|s| !s.is_empty()) {
            stems.push(s.to_string());
        }
    }
    for x in LABEL_SUFFIXES {
        if let Some(s) = n.strip_suffix(x).filter(|s| !s.is_empty()) {
            stems.push(s.to_string());
        }
    }
    stems
}

/// The label/score pairs the header's names make, with each label's name, when
/// they make a multilabel table (see the module's detection rule); in the order of
/// the label columns.
pub fn pairs_of(header: &[String]) -> Option<(Vec<LabelPair>, Vec<String>)> {
    let names: Vec<String> = header.iter().map(|h| norm(h)).collect();
    let other_kind = |n: &String| {
        LABEL_NAMES.contains(&n.as_str())
            || PRED_NAMES.contains(&n.as_str())
            || CONF_NAMES.contains(&n.as_str())
    };
    if names.iter().any(other_kind) {
        return None;
    }
    let scores: Vec<(usize, String)> = header
        .iter()
        .enumerate()
        .filter_map(|(i, h)| score_stem(h).map(|(stem, _)| (i, stem)))
        .collect();
    if scores.len() < 2 {
        return None;
    }
    let mut found: Vec<(usize, usize, String)> = Vec::new();
    for (si, stem) in &scores {
        let key = norm(stem);
        let labels: Vec<usize> = (0..header.len())
            .filter(|&j| {
                !scores.iter().any(|(s, _)| *s == j)
                    && !is_index_name(&header[j])
                    && !ID_NAMES.contains(&names[j].as_str())
                    && label_stems(&header[j]).contains(&key)
            })
            .collect();
        match labels.as_slice() {
            [li] => found.push((*li, *si, stem.clone())),
            _ => return None,
        }
    }
    found.sort_by_key(|f| f.0);
    if found.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let keys: Vec<String> = found.iter().map(|f| norm(&f.2)).collect();
    if (1..keys.len()).any(|i| keys[..i].contains(&keys[i])) {
        return None;
    }
    Some(
        found
            .into_iter()
            .map(|(li, si, stem)| {
                (
                    LabelPair {
                        label: header[li].trim().to_string(),
                        score: header[si].trim().to_string(),
                    },
                    stem,
                )
            })
            .unzip(),
    )
}

/// The header's delimiter, when the first line is a multilabel header.
pub(crate) fn detect(head: &[u8]) -> Option<u8> {
    header_delimiter(head, |names| pairs_of(names).is_some())
}

/// The delimiter of a table whose pairs the mapping names: the mapping's, else the
/// one under which the header holds every named column, else `,` (the read then
/// says which column is missing).
pub(crate) fn delimiter_for(head: &[u8], mapping: &ColumnMapping, pairs: &[LabelPair]) -> u8 {
    mapping.delimiter.unwrap_or_else(|| {
        header_delimiter(head, |names| {
            let has = |c: &str| names.contains(&norm(c));
            pairs.iter().all(|p| has(&p.label) && has(&p.score))
        })
        .unwrap_or(b',')
    })
}

/// Whether a JSON record's keys (flattened: list values as `key_0, key_1, …`) make
/// a multilabel record: the pairs the mapping names, or (with no other mapping) a
/// multilabel header.
pub(crate) fn is_multilabel_record(names: &[String], mapping: &ColumnMapping) -> bool {
    let normed: Vec<String> = names.iter().map(|k| norm(k)).collect();
    match &mapping.multilabel {
        Some(pairs) => pairs
            .iter()
            .all(|p| normed.contains(&norm(&p.label)) && normed.contains(&norm(&p.score))),
        None => mapping.only_grouping() && pairs_of(names).is_some(),
    }
}

/// Reads a multilabel table given as CSV text made from another format's records
/// or columns (JSON records, a Parquet or Arrow file's columns; list values
/// flattened): a dataset of that format, its errors located by row and column (no
/// line numbers: the text is not the file's).
pub(crate) fn from_made_text(
    name: &str,
    opts: &Options,
    format: Format,
    csv: Vec<u8>,
) -> Result<Dataset, ParseErrors> {
    let mut m = MultilabelBuf::new(name, opts, b',');
    m.buf = csv;
    m.format = format;
    m.finish()
}

/// The columns a header resolves to.
struct Columns {
    pairs: Vec<(usize, usize)>,
    labels: Vec<String>,
    source: Source,
    id: Option<usize>,
    groups: Vec<usize>,
}

/// Buffers the table and reads it at the end.
pub(crate) struct MultilabelBuf {
    name: String,
    opts: Options,
    delim: u8,
    buf: Vec<u8>,
    /// `Csv` when the text is the file's (errors give lines), else the format the
    /// text was made from.
    format: Format,
}

impl MultilabelBuf {
    pub fn new(name: &str, opts: &Options, delim: u8) -> Self {
        MultilabelBuf {
            name: name.to_string(),
            opts: opts.clone(),
            delim,
            buf: Vec::new(),
            format: Format::Csv,
        }
    }

    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// The columns of `header` the mapping (or detection) picks; errors in `sink`.
    fn resolve(&self, header: &[String], sink: &mut Sink) -> Option<Columns> {
        let mapping = &self.opts.mapping;
        let at = |name: &str| header.iter().position(|h| norm(h) == norm(name));
        let missing = |name: &str, what: &str, sink: &mut Sink| {
            sink.push(ErrorCode::MappingColumnMissing, Location::default().with_column(name.to_string()), format!(
                "the mapping names {name:?} as {what}, but there is no such column (columns: {}); name the column as the header writes it",
                header.join(", ")
            ));
        };
        let (pairs, labels) = match &mapping.multilabel {
            Some(named) => (
                named.clone(),
                named.iter().map(|p| p.label.clone()).collect(),
            ),
            None => match pairs_of(header) {
                Some(found) => found,
                None => {
                    sink.push(
                        ErrorCode::MissingScoreColumns,
                        Location::default(),
                        format!(
                        "the header ({}) names no multilabel column pairs once its quoting is read",
                        header.join(", ")
                    ),
                    );
                    return None;
                }
            },
        };
        let mut idx = Vec::new();
        for p in &pairs {
            let li = at(&p.label);
            let si = at(&p.score);
            if li.is_none() {
                missing(&p.label, "a label column of a multilabel table", sink);
            }
            if si.is_none() {
                missing(&p.score, "a score column of a multilabel table", sink);
            }
            if let (Some(li), Some(si)) = (li, si) {
                idx.push((li, si));
            }
        }
        let mut used: Vec<usize> = idx.iter().flat_map(|&(l, s)| [l, s]).collect();
        used.sort_unstable();
        if sink.errors.is_empty() && used.windows(2).any(|w| w[0] == w[1]) {
            sink.push(ErrorCode::InvalidMapping, Location::default(),
                "a column is named twice in the multilabel pairs: each label has its own label column and its own score column");
        }
        if sink.errors.is_empty() && idx.len() < 2 {
            sink.push(ErrorCode::InvalidMapping, Location::default(),
                "a multilabel table has at least two labels (with one, it is a binary table: name its label and score columns instead)");
        }
        let sources: Vec<Source> = pairs
            .iter()
            .map(|p| score_stem(&p.score).map_or(Source::Probs, |s| s.1))
            .collect();
        let source = match mapping.source {
            Some(s) => s,
            None if sources.iter().all(|s| *s == sources[0]) => sources[0],
            None => {
                let logit = pairs
                    .iter()
                    .zip(&sources)
                    .find(|(_, s)| **s == Source::Logits);
                let prob = pairs
                    .iter()
                    .zip(&sources)
                    .find(|(_, s)| **s == Source::Probs);
                if let (Some((l, _)), Some((p, _))) = (logit, prob) {
                    sink.push(ErrorCode::InvalidMapping, Location::default(), format!(
                        "{:?} is named as a logit column and {:?} as a probability column: give every label's scores the same way, or say which they all are",
                        l.score, p.score
                    ));
                }
                Source::Probs
            }
        };
        let id = match &mapping.id {
            Pick::Absent => None,
            Pick::Column(c) => {
                let i = at(c);
                if i.is_none() {
                    missing(c, "the id column", sink);
                }
                i
            }
            Pick::Auto => header
                .iter()
                .position(|h| ID_NAMES.contains(&norm(h).as_str())),
        };
        let mut groups = Vec::new();
        // (a grouping named `label` is the labels' own, as a record of this table
        // writes it)
        for g in mapping.groups.iter().filter(|g| norm(g) != LABEL_GROUP) {
            match at(g) {
                Some(i) if !used.contains(&i) => groups.push(i),
                Some(_) => sink.push(ErrorCode::InvalidMapping, Location::default().with_column(g.clone()), format!(
                    "{g:?} is a label or score column of the multilabel table; group by one of the table's other columns (the labels are a grouping already)"
                )),
                None => missing(g, "a grouping column", sink),
            }
        }
        if !sink.errors.is_empty() {
            return None;
        }
        Some(Columns {
            pairs: idx,
            labels,
            source,
            id,
            groups,
        })
    }

    pub fn finish(self) -> Result<Dataset, ParseErrors> {
        let mut sink = Sink::new(&self.name, self.opts.max_errors);
        if self.buf.len() > self.opts.max_json_bytes {
            sink.push(ErrorCode::FileTooLarge, Location::default(), format!(
                "a multilabel table is held in memory, and this one is larger than {} MiB; raise Options::max_json_bytes",
                self.opts.max_json_bytes >> 20
            ));
            return Err(sink.into_errors(None));
        }
        let lines = self.format == Format::Csv;
        let mut header: Option<Vec<String>> = None;
        let mut columns: Option<Columns> = None;
        let mut read = Read::default();
        let walked = for_each_record(&self.buf, self.delim, |line, fields| {
            let Some(h) = &header else {
                let h: Vec<String> = fields.iter().map(|f| f.trim().to_string()).collect();
                columns = self.resolve(&h, &mut sink);
                header = Some(h);
                return;
            };
            let Some(c) = &columns else { return };
            let row = read.samples as u64;
            let at = |col: usize| {
                Location::row(row)
                    .with_line(lines.then_some(line))
                    .with_column(h[col].clone())
            };
            read.row(c, h, fields, at, &mut sink);
        });
        if let Err(record) = walked {
            sink.push(
                ErrorCode::RaggedRow,
                Location::row(record.saturating_sub(1) as u64),
                format!(
                    "this row has more than {} fields",
                    crate::delimited::MAX_FIELDS
                ),
            );
        }
        let (Some(header), Some(columns)) = (header, columns) else {
            return Err(sink.into_errors(None));
        };
        if !sink.errors.is_empty() {
            return Err(sink.into_errors(None));
        }
        if read.samples == 0 {
            sink.push(
                ErrorCode::HeaderOnly,
                Location::default(),
                "the table has a header and no rows: there is nothing to audit",
            );
            return Err(sink.into_errors(None));
        }
        self.dataset(header, columns, read, &mut sink)
            .map_err(|()| sink.into_errors(None))
    }

    fn dataset(
        &self,
        header: Vec<String>,
        c: Columns,
        read: Read,
        sink: &mut Sink,
    ) -> Result<Dataset, ()> {
        let l = c.pairs.len();
        let n = read.samples;
        let groups = if self.opts.mapping.ungrouped {
            None
        } else {
            let mut label_dict = Dict::default();
            for name in &c.labels {
                label_dict.code(name.as_bytes());
            }
            let mut names = vec![LABEL_GROUP.to_string()];
            names.extend(c.groups.iter().map(|&g| header[g].clone()));
            let mut dicts = vec![label_dict];
            dicts.extend(read.group_dicts);
            let mut codes = vec![(0..n * l).map(|i| (i % l) as u32).collect::<Vec<u32>>()];
            codes.extend(read.group_codes.into_iter().map(|per_row| {
                per_row
                    .into_iter()
                    .flat_map(|g| std::iter::repeat_n(g, l))
                    .collect()
            }));
            match crate::groups::assemble(names, dicts, codes) {
                Ok(g) => Some(g),
                Err(msg) => {
                    sink.push(ErrorCode::InvalidMapping, Location::default(), msg);
                    return Err(());
                }
            }
        };
        let repeat = |v: Vec<String>| v.into_iter().flat_map(|x| std::iter::repeat_n(x, l));
        let ids = match read.ids {
            Some(text) => {
                let ints: Option<Vec<i64>> = text.iter().map(|t| t.parse().ok()).collect();
                match ints {
                    Some(v) => Ids::Int(
                        v.into_iter()
                            .flat_map(|x| std::iter::repeat_n(x, l))
                            .collect(),
                    ),
                    None => Ids::Text(repeat(text).collect()),
                }
            }
            None => Ids::Int(
                (1..=n as i64)
                    .flat_map(|x| std::iter::repeat_n(x, l))
                    .collect(),
            ),
        };
        let set = PredictionSet {
            labels: read.labels,
            scores: Scores::Column {
                values: Values::F64(read.scores),
                source: c.source,
            },
            k: 2,
        };
        let stem = crate::assemble::stem(&self.name);
        let pairs: Vec<LabelPair> = c
            .pairs
            .iter()
            .map(|&(li, si)| LabelPair {
                label: header[li].clone(),
                score: header[si].clone(),
            })
            .collect();
        let used: Vec<usize> = c
            .pairs
            .iter()
            .flat_map(|&(li, si)| [li, si])
            .chain(c.id)
            .chain(c.groups.iter().copied())
            .collect();
        let mut mapping = self.opts.mapping.clone();
        mapping.multilabel = Some(pairs.clone());
        let mut detection = Detection {
            mapping,
            columns: header.clone(),
            ignored: (0..header.len())
                .filter(|j| !used.contains(j))
                .map(|j| header[j].clone())
                .collect(),
            ..Default::default()
        };
        detection.guess(
            "format",
            format!(
                "multilabel: {l} labels ({}), each read from its 0/1 column and its score column; every (row, label) pair is one binary prediction",
                crate::mapping::short_list(&c.labels)
            ),
            format!(
                "{}; the data set's numbers pool all {n} × {l} = {} pairs (the micro-averaged reading), and each label's own audit is its group in the grouping \"{LABEL_GROUP}\"; a pair's id is {}",
                if self.opts.mapping.multilabel.is_some() {
                    "the mapping names the pairs".to_string()
                } else {
                    format!("no single label column, and {l} column pairs name the same label (e.g. {} and {})", pairs[0].label, pairs[0].score)
                },
                n * l,
                match c.id {
                    Some(i) => format!("its row's {:?}", header[i]),
                    None => "its row's number (1 = the first data row)".to_string(),
                }
            ),
        );
        detection.multilabel = Some(Multilabel {
            labels: c.labels,
            pairs,
            samples: n,
        });
        Ok(Dataset {
            name: stem.clone(),
            files: vec![self.name.clone()],
            format: self.format,
            models: vec![(stem, set)],
            ids: Some(ids),
            class_names: vec!["0".into(), "1".into()],
            detection,
            groups,
        })
    }
}

/// The values read so far.
#[derive(Default)]
struct Read {
    samples: usize,
    labels: Vec<u32>,
    scores: Vec<f64>,
    ids: Option<Vec<String>>,
    group_dicts: Vec<Dict>,
    group_codes: Vec<Vec<u32>>,
}

impl Read {
    /// Reads one data row (its errors located by `at(column)`).
    fn row(
        &mut self,
        c: &Columns,
        header: &[String],
        fields: &[std::borrow::Cow<'_, str>],
        at: impl Fn(usize) -> Location,
        sink: &mut Sink,
    ) {
        if fields.len() != header.len() {
            let mut loc = at(0);
            loc.column = None;
            sink.push(
                ErrorCode::RaggedRow,
                loc,
                format!(
                    "this row has {} fields but the header has {}; check for an unquoted delimiter inside a value or a missing value",
                    fields.len(),
                    header.len()
                ),
            );
            self.samples += 1;
            return;
        }
        for &(li, si) in &c.pairs {
            let label = fields[li].trim();
            match label.to_ascii_lowercase().as_str() {
                "1" | "1.0" | "true" => self.labels.push(1),
                "0" | "0.0" | "false" => self.labels.push(0),
                _ => sink.push(ErrorCode::BadLabel, at(li), format!(
                    "{label:?} is not 0 or 1: each label column of a multilabel table says whether the row has that label (0/1 or true/false)"
                )),
            }
            let text = fields[si].trim();
            match crate::num::parse_f64(text.as_bytes()) {
                Some(v) if v.is_nan() || text.is_empty() => sink.push(ErrorCode::NanOrInf, at(si), format!(
                    "the score is missing ({text:?}): every row needs a score for every label"
                )),
                Some(v) if v.is_infinite() => sink.push(ErrorCode::NanOrInf, at(si), format!(
                    "the score {text:?} is infinite"
                )),
                Some(v) if c.source == Source::Probs && !(0.0..=1.0).contains(&v) => sink.push(ErrorCode::ProbOutOfRange, at(si), format!(
                    "the probability {text} is outside [0, 1]; if the scores are logits, name the columns logit_<label> or say they are logits"
                )),
                Some(v) => self.scores.push(v),
                None => sink.push(ErrorCode::BadNumber, at(si), format!(
                    "{text:?} is not a number"
                )),
            }
        }
        if let Some(i) = c.id {
            self.ids
                .get_or_insert_with(Vec::new)
                .push(fields[i].trim().to_string());
        }
        if self.group_dicts.len() < c.groups.len() {
            self.group_dicts = vec![Dict::default(); c.groups.len()];
            self.group_codes = vec![Vec::new(); c.groups.len()];
        }
        for (j, &g) in c.groups.iter().enumerate() {
            let code = self.group_dicts[j].code(fields[g].as_bytes());
            self.group_codes[j].push(code);
        }
        self.samples += 1;
    }
}

#[cfg(test)]
#[path = "multilabel_tests.rs"]
mod tests;
