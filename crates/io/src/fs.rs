//! File-system conveniences (native only).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::Location;
use crate::{Dataset, ErrorCode, Options, ParseError, ParseErrors, Parsed, Parser};

const CHUNK: usize = 1 << 20;

fn display(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn io_error(path: &Path, e: std::io::Error) -> ParseErrors {
    ParseErrors::single(ParseError::new(
        ErrorCode::EmptyFile,
        &display(path),
        Location::default(),
        format!("cannot read {}: {e}", path.display()),
    ))
}

fn read_any(path: &Path, options: &Options) -> Result<Parsed, ParseErrors> {
    let mut f = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let mut opts = options.clone();
    if let Ok(m) = f.metadata() {
        opts.size_hint.get_or_insert(m.len());
    }
    let mut p = Parser::new(display(path), opts);
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = f.read(&mut buf).map_err(|e| io_error(path, e))?;
        if n == 0 {
            break;
        }
        if p.push(&buf[..n]).is_err() {
            break;
        }
    }
    p.finish_any()
}

/// Reads one file (streamed in 1 MiB slices: the parser reads each while it is
/// still in the cache).
pub fn read_path(path: &Path, options: &Options) -> Result<Dataset, ParseErrors> {
    let name = display(path);
    match read_any(path, options)? {
        Parsed::Dataset(d) => Ok(d),
        Parsed::Array(_) => Err(ParseErrors::single(ParseError::new(
            ErrorCode::NpyNeedsPair,
            &name,
            Location::default(),
            "this .npy holds a plain array without labels; open it together with its pair (NAME.labels.npy + NAME.probs.npy or NAME.logits.npy)",
        ))),
    }
}

/// Reads several files as one dataset. `NAME.labels.npy` + `NAME.probs.npy` (or
/// `NAME.logits.npy`) given together form one prediction set called `NAME`; every
/// other file is read on its own. More than one resulting set becomes a multi-model
/// dataset on the same samples ([`combine`]); their labels must agree row by row.
pub fn open_paths(paths: &[PathBuf], options: &Options) -> Result<Dataset, ParseErrors> {
    let files = paths
        .iter()
        .map(|path| (path.to_string_lossy().into_owned(), read_any(path, options)))
        .collect();
    crate::assemble(files, options)
}
