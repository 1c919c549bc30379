//! The `.npy` header: its Python-literal dictionary (`descr`, `fortran_order`,
//! `shape`) parsed and interpreted as fields, shape and record layout.

use super::*;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Lit {
    Str(String),
    Int(i64),
    Bool(bool),
    None,
    Seq(Vec<Lit>),
    Dict(Vec<(Lit, Lit)>),
}

pub(super) struct LitParser<'a> {
    s: &'a [u8],
    /// Where the parser stands in the text (the offset of an error).
    pub(super) i: usize,
    depth: usize,
}

impl<'a> LitParser<'a> {
    pub(super) fn new(s: &'a [u8]) -> Self {
        LitParser { s, i: 0, depth: 0 }
    }

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
    pub(super) fn value(&mut self) -> Result<Lit, String> {
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

pub(super) fn empty_column(ty: Scalar) -> Column {
    match (ty.kind, ty.size) {
        (Kind::F, 8) => Column::F64(Vec::new()),
        (Kind::F, _) => Column::F32(Vec::new()),
        _ => Column::Int(Vec::new()),
    }
}

pub(super) struct Header {
    pub(super) fields: Vec<Field>,
    /// runs of adjacent float fields decoded as blocks (structured arrays)
    pub(super) runs: Vec<Run>,
    pub(super) shape: Vec<u64>,
    pub(super) fortran: bool,
    pub(super) structured: bool,
    pub(super) record: usize,
    /// records in the data (rows for structured, elements for plain)
    pub(super) records: u64,
}

pub(super) fn interpret(lit: Lit) -> Result<Header, (ErrorCode, String)> {
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
                runs: float_runs(&fields),
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
        runs: Vec::new(),
        shape,
        fortran: fortran && width > 1,
        structured,
        record,
        records,
    })
}
