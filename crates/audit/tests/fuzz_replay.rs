//! Stable-Rust stand-in for the record fuzzer: replays its seeds and minimised
//! corpus (crates/audit/fuzz/{seeds,corpus}/record/) through the fuzz check, then
//! proptest mutations of the seeds (bit flips, cuts, JSON-ish inserts, and numbers
//! changed in place). Nothing may panic; what reads verifies against itself.

use calibscope_audit::record_fuzz_check;
use proptest::prelude::*;
use std::path::PathBuf;

fn inputs() -> Vec<Vec<u8>> {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut v = Vec::new();
    for d in [base.join("seeds/record"), base.join("corpus/record")] {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        v.extend(paths.iter().map(|p| std::fs::read(p).unwrap()));
    }
    v
}

#[test]
fn replay_seeds_and_corpus() {
    let all = inputs();
    assert!(all.len() >= 3, "only {} fuzz inputs", all.len());
    for data in &all {
        record_fuzz_check(data);
    }
}

/// One edit of an input: `(kind, position, byte)`.
fn edits() -> impl Strategy<Value = Vec<(u8, usize, u8)>> {
    prop::collection::vec((0u8..4, any::<usize>(), any::<u8>()), 1..4)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn mutated_seeds_never_panic(seed in any::<prop::sample::Index>(), edits in edits()) {
        let seeds = inputs();
        let mut v = seed.get(&seeds).clone();
        const ALPHABET: &[u8] = b"{}[]\":,-.e0123456789nul<>/";
        for (kind, pos, byte) in edits {
            let pos = pos % (v.len() + 1);
            match kind {
                0 if !v.is_empty() => {
                    let i = pos.min(v.len() - 1);
                    v[i] ^= 1 << (byte % 8);
                }
                1 => v.insert(pos, ALPHABET[byte as usize % ALPHABET.len()]),
                2 => v.truncate(pos),
                _ => {
                    // a digit changed in place keeps the JSON valid: a tampered value
                    if let Some(i) = v[pos.min(v.len())..].iter().position(u8::is_ascii_digit) {
                        let at = pos + i;
                        v[at] = b'0' + byte % 10;
                    }
                }
            }
        }
        record_fuzz_check(&v);
    }
}
