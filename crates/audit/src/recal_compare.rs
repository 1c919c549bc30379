//! The recalibration section's `comparison`: which set is best on the evaluation
//! split by NLL, by ECE and by risk (P_risk), and whether the best beats the
//! runner-up beyond noise (calibscope-core's `recal::compare`, the paired bootstrap
//! of METRICS.md §8 on the evaluation rows):
//!
//! ```json
//! {"replicates": 200, "seed": 0, "alpha": 0.05, "sets": ["before", "temperature", …],
//!  "nll": {"best": "beta", "runner_up": "platt", "share": 0.97, "within_noise": false,
//!          "points": {"before": 0.31, "temperature": 0.29, …}},
//!  "ece": {…}, "risk": {…}}
//! ```
//!
//! `share` is the share of replicates in which the best stays below the runner-up;
//! the difference is within noise unless `share >= 1 - alpha/2` (the rule of the
//! ranking flips, [`crate::flips_noise::stable_share`]). No share (a tie of the two
//! lowest, or fewer than two defined sets) is within noise.

use crate::flips_noise::stable_share;
use crate::{evaluation_after, num, Method};
use calibscope_core::bootstrap::BootstrapSettings;
use calibscope_core::recal::apply::Recalibration;
use calibscope_core::recal::compare::compare_sets;
use serde_json::{json, Map, Value};

/// The comparison of `run`'s input ("before") and every method defined in it, or
/// `None` when the evaluation split is empty.
pub fn comparison_json(run: &Recalibration, settings: &BootstrapSettings) -> Option<Value> {
    let mut names = vec!["before"];
    let mut sets = vec![&run.before];
    for m in Method::EVERY {
        if let Ok(after) = evaluation_after(run, m) {
            names.push(m.name());
            sets.push(after);
        }
    }
    let rankings = compare_sets(&sets, settings)?;
    let mut o = Map::new();
    o.insert("replicates".into(), json!(settings.replicates));
    o.insert("seed".into(), json!(settings.seed));
    o.insert("alpha".into(), json!(settings.alpha));
    o.insert("sets".into(), json!(names));
    for r in rankings {
        let name = |i: Option<usize>| i.map_or(Value::Null, |i| json!(names[i]));
        let points: Map<String, Value> = names
            .iter()
            .zip(&r.points)
            .map(|(n, &p)| (n.to_string(), num(p)))
            .collect();
        let within = !r.share.is_some_and(|s| s >= stable_share(settings.alpha));
        o.insert(
            r.criterion.name().into(),
            json!({
                "best": name(r.best),
                "runner_up": name(r.runner_up),
                "share": num(r.share),
                "within_noise": within,
                "points": points,
            }),
        );
    }
    Some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use calibscope_core::recal::apply::recalibrate;
    use calibscope_core::recal::prob_maps::{fit_prob_maps, Bins};
    use calibscope_core::synth::boosted_logits;
    use calibscope_core::{PredictionSet, Scores, Source, Values};

    #[test]
    fn every_defined_method_is_compared_and_the_noise_rule_applies() {
        let (z, y) = boosted_logits(3_000, 3, 4);
        let set = PredictionSet {
            labels: y,
            scores: Scores::Matrix {
                values: Values::F32(z),
                k: 3,
                source: Source::Logits,
            },
            k: 3,
        };
        let mut run = recalibrate(&set, 0, 0.5);
        fit_prob_maps(&set, &mut run, Bins::Fixed(15));
        let settings = BootstrapSettings {
            replicates: 100,
            threads: 1,
            ..BootstrapSettings::default()
        };
        let c = comparison_json(&run, &settings).unwrap();
        assert_eq!(
            c["sets"],
            json!([
                "before",
                "temperature",
                "platt",
                "isotonic",
                "beta",
                "histogram",
                "venn_abers"
            ])
        );
        for key in ["nll", "ece", "risk"] {
            let e = &c[key];
            assert_eq!(e["points"].as_object().unwrap().len(), 7, "{key}");
            let best = e["best"].as_str().unwrap();
            let low = e["points"]
                .as_object()
                .unwrap()
                .values()
                .filter_map(Value::as_f64)
                .fold(f64::INFINITY, f64::min);
            assert_eq!(e["points"][best].as_f64(), Some(low), "{key}");
            let share = e["share"].as_f64();
            assert_eq!(
                e["within_noise"],
                json!(!share.is_some_and(|s| s >= 0.975)),
                "{key}"
            );
        }
        // the ledger's NLL and ECE of each set are the comparison's points
        let section = crate::recalibration_json_of(&set, &Default::default(), &run);
        for (name, path) in [
            ("before", "before"),
            ("beta", "beta.after"),
            ("platt", "platt.after"),
        ] {
            let ledger = crate::summary::get_dotted(&section, path).unwrap();
            let close =
                |a: &Value, b: &Value| (a.as_f64().unwrap() - b.as_f64().unwrap()).abs() < 1e-9;
            assert!(
                close(&ledger["nll"], &c["nll"]["points"][name]),
                "{name} nll"
            );
            assert!(
                close(&ledger["ece_conf_width_15"], &c["ece"]["points"][name]),
                "{name} ece"
            );
            assert!(
                close(&ledger["p_risk"], &c["risk"]["points"][name]),
                "{name} p_risk"
            );
        }
        // the report's and the summary's tables carry every method and the comparison
        let mut section = section;
        section["comparison"] = c.clone();
        let doc = json!({"input": {"kind": "multiclass"}, "recalibration": section});
        let t = crate::summary::recalibration(&doc, &[]);
        assert_eq!(t.headers.len(), 1 + 7);
        assert_eq!(t.headers[5], "after beta");
        assert_eq!(t.headers[7], "after Venn–Abers");
        let best = crate::summary::recalibration_best(&doc, &[]).unwrap();
        assert_eq!(best.lines.len(), 3);
        assert_eq!(
            best.lines[0].columns[0][0].show(&doc),
            c["nll"]["best"].as_str().unwrap()
        );
        assert!(crate::summary::recalibration_best(&json!({}), &[]).is_none());
    }
}
