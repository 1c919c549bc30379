//! HELM `per_instance_stats.json` (the layout HELM's runner writes; see
//! src/json/helm.rs): read as top-label input (max_prob, exact_match), equal to the
//! same answers given as a plain `id,yhat,confidence,label` CSV; perturbed variants
//! skipped; a record without max_prob is a located error.

use calibscope_io::{parse_bytes, Dataset, ErrorCode, Options, ParseErrors};
use std::path::Path;

fn read(name: &str) -> Result<Dataset, ParseErrors> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/helm")
        .join(name);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_bytes(name, &bytes, &Options::default())
}

#[test]
fn max_prob_and_exact_match_read_as_the_plain_csv() {
    let helm = read("per_instance_stats.json").unwrap();
    let csv = read("per_instance_stats.csv").unwrap();
    assert_eq!(helm.models[0].1, csv.models[0].1);
    assert_eq!(helm.ids, csv.ids);
    assert_eq!(helm.n(), 80);
    let g = helm
        .detection
        .guesses
        .iter()
        .find(|g| g.chose.starts_with("a HELM per_instance_stats.json"))
        .expect("a note on the format");
    assert_eq!(
        g.why,
        "80 instance records; 4 perturbed variants (robustness and fairness perturbations) skipped"
    );
}

#[test]
fn an_instance_without_max_prob_is_a_located_error() {
    let errs = read("per_instance_stats_no_max_prob.json").expect_err("an error");
    assert_eq!(errs.errors.len(), 1, "{:#?}", errs.errors);
    let e = &errs.errors[0];
    assert_eq!(e.code, ErrorCode::MissingScoreColumns);
    assert_eq!(e.location.row, Some(3));
    assert_eq!(e.location.column.as_deref(), Some("stats"));
    assert!(
        e.message
            .starts_with("HELM instance record 3: instance id2 has no max_prob stat"),
        "{}",
        e.message
    );
}
