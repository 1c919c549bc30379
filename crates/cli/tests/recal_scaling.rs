//! `calibscope recalibrate --method vector|matrix|dirichlet`: every row written in
//! input order with its split and `p_<class>` columns, the values equal to the
//! core's fit on the calibration rows the CSV marks (Dirichlet at the ODIR strength
//! the parameters file reports, chosen by cross-validation), and a located refusal
//! for binary input.

use crate::support;
use calibscope_core::recal::scaling::{fit_scaling, Odir, ScalingKind, FINAL};
use calibscope_core::recal::scaling_map::inputs;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use serde_json::Value;
use support::{calibscope, shared};

#[test]
fn multiclass_maps_write_every_row_with_the_core_fits_values() {
    let file = shared().join("fixtures/real/digits_logreg_C1_logits.csv");
    let file = file.to_str().unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let rows: Vec<Vec<f64>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    let k = rows[0].len() - 1;
    let labels: Vec<u32> = rows.iter().map(|r| r[0] as u32).collect();
    let logits: Vec<f64> = rows.iter().flat_map(|r| r[1..].to_vec()).collect();
    let dir = std::env::temp_dir().join(format!("calibscope-recal-scaling-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (method, kind) in [
        ("vector", ScalingKind::Vector),
        ("matrix", ScalingKind::Matrix),
        ("dirichlet", ScalingKind::Dirichlet),
    ] {
        let out = dir.join(format!("{method}.csv"));
        let params = dir.join(format!("{method}.json"));
        let o = calibscope(&[
            "recalibrate",
            file,
            "--method",
            method,
            "--out",
            out.to_str().unwrap(),
            "--params",
            params.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{method}: {stderr}");
        let csv = std::fs::read_to_string(&out).unwrap();
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        let want: Vec<String> = ["label".to_string(), "split".to_string()]
            .into_iter()
            .chain((0..k).map(|r| format!("p_{r}")))
            .collect();
        assert_eq!(header, want, "{method}");
        let got: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(got.len(), labels.len(), "{method}: every row");
        let cal: Vec<usize> = (0..got.len())
            .filter(|&i| got[i][1] == "calibration")
            .collect();
        assert!(!cal.is_empty() && cal.len() < got.len());
        let p: Value = serde_json::from_str(&std::fs::read_to_string(&params).unwrap()).unwrap();
        assert_eq!(p["method"], method);
        let strength = p["lambda"].as_f64().unwrap();
        assert_eq!(p["mu"].as_f64().unwrap(), strength);
        if kind == ScalingKind::Dirichlet {
            let search = &p["odir_search"];
            assert_eq!(search["folds"], 5);
            assert_eq!(search["candidates"].as_array().unwrap().len(), 5);
            assert_eq!(search["chosen"].as_f64().unwrap(), strength);
            assert!(stderr.contains("cross-validation"), "{stderr}");
        } else {
            assert_eq!(strength, 0.0);
        }
        // the core's fit on the calibration rows the CSV marks
        // the inputs as the core reads them (Dirichlet: ln of the audit's softmax)
        let set = PredictionSet {
            labels: labels.clone(),
            scores: Scores::Matrix {
                values: Values::F64(logits.clone()),
                k,
                source: Source::Logits,
            },
            k,
        };
        let all: Vec<usize> = (0..labels.len()).collect();
        let input = inputs(&set, &all, kind).unwrap();
        let x_cal: Vec<f64> = cal
            .iter()
            .flat_map(|&i| input[i * k..(i + 1) * k].to_vec())
            .collect();
        let y_cal: Vec<u32> = cal.iter().map(|&i| labels[i]).collect();
        let odir = Odir {
            lambda: strength,
            mu: strength,
        };
        let fit = fit_scaling(kind, k, &x_cal, &y_cal, odir, None, FINAL).unwrap();
        let mut q = vec![0.0; k];
        for (i, row) in got.iter().enumerate() {
            fit.predict(&input[i * k..(i + 1) * k], &mut q);
            for (r, v) in row[2..].iter().enumerate() {
                let v: f64 = v.parse().unwrap();
                assert!(
                    (v - q[r]).abs() < 1e-12,
                    "{method} row {i} class {r}: {v} vs {}",
                    q[r]
                );
            }
        }
    }
    // binary input: a located refusal naming the two-class alternatives
    let binary = shared().join("fixtures/real/breast_cancer_logreg_logit.csv");
    let o = calibscope(&[
        "recalibrate",
        binary.to_str().unwrap(),
        "--method",
        "dirichlet",
        "--out",
        dir.join("b.csv").to_str().unwrap(),
    ]);
    assert_ne!(o.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("three classes or more"), "{stderr}");
}
