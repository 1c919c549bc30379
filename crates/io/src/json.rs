//! JSON input: an array of records (`[{"label": 0, "p_0": 0.9, ...}, ...]`), JSON
//! Lines (one record per line), an object of columns (`{"label": [...], "probs":
//! [[...], ...]}`), or an object wrapping an array of records (`{"data": [...]}`).
//! Record values may be vectors (`"probs": [0.1, 0.9]`) or objects keyed by class
//! (`"probs": {"cat": 0.1, "dog": 0.9}`); they are read like `p_<class>` columns.
//! Python's `NaN` / `Infinity` are accepted (and reported as input errors).
//!
//! The document is buffered whole (up to [`crate::Options::max_json_bytes`]); records
//! are converted one at a time, so the tree of one record is all that is built.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::error::{Location, Sink};
use crate::mapping::{plan, vector_source, Col};
use crate::table::TableBuilder;
use crate::{Dataset, ErrorCode, Format, Options, ParseErrors};
use calibscope_core::Source;

pub(crate) struct JsonBuf {
    buf: Vec<u8>,
    sink: Sink,
    opts: Options,
    failed: bool,
}

mod helm;
mod lm_eval;
mod scan;
use scan::{line_col, JResult, Scan, J};

/// Name of the virtual column for element `j` / class `key` of a vector value.
pub(crate) fn vec_name(key: &str, sub: &str) -> String {
    match vector_source(key) {
        Some(Source::Logits) => format!("logit_{sub}"),
        Some(_) => format!("p_{sub}"),
        None => format!("{key}_{sub}"),
    }
}

/// One column of the virtual header: where its values come from.
#[derive(Clone, Debug)]
enum Src {
    Scalar(String),
    Elem(String, usize),
    Member(String, String),
}

struct Records {
    header: Vec<String>,
    srcs: Vec<Src>,
    by_key: HashMap<String, Vec<usize>>,
    table: Option<TableBuilder>,
    buf: Vec<u8>,
    ends: Vec<usize>,
    row: u64,
    failed: bool,
    /// Set when the first record is an lm-evaluation-harness sample: every record
    /// is then read as one (see [`lm_eval`]).
    lm_eval: Option<lm_eval::Tally>,
    /// The log's samples as read, made into rows once every question is read (the
    /// matrix's width is the most choices of a question): a question, or why its row
    /// is bad.
    samples: Vec<Result<lm_eval::Question, (ErrorCode, Location, String)>>,
    /// Set when the first record is a HELM per-instance record (see [`helm`]).
    helm: Option<helm::Tally>,
    /// Set when the first record has the keys of a verbalised-confidence or a
    /// multilabel record: the records as CSV text, read at the end by
    /// [`crate::verbal`] or [`crate::multilabel`].
    text_table: Option<TextTable>,
}

/// Records kept as CSV text for a reader of whole tables.
struct TextTable {
    multilabel: bool,
    /// Where each column's values come from.
    srcs: Vec<Src>,
    text: Vec<u8>,
}

impl TextTable {
    /// A verbalised-confidence table (the first record's keys as they are) or a
    /// multilabel one (list and object values flattened, as for every table), when
    /// the first record's keys make one.
    fn of(rec: &[(Cow<'_, str>, J<'_>)], opts: &Options) -> Option<TextTable> {
        let keys: Vec<String> = rec.iter().map(|(k, _)| k.to_string()).collect();
        let (header, srcs, multilabel) = if crate::verbal::is_verbal_record(&keys, &opts.mapping) {
            let srcs = keys.iter().map(|k| Src::Scalar(k.clone())).collect();
            (keys, srcs, false)
        } else {
            let (header, srcs) = header_of(rec);
            if !crate::multilabel::is_multilabel_record(&header, &opts.mapping) {
                return None;
            }
            (header, srcs, true)
        };
        let header: Vec<Vec<u8>> = header.iter().map(|k| csv_field(k.as_bytes())).collect();
        Some(TextTable {
            multilabel,
            srcs,
            text: header.join(&b","[..]),
        })
    }

    /// Adds a record as a row: a missing key is a null (an empty field); an array
    /// or object where a value belongs is written as such, for the reader to refuse.
    fn add(&mut self, rec: &[(Cow<'_, str>, J<'_>)]) {
        self.text.push(b'\n');
        let find = |key: &str| rec.iter().find(|(k, _)| k == key).map(|(_, v)| v);
        for (i, src) in self.srcs.iter().enumerate() {
            if i > 0 {
                self.text.push(b',');
            }
            let value = match src {
                Src::Scalar(k) => find(k),
                Src::Elem(k, j) => match find(k) {
                    Some(J::Arr(a)) => a.get(*j),
                    _ => None,
                },
                Src::Member(k, sub) => match find(k) {
                    Some(J::Obj(o)) => o.iter().find(|(s, _)| s == sub).map(|(_, v)| v),
                    _ => None,
                },
            };
            let mut text = Vec::new();
            if let Some(v) = value {
                if !scalar_text(v, &mut text) {
                    text = b"(an array or object)".to_vec();
                }
            }
            self.text.extend(csv_field(&text));
        }
    }
}

fn header_of(rec: &[(Cow<'_, str>, J<'_>)]) -> (Vec<String>, Vec<Src>) {
    let mut header = Vec::new();
    let mut srcs = Vec::new();
    for (k, v) in rec {
        match v {
            J::Arr(a) => {
                for j in 0..a.len() {
                    header.push(vec_name(k, &j.to_string()));
                    srcs.push(Src::Elem(k.to_string(), j));
                }
            }
            J::Obj(o) => {
                for (sub, _) in o {
                    header.push(vec_name(k, sub));
                    srcs.push(Src::Member(k.to_string(), sub.to_string()));
                }
            }
            _ => {
                header.push(k.to_string());
                srcs.push(Src::Scalar(k.to_string()));
            }
        }
    }
    (header, srcs)
}

/// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line
/// break.
fn csv_field(s: &[u8]) -> Vec<u8> {
    if s.iter().any(|b| matches!(b, b',' | b'"' | b'\n' | b'\r')) {
        let mut out = vec![b'"'];
        for &b in s {
            if b == b'"' {
                out.push(b'"');
            }
            out.push(b);
        }
        out.push(b'"');
        out
    } else {
        s.to_vec()
    }
}

fn scalar_text(v: &J<'_>, out: &mut Vec<u8>) -> bool {
    match v {
        J::Null => true,
        J::Bool(b) => {
            out.extend_from_slice(if *b { b"true" } else { b"false" });
            true
        }
        J::Num(n) => {
            out.extend_from_slice(n);
            true
        }
        J::Str(s) => {
            out.extend_from_slice(s.as_bytes());
            true
        }
        _ => false,
    }
}

impl Records {
    fn new() -> Self {
        Records {
            header: Vec::new(),
            srcs: Vec::new(),
            by_key: HashMap::new(),
            table: None,
            buf: Vec::new(),
            ends: Vec::new(),
            row: 0,
            failed: false,
            lm_eval: None,
            samples: Vec::new(),
            helm: None,
            text_table: None,
        }
    }

    fn record(&mut self, rec: &[(Cow<'_, str>, J<'_>)], opts: &Options, sink: &mut Sink) {
        if self.failed {
            return;
        }
        if self.table.is_none()
            && self.text_table.is_none()
            && self.lm_eval.is_none()
            && self.helm.is_none()
        {
            self.text_table = TextTable::of(rec, opts);
        }
        if let Some(t) = self.text_table.as_mut() {
            t.add(rec);
            return;
        }
        if self.table.is_none() && self.helm.is_none() && helm::is_instance(rec) {
            self.helm = Some(helm::Tally::default());
        }
        if let Some(tally) = self.helm.as_mut() {
            let at = tally.records;
            tally.records += 1;
            if helm::is_perturbed(rec) {
                tally.perturbed += 1;
                return;
            }
            let (code, column, msg) = match helm::record(rec) {
                Ok(r) => return self.fields(&r, None, opts, sink),
                Err(e) => e,
            };
            let loc = Location::row(at).with_column(column.to_string());
            let msg = format!("HELM instance record {at}: {msg}");
            if self.table.is_none() {
                sink.push(code, loc, msg);
                self.failed = true;
                return;
            }
            let placeholder = [
                (Cow::Borrowed("id"), J::Str(Cow::Borrowed("0"))),
                (Cow::Borrowed("yhat"), J::Str(Cow::Borrowed("0"))),
                (Cow::Borrowed("confidence"), J::Str(Cow::Borrowed("0.5"))),
                (Cow::Borrowed("label"), J::Str(Cow::Borrowed("0"))),
            ];
            return self.fields(&placeholder, Some((code, loc, msg)), opts, sink);
        }
        if self.table.is_none() && self.lm_eval.is_none() && lm_eval::is_sample(rec) {
            self.lm_eval = Some(lm_eval::Tally::default());
        }
        let Some(tally) = self.lm_eval.as_mut() else {
            return self.fields(rec, None, opts, sink);
        };
        let row = self.samples.len();
        let first = row == 0;
        let (code, column, msg) = match lm_eval::question(rec) {
            Ok(q) => {
                if first {
                    tally.group_key = q.group.as_ref().map(|g| g.0);
                }
                tally.add(&q);
                self.samples.push(Ok(q));
                return;
            }
            Err(e) => e,
        };
        let mut loc = Location::row(row as u64);
        if let Some(c) = column {
            loc = loc.with_column(c.to_string());
        }
        let msg = format!("lm-evaluation-harness sample {row}: {msg}");
        if first {
            // without a first question the table's columns are unknown
            sink.push(code, loc, msg);
            self.failed = true;
            return;
        }
        self.samples.push(Err((code, loc, msg)));
    }

    /// Makes the log's samples into rows, `width` logits each (the most choices of a
    /// question; fewer are padded, see [`crate::Ragged`]); a bad sample's row is a
    /// placeholder marked bad with its error.
    fn lm_eval_rows(&mut self, opts: &Options, sink: &mut Sink) {
        let Some(tally) = &self.lm_eval else { return };
        let (width, key) = (tally.width(), tally.group_key);
        for sample in std::mem::take(&mut self.samples) {
            match sample {
                Ok(q) => self.fields(&q.as_record(key, width), None, opts, sink),
                Err(problem) => {
                    let placeholder = lm_eval::Question::placeholder(width);
                    self.fields(
                        &placeholder.as_record(key, width),
                        Some(problem),
                        opts,
                        sink,
                    )
                }
            }
        }
    }

    /// Adds one record (keys and values as read, or as made from an lm-evaluation-harness
    /// sample); `problem` marks the row bad with that error instead of reading it.
    fn fields(
        &mut self,
        rec: &[(Cow<'_, str>, J<'_>)],
        problem: Option<(ErrorCode, Location, String)>,
        opts: &Options,
        sink: &mut Sink,
    ) {
        if self.table.is_none() {
            let (header, srcs) = header_of(rec);
            let cols: Vec<Col> = header
                .iter()
                .map(|h| Col {
                    name: h.clone(),
                    width: 1,
                })
                .collect();
            // an lm-evaluation-harness log with subjects (or tasks) is grouped by
            // them unless the mapping names its own grouping
            let lm_group = self.lm_eval.as_ref().and_then(|t| t.group_key);
            let own_grouping = lm_group.filter(|_| opts.mapping.groups.is_empty());
            let mut mapping = std::borrow::Cow::Borrowed(&opts.mapping);
            if let (Some(key), false) = (own_grouping, opts.mapping.ungrouped) {
                mapping.to_mut().groups = vec![key.to_string()];
            }
            match plan(&cols, &mapping) {
                Ok(mut p) => {
                    match (own_grouping, opts.mapping.ungrouped) {
                        (Some(key), false) => p.detection.guess(
                            "groups",
                            key,
                            format!("the log's samples carry a {key}; the audit is also given per {key} (to group by other columns, name them in the mapping; to turn the grouping off, choose none)"),
                        ),
                        (Some(key), true) => p.detection.guess(
                            "groups",
                            "none",
                            format!("the log's samples carry a {key}; they are not grouped, as the mapping asks"),
                        ),
                        (None, _) => {}
                    }
                    p.unaligned_models = opts.unaligned_models;
                    self.table = Some(TableBuilder::new(cols, p))
                }
                Err(errs) => {
                    sink.push_plan_errors(&cols, errs, Location::default());
                    self.failed = true;
                    return;
                }
            }
            for (i, s) in srcs.iter().enumerate() {
                let key = match s {
                    Src::Scalar(k) | Src::Elem(k, _) | Src::Member(k, _) => k.clone(),
                };
                self.by_key.entry(key).or_default().push(i);
            }
            self.header = header;
            self.srcs = srcs;
        }
        let row = self.row;
        self.row += 1;
        self.buf.clear();
        self.ends.clear();
        let lookup: HashMap<&str, &J<'_>> = rec.iter().map(|(k, v)| (k.as_ref(), v)).collect();
        let mut problem: Option<(ErrorCode, Location, String)> = problem;
        for s in &self.srcs {
            let ok = match s {
                Src::Scalar(k) => match lookup.get(k.as_str()) {
                    Some(v) => scalar_text(v, &mut self.buf),
                    None => false,
                },
                Src::Elem(k, j) => match lookup.get(k.as_str()) {
                    Some(J::Arr(a)) => a.get(*j).is_some_and(|v| scalar_text(v, &mut self.buf)),
                    _ => false,
                },
                Src::Member(k, sub) => match lookup.get(k.as_str()) {
                    Some(J::Obj(o)) => o
                        .iter()
                        .find(|(n, _)| n == sub)
                        .is_some_and(|(_, v)| scalar_text(v, &mut self.buf)),
                    _ => false,
                },
            };
            if !ok && problem.is_none() {
                let msg = match s {
                    Src::Scalar(k) => format!("record {row} has no scalar value for key {k:?}"),
                    Src::Elem(k, j) => {
                        format!("record {row}: {k:?} has no element {j} (vectors must all have the same length)")
                    }
                    Src::Member(k, sub) => format!("record {row}: {k:?} has no entry {sub:?}"),
                };
                problem = Some((ErrorCode::RaggedRow, Location::row(row), msg));
            }
            self.ends.push(self.buf.len());
        }
        // vectors longer than the first record's
        for (k, v) in rec {
            let expected = self.by_key.get(k.as_ref()).map_or(0, |v| v.len());
            let len = match v {
                J::Arr(a) => a.len(),
                J::Obj(o) => o.len(),
                _ => continue,
            };
            if len != expected && problem.is_none() && expected > 0 {
                let msg = format!(
                    "record {row}: {k:?} has {len} entries but the first record's has {expected}"
                );
                problem = Some((ErrorCode::RaggedRow, Location::row(row), msg));
            }
        }
        let t = self.table.as_mut().unwrap();
        if let Some((code, loc, msg)) = problem {
            sink.push(code, loc, msg);
            t.record(&self.buf, &self.ends, 0, None, sink);
            t.mark_bad(row);
        } else {
            t.record(&self.buf, &self.ends, 0, None, sink);
        }
    }
}

impl JsonBuf {
    pub fn new(file: &str, _bom: usize, opts: &Options) -> Self {
        JsonBuf {
            buf: Vec::new(),
            sink: Sink::new(file, opts.max_errors),
            opts: opts.clone(),
            failed: false,
        }
    }

    pub fn failed(&self) -> bool {
        self.failed
    }

    pub fn push(&mut self, data: &[u8]) {
        if self.failed {
            return;
        }
        if self.buf.len() + data.len() > self.opts.max_json_bytes {
            self.sink.push(
                ErrorCode::JsonShape,
                Location::default(),
                format!(
                    "the JSON document is larger than {} MiB (it is held in memory); use CSV or .npz for large files, or raise Options::max_json_bytes",
                    self.opts.max_json_bytes >> 20
                ),
            );
            self.failed = true;
            self.buf = Vec::new();
            return;
        }
        self.buf.extend_from_slice(data);
    }

    pub fn finish(self) -> Result<Dataset, ParseErrors> {
        let JsonBuf {
            buf,
            mut sink,
            opts,
            failed,
        } = self;
        if failed {
            return Err(sink.into_errors(None));
        }
        let mut recs = Records::new();
        let res = run(&buf, &opts, &mut recs, &mut sink);
        if let Err((off, msg)) = res {
            let (line, col) = line_col(&buf, off);
            let loc = Location {
                line: Some(line),
                offset: Some(off as u64),
                ..Default::default()
            };
            sink.push(
                ErrorCode::JsonSyntax,
                loc,
                format!("malformed JSON at line {line} column {col}: {msg}"),
            );
            return Err(sink.into_errors(None));
        }
        if recs.failed {
            return Err(sink.into_errors(None));
        }
        recs.lm_eval_rows(&opts, &mut sink);
        drop(buf);
        if let Some(t) = recs.text_table {
            return if t.multilabel {
                crate::multilabel::from_made_text(&sink.file, &opts, Format::Json, t.text)
            } else {
                crate::verbal::from_records_csv(&sink.file, &opts, t.text)
            };
        }
        match recs.table {
            Some(t) => {
                let file = sink.file.clone();
                let mut ds = t.finish(&file, Format::Json, sink, None)?;
                if let Some(tally) = &recs.lm_eval {
                    let (chose, why) = tally.note();
                    ds.detection.guess("format", chose, why);
                    ds.detection.ragged = tally.ragged();
                }
                if let Some(tally) = &recs.helm {
                    let (chose, why) = tally.note();
                    ds.detection.guess("format", chose, why);
                }
                Ok(ds)
            }
            None => {
                // no table because the records were refused (their errors say why),
                // or because there were none
                if sink.is_empty() {
                    sink.push(
                        ErrorCode::HeaderOnly,
                        Location::default(),
                        "the JSON holds no records",
                    );
                }
                Err(sink.into_errors(None))
            }
        }
    }
}

fn shape_err(sink: &mut Sink, msg: impl Into<String>) {
    sink.push(ErrorCode::JsonShape, Location::default(), msg);
}

fn run(buf: &[u8], opts: &Options, recs: &mut Records, sink: &mut Sink) -> JResult<()> {
    let mut sc = Scan {
        s: buf,
        i: 0,
        depth: 0,
    };
    match sc.peek() {
        Some(b'[') => {
            sc.i += 1;
            records_array(&mut sc, opts, recs, sink)?;
        }
        Some(b'{') => {
            let first = sc.value()?;
            let J::Obj(items) = first else { unreachable!() };
            // an object of arrays is an object of columns, unless another object
            // follows: then it is the first of JSON Lines records whose values are
            // all lists (a multilabel table's `{"y": [...], "probs": [...]}`)
            let all_arrays = !items.is_empty()
                && items.iter().all(|(_, v)| matches!(v, J::Arr(_)))
                && sc.peek() != Some(b'{');
            if all_arrays {
                // a wrapper around records?
                if let Some((_, J::Arr(a))) = items
                    .iter()
                    .find(|(_, v)| matches!(v, J::Arr(a) if matches!(a.first(), Some(J::Obj(_)))))
                {
                    for r in a {
                        match r {
                            J::Obj(o) => recs.record(o, opts, sink),
                            _ => {
                                shape_err(sink, "an array of records holds a non-object");
                                recs.failed = true;
                                return Ok(());
                            }
                        }
                    }
                } else {
                    columns(&items, opts, recs, sink);
                }
                if sc.peek().is_some() {
                    return sc.err("extra data after the JSON document");
                }
            } else {
                // JSON Lines: a sequence of records
                recs.record(&items, opts, sink);
                drop(items);
                while let Some(c) = sc.peek() {
                    if c != b'{' {
                        return sc.err("expected the next record '{' (JSON Lines)");
                    }
                    let v = sc.value()?;
                    if let J::Obj(o) = v {
                        recs.record(&o, opts, sink);
                    }
                }
            }
        }
        _ => return sc.err("expected '[' or '{'"),
    }
    Ok(())
}

fn records_array(
    sc: &mut Scan<'_>,
    opts: &Options,
    recs: &mut Records,
    sink: &mut Sink,
) -> JResult<()> {
    if sc.peek() == Some(b']') {
        sc.i += 1;
    } else {
        loop {
            if sc.peek() != Some(b'{') {
                return sc.err("expected a record '{' (the array must hold objects)");
            }
            let v = sc.value()?;
            if let J::Obj(o) = v {
                recs.record(&o, opts, sink);
            }
            match sc.peek() {
                Some(b',') => sc.i += 1,
                Some(b']') => {
                    sc.i += 1;
                    break;
                }
                _ => return sc.err("expected ',' or ']'"),
            }
        }
    }
    if sc.peek().is_some() {
        return sc.err("extra data after the JSON document");
    }
    Ok(())
}

/// An object of columns: every value is an array (of scalars, or of vectors).
fn columns(items: &[(Cow<'_, str>, J<'_>)], opts: &Options, recs: &mut Records, sink: &mut Sink) {
    let n = match &items[0].1 {
        J::Arr(a) => a.len(),
        _ => 0,
    };
    for (k, v) in items {
        if let J::Arr(a) = v {
            if a.len() != n {
                sink.push(
                    ErrorCode::LengthMismatch,
                    Location::default().with_column(k.to_string()),
                    format!(
                        "column {k:?} has {} values but {:?} has {n}; every column must have one value per sample",
                        a.len(),
                        items[0].0
                    ),
                );
                recs.failed = true;
                return;
            }
        }
    }
    let mut rec: Vec<(Cow<'_, str>, J<'_>)> = Vec::with_capacity(items.len());
    for r in 0..n {
        rec.clear();
        for (k, v) in items {
            if let J::Arr(a) = v {
                let e = match &a[r] {
                    J::Null => J::Null,
                    J::Bool(b) => J::Bool(*b),
                    J::Num(x) => J::Num(x),
                    J::Str(s) => J::Str(Cow::Borrowed(s.as_ref())),
                    J::Arr(inner) => J::Arr(
                        inner
                            .iter()
                            .map(|x| match x {
                                J::Num(x) => J::Num(x),
                                J::Null => J::Null,
                                J::Bool(b) => J::Bool(*b),
                                J::Str(s) => J::Str(Cow::Borrowed(s.as_ref())),
                                _ => J::Null,
                            })
                            .collect(),
                    ),
                    J::Obj(_) => J::Null,
                };
                rec.push((Cow::Borrowed(k.as_ref()), e));
            }
        }
        recs.record(&rec, opts, sink);
        if recs.failed {
            return;
        }
    }
}
