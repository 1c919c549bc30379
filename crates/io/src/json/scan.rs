//! A JSON scanner over the buffered document: values as borrowed slices and
//! strings (numbers are kept as text), with the byte offset of every error.

use std::borrow::Cow;

#[derive(Debug)]
pub(super) enum J<'a> {
    Null,
    Bool(bool),
    Num(&'a [u8]),
    Str(Cow<'a, str>),
    Arr(Vec<J<'a>>),
    Obj(Vec<(Cow<'a, str>, J<'a>)>),
}

pub(super) struct Scan<'a> {
    pub(super) s: &'a [u8],
    pub(super) i: usize,
    pub(super) depth: usize,
}

pub(super) type JResult<T> = Result<T, (usize, String)>;

impl<'a> Scan<'a> {
    fn ws(&mut self) {
        while self.i < self.s.len() && matches!(self.s[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }
    pub(super) fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }
    pub(super) fn err<T>(&self, msg: impl Into<String>) -> JResult<T> {
        Err((self.i, msg.into()))
    }
    fn expect(&mut self, c: u8) -> JResult<()> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            let found = match self.s.get(self.i) {
                Some(b) => format!("{:?}", *b as char),
                None => "the end of the file".into(),
            };
            self.err(format!("expected {:?}, found {found}", c as char))
        }
    }
    pub(super) fn value(&mut self) -> JResult<J<'a>> {
        self.depth += 1;
        if self.depth > 64 {
            return self.err("nested more than 64 levels deep");
        }
        let r = match self.peek() {
            None => self.err("unexpected end of the file"),
            Some(b'{') => {
                self.i += 1;
                let mut v = Vec::new();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                } else {
                    loop {
                        if self.peek() != Some(b'"') {
                            return self.err("expected a key in double quotes");
                        }
                        let k = self.string()?;
                        self.expect(b':')?;
                        let val = self.value()?;
                        v.push((k, val));
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b'}') => {
                                self.i += 1;
                                break;
                            }
                            _ => return self.err("expected ',' or '}'"),
                        }
                    }
                }
                Ok(J::Obj(v))
            }
            Some(b'[') => {
                self.i += 1;
                let mut v = Vec::new();
                if self.peek() == Some(b']') {
                    self.i += 1;
                } else {
                    loop {
                        v.push(self.value()?);
                        match self.peek() {
                            Some(b',') => self.i += 1,
                            Some(b']') => {
                                self.i += 1;
                                break;
                            }
                            _ => return self.err("expected ',' or ']'"),
                        }
                    }
                }
                Ok(J::Arr(v))
            }
            Some(b'"') => self.string().map(J::Str),
            Some(b't') => self.word(b"true", J::Bool(true)),
            Some(b'f') => self.word(b"false", J::Bool(false)),
            Some(b'n') => self.word(b"null", J::Null),
            Some(b'N') => self.word(b"NaN", J::Num(b"NaN")),
            Some(b'I') => self.word(b"Infinity", J::Num(b"inf")),
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                if self.s[self.i..].starts_with(b"-Infinity") {
                    self.i += 9;
                    return Ok(J::Num(b"-inf"));
                }
                self.i += 1;
                while self.i < self.s.len()
                    && matches!(
                        self.s[self.i],
                        b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-'
                    )
                {
                    self.i += 1;
                }
                Ok(J::Num(&self.s[start..self.i]))
            }
            Some(c) => self.err(format!("unexpected {:?}", c as char)),
        };
        self.depth -= 1;
        r
    }
    fn word(&mut self, w: &[u8], v: J<'a>) -> JResult<J<'a>> {
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            Ok(v)
        } else {
            self.err("unexpected word (expected true, false, null or a number)")
        }
    }
    fn string(&mut self) -> JResult<Cow<'a, str>> {
        self.i += 1; // opening quote
        let start = self.i;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'"' => {
                    let raw = &self.s[start..self.i];
                    self.i += 1;
                    return match std::str::from_utf8(raw) {
                        Ok(t) => Ok(Cow::Borrowed(t)),
                        Err(_) => Err((start, "a string is not valid UTF-8".into())),
                    };
                }
                b'\\' => return self.string_escaped(start),
                _ => self.i += 1,
            }
        }
        self.err("unterminated string")
    }
    fn string_escaped(&mut self, start: usize) -> JResult<Cow<'a, str>> {
        let mut out: Vec<u8> = self.s[start..self.i].to_vec();
        while self.i < self.s.len() {
            let c = self.s[self.i];
            self.i += 1;
            match c {
                b'"' => {
                    return String::from_utf8(out)
                        .map(Cow::Owned)
                        .map_err(|_| (start, "a string is not valid UTF-8".into()))
                }
                b'\\' => {
                    let Some(&e) = self.s.get(self.i) else {
                        return self.err("unterminated string");
                    };
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xd800..0xdc00).contains(&cp)
                                && self.s[self.i..].starts_with(b"\\u")
                            {
                                self.i += 2;
                                let lo = self.hex4()?;
                                if (0xdc00..0xe000).contains(&lo) {
                                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                                }
                            }
                            let ch = char::from_u32(cp).unwrap_or('\u{fffd}');
                            let mut b = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
                        }
                        _ => return self.err("invalid escape in a string"),
                    }
                }
                _ => out.push(c),
            }
        }
        self.err("unterminated string")
    }
    fn hex4(&mut self) -> JResult<u32> {
        let h = self.s.get(self.i..self.i + 4);
        let v = h
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u32::from_str_radix(h, 16).ok());
        match v {
            Some(v) => {
                self.i += 4;
                Ok(v)
            }
            None => self.err("invalid \\u escape"),
        }
    }
}

/// 1-based line and column of a byte offset.
pub(super) fn line_col(s: &[u8], off: usize) -> (u64, u64) {
    let off = off.min(s.len());
    let line = s[..off].iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let col = off
        - s[..off]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1)
        + 1;
    (line, col as u64)
}
