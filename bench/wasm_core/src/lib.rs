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
use calibscope_core::synth;
use std::cell::RefCell;

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

/// `n x k` f32 logits ([`synth::boosted_logits`], seed 7).
#[no_mangle]
pub extern "C" fn setup_multiclass(n: usize, k: usize) {
    let (z, y) = synth::boosted_logits(n, k, 7);
    DATA.with(|d| {
        let mut d = d.borrow_mut();
        d.rows = (0..n).step_by(2).collect();
        (d.z, d.y, d.k) = (z, y, k);
    });
}

/// `n` binary logits ([`synth::separated_logits`], seed 11).
#[no_mangle]
pub extern "C" fn setup_binary(n: usize) {
    let (s, yb) = synth::separated_logits(n, 11);
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

/// The registered files parsed (in 1 MiB slices, as the audit reads them) and
/// nothing more: the number of samples read.
#[no_mangle]
pub extern "C" fn parse() -> usize {
    use calibscope_io::{Options, Parser};
    FILES.with(|f| {
        f.borrow()
            .iter()
            .map(|(name, data)| {
                let mut opts = Options::default();
                opts.size_hint = Some(data.len() as u64);
                let mut p = Parser::new(name.clone(), opts);
                for slice in data.chunks(1 << 20) {
                    if p.push(slice).is_err() {
                        break;
                    }
                }
                match p.finish_any() {
                    Ok(calibscope_io::Parsed::Dataset(d)) => d.n(),
                    _ => 0,
                }
            })
            .sum()
    })
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
