//! The rows of a [`crate::proto::FromWorker::Computed`] on the wire: one base64
//! string of little-endian 64-bit words, ten a row (`bin, n, successes` as integers,
//! `conf, acc, gap, cp_lower, cp_upper, lower, upper` as the bits of their `f64`),
//! instead of a JSON object a row.
//!
//! At m = 2000 the rows were ~360 KB of JSON whose ~12,000 decimals the page parsed
//! back on every slider step (a few milliseconds of wasm, BENCHMARKS.md, issue 9,
//! Session 4); packed they are ~210 KB of base64 that decodes at memory speed, and
//! every value arrives bit for bit (no decimal round trip at all).
//!
//! Used as `#[serde(with = "crate::packed")]` on a `Vec<Row>` field.

use crate::proto::Row;
use base64::Engine;
use serde::{de::Error, Deserialize, Deserializer, Serializer};

/// 64-bit words a row.
const WORDS: usize = 10;

/// The rows as bytes (see the module's documentation).
pub fn pack(rows: &[Row]) -> Vec<u8> {
    let mut out = Vec::with_capacity(rows.len() * WORDS * 8);
    for r in rows {
        for w in [
            r.bin as u64,
            r.n as u64,
            r.successes,
            r.conf.to_bits(),
            r.acc.to_bits(),
            r.gap.to_bits(),
            r.cp_lower.to_bits(),
            r.cp_upper.to_bits(),
            r.lower.to_bits(),
            r.upper.to_bits(),
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
    }
    out
}

/// The rows of [`pack`]'s bytes; `None` when their length is not a whole number of
/// rows or a count does not fit this platform's `usize`.
pub fn unpack(bytes: &[u8]) -> Option<Vec<Row>> {
    if bytes.len() % (WORDS * 8) != 0 {
        return None;
    }
    bytes
        .chunks_exact(WORDS * 8)
        .map(|row| {
            let w =
                |i: usize| u64::from_le_bytes(row[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
            let f = |i: usize| f64::from_bits(w(i));
            Some(Row {
                bin: usize::try_from(w(0)).ok()?,
                n: usize::try_from(w(1)).ok()?,
                successes: w(2),
                conf: f(3),
                acc: f(4),
                gap: f(5),
                cp_lower: f(6),
                cp_upper: f(7),
                lower: f(8),
                upper: f(9),
            })
        })
        .collect()
}

/// Serialises rows as the base64 string of [`pack`].
pub fn serialize<S: Serializer>(rows: &[Row], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(pack(rows)))
}

/// Reads rows back from [`serialize`]'s string.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Row>, D::Error> {
    let text = String::deserialize(d)?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.as_bytes())
        .map_err(|e| D::Error::custom(format!("packed rows: {e}")))?;
    unpack(&bytes).ok_or_else(|| D::Error::custom("packed rows: not a whole number of rows"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_travel_bit_for_bit() {
        let rows = vec![
            Row {
                bin: 1999,
                n: 123_456_789,
                successes: 123_456_700,
                conf: 0.1 + 0.2,
                acc: 1.0 / 3.0,
                gap: -0.0,
                cp_lower: 5e-324,
                cp_upper: 1.0,
                lower: 0.9995,
                upper: 1.0,
            },
            Row::default(),
        ];
        let back = unpack(&pack(&rows)).unwrap();
        assert_eq!(back, rows);
        assert!(back[0].gap.is_sign_negative(), "-0 stays -0");
        assert_eq!(pack(&rows).len(), 2 * 80);
        assert_eq!(unpack(&[]), Some(vec![]));
        assert_eq!(unpack(&[0u8; 79]), None);
    }
}
