//! The common record read straight from the text: plain numbers and small integer
//! labels, row by row ([`TableBuilder::fast_row`]) or many rows at once
//! ([`TableBuilder::fast_rows`]); every other record goes through
//! [`TableBuilder::record`].

use super::{Role, TableBuilder};

#[cfg(test)]
thread_local! {
    /// Set by the test that compares [`TableBuilder::fast_rows`] with reading row
    /// by row: every row is then read on its own.
    pub(crate) static ROW_BY_ROW: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether [`TableBuilder::fast_rows`] may read many rows at once: always, except
/// for the reference read of that test.
#[inline(always)]
pub(crate) fn rows_at_once() -> bool {
    #[cfg(test)]
    return !ROW_BY_ROW.get();
    #[cfg(not(test))]
    true
}

impl TableBuilder {
    /// The common record, read straight from the text: every field a plain
    /// number (fast-float2's grammar, read by `decimal::parse_prefix_with`, nothing
    /// around it), labels of at most 9 digits, then `\n` or `\r`. Returns the
    /// position of that line break, or `None` (nothing read) when
    /// [`TableBuilder::record`] must read the record: anything else, including every
    /// error. `delimiter` is no digit, letter, sign, point, quote or line break.
    #[inline]
    pub fn fast_row(&mut self, data: &[u8], delimiter: u8) -> Option<usize> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: SSSE3 is present.
            return unsafe { self.fast_row_ssse3(data, delimiter) };
        }
        self.fast_row_with::<false>(data, delimiter)
    }

    /// [`TableBuilder::fast_row`] with the numbers read sixteen bytes at a time
    /// (compiled for SSSE3, so the number reader is inlined).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3")]
    fn fast_row_ssse3(&mut self, data: &[u8], delimiter: u8) -> Option<usize> {
        self.fast_row_with::<true>(data, delimiter)
    }

    /// Rows read back to back by [`TableBuilder::fast_row`], each ended by `\n` or
    /// `\r\n` (so each is one line) and shorter than `max_len` bytes, at most
    /// `max_rows` of them. Returns how many were read and the position after the
    /// last one's line break. It stops before the first row that is not of the
    /// common form, or too long, or ends with a lone `\r` or at the end of `data`:
    /// the caller reads that one row by row.
    #[inline]
    pub fn fast_rows(
        &mut self,
        data: &[u8],
        delimiter: u8,
        max_len: usize,
        max_rows: u64,
    ) -> (u64, usize) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("ssse3") {
            // SAFETY: SSSE3 is present.
            return unsafe { self.fast_rows_ssse3(data, delimiter, max_len, max_rows) };
        }
        self.fast_rows_with::<false>(data, delimiter, max_len, max_rows)
    }

    /// [`TableBuilder::fast_rows`] compiled for SSSE3 (see `fast_row_ssse3`).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "ssse3")]
    fn fast_rows_ssse3(
        &mut self,
        data: &[u8],
        delimiter: u8,
        max_len: usize,
        max_rows: u64,
    ) -> (u64, usize) {
        self.fast_rows_with::<true>(data, delimiter, max_len, max_rows)
    }

    #[inline(always)]
    fn fast_rows_with<const VECTOR: bool>(
        &mut self,
        data: &[u8],
        delimiter: u8,
        max_len: usize,
        max_rows: u64,
    ) -> (u64, usize) {
        let (mut rows, mut pos) = (0, 0);
        while rows < max_rows {
            let Some(len) = self.fast_row_with::<VECTOR>(&data[pos..], delimiter) else {
                break;
            };
            let end = pos + len;
            let next = match (data[end], data.get(end + 1)) {
                (b'\n', _) => end + 1,
                (b'\r', Some(b'\n')) => end + 2,
                _ => 0,
            };
            if next == 0 || len >= max_len {
                self.undo_row();
                break;
            }
            rows += 1;
            pos = next;
        }
        (rows, pos)
    }

    #[inline(always)]
    fn fast_row_with<const VECTOR: bool>(&mut self, data: &[u8], delimiter: u8) -> Option<usize> {
        let m = &mut self.models[0];
        let base = m.values.len();
        if !self.in_order {
            m.values.resize(base + self.width, f64::NAN);
        }
        let mut pos = 0;
        let mut label = 0u32;
        let last = self.roles.len() - 1;
        for (i, role) in self.roles.iter().enumerate() {
            match *role {
                Role::Score(slot) => {
                    match crate::decimal::parse_prefix_with::<VECTOR>(&data[pos..]) {
                        Some((v, n)) => {
                            if self.in_order {
                                m.values.push(v);
                            } else {
                                m.values[base + slot] = v;
                            }
                            pos += n;
                        }
                        None => break,
                    }
                }
                Role::Label => {
                    let digits = data[pos..]
                        .iter()
                        .take(10)
                        .take_while(|b| b.is_ascii_digit())
                        .count();
                    if digits == 0 || digits > 9 {
                        break;
                    }
                    let v = data[pos..pos + digits]
                        .iter()
                        .fold(0u64, |v, &b| v * 10 + (b - b'0') as u64);
                    if v >= self.labels.limit {
                        break;
                    }
                    label = v as u32;
                    pos += digits;
                }
                Role::Group(j) => {
                    let len = data[pos..]
                        .iter()
                        .position(|&b| b == delimiter || b == b'\n' || b == b'\r' || b == b'"')
                        .unwrap_or(data.len() - pos);
                    // (a value cut by the end of the slice is not coded: the record
                    // is read again whole)
                    if matches!(data.get(pos + len), None | Some(&b'"')) {
                        break;
                    }
                    let code = self.group_dicts[j].code(&data[pos..pos + len]);
                    m.groups[j].push(code);
                    pos += len;
                }
                _ => {
                    pos += data[pos..]
                        .iter()
                        .position(|&b| b == delimiter || b == b'\n' || b == b'\r')
                        .unwrap_or(data.len() - pos);
                }
            }
            match data.get(pos) {
                Some(&b) if i < last && b == delimiter => pos += 1,
                Some(b'\n' | b'\r') if i == last => {
                    m.labels.push(label);
                    self.rows += 1;
                    return Some(pos);
                }
                _ => break,
            }
        }
        m.values.truncate(base);
        let rows = m.labels.len();
        for g in &mut m.groups {
            g.truncate(rows);
        }
        None
    }

    /// Takes back the row [`TableBuilder::fast_row`] just added.
    pub fn undo_row(&mut self) {
        let m = &mut self.models[0];
        m.labels.pop();
        m.values.truncate(m.values.len() - self.width);
        for g in &mut m.groups {
            g.pop();
        }
        self.rows -= 1;
    }
}
