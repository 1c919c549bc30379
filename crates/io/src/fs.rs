//! File-system conveniences (native only).

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use crate::csv::parallel::{self, Source};
use crate::error::Location;
use crate::{Dataset, ErrorCode, Options, ParseError, ParseErrors, Parsed, Parser};

const CHUNK: usize = 1 << 20;
/// The first read of a file that may be read in parallel.
const HEAD: usize = 64 << 10;

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

/// A file each thread opens for itself.
struct FileSource<'a>(&'a Path);

impl Source for FileSource<'_> {
    fn open_at(&self, offset: u64) -> std::io::Result<Box<dyn Read + Send + '_>> {
        let mut f = std::fs::File::open(self.0)?;
        f.seek(std::io::SeekFrom::Start(offset))?;
        Ok(Box::new(f))
    }
}

fn read_any(path: &Path, options: &Options) -> Result<Parsed, ParseErrors> {
    let mut f = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let mut opts = options.clone();
    let size = f.metadata().map_or(0, |m| m.len());
    opts.size_hint.get_or_insert(size);
    #[cfg(feature = "columnar")]
    if size <= opts.max_file_bytes {
        // Parquet / Arrow IPC are read whole (the footer is at the end): in one
        // read into a buffer of the file's size, not slice by slice
        let mut head = [0u8; 8];
        let n = f.read(&mut head).map_err(|e| io_error(path, e))?;
        if let Some(container) = crate::columnar::Container::of(&head[..n]) {
            let bytes = std::fs::read(path).map_err(|e| io_error(path, e))?;
            return crate::columnar::dataset(&display(path), container, bytes, &opts)
                .map(Parsed::Dataset);
        }
        f.rewind().map_err(|e| io_error(path, e))?;
    }
    let threads = parallel::threads(&opts);
    let mut p = Parser::new(display(path), opts);
    let mut buf = vec![0u8; CHUNK];
    let mut done = 0;
    // a file that may be read in parallel: the other threads start once the header
    // is read, so the first read is short
    let mut want = if threads > 1 && size >= parallel::MIN_BYTES {
        HEAD
    } else {
        CHUNK
    };
    loop {
        let n = f.read(&mut buf[..want]).map_err(|e| io_error(path, e))?;
        if n == 0 || p.push(&buf[..n]).is_err() {
            break;
        }
        done += n as u64;
        want = CHUNK;
        if parallel::eligible(&p, size, threads) {
            // the header is read: the rest in parallel
            let src = FileSource(path);
            let parts = parallel::parts(size, threads);
            let splits =
                parallel::split_points(&src, done, size, parts).map_err(|e| io_error(path, e))?;
            parallel::run(&mut p, &src, (done, size), &splits, threads, &mut buf)
                .map_err(|e| io_error(path, e))?;
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
/// dataset on the same samples ([`crate::combine`]); their labels must agree row by row.
pub fn open_paths(paths: &[PathBuf], options: &Options) -> Result<Dataset, ParseErrors> {
    let files = paths
        .iter()
        .map(|path| (path.to_string_lossy().into_owned(), read_any(path, options)))
        .collect();
    crate::assemble(files, options)
}
