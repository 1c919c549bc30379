//! Number and label text parsing.

use std::collections::HashMap;

use crate::ErrorCode;

/// Labels above this are refused (k would not fit the core's index types on wasm32).
pub(crate) const MAX_CLASS: u64 = 1 << 24;
/// Top-label files derive k from the largest label: above this they are refused
/// (every class gets a name and a slot in per-class tables).
pub(crate) const MAX_TOPLABEL_CLASS: u64 = 1 << 16;

#[inline]
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

/// Parses a decimal score: `1e-3`, `.5`, `-0`, `+1`, `NaN`, `inf`, `-Infinity`. An
/// empty field (pandas' missing value) is NaN. `None`: not a number.
#[inline]
pub(crate) fn parse_f64(s: &[u8]) -> Option<f64> {
    if let Ok(v) = fast_float2::parse::<f64, _>(s) {
        return Some(v);
    }
    parse_f64_slow(s)
}

#[cold]
fn parse_f64_slow(s: &[u8]) -> Option<f64> {
    let t = trim(s);
    if t.is_empty() {
        return Some(f64::NAN);
    }
    if let Ok(v) = fast_float2::parse::<f64, _>(t) {
        return Some(v);
    }
    let (neg, body) = match t {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, t),
    };
    let lower: Vec<u8> = body.iter().map(|b| b.to_ascii_lowercase()).collect();
    let v = match lower.as_slice() {
        b"nan" | b"na" | b"null" | b"none" => f64::NAN,
        b"inf" | b"infinity" => f64::INFINITY,
        _ => return None,
    };
    Some(if neg { -v } else { v })
}

/// How label text maps to class indices.
#[derive(Clone, Debug)]
pub(crate) enum ClassKind {
    /// Labels are indices `0..k` (classes named `0..k-1`, or no names).
    Indices,
    /// Classes are named by integers that are not `0..k-1` (e.g. `p_1..p_3`):
    /// an integer label is looked up among them.
    IntNames(Vec<i64>),
    /// Classes named by text: a label is a name or a 0-based position.
    Names(HashMap<String, u32>),
}

impl ClassKind {
    pub(crate) fn from_names(names: &[String]) -> ClassKind {
        if names.is_empty() || names.iter().enumerate().all(|(i, n)| *n == i.to_string()) {
            return ClassKind::Indices;
        }
        let ints: Option<Vec<i64>> = names.iter().map(|n| n.trim().parse::<i64>().ok()).collect();
        if let Some(ints) = ints {
            return ClassKind::IntNames(ints);
        }
        ClassKind::Names(
            names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.trim().to_string(), i as u32))
                .collect(),
        )
    }
}

/// A label token.
pub(crate) enum LabelTok<'a> {
    Int(i64),
    NotInteger(f64),
    Bool(bool),
    Text(&'a str),
    Empty,
    Invalid,
}

#[inline]
pub(crate) fn label_tok(s: &[u8]) -> LabelTok<'_> {
    // fast path: plain decimal digits
    if !s.is_empty() && s.len() <= 9 && s.iter().all(|b| b.is_ascii_digit()) {
        let mut v: i64 = 0;
        for &b in s {
            v = v * 10 + (b - b'0') as i64;
        }
        return LabelTok::Int(v);
    }
    label_tok_slow(s)
}

#[cold]
fn label_tok_slow(s: &[u8]) -> LabelTok<'_> {
    let t = trim(s);
    if t.is_empty() {
        return LabelTok::Empty;
    }
    if let Ok(txt) = std::str::from_utf8(t) {
        if let Ok(v) = txt.parse::<i64>() {
            return LabelTok::Int(v);
        }
        if let Ok(v) = fast_float2::parse::<f64, _>(t) {
            if v.is_finite() && v == v.trunc() && v.abs() < 9.0e15 {
                return LabelTok::Int(v as i64);
            }
            return LabelTok::NotInteger(v);
        }
        match txt.to_ascii_lowercase().as_str() {
            "true" => return LabelTok::Bool(true),
            "false" => return LabelTok::Bool(false),
            _ => {}
        }
        LabelTok::Text(txt)
    } else {
        LabelTok::Invalid
    }
}

/// Reads labels as class indices, tracking mixed label types.
#[derive(Clone, Debug)]
pub(crate) struct LabelReader {
    pub kind: ClassKind,
    /// Number of classes when known (matrix / binary); `None` for top-label.
    pub k: Option<usize>,
    /// (shared by the tables of a parallel read's parts)
    pub names: std::sync::Arc<[String]>,
    pub saw_int: Option<u64>,
    pub saw_name: Option<u64>,
    pub mixed_reported: bool,
    /// Largest label accepted + 1.
    pub limit: u64,
    /// Labels that are not among the class names (class-named columns only).
    pub misses: u64,
    /// The first of them: (row, text).
    pub miss_first: Option<(u64, String)>,
    /// Smallest and largest integer label read against class names.
    pub int_range: Option<(i64, i64)>,
}

/// A label that could not be read: (code, message).
pub(crate) type LabelErr = (ErrorCode, String);

impl LabelReader {
    pub(crate) fn new(names: &[String], k: Option<usize>) -> Self {
        LabelReader {
            kind: ClassKind::from_names(names),
            k,
            names: names.into(),
            saw_int: None,
            saw_name: None,
            mixed_reported: false,
            limit: if k.is_none() {
                MAX_TOPLABEL_CLASS
            } else {
                MAX_CLASS
            },
            misses: 0,
            miss_first: None,
            int_range: None,
        }
    }

    fn classes(&self) -> String {
        let mut s = self
            .names
            .iter()
            .take(10)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if self.names.len() > 10 {
            s.push_str(", ...");
        }
        s
    }

    fn int(&self, v: i64) -> Result<u32, LabelErr> {
        if v < 0 {
            return Err((
                ErrorCode::LabelOutOfRange,
                format!("label {v} is negative; labels are class indices 0..k-1"),
            ));
        }
        if v as u64 >= self.limit {
            return Err((
                ErrorCode::LabelOutOfRange,
                format!("label {v} is too large to be a class index"),
            ));
        }
        Ok(v as u32)
    }

    /// Reads one label; `row` is used to remember where a label type first appeared.
    #[inline]
    pub(crate) fn read(&mut self, s: &[u8], row: u64) -> Result<u32, LabelErr> {
        let tok = label_tok(s);
        if let (LabelTok::Int(v), ClassKind::Indices) = (&tok, &self.kind) {
            if *v >= 0 && (*v as u64) < self.limit {
                return Ok(*v as u32);
            }
        }
        self.read_slow(tok, row)
    }

    fn miss(&mut self, row: u64, text: &str) {
        self.misses += 1;
        if self.miss_first.is_none() {
            self.miss_first = Some((row, text.to_string()));
        }
    }

    /// Merges the label counts of a later part whose rows start at `base`.
    #[cfg(not(target_family = "wasm"))]
    pub(crate) fn absorb(&mut self, later: &LabelReader, base: u64) {
        self.misses += later.misses;
        if self.miss_first.is_none() {
            self.miss_first = later.miss_first.clone().map(|(r, t)| (r + base, t));
        }
        self.int_range = match (self.int_range, later.int_range) {
            (Some(a), Some(b)) => Some((a.0.min(b.0), a.1.max(b.1))),
            (a, b) => a.or(b),
        };
    }

    #[cold]
    fn read_slow(&mut self, tok: LabelTok<'_>, row: u64) -> Result<u32, LabelErr> {
        if let (LabelTok::Int(v), ClassKind::IntNames(_) | ClassKind::Names(_)) = (&tok, &self.kind)
        {
            let v = *v;
            self.int_range = Some(self.int_range.map_or((v, v), |(a, b)| (a.min(v), b.max(v))));
        }
        match tok {
            LabelTok::Int(v) => match &self.kind {
                ClassKind::Indices => self.int(v),
                ClassKind::IntNames(ints) => match ints.iter().position(|&c| c == v) {
                    Some(i) => Ok(i as u32),
                    None => {
                        self.miss(row, &v.to_string());
                        Err((
                            ErrorCode::LabelOutOfRange,
                            format!("label {v} is not one of the classes ({})", self.classes()),
                        ))
                    }
                },
                ClassKind::Names(_) => {
                    self.saw_int.get_or_insert(row);
                    self.int(v)
                }
            },
            LabelTok::Bool(b) => {
                let binary = self.k == Some(2) || self.k.is_none();
                if binary && matches!(self.kind, ClassKind::Indices) {
                    Ok(b as u32)
                } else {
                    Err((
                        ErrorCode::BadLabel,
                        format!(
                            "label {b} is a boolean, but there are {} classes; use class indices",
                            self.k.unwrap_or(0)
                        ),
                    ))
                }
            }
            LabelTok::NotInteger(v) => Err((
                ErrorCode::BadLabel,
                format!("label {v} is not an integer; labels are class indices 0..k-1"),
            )),
            LabelTok::Empty => Err((
                ErrorCode::BadLabel,
                "missing label (empty field); every row needs its true class".to_string(),
            )),
            LabelTok::Invalid => Err((
                ErrorCode::NotUtf8,
                "label is not valid UTF-8 text; save the file as UTF-8".to_string(),
            )),
            LabelTok::Text(t) => match &self.kind {
                ClassKind::Names(map) => match map.get(t.trim()).copied() {
                    Some(i) => {
                        self.saw_name.get_or_insert(row);
                        Ok(i)
                    }
                    None => {
                        self.miss(row, t.trim());
                        Err((
                            ErrorCode::BadLabel,
                            format!("label {t:?} is not one of the classes ({})", self.classes()),
                        ))
                    }
                },
                _ => {
                    Err((
                        ErrorCode::BadLabel,
                        if self.names.is_empty() || matches!(self.kind, ClassKind::Indices) {
                            format!(
                            "label {t:?} is not a class index; labels must be integers 0..k-1{}",
                            if self.k == Some(2) { " (or true/false)" } else { "" }
                        )
                        } else {
                            format!("label {t:?} is not one of the classes ({})", self.classes())
                        },
                    ))
                }
            },
        }
    }

    /// When both integer and name labels were seen: the first row of the later kind.
    pub(crate) fn mixed(&mut self) -> Option<(u64, u64)> {
        if self.mixed_reported {
            return None;
        }
        match (self.saw_int, self.saw_name) {
            (Some(a), Some(b)) => {
                self.mixed_reported = true;
                Some((a, b))
            }
            _ => None,
        }
    }
}

/// Formats a value for a message: up to 6 significant digits, no trailing zeros.
pub(crate) fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    if v == 0.0 {
        return "0".into();
    }
    let mag = v.abs().log10().floor() as i32;
    if !(-5..=9).contains(&mag) {
        return format!("{v:.5e}");
    }
    let decimals = (5 - mag).max(0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn numbers() {
        for (s, v) in [
            ("1e-3", 1e-3),
            (".5", 0.5),
            ("-0", -0.0),
            ("+1", 1.0),
            ("5.", 5.0),
            ("1E5", 1e5),
            (" 0.25 ", 0.25),
            ("0.1", 0.1),
        ] {
            assert_eq!(parse_f64(s.as_bytes()), Some(v), "{s}");
        }
        assert!(parse_f64(b"").unwrap().is_nan());
        assert!(parse_f64(b"NaN").unwrap().is_nan());
        assert_eq!(parse_f64(b"-inf"), Some(f64::NEG_INFINITY));
        assert_eq!(parse_f64(b"Infinity"), Some(f64::INFINITY));
        assert_eq!(parse_f64(b"abc"), None);
        assert_eq!(parse_f64(b"1.2.3"), None);
        assert_eq!(fmt_num(0.87), "0.87");
        assert_eq!(fmt_num(1.0019999999999998), "1.002");
    }
}
