//! The worker's flips noise, run in slices, against the CLI's computation
//! (`calibscope flips --metric all --json`'s `noise`: the audit crate's threaded
//! `noise_sections` on the same models), as given and temperature-scaled first.

use super::*;
use calibscope_audit::flips_noise::noise_sections;
use calibscope_audit::{ranked_values, scaled_first, sets_to_rank, ClassReadings};
use calibscope_core::binning::Binning;
use calibscope_core::sweep::ModelIndex;

fn dataset(relative: &str) -> calibscope_io::Dataset {
    let path = calibscope_test_support::shared_path(relative);
    let bytes = std::fs::read(&path).expect("the shared fixture");
    let name = path.file_name().unwrap().to_string_lossy();
    calibscope_io::parse_bytes(&name, &bytes, &Default::default()).unwrap()
}

/// What `calibscope flips --metric all --json` writes as each metric's `noise`
/// (`None`: the metric is unavailable, so it has no noise section).
fn cli(
    ds: &calibscope_io::Dataset,
    tf: bool,
    binning: Binning,
    bins: &[usize],
) -> Vec<Option<Value>> {
    let scaled = scaled_first(&ds.models, tf).unwrap();
    let sets = sets_to_rank(&ds.models, scaled.as_ref());
    let readings = ClassReadings::of(Some(sets[0].kind()), None);
    let index: Vec<ModelIndex> = sets.iter().map(|s| ModelIndex::new(s, true)).collect();
    let names: Vec<&str> = ds.models.iter().map(|(n, _)| n.as_str()).collect();
    let bins = clip_bins(bins, sets[0].n());
    let values: Vec<Result<Vec<Vec<f64>>, String>> = RankedMetric::ALL
        .iter()
        .map(|&m| ranked_values(&index, &readings, m, binning, &bins))
        .collect();
    let ranked: Vec<(RankedMetric, &[Vec<f64>])> = RankedMetric::ALL
        .iter()
        .zip(&values)
        .filter_map(|(m, v)| v.as_ref().ok().map(|v| (*m, v.as_slice())))
        .collect();
    let mut sections = noise_sections(
        &sets,
        &names,
        &ranked,
        binning,
        &bins,
        &BootstrapSettings::default(),
    )
    .into_iter();
    values
        .iter()
        .map(|v| v.as_ref().ok().and_then(|_| sections.next()))
        .collect()
}

fn request(tf: bool, binning: Binning, bins: &[usize]) -> FlipsNoiseRequest {
    FlipsNoiseRequest {
        metrics: RankedMetric::ALL
            .iter()
            .map(|m| m.name().to_string())
            .collect(),
        binning,
        bins: bins.to_vec(),
        temperature_first: tf,
    }
}

#[test]
fn the_noise_in_slices_is_the_clis() {
    let ds = dataset("fixtures/multi/digits_zoo_probs.csv");
    for (tf, binning, bins) in [
        (false, Binning::Mass, vec![5, 20, 2000]),
        (true, Binning::Width, vec![5, 20, 2000]),
    ] {
        let mut session = Session::new(ds.clone());
        let mut job = session
            .flips_noise_start(4, &request(tf, binning, &bins))
            .unwrap();
        assert_eq!(job.progress(), (0, 1000));
        assert_eq!(job.step(333), (333, 1000));
        assert_eq!(job.step(1), (334, 1000));
        let answer = job.finish();
        let want = cli(&ds, tf, binning, &bins);
        assert_eq!(answer.metrics.len(), RankedMetric::ALL.len());
        let mut flips = 0;
        for ((name, got), want) in answer.metrics.iter().zip(&want) {
            match want {
                Some(want) => assert_eq!(got, want, "{name}, tf {tf}"),
                None => assert!(got["unavailable"].is_string(), "{name}"),
            }
            flips += got["flips"]
                .as_object()
                .map_or(0, |f| f.values().map(|l| l.as_array().unwrap().len()).sum());
        }
        // the comparison is not vacuous: some metric has flips with shares
        assert!(flips > 0, "tf {tf}: no flips to compare");
        let binned = RankedMetric::ALL.iter().filter(|m| m.is_binned()).count();
        let sections = answer
            .metrics
            .iter()
            .filter(|(_, v)| v["pair_order"].is_object());
        assert_eq!(sections.count(), binned);
    }
}

/// Asserts that `answer` is the CLI's noise of the whole request.
fn assert_is_the_clis(
    answer: &FlipsNoise,
    ds: &calibscope_io::Dataset,
    tf: bool,
    binning: Binning,
    bins: &[usize],
) {
    let want = cli(ds, tf, binning, bins);
    let mut sections = 0;
    for ((name, got), want) in answer.metrics.iter().zip(&want) {
        match want {
            Some(want) => {
                assert_eq!(got, want, "{name}, tf {tf}, {bins:?}");
                sections += usize::from(got["pair_order"].is_object());
            }
            None => assert!(got["unavailable"].is_string(), "{name}"),
        }
    }
    assert!(sections > 0, "no section compared");
}

#[test]
fn kept_bin_counts_are_not_run_again_and_answer_the_same() {
    let ds = dataset("fixtures/multi/digits_zoo_probs.csv");
    let n = ds.models[0].1.n();
    let (tf, binning) = (false, Binning::Mass);
    let mut session = Session::new(ds.clone());
    // the pinned reference (clipped to n) and a first m
    let first = session
        .flips_noise_start(1, &request(tf, binning, &[5, 2000]))
        .unwrap();
    assert_eq!(first.running(), &[5, n]);
    first.finish();
    // the same question again: nothing runs, the answer is the CLI's
    let job = session
        .flips_noise_start(2, &request(tf, binning, &[5, 2000]))
        .unwrap();
    assert_eq!((job.running(), job.progress()), (&[][..], (0, 0)));
    assert_is_the_clis(&job.finish(), &ds, tf, binning, &[5, 2000]);
    // m moved against the pinned reference: only the new bin count runs
    let job = session
        .flips_noise_start(3, &request(tf, binning, &[20, 2000]))
        .unwrap();
    assert_eq!((job.running(), job.progress()), (&[20][..], (0, 1000)));
    assert_is_the_clis(&job.finish(), &ds, tf, binning, &[20, 2000]);
    // another binning, or the models scaled first, share nothing with these
    let job = session
        .flips_noise_start(4, &request(tf, Binning::Width, &[5, 2000]))
        .unwrap();
    assert_eq!(job.running(), &[5, n]);
    let job = session
        .flips_noise_start(5, &request(true, binning, &[5, 2000]))
        .unwrap();
    assert_eq!(job.running().len(), 2);
    // a new data set starts with nothing kept
    let mut fresh = Session::new(ds.clone());
    let job = fresh
        .flips_noise_start(6, &request(tf, binning, &[5, 2000]))
        .unwrap();
    assert_eq!(job.running(), &[5, n]);
}

#[test]
fn bad_requests_are_refused() {
    let mut session = Session::new(dataset("fixtures/multi/digits_zoo_probs.csv"));
    let mut bad = request(false, Binning::Mass, &[5]);
    bad.metrics.push("nope".into());
    let err = session.flips_noise_start(1, &bad).err().unwrap();
    assert!(err.contains("nope"), "{err}");
    let err = session
        .flips_noise_start(1, &request(false, Binning::Mass, &[]))
        .err()
        .unwrap();
    assert!(err.contains("bin counts"), "{err}");
}
