//! What several views use: widgets, the reliability chart, downloads, number
//! formatting, the bin-count slider's steps and the page's texts.

pub mod chart;
pub mod download;
pub mod numfmt;
pub mod slider;
pub mod text;
pub mod widgets;
