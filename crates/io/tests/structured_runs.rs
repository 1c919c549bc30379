//! Structured `.npy` arrays whose adjacent float fields are decoded together as one
//! block (`npy/runs.rs`): random layouts (field types and byte orders, padding,
//! shuffled score fields, extra float fields next to the scores, sub-arrays) pushed
//! in random slices, against a record-by-record decoding of the same bytes.

use crate::common;
use common::build::npy;
use common::inline::f64s;

use calibscope_core::Scores;
use calibscope_io::{Options, Parser};
use proptest::prelude::*;

/// A float field type: its dtype text and how one value is written.
#[derive(Clone, Copy, Debug)]
enum Ty {
    LeF4,
    BeF4,
    LeF8,
    BeF8,
    LeF2,
}

impl Ty {
    fn descr(self) -> &'static str {
        match self {
            Ty::LeF4 => "<f4",
            Ty::BeF4 => ">f4",
            Ty::LeF8 => "<f8",
            Ty::BeF8 => ">f8",
            Ty::LeF2 => "<f2",
        }
    }
    /// The bytes of `x` and the value they hold (rounded to the type).
    fn write(self, x: f64, out: &mut Vec<u8>) -> f64 {
        match self {
            Ty::LeF4 => out.extend_from_slice(&(x as f32).to_le_bytes()),
            Ty::BeF4 => out.extend_from_slice(&(x as f32).to_be_bytes()),
            Ty::LeF8 => out.extend_from_slice(&x.to_le_bytes()),
            Ty::BeF8 => out.extend_from_slice(&x.to_be_bytes()),
            Ty::LeF2 => {
                // 1 + m/1024 × 2^e for small integers m: exact in f16
                out.extend_from_slice(&f16_bits(x).to_le_bytes());
            }
        }
        match self {
            Ty::LeF4 | Ty::BeF4 => x as f32 as f64,
            Ty::LeF8 | Ty::BeF8 => x,
            Ty::LeF2 => x,
        }
    }
}

/// The f16 bits of `x`, which must be `j / 8` for an integer `j` in 1..=64.
fn f16_bits(x: f64) -> u16 {
    let j = (x * 8.0).round() as u32;
    assert!((1..=64).contains(&j) && (j as f64) / 8.0 == x);
    let e = 31 - j.leading_zeros(); // j = 2^e × (1 + f)
    let mantissa = ((j << (10 - e)) & 0x3ff) as u16;
    (((e as i32 - 3 + 15) as u16) << 10) | mantissa
}

/// One field of the record.
#[derive(Clone, Debug)]
enum FieldSpec {
    Label,
    Logit(usize, Ty),
    /// a float field the mapping ignores (it may sit inside a run with the scores)
    Extra(Ty),
    Padding(usize),
    /// a sub-array of 2 float32 the mapping ignores
    SubArray,
}

fn layout() -> impl Strategy<Value = Vec<FieldSpec>> {
    let ty = prop_oneof![
        4 => Just(Ty::LeF4),
        1 => Just(Ty::BeF4),
        2 => Just(Ty::LeF8),
        1 => Just(Ty::BeF8),
        1 => Just(Ty::LeF2),
    ];
    (
        2usize..6,
        prop::collection::vec(ty.clone(), 6),
        any::<bool>(),
        prop::collection::vec(0u8..8, 4),
        any::<u64>(),
    )
        .prop_map(|(k, tys, one_type, extras, shuffle)| {
            let mut fields = vec![FieldSpec::Label];
            let mut logits: Vec<FieldSpec> = (0..k)
                .map(|j| FieldSpec::Logit(j, if one_type { tys[0] } else { tys[j] }))
                .collect();
            if shuffle % 4 == 0 {
                logits.swap(0, k - 1);
            }
            fields.extend(logits);
            // extras before, inside or after the scores
            for (i, &e) in extras.iter().enumerate() {
                let spec = match e {
                    0 => FieldSpec::Extra(tys[i]),
                    1 => FieldSpec::Padding(1 + i),
                    2 => FieldSpec::SubArray,
                    _ => continue,
                };
                let at = ((shuffle >> (8 * i)) as usize) % (fields.len() + 1);
                fields.insert(at.max(1), spec);
            }
            fields
        })
}

fn descr(fields: &[FieldSpec]) -> String {
    let parts: Vec<String> = fields
        .iter()
        .enumerate()
        .map(|(i, f)| match f {
            FieldSpec::Label => "('label', '<i8')".to_string(),
            FieldSpec::Logit(j, t) => format!("('logit_{j}', '{}')", t.descr()),
            FieldSpec::Extra(t) => format!("('extra_{i}', '{}')", t.descr()),
            FieldSpec::Padding(n) => format!("('', '|V{n}')"),
            FieldSpec::SubArray => format!("('sub_{i}', '<f4', (2,))"),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// The records' bytes, and what a record-by-record reading gives: labels and the
/// `n × k` logits (column j = `logit_j`).
fn records(fields: &[FieldSpec], n: usize, seed: u64) -> (Vec<u8>, Vec<u32>, Vec<f64>) {
    let k = fields
        .iter()
        .filter(|f| matches!(f, FieldSpec::Logit(..)))
        .count();
    let mut bytes = Vec::new();
    let mut labels = Vec::new();
    let mut logits = vec![0.0; n * k];
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for r in 0..n {
        for f in fields {
            match f {
                FieldSpec::Label => {
                    let l = (next() % k as u64) as u32;
                    labels.push(l);
                    bytes.extend_from_slice(&(l as i64).to_le_bytes());
                }
                FieldSpec::Logit(j, t) => {
                    let x = (1 + next() % 64) as f64 / 8.0;
                    logits[r * k + j] = t.write(x, &mut bytes);
                }
                FieldSpec::Extra(t) => {
                    t.write((1 + next() % 64) as f64 / 8.0, &mut bytes);
                }
                FieldSpec::Padding(w) => bytes.extend(std::iter::repeat_n(0xAB, *w)),
                FieldSpec::SubArray => {
                    bytes.extend_from_slice(&1.5f32.to_le_bytes());
                    bytes.extend_from_slice(&(-2.5f32).to_le_bytes());
                }
            }
        }
    }
    (bytes, labels, logits)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn runs_of_fields_read_like_records(
        fields in layout(),
        n in 1usize..40,
        seed in any::<u64>(),
        cuts in prop::collection::vec(1usize..97, 0..12),
    ) {
        let (data, labels, logits) = records(&fields, n, seed);
        let file = npy(&descr(&fields), &[n], false, &data, 1);
        let mut parser = Parser::new("s.npy", Options::default());
        let mut at = 0;
        for c in cuts {
            let end = (at + c).min(file.len());
            parser.push(&file[at..end]).unwrap();
            at = end;
        }
        parser.push(&file[at..]).unwrap();
        let ds = parser.finish().unwrap_or_else(|e| panic!("{}: {e}", descr(&fields)));
        let set = &ds.models[0].1;
        prop_assert_eq!(&set.labels, &labels);
        let Scores::Matrix { values, .. } = &set.scores else {
            panic!("expected a matrix of logits");
        };
        prop_assert_eq!(f64s(values), logits, "{}", descr(&fields));
    }
}

#[test]
fn the_f16_writer_is_exact() {
    for j in 1..=64u32 {
        let x = j as f64 / 8.0;
        let h = f16_bits(x);
        let e = ((h >> 10) & 0x1f) as i32 - 15;
        let m = (h & 0x3ff) as f64 / 1024.0;
        assert_eq!((1.0 + m) * 2f64.powi(e), x, "{j}");
    }
}
