//! Stable-Rust stand-in for the fuzzers: replays the fuzz seeds and the minimised
//! corpora (crates/io/fuzz/{seeds,corpus}/<target>/) through the fuzz check, then
//! runs a randomized mutation test (bit flips, inserts, deletes, truncation,
//! splices) from the seeds. Nothing may panic; whole and sliced parses must agree.

use std::path::PathBuf;

use calibscope_io::fuzz::{check, Target};

fn dirs(t: &str) -> Vec<PathBuf> {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    vec![base.join("seeds").join(t), base.join("corpus").join(t)]
}

fn files(t: &str) -> Vec<Vec<u8>> {
    let mut v = Vec::new();
    for d in dirs(t) {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            v.push(std::fs::read(&p).unwrap());
        }
    }
    v
}

const TARGETS: &[(&str, Target)] = &[
    ("csv", Target::Csv),
    ("json", Target::Json),
    ("npy", Target::Npy),
    ("npz", Target::Npz),
    ("gzip", Target::Gzip),
    ("zstd", Target::Zstd),
    #[cfg(feature = "columnar")]
    ("parquet", Target::Parquet),
    #[cfg(feature = "columnar")]
    ("arrow", Target::Arrow),
];

#[test]
fn replay_seeds_and_corpus() {
    for &(name, t) in TARGETS {
        let inputs = files(name);
        assert!(!inputs.is_empty(), "no seeds for {name}");
        for data in &inputs {
            check(t, data);
        }
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const INTERESTING: &[&[u8]] = &[
    b",",
    b"\"",
    b"\n",
    b"\r\n",
    b";",
    b"\t",
    b"NaN",
    b"-inf",
    b"1e308",
    b"-0",
    b".5",
    b"\xff",
    b"\x00",
    b"[",
    b"{",
    b"}",
    b"]",
    b":",
    b"p_",
    b"label",
    b"\xff\xff\xff\xff",
    b"\x01\x00",
    b"PK\x03\x04",
    b"PK\x01\x02",
    b"'shape': (",
    b"'descr': '<f8'",
    b"PAR1",
    b"ARROW1",
    b"\xff\xff\xff\xff",
    b"\x15\x00",
];

fn mutate(rng: &mut Rng, seed: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let pos = rng.below(v.len() + 1);
        match rng.below(7) {
            0 if !v.is_empty() => {
                let i = pos.min(v.len() - 1);
                v[i] ^= 1 << rng.below(8);
            }
            1 if !v.is_empty() => {
                let i = pos.min(v.len() - 1);
                v[i] = rng.next() as u8;
            }
            2 => {
                let ins = INTERESTING[rng.below(INTERESTING.len())];
                v.splice(pos..pos, ins.iter().copied());
            }
            3 if !v.is_empty() => {
                let end = (pos + 1 + rng.below(16)).min(v.len());
                v.drain(pos.min(end)..end);
            }
            4 => v.truncate(pos),
            5 if !other.is_empty() => {
                let a = rng.below(other.len());
                let b = (a + 1 + rng.below(64)).min(other.len());
                v.splice(pos..pos, other[a..b].iter().copied());
            }
            _ => {
                // duplicate a chunk (repeats rows / members)
                if !v.is_empty() {
                    let a = rng.below(v.len());
                    let b = (a + 1 + rng.below(128)).min(v.len());
                    let chunk = v[a..b].to_vec();
                    v.splice(pos..pos, chunk);
                }
            }
        }
    }
    v
}

#[test]
fn randomized_mutations() {
    let rounds: usize = std::env::var("CALIBSCOPE_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1500);
    let mut rng = Rng(0x5eed);
    for &(name, t) in TARGETS {
        let seeds: Vec<Vec<u8>> = files(name)
            .into_iter()
            .filter(|s| s.len() <= 64 * 1024)
            .collect();
        for _ in 0..rounds {
            let s = &seeds[rng.below(seeds.len())];
            let o = &seeds[rng.below(seeds.len())];
            let m = mutate(&mut rng, s, o);
            let r = std::panic::catch_unwind(|| check(t, &m));
            if r.is_err() {
                let path = std::env::temp_dir().join(format!("calibscope-io-crash-{name}.bin"));
                std::fs::write(&path, &m).unwrap();
                panic!(
                    "{name}: mutated input fails the fuzz check; saved to {}",
                    path.display()
                );
            }
        }
    }
}
