use super::*;
use crate::split::stratified_split;
use crate::synth::boosted_logits;

fn logits_set(n: usize, k: usize, seed: u64) -> PredictionSet {
    let (z, labels) = boosted_logits(n, k, seed);
    PredictionSet {
        labels,
        scores: Scores::Matrix {
            values: Values::F32(z),
            k,
            source: Source::Logits,
        },
        k,
    }
}

/// Run one fit at a time, each map gives exactly the outcome of the whole run, and
/// the progress counts every fit once: Dirichlet calibration 5 folds × 5 strengths
/// and the final fit, vector and matrix scaling the final fit alone.
#[test]
fn steps_give_the_whole_run_s_outcome() {
    let set = logits_set(1_200, 4, 9);
    let split = stratified_split(&set.labels, 4, 0, 0.5);
    for (method, units) in [
        (ProbMethod::Vector, 1),
        (ProbMethod::Matrix, 1),
        (ProbMethod::Dirichlet, 26),
    ] {
        let whole = fit_scaling_map(&set, &split, method, 5).unwrap();
        let mut steps = ScalingSteps::new(&set, &split, method, 5).unwrap();
        assert_eq!(steps.units(), units, "{method:?}");
        let mut seen = vec![steps.done()];
        while !steps.is_done() {
            steps.step();
            seen.push(steps.done());
        }
        assert_eq!(seen, (0..=units).collect::<Vec<_>>(), "{method:?}");
        assert_eq!(steps.finish(&set, &split).unwrap(), whole, "{method:?}");
    }
}

/// The search run whole through `choose_odir` is the search of the steps, and a
/// strength is chosen among the five with every fold scored.
#[test]
fn the_search_chooses_among_the_strengths() {
    let set = logits_set(1_500, 5, 4);
    let split = stratified_split(&set.labels, 5, 0, 0.5);
    let x = inputs(&set, &split.calibration, ScalingKind::Dirichlet).unwrap();
    let search = choose_odir(&x, 5, &set.labels, &split, 5);
    assert_eq!(search.folds, 5);
    assert_eq!(search.folds_skipped, 0);
    assert_eq!(search.scores.len(), STRENGTHS.len());
    let best = search
        .scores
        .iter()
        .map(|&(_, v)| v)
        .fold(f64::INFINITY, f64::min);
    let chosen = search.scores.iter().find(|(s, _)| *s == search.chosen);
    assert_eq!(chosen.map(|&(_, v)| v), Some(best));
    let outcome = fit_scaling_map(&set, &split, ProbMethod::Dirichlet, 5).unwrap();
    assert_eq!(outcome.odir_search, Some(search));
}
