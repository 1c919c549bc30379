//! The ranking-flips view's state: its settings and the worker's latest answers
//! (one generation per kind of question: curve, ranking, matrices), kept while
//! other views are shown.

use std::cell::RefCell;

use calibscope_app::flips::{FlipsAnswer, FlipsCurve, FlipsMatrices, FlipsRanking, FlipsRequest};
use leptos::prelude::*;

/// The bin counts of the Spearman matrices at start (the seed's table; clipped to n).
pub const DEFAULT_BINS: &str = "5, 20, 2000";

/// Every signal of the view.
#[derive(Clone, Copy)]
pub struct FlipsState {
    /// The ranked metric (`RankedMetric::name`).
    pub metric: RwSignal<String>,
    /// `mass` (default) or `width`.
    pub binning: RwSignal<String>,
    /// The slider's bin count.
    pub m: RwSignal<usize>,
    /// The pinned reference bin count.
    pub m_ref: RwSignal<usize>,
    /// The Spearman matrices' bin counts as typed.
    pub bins_text: RwSignal<String>,
    /// A log y axis for the chart.
    pub log_y: RwSignal<bool>,
    pub curve: RwSignal<Option<FlipsCurve>>,
    pub ranking: RwSignal<Option<FlipsRanking>>,
    pub matrices: RwSignal<Option<FlipsMatrices>>,
}

thread_local! {
    static STATE: RefCell<Option<FlipsState>> = const { RefCell::new(None) };
    /// The latest generation asked, per kind of question.
    static LATEST: RefCell<[u64; 3]> = const { RefCell::new([0; 3]) };
}

/// Creates the view's state and provides it as context.
pub fn provide() {
    let state = FlipsState {
        metric: RwSignal::new("confece".into()),
        binning: RwSignal::new("mass".into()),
        m: RwSignal::new(5),
        m_ref: RwSignal::new(2000),
        bins_text: RwSignal::new(DEFAULT_BINS.into()),
        log_y: RwSignal::new(true),
        curve: RwSignal::new(None),
        ranking: RwSignal::new(None),
        matrices: RwSignal::new(None),
    };
    STATE.with(|s| *s.borrow_mut() = Some(state));
    provide_context(state);
}

/// Sends `request`; its answer replaces the previous one of its kind unless a
/// newer question of that kind was asked meanwhile.
pub fn ask(request: FlipsRequest) {
    let slot = request.slot();
    let gen = super::client::flips(request);
    LATEST.with(|l| l.borrow_mut()[slot] = gen);
}

/// An answer from the worker (called by the client).
pub fn accept(gen: u64, answer: FlipsAnswer) {
    if LATEST.with(|l| l.borrow()[answer.slot()]) != gen {
        return;
    }
    let Some(state) = STATE.with(|s| *s.borrow()) else {
        return;
    };
    match answer {
        FlipsAnswer::Curve(c) => state.curve.set(Some(c)),
        FlipsAnswer::Rank(r) => state.ranking.set(Some(r)),
        FlipsAnswer::Matrices(x) => state.matrices.set(Some(x)),
    }
}

/// Parses the bin counts typed by a person: positive integers separated by commas
/// or spaces.
pub fn parse_bins(text: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    for part in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if part.is_empty() {
            continue;
        }
        match part.parse::<usize>() {
            Ok(m) if m >= 1 => out.push(m),
            _ => return Err(format!("“{part}” is not a bin count (a whole number ≥ 1)")),
        }
    }
    if out.is_empty() {
        return Err("type at least one bin count, e.g. 5, 20, 2000".into());
    }
    Ok(out)
}
