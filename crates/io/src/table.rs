//! Text records (CSV rows, JSON records) into columns, then into prediction sets.

use std::collections::HashMap;

use calibscope_core::{PredictionSet, Scores, Source, Values};

use crate::error::{Location, Sink};
use crate::mapping::{Col, Plan, PlanScores, SourceChoice};
use crate::num::{fmt_num, parse_f64, LabelReader};
use crate::pages::reserve_exact_on_huge_pages;
use crate::{Dataset, ErrorCode, Format, Ids, ParseErrors};

mod fast;
pub(crate) use fast::rows_at_once;
#[cfg(test)]
pub(crate) use fast::ROW_BY_ROW;
mod finish;
mod guess;
#[cfg(not(target_family = "wasm"))]
mod merge;

pub(crate) use finish::finish_errors;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    Ignore,
    Label,
    Score(usize),
    Pred,
    Model,
    Id,
    /// The `j`-th grouping column.
    Group(usize),
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
    /// Per grouping column, each sample's value code in [`TableBuilder::group_dicts`].
    groups: Vec<Vec<u32>>,
}

/// Builds prediction sets from text records.
///
/// The columns and the plan are shared (not copied) by the tables of the parts of
/// a file read in parallel: with 10,000 classes, copying them for every part cost
/// more than reading the part.
#[derive(Clone, Debug)]
pub(crate) struct TableBuilder {
    pub cols: std::sync::Arc<[Col]>,
    pub plan: std::sync::Arc<Plan>,
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
    /// The values of each grouping column.
    group_dicts: Vec<crate::groups::Dict>,
}

impl TableBuilder {
    pub fn new(
        cols: impl Into<std::sync::Arc<[Col]>>,
        plan: impl Into<std::sync::Arc<Plan>>,
    ) -> Self {
        let (cols, plan) = (cols.into(), plan.into());
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
        for (j, &i) in plan.groups.iter().enumerate() {
            roles[i] = Role::Group(j);
        }
        let n_groups = plan.groups.len();
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
            group_dicts: vec![crate::groups::Dict::default(); n_groups],
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
            && b.roles.iter().all(|r| {
                matches!(
                    r,
                    Role::Ignore | Role::Label | Role::Score(_) | Role::Group(_)
                )
            });
        if !long {
            b.models
                .push(ModelBuf::new(String::new(), has_id, n_groups));
        }
        b
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
        reserve_exact_on_huge_pages(&mut m.labels, rows);
        reserve_exact_on_huge_pages(&mut m.values, rows.saturating_mul(self.width));
        if matches!(self.plan.scores, PlanScores::TopLabel { .. }) {
            reserve_exact_on_huge_pages(&mut m.pred, rows);
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
                self.models.push(ModelBuf::new(
                    text,
                    self.plan.id.is_some(),
                    self.plan.groups.len(),
                ));
                self.model_index.insert(name.to_vec(), i);
                i
            }
        };
        self.last_model = i;
        i
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
            self.models.push(ModelBuf::new(
                String::new(),
                self.plan.id.is_some(),
                self.plan.groups.len(),
            ));
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
                Role::Group(j) => m.groups[j].push(self.group_dicts[j].code(field(i))),
            }
        }
        // a short row: its missing grouping values are empty
        for role in self.roles.iter().skip(nf) {
            if let Role::Group(j) = *role {
                m.groups[j].push(self.group_dicts[j].code(b""));
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
}

impl ModelBuf {
    fn new(name: String, has_id: bool, n_groups: usize) -> Self {
        ModelBuf {
            groups: vec![Vec::new(); n_groups],
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
