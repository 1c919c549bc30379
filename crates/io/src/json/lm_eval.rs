//! lm-evaluation-harness sample logs: `samples_<task>_<date>.jsonl`, written with
//! `--log_samples` by `EvaluationTracker.save_results_samples`
//! (lm_eval/loggers/evaluation_tracker.py, EleutherAI/lm-evaluation-harness), one
//! JSON object per question, as built in `evaluate` (lm_eval/evaluator.py):
//!
//! - `doc_id`: the question's index in the task's split;
//! - `target`: `str()` of what `doc_to_target` returned: the gold choice's index
//!   (`"2"`) or the gold choice's text;
//! - `arguments`: `{"gen_args_<i>": {"arg_0": context, "arg_1": continuation}}`, one
//!   entry per choice (the continuation is the choice's text after the task's target
//!   delimiter, usually a space);
//! - `filtered_resps`: one `[loglikelihood, is_greedy]` pair per choice, every value
//!   written as a string by `sanitize_list` (lm_eval/utils.py): `[["-2.71", "False"],
//!   ...]`; with `acc_mutual_info` the second half holds the unconditional
//!   log-likelihoods;
//! - the task's per-question metrics: `acc` is 1 when the first maximal
//!   log-likelihood is the gold choice (`ConfigurableTask.process_results`,
//!   lm_eval/api/task.py).
//!
//! calibscope reads the per-choice log-likelihoods as logits (their softmax over the
//! question's choices is the model's distribution over answers, as the harness's own
//! `brier_score` does), the label from `target`, the id from `doc_id`, and checks its
//! reading against the logged `acc`.
//!
//! Questions may have different numbers of choices (ARC, for one): the samples are
//! read first, then every question becomes a row of `k_max` logits, its own choices
//! first and the rest the padding logit `max − RAGGED_GAP` (exactly zero
//! probability; see [`crate::Ragged`] for why this and not a top-label conversion:
//! NLL and temperature scaling need the whole distribution over a question's
//! choices, which a top-label pair loses). A `target` is checked against its own
//! question's choices, and the `arguments` (one per choice) must be as many as the
//! `filtered_resps`.
//!
//! Groups (issue 32): the harness writes one samples file per task, and a sample
//! holds its task's document as `doc`; MMLU's documents carry a `subject`
//! (`cais/mmlu`'s rows: question, subject, choices, answer). When the first sample
//! has `doc.subject`, or a top-level `task` key (a log that joins several tasks),
//! that value becomes a column (`subject` / `task`) and, unless the mapping names
//! its own grouping, the log's grouping. A log without either has no group.

use std::borrow::Cow;

use super::scan::J;
use crate::ErrorCode;

/// Why a sample cannot be read: the error code, the key at fault, and what to do.
pub(super) type SampleError = (ErrorCode, Option<&'static str>, String);

fn shape(key: &'static str, msg: impl Into<String>) -> SampleError {
    (ErrorCode::JsonShape, Some(key), msg.into())
}

fn bad_target(msg: String) -> SampleError {
    (ErrorCode::BadLabel, Some("target"), msg)
}

/// Whether a record is an lm-evaluation-harness sample: it has `doc_id`, `target`
/// and a `filtered_resps` list (of any task type: [`question`] says which can be
/// audited).
pub(super) fn is_sample(rec: &[(Cow<'_, str>, J<'_>)]) -> bool {
    let has = |k: &str| rec.iter().any(|(n, _)| n == k);
    has("doc_id")
        && has("target")
        && rec
            .iter()
            .any(|(n, v)| n == "filtered_resps" && matches!(v, J::Arr(_)))
}

/// One question read from its sample.
#[derive(Debug)]
pub(super) struct Question {
    /// `doc_id` as written.
    pub id: String,
    /// The gold choice's index.
    pub gold: usize,
    /// The per-choice log-likelihoods, as written (parsed by the table like any
    /// number, so a bad value is reported where it is).
    pub loglik: Vec<String>,
    /// Whether the logged `acc` disagrees with "the first maximal log-likelihood
    /// is the gold choice" (None when there is no `acc` or a value does not parse).
    pub acc_disagrees: Option<bool>,
    /// The question's group: (`subject` or `task`, its value); see the module docs.
    pub group: Option<(&'static str, String)>,
}

impl Question {
    /// A stand-in for a question that could not be read (its row is marked bad).
    pub fn placeholder(choices: usize) -> Question {
        Question {
            id: "0".into(),
            gold: 0,
            loglik: vec!["0".into(); choices],
            acc_disagrees: None,
            group: None,
        }
    }

    /// The question as a record of the JSON reader: `id`, `label` and a `logits`
    /// vector (read like `logit_<j>` columns), and the group column `group_key` when
    /// the log has one (empty for a question without it).
    /// Questions with fewer than `width` choices are padded (see [`crate::Ragged`]).
    pub fn as_record(
        &self,
        group_key: Option<&'static str>,
        width: usize,
    ) -> Vec<(Cow<'static, str>, J<'static>)> {
        let owned = |s: &str| J::Str(Cow::Owned(s.to_string()));
        let pad = (self.loglik.len() < width).then(|| {
            let max = self
                .loglik
                .iter()
                .filter_map(|s| s.trim().parse::<f64>().ok())
                .fold(f64::NEG_INFINITY, f64::max);
            // a row of infinities stays an error of the table's own (nan_or_inf)
            let pad = if max.is_finite() {
                max - crate::RAGGED_GAP
            } else {
                max
            };
            pad.to_string()
        });
        let group = group_key.map(|key| {
            let value = match &self.group {
                Some((k, v)) if *k == key => v.as_str(),
                _ => "",
            };
            (Cow::Borrowed(key), owned(value))
        });
        let mut rec = vec![
            (Cow::Borrowed("id"), owned(&self.id)),
            (Cow::Borrowed("label"), owned(&self.gold.to_string())),
            (
                Cow::Borrowed("logits"),
                J::Arr(
                    self.loglik
                        .iter()
                        .map(|s| owned(s))
                        .chain(
                            (self.loglik.len()..width)
                                .map(|_| owned(pad.as_deref().unwrap_or("0"))),
                        )
                        .collect(),
                ),
            ),
        ];
        rec.extend(group);
        rec
    }
}

fn get<'r, 'a>(rec: &'r [(Cow<'a, str>, J<'a>)], key: &str) -> Option<&'r J<'a>> {
    rec.iter().find(|(n, _)| n == key).map(|(_, v)| v)
}

fn text(v: &J<'_>) -> Option<String> {
    match v {
        J::Num(n) => Some(String::from_utf8_lossy(n).into_owned()),
        J::Str(s) => Some(s.to_string()),
        J::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Reads one sample; `Err` says what is wrong with it and how to fix it.
pub(super) fn question(rec: &[(Cow<'_, str>, J<'_>)]) -> Result<Question, SampleError> {
    let id = get(rec, "doc_id")
        .and_then(text)
        .ok_or_else(|| shape("doc_id", "its doc_id is not a number"))?;
    let Some(J::Arr(resps)) = get(rec, "filtered_resps") else {
        return Err(shape("filtered_resps", "it has no filtered_resps list"));
    };
    let mut loglik = Vec::with_capacity(resps.len());
    for (j, r) in resps.iter().enumerate() {
        match r {
            J::Arr(pair) if pair.len() == 2 => {
                loglik.push(text(&pair[0]).ok_or_else(|| {
                    shape(
                        "filtered_resps",
                        format!("filtered_resps[{j}] does not start with a log-likelihood"),
                    )
                })?)
            }
            J::Arr(values) => {
                return Err(shape(
                    "filtered_resps",
                    format!(
                        "filtered_resps[{j}] has {} value(s) where a [loglikelihood, is_greedy] pair was expected: write the log again with --log_samples",
                        values.len()
                    ),
                ))
            }
            _ => {
                return Err(shape("filtered_resps", format!(
                    "filtered_resps[{j}] is not a [loglikelihood, is_greedy] pair: only multiple-choice (log-likelihood) tasks can be audited, not generated answers"
                )))
            }
        }
    }
    if let Some((j, v)) = loglik
        .iter()
        .enumerate()
        .find(|(_, v)| v.trim().parse::<f64>().is_err())
    {
        return Err(shape(
            "filtered_resps",
            format!(
                "filtered_resps[{j}] holds {v:?} where a log-likelihood (a number) was expected"
            ),
        ));
    }
    // one argument (context, continuation) per response: a log whose responses and
    // arguments differ in number was cut or edited
    if let Some(J::Obj(args)) = get(rec, "arguments") {
        let requests = args
            .iter()
            .filter(|(n, _)| n.starts_with("gen_args_"))
            .count();
        if requests > 0 && requests != loglik.len() {
            return Err(shape(
                "filtered_resps",
                format!(
                    "it has {} filtered_resps but {requests} arguments (one request per choice): the responses do not match the choices; write the log again with --log_samples",
                    loglik.len()
                ),
            ));
        }
    }
    // acc_mutual_info: the second half holds the unconditional log-likelihoods
    if get(rec, "acc_mutual_info").is_some() && loglik.len() % 2 == 0 {
        loglik.truncate(loglik.len() / 2);
    }
    let k = loglik.len();
    if k < 2 {
        return Err(shape(
            "filtered_resps",
            format!("it has {k} choice(s); a multiple-choice question needs at least 2"),
        ));
    }
    let target = get(rec, "target")
        .and_then(text)
        .ok_or_else(|| bad_target("its target is not text or a number".into()))?;
    let gold = gold_index(&target, k, rec)?;
    let acc_disagrees = get(rec, "acc").and_then(text).and_then(|acc| {
        let acc: f64 = acc.trim().parse().ok()?;
        let ll: Vec<f64> = loglik
            .iter()
            .map(|s| s.trim().parse::<f64>().ok())
            .collect::<Option<_>>()?;
        let first_max = ll
            .iter()
            .enumerate()
            .fold(0, |best, (j, &x)| if x > ll[best] { j } else { best });
        Some((first_max == gold) != (acc > 0.5))
    });
    let subject = match get(rec, "doc") {
        Some(J::Obj(doc)) => doc
            .iter()
            .find(|(n, _)| n == "subject")
            .and_then(|(_, v)| text(v)),
        _ => None,
    };
    let group = match subject {
        Some(s) => Some(("subject", s)),
        None => get(rec, "task").and_then(text).map(|t| ("task", t)),
    };
    Ok(Question {
        id,
        gold,
        loglik,
        acc_disagrees,
        group,
    })
}

/// The gold choice: `target` as an index below `k` (what the harness logs for an
/// integer `doc_to_target`), else the choice whose continuation (`arguments`'
/// `arg_1`) is `target`, ignoring the delimiter's leading white space.
fn gold_index(target: &str, k: usize, rec: &[(Cow<'_, str>, J<'_>)]) -> Result<usize, SampleError> {
    let t = target.trim();
    if let Ok(i) = t.parse::<usize>() {
        return if i < k {
            Ok(i)
        } else {
            Err(bad_target(format!(
                "its target {i} is not a choice: it has {k} choices (0..{})",
                k - 1
            )))
        };
    }
    if t.starts_with('[') {
        return Err(bad_target(format!(
            "its target {t} names several correct choices; questions with more than one gold answer are not supported"
        )));
    }
    let continuation = |j: usize| -> Option<String> {
        let Some(J::Obj(args)) = get(rec, "arguments") else {
            return None;
        };
        let key = format!("gen_args_{j}");
        let (_, J::Obj(a)) = args.iter().find(|(n, _)| *n == key)? else {
            return None;
        };
        a.iter()
            .find(|(n, _)| n == "arg_1")
            .and_then(|(_, v)| text(v))
    };
    (0..k)
        .find(|&j| continuation(j).is_some_and(|c| c.trim() == t))
        .ok_or_else(|| {
            bad_target(format!(
                "its target {target:?} is neither a choice index below {k} nor the text of one of its {k} choices (arguments.gen_args_<i>.arg_1)"
            ))
        })
}

/// What the log's reading found, for the detection notes.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Choices of each question read so far.
    pub choices: Vec<u32>,
    pub questions: u64,
    /// Questions with an `acc` that could be checked.
    pub with_acc: u64,
    pub acc_disagreements: u64,
    pub first_disagreement: Option<String>,
    /// The group column (`subject` / `task`) of the first question, if any.
    pub group_key: Option<&'static str>,
}

impl Tally {
    pub fn add(&mut self, q: &Question) {
        self.questions += 1;
        self.choices.push(q.loglik.len() as u32);
        if let Some(d) = q.acc_disagrees {
            self.with_acc += 1;
            if d {
                self.acc_disagreements += 1;
                self.first_disagreement.get_or_insert_with(|| q.id.clone());
            }
        }
    }

    /// The note on how the log was read and how the reading compares with the
    /// logged `acc`: `(chose, why)`.
    pub fn note(&self) -> (String, String) {
        let choices = match self.ragged() {
            None => format!("the {} choices", self.width()),
            Some(r) => format!(
                "each question's own choices ({} to {}; the missing choices of a question with fewer than {} are given probability 0)",
                r.min, r.max, r.max
            ),
        };
        let chose = format!(
            "an lm-evaluation-harness samples log: the per-choice log-likelihoods (filtered_resps) as logits, softmax over {choices}; the label from target; the id from doc_id"
        );
        let why = if self.with_acc == 0 {
            "the log has no acc metric to check the reading against".to_string()
        } else if self.acc_disagreements == 0 {
            format!(
                "the reading's correct answers agree with the logged acc on all {} questions",
                self.with_acc
            )
        } else {
            format!(
                "the reading disagrees with the logged acc on {} of {} questions (first: doc_id {}); the log may hold acc_norm-style choices or targets the harness read differently",
                self.acc_disagreements,
                self.with_acc,
                self.first_disagreement.as_deref().unwrap_or("?")
            )
        };
        (chose, why)
    }

    /// The most choices of a question (the logit matrix's width).
    pub fn width(&self) -> usize {
        self.choices.iter().copied().max().unwrap_or(0) as usize
    }

    /// The per-question choice counts when they differ.
    pub fn ragged(&self) -> Option<crate::Ragged> {
        let min = self.choices.iter().copied().min()?;
        let max = self.choices.iter().copied().max()?;
        (min != max).then(|| crate::Ragged {
            choices: self.choices.clone(),
            min,
            max,
        })
    }
}
