//! Every supported NumPy form (`.npy` dtypes, orders and versions, structured
//! arrays, `.npz` stored and deflated), on small inline inputs.

use crate::common;
use common::build::*;
use common::inline::*;

use calibscope_core::{Kind, Scores, Values};
use calibscope_io::{npy_pair, parse_bytes_any, Format, Options, Parsed, Source};

#[test]
fn npy_dtypes_orders_versions() {
    let labels = [0i64, 2, 1];
    let probs = [0.7f32, 0.2, 0.1, 0.1, 0.1, 0.8, 0.25, 0.5, 0.25];
    let want: Vec<f64> = probs.iter().map(|&x| x as f64).collect();
    let lab = labels_npy(&labels);
    let check = |what: &str, scores_npy: Vec<u8>, f32_storage: bool| {
        let la = match parse_bytes_any("x.labels.npy", &lab, &Options::default()).unwrap() {
            Parsed::Array(a) => a,
            _ => panic!(),
        };
        let sa = match parse_bytes_any("x.probs.npy", &scores_npy, &Options::default()) {
            Ok(Parsed::Array(a)) => a,
            other => panic!("{what}: {other:?}"),
        };
        let d = npy_pair("x", la, sa, Source::Probs, &Options::default())
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(d.format, Format::NpyPair);
        assert_eq!(d.models[0].1.labels, vec![0, 2, 1], "{what}");
        assert_eq!(d.models[0].1.k, 3, "{what}");
        let got = scores(&d);
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-3, "{what}: {got:?}");
        }
        match &d.models[0].1.scores {
            Scores::Matrix {
                values: Values::F32(_),
                ..
            } => assert!(f32_storage, "{what}"),
            Scores::Matrix {
                values: Values::F64(_),
                ..
            } => assert!(!f32_storage, "{what}"),
            _ => panic!(),
        }
    };
    check("f4", npy("<f4", &[3, 3], false, &le_f32(&probs), 1), true);
    check(
        "f4 v2",
        npy("<f4", &[3, 3], false, &le_f32(&probs), 2),
        true,
    );
    check(
        "f4 v3",
        npy("<f4", &[3, 3], false, &le_f32(&probs), 3),
        true,
    );
    let be: Vec<u8> = probs.iter().flat_map(|x| x.to_be_bytes()).collect();
    check("f4 big-endian", npy(">f4", &[3, 3], false, &be, 1), true);
    let f8: Vec<f64> = probs.iter().map(|&x| x as f64).collect();
    check("f8", npy("<f8", &[3, 3], false, &le_f64(&f8), 1), false);
    let f8be: Vec<u8> = f8.iter().flat_map(|x| x.to_be_bytes()).collect();
    check("f8 big-endian", npy(">f8", &[3, 3], false, &f8be, 1), false);
    // Fortran order: column-major data
    let mut fo = Vec::new();
    for c in 0..3 {
        for r in 0..3 {
            fo.push(probs[r * 3 + c]);
        }
    }
    check("fortran", npy("<f4", &[3, 3], true, &le_f32(&fo), 1), true);
    // float16: 0.7 etc. are not exact; the check allows 1e-3
    let f2: Vec<u8> = probs
        .iter()
        .flat_map(|&x| f32_to_f16(x).to_le_bytes())
        .collect();
    check("f2", npy("<f2", &[3, 3], false, &f2, 1), true);

    // integer label dtypes
    for (descr, bytes) in [
        ("|i1", vec![0u8, 2, 1]),
        ("|u1", vec![0u8, 2, 1]),
        ("<i2", vec![0, 0, 2, 0, 1, 0]),
        (">u2", vec![0, 0, 0, 2, 0, 1]),
        (
            "<i4",
            [0i32, 2, 1].iter().flat_map(|x| x.to_le_bytes()).collect(),
        ),
        (
            "<u8",
            [0u64, 2, 1].iter().flat_map(|x| x.to_le_bytes()).collect(),
        ),
        (
            ">i8",
            [0i64, 2, 1].iter().flat_map(|x| x.to_be_bytes()).collect(),
        ),
    ] {
        let l = npy(descr, &[3], false, &bytes, 1);
        let la = match parse_bytes_any("x.labels.npy", &l, &Options::default()).unwrap() {
            Parsed::Array(a) => a,
            _ => panic!(),
        };
        let sa = match parse_bytes_any(
            "x.probs.npy",
            &npy("<f4", &[3, 3], false, &le_f32(&probs), 1),
            &Options::default(),
        )
        .unwrap()
        {
            Parsed::Array(a) => a,
            _ => panic!(),
        };
        let d = npy_pair("x", la, sa, Source::Probs, &Options::default()).unwrap();
        assert_eq!(d.models[0].1.labels, vec![0, 2, 1], "{descr}");
    }
    // bool labels with a 1-D binary column
    let l = npy("|b1", &[2], false, &[1, 0], 1);
    let la = match parse_bytes_any("x.labels.npy", &l, &Options::default()).unwrap() {
        Parsed::Array(a) => a,
        _ => panic!(),
    };
    let sa = match parse_bytes_any(
        "x.logits.npy",
        &npy("<f8", &[2], false, &le_f64(&[2.0, -1.0]), 1),
        &Options::default(),
    )
    .unwrap()
    {
        Parsed::Array(a) => a,
        _ => panic!(),
    };
    let d = npy_pair("x", la, sa, Source::Logits, &Options::default()).unwrap();
    assert_eq!(d.models[0].1.source(), Source::Logits);
    assert_eq!(d.models[0].1.columns(), 1);
}

fn f32_to_f16(x: f32) -> u16 {
    // enough for values in [0, 1] (normal range, truncating)
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127 + 15;
    let man = (b >> 13) & 0x3ff;
    ((exp as u32) << 10 | man) as u16
}

#[test]
fn structured_npy() {
    // label i8, padding, p as a sub-array of 3 float32
    let descr = "[('label', '<i8'), ('', '|V4'), ('probs', '<f4', (3,))]";
    let mut data = Vec::new();
    for (l, p) in [(0i64, [0.7f32, 0.2, 0.1]), (2, [0.1, 0.1, 0.8])] {
        data.extend_from_slice(&l.to_le_bytes());
        data.extend_from_slice(&[0; 4]);
        data.extend_from_slice(&le_f32(&p));
    }
    let d = ok("s.npy", &npy(descr, &[2], false, &data, 1));
    assert_eq!(d.format, Format::Npy);
    assert_eq!(d.models[0].1.k, 3);
    assert_eq!(d.models[0].1.labels, vec![0, 2]);
    // label + p_0..p_2 fields, mixed f4/f8 -> f64 storage
    let descr = "[('y', '<i4'), ('p_0', '<f4'), ('p_1', '<f8'), ('p_2', '<f4')]";
    let mut data = Vec::new();
    data.extend_from_slice(&1i32.to_le_bytes());
    data.extend_from_slice(&0.25f32.to_le_bytes());
    data.extend_from_slice(&0.5f64.to_le_bytes());
    data.extend_from_slice(&0.25f32.to_le_bytes());
    let d = ok("s.npy", &npy(descr, &[1], false, &data, 1));
    assert_eq!(scores(&d), vec![0.25, 0.5, 0.25]);
    // top-label fields
    let descr = "[('label', '<i8'), ('yhat', '<i8'), ('conf', '<f4')]";
    let mut data = Vec::new();
    data.extend_from_slice(&le_i64(&[1, 1]));
    data.extend_from_slice(&le_f32(&[0.75]));
    let d = ok("s.npy", &npy(descr, &[1], false, &data, 1));
    assert_eq!(d.models[0].1.kind(), Kind::TopLabel);
    // a plain array alone needs its pair
    let e = err("s.npy", &npy("<f4", &[2], false, &le_f32(&[0.5, 0.5]), 1));
    assert_eq!(e.codes(), ["npy_needs_pair"]);
}

#[test]
fn npz_stored_and_deflated() {
    let lab = labels_npy(&[0, 2, 1]);
    let probs = npy(
        "<f4",
        &[3, 3],
        false,
        &le_f32(&[0.7, 0.2, 0.1, 0.1, 0.1, 0.8, 0.25, 0.5, 0.25]),
        1,
    );
    let logits = npy(
        "<f8",
        &[3, 3],
        false,
        &le_f64(&[1.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 2.0, 0.0]),
        1,
    );
    for deflate in [false, true] {
        let z = zip(&[("labels.npy", &lab), ("probs.npy", &probs)], deflate);
        let d = ok("a.npz", &z);
        assert_eq!(d.format, Format::Npz);
        assert_eq!(d.models[0].1.k, 3);
        assert_eq!(d.models[0].1.labels, vec![0, 2, 1]);
        assert_eq!(d.models[0].1.source(), Source::Probs);
        // members in any order, extra members ignored
        let z = zip(
            &[
                ("logits.npy", &logits),
                ("notes.txt", b"hello"),
                ("y.npy", &lab),
            ],
            deflate,
        );
        let d = ok("a.npz", &z);
        assert_eq!(d.models[0].1.source(), Source::Logits);
        assert_eq!(d.detection.ignored, ["notes.txt"]);
    }
}

#[test]
fn npz_as_python_writes_them() {
    // zipfile to a seekable file (np.savez), deflated (np.savez_compressed) and to a
    // non-seekable stream (data descriptors after each member)
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/npz");
    for f in ["stored.npz", "deflated.npz", "streamed.npz"] {
        let bytes = std::fs::read(dir.join(f)).unwrap();
        let d = ok(f, &bytes);
        assert_eq!(d.models[0].1.labels, vec![0, 2, 1], "{f}");
        assert_eq!(d.models[0].1.k, 3, "{f}");
    }
}
