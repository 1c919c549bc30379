//! The columns of an Arrow record batch, accumulated across batches: numbers,
//! text, lists of numbers (one vector column), or a type that is not read.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field};

use super::Problem;
use crate::error::Location;
use crate::npy::{ArrCol, Column};
use crate::ErrorCode;

/// One column to read: a top-level field, or a field inside structs.
pub(super) struct Leaf {
    /// Dotted name (`outer.inner`).
    pub(super) name: String,
    /// Field index at each struct level.
    pub(super) path: Vec<usize>,
    values: Values,
}

/// The values read so far.
enum Values {
    F64(Vec<f64>),
    F32(Vec<f32>),
    /// Integers and booleans; the rows that were null (they become NaN).
    Int(Vec<i64>, Vec<usize>),
    Text(Vec<String>),
    /// A list column of numbers: row-major values and the row width (from the
    /// first row).
    List(Vec<f64>, Option<usize>),
    ListF32(Vec<f32>, Option<usize>),
    Other(String),
}

pub(super) fn flatten(field: &Field, prefix: String, path: Vec<usize>, out: &mut Vec<Leaf>) {
    let name = format!("{prefix}{}", field.name());
    if let DataType::Struct(children) = field.data_type() {
        for (i, c) in children.iter().enumerate() {
            let mut p = path.clone();
            p.push(i);
            flatten(c, format!("{name}."), p, out);
        }
        return;
    }
    let values = match field.data_type() {
        DataType::Float64 => Values::F64(Vec::new()),
        DataType::Float32 | DataType::Float16 => Values::F32(Vec::new()),
        t if t.is_integer() || *t == DataType::Boolean => Values::Int(Vec::new(), Vec::new()),
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => Values::Text(Vec::new()),
        DataType::Dictionary(_, v)
            if matches!(
                **v,
                DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View
            ) =>
        {
            Values::Text(Vec::new())
        }
        DataType::List(c) | DataType::LargeList(c) | DataType::FixedSizeList(c, _) => {
            match c.data_type() {
                DataType::Float32 | DataType::Float16 => Values::ListF32(Vec::new(), None),
                t if t.is_numeric() => Values::List(Vec::new(), None),
                t => Values::Other(format!("list<{t}>")),
            }
        }
        t => Values::Other(t.to_string()),
    };
    out.push(Leaf { name, path, values });
}

/// The array of a leaf in a batch whose first column is root `first_root`.
pub(super) fn leaf_array(batch: &RecordBatch, path: &[usize], first_root: usize) -> ArrayRef {
    let mut a = batch.column(path[0] - first_root).clone();
    for &i in &path[1..] {
        a = a.as_struct().column(i).clone();
    }
    a
}

/// The numbers of a numeric array as f64 (NaN where null).
fn numbers_f64(a: &dyn Array) -> Vec<f64> {
    macro_rules! prim {
        ($($t:ty),*) => {
            $(if let Some(p) = a.as_primitive_opt::<$t>() {
                return (0..p.len())
                    .map(|i| if p.is_null(i) { f64::NAN } else { p.value(i) as f64 })
                    .collect();
            })*
        };
    }
    prim!(
        Float64Type,
        Int64Type,
        Int32Type,
        Int16Type,
        Int8Type,
        UInt64Type,
        UInt32Type,
        UInt16Type,
        UInt8Type
    );
    // float32 and float16: as read, widened
    numbers_f32(a).into_iter().map(f64::from).collect()
}

/// The numbers of a float32 (or float16) array (NaN where null).
fn numbers_f32(a: &dyn Array) -> Vec<f32> {
    if let Some(p) = a.as_primitive_opt::<Float32Type>() {
        if p.null_count() == 0 {
            return p.values().to_vec();
        }
        return (0..p.len())
            .map(|i| if p.is_null(i) { f32::NAN } else { p.value(i) })
            .collect();
    }
    if let Some(p) = a.as_primitive_opt::<Float16Type>() {
        return (0..p.len())
            .map(|i| {
                if p.is_null(i) {
                    f32::NAN
                } else {
                    p.value(i).to_f32()
                }
            })
            .collect();
    }
    vec![f32::NAN; a.len()]
}

/// The integers of an integer or boolean array, and the null rows.
fn integers(a: &dyn Array) -> (Vec<i64>, Vec<usize>) {
    let nulls: Vec<usize> = (0..a.len()).filter(|&i| a.is_null(i)).collect();
    if let Some(b) = a.as_boolean_opt() {
        return ((0..b.len()).map(|i| b.value(i) as i64).collect(), nulls);
    }
    macro_rules! prim {
        ($($t:ty),*) => {
            $(if let Some(p) = a.as_primitive_opt::<$t>() {
                return (p.values().iter().map(|&x| x as i64).collect(), nulls);
            })*
        };
    }
    prim!(Int64Type, Int32Type, Int16Type, Int8Type, UInt64Type, UInt32Type, UInt16Type, UInt8Type);
    (vec![0; a.len()], nulls)
}

/// The texts of a string or dictionary-of-strings array ("" where null).
fn texts(a: &dyn Array) -> Vec<String> {
    if let Some(d) = a.as_any_dictionary_opt() {
        let values = texts(d.values().as_ref());
        let keys = d.normalized_keys();
        return (0..a.len())
            .map(|i| {
                if a.is_null(i) {
                    String::new()
                } else {
                    values.get(keys[i]).cloned().unwrap_or_default()
                }
            })
            .collect();
    }
    macro_rules! each {
        ($s:expr) => {
            (0..$s.len())
                .map(|i| {
                    if $s.is_null(i) {
                        String::new()
                    } else {
                        $s.value(i).to_string()
                    }
                })
                .collect()
        };
    }
    if let Some(s) = a.as_string_opt::<i32>() {
        return each!(s);
    }
    if let Some(s) = a.as_string_opt::<i64>() {
        return each!(s);
    }
    if let Some(s) = a.as_string_view_opt() {
        return each!(s);
    }
    vec![String::new(); a.len()]
}

/// The rows of a list array: each row's child range (`None` where null) and the
/// child values.
fn list_rows(a: &dyn Array) -> (Vec<Option<(usize, usize)>>, ArrayRef) {
    let row = |i: usize, start: usize, end: usize| (!a.is_null(i)).then_some((start, end));
    if let Some(l) = a.as_list_opt::<i32>() {
        let o = l.value_offsets();
        let rows = (0..l.len())
            .map(|i| row(i, o[i] as usize, o[i + 1] as usize))
            .collect();
        return (rows, l.values().clone());
    }
    if let Some(l) = a.as_list_opt::<i64>() {
        let o = l.value_offsets();
        let rows = (0..l.len())
            .map(|i| row(i, o[i] as usize, o[i + 1] as usize))
            .collect();
        return (rows, l.values().clone());
    }
    let l = a.as_fixed_size_list();
    let w = l.value_length() as usize;
    let rows = (0..l.len()).map(|i| row(i, i * w, (i + 1) * w)).collect();
    (rows, l.values().clone())
}

impl Leaf {
    /// Room for `rows` scalar values (list columns grow as they come: their width
    /// is known from the first row).
    pub(super) fn reserve(&mut self, rows: usize) {
        use crate::pages::reserve_exact_on_huge_pages as reserve;
        match &mut self.values {
            Values::F64(v) => reserve(v, rows),
            Values::F32(v) => reserve(v, rows),
            Values::Int(v, _) => reserve(v, rows),
            Values::Text(v) => v.reserve_exact(rows),
            _ => {}
        }
    }

    /// Appends a batch's array; `first` is the file row of its first value.
    pub(super) fn append(&mut self, a: &ArrayRef, first: u64, problems: &mut Vec<Problem>) {
        let name = self.name.clone();
        match &mut self.values {
            Values::F64(v) => {
                if let (Some(p), 0) = (a.as_primitive_opt::<Float64Type>(), a.null_count()) {
                    v.extend_from_slice(p.values());
                } else {
                    v.extend(numbers_f64(a.as_ref()));
                }
            }
            Values::F32(v) => v.extend(numbers_f32(a.as_ref())),
            Values::Int(v, nulls) => {
                let base = v.len();
                let (x, n) = integers(a.as_ref());
                v.extend(x);
                nulls.extend(n.into_iter().map(|i| base + i));
            }
            Values::Text(v) => v.extend(texts(a.as_ref())),
            Values::Other(_) => {}
            Values::List(v, width) => {
                let (rows, child) = list_rows(a.as_ref());
                let child = numbers_f64(child.as_ref());
                push_rows(&name, &rows, &child, f64::NAN, v, width, first, problems);
            }
            Values::ListF32(v, width) => {
                let (rows, child) = list_rows(a.as_ref());
                let child = numbers_f32(child.as_ref());
                push_rows(&name, &rows, &child, f32::NAN, v, width, first, problems);
            }
        }
    }

    pub(super) fn into_col(self, rows: usize) -> ArrCol {
        let (data, width) = match self.values {
            Values::F64(v) => (Column::F64(v), 1),
            Values::F32(v) => (Column::F32(v), 1),
            Values::Int(v, nulls) if nulls.is_empty() => (Column::Int(v), 1),
            Values::Int(v, nulls) => {
                let mut f: Vec<f64> = v.into_iter().map(|x| x as f64).collect();
                for i in nulls {
                    f[i] = f64::NAN;
                }
                (Column::F64(f), 1)
            }
            Values::Text(v) => (Column::Text(v), 1),
            Values::List(v, w) => (Column::F64(v), w.unwrap_or(1)),
            Values::ListF32(v, w) => (Column::F32(v), w.unwrap_or(1)),
            Values::Other(type_name) => (Column::Other { type_name, rows }, 1),
        };
        ArrCol {
            name: self.name,
            origin: None,
            width,
            rows,
            data,
            run: None,
        }
    }
}

/// Appends list rows of the same width; a row of another width, an empty or a
/// null list is an error at its row.
#[allow(clippy::too_many_arguments)]
fn push_rows<T: Copy>(
    name: &str,
    rows: &[Option<(usize, usize)>],
    child: &[T],
    nan: T,
    out: &mut Vec<T>,
    width: &mut Option<usize>,
    first: u64,
    problems: &mut Vec<Problem>,
) {
    for (r, range) in rows.iter().enumerate() {
        let at = || Location::row(first + r as u64).with_column(name.to_string());
        let Some((s, e)) = *range else {
            problems.push((
                ErrorCode::BadNumber,
                at(),
                "the list is missing (null); every row needs one score per class".to_string(),
            ));
            out.extend(std::iter::repeat_n(nan, width.unwrap_or(0)));
            continue;
        };
        let w = *width.get_or_insert(e - s);
        if w == 0 {
            problems.push((
                ErrorCode::InvalidMapping,
                at(),
                "the list is empty; every row needs one score per class".to_string(),
            ));
            return;
        }
        if e - s != w {
            problems.push((
                ErrorCode::RaggedRow,
                at(),
                format!(
                    "this row's list has {} values but the first row's has {w}; every row needs one score per class",
                    e - s
                ),
            ));
            out.extend(std::iter::repeat_n(nan, w));
            continue;
        }
        out.extend_from_slice(&child[s..e]);
    }
}
