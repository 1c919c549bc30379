//! The audit view: the overview (one row per model, with calibration badges) and
//! the reliability explorer (diagram, ECE family, the table's rows in view), led by
//! the verdicts (one sentence per model, with the bootstrap's intervals).

pub mod badges;
pub mod binning_free;
pub mod explorer;
pub mod multilabel;
pub mod overview;
pub mod selective;
pub mod table_rows;
pub mod table_window;
pub mod verdict;
