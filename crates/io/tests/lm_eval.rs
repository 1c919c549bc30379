//! lm-evaluation-harness sample logs (`samples_<task>_<date>.jsonl`), written by the
//! harness's own `EvaluationTracker` (bench/lm_eval_fixtures.sh): read as logits over
//! the choices with the label from `target`, equal to the same numbers given as a
//! plain `id,label,logit_<j>` CSV; the logged `acc` is checked; bad logs get located
//! messages.

use std::path::Path;

use calibscope_io::{parse_bytes, Dataset, ErrorCode, Ids, Options, ParseErrors, Parser};

fn data(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/lm_eval")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read(name: &str) -> Result<Dataset, ParseErrors> {
    parse_bytes(name, &data(name), &Options::default())
}

/// The log and its canonical CSV hold the same predictions, labels and ids.
fn same_as_csv(log: &str, csv: &str, choices: usize, questions: usize) -> Dataset {
    let a = read(log).unwrap();
    let b = read(csv).unwrap();
    assert_eq!(a.models.len(), 1);
    assert_eq!(a.models[0].1, b.models[0].1, "{log} vs {csv}");
    assert_eq!(a.ids, b.ids);
    assert_eq!(a.class_names.len(), choices);
    assert_eq!(a.n(), questions);
    assert_eq!(a.ids, Some(Ids::Int((0..questions as i64).collect())));
    a
}

fn note(ds: &Dataset) -> (String, String) {
    let g = ds
        .detection
        .guesses
        .iter()
        .find(|g| g.chose.contains("lm-evaluation-harness"))
        .expect("a note on how the log was read");
    (g.chose.clone(), g.why.clone())
}

#[test]
fn four_choices_with_integer_targets_read_as_the_csv() {
    let ds = same_as_csv("samples_hellaswag_like.jsonl", "hellaswag_like.csv", 4, 300);
    let (chose, why) = note(&ds);
    assert!(chose.contains("softmax over the 4 choices"), "{chose}");
    assert_eq!(
        why,
        "the reading's correct answers agree with the logged acc on all 300 questions"
    );
    assert_eq!(ds.models[0].0, "samples_hellaswag_like");
}

#[test]
fn text_targets_are_matched_to_the_choices_continuations() {
    let ds = same_as_csv("samples_piqa_like.jsonl", "piqa_like.csv", 2, 200);
    assert!(note(&ds).1.contains("all 200 questions"));
}

#[test]
fn a_disagreement_with_the_logged_acc_is_reported_with_its_question() {
    let ds = read("samples_acc_mismatch.jsonl").unwrap();
    assert_eq!(
        note(&ds).1,
        "the reading disagrees with the logged acc on 1 of 40 questions (first: doc_id 7); the log may hold acc_norm-style choices or targets the harness read differently"
    );
}

#[test]
fn the_log_reads_the_same_in_slices_of_any_size() {
    let bytes = data("samples_piqa_like.jsonl");
    let whole = read("samples_piqa_like.jsonl").unwrap();
    for size in [1, 13, 4096] {
        let mut p = Parser::new("samples_piqa_like.jsonl", Options::default());
        for c in bytes.chunks(size) {
            p.push(c).unwrap();
        }
        assert_eq!(p.finish().unwrap(), whole);
    }
}

fn only_error(name: &str) -> calibscope_io::ParseError {
    let errs = read(name).expect_err(name);
    assert_eq!(errs.errors.len(), 1, "{:#?}", errs.errors);
    errs.errors.into_iter().next().unwrap()
}

#[test]
fn a_target_outside_the_choices_names_the_question() {
    let e = only_error("samples_bad_target.jsonl");
    assert_eq!(e.code, ErrorCode::BadLabel);
    assert_eq!(e.location.row, Some(5));
    assert_eq!(e.location.column.as_deref(), Some("target"));
    assert_eq!(
        e.message,
        "lm-evaluation-harness sample 5: its target 7 is not a choice: it has 4 choices (0..3)"
    );
}

#[test]
fn a_question_with_fewer_choices_is_read_over_its_own_choices() {
    let ds = read("samples_ragged.jsonl").unwrap();
    let r = ds.detection.ragged.as_ref().expect("a ragged log");
    assert_eq!((r.min, r.max, ds.class_names.len()), (3, 4, 4));
    let mut want = vec![4u32; 20];
    want[9] = 3;
    assert_eq!(r.choices, want);
    assert!(note(&ds).0.contains("each question's own choices (3 to 4;"));
}

/// The ARC-like log (3 to 5 choices a question) and its questions' own
/// log-likelihoods (`arc_like_choices.csv`: id, label, choices, ll_0..ll_4).
fn arc_like() -> (Dataset, Vec<(u32, Vec<f64>)>) {
    let ds = read("samples_arc_like.jsonl").unwrap();
    let text = String::from_utf8(data("arc_like_choices.csv")).unwrap();
    let rows = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let k: usize = f[2].parse().unwrap();
            let ll = f[3..3 + k].iter().map(|v| v.parse().unwrap()).collect();
            (f[1].parse().unwrap(), ll)
        })
        .collect();
    (ds, rows)
}

#[test]
fn a_ragged_log_gives_each_question_the_softmax_of_its_own_choices() {
    let (ds, rows) = arc_like();
    let r = ds.detection.ragged.as_ref().unwrap();
    assert_eq!((r.min, r.max, ds.n()), (3, 5, 240));
    let set = &ds.models[0].1;
    assert_eq!(set.labels, rows.iter().map(|r| r.0).collect::<Vec<_>>());
    let view = calibscope_core::reading::ProbView::new(set).unwrap();
    for (i, (_, ll)) in rows.iter().enumerate() {
        assert_eq!(r.choices[i] as usize, ll.len());
        // the naive softmax over the question's own choices
        let m = ll.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let z: f64 = ll.iter().map(|x| (x - m).exp()).sum();
        for (j, x) in ll.iter().enumerate() {
            let want = (x - m).exp() / z;
            assert!(
                (view.prob(i, j) - want).abs() <= 1e-15,
                "row {i} choice {j}"
            );
        }
        for j in ll.len()..5 {
            assert_eq!(view.prob(i, j), 0.0, "row {i}: padding {j} is not 0");
        }
    }
    let (chose, why) = note(&ds);
    assert!(
        chose.contains("each question's own choices (3 to 5;"),
        "{chose}"
    );
    assert_eq!(
        why,
        "the reading's correct answers agree with the logged acc on all 240 questions"
    );
}

#[test]
fn a_target_past_its_own_questions_choices_is_refused_in_a_ragged_log() {
    let e = only_error("samples_ragged_bad_target.jsonl");
    assert_eq!(e.code, ErrorCode::BadLabel);
    assert_eq!(e.location.row, Some(15));
    assert_eq!(e.location.column.as_deref(), Some("target"));
    assert_eq!(
        e.message,
        "lm-evaluation-harness sample 15: its target 3 is not a choice: it has 3 choices (0..2)"
    );
}

#[test]
fn responses_that_do_not_match_the_arguments_are_refused() {
    let e = only_error("samples_ragged_resps.jsonl");
    assert_eq!(e.code, ErrorCode::JsonShape);
    assert_eq!(e.location.row, Some(4));
    assert_eq!(e.location.column.as_deref(), Some("filtered_resps"));
    assert_eq!(
        e.message,
        "lm-evaluation-harness sample 4: it has 3 filtered_resps but 4 arguments (one request per choice): the responses do not match the choices; write the log again with --log_samples"
    );
}

#[test]
fn a_generated_text_task_says_only_multiple_choice_tasks_can_be_audited() {
    let e = only_error("samples_generate.jsonl");
    assert_eq!(e.code, ErrorCode::JsonShape);
    assert_eq!(e.location.row, Some(0));
    assert!(
        e.message
            .contains("only multiple-choice (log-likelihood) tasks can be audited"),
        "{}",
        e.message
    );
}
