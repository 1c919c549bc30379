//! Throughput and peak-memory benchmark of the parsers.
//!
//! ```text
//! cargo run --release -p calibscope-io --example bench            # 100 MB inputs
//! cargo run --release -p calibscope-io --example bench -- 20      # 20 MB inputs
//! ```
//!
//! Inputs are generated in memory (deterministic), then pushed through [`Parser`] in
//! 32 MiB slices, single-threaded, as the web worker does. Peak memory is measured
//! by a counting allocator: the largest heap growth during the parse, over the size
//! of the parsed columns (the input bytes, held by the caller, are not counted).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use calibscope_io::{parse_bytes_any, Options, Parsed, Parser};

struct Counting;
static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let c = CUR.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(c, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CUR.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let c = CUR.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(c, Ordering::Relaxed);
            } else {
                CUR.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `label,p_0..p_{k-1}` with rows that sum to 1, shortest round-trip decimals (as
/// pandas / numpy write them).
fn csv(target: usize, k: usize) -> Vec<u8> {
    use std::fmt::Write;
    let mut s = String::with_capacity(target + 4096);
    s.push_str("label");
    for j in 0..k {
        write!(s, ",p_{j}").unwrap();
    }
    s.push('\n');
    let mut rng = Rng(1);
    let mut row = vec![0.0; k];
    while s.len() < target {
        let mut sum = 0.0;
        for x in row.iter_mut() {
            *x = rng.unit() + 1e-3;
            sum += *x;
        }
        write!(s, "{}", rng.next() % k as u64).unwrap();
        for x in &row {
            write!(s, ",{}", x / sum).unwrap();
        }
        s.push('\n');
    }
    s.into_bytes()
}

/// `label,p`.
fn csv_binary(target: usize) -> Vec<u8> {
    use std::fmt::Write;
    let mut s = String::with_capacity(target + 64);
    s.push_str("label,p\n");
    let mut rng = Rng(3);
    while s.len() < target {
        writeln!(s, "{},{}", rng.next() % 2, rng.unit()).unwrap();
    }
    s.into_bytes()
}

fn npy(descr: &str, shape: &[usize], data: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_txt = if shape.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape_txt}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

fn run(name: &str, bytes: &[u8], hint: bool) -> (f64, f64, usize) {
    let base = CUR.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let t = Instant::now();
    let opts = Options {
        size_hint: hint.then_some(bytes.len() as u64),
        ..Default::default()
    };
    let mut p = Parser::new(name, opts);
    for chunk in bytes.chunks(32 << 20) {
        let _ = p.push(chunk);
    }
    let parsed = p
        .finish_any()
        .unwrap_or_else(|e| panic!("{name}: {}", e.errors[0]));
    let secs = t.elapsed().as_secs_f64();
    let peak = PEAK.load(Ordering::Relaxed) - base;
    let size = match &parsed {
        Parsed::Dataset(d) => d.byte_size(),
        Parsed::Array(a) => a.byte_size(),
    };
    drop(parsed);
    (
        bytes.len() as f64 / secs / 1e6,
        peak as f64 / size as f64,
        size,
    )
}

fn best(name: &str, bytes: &[u8], hint: bool) -> (f64, f64, usize) {
    let mut out = run(name, bytes, hint);
    for _ in 0..2 {
        let r = run(name, bytes, hint);
        if r.0 > out.0 {
            out.0 = r.0;
        }
        out.1 = out.1.max(r.1);
    }
    out
}

fn main() {
    let mb: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100);
    let target = mb * 1_000_000;
    println!("input size {mb} MB, 32 MiB slices, best of 3, single thread");
    for (k, label) in [(10, "label,p_0..p_9"), (1, "label,p")] {
        let data = if k == 1 {
            csv_binary(target)
        } else {
            csv(target, k)
        };
        for hint in [true, false] {
            let (mbs, mem, size) = best("bench.csv", &data, hint);
            println!(
                "csv {label:<16} {:>7.1} MB  {mbs:>7.0} MB/s  peak {mem:.2}x of {:.1} MB parsed  (size hint: {hint})",
                data.len() as f64 / 1e6,
                size as f64 / 1e6
            );
        }
    }
    // npy: float32 (n, 10) and float64 (n, 10) score arrays, int64 labels
    let n = target / 40;
    let mut rng = Rng(2);
    let f32s: Vec<u8> = (0..n * 10)
        .flat_map(|_| (rng.unit() as f32).to_le_bytes())
        .collect();
    let npy32 = npy("<f4", &[n, 10], &f32s);
    drop(f32s);
    let (mbs, mem, _) = best("x.probs.npy", &npy32, true);
    println!(
        "npy <f4 (n,10)          {:>7.1} MB  {mbs:>7.0} MB/s  peak {mem:.2}x",
        npy32.len() as f64 / 1e6
    );
    let (mbs, mem, _) = best("x.probs.npy", &npy32, false);
    println!(
        "npy <f4 (n,10) no hint  {:>7.1} MB  {mbs:>7.0} MB/s  peak {mem:.2}x",
        npy32.len() as f64 / 1e6
    );
    let f64s: Vec<u8> = (0..n * 5).flat_map(|_| rng.unit().to_le_bytes()).collect();
    let npy64 = npy("<f8", &[n / 2, 10], &f64s);
    drop(f64s);
    let (mbs, mem, _) = best("x.probs.npy", &npy64, true);
    println!(
        "npy <f8 (n,10)          {:>7.1} MB  {mbs:>7.0} MB/s  peak {mem:.2}x",
        npy64.len() as f64 / 1e6
    );
    let be: Vec<u8> = (0..n * 10)
        .flat_map(|_| (rng.unit() as f32).to_be_bytes())
        .collect();
    let npybe = npy(">f4", &[n, 10], &be);
    drop(be);
    let (mbs, _, _) = best("x.probs.npy", &npybe, true);
    println!(
        "npy >f4 (n,10)          {:>7.1} MB  {mbs:>7.0} MB/s",
        npybe.len() as f64 / 1e6
    );
    drop(npybe);
    // structured: label i8 + 10 f4 fields
    let rows = target / 48;
    let mut st = Vec::with_capacity(rows * 48);
    for _ in 0..rows {
        st.extend_from_slice(&((rng.next() % 10) as i64).to_le_bytes());
        for _ in 0..10 {
            st.extend_from_slice(&(rng.unit() as f32).to_le_bytes());
        }
    }
    let fields: Vec<String> = (0..10).map(|j| format!("('logit_{j}', '<f4')")).collect();
    let descr = format!("[('label', '<i8'), {}]", fields.join(", "));
    let mut h = format!("{{'descr': {descr}, 'fortran_order': False, 'shape': ({rows},), }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut sn = b"\x93NUMPY\x01\x00".to_vec();
    sn.extend_from_slice(&(h.len() as u16).to_le_bytes());
    sn.extend_from_slice(h.as_bytes());
    sn.extend_from_slice(&st);
    drop(st);
    let (mbs, mem, _) = best("s.npy", &sn, true);
    println!(
        "npy structured i8+10×f4 {:>7.1} MB  {mbs:>7.0} MB/s  peak {mem:.2}x",
        sn.len() as f64 / 1e6
    );
    drop(sn);
    // npz, stored (as np.savez writes) and deflated (np.savez_compressed)
    let labels: Vec<u8> = (0..n)
        .flat_map(|_| ((rng.next() % 10) as i64).to_le_bytes())
        .collect();
    let lab = npy("<i8", &[n], &labels);
    for deflate in [false, true] {
        let z = zip(&[("labels.npy", &lab), ("logits.npy", &npy32)], deflate);
        let (mbs, mem, _) = best("x.npz", &z, true);
        println!(
            "npz {} {:>7.1} MB  {mbs:>7.0} MB/s  peak {mem:.2}x   (input MB/s)",
            if deflate {
                "deflated          "
            } else {
                "stored            "
            },
            z.len() as f64 / 1e6
        );
    }
    let _ = parse_bytes_any;
}

fn zip(members: &[(&str, &[u8])], deflate: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (name, data) in members {
        let crc = crc32(data);
        let comp = if deflate {
            miniz_oxide::deflate::compress_to_vec(data, 1)
        } else {
            data.to_vec()
        };
        let mut extra = Vec::new();
        extra.extend_from_slice(&1u16.to_le_bytes());
        extra.extend_from_slice(&16u16.to_le_bytes());
        extra.extend_from_slice(&(data.len() as u64).to_le_bytes());
        extra.extend_from_slice(&(comp.len() as u64).to_le_bytes());
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&(if deflate { 8u16 } else { 0 }).to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&crc.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&u32::MAX.to_le_bytes());
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&extra);
        out.extend_from_slice(&comp);
    }
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 18]);
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(data);
    h.finalize()
}
