//! Text records (CSV rows, JSON records) into columns, then into prediction sets.

use std::collections::HashMap;

use calibscope_core::{PredictionSet, Scores, Source, Values};

use crate::error::{Location, Sink};
use crate::mapping::{Col, Plan, PlanScores, SourceChoice};
use crate::num::{fmt_num, parse_f64, LabelReader};
use crate::{Dataset, ErrorCode, Format, Ids, ParseErrors};

#[cfg(not(target_family = "wasm"))]
mod merge;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Ignore,
    Label,
    Score(usize),
    Pred,
    Model,
    Id,
}

#[derive(Clone, Debug)]
enum IdBuf {
    Int(Vec<i64>),
    Text(Vec<String>),
}

impl IdBuf {
    /// Returns whether integer ids read before became text (their text is lost).
    fn push(&mut self, s: &[u8]) -> bool {
        let t = crate::num::trim(s);
        let mut converted = false;
        if let IdBuf::Int(v) = self {
            if let Some(x) = std::str::from_utf8(t)
                .ok()
                .and_then(|s| s.parse::<i64>().ok())
            {
                v.push(x);
                return false;
            }
            converted = !v.is_empty();
            *self = IdBuf::Text(std::mem::replace(self, IdBuf::Text(Vec::new())).into_texts());
        }
        if let IdBuf::Text(v) = self {
            v.push(String::from_utf8_lossy(t).into_owned());
        }
        converted
    }
    /// The ids as text: integer ids as they print (what they become when the first
    /// id that is not an integer comes).
    fn into_texts(self) -> Vec<String> {
        match self {
            IdBuf::Int(v) => v.iter().map(|x| x.to_string()).collect(),
            IdBuf::Text(v) => v,
        }
    }
    fn into_ids(self) -> Ids {
        match self {
            IdBuf::Int(v) => Ids::Int(v),
            IdBuf::Text(v) => Ids::Text(v),
        }
    }
}

#[derive(Clone, Debug)]
struct ModelBuf {
    name: String,
    labels: Vec<u32>,
    values: Vec<f64>,
    pred: Vec<u32>,
    ids: Option<IdBuf>,
    /// File row of each sample (long format only).
    file_rows: Vec<u64>,
    /// Integer ids became text (a later part of a file read in parallel cannot
    /// follow text ids then: their text is lost).
    ids_converted: bool,
}

/// Builds prediction sets from text records.
#[derive(Clone, Debug)]
pub(crate) struct TableBuilder {
    pub cols: Vec<Col>,
    pub plan: Plan,
    roles: Vec<Role>,
    width: usize,
    labels: LabelReader,
    preds: LabelReader,
    models: Vec<ModelBuf>,
    model_index: HashMap<Vec<u8>, usize>,
    last_model: usize,
    long: bool,
    pub rows: u64,
    bad_rows: Vec<u64>,
    reserved: bool,
    /// Rows may take [`TableBuilder::fast_row`]: one model, no ids, no predicted
    /// classes, labels are class indices.
    pub fast: bool,
    /// The score columns come in slot order (`fast_row` pushes the values).
    in_order: bool,
}

impl TableBuilder {
    pub fn new(cols: Vec<Col>, plan: Plan) -> Self {
        let mut roles = vec![Role::Ignore; cols.len()];
        roles[plan.label] = Role::Label;
        let width;
        let k;
        match &plan.scores {
            PlanScores::Column { col, .. } => {
                roles[*col] = Role::Score(0);
                width = 1;
                k = Some(2);
            }
            PlanScores::Matrix { cols: c, .. } => {
                for (slot, &i) in c.iter().enumerate() {
                    roles[i] = Role::Score(slot);
                }
                width = c.len();
                k = Some(c.len());
            }
            PlanScores::Vector { col, .. } => {
                // text records carry vectors expanded into scalar columns
                roles[*col] = Role::Score(0);
                width = cols[*col].width;
                k = Some(width);
            }
            PlanScores::TopLabel { pred, conf } => {
                roles[*pred] = Role::Pred;
                roles[*conf] = Role::Score(0);
                width = 1;
                k = None;
            }
        }
        if let Some(m) = plan.model {
            roles[m] = Role::Model;
        }
        if let Some(i) = plan.id {
            roles[i] = Role::Id;
        }
        let names = match (&plan.scores, plan.class_names.is_empty()) {
            (PlanScores::Matrix { .. }, false) => plan.class_names.clone(),
            _ => Vec::new(),
        };
        let long = plan.model.is_some();
        let has_id = plan.id.is_some();
        let mut b = TableBuilder {
            labels: LabelReader::new(&names, k),
            preds: LabelReader::new(&[], None),
            cols,
            plan,
            roles,
            width,
            models: Vec::new(),
            model_index: HashMap::new(),
            last_model: 0,
            long,
            rows: 0,
            bad_rows: Vec::new(),
            reserved: false,
            fast: false,
            in_order: false,
        };
        let slots: Vec<usize> = b
            .roles
            .iter()
            .filter_map(|r| match r {
                Role::Score(s) => Some(*s),
                _ => None,
            })
            .collect();
        b.in_order = slots.len() == b.width && slots.iter().enumerate().all(|(i, &s)| i == s);
        b.fast = !long
            && !has_id
            && matches!(b.labels.kind, crate::num::ClassKind::Indices)
            && b.roles
                .iter()
                .all(|r| matches!(r, Role::Ignore | Role::Label | Role::Score(_)));
        if !long {
            b.models.push(ModelBuf::new(String::new(), has_id));
        }
        b
    }

    /// Takes back the row [`TableBuilder::fast_row`] just added.
    pub fn undo_row(&mut self) {
        let m = &mut self.models[0];
        m.labels.pop();
        m.values.truncate(m.values.len() - self.width);
        self.rows -= 1;
    }

    /// Marks a row as already reported (its contract errors are not repeated).
    pub fn mark_bad(&mut self, row: u64) {
        if self.bad_rows.last() != Some(&row) {
            self.bad_rows.push(row);
        }
    }

    /// Reserves column storage for about `rows` more rows (single-model files).
    /// Score values per row.
    pub fn width(&self) -> usize {
        self.width
    }

    pub fn reserve_rows(&mut self, rows: u64) {
        if self.reserved || self.long {
            return;
        }
        self.reserved = true;
        let rows = rows.min(1 << 34) as usize;
        let m = &mut self.models[0];
        m.labels.reserve_exact(rows);
        m.values.reserve_exact(rows.saturating_mul(self.width));
        if matches!(self.plan.scores, PlanScores::TopLabel { .. }) {
            m.pred.reserve_exact(rows);
        }
    }

    fn loc(&self, row: u64, line: Option<u64>, field: usize) -> Location {
        Location::row(row).with_line(line).with_column(
            self.cols
                .get(field)
                .map_or(String::new(), |c| c.name.clone()),
        )
    }

    fn model_for(&mut self, name: &[u8], sink: &mut Sink, row: u64, line: Option<u64>) -> usize {
        if let Some(m) = self.models.get(self.last_model) {
            if m.name.as_bytes() == name {
                return self.last_model;
            }
        }
        let i = match self.model_index.get(name) {
            Some(&i) => i,
            None => {
                let text = match std::str::from_utf8(name) {
                    Ok(t) => t.trim().to_string(),
                    Err(_) => {
                        let f = self.plan.model.unwrap_or(0);
                        sink.push(
                            ErrorCode::NotUtf8,
                            self.loc(row, line, f),
                            "model name is not valid UTF-8 text; save the file as UTF-8",
                        );
                        String::from_utf8_lossy(name).into_owned()
                    }
                };
                let i = self.models.len();
                self.models
                    .push(ModelBuf::new(text, self.plan.id.is_some()));
                self.model_index.insert(name.to_vec(), i);
                i
            }
        };
        self.last_model = i;
        i
    }

    /// The common record, read straight from the text: every field a plain
    /// number (fast-float2's grammar, nothing around it), labels of at most 9
    /// digits, then `\n` or `\r`. Returns the position of that line break, or
    /// `None` (nothing read) when [`TableBuilder::record`] must read the record:
    /// anything else, including every error. `delimiter` is no digit, letter,
    /// sign, point, quote or line break.
    #[inline]
    pub fn fast_row(&mut self, data: &[u8], delimiter: u8) -> Option<usize> {
        let m = &mut self.models[0];
        let base = m.values.len();
        if !self.in_order {
            m.values.resize(base + self.width, f64::NAN);
        }
        let mut pos = 0;
        let mut label = 0u32;
        let last = self.roles.len() - 1;
        for (i, role) in self.roles.iter().enumerate() {
            match *role {
                Role::Score(slot) => match fast_float2::parse_partial::<f64, _>(&data[pos..]) {
                    Ok((v, n)) => {
                        if self.in_order {
                            m.values.push(v);
                        } else {
                            m.values[base + slot] = v;
                        }
                        pos += n;
                    }
                    Err(_) => break,
                },
                Role::Label => {
                    let digits = data[pos..]
                        .iter()
                        .take(10)
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                    if digits == 0 || digits > 9 {
                        break;
                    }
                    let v = data[pos..pos + digits]
                        .iter()
                        .fold(0u64, |v, &b| v * 10 + (b - b'0') as u64);
                    if v >= self.labels.limit {
                        break;
                    }
                    label = v as u32;
                    pos += digits;
                }
                _ => {
                    pos += data[pos..]
                        .iter()
                        .position(|&b| b == delimiter || b == b'\n' || b == b'\r')
                        .unwrap_or(data.len() - pos);
                }
            }
            match data.get(pos) {
                Some(&b) if i < last && b == delimiter => pos += 1,
                Some(b'\n' | b'\r') if i == last => {
                    m.labels.push(label);
                    self.rows += 1;
                    return Some(pos);
                }
                _ => break,
            }
        }
        m.values.truncate(base);
        None
    }

    /// One record: the fields are `buf[ends[i-1] + gap..ends[i]]` (the first one
    /// starts at 0); `gap` is 1 when the delimiters are still in `buf`, else 0.
    #[inline]
    pub fn record(
        &mut self,
        buf: &[u8],
        ends: &[usize],
        gap: usize,
        line: Option<u64>,
        sink: &mut Sink,
    ) {
        let nf = ends.len();
        let field = |i: usize| -> &[u8] {
            let s = if i == 0 { 0 } else { ends[i - 1] + gap };
            &buf[s..ends[i]]
        };
        if nf != self.roles.len() {
            // a blank or whitespace-only line is no row
            if (0..nf).all(|i| field(i).iter().all(|b| b.is_ascii_whitespace())) {
                return;
            }
        }
        let row = self.rows;
        self.rows += 1;
        let mut bad = false;
        if nf != self.roles.len() {
            sink.push(
                ErrorCode::RaggedRow,
                Location::row(row).with_line(line),
                format!(
                    "this row has {nf} fields but the header has {}; check for an unquoted delimiter inside a value or a missing value",
                    self.roles.len()
                ),
            );
            bad = true;
        }
        let mi = match self.plan.model {
            Some(f) if f < nf => self.model_for(field(f), sink, row, line),
            Some(_) => self.last_model.min(self.models.len().saturating_sub(1)),
            None => 0,
        };
        if self.models.is_empty() {
            self.models
                .push(ModelBuf::new(String::new(), self.plan.id.is_some()));
        }
        let width = self.width;
        let m = &mut self.models[mi];
        let base = m.values.len();
        m.values.resize(base + width, f64::NAN);
        let mut label = 0u32;
        let mut pred = 0u32;
        for i in 0..nf.min(self.roles.len()) {
            match self.roles[i] {
                Role::Ignore | Role::Model => {}
                Role::Score(slot) => {
                    let s = field(i);
                    match parse_f64(s) {
                        Some(v) => m.values[base + slot] = v,
                        None => {
                            bad = true;
                            let shown = String::from_utf8_lossy(&s[..s.len().min(40)]).into_owned();
                            let loc = Location::row(row)
                                .with_line(line)
                                .with_column(self.cols[i].name.clone());
                            sink.push(
                                ErrorCode::BadNumber,
                                loc,
                                format!("{shown:?} is not a number"),
                            );
                        }
                    }
                }
                Role::Label => match self.labels.read(field(i), row) {
                    Ok(v) => label = v,
                    Err((code, msg)) => {
                        bad = true;
                        let loc = Location::row(row)
                            .with_line(line)
                            .with_column(self.cols[i].name.clone());
                        sink.push(code, loc, msg);
                    }
                },
                Role::Pred => match self.preds.read(field(i), row) {
                    Ok(v) => pred = v,
                    Err((code, msg)) => {
                        bad = true;
                        let loc = Location::row(row)
                            .with_line(line)
                            .with_column(self.cols[i].name.clone());
                        let code = if code == ErrorCode::LabelOutOfRange {
                            ErrorCode::BadLabel
                        } else {
                            code
                        };
                        sink.push(code, loc, format!("predicted class: {msg}"));
                    }
                },
                Role::Id => {
                    if let Some(ids) = &mut m.ids {
                        m.ids_converted |= ids.push(field(i));
                    }
                }
            }
        }
        if nf < self.roles.len() {
            if let Some(ids) = &mut m.ids {
                let idf = self.plan.id.unwrap_or(0);
                if idf >= nf {
                    m.ids_converted |= ids.push(b"");
                }
            }
        }
        m.labels.push(label);
        if matches!(self.plan.scores, PlanScores::TopLabel { .. }) {
            m.pred.push(pred);
        }
        if self.long {
            m.file_rows.push(row);
        }
        if let Some((a, b)) = self.labels.mixed() {
            let (loc, message) = self.mixed_error(a, b);
            sink.push(ErrorCode::MixedLabelTypes, loc, message);
            bad = true;
        }
        if bad {
            self.bad_rows.push(row);
        }
    }

    /// The error of labels that mix class names (first at row `a` or `b`) and
    /// integers: located at the later of the two rows.
    fn mixed_error(&self, a: u64, b: u64) -> (Location, String) {
        let (first, second) = if a < b { (a, b) } else { (b, a) };
        (
            Location::row(second).with_column(self.cols[self.plan.label].name.clone()),
            format!(
                "labels mix class names and integers (row {first} vs row {second}); use one kind throughout"
            ),
        )
    }

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
            mut plan,
            models,
            long,
            bad_rows,
            rows,
            ..
        } = self;
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
                ..
            } = m;
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

        let mut ds = Dataset {
            name: crate::stem(file),
            files: vec![file.to_string()],
            format,
            class_names: Vec::new(),
            models: sets,
            ids,
            detection: plan.detection.clone(),
        };
        if !long {
            ds.models[0].0 = ds.name.clone();
        }
        ds.class_names = class_names(&plan, &ds);

        // validation
        let mut verrs = Vec::new();
        crate::check_same_samples(&ds, &mut sink, |mi, r| {
            file_rows.get(mi).and_then(|v| v.get(r).copied())
        });
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
        finish_errors(&ds.name.clone(), ds, sink, verrs)
    }
}

impl ModelBuf {
    fn new(name: String, has_id: bool) -> Self {
        ModelBuf {
            name,
            labels: Vec::new(),
            values: Vec::new(),
            pred: Vec::new(),
            ids: has_id.then_some(IdBuf::Int(Vec::new())),
            ids_converted: false,
            file_rows: Vec::new(),
        }
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
pub(crate) fn input_message(e: &calibscope_core::InputError, k: usize, source: Source) -> String {
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
    file_name: &str,
    ds: Dataset,
    sink: Sink,
    verrs: Vec<(Location, calibscope_core::InputError, usize, Source)>,
) -> Result<Dataset, ParseErrors> {
    let _ = file_name;
    if sink.is_empty() && verrs.is_empty() {
        return Ok(ds);
    }
    let only_values = sink.is_empty();
    let Sink {
        file,
        mut errors,
        mut more,
        max,
        ..
    } = sink;
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
        columns: Vec::new(),
    })
}
