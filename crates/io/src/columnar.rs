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

use arrow_array::RecordBatch;
use arrow_schema::Schema;

use crate::error::{Location, Sink};
use crate::npy::{assemble, ArrCol, Column};
use crate::{Dataset, ErrorCode, Format, Options, ParseError, ParseErrors, Pick};

mod as_csv;
mod guard;
mod ipc_check;
mod leaves;

pub use as_csv::{column_names, table_as_csv};
use leaves::{flatten, leaf_array, Leaf};

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
    let cols = columns(file, container, bytes, opts)?;
    if let Some(text) = multilabel_text(&cols, opts) {
        return crate::multilabel::from_made_text(file, opts, container.format(), text);
    }
    if let (Pick::Column(name), None) = (&opts.mapping.model, long_format_model(&cols, opts)) {
        let names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
        return Err(ParseErrors::single(ParseError::new(
            ErrorCode::MappingColumnMissing,
            file,
            Location::default(),
            format!(
                "the model column {name:?} is not in the file; its columns are {}",
                names.join(", ")
            ),
        )));
    }
    let format = container.format();
    match long_format_model(&cols, opts) {
        Some(model) => by_model(file, format, cols, model, opts),
        None => assemble(file, format, cols, opts, false),
    }
}

/// The columns as CSV text for the multilabel reader, when they make a multilabel
/// table ([`crate::multilabel`]: the pairs the mapping names, or, with no other
/// mapping, names that pair up); list columns are flattened as JSON lists are
/// (`y` → `y_0, y_1, …`, `probs` → `p_0, p_1, …`). Floats are written so that they
/// read back to the same bits; a null number is an empty field (a missing score).
fn multilabel_text(cols: &[ArrCol], opts: &Options) -> Option<Vec<u8>> {
    let names: Vec<String> = cols
        .iter()
        .flat_map(|c| match c.width {
            1 => vec![c.name.clone()],
            w => (0..w)
                .map(|j| crate::json::vec_name(&c.name, &j.to_string()))
                .collect(),
        })
        .collect();
    if !crate::multilabel::is_multilabel_record(&names, &opts.mapping) {
        return None;
    }
    let mut out = names
        .iter()
        .map(|n| as_csv::quoted(n))
        .collect::<Vec<_>>()
        .join(",");
    let rows = cols.first().map_or(0, |c| c.rows);
    for r in 0..rows {
        out.push('\n');
        let mut first = true;
        for c in cols {
            for j in 0..c.width {
                if !first {
                    out.push(',');
                }
                first = false;
                as_csv::write_cell(&mut out, &c.data, r * c.width + j);
            }
        }
    }
    out.push('\n');
    Some(out.into_bytes())
}

/// Every column of a Parquet or Arrow IPC file held in memory, struct fields
/// flattened into dotted names; the first problems found (a ragged list, a null
/// list) are errors, and so is a damaged file that makes the Arrow crates panic
/// ([`guard`]).
pub(crate) fn columns(
    file: &str,
    container: Container,
    bytes: Vec<u8>,
    opts: &Options,
) -> Result<Vec<ArrCol>, ParseErrors> {
    if let Err(why) = ipc_check::check(container, &bytes, opts.max_decompressed) {
        let (code, message) = explain(container, &why);
        return Err(ParseErrors::single(ParseError::new(
            code,
            file,
            Location::default(),
            message,
        )));
    }
    guard::guarded(|| columns_unguarded(file, container, bytes, opts)).unwrap_or_else(|panic| {
        let (code, message) = explain(container, &panic);
        Err(ParseErrors::single(ParseError::new(
            code,
            file,
            Location::default(),
            message,
        )))
    })
}

fn columns_unguarded(
    file: &str,
    container: Container,
    bytes: Vec<u8>,
    opts: &Options,
) -> Result<Vec<ArrCol>, ParseErrors> {
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
    Ok(leaves
        .into_iter()
        .map(|l| l.into_col(rows as usize))
        .collect())
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
                    s.spawn(move || guard::quietly(|| read_share(share)))
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
        // the model's errors are located at the file's rows
        let mut ds = assemble(file, format, part, &one, false).map_err(|mut e| {
            for err in &mut e.errors {
                err.location.model = Some(name.clone());
                if let Some(r) = err.location.row {
                    err.location.row = rows.get(r as usize).map(|&x| x as u64);
                }
            }
            e
        })?;
        ds.models[0].0 = name.clone();
        sets.push(ds);
    }
    let mut out = crate::assemble::combine_checked(sets, !opts.unaligned_models)?;
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
