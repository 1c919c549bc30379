//! Stable-Rust stand-in for the fuzzer: replays the fuzz seeds and the minimised
//! corpus (crates/share/fuzz/{seeds,corpus}/decode/) through the fuzz check, then
//! mutates the seeds at random (bit flips, byte changes, cuts, inserts). Nothing may
//! panic; whatever decodes must re-encode to the same view.

use calibscope_share::fuzz_check;
use std::path::PathBuf;

fn inputs() -> Vec<Vec<u8>> {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut v = Vec::new();
    for d in [base.join("seeds/decode"), base.join("corpus/decode")] {
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
    assert!(all.len() >= 10, "only {} fuzz inputs", all.len());
    for data in &all {
        fuzz_check(data);
    }
}

#[test]
fn randomized_mutations() {
    let seeds = inputs();
    let mut x = 0x5eed_u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    const ALPHABET: &[u8] = b"ABab09-_=#{}[]\":,a1";
    for _ in 0..3000 {
        let mut v = seeds[next() as usize % seeds.len()].clone();
        for _ in 0..1 + next() % 3 {
            let pos = next() as usize % (v.len() + 1);
            match next() % 4 {
                0 if !v.is_empty() => {
                    let i = pos.min(v.len() - 1);
                    v[i] ^= 1 << (next() % 8);
                }
                1 => v.insert(pos, ALPHABET[next() as usize % ALPHABET.len()]),
                2 => v.truncate(pos),
                _ if !v.is_empty() => {
                    v.remove(pos.min(v.len() - 1));
                }
                _ => {}
            }
        }
        if std::panic::catch_unwind(|| fuzz_check(&v)).is_err() {
            panic!(
                "mutated input fails the fuzz check: {:?}",
                String::from_utf8_lossy(&v)
            );
        }
    }
}
