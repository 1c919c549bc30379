//! The labs: the truthfulness lab, the beyond-ECE lab with the reproduction of the
//! paper's tables, and the pieces they share with the tour (`ui`).

pub mod beyond;
pub mod repro;
pub mod truth;
pub mod ui;
