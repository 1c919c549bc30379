//! Typed, located parse errors.
//!
//! Every malformed input yields [`ParseError`]s that carry the file, where in it
//! (data row, text line, column, byte offset, npz member, model) and a sentence a
//! person can act on. Codes ([`ErrorCode::code`]) are stable: the UI and the CLI map
//! them to their own texts if they wish.

use std::fmt;

use calibscope_core::InputErrorKind;

use crate::Dataset;

/// Declares [`ErrorCode`] with its stable strings and [`ErrorCode::ALL`] from one
/// list, so a new code cannot be left out of either.
macro_rules! error_codes {
    ($($(#[$doc:meta])* $variant:ident => $code:literal,)*) => {
        /// What went wrong. [`ErrorCode::code`] gives the stable string.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[$doc])* $variant,)*
        }

        impl ErrorCode {
            /// Every code, in declaration order (the UI's and the CLI's completeness
            /// tests walk it).
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];

            /// Stable code used in JSON and by the UI.
            pub fn code(self) -> &'static str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                }
            }
        }
    };
}

error_codes! {
    // --- the contract's input errors (METRICS.md §1), from `PredictionSet::validate`
    /// A NaN, infinite or missing (empty) score.
    NanOrInf => "nan_or_inf",
    /// A probability outside `[0, 1]`.
    ProbOutOfRange => "prob_out_of_range",
    /// A probability row that does not sum to 1 within `1e-3`.
    RowSum => "row_sum",
    /// A label outside `0..k` (or negative, or not one of the class names).
    LabelOutOfRange => "label_out_of_range",
    // --- whole-file problems
    /// The file has no bytes (or only whitespace).
    EmptyFile => "empty_file",
    /// The content is not a format this crate reads (gzip, UTF-16, binary ...).
    UnknownFormat => "unknown_format",
    /// Text that is not UTF-8 where text is needed (header, class names, labels).
    NotUtf8 => "not_utf8",
    /// A header row and no data.
    HeaderOnly => "header_only",
    /// The first line looks like data: a header row is required.
    NoHeader => "no_header",
    /// A record longer than [`crate::Options::max_record_bytes`].
    RecordTooLong => "record_too_long",
    /// A file larger than [`crate::Options::max_file_bytes`] (refused before reading).
    FileTooLarge => "file_too_large",
    /// More values (rows × score columns) than [`crate::Options::max_cells`]
    /// (refused before allocating them).
    TooManyCells => "too_many_cells",
    /// Two columns with the same name.
    DuplicateColumn => "duplicate_column",
    /// No column recognised as the label.
    MissingLabelColumn => "missing_label_column",
    /// No column recognised as scores (probabilities, logits or top-label).
    MissingScoreColumns => "missing_score_columns",
    /// A column named in the [`crate::ColumnMapping`] does not exist.
    MappingColumnMissing => "mapping_column_missing",
    /// The column mapping is inconsistent (e.g. one matrix column).
    InvalidMapping => "invalid_mapping",
    // --- row-level problems
    /// A row with a different number of fields than the header.
    RaggedRow => "ragged_row",
    /// A score that is not a number.
    BadNumber => "bad_number",
    /// A label that is not an integer, a boolean or a class name.
    BadLabel => "bad_label",
    /// Integer labels mixed with class-name labels.
    MixedLabelTypes => "mixed_label_types",
    // --- multi-model
    /// Models with different numbers of rows.
    ModelLengthMismatch => "model_length_mismatch",
    /// Models whose labels (or ids) differ at some row.
    ModelLabelMismatch => "model_label_mismatch",
    /// Files that cannot be combined (different classes, ...).
    IncompatibleFiles => "incompatible_files",
    // --- JSON
    /// Malformed JSON.
    JsonSyntax => "json_syntax",
    /// Valid JSON of an unexpected shape.
    JsonShape => "json_shape",
    // --- NumPy
    /// Not a `.npy` (bad magic or version).
    NpyBadMagic => "npy_bad_magic",
    /// The `.npy` header dictionary cannot be read.
    NpyBadHeader => "npy_bad_header",
    /// A dtype this crate does not read (strings, objects, complex, long double).
    NpyUnsupportedDtype => "npy_unsupported_dtype",
    /// A shape this crate does not read (0-d, 3-d ...).
    NpyUnsupportedShape => "npy_unsupported_shape",
    /// The data is shorter than the header declares.
    NpyTruncated => "npy_truncated",
    /// Bytes after the declared data.
    NpyTrailingData => "npy_trailing_data",
    /// A plain array without labels (give the `NAME.labels.npy` too).
    NpyNeedsPair => "npy_needs_pair",
    /// Arrays of one prediction set with different lengths.
    LengthMismatch => "length_mismatch",
    // --- npz / zip
    /// Not a readable zip archive.
    ZipBad => "zip_bad",
    /// A compression method other than stored / deflate, or encryption.
    ZipUnsupported => "zip_unsupported",
    /// The archive ends before its central directory.
    ZipTruncated => "zip_truncated",
    /// A member's CRC-32 does not match.
    ZipCrc => "zip_crc",
    /// A member inflates beyond its declared size or the configured limit (zip bomb).
    ZipTooLarge => "zip_too_large",
    /// A zip archive without members.
    ZipEmpty => "zip_empty",
    // --- detection
    /// Errors explained by a detected reading of the columns, summarised as one
    /// question; [`ParseError::candidates`] holds the mappings that would fit.
    MappingGuess => "mapping_guess",
    // --- compressed input
    /// A gzip or zstd stream that is corrupt or ends early.
    CompressedBad => "compressed_bad",
    // --- Parquet and Arrow IPC
    /// A Parquet or Arrow IPC file that cannot be read (bad magic, truncated
    /// footer, corrupt page).
    ColumnarBad => "columnar_bad",
    /// A Parquet or Arrow IPC file this build does not read: a codec (brotli,
    /// LZO), a column type, a layout (a long-format `model` column), or Parquet in
    /// a build without the reader.
    ColumnarUnsupported => "columnar_unsupported",
}

impl ErrorCode {
    /// The contract's input-error kind, for the four kinds of METRICS.md §1.
    pub fn input_kind(self) -> Option<InputErrorKind> {
        match self {
            ErrorCode::NanOrInf => Some(InputErrorKind::NanOrInf),
            ErrorCode::ProbOutOfRange => Some(InputErrorKind::ProbOutOfRange),
            ErrorCode::RowSum => Some(InputErrorKind::RowSum),
            ErrorCode::LabelOutOfRange => Some(InputErrorKind::LabelOutOfRange),
            _ => None,
        }
    }

    pub(crate) fn from_input(kind: InputErrorKind) -> ErrorCode {
        match kind {
            InputErrorKind::NanOrInf => ErrorCode::NanOrInf,
            InputErrorKind::ProbOutOfRange => ErrorCode::ProbOutOfRange,
            InputErrorKind::RowSum => ErrorCode::RowSum,
            InputErrorKind::LabelOutOfRange => ErrorCode::LabelOutOfRange,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// Where in the input an error is. Every field is optional; the ones that apply to
/// the format are set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// 0-based data row of the file (the row after the header is row 0; for `.npy`
    /// the element index along the first axis). The fixtures' `row`.
    pub row: Option<u64>,
    /// 1-based text line (CSV / JSON).
    pub line: Option<u64>,
    /// Column, field, key or member-array name.
    pub column: Option<String>,
    /// Byte offset in the file (or in the npz member, see `member`).
    pub offset: Option<u64>,
    /// npz member name.
    pub member: Option<String>,
    /// Model name (long format / several files).
    pub model: Option<String>,
    /// 0-based sample index within `model` (long format: differs from `row`).
    pub sample: Option<u64>,
}

impl Location {
    pub(crate) fn row(row: u64) -> Self {
        Location {
            row: Some(row),
            ..Default::default()
        }
    }
    pub(crate) fn offset(offset: u64) -> Self {
        Location {
            offset: Some(offset),
            ..Default::default()
        }
    }
    pub(crate) fn with_line(mut self, line: Option<u64>) -> Self {
        self.line = line;
        self
    }
    pub(crate) fn with_column(mut self, column: impl Into<String>) -> Self {
        self.column = Some(column.into());
        self
    }
    pub(crate) fn with_member(mut self, member: Option<String>) -> Self {
        self.member = member;
        self
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let Some(m) = &self.member {
            parts.push(format!("member {m:?}"));
        }
        if let Some(l) = self.line {
            parts.push(format!("line {l}"));
        }
        if let Some(r) = self.row {
            parts.push(format!("row {r}"));
        }
        if let Some(m) = &self.model {
            match self.sample {
                Some(s) => parts.push(format!("model {m:?} sample {s}")),
                None => parts.push(format!("model {m:?}")),
            }
        }
        if let Some(c) = &self.column {
            parts.push(format!("column {c:?}"));
        }
        if let Some(o) = self.offset {
            parts.push(format!("byte {o}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// One located error.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    /// What went wrong (stable code).
    pub code: ErrorCode,
    /// File name as given to the parser.
    pub file: String,
    /// Where.
    pub location: Location,
    /// A sentence a person can act on (without the location prefix).
    pub message: String,
    /// Mappings that would read the file as the message suggests (for
    /// [`ErrorCode::MappingGuess`]; empty otherwise): the app offers each as a
    /// button, the CLI prints its flags.
    pub candidates: Vec<Candidate>,
}

/// A mapping offered instead of a detected one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// What it reads, as a short answer to the question (`10 classes p0..p9`).
    pub says: String,
    /// The mapping to read the file with.
    pub mapping: crate::ColumnMapping,
}

impl ParseError {
    pub(crate) fn new(
        code: ErrorCode,
        file: &str,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        ParseError {
            code,
            file: file.to_string(),
            location,
            message: message.into(),
            candidates: Vec::new(),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = self.location.to_string();
        if loc.is_empty() {
            write!(f, "{}: {} [{}]", self.file, self.message, self.code)
        } else {
            write!(
                f,
                "{}: {}: {} [{}]",
                self.file, loc, self.message, self.code
            )
        }
    }
}

impl std::error::Error for ParseError {}

/// The errors of a failed parse: at most [`crate::Options::max_errors`] per file
/// (`more` counts those left out), sorted by position. When the file could be read
/// but its values break the contract (NaN, row sums, labels out of range ...),
/// `dataset` holds what was read, so a caller may still show it.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseErrors {
    /// The errors, in file order.
    pub errors: Vec<ParseError>,
    /// How many further errors were found and not kept.
    pub more: usize,
    /// The parsed data when only contract-level (value) errors occurred.
    pub dataset: Option<Box<Dataset>>,
    /// The columns found when the header was read but could not be mapped (so a
    /// person can pick the label and score columns by hand); empty otherwise.
    pub columns: Vec<String>,
}

impl ParseErrors {
    pub(crate) fn single(e: ParseError) -> Self {
        ParseErrors {
            errors: vec![e],
            more: 0,
            dataset: None,
            columns: Vec::new(),
        }
    }
    /// The `(row, kind)` pairs of the contract's input errors, as in the fixtures.
    pub fn input_errors(&self) -> Vec<(u64, InputErrorKind)> {
        self.errors
            .iter()
            .filter_map(|e| Some((e.location.row?, e.code.input_kind()?)))
            .collect()
    }
    /// The distinct error codes, in order of first appearance.
    pub fn codes(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = Vec::new();
        for e in &self.errors {
            if !v.contains(&e.code.code()) {
                v.push(e.code.code());
            }
        }
        v
    }
}

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        if self.more > 0 {
            write!(f, "\n... and {} more errors", self.more)?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseErrors {}

/// Collects at most `max` errors, counting the rest.
#[derive(Clone, Debug)]
pub(crate) struct Sink {
    pub file: String,
    pub errors: Vec<ParseError>,
    pub more: usize,
    pub max: usize,
    /// The columns of a header that could not be mapped.
    pub columns: Vec<String>,
}

impl Sink {
    pub fn new(file: &str, max: usize) -> Self {
        Sink {
            file: file.to_string(),
            errors: Vec::new(),
            more: 0,
            max: max.max(1),
            columns: Vec::new(),
        }
    }
    pub fn push(&mut self, code: ErrorCode, location: Location, message: impl Into<String>) {
        self.keep(|file| ParseError::new(code, file, location, message));
    }
    /// Keeps the errors of a header that could not be mapped
    /// (`crate::mapping::plan`): remembers its columns, and each error at `at` with
    /// the error's column.
    pub fn push_plan_errors(
        &mut self,
        cols: &[crate::mapping::Col],
        errs: Vec<crate::mapping::PlanError>,
        at: Location,
    ) {
        self.columns = cols.iter().map(|c| c.name.clone()).collect();
        for e in errs {
            let loc = Location {
                column: e.column,
                ..at.clone()
            };
            self.push(e.code, loc, e.message);
        }
    }
    /// Keeps an error made elsewhere (within the limit, as [`Sink::push`]).
    #[cfg(not(target_family = "wasm"))]
    pub fn push_error(&mut self, e: ParseError) {
        self.keep(|_| e);
    }
    /// Keeps the error `make` makes (from the file's name) while fewer than `max`
    /// are kept; counts it in `more`, without making it, otherwise.
    fn keep(&mut self, make: impl FnOnce(&str) -> ParseError) {
        if self.errors.len() < self.max {
            let e = make(&self.file);
            self.errors.push(e);
        } else {
            self.more += 1;
        }
    }
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty() && self.more == 0
    }
    pub fn into_errors(self, dataset: Option<Box<Dataset>>) -> ParseErrors {
        ParseErrors {
            errors: self.errors,
            more: self.more,
            dataset,
            columns: self.columns,
        }
    }
}

#[cfg(test)]
mod code_tests {
    use super::ErrorCode;

    #[test]
    fn every_code_is_listed_once_with_a_distinct_snake_case_string() {
        let mut seen = std::collections::BTreeSet::new();
        for c in ErrorCode::ALL {
            let s = c.code();
            assert!(
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit()),
                "{c:?}: {s}"
            );
            assert!(seen.insert(s), "{s} is used twice");
        }
        assert!(ErrorCode::ALL.contains(&ErrorCode::CompressedBad));
    }
}
