//! Micro-benchmark of the bootstrap's count layouts (BENCHMARKS.md, "The bootstrap's
//! floor"): per replicate of 1M rows, the random increments of the draws' rows, the
//! gather of the counts into sorted order and the 4-lane block sums over the
//! forecasts, for one byte per row (`1`), two replicates in two bytes (`2`) and two
//! replicates in a nibble each (`3`, what `calibscope_core::bootstrap` does). The draws
//! are made beforehand (`0` times only that). Compare user CPU, not wall time:
//!
//! rustc -O --edition 2021 bench/bootstrap_layouts.rs -o /tmp/bootstrap_layouts
//! for v in 0 1 2 3; do perf stat -x, -e task-clock /tmp/bootstrap_layouts $v; done
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;
#[inline(always)]
fn sm(seed: u64, t: u64) -> u64 {
    let mut z = seed.wrapping_add(t.wrapping_add(1).wrapping_mul(GAMMA));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
fn rows_of(r: usize, n: usize, out: &mut Vec<u32>) {
    out.clear();
    for j in 0..n {
        out.push(
            ((sm(0, (r * n + j) as u64) >> 11) as f64 * (1.0 / (1u64 << 53) as f64) * n as f64)
                as u32,
        );
    }
}
fn blocksum(c: &[u8], u: &[f64]) -> f64 {
    let mut s = [0.0; 4];
    for (c4, u4) in c.chunks_exact(4).zip(u.chunks_exact(4)) {
        for k in 0..4 {
            s[k] += c4[k] as f64 * u4[k];
        }
    }
    (s[0] + s[1]) + (s[2] + s[3])
}
fn main() {
    let v: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let n = 999_936usize;
    let reps = 40;
    let mut order: Vec<u32> = (0..n as u32).collect();
    for i in (1..n).rev() {
        let j = (sm(99, i as u64) % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let u: Vec<f64> = (0..n).map(|i| i as f64 / n as f64).collect();
    let mut draws: Vec<Vec<u32>> = Vec::new();
    for r in 0..reps {
        let mut d = Vec::new();
        rows_of(r, n, &mut d);
        draws.push(d);
    } // precomputed: measure the rest
    if v == 0 {
        println!("setup");
        return;
    }
    let (mut s0, mut s1) = (vec![0u8; n], vec![0u8; n]);
    let mut tot = 0.0;
    let t = std::time::Instant::now();
    match v {
        1 => {
            let mut pr = vec![0u8; n];
            for r in 0..reps {
                for &row in &draws[r] {
                    let c = &mut pr[row as usize];
                    if *c == 255 {
                        panic!()
                    }
                    *c += 1;
                }
                for b in (0..n).step_by(256) {
                    for p in b..b + 256 {
                        s0[p] = pr[order[p] as usize];
                    }
                    tot += blocksum(&s0[b..b + 256], &u[b..b + 256]);
                }
                pr.iter_mut().for_each(|c| *c = 0);
            }
        }
        2 => {
            let mut pr = vec![[0u8; 2]; n];
            for r in (0..reps).step_by(2) {
                for k in 0..2 {
                    for &row in &draws[r + k] {
                        let c = &mut pr[row as usize][k];
                        if *c == 255 {
                            panic!()
                        }
                        *c += 1;
                    }
                }
                for b in (0..n).step_by(256) {
                    for p in b..b + 256 {
                        let c = pr[order[p] as usize];
                        s0[p] = c[0];
                        s1[p] = c[1];
                    }
                    tot += blocksum(&s0[b..b + 256], &u[b..b + 256])
                        + blocksum(&s1[b..b + 256], &u[b..b + 256]);
                }
                pr.iter_mut().for_each(|c| *c = [0; 2]);
            }
        }
        3 => {
            let mut pr = vec![0u8; n];
            for r in (0..reps).step_by(2) {
                for k in 0..2 {
                    let sh = 4 * k;
                    for &row in &draws[r + k] {
                        let c = &mut pr[row as usize];
                        if (*c >> sh) & 15 == 15 {
                            panic!()
                        }
                        *c += 1 << sh;
                    }
                }
                for b in (0..n).step_by(256) {
                    for p in b..b + 256 {
                        let c = pr[order[p] as usize];
                        s0[p] = c & 15;
                        s1[p] = c >> 4;
                    }
                    tot += blocksum(&s0[b..b + 256], &u[b..b + 256])
                        + blocksum(&s1[b..b + 256], &u[b..b + 256]);
                }
                pr.iter_mut().for_each(|c| *c = 0);
            }
        }
        _ => {}
    }
    println!(
        "V{v} {:.3} ms/rep {tot}",
        t.elapsed().as_secs_f64() * 1e3 / reps as f64
    );
}
