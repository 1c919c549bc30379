//! The ranking-flips view's state: its settings and the worker's latest answers
//! (one generation per kind of question: curve, ranking, matrices), kept while
//! other views are shown.

use crate::proto::flips::{
    FlipsAnswer, FlipsCurve, FlipsMatrices, FlipsNoiseRequest, FlipsRanking, FlipsRequest,
};
use crate::proto::{FromWorker, ToWorker};
use calibscope_core::binning::Binning;
use leptos::prelude::*;

use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::page::store::{Store, View};

/// The bin counts of the Spearman matrices at start (the seed's table; clipped to n).
pub const DEFAULT_BINS: &str = "5, 20, 2000";

/// The metrics offered, with their names (shared with the report).
pub const METRICS: [(&str, &str); 9] = calibscope_audit::flips_summary::RANKED_METRIC_LABELS;

/// The name of ranked metric `metric`.
pub fn label(metric: &str) -> &'static str {
    METRICS
        .iter()
        .find(|(k, _)| *k == metric)
        .map_or("metric", |(_, l)| l)
}

/// Every signal of the view.
#[derive(Clone, Copy)]
pub struct FlipsState {
    /// The ranked metric (`RankedMetric::name`).
    pub metric: RwSignal<String>,
    /// Equal-mass (default) or equal-width bins.
    pub binning: RwSignal<Binning>,
    /// The slider's bin count.
    pub m: RwSignal<usize>,
    /// The pinned reference bin count.
    pub m_ref: RwSignal<usize>,
    /// The Spearman matrices' bin counts as typed.
    pub bins_text: RwSignal<String>,
    /// A log y axis for the chart.
    pub log_y: RwSignal<bool>,
    /// Temperature-scale each model first and rank on the evaluation split.
    pub temperature_first: RwSignal<bool>,
    pub curve: RwSignal<Option<FlipsCurve>>,
    pub ranking: RwSignal<Option<FlipsRanking>>,
    pub matrices: RwSignal<Option<FlipsMatrices>>,
    /// The failure of the latest question (of any kind).
    pub error: RwSignal<Option<String>>,
    /// The data set's largest bin count, `min(n, 2000)`.
    pub m_max: Memo<usize>,
    /// One call per kind of question (curve, ranking, matrices): each keeps its
    /// latest answer.
    calls: [Call<FlipsRequest>; 3],
    /// The flips against noise of the ranking (its metric at `m_ref` and `m`) and
    /// of the matrices (every binned metric at their bin counts); each keeps its
    /// latest answer, progress and pending state.
    pub noise_ranking: Call<FlipsNoiseRequest>,
    pub noise_matrices: Call<FlipsNoiseRequest>,
}

impl FlipsState {
    /// The slider's bin count within `1..=m_max` (tracked).
    pub fn m_at(&self) -> usize {
        self.m.get().clamp(1, self.m_max.get())
    }

    /// The reference bin count within `1..=m_max` (tracked).
    pub fn ref_at(&self) -> usize {
        self.m_ref.get().clamp(1, self.m_max.get())
    }

    /// `m` within `1..=m_max` (untracked).
    pub fn clamp(&self, m: usize) -> usize {
        m.clamp(1, self.m_max.get_untracked())
    }

    /// The source paper's protocol: every model temperature-scaled first,
    /// equal-mass bins, m = 5 against 2000 (clipped to the data), matrices over
    /// m = 5, 20 and 2000.
    pub fn paper_protocol(&self) {
        self.temperature_first.set(true);
        self.binning.set(Binning::Mass);
        self.bins_text.set(DEFAULT_BINS.into());
        self.m.set(self.clamp(5));
        self.m_ref.set(self.clamp(2000));
    }
}

impl Request for FlipsRequest {
    type Answer = FlipsAnswer;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Flips {
            id,
            gen: id,
            request: self.clone(),
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<FlipsAnswer>> {
        match msg {
            FromWorker::Flips { answer, .. } => Some(Reply::Done(answer)),
            _ => None,
        }
    }
}

/// The anchors of the view: a link to one of them (from another view, or from
/// outside the page) opens the view there.
const ANCHORS: [&str; 2] = ["#flips", "#why-flips"];

/// Opens the view when the page's hash names one of its anchors.
fn follow_hash(store: Store) {
    let hash = window().location().hash().unwrap_or_default();
    if !ANCHORS.contains(&hash.as_str()) {
        return;
    }
    store.view.set(View::Flips);
    request_animation_frame(move || {
        if let Some(el) = document().get_element_by_id(&hash[1..]) {
            el.scroll_into_view();
        }
    });
}

impl FlipsState {
    /// Creates the view's state (call once, from the App; provided as context), and
    /// opens the view on links to its anchors.
    pub fn new(store: Store, client: Client) -> FlipsState {
        follow_hash(store);
        let _ = window_event_listener(leptos::ev::hashchange, move |_| follow_hash(store));
        let (curve, ranking, matrices) = (
            RwSignal::new(None),
            RwSignal::new(None),
            RwSignal::new(None),
        );
        let error = RwSignal::new(None);
        let call = || {
            Call::handled(client, Mode::Latest, move |reply| match reply {
                Reply::Done(answer) => {
                    error.set(None);
                    match answer {
                        FlipsAnswer::Curve(c) => curve.set(Some(c)),
                        FlipsAnswer::Rank(r) => ranking.set(Some(r)),
                        FlipsAnswer::Matrices(x) => matrices.set(Some(x)),
                    }
                }
                Reply::Failed(f) => error.set(Some(f.message)),
                _ => {}
            })
        };
        FlipsState {
            metric: RwSignal::new("confece".into()),
            binning: RwSignal::new(Binning::Mass),
            m: RwSignal::new(5),
            m_ref: RwSignal::new(2000),
            bins_text: RwSignal::new(DEFAULT_BINS.into()),
            log_y: RwSignal::new(true),
            temperature_first: RwSignal::new(false),
            curve,
            ranking,
            matrices,
            error,
            m_max: Memo::new(move |_| store.summary.with(|s| s.as_ref().map_or(1, |s| s.m_max))),
            calls: [call(), call(), call()],
            noise_ranking: Call::new(client, Mode::Latest),
            noise_matrices: Call::new(client, Mode::Latest),
        }
    }

    /// Sends `request`; its answer replaces the previous one of its kind unless a
    /// newer question of that kind was asked meanwhile.
    pub fn ask(&self, request: FlipsRequest) {
        self.calls[request.slot()].send(request);
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
