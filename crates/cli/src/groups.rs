//! `audit --group COLUMN[,COLUMN]`: the audit of each group of samples (issue 32;
//! computed by calibscope-audit's `groups` module, nothing here).

use calibscope_core::groups::GroupSettings;
use clap::Args;

/// Calibration per group: the full audit of each group's rows, the worst group and
/// a permutation test of "the groups differ more than chance".
#[derive(Args, Debug, Clone)]
pub struct GroupArgs {
    /// Group the samples by these columns (not otherwise mapped; several: their
    /// intersections), e.g. --group subject or --group site,sex. The JSON gets
    /// `groups` (each group's full audit) and `worst_group`; the summary a table per
    /// group. An lm-evaluation-harness log is grouped by its subject (or task)
    /// unless named otherwise; --group none turns that off.
    #[arg(long = "group", value_name = "COLUMN[,COLUMN]", value_delimiter = ',')]
    pub columns: Vec<String>,
    /// Groups with fewer samples are reported as too small: no worst group or test
    /// statement is made from them.
    #[arg(long, default_value_t = calibscope_core::groups::DEFAULT_MIN_SIZE, value_name = "N")]
    pub group_min_size: usize,
    /// Permutations of the test of "the groups differ more than chance" (0: no
    /// test); seeded by --seed.
    #[arg(long, default_value_t = calibscope_core::groups::DEFAULT_PERMUTATIONS, value_name = "B")]
    pub group_permutations: usize,
}

impl GroupArgs {
    /// The settings at bin count `m` and `binning`, seeded by `seed`, on `threads`
    /// threads (0: every core).
    pub fn settings(
        &self,
        m: usize,
        binning: calibscope_core::binning::Binning,
        seed: u64,
        threads: usize,
    ) -> GroupSettings {
        GroupSettings {
            binning,
            m,
            min_size: self.group_min_size,
            permutations: self.group_permutations,
            seed,
            threads: match threads {
                0 => calibscope_core::bootstrap::default_threads(),
                t => t,
            },
        }
    }
}
