//! Verbalised confidence with abstention: a table with a stated-confidence column
//! and a correctness column, one row per question, as written when a language model
//! is asked for an answer and how sure it is ("85%"), then graded.
//!
//! Detected from the header, without flags: a confidence column named
//! `confidence`, `verbalized_confidence`, `verbalised_confidence`,
//! `verbal_confidence` or `stated_confidence`, and a correctness column named
//! `correct` or `is_correct`, with no label or prediction column (a `pred` +
//! `confidence` table stays a top-label table). Other columns are ignored.
//!
//! - Correctness: `0`/`1` (also `0.0`/`1.0`), `true`/`false` (any case).
//! - Confidence: empty, `NaN` or `nan` means the model abstained (its correctness
//!   may be empty); else a number or a number followed by `%`. The column's scale
//!   is decided once, from every answered value: with no `%` and every value in
//!   [0, 1] it is a fraction; with `%` on every value, or with no `%` and every
//!   value in [0, 100] and at least one above 1, it is percent (divided by 100).
//!   A column with `%` on some values and plain values of at most 1 on others is
//!   ambiguous (a located error: the first plain value); a value below 0 or above
//!   100 (above 1 in a fraction column with `%` elsewhere) is a located error.
//!
//! The answered rows become a top-label prediction set (predicted class 0, label 0
//! when correct and 1 when not, so the top-label outcome `1[y = ŷ]` is the
//! correctness; k = 2) and [`Selective`] in the detection holds the abstentions,
//! for the coverage and the risk–coverage curve (`calibscope_core::selective`).

use calibscope_core::data::{PredictionSet, Values};

use crate::delimited::{for_each_record, header_delimiter, MAX_FIELDS};
use crate::error::{ErrorCode, Location, Sink};
use crate::mapping::{norm, ColumnMapping, Detection, VerbalColumns, LABEL_NAMES, PRED_NAMES};
use crate::{Dataset, Format, Options, ParseErrors};

const CONFIDENCE: [&str; 5] = [
    "confidence",
    "verbalized_confidence",
    "verbalised_confidence",
    "verbal_confidence",
    "stated_confidence",
];
const CORRECT: [&str; 2] = ["correct", "is_correct"];

/// The abstentions of a verbalised-confidence table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selective {
    /// Questions in the table (answered and abstained).
    pub total: usize,
    /// Rows (0-based, in the file) where the model abstained.
    pub abstained: Vec<usize>,
    /// Whether the confidences were read as percent (else as fractions).
    pub percent: bool,
}

/// The header's delimiter, when the first line is a verbalised-confidence header.
pub(crate) fn detect(head: &[u8]) -> Option<u8> {
    header_delimiter(head, is_verbal_header)
}

/// Whether normalised column names are those of a verbalised-confidence table: a
/// confidence and a correctness column, and no label or prediction column (which
/// make it another kind of table).
fn is_verbal_header(names: &[String]) -> bool {
    let find = |set: &[&str]| names.iter().position(|n| set.contains(&n.as_str()));
    find(&CONFIDENCE).is_some()
        && find(&CORRECT).is_some()
        && find(LABEL_NAMES).is_none()
        && find(PRED_NAMES).is_none()
}

/// Whether the keys of a JSON record (its first) make it a verbalised-confidence
/// record: the columns the mapping names, or (with no other mapping) the names a
/// verbalised table's header has.
pub(crate) fn is_verbal_record(keys: &[String], mapping: &ColumnMapping) -> bool {
    let names: Vec<String> = keys.iter().map(|k| norm(k)).collect();
    match &mapping.verbal {
        Some(c) => names.contains(&norm(&c.confidence)) && names.contains(&norm(&c.correct)),
        None => mapping.only_grouping() && is_verbal_header(&names),
    }
}

/// Reads a verbalised-confidence table given as CSV text made from JSON records
/// (one row per record, the keys as the header): a JSON dataset, its errors
/// located by record and key (no line numbers: the text is not the file's).
pub(crate) fn from_records_csv(
    name: &str,
    opts: &Options,
    csv: Vec<u8>,
) -> Result<Dataset, ParseErrors> {
    let mut v = VerbalBuf::new(name, opts, b',');
    v.buf = csv;
    let strip = |mut e: ParseErrors| {
        for err in &mut e.errors {
            err.location.line = None;
        }
        e
    };
    let mut ds = v.finish().map_err(strip)?;
    ds.format = Format::Json;
    Ok(ds)
}

/// The delimiter of a table whose verbalised-confidence columns the mapping names:
/// the mapping's, else the one under which the header holds both names, else `,`
/// (the read then says which column is missing).
pub(crate) fn delimiter_for(head: &[u8], mapping: &ColumnMapping, columns: &VerbalColumns) -> u8 {
    mapping.delimiter.unwrap_or_else(|| {
        header_delimiter(head, |names| {
            let has = |c: &str| names.contains(&norm(c));
            has(&columns.confidence) && has(&columns.correct)
        })
        .unwrap_or(b',')
    })
}

/// Buffers the table (one row per question: small) and reads it at the end.
pub(crate) struct VerbalBuf {
    name: String,
    opts: Options,
    delim: u8,
    buf: Vec<u8>,
}

/// One answered or abstained cell of the confidence column.
enum Conf {
    Abstain,
    Plain(f64),
    Percent(f64),
}

impl VerbalBuf {
    pub fn new(name: &str, opts: &Options, delim: u8) -> Self {
        VerbalBuf {
            name: name.to_string(),
            opts: opts.clone(),
            delim,
            buf: Vec::new(),
        }
    }

    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    pub fn finish(self) -> Result<Dataset, ParseErrors> {
        let mut sink = Sink::new(&self.name, self.opts.max_errors);
        if self.buf.len() > self.opts.max_json_bytes {
            sink.push(ErrorCode::FileTooLarge, Location::default(), format!(
                "a verbalised-confidence table is held in memory, and this one is larger than {} MiB; raise Options::max_json_bytes",
                self.opts.max_json_bytes >> 20
            ));
            return Err(sink.into_errors(None));
        }
        let records = match split(&self.buf, self.delim) {
            Ok(r) => r,
            Err(row) => {
                sink.push(
                    ErrorCode::RaggedRow,
                    Location::row(row as u64),
                    format!("row {row} has more than {MAX_FIELDS} fields"),
                );
                return Err(sink.into_errors(None));
            }
        };
        let header = records.first().cloned().unwrap_or_default();
        let names: Vec<String> = header.iter().map(|h| norm(h)).collect();
        let find = |set: &[&str]| names.iter().position(|n| set.contains(&n.as_str()));
        let (ci, zi) = match &self.opts.mapping.verbal {
            // the columns the mapping names, whatever they are called
            Some(columns) => {
                let named = |name: &str, what: &str, sink: &mut Sink| {
                    let at = names.iter().position(|n| *n == norm(name));
                    if at.is_none() {
                        sink.push(ErrorCode::MappingColumnMissing, Location::default().with_column(name.to_string()), format!(
                            "the mapping names {name:?} as the {what} column of verbalised confidence, but there is no such column (columns: {}); name the column as the header writes it",
                            header.join(", ")
                        ));
                    }
                    at
                };
                let ci = named(&columns.confidence, "stated-confidence", &mut sink);
                let zi = named(&columns.correct, "correctness", &mut sink);
                match (ci, zi) {
                    (Some(ci), Some(zi)) if ci != zi => (ci, zi),
                    (Some(_), Some(_)) => {
                        sink.push(ErrorCode::InvalidMapping, Location::default(), format!(
                            "the mapping names {:?} as both the confidence and the correctness column: they are two different columns",
                            columns.confidence
                        ));
                        return Err(sink.into_errors(None));
                    }
                    _ => return Err(sink.into_errors(None)),
                }
            }
            None => match (find(&CONFIDENCE), find(&CORRECT)) {
                (Some(ci), Some(zi)) => (ci, zi),
                _ => {
                    sink.push(ErrorCode::MissingScoreColumns, Location::default(), format!(
                        "the header ({}) names no confidence and correctness columns once its quoting is read",
                        header.join(", ")
                    ));
                    return Err(sink.into_errors(None));
                }
            },
        };
        let (cname, zname) = (header[ci].clone(), header[zi].clone());
        let at = |row: usize, col: &str| Location::row(row as u64).with_column(col.to_string());
        let mut cells = Vec::new();
        for (row, rec) in records[1..].iter().enumerate() {
            if rec.len() != header.len() {
                sink.push(
                    ErrorCode::RaggedRow,
                    Location::row(row as u64),
                    format!(
                        "row {row} has {} fields; the header has {}",
                        rec.len(),
                        header.len()
                    ),
                );
                continue;
            }
            let c = rec[ci].trim();
            let conf = if c.is_empty() || c.eq_ignore_ascii_case("nan") {
                Conf::Abstain
            } else {
                let (text, pct) = match c.strip_suffix('%') {
                    Some(t) => (t.trim(), true),
                    None => (c, false),
                };
                match text.parse::<f64>() {
                    Ok(v) if v.is_finite() && (0.0..=100.0).contains(&v) => {
                        if pct {
                            Conf::Percent(v)
                        } else {
                            Conf::Plain(v)
                        }
                    }
                    _ => {
                        sink.push(ErrorCode::BadNumber, at(row, &cname), format!(
                            "row {row}: confidence {c:?} is not a number in [0, 1], a percent in [0, 100] (\"85\" or \"85%\"), or empty / NaN for an abstention"
                        ));
                        continue;
                    }
                }
            };
            let z = rec[zi].trim();
            let correct = match z.to_ascii_lowercase().as_str() {
                "1" | "1.0" | "true" => Some(true),
                "0" | "0.0" | "false" => Some(false),
                "" if matches!(conf, Conf::Abstain) => None,
                _ => {
                    sink.push(
                        ErrorCode::BadLabel,
                        at(row, &zname),
                        format!("row {row}: correctness {z:?} is not 0, 1, true or false"),
                    );
                    continue;
                }
            };
            cells.push((row, conf, correct));
        }
        let percent_mark = cells.iter().find(|c| matches!(c.1, Conf::Percent(_)));
        let above_one = cells
            .iter()
            .any(|c| matches!(c.1, Conf::Plain(v) if v > 1.0));
        let percent = percent_mark.is_some() || above_one;
        if let Some((marked, ..)) = percent_mark {
            if let Some((row, Conf::Plain(v), _)) = cells
                .iter()
                .find(|c| matches!(c.1, Conf::Plain(v) if v <= 1.0))
            {
                sink.push(ErrorCode::BadNumber, at(*row, &cname), format!(
                    "row {row}: confidence {v} has no % while row {marked} has one, and {v} reads differently as a fraction and as a percent: write every confidence the same way (all fractions in [0, 1], or all percents)"
                ));
            }
        }
        if !sink.errors.is_empty() {
            return Err(sink.into_errors(None));
        }
        let total = cells.len();
        let mut sel = Selective {
            total,
            percent,
            ..Default::default()
        };
        // the grouping columns (the mapping's), coded per answered row
        let group_at: Vec<usize> = self
            .opts
            .mapping
            .groups
            .iter()
            .filter_map(|g| {
                let at = names.iter().position(|n| *n == norm(g));
                if at.is_none() {
                    sink.push(ErrorCode::MappingColumnMissing, Location::default().with_column(g.clone()), format!(
                        "the grouping names {g:?}, but there is no such column (columns: {}); group by one of the table's other columns",
                        header.join(", ")
                    ));
                }
                at
            })
            .collect();
        if !sink.errors.is_empty() {
            return Err(sink.into_errors(None));
        }
        let mut dicts = vec![crate::groups::Dict::default(); group_at.len()];
        let mut group_codes = vec![Vec::new(); group_at.len()];
        let (mut labels, mut conf) = (Vec::new(), Vec::new());
        for (row, c, z) in &cells {
            let v = match c {
                Conf::Abstain => {
                    sel.abstained.push(*row);
                    continue;
                }
                Conf::Plain(v) | Conf::Percent(v) => *v,
            };
            labels.push(if z.unwrap_or(false) { 0 } else { 1 });
            conf.push(if percent { v / 100.0 } else { v });
            for (j, &at) in group_at.iter().enumerate() {
                group_codes[j].push(dicts[j].code(records[row + 1][at].as_bytes()));
            }
        }
        if labels.is_empty() {
            sink.push(ErrorCode::HeaderOnly, Location::default(), format!(
                "the model abstained on all {total} questions (every {cname} is empty or NaN): there is nothing to audit"
            ));
            return Err(sink.into_errors(None));
        }
        let n = labels.len();
        let groups = if group_at.is_empty() {
            None
        } else {
            let columns = group_at.iter().map(|&at| header[at].clone()).collect();
            match crate::groups::assemble(columns, dicts, group_codes) {
                Ok(g) => Some(g),
                Err(msg) => {
                    sink.push(ErrorCode::InvalidMapping, Location::default(), msg);
                    return Err(sink.into_errors(None));
                }
            }
        };
        let set = PredictionSet::top_label(labels, vec![0; n], Values::F64(conf));
        let stem = self.name.rsplit('/').next().unwrap_or(&self.name);
        let stem = stem.split('.').next().unwrap_or(stem).to_string();
        let mut detection = Detection {
            columns: header.clone(),
            ignored: header
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != ci && *j != zi && !group_at.contains(j))
                .map(|(_, h)| h.clone())
                .collect(),
            ..Default::default()
        };
        detection.guess(
            "format",
            format!("verbalised confidence: {cname} as the stated confidence of each answer, {zname} as its correctness; an empty or NaN confidence is an abstention"),
            format!(
                "the confidences were read as {}; the model answered {} of {} questions ({} abstentions), and the audit is of the answered ones",
                if percent { "percent (divided by 100): a value above 1 or a % sign was found" } else { "fractions in [0, 1]: no value above 1 and no % sign" },
                n, total, total - n
            ),
        );
        detection.selective = Some(sel);
        Ok(Dataset {
            name: stem.clone(),
            files: vec![self.name.clone()],
            format: Format::Csv,
            models: vec![(stem, set)],
            ids: None,
            class_names: vec!["0".into(), "1".into()],
            detection,
            groups,
        })
    }
}

/// The records of a small delimited text, fields as text; blank lines skipped.
/// `Err(row)`: that record has more than [`MAX_FIELDS`] fields.
fn split(text: &[u8], delim: u8) -> Result<Vec<Vec<String>>, usize> {
    let mut records = Vec::new();
    for_each_record(text, delim, |_, fields| {
        records.push(fields.iter().map(|f| f.to_string()).collect())
    })
    .map_err(|r| r.saturating_sub(1))?;
    Ok(records)
}
