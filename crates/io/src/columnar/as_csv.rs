//! A flat Parquet or Arrow IPC table as CSV text, and a file's column names from
//! its footer: for tables that are not predictions, such as the aggregate an
//! engine's GROUP BY writes as Parquet (`calibscope-bins/1`), which its own reader
//! takes as CSV.

use std::fmt::Write;
use std::path::Path;

use super::{columns, Container};
use crate::error::Location;
use crate::npy::Column;
use crate::{ErrorCode, Options, ParseError, ParseErrors};

/// The column names of a Parquet or Arrow IPC file (struct fields as dotted
/// names), read from its footer or schema only; `None` when the file is neither
/// or cannot be read.
pub fn column_names(path: &Path) -> Option<Vec<String>> {
    let mut head = [0u8; 8];
    let mut f = std::fs::File::open(path).ok()?;
    let n = std::io::Read::read(&mut f, &mut head).ok()?;
    let container = Container::of(&head[..n])?;
    // a damaged footer can make the readers panic: no names, then
    let schema = super::guard::guarded(|| schema_of(path, f, container))
        .ok()
        .flatten()?;
    let mut names = Vec::new();
    for (i, field) in schema.fields().iter().enumerate() {
        let mut leaves = Vec::new();
        super::leaves::flatten(field, String::new(), vec![i], &mut leaves);
        names.extend(leaves.into_iter().map(|l| l.name));
    }
    Some(names)
}

/// The schema in the footer (or the stream's first message) of the file at `path`,
/// open as `f`.
fn schema_of(
    path: &Path,
    f: std::fs::File,
    container: Container,
) -> Option<arrow_schema::SchemaRef> {
    Some(match container {
        Container::Parquet => {
            let meta =
                parquet::arrow::arrow_reader::ArrowReaderMetadata::load(&f, Default::default())
                    .ok()?;
            meta.schema().clone()
        }
        Container::IpcFile => arrow_ipc::reader::FileReader::try_new(f, None)
            .ok()?
            .schema(),
        Container::IpcStream => {
            let f = std::fs::File::open(path).ok()?;
            arrow_ipc::reader::StreamReader::try_new(f, None)
                .ok()?
                .schema()
        }
    })
}

/// A flat Parquet or Arrow IPC table held in memory as CSV text: a header row of
/// the column names, then one line per row. Numbers print so that they parse back
/// to the same f64 (shortest round trip); a null or NaN is an empty field; text is
/// quoted when it holds a comma, a quote or a line break. A list column, or a
/// column of a type that is not read, is an error naming it.
pub fn table_as_csv(name: &str, bytes: Vec<u8>) -> Result<String, ParseErrors> {
    let Some(container) = Container::of(&bytes) else {
        return Err(ParseErrors::single(ParseError::new(
            ErrorCode::UnknownFormat,
            name,
            Location::default(),
            "this is not a Parquet or Arrow IPC file",
        )));
    };
    let cols = columns(name, container, bytes, &Options::default())?;
    for c in &cols {
        let holds = match &c.data {
            _ if c.width > 1 => Some("lists".to_string()),
            Column::Other { type_name, .. } => Some(format!("values of type {type_name}")),
            _ => None,
        };
        if let Some(holds) = holds {
            return Err(ParseErrors::single(ParseError::new(
                ErrorCode::ColumnarUnsupported,
                name,
                Location::default().with_column(c.name.clone()),
                format!(
                    "the column {:?} holds {holds}; this table is read as flat columns of numbers and text",
                    c.name
                ),
            )));
        }
    }
    let rows = cols.first().map_or(0, |c| c.rows);
    let mut out = String::new();
    let header: Vec<String> = cols.iter().map(|c| quoted(&c.name)).collect();
    out.push_str(&header.join(","));
    out.push('\n');
    for r in 0..rows {
        for (i, c) in cols.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_cell(&mut out, &c.data, r);
        }
        out.push('\n');
    }
    Ok(out)
}

/// Value `i` of a column as a CSV field: integers and text as they are (text
/// quoted when needed), floats so that they read back to the same bits, a null
/// number (NaN) empty, an unread type as `(type name)` for the reader to refuse.
pub(super) fn write_cell(out: &mut String, data: &Column, i: usize) {
    match data {
        Column::Int(v) => {
            let _ = write!(out, "{}", v[i]);
        }
        Column::Text(v) => out.push_str(&quoted(&v[i])),
        Column::Other { type_name, .. } => {
            let _ = write!(out, "({type_name})");
        }
        other => {
            let x = other.get(i);
            if !x.is_nan() {
                let _ = write!(out, "{x:?}");
            }
        }
    }
}

/// A CSV field: quoted (quotes doubled) when it holds a delimiter, a quote or a
/// line break.
pub(super) fn quoted(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
