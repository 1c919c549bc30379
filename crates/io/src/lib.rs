//! # calibscope-io
//!
//! Reading the prediction files people export from numpy, PyTorch, pandas,
//! scikit-learn or an LLM eval harness into the core's [`PredictionSet`]s.
//!
//! Formats are sniffed by content, never by file name:
//! - CSV / TSV / semicolon-separated text with a header row (RFC 4180 quoting, UTF-8
//!   with or without BOM, CRLF or LF); one model per file, or long format with a
//!   `model` column;
//! - JSON: an array of records, JSON Lines, or an object of columns;
//! - NumPy `.npy` (versions 1–3, either byte order, C or Fortran order), including
//!   structured arrays whose field names follow the CSV header;
//! - NumPy pairs `NAME.labels.npy` + `NAME.probs.npy` / `NAME.logits.npy`;
//! - `.npz` archives (stored or deflated members) with `labels` + `probs` / `logits`;
//! - Apache Parquet and Arrow IPC / Feather files (feature `columnar`, on by
//!   default), read by the Apache Arrow crates.
//!
//! Everything goes through the push [`Parser`]: bytes in slices of any size, the
//! same [`Dataset`] whatever the slice boundaries. CSV and `.npy` stream (memory is
//! the columns, not the text); `.npz` streams its members through a local-header
//! reader (no central-directory seek); JSON is buffered whole (documented limit).
//! A large CSV file read from a path ([`read_path`]) is parsed on every core, with
//! the serial parse's result ([`Options::threads`]).
//!
//! ```
//! use calibscope_io::{Options, Parser};
//! let csv = b"label,p_0,p_1,p_2\n0,0.7,0.2,0.1\n2,0.1,0.1,0.8\n";
//! let mut p = Parser::new("demo.csv", Options::default());
//! for chunk in csv.chunks(7) {
//!     p.push(chunk).unwrap();
//! }
//! let ds = p.finish().unwrap();
//! assert_eq!(ds.models[0].1.n(), 2);
//! assert_eq!(ds.models[0].1.k, 3);
//! assert_eq!(ds.class_names, ["0", "1", "2"]);
//! ```

mod assemble;
#[cfg(feature = "columnar")]
mod columnar;
mod compress;
mod csv;
mod decimal;
mod delimited;
pub mod error;
#[doc(hidden)]
pub mod fuzz;
mod json;
pub mod limits;
pub mod mapping;
pub mod multilabel;
mod npy;
mod npz;
mod num;
mod pages;
mod request;
mod table;
pub mod verbal;

#[cfg(not(target_family = "wasm"))]
mod fs;
pub mod groups;

pub use assemble::{assemble, combine, pair_role};
pub(crate) use assemble::{check_same_samples, stem};
pub use calibscope_core::{PredictionSet, Source};
pub use error::{Candidate, ErrorCode, Location, ParseError, ParseErrors};
pub use groups::Groups;
pub use mapping::{
    ColumnMapping, Detection, Guess, LabelPair, Pick, Ragged, ScoreColumns, VerbalColumns,
    RAGGED_GAP,
};
pub use npy::NpyArray;
pub use request::MappingRequest;

#[cfg(feature = "columnar")]
pub use columnar::{column_names, table_as_csv};
#[cfg(not(target_family = "wasm"))]
pub use fs::{open_paths, read_path};

/// The input format of a dataset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// A text table with one model.
    Csv,
    /// A text table in long format: a `model` column, one row per (model, sample).
    CsvLong,
    /// JSON records or columns.
    Json,
    /// One `.npy` holding a structured array.
    Npy,
    /// `NAME.labels.npy` + `NAME.probs.npy` / `NAME.logits.npy`.
    NpyPair,
    /// A `.npz` archive.
    Npz,
    /// Several files combined into one multi-model set.
    MultiFile,
    /// An Apache Parquet file.
    Parquet,
    /// An Arrow IPC file or stream (Feather v2).
    ArrowIpc,
}

impl Format {
    /// The name used in the fixtures' `input.format`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Csv => "csv",
            Format::CsvLong => "csv-long",
            Format::Json => "json",
            Format::Npy => "npy",
            Format::NpyPair => "npy-pair",
            Format::Npz => "npz",
            Format::MultiFile => "multi-file",
            Format::Parquet => "parquet",
            Format::ArrowIpc => "arrow",
        }
    }
}

/// Sample ids from an `id` column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ids {
    /// Every id is an integer.
    Int(Vec<i64>),
    /// Text ids.
    Text(Vec<String>),
}

/// One or more models' predictions on the same samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Dataset {
    /// The input's name: file stem (`digits_rf_probs`), pair stem, or combined name.
    pub name: String,
    /// The file names read.
    pub files: Vec<String>,
    /// How the input was given.
    pub format: Format,
    /// `(model name, predictions)`, in file order. Every set has the same labels.
    /// A single-model file's model is named after the file stem.
    pub models: Vec<(String, PredictionSet)>,
    /// Sample ids, when the input has an id column (a multilabel table's pairs:
    /// their row's id, else their row's number; see [`multilabel`]).
    pub ids: Option<Ids>,
    /// Class names in class order (`"0".."k-1"` unless the columns named them).
    pub class_names: Vec<String>,
    /// What the columns were taken to be, with the guesses made.
    pub detection: Detection,
    /// Each sample's group, when the mapping names grouping columns
    /// ([`ColumnMapping::groups`]; an lm-evaluation-harness log's subject).
    pub groups: Option<Groups>,
}

impl Dataset {
    /// Number of samples.
    pub fn n(&self) -> usize {
        self.models.first().map_or(0, |m| m.1.n())
    }
    /// Bytes held by labels and scores of every model.
    pub fn byte_size(&self) -> usize {
        self.models.iter().map(|m| m.1.byte_size()).sum()
    }
}

/// Parser options.
#[derive(Clone, Debug)]
pub struct Options {
    /// Column mapping overrides (default: detect everything).
    pub mapping: ColumnMapping,
    /// At most this many errors are kept per file (default 100).
    pub max_errors: usize,
    /// Total input size when known (e.g. `File.size`): lets the parser size its
    /// columns once instead of growing them.
    pub size_hint: Option<u64>,
    /// Longest text record accepted (default 8 MiB).
    pub max_record_bytes: usize,
    /// Most bytes an `.npz` may inflate to, all members together (default 4 GiB);
    /// each member is also held to its declared size.
    pub max_decompressed: u64,
    /// Largest JSON document accepted (it is buffered whole; default 1 GiB).
    pub max_json_bytes: usize,
    /// Largest file accepted, in bytes (default: no limit). Checked against
    /// `size_hint` before the first byte is parsed, and against the bytes pushed.
    pub max_file_bytes: u64,
    /// Most values accepted (default: no limit): a table's rows × columns (all
    /// models), or the elements of one `.npy` array / `.npz` member. An array is
    /// refused from its header, a table as soon as its rows (or, with `size_hint`,
    /// its rows estimated from the first 1024) pass the limit, before the memory is
    /// reserved.
    pub max_cells: u64,
    /// Threads for reading a large CSV file from a path ([`read_path`],
    /// [`open_paths`]; 8 MiB and more, no `max_cells`): 0 (default) = one per
    /// core, 1 = serial. The result is the same whatever the number.
    pub threads: usize,
    /// The models of a long-format table need not list the same samples (default:
    /// they must, row for row, as every comparison of models needs). Set by
    /// `calibscope aggregate`, which sums each model on its own: models scored on
    /// different rows aggregate as an engine's query aggregates them. A data set
    /// read so breaks [`Dataset::models`]' same-labels rule: aggregate it, do not
    /// compare its models.
    pub unaligned_models: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            mapping: ColumnMapping::default(),
            max_errors: 100,
            size_hint: None,
            max_record_bytes: 8 << 20,
            max_decompressed: 4 << 30,
            max_json_bytes: 1 << 30,
            max_file_bytes: u64::MAX,
            max_cells: u64::MAX,
            threads: 0,
            unaligned_models: false,
        }
    }
}

/// The result of parsing one file: a dataset, or a plain NumPy array that needs its
/// pair (`NAME.labels.npy` + `NAME.probs.npy`).
#[derive(Clone, Debug, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Parsed {
    /// A complete dataset.
    Dataset(Dataset),
    /// A plain `.npy` array (labels or scores of a NumPy pair).
    Array(NpyArray),
}

const SNIFF_LIMIT: usize = 64 * 1024;

enum State {
    /// Buffering the start of the input; whether it has a newline yet.
    Sniff(Vec<u8>, bool),
    Csv(Box<csv::CsvStream>),
    Json(Box<json::JsonBuf>),
    Npy(Box<npy::NpyDecoder>),
    Npz(Box<npz::ZipStream>),
    Compressed(Box<compress::Decompress>),
    Verbal(Box<verbal::VerbalBuf>),
    Multilabel(Box<multilabel::MultilabelBuf>),
    /// A Parquet or Arrow IPC file, buffered whole (its footer is at the end).
    #[cfg(feature = "columnar")]
    Columnar(columnar::Container, Vec<u8>),
    Failed(ParseErrors),
    Done,
}

/// The push parser: feed byte slices of any size, then [`Parser::finish`].
///
/// CSV and `.npy` are parsed as the bytes arrive (memory: the columns plus one
/// record). `.npz` members are inflated and decoded as they arrive (local headers are
/// read in order, the central directory is skipped). JSON is buffered until
/// `finish` (up to [`Options::max_json_bytes`]).
pub struct Parser {
    name: String,
    opts: Options,
    state: State,
    bytes: u64,
}

impl Parser {
    /// A parser for the file `name` (used in errors and as the model name).
    pub fn new(name: impl Into<String>, options: Options) -> Self {
        Parser {
            name: name.into(),
            opts: options,
            state: State::Sniff(Vec::new(), false),
            bytes: 0,
        }
    }

    /// Bytes pushed so far.
    pub fn bytes_read(&self) -> u64 {
        self.bytes
    }

    /// Feeds the next slice. Returns `Err` as soon as the input cannot be read any
    /// further (bad header, not a known format ...); row-level errors are collected
    /// and returned by [`Parser::finish`]. After an `Err`, further pushes are
    /// ignored and `finish` returns the same errors.
    pub fn push(&mut self, data: &[u8]) -> Result<(), ParseErrors> {
        if matches!(self.state, State::Failed(_) | State::Done) {
            return self.check();
        }
        let size = self
            .opts
            .size_hint
            .unwrap_or(0)
            .max(self.bytes + data.len() as u64);
        if size > self.opts.max_file_bytes {
            self.state = State::Failed(ParseErrors::single(ParseError::new(
                ErrorCode::FileTooLarge,
                &self.name,
                Location::default(),
                limits::file_too_large(size, self.opts.max_file_bytes),
            )));
            return self.check();
        }
        self.bytes += data.len() as u64;
        let mut data = data;
        if let State::Sniff(buf, nl) = &mut self.state {
            let take = data.len().min(SNIFF_LIMIT.saturating_sub(buf.len()));
            *nl |= data[..take].contains(&b'\n');
            buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            match sniff(buf, *nl, false) {
                Sniffed::NeedMore => return Ok(()),
                s => {
                    let head = std::mem::take(buf);
                    self.start(s, &head);
                }
            }
        }
        self.feed(data);
        self.check()
    }

    fn start(&mut self, s: Sniffed, head: &[u8]) {
        let name = self.name.clone();
        let bom = match s {
            Sniffed::Csv(b) | Sniffed::Json(b) => b,
            _ => 0,
        };
        self.state = match s {
            Sniffed::NeedMore => unreachable!(),
            Sniffed::Empty => State::Failed(ParseErrors::single(ParseError::new(
                ErrorCode::EmptyFile,
                &name,
                Location::default(),
                "the file is empty",
            ))),
            Sniffed::Unknown(msg) => State::Failed(ParseErrors::single(ParseError::new(
                ErrorCode::UnknownFormat,
                &name,
                Location::default(),
                msg,
            ))),
            #[cfg(not(feature = "columnar"))]
            Sniffed::NoColumnarReader(msg) => State::Failed(ParseErrors::single(ParseError::new(
                ErrorCode::ColumnarUnsupported,
                &name,
                Location::default(),
                format!("this is {msg}"),
            ))),
            Sniffed::Npy => State::Npy(Box::new(npy::NpyDecoder::new(&name, None, &self.opts))),
            Sniffed::Zip => State::Npz(Box::new(npz::ZipStream::new(&name, &self.opts))),
            #[cfg(feature = "columnar")]
            Sniffed::Columnar(c) => State::Columnar(
                c,
                Vec::with_capacity(self.opts.size_hint.unwrap_or(0).min(1 << 34) as usize),
            ),
            Sniffed::Compressed(codec) => State::Compressed(Box::new(compress::Decompress::new(
                codec, &name, &self.opts,
            ))),
            Sniffed::Json(bom) => State::Json(Box::new(json::JsonBuf::new(&name, bom, &self.opts))),
            // a verbalised-confidence table: the columns the mapping names, or
            // detected from its header when the mapping says nothing else
            Sniffed::Csv(bom) if self.opts.mapping.verbal.is_some() => {
                let columns = self.opts.mapping.verbal.as_ref().expect("matched");
                let delim = verbal::delimiter_for(&head[bom..], &self.opts.mapping, columns);
                State::Verbal(Box::new(verbal::VerbalBuf::new(&name, &self.opts, delim)))
            }
            Sniffed::Csv(bom)
                if self.opts.mapping.only_grouping() && verbal::detect(&head[bom..]).is_some() =>
            {
                let delim = verbal::detect(&head[bom..]).unwrap_or(b',');
                State::Verbal(Box::new(verbal::VerbalBuf::new(&name, &self.opts, delim)))
            }
            // a multilabel table: the pairs the mapping names, or detected from its
            // header when the mapping says nothing else
            Sniffed::Csv(bom) if self.opts.mapping.multilabel.is_some() => {
                let pairs = self.opts.mapping.multilabel.as_ref().expect("matched");
                let delim = multilabel::delimiter_for(&head[bom..], &self.opts.mapping, pairs);
                State::Multilabel(Box::new(multilabel::MultilabelBuf::new(
                    &name, &self.opts, delim,
                )))
            }
            Sniffed::Csv(bom)
                if self.opts.mapping.only_grouping()
                    && multilabel::detect(&head[bom..]).is_some() =>
            {
                let delim = multilabel::detect(&head[bom..]).unwrap_or(b',');
                State::Multilabel(Box::new(multilabel::MultilabelBuf::new(
                    &name, &self.opts, delim,
                )))
            }
            Sniffed::Csv(bom) => State::Csv(Box::new(csv::CsvStream::new(
                &name,
                &self.opts,
                &head[bom..],
            ))),
        };
        self.feed(&head[bom.min(head.len())..]);
    }

    fn feed(&mut self, data: &[u8]) {
        if data.is_empty() {
            return;
        }
        match &mut self.state {
            State::Csv(c) => c.push(data),
            State::Json(j) => j.push(data),
            State::Npy(n) => n.push(data),
            State::Npz(z) => z.push(data),
            State::Compressed(z) => z.push(data),
            State::Verbal(v) => v.push(data),
            State::Multilabel(v) => v.push(data),
            #[cfg(feature = "columnar")]
            State::Columnar(_, buf) => buf.extend_from_slice(data),
            _ => {}
        }
    }

    fn check(&mut self) -> Result<(), ParseErrors> {
        let failed = match &self.state {
            State::Csv(c) => c.failed(),
            State::Json(j) => j.failed(),
            State::Npy(n) => n.failed(),
            State::Npz(z) => z.failed(),
            State::Compressed(z) => z.failed(),
            State::Failed(e) => return Err(e.clone()),
            _ => false,
        };
        if failed {
            let e = match std::mem::replace(&mut self.state, State::Done) {
                State::Csv(c) => c.finish().err(),
                State::Json(j) => j.finish().err(),
                State::Npy(n) => n.finish_array().err(),
                State::Npz(z) => z.finish().err(),
                State::Compressed(z) => z.finish_any().err(),
                _ => None,
            }
            .unwrap_or_else(|| ParseErrors {
                errors: Vec::new(),
                more: 0,
                dataset: None,
                columns: Vec::new(),
            });
            self.state = State::Failed(e.clone());
            return Err(e);
        }
        Ok(())
    }

    /// Ends the input: the dataset, or every error found (up to the limit).
    pub fn finish(self) -> Result<Dataset, ParseErrors> {
        let name = self.name.clone();
        match self.finish_any()? {
            Parsed::Dataset(d) => Ok(d),
            Parsed::Array(a) => Err(ParseErrors::single(ParseError::new(
                ErrorCode::NpyNeedsPair,
                &name,
                Location::default(),
                format!(
                    "this .npy holds a plain {} array without labels; save labels and scores as a pair (NAME.labels.npy + NAME.probs.npy or NAME.logits.npy) and open both, or save a structured array with a label field",
                    a.shape_text()
                ),
            ))),
        }
    }

    /// Like [`Parser::finish`], but a plain `.npy` array is returned as such (for
    /// [`npy_pair`]).
    pub fn finish_any(mut self) -> Result<Parsed, ParseErrors> {
        if let State::Sniff(buf, _) = &mut self.state {
            let head = std::mem::take(buf);
            let s = sniff(&head, true, true);
            self.start(s, &head);
        }
        match std::mem::replace(&mut self.state, State::Done) {
            State::Sniff(..) | State::Done => unreachable!(),
            State::Failed(e) => Err(e),
            State::Csv(c) => c.finish().map(Parsed::Dataset),
            State::Json(j) => j.finish().map(Parsed::Dataset),
            State::Npy(n) => {
                let a = n.finish_array()?;
                if a.is_structured() {
                    npy::structured_dataset(&self.name, a, &self.opts).map(Parsed::Dataset)
                } else {
                    Ok(Parsed::Array(a))
                }
            }
            State::Npz(z) => z.finish().map(Parsed::Dataset),
            State::Compressed(z) => z.finish_any(),
            State::Verbal(v) => v.finish().map(Parsed::Dataset),
            State::Multilabel(v) => v.finish().map(Parsed::Dataset),
            #[cfg(feature = "columnar")]
            State::Columnar(c, bytes) => {
                columnar::dataset(&self.name, c, bytes, &self.opts).map(Parsed::Dataset)
            }
        }
    }
}

enum Sniffed {
    NeedMore,
    Empty,
    Unknown(String),
    Npy,
    Zip,
    Compressed(compress::Codec),
    #[cfg(feature = "columnar")]
    Columnar(columnar::Container),
    /// Parquet or Arrow IPC in a build without their reader: what to do instead.
    #[cfg(not(feature = "columnar"))]
    NoColumnarReader(&'static str),
    /// JSON; the BOM length to skip.
    Json(usize),
    /// CSV; the BOM length to skip.
    Csv(usize),
}

/// What a build without the Parquet reader (the web page) says of a Parquet file.
#[cfg(not(feature = "columnar"))]
const PARQUET: &str = "a Parquet file, which the web page does not read yet; audit it with the calibscope command-line tool (calibscope audit FILE.parquet), or write the predictions as CSV (df.to_csv) or .npz";
/// The same for an Arrow IPC (Feather) file or stream.
#[cfg(not(feature = "columnar"))]
const ARROW_IPC: &str = "an Arrow IPC (Feather) file, which the web page does not read yet; audit it with the calibscope command-line tool (calibscope audit FILE.feather), or write the predictions as CSV (df.to_csv) or .npz";

/// A Parquet or Arrow IPC magic, read by the `columnar` reader.
#[cfg(feature = "columnar")]
fn columnar_magic(magic: &[u8]) -> Option<Sniffed> {
    columnar::Container::of(magic).map(Sniffed::Columnar)
}

/// A Parquet or Arrow IPC magic in a build without their reader: refused with
/// what to do instead.
#[cfg(not(feature = "columnar"))]
fn columnar_magic(magic: &[u8]) -> Option<Sniffed> {
    let says = match magic {
        b"PAR1" => PARQUET,
        b"ARROW1" | b"\xff\xff\xff\xff" => ARROW_IPC,
        _ => return None,
    };
    Some(Sniffed::NoColumnarReader(says))
}

fn sniff(buf: &[u8], has_newline: bool, at_end: bool) -> Sniffed {
    if buf.is_empty() {
        return if at_end {
            Sniffed::Empty
        } else {
            Sniffed::NeedMore
        };
    }
    // a zstd skippable frame first (as pzstd writes): 0x184D2A5? little-endian
    if buf.len() >= 4 && buf[0] & 0xf0 == 0x50 && buf[1..4] == [0x2a, 0x4d, 0x18] {
        return Sniffed::Compressed(compress::Codec::Zstd);
    }
    let magic: &[(&[u8], Option<&str>)] = &[
        (b"\x93NUMPY", None),
        (b"PK\x03\x04", None),
        (b"PK\x05\x06", None),
        (b"PK\x06\x06", None),
        (b"\x1f\x8b", None),
        (b"BZh", Some("a bzip2-compressed file; decompress it first (bunzip2), or compress it with gzip or zstd, which are read as they are")),
        (b"\x28\xb5\x2f\xfd", None),
        // UTF-32 before UTF-16: the little-endian BOMs share their first two bytes
        (b"\xff\xfe\x00\x00", Some("UTF-32 text; save the file as UTF-8")),
        (b"\x00\x00\xfe\xff", Some("UTF-32 text; save the file as UTF-8")),
        (b"\xff\xfe", Some("UTF-16 text; save the file as UTF-8")),
        (b"\xfe\xff", Some("UTF-16 text; save the file as UTF-8")),
        (b"\x80\x02", Some("a Python pickle (torch.save / pickle.dump); save the arrays with np.save or as CSV instead")),
        (b"\x80\x03", Some("a Python pickle (torch.save / pickle.dump); save the arrays with np.save or as CSV instead")),
        (b"\x80\x04", Some("a Python pickle (torch.save / pickle.dump); save the arrays with np.save or as CSV instead")),
        (b"\x89HDF", Some("an HDF5 file; export the predictions as .npy, .npz or CSV")),
        (b"PAR1", None),
        (b"ARROW1", None),
        (b"\xff\xff\xff\xff", None),
    ];
    for (m, msg) in magic {
        let n = m.len().min(buf.len());
        if buf[..n] == m[..n] {
            if n < m.len() && !at_end {
                return Sniffed::NeedMore;
            }
            if n == m.len() {
                if let Some(s) = columnar_magic(m) {
                    return s;
                }
                return match (msg, m[0]) {
                    (Some(msg), _) => Sniffed::Unknown(format!("this is {msg}")),
                    (None, b'P') => Sniffed::Zip,
                    (None, 0x1f) => Sniffed::Compressed(compress::Codec::Gzip),
                    (None, 0x28) => Sniffed::Compressed(compress::Codec::Zstd),
                    (None, _) => Sniffed::Npy,
                };
            }
        }
    }
    let bom = if buf.starts_with(b"\xef\xbb\xbf") {
        3
    } else {
        0
    };
    if !at_end && buf.len() < 3 && b"\xef\xbb\xbf".starts_with(buf) {
        return Sniffed::NeedMore;
    }
    let text = &buf[bom..];
    match text.iter().find(|b| !b.is_ascii_whitespace()) {
        None => {
            if at_end {
                Sniffed::Empty
            } else {
                Sniffed::NeedMore
            }
        }
        Some(b'[') | Some(b'{') => Sniffed::Json(bom),
        Some(_) => {
            // wait for the first line and 4 KiB (or the end): the same decision
            // whatever the slice boundaries
            if at_end || (has_newline && buf.len() >= 4096) || buf.len() >= SNIFF_LIMIT {
                if text.iter().take(4096).filter(|&&b| b == 0).count() > 0 {
                    return Sniffed::Unknown(
                        "this is a binary file, not CSV, JSON, .npy or .npz".into(),
                    );
                }
                Sniffed::Csv(bom)
            } else {
                Sniffed::NeedMore
            }
        }
    }
}

/// Parses a whole file held in memory (same result as pushing it in slices).
pub fn parse_bytes(name: &str, bytes: &[u8], options: &Options) -> Result<Dataset, ParseErrors> {
    let mut opts = options.clone();
    opts.size_hint.get_or_insert(bytes.len() as u64);
    let mut p = Parser::new(name, opts);
    let _ = p.push(bytes);
    p.finish()
}

/// Parses a whole file held in memory; a plain `.npy` array comes back as
/// [`Parsed::Array`].
pub fn parse_bytes_any(name: &str, bytes: &[u8], options: &Options) -> Result<Parsed, ParseErrors> {
    let mut opts = options.clone();
    opts.size_hint.get_or_insert(bytes.len() as u64);
    let mut p = Parser::new(name, opts);
    let _ = p.push(bytes);
    p.finish_any()
}

pub use npy::npy_pair;
