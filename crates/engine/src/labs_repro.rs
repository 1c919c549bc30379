//! The worker's side of the Beyond-ECE lab's reproduction of the paper's synthetic
//! tables (Table 5 at N = 100 and 10,000, Tables 8 and 9 at N = 1000, 100
//! repetitions per row, every column): `calibscope_core::lab_repro` runs and judges
//! every cell; this module turns its rows into the answer the page shows.

use calibscope_core::lab_repro::{self, Reason, Reproduced, Verdict};

pub use calibscope_proto::labs::{CellReason, EvidenceItem, ReproCell, ReproRow};

/// The repetitions per row: the paper's.
pub const REPS: usize = calibscope_core::lab::PAPER_REPS;

fn reason_key(r: Reason) -> &'static str {
    match r {
        Reason::Unclipped => "unclipped",
        Reason::HeavyTail => "heavy_tail",
        Reason::RareRuns => "rare_runs",
    }
}

fn row_of(r: &Reproduced) -> ReproRow {
    let cells = r
        .checks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let reason = match c.verdict {
                Verdict::CannotAgree(reason) => Some(CellReason {
                    key: reason_key(reason).into(),
                    label: reason.verdict_label().into(),
                    text: reason.text().into(),
                    evidence: lab_repro::evidence(r, i, reason)
                        .items
                        .into_iter()
                        .map(|it| EvidenceItem {
                            key: it.key.into(),
                            label: it.label.into(),
                            value: it.value,
                        })
                        .collect(),
                }),
                _ => None,
            };
            ReproCell {
                paper: c.paper,
                ours: c.ours,
                se: c.se,
                z: c.z.is_finite().then_some(c.z),
                verdict: match &reason {
                    Some(r) => r.label.clone(),
                    None if c.verdict == Verdict::Agrees => "agrees".into(),
                    None => "off".into(),
                },
                reason,
            }
        })
        .collect();
    ReproRow {
        table: r.target.table,
        n: r.target.n,
        dist: r.target.dist.name().into(),
        mode: r.target.mode.name().into(),
        cells,
    }
}

/// Reproduces every row (seeded with `seed`); `progress(done, total)` counts
/// repetitions.
pub fn reproduce(seed: u64, progress: &mut dyn FnMut(usize, usize)) -> Vec<ReproRow> {
    let targets = lab_repro::targets();
    let total = targets.len() * REPS;
    targets
        .iter()
        .enumerate()
        .filter_map(|(i, t)| {
            lab_repro::reproduce(t, REPS, seed, |r| progress(i * REPS + r, total))
                .map(|r| row_of(&r))
        })
        .collect()
}
