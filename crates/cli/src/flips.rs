//! `calibscope flips`: the tables of the app's "Ranking flips" view — per metric, the
//! ranks and values at each bin count, the Spearman matrix with the flips between
//! bin counts, Spearman against the classification error, and the flipped pairs.
//! With `--temperature-first`, every model is first temperature-scaled on the
//! Recalibrate view's default split and ranked on the evaluation split
//! (`calibscope_audit::scaled_first`, the record's and the app's computation).

use crate::commands::{binning, check_bins, input_failure, read, write_stdout, Failure, Outcome};
use crate::FlipsArgs;
use calibscope_audit::flips_noise::noise_sections;
use calibscope_audit::{
    ranked_values, scaled_first, sets_to_rank, sweep_json, temperature_json, ClassReadings,
};
use calibscope_core::rank::ranking_sweep;
use calibscope_core::sweep::{clip_bins, ModelIndex, RankedMetric};
use serde_json::{json, Map, Value};

/// A metric's values per bin count (`[j][i]`: model `i` at `bins[j]`), or why not.
type Values = Result<Vec<Vec<f64>>, String>;

/// [`ranked_values`], naming the metrics that rank without class readings when it
/// says no.
fn values_of(
    models: &[ModelIndex],
    readings: &ClassReadings,
    metric: RankedMetric,
    binning: calibscope_core::binning::Binning,
    bins: &[usize],
) -> Values {
    ranked_values(models, readings, metric, binning, bins).map_err(|why| {
        if metric.needs_vectors() && !readings.vectors() {
            format!("{why} (use confece, confce, confce_corr, rmsce_conf, error or l_conf)")
        } else {
            why
        }
    })
}

pub fn flips(args: FlipsArgs) -> Outcome {
    check_bins(&args.bins)?;
    let metrics: Vec<RankedMetric> = if args.metric == "all" {
        RankedMetric::ALL.to_vec()
    } else {
        vec![RankedMetric::from_name(&args.metric).ok_or_else(|| {
            Failure::Usage(format!(
                "unknown --metric '{}'; choose one of {} or all",
                args.metric,
                RankedMetric::names()
            ))
        })?]
    };
    let options = args.mapping.options()?;
    let dataset = read(&args.files, &options).map_err(|e| input_failure(&e))?;
    let scaled = scaled_first(&dataset.models, args.temperature_first)
        .map_err(|why| Failure::Input(format!("calibscope flips: {why}")))?;
    let sets = sets_to_rank(&dataset.models, scaled.as_ref());
    let n = sets.first().map_or(0, |s| s.n());
    let positions_differ = dataset
        .detection
        .ragged
        .as_ref()
        .map(|r| r.why_positions_differ());
    let readings = ClassReadings::of(sets.first().map(|s| s.kind()), positions_differ.as_deref());
    let classwise = readings.vectors() && metrics.iter().any(|m| m.needs_vectors());
    let models: Vec<ModelIndex> = sets
        .iter()
        .map(|set| ModelIndex::new(set, classwise))
        .collect();
    let names: Vec<&str> = dataset.models.iter().map(|(n, _)| n.as_str()).collect();
    let bins = clip_bins(&args.bins, n);
    let binning = binning(args.binning);
    let error: Vec<f64> = models
        .iter()
        .map(|m| m.error().unwrap_or(f64::NAN))
        .collect();
    let results: Vec<(RankedMetric, Values)> = metrics
        .iter()
        .map(|&m| (m, values_of(&models, &readings, m, binning, &bins)))
        .collect();
    if let [(_, Err(why))] = results.as_slice() {
        return Err(Failure::Input(format!("calibscope flips: {why}")));
    }
    // one bootstrap per model for every ranked metric
    let bootstrap = args.bootstrap.settings(0);
    let ranked: Vec<(RankedMetric, &[Vec<f64>])> = results
        .iter()
        .filter_map(|(m, r)| r.as_ref().ok().map(|v| (*m, v.as_slice())))
        .collect();
    let mut sections =
        noise_sections(&sets, &names, &ranked, binning, &bins, &bootstrap).into_iter();
    let noises: Vec<Option<Value>> = results
        .iter()
        .map(|(_, r)| r.as_ref().ok().and_then(|_| sections.next()))
        .collect();
    if args.json {
        let with_noise = |mut v: Value, n: &Option<Value>| {
            if let Some(n) = n {
                v["noise"] = n.clone();
            }
            v
        };
        let mut doc = match results.as_slice() {
            [(_, Ok(values))] => with_noise(sweep_json(values, &error, &bins, &names), &noises[0]),
            _ => {
                let per: Map<String, Value> = results
                    .iter()
                    .zip(&noises)
                    .map(|((m, r), n)| {
                        let v = match r {
                            Ok(values) => with_noise(sweep_json(values, &error, &bins, &names), n),
                            Err(why) => json!({ "unavailable": why }),
                        };
                        (m.name().to_string(), v)
                    })
                    .collect();
                json!({"m_values": bins, "binning": binning.name(), "metrics": per})
            }
        };
        if let Some(t) = &scaled {
            doc["temperature"] = temperature_json(t);
        }
        return write_stdout(&(serde_json::to_string_pretty(&doc).expect("JSON") + "\n"));
    }
    let mut out = match &scaled {
        None => format!(
            "{} models on {n} samples ({} binning); rank 1 = smallest\n",
            names.len(),
            binning.name()
        ),
        Some(t) => {
            let mut head = format!(
                "{} models temperature-scaled first: tau fitted on {} calibration samples (stratified split, seed {}, fraction {}), every metric on the other {n} samples ({} binning); rank 1 = smallest\n",
                names.len(),
                t.split.calibration.len(),
                t.seed,
                t.fraction,
                binning.name()
            );
            for (i, name) in names.iter().enumerate() {
                let fit = &t.fits[i];
                head.push_str(&format!("tau {name} = {:.6}", fit.tau));
                if fit.at_bracket_end {
                    head.push_str(" (at an end of the bracket [0.05, 20])");
                }
                if t.exact_zero_one[i] {
                    head.push_str(
                        " (probabilities hold exact 0s or 1s: the fit is ill-posed there)",
                    );
                }
                head.push('\n');
            }
            head
        }
    };
    if bins.iter().zip(&args.bins).any(|(a, b)| a != b) || bins.len() != args.bins.len() {
        out.push_str(&format!(
            "bin counts compared: {} (within 1..=n, sorted, as in the app)\n",
            bins.iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for ((metric, result), noise) in results.iter().zip(&noises) {
        out.push_str(&format!("\n## {}\n\n", metric.name()));
        match result {
            Err(why) => out.push_str(&format!("not computable: {why}\n")),
            Ok(values) => {
                tables(&mut out, values, &error, &bins, &names);
                if let Some(noise) = noise {
                    noise_lines(&mut out, noise);
                }
            }
        }
    }
    write_stdout(&out)
}

/// The tables of one metric (values `[j][i]`: model `i` at `bins[j]`).
fn tables(out: &mut String, values: &[Vec<f64>], error: &[f64], bins: &[usize], names: &[&str]) {
    let result = ranking_sweep(values, error);
    out.push_str("| model | error |");
    for m in bins {
        out.push_str(&format!(" m = {m} |"));
    }
    out.push_str(&format!("\n|---|---|{}\n", "---|".repeat(bins.len())));
    for (i, name) in names.iter().enumerate() {
        out.push_str(&format!("| {name} | {:.4} |", error[i]));
        for (j, _) in bins.iter().enumerate() {
            out.push_str(&format!(" {} ({:.4e}) |", result.ranks[j][i], values[j][i]));
        }
        out.push('\n');
    }
    let undefined = if names.len() < 3 {
        "undefined (fewer than 3 models)"
    } else {
        "undefined (a ranking is constant)"
    };
    let show = |v: Option<f64>| v.map_or(undefined.to_string(), |x| format!("{x:.4}"));
    out.push_str("\nSpearman between bin counts (flips in brackets)\n\n| m |");
    for m in bins {
        out.push_str(&format!(" {m} |"));
    }
    out.push_str(&format!("\n|---|{}\n", "---|".repeat(bins.len())));
    for (a, ma) in bins.iter().enumerate() {
        out.push_str(&format!("| {ma} |"));
        for b in 0..bins.len() {
            out.push_str(&format!(
                " {} ({}) |",
                show(result.spearman[a][b]),
                result.flips[a][b]
            ));
        }
        out.push('\n');
    }
    out.push_str("\nSpearman against classification error:");
    for (j, m) in bins.iter().enumerate() {
        out.push_str(&format!(" m = {m}: {};", show(result.spearman_vs_error[j])));
    }
    out.push('\n');
    for ((a, b), pairs) in &result.flip_pairs {
        let list: Vec<String> = pairs
            .iter()
            .map(|&(i, j)| format!("{} ↔ {}", names[i], names[j]))
            .collect();
        out.push_str(&format!(
            "flips between m = {} and m = {}: {}\n",
            bins[*a],
            bins[*b],
            list.join(", ")
        ));
    }
}

/// Each flip of a noise section with the shares of replicates keeping the pair's
/// order at its two bin counts, and whether it is within noise.
fn noise_lines(out: &mut String, noise: &Value) {
    let Some(flips) = noise["flips"].as_object() else {
        return;
    };
    let stable = noise["stable_share"].as_f64().unwrap_or(f64::NAN);
    let replicates = &noise["bootstrap"]["replicates"];
    if flips
        .values()
        .all(|v| v.as_array().is_none_or(|a| a.is_empty()))
    {
        return;
    }
    out.push_str(&format!(
        "\nflips against noise ({replicates} paired bootstrap replicates; an order is stable when it holds in at least {:.1} % of them; a flip is real only when the order is stable at both bin counts)\n",
        stable * 100.0
    ));
    let share = |v: &Value| {
        v.as_f64()
            .map_or("undefined".to_string(), |s| format!("{:.1} %", s * 100.0))
    };
    for (key, list) in flips {
        let (a, b) = key.split_once('|').unwrap_or((key, ""));
        for flip in list.as_array().into_iter().flatten() {
            let pair = &flip["pair"];
            out.push_str(&format!(
                "m = {a} vs m = {b}: {} ↔ {}: order kept in {} / {} of replicates: {}\n",
                pair[0].as_str().unwrap_or(""),
                pair[1].as_str().unwrap_or(""),
                share(&flip["shares"][0]),
                share(&flip["shares"][1]),
                if flip["within_noise"] == Value::Bool(true) {
                    "within noise"
                } else {
                    "beyond noise"
                }
            ));
        }
    }
}
