//! Arrays (structured fields, NumPy pairs, `.npz` members) assembled into datasets.

use super::runs::{self, RunMember};
use super::*;

/// A column to assemble: a structured field, an npz member or one array of a pair.
pub(crate) struct ArrCol {
    pub name: String,
    /// where it came from (member / file name) for error locations
    pub origin: Option<String>,
    pub width: usize,
    pub rows: usize,
    /// its values (empty while it is the member of a run)
    pub data: Column,
    /// its place in a run of a structured array, while its values are in the run
    pub run: Option<RunMember>,
}

pub(crate) fn array_cols(a: NpyArray, origin: Option<String>, name: Option<&str>) -> Vec<ArrCol> {
    let rows = a.rows();
    let members = runs::members(a.runs, a.fields.len());
    a.fields
        .into_iter()
        .zip(members)
        .map(|(f, run)| ArrCol {
            name: if f.name.is_empty() {
                name.unwrap_or("").to_string()
            } else {
                f.name
            },
            origin: origin.clone(),
            width: f.count.max(1),
            rows,
            data: f.data,
            run,
        })
        .collect()
}

/// The row-major `n × parts.len()` matrix of columns of `n` values each: f32 when
/// every column is, f64 otherwise.
fn columns_as_matrix(parts: &[ArrCol], n: usize) -> Values {
    /// Every part's first `n` values, when `pick` takes each part's column.
    fn all<'a, T>(
        parts: &'a [ArrCol],
        n: usize,
        pick: impl Fn(&'a Column) -> Option<&'a Vec<T>>,
    ) -> Option<Vec<&'a [T]>> {
        parts
            .iter()
            .map(|c| pick(&c.data).map(|x| &x[..n]))
            .collect()
    }
    if let Some(f32_parts) = all(parts, n, |c| match c {
        Column::F32(x) => Some(x),
        _ => None,
    }) {
        return Values::F32(interleave(&f32_parts, n));
    }
    if let Some(f64_parts) = all(parts, n, |c| match c {
        Column::F64(x) => Some(x),
        _ => None,
    }) {
        return Values::F64(interleave(&f64_parts, n));
    }
    let mut v = Vec::with_capacity(n * parts.len());
    for r in 0..n {
        for c in parts {
            v.push(c.data.get(r));
        }
    }
    Values::F64(v)
}

/// The row-major `n × k` matrix of `k` columns of `n` values: row `r` is
/// `columns[0][r], …, columns[k-1][r]`. Written row after row into room reserved
/// once (on huge pages, never zeroed first): the columns are read as `k`
/// sequential streams, the matrix written as one.
fn interleave<T: Copy>(columns: &[&[T]], n: usize) -> Vec<T> {
    let k = columns.len();
    let mut out = Vec::new();
    reserve_exact_on_huge_pages(&mut out, n * k);
    let columns: Vec<&[T]> = columns.iter().map(|c| &c[..n]).collect();
    for r in 0..n {
        out.extend(columns.iter().map(|c| c[r]));
    }
    out
}

/// Builds a single-model dataset from typed columns.
pub(crate) fn assemble(
    file: &str,
    format: Format,
    cols: Vec<ArrCol>,
    opts: &Options,
    member_loc: bool,
) -> Result<Dataset, ParseErrors> {
    let mut sink = Sink::new(file, opts.max_errors);
    let pcols: Vec<Col> = cols
        .iter()
        .map(|c| Col {
            name: c.name.clone(),
            width: c.width,
        })
        .collect();
    let mut mapping = opts.mapping.clone();
    mapping.model = crate::Pick::Absent;
    let mut p = match plan(&pcols, &mapping) {
        Ok(p) => p,
        Err(errs) => {
            sink.push_plan_errors(&pcols, errs, Location::default());
            return Err(sink.into_errors(None));
        }
    };
    // a run of fields taken whole as the score matrix is used as it is
    let mut cols = cols;
    let whole_run = match &p.scores {
        PlanScores::Matrix { cols: parts, .. } => runs::take_whole(&cols, parts),
        _ => None,
    };
    let where_ = |c: &ArrCol| -> Location {
        let mut loc = Location::default();
        if member_loc {
            loc.member = c.origin.clone();
        }
        loc.column = Some(if c.origin.is_some() && !member_loc {
            c.origin.clone().unwrap()
        } else {
            c.name.clone()
        });
        loc
    };
    // lengths
    let n = cols[p.label].rows;
    let mut used = vec![p.label];
    match &p.scores {
        PlanScores::Column { col, .. } | PlanScores::Vector { col, .. } => used.push(*col),
        PlanScores::Matrix { cols, .. } => used.extend(cols),
        PlanScores::TopLabel { pred, conf } => used.extend([*pred, *conf]),
    }
    used.extend(p.id);
    used.extend(p.groups.iter().copied());
    // every other member of a run that is used gets its own values
    runs::copy_out(&mut cols, &used);
    for &i in &used {
        if cols[i].rows != n {
            sink.push(
                ErrorCode::LengthMismatch,
                where_(&cols[i]),
                format!(
                    "{:?} has {} rows but the labels {:?} have {n}; labels and scores must describe the same samples",
                    cols[i].name, cols[i].rows, cols[p.label].name
                ),
            );
        }
    }
    // text and unread types where numbers are needed
    let score_cols: Vec<usize> = match &p.scores {
        PlanScores::Column { col, .. } | PlanScores::Vector { col, .. } => vec![*col],
        PlanScores::Matrix { cols, .. } => cols.clone(),
        PlanScores::TopLabel { conf, .. } => vec![*conf],
    };
    for &i in &used {
        let Some(holds) = cols[i].data.not_numbers() else {
            continue;
        };
        let c = &cols[i];
        if score_cols.contains(&i) {
            sink.push(
                ErrorCode::BadNumber,
                where_(c),
                format!(
                    "the score column {:?} holds {holds}, not numbers; write the probabilities or logits as floats",
                    c.name
                ),
            );
        } else if let Column::Other { type_name, .. } = &c.data {
            sink.push(
                ErrorCode::ColumnarUnsupported,
                where_(c),
                format!(
                    "the column {:?} holds values of type {type_name}, which calibscope does not read; cast it to integers or text (labels, ids, groups)",
                    c.name
                ),
            );
        }
    }
    if !sink.is_empty() {
        return Err(sink.into_errors(None));
    }
    let label_col = p.label;
    let score_idx: Vec<usize> = match &p.scores {
        PlanScores::Column { col, .. } | PlanScores::Vector { col, .. } => vec![*col],
        PlanScores::Matrix { cols, .. } => cols.clone(),
        PlanScores::TopLabel { conf, .. } => vec![*conf],
    };
    let kind = ClassKind::from_names(&p.class_names);
    let k = match &p.scores {
        PlanScores::Column { .. } => Some(2),
        PlanScores::Vector { col, .. } => Some(cols[*col].width),
        PlanScores::Matrix { cols, .. } => Some(cols.len()),
        PlanScores::TopLabel { .. } => None,
    };
    let names = p.class_names.clone();
    let mut bad_rows: Vec<u64> = Vec::new();
    let mut slots: Vec<Option<ArrCol>> = cols.into_iter().map(Some).collect();

    let limit = if matches!(p.scores, PlanScores::TopLabel { .. }) {
        MAX_TOPLABEL_CLASS
    } else {
        MAX_CLASS
    };
    let read_ints = |c: &ArrCol,
                     what: &str,
                     kind: &ClassKind,
                     sink: &mut Sink,
                     bad: &mut Vec<u64>|
     -> Vec<u32> {
        let mut out = Vec::with_capacity(c.rows);
        // text labels: class names (or integers written as text), read as in a CSV
        let mut text = match (&c.data, kind) {
            (Column::Text(_), ClassKind::Indices) if what != "label" => {
                Some(LabelReader::new(&[], None))
            }
            (Column::Text(_), _) => Some(LabelReader::new(&names, k)),
            _ => None,
        };
        for r in 0..c.rows {
            if let (Column::Text(v), Some(reader)) = (&c.data, text.as_mut()) {
                match reader.read(v[r].as_bytes(), r as u64) {
                    Ok(x) => out.push(x),
                    Err((code, msg)) => {
                        let mut loc = where_(c);
                        loc.row = Some(r as u64);
                        let msg = if what == "label" {
                            msg
                        } else {
                            format!("{what}: {msg}")
                        };
                        sink.push(code, loc, msg);
                        bad.push(r as u64);
                        out.push(0);
                    }
                }
                continue;
            }
            let (v, err) = match &c.data {
                Column::Int(v) => (v[r], None),
                _ if c.data.get(r).is_nan() => {
                    (0, Some(format!("{what} is missing (null or NaN)")))
                }
                _ => {
                    let x = c.data.get(r);
                    if x.is_finite() && x == x.trunc() && x.abs() < 9e15 {
                        (x as i64, None)
                    } else {
                        (0, Some(format!("{what} {} is not an integer", fmt_num(x))))
                    }
                }
            };
            let res = match err {
                Some(e) => Err((ErrorCode::BadLabel, e)),
                None => match kind {
                    ClassKind::IntNames(ints) => match ints.iter().position(|&c| c == v) {
                        Some(i) => Ok(i as u32),
                        None => Err((
                            ErrorCode::LabelOutOfRange,
                            format!("{what} {v} is not one of the classes"),
                        )),
                    },
                    _ if v < 0 => Err((
                        ErrorCode::LabelOutOfRange,
                        format!("{what} {v} is negative; labels are class indices 0..k-1"),
                    )),
                    _ if v as u64 >= limit => Err((
                        ErrorCode::LabelOutOfRange,
                        format!("{what} {v} is too large to be a class index"),
                    )),
                    _ => Ok(v as u32),
                },
            };
            match res {
                Ok(x) => out.push(x),
                Err((code, msg)) => {
                    let mut loc = where_(c);
                    loc.row = Some(r as u64);
                    sink.push(code, loc, msg);
                    bad.push(r as u64);
                    out.push(0);
                }
            }
        }
        out
    };

    let lc = slots[label_col].take().unwrap();
    if lc.width != 1 {
        sink.push(
            ErrorCode::NpyUnsupportedShape,
            where_(&lc),
            format!(
                "the labels {:?} are 2-D (width {}); expected one label per row",
                lc.name, lc.width
            ),
        );
        return Err(sink.into_errors(None));
    }
    let label_name = where_(&lc).column.unwrap_or_default();
    let labels = read_ints(&lc, "label", &kind, &mut sink, &mut bad_rows);
    drop(lc);

    let ids = p.id.and_then(|i| slots[i].take()).map(|c| match c.data {
        Column::Int(v) => Ids::Int(v),
        Column::Text(v) => Ids::Text(v),
        other => Ids::Text((0..other.len()).map(|r| fmt_num(other.get(r))).collect()),
    });

    // grouping fields: integers (and booleans, as 0 / 1) in decimal, floats as
    // they print
    let groups = if p.groups.is_empty() {
        None
    } else {
        let mut dicts = Vec::with_capacity(p.groups.len());
        let mut codes = Vec::with_capacity(p.groups.len());
        let mut names = Vec::with_capacity(p.groups.len());
        for &g in &p.groups {
            let c = slots[g].take().unwrap();
            let mut d = crate::groups::Dict::default();
            let mut text = String::new();
            let v: Vec<u32> = (0..c.rows)
                .map(|r| {
                    text.clear();
                    match &c.data {
                        Column::Int(v) => text.push_str(&v[r].to_string()),
                        Column::Text(v) => text.push_str(v[r].trim()),
                        other => text.push_str(&fmt_num(other.get(r))),
                    }
                    d.code(text.as_bytes())
                })
                .collect();
            names.push(c.name.trim().to_string());
            dicts.push(d);
            codes.push(v);
        }
        match crate::groups::assemble(names, dicts, codes) {
            Ok(g) => Some(g),
            Err(message) => {
                sink.push(ErrorCode::InvalidMapping, Location::default(), message);
                None
            }
        }
    };

    let (set, source) = match p.scores.clone() {
        PlanScores::Column { col, source } => {
            let c = slots[col].take().unwrap();
            let values = c.data.into_values();
            let source = match source {
                SourceChoice::Known(s) => s,
                SourceChoice::Auto => {
                    let outside = (0..values.len())
                        .map(|i| values.get(i))
                        .find(|v| v.is_finite() && !(0.0..=1.0).contains(v));
                    let s = if outside.is_some() {
                        Source::Logits
                    } else {
                        Source::Probs
                    };
                    p.detection.guess(
                        "source",
                        s.name(),
                        format!("{:?} read as {} from its values", c.name, s.name()),
                    );
                    p.detection.mapping.source = Some(s);
                    s
                }
            };
            (
                PredictionSet {
                    labels,
                    scores: Scores::Column { values, source },
                    k: 2,
                },
                source,
            )
        }
        PlanScores::Vector { col, source } => {
            let c = slots[col].take().unwrap();
            let k = c.width;
            (
                PredictionSet {
                    labels,
                    scores: Scores::Matrix {
                        values: c.data.into_values(),
                        k,
                        source,
                    },
                    k,
                },
                source,
            )
        }
        PlanScores::Matrix { cols: idx, source } => {
            let k = idx.len();
            let parts: Vec<ArrCol> = idx.iter().map(|&i| slots[i].take().unwrap()).collect();
            let values = match whole_run {
                Some(block) => block.into_values(),
                None => columns_as_matrix(&parts, n),
            };
            (
                PredictionSet {
                    labels,
                    scores: Scores::Matrix { values, k, source },
                    k,
                },
                source,
            )
        }
        PlanScores::TopLabel { pred, conf } => {
            let pc = slots[pred].take().unwrap();
            let predicted = read_ints(
                &pc,
                "predicted class",
                &ClassKind::Indices,
                &mut sink,
                &mut bad_rows,
            );
            let cc = slots[conf].take().unwrap();
            (
                PredictionSet::top_label(labels, predicted, cc.data.into_values()),
                Source::TopLabel,
            )
        }
    };
    bad_rows.sort_unstable();
    let score_names: Vec<String> = score_idx.iter().map(|&i| pcols[i].name.clone()).collect();
    let mut verrs = Vec::new();
    for e in set.validate() {
        if bad_rows.binary_search(&(e.row as u64)).is_ok() {
            continue;
        }
        let mut loc = Location::row(e.row as u64);
        loc.column = match e.kind {
            calibscope_core::InputErrorKind::LabelOutOfRange => Some(label_name.clone()),
            calibscope_core::InputErrorKind::RowSum => None,
            _ => e.column.map(|c| {
                if score_names.len() == 1 && set.columns() > 1 {
                    format!("{}[{c}]", score_names[0])
                } else {
                    score_names[c.min(score_names.len() - 1)].clone()
                }
            }),
        };
        let k = set.k;
        verrs.push((loc, e, k, source));
    }
    let class_names = if p.class_names.len() == set.k {
        p.class_names.clone()
    } else {
        (0..set.k).map(|i| i.to_string()).collect()
    };
    let name = crate::stem(file);
    let ds = Dataset {
        name: name.clone(),
        files: vec![file.to_string()],
        format,
        models: vec![(name, set)],
        ids,
        class_names,
        detection: p.detection,
        groups,
    };
    crate::table::finish_errors(ds, sink, verrs)
}

/// A structured `.npy` as a dataset (field names follow the CSV header).
pub(crate) fn structured_dataset(
    file: &str,
    a: NpyArray,
    opts: &Options,
) -> Result<Dataset, ParseErrors> {
    let cols = array_cols(a, None, None);
    assemble(file, Format::Npy, cols, opts, false)
}

/// Combines a NumPy pair, `NAME.labels.npy` + `NAME.probs.npy` (or `.logits.npy`),
/// into one prediction set called `name`. `source` is what the score array holds
/// (from its file name: see [`crate::pair_role`]). 1-D scores (or `(n, 1)`) are one
/// binary column; `(n, k)` are k columns.
pub fn npy_pair(
    name: &str,
    labels: NpyArray,
    scores: NpyArray,
    source: Source,
    options: &Options,
) -> Result<Dataset, ParseErrors> {
    let lf = labels.file.clone();
    let sf = scores.file.clone();
    for a in [&labels, &scores] {
        if a.structured {
            return Err(ParseErrors::single(ParseError::new(
                ErrorCode::NpyUnsupportedShape,
                &a.file,
                Location::default(),
                "a NumPy pair needs plain arrays, not a structured array; open the structured .npy on its own",
            )));
        }
    }
    let mut cols = array_cols(labels, Some(lf.clone()), Some("labels"));
    let sname = if source == Source::Logits {
        "logits"
    } else {
        "probs"
    };
    let mut sc = array_cols(scores, Some(sf.clone()), Some(sname));
    cols.append(&mut sc);
    let mut opts = options.clone();
    if opts.mapping.source.is_none() {
        opts.mapping.source = Some(source);
    }
    let mut ds = assemble(name, Format::NpyPair, cols, &opts, false).map_err(|mut e| {
        if let Some(d) = &mut e.dataset {
            d.name = name.to_string();
            d.files = vec![lf.clone(), sf.clone()];
            d.models[0].0 = name.to_string();
        }
        e
    })?;
    ds.name = name.to_string();
    ds.models[0].0 = name.to_string();
    ds.files = vec![lf, sf];
    Ok(ds)
}
