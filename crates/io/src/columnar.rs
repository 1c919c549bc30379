//! Apache Parquet and Arrow IPC (Feather v2) files, read with the Apache Arrow
//! project's own Rust implementation (`parquet`, `arrow-ipc`), never by hand.
//!
//! A file becomes named typed columns, then the same assembly as a structured
//! `.npy` ([`crate::npy::assemble`]), so the column names follow the CSV header
//! rules (`label`, `p_0..`, class-name columns, `y_true`, ...):
//! - float, integer and boolean columns are numbers; string, large string, string
//!   view and dictionary-encoded string columns are text (labels as class names,
//!   ids, groups);
//! - a list, large list or fixed-size list of numbers is one vector column (one
//!   probability or logit per class, as polars, pyarrow and Hugging Face write
//!   them); every row must hold the same number of values;
//! - struct columns are flattened into dotted names (`model_response.logprobs`);
//! - a null score is NaN (reported as a missing score); a null label is reported;
//! - a `model` column (long format) splits the rows into one model per value.
//!
//! Parquet row groups are decoded one batch at a time (64 Ki rows), codecs
//! snappy, zstd, gzip, lz4 (raw and Hadoop framing) and none. Brotli and LZO are
//! refused with a message saying how to rewrite the file.

use std::collections::HashMap;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float16Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, UInt16Type,
    UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};

use crate::error::{Location, Sink};
use crate::npy::{assemble, ArrCol, Column};
use crate::{Dataset, ErrorCode, Format, Options, ParseError, ParseErrors, Pick};

/// Rows decoded at a time.
const BATCH_ROWS: usize = 8 * 1024;

/// The columnar container of a file, from its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Container {
    /// `PAR1 … PAR1`.
    Parquet,
    /// `ARROW1` (the IPC file format, Feather v2).
    IpcFile,
    /// The IPC stream format (`0xFFFFFFFF` and a schema message).
    IpcStream,
}

impl Container {
    /// The container a file's first bytes announce: `PAR1`, `ARROW1`, or the IPC
    /// stream's continuation marker `FF FF FF FF`.
    pub(crate) fn of(head: &[u8]) -> Option<Container> {
        if head.starts_with(b"PAR1") {
            Some(Container::Parquet)
        } else if head.starts_with(b"ARROW1") {
            Some(Container::IpcFile)
        } else if head.starts_with(b"\xff\xff\xff\xff") {
            Some(Container::IpcStream)
        } else {
            None
        }
    }

    pub(crate) fn format(self) -> Format {
        match self {
            Container::Parquet => Format::Parquet,
            Container::IpcFile | Container::IpcStream => Format::ArrowIpc,
        }
    }
    fn what(self) -> &'static str {
        match self {
            Container::Parquet => "Parquet file",
            Container::IpcFile => "Arrow IPC (Feather) file",
            Container::IpcStream => "Arrow IPC stream",
        }
    }
}

/// Reads a whole Parquet or Arrow IPC file held in memory into a dataset.
pub(crate) fn dataset(
    file: &str,
    container: Container,
    bytes: Vec<u8>,
    opts: &Options,
) -> Result<Dataset, ParseErrors> {
    let fail = |e: &dyn std::fmt::Display| {
        let text = e.to_string();
        let (code, message) = explain(container, &text);
        ParseErrors::single(ParseError::new(code, file, Location::default(), message))
    };
    let (leaves, rows, problems) = match container {
        Container::Parquet => parquet_leaves(file, bytes, opts, &fail)?,
        Container::IpcFile => {
            let reader = arrow_ipc::reader::FileReader::try_new(std::io::Cursor::new(bytes), None)
                .map_err(|e| fail(&e))?;
            let mut leaves = leaves_of(&reader.schema(), 0..reader.schema().fields().len());
            let (rows, problems) =
                read_batches(reader, &mut leaves, 0, opts).map_err(|e| fail(&e))?;
            (leaves, rows, problems)
        }
        Container::IpcStream => {
            let reader =
                arrow_ipc::reader::StreamReader::try_new(std::io::Cursor::new(bytes), None)
                    .map_err(|e| fail(&e))?;
            let mut leaves = leaves_of(&reader.schema(), 0..reader.schema().fields().len());
            let (rows, problems) =
                read_batches(reader, &mut leaves, 0, opts).map_err(|e| fail(&e))?;
            (leaves, rows, problems)
        }
    };
    if !problems.is_empty() {
        let mut sink = Sink::new(file, opts.max_errors);
        for (code, at, message) in problems {
            sink.push(code, at, message);
        }
        return Err(sink.into_errors(None));
    }
    let cols: Vec<ArrCol> = leaves
        .into_iter()
        .map(|l| l.into_col(rows as usize))
        .collect();
    let format = container.format();
    match long_format_model(&cols, opts) {
        Some(model) => by_model(file, format, cols, model, opts),
        None => assemble(file, format, cols, opts, false),
    }
}

/// A problem at a place in the file: (code, location, message).
type Problem = (ErrorCode, Location, String);

/// The leaves of the top-level fields `roots` of a schema.
fn leaves_of(schema: &Schema, roots: std::ops::Range<usize>) -> Vec<Leaf> {
    let mut leaves = Vec::new();
    for i in roots {
        flatten(&schema.fields()[i], String::new(), vec![i], &mut leaves);
    }
    leaves
}

/// Appends every batch to the leaves (whose first root is column `first_root` of
/// the file; the batches hold the leaves' roots only): the rows read and the
/// problems found (at most `max_errors`).
fn read_batches<E: std::fmt::Display>(
    batches: impl Iterator<Item = Result<RecordBatch, E>>,
    leaves: &mut [Leaf],
    first_root: usize,
    opts: &Options,
) -> Result<(u64, Vec<Problem>), E> {
    let mut problems = Vec::new();
    let mut rows = 0u64;
    for batch in batches {
        let batch = batch?;
        for leaf in leaves.iter_mut() {
            let array = leaf_array(&batch, &leaf.path, first_root);
            leaf.append(&array, rows, &mut problems);
        }
        problems.truncate(opts.max_errors.max(1));
        rows += batch.num_rows() as u64;
    }
    Ok((rows, problems))
}

/// A Parquet file's leaves: on several threads, each decoding its share of the
/// top-level columns (the reader decodes a row group's columns one after another),
/// when the file is large enough for it to pay.
fn parquet_leaves(
    file: &str,
    bytes: Vec<u8>,
    opts: &Options,
    fail: &dyn Fn(&dyn std::fmt::Display) -> ParseErrors,
) -> Result<(Vec<Leaf>, u64, Vec<Problem>), ParseErrors> {
    use parquet::arrow::arrow_reader::{ArrowReaderMetadata, ParquetRecordBatchReaderBuilder};
    use parquet::arrow::ProjectionMask;
    let bytes = bytes::Bytes::from(bytes);
    let meta = ArrowReaderMetadata::load(&bytes, Default::default()).map_err(|e| fail(&e))?;
    let rows = meta.metadata().file_metadata().num_rows().max(0) as u64;
    let schema = meta.schema().clone();
    check_cells(file, &schema, rows, opts)?;
    let roots = schema.fields().len();
    let values = rows.saturating_mul(roots as u64);
    let threads = if values >= 1 << 20 {
        crate::csv::parallel::threads(opts).clamp(1, roots.max(1))
    } else {
        1
    };
    // contiguous shares of the roots, in order
    let shares: Vec<std::ops::Range<usize>> = (0..threads)
        .map(|t| roots * t / threads..roots * (t + 1) / threads)
        .filter(|r| !r.is_empty())
        .collect();
    let read_share = |share: std::ops::Range<usize>| {
        let mut leaves = leaves_of(&schema, share.clone());
        for leaf in &mut leaves {
            leaf.reserve(rows as usize);
        }
        let mask = ProjectionMask::roots(meta.parquet_schema(), share.clone());
        let reader =
            ParquetRecordBatchReaderBuilder::new_with_metadata(bytes.clone(), meta.clone())
                .with_projection(mask)
                .with_batch_size(BATCH_ROWS)
                .build()
                .map_err(|e| e.to_string())?;
        let (rows, problems) =
            read_batches(reader, &mut leaves, share.start, opts).map_err(|e| e.to_string())?;
        Ok::<_, String>((leaves, rows, problems))
    };
    let parts: Vec<Result<_, String>> = if shares.len() > 1 {
        std::thread::scope(|s| {
            let handles: Vec<_> = shares
                .iter()
                .map(|share| {
                    let share = share.clone();
                    s.spawn(move || read_share(share))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a Parquet decoding thread panicked"))
                .collect()
        })
    } else {
        shares.into_iter().map(read_share).collect()
    };
    let mut leaves = Vec::new();
    let mut problems = Vec::new();
    let mut read = rows;
    for part in parts {
        let (l, r, p) = part.map_err(|e| fail(&e))?;
        leaves.extend(l);
        problems.extend(p);
        read = r;
    }
    // problems in row order, as a serial read finds them
    problems.sort_by_key(|p: &Problem| p.1.row);
    problems.truncate(opts.max_errors.max(1));
    Ok((leaves, read, problems))
}

/// The error code and message of a reader error.
fn explain(container: Container, error: &str) -> (ErrorCode, String) {
    let what = container.what();
    let lower = error.to_ascii_lowercase();
    if lower.contains("brotli") || lower.contains("lzo") || lower.contains("disabled feature") {
        return (
            ErrorCode::ColumnarUnsupported,
            format!(
                "this {what} uses a compression calibscope does not read ({error}); write it again with compression='zstd', 'snappy', 'gzip', 'lz4' or none"
            ),
        );
    }
    (
        ErrorCode::ColumnarBad,
        format!(
            "this {what} cannot be read ({error}); it may be truncated or damaged: copy or write it again"
        ),
    )
}

/// Refuses a file whose values (rows × leaf widths, lists counted once) exceed
/// [`Options::max_cells`] before decoding it.
fn check_cells(file: &str, schema: &Schema, rows: u64, opts: &Options) -> Result<(), ParseErrors> {
    let cells = rows.saturating_mul(schema.fields().len() as u64);
    if cells > opts.max_cells {
        return Err(ParseErrors::single(ParseError::new(
            ErrorCode::TooManyCells,
            file,
            Location::default(),
            crate::limits::too_many_cells(cells, opts.max_cells, false),
        )));
    }
    Ok(())
}

/// One column to read: a top-level field, or a field inside structs.
struct Leaf {
    /// Dotted name (`outer.inner`).
    name: String,
    /// Field index at each struct level.
    path: Vec<usize>,
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

fn flatten(field: &Field, prefix: String, path: Vec<usize>, out: &mut Vec<Leaf>) {
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
fn leaf_array(batch: &RecordBatch, path: &[usize], first_root: usize) -> ArrayRef {
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
    if let Some(p) = a.as_primitive_opt::<Float32Type>() {
        return (0..p.len())
            .map(|i| {
                if p.is_null(i) {
                    f64::NAN
                } else {
                    p.value(i) as f64
                }
            })
            .collect();
    }
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
    fn reserve(&mut self, rows: usize) {
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
    fn append(&mut self, a: &ArrayRef, first: u64, problems: &mut Vec<Problem>) {
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

    fn into_col(self, rows: usize) -> ArrCol {
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

/// The model column of a long-format table, when the mapping names one or (by
/// default) a column is named `model` / `model_name`.
fn long_format_model(cols: &[ArrCol], opts: &Options) -> Option<usize> {
    let wanted: Vec<String> = match &opts.mapping.model {
        Pick::Absent => return None,
        Pick::Column(name) => vec![name.clone()],
        Pick::Auto => crate::mapping::MODEL_NAMES
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    cols.iter()
        .position(|c| wanted.iter().any(|w| c.name.trim().eq_ignore_ascii_case(w)))
}

/// A long-format table: the rows of each model value (in order of first
/// appearance) assembled as one model, then combined on the same samples.
fn by_model(
    file: &str,
    format: Format,
    mut cols: Vec<ArrCol>,
    model: usize,
    opts: &Options,
) -> Result<Dataset, ParseErrors> {
    let model_col = cols.remove(model);
    let names: Vec<String> = match &model_col.data {
        Column::Text(v) => v.iter().map(|s| s.trim().to_string()).collect(),
        Column::Int(v) => v.iter().map(|x| x.to_string()).collect(),
        other => (0..other.len())
            .map(|i| crate::num::fmt_num(other.get(i)))
            .collect(),
    };
    let mut order: Vec<String> = Vec::new();
    let mut rows_of: HashMap<String, Vec<usize>> = HashMap::new();
    for (r, n) in names.into_iter().enumerate() {
        if !rows_of.contains_key(&n) {
            order.push(n.clone());
        }
        rows_of.entry(n).or_default().push(r);
    }
    let mut one = opts.clone();
    one.mapping.model = Pick::Absent;
    let mut sets = Vec::with_capacity(order.len());
    for name in &order {
        let rows = &rows_of[name];
        let part: Vec<ArrCol> = cols.iter().map(|c| select_rows(c, rows)).collect();
        let mut ds = assemble(file, format, part, &one, false)?;
        ds.models[0].0 = name.clone();
        sets.push(ds);
    }
    let mut out = crate::combine(sets)?;
    out.format = format;
    out.name = crate::stem(file);
    out.files = vec![file.to_string()];
    out.detection.mapping.model = Pick::Column(model_col.name.clone());
    Ok(out)
}

/// The given rows of a column.
fn select_rows(c: &ArrCol, rows: &[usize]) -> ArrCol {
    fn pick<T: Clone>(v: &[T], rows: &[usize], w: usize) -> Vec<T> {
        rows.iter()
            .flat_map(|&r| v[r * w..(r + 1) * w].iter().cloned())
            .collect()
    }
    let w = c.width;
    let data = match &c.data {
        Column::F64(v) => Column::F64(pick(v, rows, w)),
        Column::F32(v) => Column::F32(pick(v, rows, w)),
        Column::Int(v) => Column::Int(pick(v, rows, w)),
        Column::Text(v) => Column::Text(pick(v, rows, w)),
        Column::Other { type_name, .. } => Column::Other {
            type_name: type_name.clone(),
            rows: rows.len(),
        },
    };
    ArrCol {
        name: c.name.clone(),
        origin: None,
        width: w,
        rows: rows.len(),
        data,
        run: None,
    }
}
