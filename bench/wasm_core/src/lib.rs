//! Exports for `bench/wasm_core.mjs`.
//!
//! - The fit: generate the bench's data inside the module, then fit (the contract's
//!   procedure, on the f = 0.5 calibration half: every other row) with screening on
//!   or off. Returns tau.
//! - The audit: files copied into the module's memory (`alloc` + `add_file`), then
//!   `audit` does what `calibscope audit FILES --json --bins 15 --no-recalibration`
//!   does after reading them: parse (1 MiB slices), assemble, audit, pretty JSON.
//!   Returns the JSON's length.
//!
//! Node times the calls.

use calibscope_core::recal::{BinaryNll, MulticlassNll, TemperatureObjective, TemperatureOptions};
use calibscope_core::split::SplitMix64;
use std::cell::RefCell;

/// The bench's streams: SplitMix64 (the core's) and Box–Muller normals.
struct Rng(SplitMix64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn uniform(&mut self) -> f64 {
        self.0.next_f64()
    }
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform().max(1e-300), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

#[derive(Default)]
struct Data {
    z: Vec<f32>,
    y: Vec<u32>,
    k: usize,
    s: Vec<f64>,
    yb: Vec<u8>,
    rows: Vec<usize>,
    rows_b: Vec<usize>,
}

thread_local! {
    static DATA: RefCell<Data> = RefCell::new(Data::default());
}

/// `n x k` f32 logits: N(0, 3^2) noise, the true class boosted by 6 in 80 % of rows.
#[no_mangle]
pub extern "C" fn setup_multiclass(n: usize, k: usize) {
    let mut rng = Rng(SplitMix64::new(7));
    let mut z = Vec::with_capacity(n * k);
    let mut y = Vec::with_capacity(n);
    for _ in 0..n {
        let label = (rng.next_u64() % k as u64) as usize;
        let boost = if rng.uniform() < 0.8 { 6.0 } else { 0.0 };
        for r in 0..k {
            let b = if r == label { boost } else { 0.0 };
            z.push((3.0 * rng.normal() + b) as f32);
        }
        y.push(label as u32);
    }
    DATA.with(|d| {
        let mut d = d.borrow_mut();
        d.rows = (0..n).step_by(2).collect();
        (d.z, d.y, d.k) = (z, y, k);
    });
}

/// `n` binary logits `s = 4 (2y - 1) + N(0, 3^2)`.
#[no_mangle]
pub extern "C" fn setup_binary(n: usize) {
    let mut rng = Rng(SplitMix64::new(11));
    let yb: Vec<u8> = (0..n).map(|_| (rng.next_u64() & 1) as u8).collect();
    let s = yb
        .iter()
        .map(|&v| 4.0 * (2.0 * v as f64 - 1.0) + 3.0 * rng.normal())
        .collect();
    DATA.with(|d| {
        let mut d = d.borrow_mut();
        d.rows_b = (0..n).step_by(2).collect();
        (d.s, d.yb) = (s, yb);
    });
}

/// `flags`: bit 0 screening, bit 1 no expansion.
fn options(flags: i32) -> TemperatureOptions {
    TemperatureOptions {
        screening: flags & 1 != 0,
        expansion: flags & 2 == 0,
        ..TemperatureOptions::default()
    }
}

/// One direct NLL pass over the multiclass calibration half at two taus.
#[no_mangle]
pub extern "C" fn nll2_multiclass() -> f64 {
    DATA.with(|d| {
        let d = d.borrow();
        let o = MulticlassNll::new(&d.z, d.k, &d.y, Some(&d.rows)).unwrap();
        let mut out = [0.0; 2];
        o.nll_many(&[1.3, 1.4], &mut out);
        out[0]
    })
}

#[no_mangle]
pub extern "C" fn fit_multiclass(screening: i32) -> f64 {
    DATA.with(|d| {
        let d = d.borrow();
        MulticlassNll::new(&d.z, d.k, &d.y, Some(&d.rows))
            .map_or(f64::NAN, |o| o.fit(&options(screening)).tau)
    })
}

#[no_mangle]
pub extern "C" fn fit_binary(screening: i32) -> f64 {
    DATA.with(|d| {
        let d = d.borrow();
        BinaryNll::new(&d.s, &d.yb, Some(&d.rows_b))
            .map_or(f64::NAN, |o| o.fit(&options(screening)).tau)
    })
}

thread_local! {
    static FILES: RefCell<Vec<(String, Vec<u8>)>> = const { RefCell::new(Vec::new()) };
}

/// A buffer of `len` bytes for the caller to fill (leaked until `add_file`).
#[no_mangle]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    let mut v = vec![0u8; len];
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Registers a file: its name (`name`, `name_len` bytes of UTF-8) and contents, both
/// from [`alloc`] (ownership passes to the module).
///
/// # Safety
/// Both pointers come from [`alloc`] with exactly these lengths.
#[no_mangle]
pub unsafe extern "C" fn add_file(name: *mut u8, name_len: usize, data: *mut u8, len: usize) {
    let name =
        String::from_utf8(Vec::from_raw_parts(name, name_len, name_len)).expect("UTF-8 name");
    let data = Vec::from_raw_parts(data, len, len);
    FILES.with(|f| f.borrow_mut().push((name, data)));
}

/// The audit of the registered files (see the module docs); the length of its JSON.
#[no_mangle]
pub extern "C" fn audit() -> usize {
    use calibscope_audit::{audit_document, AuditOptions};
    use calibscope_io::{Options, Parser};
    FILES.with(|f| {
        let files = f.borrow();
        let options = Options::default();
        let parsed = files
            .iter()
            .map(|(name, data)| {
                let mut opts = options.clone();
                opts.size_hint = Some(data.len() as u64);
                let mut p = Parser::new(name.clone(), opts);
                for slice in data.chunks(1 << 20) {
                    if p.push(slice).is_err() {
                        break;
                    }
                }
                (name.clone(), p.finish_any())
            })
            .collect();
        let dataset = calibscope_io::assemble(parsed, &options);
        let audit_options = AuditOptions {
            m_values: vec![15],
            recalibration: None,
            roc_max_n: 300,
        };
        let doc = audit_document(&dataset, &files[0].0, &audit_options);
        serde_json::to_string_pretty(&doc).expect("JSON").len()
    })
}
