//! NumPy `.npy`: a streaming decoder (format versions 1–3, either byte order,
//! f2/f4/f8, i1–i8, u1–u8, bool, C or Fortran order, structured arrays), and the
//! assembly of arrays (structured fields, NumPy pairs, `.npz` members) into datasets.

use calibscope_core::{PredictionSet, Scores, Source, Values};

use crate::error::{Location, Sink};
use crate::mapping::{plan, Col, PlanScores, SourceChoice};
use crate::num::{fmt_num, ClassKind, LabelReader, MAX_CLASS, MAX_TOPLABEL_CLASS};
use crate::pages::reserve_exact_on_huge_pages;
use crate::{Dataset, ErrorCode, Format, Ids, Options, ParseError, ParseErrors};

mod assembly;
mod header;
mod runs;

pub use assembly::npy_pair;
#[cfg(feature = "columnar")]
pub(crate) use assembly::ArrCol;
pub(crate) use assembly::{array_cols, assemble, structured_dataset};
use header::{interpret, Header, LitParser};
use runs::{float_runs, Run};

/// Decoded values of one array or field.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Column {
    F32(Vec<f32>),
    F64(Vec<f64>),
    Int(Vec<i64>),
    /// Text values (a Parquet / Arrow string column; never from NumPy).
    #[cfg_attr(not(feature = "columnar"), allow(dead_code))]
    Text(Vec<String>),
    /// A column of a type that is not read (a Parquet / Arrow date, binary ...):
    /// its type's name and its number of rows. An error if the mapping uses it.
    #[cfg_attr(not(feature = "columnar"), allow(dead_code))]
    Other {
        type_name: String,
        rows: usize,
    },
}

impl Column {
    pub(crate) fn len(&self) -> usize {
        match self {
            Column::F32(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Int(v) => v.len(),
            Column::Text(v) => v.len(),
            Column::Other { rows, .. } => *rows,
        }
    }
    /// The `i`-th value as a number (NaN for text and unread types).
    pub(crate) fn get(&self, i: usize) -> f64 {
        match self {
            Column::F32(v) => v[i] as f64,
            Column::F64(v) => v[i],
            Column::Int(v) => v[i] as f64,
            Column::Text(_) | Column::Other { .. } => f64::NAN,
        }
    }
    fn reserve(&mut self, n: usize) {
        match self {
            Column::F32(v) => reserve_exact_on_huge_pages(v, n),
            Column::F64(v) => reserve_exact_on_huge_pages(v, n),
            Column::Int(v) => reserve_exact_on_huge_pages(v, n),
            Column::Text(v) => v.reserve_exact(n),
            Column::Other { .. } => {}
        }
    }
    /// The values as numbers (NaN for text and unread types, which
    /// [`assemble`] refuses as scores before asking for them).
    fn into_values(self) -> Values {
        match self {
            Column::F32(v) => Values::F32(v),
            Column::F64(v) => Values::F64(v),
            Column::Int(v) => Values::F64(v.into_iter().map(|x| x as f64).collect()),
            other => Values::F64(vec![f64::NAN; other.len()]),
        }
    }
    /// What the column holds, for messages: `None` for numbers.
    fn not_numbers(&self) -> Option<String> {
        match self {
            Column::Text(_) => Some("text".into()),
            Column::Other { type_name, .. } => Some(format!("values of type {type_name}")),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    F,
    I,
    U,
    B,
    /// padding (`V` with an empty name)
    Skip,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Scalar {
    kind: Kind,
    size: usize,
    big: bool,
}

#[derive(Clone, Debug, PartialEq)]
struct Field {
    name: String,
    ty: Scalar,
    offset: usize,
    /// elements per record (sub-array size; 1 for a scalar field)
    count: usize,
    descr: String,
    data: Column,
}

/// A decoded `.npy` array: a plain array (one unnamed field, `width` columns) or a
/// structured array (one field per name).
#[derive(Clone, Debug, PartialEq)]
pub struct NpyArray {
    file: String,
    shape: Vec<u64>,
    structured: bool,
    fortran: bool,
    fields: Vec<Field>,
    /// blocks of adjacent float fields (their fields' own `data` stay empty)
    runs: Vec<Run>,
}

impl NpyArray {
    /// The declared shape.
    pub fn shape(&self) -> &[u64] {
        &self.shape
    }
    /// True for a structured array (named fields).
    pub fn is_structured(&self) -> bool {
        self.structured
    }
    /// Rows (first axis).
    pub fn rows(&self) -> usize {
        self.shape.first().copied().unwrap_or(0) as usize
    }
    /// Bytes held by the decoded values.
    pub fn byte_size(&self) -> usize {
        let columns = self.fields.iter().map(|f| &f.data);
        columns
            .chain(self.runs.iter().map(|r| &r.data))
            .map(|c| match c {
                Column::F32(v) => v.len() * 4,
                Column::F64(v) => v.len() * 8,
                Column::Int(v) => v.len() * 8,
                Column::Text(v) => v.iter().map(|t| t.len() + 24).sum(),
                Column::Other { .. } => 0,
            })
            .sum()
    }
    /// Field names (empty name for a plain array).
    pub fn field_names(&self) -> Vec<String> {
        self.fields.iter().map(|f| f.name.clone()).collect()
    }
    pub(crate) fn shape_text(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        let descr = self
            .fields
            .iter()
            .map(|f| f.descr.clone())
            .collect::<Vec<_>>()
            .join(",");
        format!("{descr} ({})", dims.join("×"))
    }
}

// ---------------------------------------------------------------- data decoding

#[inline]
fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let man = (h & 0x3ff) as u32;
    let bits = if exp == 0 {
        if man == 0 {
            sign
        } else {
            // subnormal: normalise
            let p = 31 - man.leading_zeros();
            let m = (man << (23 - p)) & 0x7f_ffff;
            sign | ((p + 103) << 23) | m
        }
    } else if exp == 0x1f {
        sign | 0x7f80_0000 | (man << 13)
    } else {
        sign | ((exp + 127 - 15) << 23) | (man << 13)
    };
    f32::from_bits(bits)
}

macro_rules! strided {
    ($out:expr, $data:expr, $stride:expr, $off:expr, $count:expr, $n:literal, $conv:expr) => {{
        let out = $out;
        let data: &[u8] = $data;
        if $stride == $n && $off == 0 && $count == 1 {
            out.extend(data.chunks_exact($n).map(|c| {
                let b: [u8; $n] = c.try_into().unwrap();
                $conv(b)
            }));
        } else if $count == 1 {
            out.extend(data.chunks_exact($stride).map(|rec| {
                let b: [u8; $n] = rec[$off..$off + $n].try_into().unwrap();
                $conv(b)
            }));
        } else {
            for rec in data.chunks_exact($stride) {
                let f = &rec[$off..$off + $n * $count];
                out.extend(f.chunks_exact($n).map(|c| {
                    let b: [u8; $n] = c.try_into().unwrap();
                    $conv(b)
                }));
            }
        }
    }};
}

/// Bytes of records a structured array's fields are decoded over in turn (a
/// quarter of a typical L2 cache).
const STRUCTURED_CHUNK: usize = 64 << 10;

/// Appends the values of whole records in `data` to every field and run of `h`:
/// each in turn over a chunk of records that stays in the cache.
fn decode_records(h: &mut Header, data: &[u8]) {
    let rec = h.record.max(1);
    let chunk = (STRUCTURED_CHUNK / rec).max(1) * rec;
    let parts = if h.fields.len() == 1 {
        data.len().max(1)
    } else {
        chunk
    };
    for part in data.chunks(parts) {
        for (i, f) in h.fields.iter_mut().enumerate() {
            if !runs::in_run(&h.runs, i) {
                decode(&mut f.data, f.ty, part, rec, f.offset, f.count);
            }
        }
        for r in &mut h.runs {
            let f = &h.fields[r.first];
            decode(&mut r.data, f.ty, part, rec, f.offset, r.width);
        }
    }
}

/// Appends the field values of the whole records in `data`.
fn decode(col: &mut Column, ty: Scalar, data: &[u8], stride: usize, off: usize, count: usize) {
    let big = ty.big;
    match (col, ty.kind, ty.size) {
        (Column::F32(v), Kind::F, 4) => {
            if big {
                strided!(v, data, stride, off, count, 4, f32::from_be_bytes)
            } else {
                strided!(v, data, stride, off, count, 4, f32::from_le_bytes)
            }
        }
        (Column::F32(v), Kind::F, 2) => {
            if big {
                strided!(v, data, stride, off, count, 2, |b| f16_to_f32(
                    u16::from_be_bytes(b)
                ))
            } else {
                strided!(v, data, stride, off, count, 2, |b| f16_to_f32(
                    u16::from_le_bytes(b)
                ))
            }
        }
        (Column::F64(v), Kind::F, 8) => {
            if big {
                strided!(v, data, stride, off, count, 8, f64::from_be_bytes)
            } else {
                strided!(v, data, stride, off, count, 8, f64::from_le_bytes)
            }
        }
        (Column::Int(v), kind, size) => {
            let signed = kind == Kind::I;
            match (size, big, signed) {
                (1, _, true) => strided!(v, data, stride, off, count, 1, |b: [u8; 1]| b[0] as i8
                    as i64),
                (1, _, false) => strided!(v, data, stride, off, count, 1, |b: [u8; 1]| b[0] as i64),
                (2, false, true) => {
                    strided!(v, data, stride, off, count, 2, |b| i16::from_le_bytes(b)
                        as i64)
                }
                (2, true, true) => {
                    strided!(v, data, stride, off, count, 2, |b| i16::from_be_bytes(b)
                        as i64)
                }
                (2, false, false) => {
                    strided!(v, data, stride, off, count, 2, |b| u16::from_le_bytes(b)
                        as i64)
                }
                (2, true, false) => {
                    strided!(v, data, stride, off, count, 2, |b| u16::from_be_bytes(b)
                        as i64)
                }
                (4, false, true) => {
                    strided!(v, data, stride, off, count, 4, |b| i32::from_le_bytes(b)
                        as i64)
                }
                (4, true, true) => {
                    strided!(v, data, stride, off, count, 4, |b| i32::from_be_bytes(b)
                        as i64)
                }
                (4, false, false) => {
                    strided!(v, data, stride, off, count, 4, |b| u32::from_le_bytes(b)
                        as i64)
                }
                (4, true, false) => {
                    strided!(v, data, stride, off, count, 4, |b| u32::from_be_bytes(b)
                        as i64)
                }
                (8, false, true) => strided!(v, data, stride, off, count, 8, i64::from_le_bytes),
                (8, true, true) => strided!(v, data, stride, off, count, 8, i64::from_be_bytes),
                (8, false, false) => strided!(v, data, stride, off, count, 8, |b| {
                    i64::try_from(u64::from_le_bytes(b)).unwrap_or(i64::MAX)
                }),
                (8, true, false) => strided!(v, data, stride, off, count, 8, |b| {
                    i64::try_from(u64::from_be_bytes(b)).unwrap_or(i64::MAX)
                }),
                _ => {}
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- streaming decoder

enum DState {
    Preamble(Vec<u8>),
    Data,
    Failed,
}

/// Streaming `.npy` decoder.
pub(crate) struct NpyDecoder {
    pub sink: Sink,
    member: Option<String>,
    state: DState,
    header: Option<Header>,
    carry: Vec<u8>,
    /// data bytes received
    received: u64,
    /// file offset where the data starts
    data_start: u64,
    size_hint: Option<u64>,
    max_cells: u64,
    trailing: bool,
}

const MAX_HEADER: usize = 1 << 20;

/// Bytes of magic + version + length + header, as far as `buf` tells.
fn preamble_need(buf: &[u8]) -> Result<usize, (ErrorCode, u64, String)> {
    if buf.len() < 8 {
        return Ok(8);
    }
    if &buf[..6] != b"\x93NUMPY" {
        return Err((
            ErrorCode::NpyBadMagic,
            0,
            "not a .npy file (bad magic bytes)".into(),
        ));
    }
    if !(1..=3).contains(&buf[6]) {
        return Err((
            ErrorCode::NpyBadMagic,
            6,
            format!(
                ".npy format version {}.{} is not supported (1.0 to 3.0 are)",
                buf[6], buf[7]
            ),
        ));
    }
    let hl = if buf[6] == 1 { 10 } else { 12 };
    if buf.len() < hl {
        return Ok(hl);
    }
    let len = if hl == 10 {
        u16::from_le_bytes([buf[8], buf[9]]) as usize
    } else {
        u32::from_le_bytes([buf[8], buf[9], buf[10], buf[11]]) as usize
    };
    if len > MAX_HEADER {
        return Err((
            ErrorCode::NpyBadHeader,
            8,
            format!("the .npy header claims {len} bytes; this is not a sane .npy"),
        ));
    }
    Ok(hl + len)
}

impl NpyDecoder {
    pub fn new(file: &str, member: Option<String>, opts: &Options) -> Self {
        NpyDecoder {
            sink: Sink::new(file, opts.max_errors),
            member,
            state: DState::Preamble(Vec::new()),
            header: None,
            carry: Vec::new(),
            received: 0,
            data_start: 0,
            size_hint: opts.size_hint,
            max_cells: opts.max_cells,
            trailing: false,
        }
    }

    pub fn failed(&self) -> bool {
        matches!(self.state, DState::Failed)
    }

    fn fail(&mut self, code: ErrorCode, offset: u64, msg: impl Into<String>) {
        let loc = Location::offset(offset).with_member(self.member.clone());
        self.sink.push(code, loc, msg);
        self.state = DState::Failed;
    }

    pub fn push(&mut self, mut data: &[u8]) {
        if let DState::Preamble(buf) = &mut self.state {
            loop {
                let need = match preamble_need(buf) {
                    Ok(n) => n,
                    Err((code, off, msg)) => {
                        self.fail(code, off, msg);
                        return;
                    }
                };
                if buf.len() >= need {
                    break;
                }
                let take = (need - buf.len()).min(data.len());
                buf.extend_from_slice(&data[..take]);
                data = &data[take..];
                if buf.len() < need {
                    return;
                }
            }
            let b = std::mem::take(buf);
            let start = if b[6] == 1 { 10 } else { 12 };
            self.data_start = b.len() as u64;
            let text = &b[start..];
            let mut lp = LitParser::new(text);
            let lit = match lp.value() {
                Ok(l) => l,
                Err(e) => {
                    self.fail(
                        ErrorCode::NpyBadHeader,
                        (start + lp.i) as u64,
                        format!("the .npy header cannot be read: {e}"),
                    );
                    return;
                }
            };
            match interpret(lit) {
                Ok(mut h) => {
                    let per_record: u64 = h.fields.iter().map(|f| f.count as u64).sum();
                    if crate::limits::over(h.records, per_record, self.max_cells) {
                        let cells = h.records.saturating_mul(per_record.max(1));
                        self.fail(
                            ErrorCode::TooManyCells,
                            start as u64,
                            crate::limits::too_many_cells(cells, self.max_cells, false),
                        );
                        return;
                    }
                    let total = h.records.saturating_mul(h.record as u64);
                    let fits_hint = self.size_hint.is_some_and(|s| total <= s);
                    let in_run: Vec<bool> = (0..h.fields.len())
                        .map(|i| runs::in_run(&h.runs, i))
                        .collect();
                    let counts = h
                        .fields
                        .iter_mut()
                        .zip(in_run)
                        .filter_map(|(f, in_run)| (!in_run).then_some((&mut f.data, f.count)));
                    let blocks = h.runs.iter_mut().map(|r| (&mut r.data, r.width));
                    for (data, count) in counts.chain(blocks) {
                        let want = h.records.saturating_mul(count as u64);
                        let cap = if fits_hint { want } else { want.min(1 << 20) };
                        data.reserve(cap as usize);
                    }
                    self.header = Some(h);
                    self.state = DState::Data;
                }
                Err((code, msg)) => {
                    self.fail(code, start as u64, msg);
                    return;
                }
            }
        }
        if !matches!(self.state, DState::Data) || data.is_empty() {
            return;
        }
        let h = self.header.as_mut().unwrap();
        let rec = h.record.max(1);
        let total = h.records.saturating_mul(rec as u64);
        let left = total - self.received;
        if data.len() as u64 > left {
            self.trailing = true;
            data = &data[..left as usize];
        }
        self.received += data.len() as u64;
        // complete a partial record
        if !self.carry.is_empty() {
            let need = rec - self.carry.len();
            let take = need.min(data.len());
            self.carry.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.carry.len() == rec {
                let c = std::mem::take(&mut self.carry);
                decode_records(h, &c);
            } else {
                return;
            }
        }
        let whole = data.len() / rec * rec;
        if whole > 0 {
            decode_records(h, &data[..whole]);
        }
        self.carry.extend_from_slice(&data[whole..]);
        if self.trailing {
            let off = self.data_start + self.received;
            self.fail(
                ErrorCode::NpyTrailingData,
                off,
                "bytes after the array data the header declares; the file is not a single .npy array",
            );
        }
    }

    /// The decoded array, or the errors.
    pub fn finish_array(mut self) -> Result<NpyArray, ParseErrors> {
        match &self.state {
            DState::Failed => return Err(self.sink.into_errors(None)),
            DState::Preamble(b) => {
                let n = b.len() as u64;
                if n >= 6 && &b[..6] != b"\x93NUMPY" {
                    self.fail(
                        ErrorCode::NpyBadMagic,
                        0,
                        "not a .npy file (bad magic bytes)",
                    );
                } else if n == 0 {
                    self.fail(ErrorCode::EmptyFile, 0, "the array is empty (0 bytes)");
                } else {
                    self.fail(
                        ErrorCode::NpyTruncated,
                        n,
                        format!(
                            "the .npy ends after {n} bytes, inside its header (truncated file?)"
                        ),
                    );
                }
                return Err(self.sink.into_errors(None));
            }
            DState::Data => {}
        }
        let h = self.header.take().unwrap();
        let total = h.records.saturating_mul(h.record as u64);
        if self.received < total {
            let off = self.data_start + self.received;
            self.fail(
                ErrorCode::NpyTruncated,
                off,
                format!(
                    "the header declares shape {:?} ({} bytes of data) but the data ends after {} bytes (truncated file?)",
                    h.shape, total, self.received
                ),
            );
            return Err(self.sink.into_errors(None));
        }
        let mut fields = h.fields;
        if h.fortran && !h.structured {
            // (n, k) stored column-major: transpose into row-major
            let n = h.shape[0] as usize;
            let k = h.shape[1] as usize;
            fn tr<T: Copy + Default>(v: &[T], n: usize, k: usize) -> Vec<T> {
                let mut out = vec![T::default(); n * k];
                for c in 0..k {
                    for r in 0..n {
                        out[r * k + c] = v[c * n + r];
                    }
                }
                out
            }
            let f = &mut fields[0];
            f.data = match &f.data {
                Column::F32(v) => Column::F32(tr(v, n, k)),
                Column::F64(v) => Column::F64(tr(v, n, k)),
                Column::Int(v) => Column::Int(tr(v, n, k)),
                other => other.clone(),
            };
        }
        if !h.structured {
            fields[0].count = if h.shape.len() == 2 {
                h.shape[1] as usize
            } else {
                1
            };
        }
        Ok(NpyArray {
            file: self.sink.file.clone(),
            shape: h.shape,
            structured: h.structured,
            fortran: h.fortran,
            fields,
            runs: h.runs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn half() {
        assert_eq!(f16_to_f32(0x3c00), 1.0);
        assert_eq!(f16_to_f32(0xc000), -2.0);
        assert_eq!(f16_to_f32(0x3800), 0.5);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x0200), 2f32.powi(-15));
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
    }
}
