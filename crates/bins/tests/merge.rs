//! Aggregates of shards add up: any split of the rows, aggregated part by part and
//! merged, equals the aggregate of the whole (counts, min and max exactly; sums
//! within 1e-12 relative). The JSON and CSV forms read back to the same aggregate.

use calibscope_bins::table::{parse, to_csv, to_json};
use calibscope_bins::{aggregate_set, Aggregate, ModelAggregate};
use calibscope_core::reading::subset;
use calibscope_core::{PredictionSet, Scores, Source, Values};
use proptest::prelude::*;

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()) + 1e-300,
        "{what}: {a} vs {b}"
    );
}

fn assert_same(a: &ModelAggregate, b: &ModelAggregate) {
    assert_eq!((a.kind, a.k, &a.model), (b.kind, b.k, &b.model));
    assert_eq!(a.readings.len(), b.readings.len());
    for (key, cells) in &a.readings {
        let other = &b.readings[key];
        assert_eq!(
            cells.keys().collect::<Vec<_>>(),
            other.keys().collect::<Vec<_>>(),
            "{key:?} cells"
        );
        for (c, x) in cells {
            let y = &other[c];
            assert_eq!(
                (x.n, x.sum_o, x.min_u, x.max_u),
                (y.n, y.sum_o, y.min_u, y.max_u)
            );
            close(x.sum_u, y.sum_u, "sum_u");
            close(x.sum_sq, y.sum_sq, "sum_sq");
        }
    }
    let (g, h) = (&a.globals, &b.globals);
    assert_eq!((g.risk.n, g.risk.correct), (h.risk.n, h.risk.correct));
    for (x, y) in [
        (g.risk.wrong_ratio, h.risk.wrong_ratio),
        (g.risk.odds, h.risk.odds),
        (g.risk.weight, h.risk.weight),
        (g.risk.weighted_correct, h.risk.weighted_correct),
        (g.nll.unwrap_or(0.0), h.nll.unwrap_or(0.0)),
        (
            g.brier_multiclass.unwrap_or(0.0),
            h.brier_multiclass.unwrap_or(0.0),
        ),
    ] {
        close(x, y, "global");
    }
    assert_eq!(g.nll.is_some(), h.nll.is_some());
    assert_eq!(g.confusion.len(), h.confusion.len());
    for (x, y) in g.confusion.iter().zip(&h.confusion) {
        assert_eq!(x.counts, y.counts);
        for j in 0..3 {
            close(x.weighted[j], y.weighted[j], "confusion");
        }
    }
}

/// A set from generated rows: binary probabilities, multiclass logits (k = 3) or
/// top-label, by `shape`.
fn set_of(shape: u8, rows: &[(f64, f64, f64, u32)]) -> PredictionSet {
    let labels_k = |k: u32| rows.iter().map(|r| r.3 % k).collect::<Vec<u32>>();
    match shape % 3 {
        0 => PredictionSet {
            labels: labels_k(2),
            scores: Scores::Column {
                values: Values::F64(rows.iter().map(|r| r.0).collect()),
                source: Source::Probs,
            },
            k: 2,
        },
        1 => PredictionSet {
            labels: labels_k(3),
            scores: Scores::Matrix {
                values: Values::F64(
                    rows.iter()
                        .flat_map(|r| [r.0 * 6.0 - 3.0, r.1 * 6.0 - 3.0, r.2 * 6.0 - 3.0])
                        .collect(),
                ),
                k: 3,
                source: Source::Logits,
            },
            k: 3,
        },
        _ => PredictionSet::top_label(
            labels_k(4),
            rows.iter().map(|r| (r.3 / 4) % 4).collect(),
            Values::F64(rows.iter().map(|r| r.1).collect()),
        ),
    }
}

fn forecast() -> impl Strategy<Value = f64> {
    prop_oneof![
        0.0f64..=1.0,
        (0u32..=20).prop_map(|i| i as f64 / 20.0),
        (0u32..=4).prop_map(|i| i as f64 / 65536.0 + 0.25),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn any_split_merges_to_the_whole(
        shape in 0u8..3,
        rows in prop::collection::vec((forecast(), forecast(), forecast(), 0u32..64), 1..300),
        cuts in prop::collection::vec(0usize..300, 0..5),
    ) {
        let set = set_of(shape, &rows);
        prop_assume!(set.validate().is_empty());
        let whole = aggregate_set("m", &set);
        let n = set.n();
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (n + 1)).collect();
        cuts.push(0);
        cuts.push(n);
        cuts.sort();
        // shards in reverse order, so the merge does not follow the rows' order
        let mut merged = Aggregate::new();
        for w in cuts.windows(2).rev() {
            if w[0] == w[1] {
                continue;
            }
            let part = subset(&set, &(w[0]..w[1]).collect::<Vec<_>>());
            merged.add_set("m", &part).unwrap();
        }
        assert_same(&merged.models["m"], &whole);
        // both serial forms read back exactly
        let mut one = Aggregate::new();
        one.models.insert("m".into(), whole.clone());
        let json = serde_json::to_string(&to_json(&one)).unwrap();
        assert_eq!(parse(json.as_bytes()).unwrap(), one);
        let csv = to_csv(&one);
        assert_same(&parse(csv.as_bytes()).unwrap().models["m"], &whole);
    }
}

#[test]
fn a_table_with_a_bad_cell_says_where() {
    let mut one = Aggregate::new();
    let set = set_of(0, &[(0.3, 0.0, 0.0, 1), (0.8, 0.0, 0.0, 0)]);
    one.add_set("m", &set).unwrap();
    let csv = to_csv(&one).replacen(",confidence,-1,", ",confidence,-1,x", 1);
    let err = parse(csv.as_bytes()).unwrap_err();
    assert!(err.contains("line 2") && err.contains("cell"), "{err}");
    let err = parse(b"format,model\ncalibscope-bins/1,m\n").unwrap_err();
    assert!(err.contains("no column 'kind'"), "{err}");
}
