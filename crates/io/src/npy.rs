//! NumPy `.npy`: a streaming decoder (format versions 1–3, either byte order,
//! f2/f4/f8, i1–i8, u1–u8, bool, C or Fortran order, structured arrays), and the
//! assembly of arrays (structured fields, NumPy pairs, `.npz` members) into datasets.

use calibscope_core::{PredictionSet, Scores, Source, Values};

use crate::error::{Location, Sink};
use crate::mapping::{plan, Col, PlanScores, SourceChoice};
use crate::num::{fmt_num, ClassKind, MAX_CLASS, MAX_TOPLABEL_CLASS};
use crate::{Dataset, ErrorCode, Format, Ids, Options, ParseError, ParseErrors};

/// Decoded values of one array or field.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Column {
    F32(Vec<f32>),
    F64(Vec<f64>),
    Int(Vec<i64>),
}

impl Column {
    fn len(&self) -> usize {
        match self {
            Column::F32(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Int(v) => v.len(),
        }
    }
    fn get(&self, i: usize) -> f64 {
        match self {
            Column::F32(v) => v[i] as f64,
            Column::F64(v) => v[i],
            Column::Int(v) => v[i] as f64,
        }
    }
    fn reserve(&mut self, n: usize) {
        match self {
            Column::F32(v) => v.reserve_exact(n),
            Column::F64(v) => v.reserve_exact(n),
            Column::Int(v) => v.reserve_exact(n),
        }
    }
    fn into_values(self) -> Values {
        match self {
            Column::F32(v) => Values::F32(v),
            Column::F64(v) => Values::F64(v),
            Column::Int(v) => Values::F64(v.into_iter().map(|x| x as f64).collect()),
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
        self.fields
            .iter()
            .map(|f| match &f.data {
                Column::F32(v) => v.len() * 4,
                Column::F64(v) => v.len() * 8,
                Column::Int(v) => v.len() * 8,
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

// ---------------------------------------------------------------- header literal

#[derive(Clone, Debug, PartialEq)]
enum Lit {
    Str(String),
    Int(i64),
    Bool(bool),
    None,
    Seq(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

struct LitParser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl LitParser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn value(&mut self) -> Result<Lit, String> {
        self.depth += 1;
        if self.depth > 32 {
            return Err("nested too deeply".into());
        }
        self.ws();
        let r = match self.s.get(self.i) {
            None => Err("unexpected end".into()),
            Some(b'\'') | Some(b'"') => {
                let q = self.s[self.i];
                self.i += 1;
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i] != q {
                    if self.s[self.i] == b'\\' {
                        self.i += 1;
                    }
                    self.i += 1;
                }
                if self.i >= self.s.len() {
                    return Err("unterminated string".into());
                }
                let t = String::from_utf8_lossy(&self.s[start..self.i]).into_owned();
                self.i += 1;
                Ok(Lit::Str(t))
            }
            Some(b'(') | Some(b'[') => {
                let close = if self.s[self.i] == b'(' { b')' } else { b']' };
                self.i += 1;
                let mut v = Vec::new();
                loop {
                    if self.eat(close) {
                        break;
                    }
                    v.push(self.value()?);
                    if !self.eat(b',') {
                        if self.eat(close) {
                            break;
                        }
                        return Err("expected , or closing bracket".into());
                    }
                }
                Ok(Lit::Seq(v))
            }
            Some(b'{') => {
                self.i += 1;
                let mut v = Vec::new();
                loop {
                    if self.eat(b'}') {
                        break;
                    }
                    let k = self.value()?;
                    if !self.eat(b':') {
                        return Err("expected :".into());
                    }
                    let val = self.value()?;
                    v.push((k, val));
                    if !self.eat(b',') {
                        if self.eat(b'}') {
                            break;
                        }
                        return Err("expected , or }".into());
                    }
                }
                Ok(Lit::Dict(v))
            }
            Some(c) if c.is_ascii_digit() || *c == b'-' => {
                let start = self.i;
                self.i += 1;
                while self.i < self.s.len() && self.s[self.i].is_ascii_digit() {
                    self.i += 1;
                }
                // numpy may write longs as 10L in old files
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                if self.s.get(self.i) == Some(&b'L') {
                    self.i += 1;
                }
                t.parse::<i64>()
                    .map(Lit::Int)
                    .map_err(|_| format!("bad integer {t:?}"))
            }
            Some(_) => {
                let start = self.i;
                while self.i < self.s.len() && self.s[self.i].is_ascii_alphabetic() {
                    self.i += 1;
                }
                match &self.s[start..self.i] {
                    b"True" => Ok(Lit::Bool(true)),
                    b"False" => Ok(Lit::Bool(false)),
                    b"None" => Ok(Lit::None),
                    _ => Err(format!(
                        "unexpected {:?}",
                        String::from_utf8_lossy(&self.s[start..(start + 10).min(self.s.len())])
                    )),
                }
            }
        };
        self.depth -= 1;
        r
    }
}

fn parse_scalar(d: &str) -> Result<Scalar, String> {
    let b = d.as_bytes();
    let (big, rest) = match b.first() {
        Some(b'<') | Some(b'=') => (false, &d[1..]),
        Some(b'>') => (true, &d[1..]),
        Some(b'|') => (false, &d[1..]),
        _ => (false, d),
    };
    let kind_c = rest.chars().next().unwrap_or(' ');
    let size: usize = rest.get(1..).and_then(|s| s.parse().ok()).unwrap_or(0);
    let kind = match (kind_c, size) {
        ('f', 2 | 4 | 8) => Kind::F,
        ('i', 1 | 2 | 4 | 8) => Kind::I,
        ('u', 1 | 2 | 4 | 8) => Kind::U,
        ('b', 1) | ('?', 1) => Kind::B,
        ('V', n) if n > 0 => Kind::Skip,
        ('f', _) => {
            return Err(format!(
                "dtype {d:?} (long double) is not supported; convert with .astype(np.float64)"
            ))
        }
        ('c', _) => return Err(format!("dtype {d:?} (complex) is not supported")),
        ('O', _) => {
            return Err(format!(
                "dtype {d:?} is an object array (pickled Python objects); save a numeric array (np.asarray(x, dtype=np.float32))"
            ))
        }
        ('U', _) | ('S', _) | ('a', _) => {
            return Err(format!(
                "dtype {d:?} holds strings; save labels as integers 0..k-1 and scores as floats"
            ))
        }
        ('M', _) | ('m', _) => return Err(format!("dtype {d:?} (dates/times) is not supported")),
        _ => return Err(format!("dtype {d:?} is not a dtype this reader knows")),
    };
    Ok(Scalar { kind, size, big })
}

fn empty_column(ty: Scalar) -> Column {
    match (ty.kind, ty.size) {
        (Kind::F, 8) => Column::F64(Vec::new()),
        (Kind::F, _) => Column::F32(Vec::new()),
        _ => Column::Int(Vec::new()),
    }
}

struct Header {
    fields: Vec<Field>,
    shape: Vec<u64>,
    fortran: bool,
    structured: bool,
    record: usize,
    /// records in the data (rows for structured, elements for plain)
    records: u64,
}

fn interpret(lit: Lit) -> Result<Header, (ErrorCode, String)> {
    let bad = |m: &str| (ErrorCode::NpyBadHeader, m.to_string());
    let Lit::Dict(items) = lit else {
        return Err(bad("the header is not a dictionary"));
    };
    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    for (k, v) in items {
        match (k, v) {
            (Lit::Str(k), v) if k == "descr" => descr = Some(v),
            (Lit::Str(k), Lit::Bool(b)) if k == "fortran_order" => fortran = Some(b),
            (Lit::Str(k), Lit::Seq(s)) if k == "shape" => {
                let dims: Option<Vec<u64>> = s
                    .into_iter()
                    .map(|d| match d {
                        Lit::Int(i) if i >= 0 => Some(i as u64),
                        _ => None,
                    })
                    .collect();
                shape = Some(dims.ok_or_else(|| bad("shape has a non-integer dimension"))?);
            }
            _ => {}
        }
    }
    let (Some(descr), Some(fortran), Some(shape)) = (descr, fortran, shape) else {
        return Err(bad("the header lacks 'descr', 'fortran_order' or 'shape'"));
    };
    let unsupported = |m: String| (ErrorCode::NpyUnsupportedDtype, m);
    let mut fields = Vec::new();
    let structured;
    match descr {
        Lit::Str(d) => {
            structured = false;
            let ty = parse_scalar(&d).map_err(unsupported)?;
            if ty.kind == Kind::Skip {
                return Err(unsupported(format!(
                    "dtype {d:?} (raw bytes) is not supported"
                )));
            }
            fields.push(Field {
                name: String::new(),
                ty,
                offset: 0,
                count: 1,
                descr: d,
                data: empty_column(ty),
            });
        }
        Lit::Seq(items) => {
            structured = true;
            let mut offset = 0usize;
            for it in items {
                let Lit::Seq(parts) = it else {
                    return Err(bad("a structured dtype entry is not a tuple"));
                };
                let name = match parts.first() {
                    Some(Lit::Str(s)) => s.clone(),
                    Some(Lit::Seq(t)) => match t.get(1) {
                        Some(Lit::Str(s)) => s.clone(),
                        _ => return Err(bad("bad field name")),
                    },
                    _ => return Err(bad("bad field name")),
                };
                let d = match parts.get(1) {
                    Some(Lit::Str(s)) => s.clone(),
                    Some(Lit::Seq(_)) => {
                        return Err(unsupported(format!(
                            "field {name:?} is a nested structure; flatten the array (one field per column)"
                        )))
                    }
                    _ => return Err(bad("bad field dtype")),
                };
                let mut ty = parse_scalar(&d).map_err(unsupported)?;
                let mut count = 1usize;
                if let Some(Lit::Seq(sh)) = parts.get(2) {
                    for s in sh {
                        match s {
                            Lit::Int(x) if *x >= 0 && *x < (1 << 24) => {
                                count = count.saturating_mul(*x as usize)
                            }
                            _ => return Err(bad("bad sub-array shape")),
                        }
                    }
                    if count > 1 << 24 {
                        return Err(bad("sub-array too large"));
                    }
                }
                if name.is_empty() {
                    ty.kind = Kind::Skip;
                }
                let size = ty.size.saturating_mul(count);
                fields.push(Field {
                    name,
                    ty,
                    offset,
                    count,
                    descr: d,
                    data: empty_column(ty),
                });
                offset = offset.saturating_add(size);
                if offset > 1 << 26 {
                    return Err(bad("record too large"));
                }
            }
            fields.retain(|f| f.ty.kind != Kind::Skip);
            if fields.is_empty() {
                return Err(bad("the structured dtype has no fields"));
            }
            // record size is the sum of all entries including padding
            let record = offset;
            let rows = match shape.as_slice() {
                [n] => *n,
                _ => {
                    return Err((
                        ErrorCode::NpyUnsupportedShape,
                        format!(
                            "a structured array of shape {shape:?}; expected one dimension (n,)"
                        ),
                    ))
                }
            };
            return Ok(Header {
                fields,
                shape,
                fortran,
                structured,
                record,
                records: rows,
            });
        }
        _ => return Err(bad("'descr' is neither a string nor a list")),
    }
    let (rows, width) = match shape.as_slice() {
        [n] => (*n, 1u64),
        [n, k] => (*n, *k),
        [] => {
            return Err((
                ErrorCode::NpyUnsupportedShape,
                "a 0-d (scalar) array; expected shape (n,) or (n, k)".into(),
            ))
        }
        _ => {
            return Err((
                ErrorCode::NpyUnsupportedShape,
                format!("an array of shape {shape:?}; expected (n,) or (n, k)"),
            ))
        }
    };
    if width > 1 << 24 {
        return Err((
            ErrorCode::NpyUnsupportedShape,
            format!("{width} columns is too many classes"),
        ));
    }
    let records = rows
        .checked_mul(width)
        .ok_or_else(|| bad("the shape overflows"))?;
    fields[0].count = 1;
    let record = fields[0].ty.size;
    Ok(Header {
        fields,
        shape,
        fortran: fortran && width > 1,
        structured,
        record,
        records,
    })
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
            let mut lp = LitParser {
                s: text,
                i: 0,
                depth: 0,
            };
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
                    for f in &mut h.fields {
                        let want = h.records.saturating_mul(f.count as u64);
                        let cap = if fits_hint { want } else { want.min(1 << 20) };
                        f.data.reserve(cap as usize);
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
                for f in &mut h.fields {
                    decode(&mut f.data, f.ty, &c, rec, f.offset, f.count);
                }
            } else {
                return;
            }
        }
        let whole = data.len() / rec * rec;
        if whole > 0 {
            for f in &mut h.fields {
                decode(&mut f.data, f.ty, &data[..whole], rec, f.offset, f.count);
            }
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
        })
    }
}

// ---------------------------------------------------------------- assembly

/// A column to assemble: a structured field, an npz member or one array of a pair.
pub(crate) struct ArrCol {
    pub name: String,
    /// where it came from (member / file name) for error locations
    pub origin: Option<String>,
    pub width: usize,
    pub rows: usize,
    pub data: Column,
}

pub(crate) fn array_cols(a: NpyArray, origin: Option<String>, name: Option<&str>) -> Vec<ArrCol> {
    let rows = a.rows();
    a.fields
        .into_iter()
        .map(|f| ArrCol {
            name: if f.name.is_empty() {
                name.unwrap_or("").to_string()
            } else {
                f.name
            },
            origin: origin.clone(),
            width: f.count.max(1),
            rows,
            data: f.data,
        })
        .collect()
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
            sink.columns = pcols.iter().map(|c| c.name.clone()).collect();
            for e in errs {
                let loc = Location {
                    column: e.column,
                    ..Default::default()
                };
                sink.push(e.code, loc, e.message);
            }
            return Err(sink.into_errors(None));
        }
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
        for r in 0..c.rows {
            let (v, err) = match &c.data {
                Column::Int(v) => (v[r], None),
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
        other => Ids::Text((0..other.len()).map(|r| fmt_num(other.get(r))).collect()),
    });

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
            let all_f32 = parts.iter().all(|c| matches!(c.data, Column::F32(_)));
            let values = if all_f32 {
                let mut v = Vec::with_capacity(n * k);
                for r in 0..n {
                    for c in &parts {
                        if let Column::F32(x) = &c.data {
                            v.push(x[r]);
                        }
                    }
                }
                Values::F32(v)
            } else {
                let mut v = Vec::with_capacity(n * k);
                for r in 0..n {
                    for c in &parts {
                        v.push(c.data.get(r));
                    }
                }
                Values::F64(v)
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
    };
    crate::table::finish_errors(file, ds, sink, verrs)
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
