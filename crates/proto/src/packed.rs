//! The rows of a [`crate::FromWorker::Computed`] on the wire: little-endian
//! 64-bit words, ten a row (`bin, n, successes` as integers, `conf, acc, gap,
//! cp_lower, cp_upper, lower, upper` as the bits of their `f64`), posted as bytes
//! beside the message's JSON ([`crate::FromWorker::to_wire`]).
//!
//! At m = 2000 the rows were ~360 KB of JSON whose ~12,000 decimals the page parsed
//! back on every slider step (a few milliseconds of wasm, BENCHMARKS.md, "The app in
//! Chromium"); then ~210 KB of base64 in the JSON, encoded, converted between UTF-8
//! and UTF-16 on both sides and decoded; as bytes they are ~140 KB, copied, and every
//! value arrives bit for bit (measured: the `End` step to m = 2000 on 1M rows went
//! from 18–33 to 14–18 ms, key press to table in the page).

use crate::Row;

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
