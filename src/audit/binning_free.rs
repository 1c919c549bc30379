//! The explorer's binning-free diagrams of the chosen model's confidence: the smooth
//! reliability diagram (the kernel-smoothed accuracy at the bandwidth of smooth ECE,
//! with the density of the confidences as a band, the bandwidth stated) and the
//! cumulative differences (accuracy minus confidence summed over the samples sorted
//! by confidence, with the band noise alone would fill). The worker sends the curves
//! (this view's request, [`DiagramsOf`]); the charts are drawn by calibscope-charts
//! through the report's reading of the same tables.

use leptos::prelude::*;
use serde_json::{json, Value};

use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::page::store::Store;
use crate::proto::{FromWorker, ToWorker};
use crate::shared::chart::{self, SizedSvg};
use crate::shared::numfmt;

/// Which diagram the explorer draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Diagram {
    /// The binned reliability diagram (the bin-count slider's).
    Binned,
    Smooth,
    Cumulative,
}

impl Diagram {
    pub fn name(self) -> &'static str {
        match self {
            Diagram::Binned => "binned",
            Diagram::Smooth => "smooth",
            Diagram::Cumulative => "cumulative",
        }
    }
}

/// The binning-free diagrams' data of model `model`.
pub struct DiagramsOf {
    pub model: usize,
}

impl Request for DiagramsOf {
    type Answer = (usize, Value);

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Diagrams {
            id,
            model: self.model,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<(usize, Value)>> {
        match msg {
            FromWorker::Diagrams { model, tables, .. } => Some(Reply::Done((model, tables))),
            _ => None,
        }
    }
}

/// The diagram chosen and the curves of the model shown (a context value).
#[derive(Clone, Copy)]
pub struct BinningFree {
    pub diagram: RwSignal<Diagram>,
    call: Call<DiagramsOf>,
}

impl BinningFree {
    /// Asks for the model's curves whenever a binning-free diagram is chosen or the
    /// model or the data set changes (latest wins).
    pub fn new(store: Store, client: Client) -> BinningFree {
        let diagram = RwSignal::new(Diagram::Binned);
        let call = Call::new(client, Mode::Latest);
        Effect::new(move |_| {
            let wanted = diagram.get() != Diagram::Binned;
            let loaded = store.summary.with(Option::is_some);
            let model = store.model.get();
            if wanted && loaded {
                call.send(DiagramsOf { model });
            }
        });
        BinningFree { diagram, call }
    }
}

/// The chosen binning-free diagram of the model shown.
#[component]
pub fn BinningFreeChart() -> impl IntoView {
    let store = expect_context::<Store>();
    let bf = expect_context::<BinningFree>();
    move || {
        let diagram = bf.diagram.get();
        let model = store.model.get();
        let prefix = store.prefix(model);
        let answer = bf.call.answer.get().filter(|(m, _)| *m == model);
        let Some((_, tables)) = answer else {
            return view! { <p class="pending" id="binning-free-pending">"Drawing…"</p> }
                .into_any();
        };
        // the report's reading of a record's tables draws both charts, here at the
        // box's width
        let record_tables = json!({ "binning_free": tables });
        let kind = diagram.name();
        let draw = move |width: u32| {
            calibscope_report::binning_free::charts_sized(&record_tables, &[], Some(width))
                .into_iter()
                .find(|(k, _)| *k == kind)
                .map(|(_, svg)| svg)
        };
        let defined = draw(chart::W).is_some();
        let c = &tables["confidence"];
        let stated = match diagram {
            Diagram::Smooth => {
                let s = &c["smooth"];
                view! {
                    <p class="legend">"Smoothed with bandwidth σ* = "
                        <span class="num" data-metric=format!("{prefix}binning_free.smece_sigma") data-value=numfmt::data_value(s["sigma"].as_f64())>{numfmt::display(s["sigma"].as_f64())}</span>
                        ", the bandwidth of smooth ECE = "
                        <span class="num" data-metric=format!("{prefix}binning_free.smece") data-value=numfmt::data_value(s["smece"].as_f64())>{numfmt::display(s["smece"].as_f64())}</span>
                        " (Błasiok & Nakkiran 2023): no bins. The band along the bottom is the density of the confidences; where it is thin, few samples support the curve."</p>
                }
                .into_any()
            }
            _ => {
                let k = &c["cumulative"];
                view! {
                    <p class="legend">"Accuracy minus confidence, summed over the samples sorted by confidence and divided by n. A straight climb or fall is miscalibration over that range; the dashed lines at ±σ = ± "
                        <span class="num" data-metric=format!("{prefix}binning_free.confidence.cumulative.sigma") data-value=numfmt::data_value(k["sigma"].as_f64())>{numfmt::display(k["sigma"].as_f64())}</span>
                        " show what noise alone would reach. The largest distance from zero over σ is "
                        <span class="num" data-metric=format!("{prefix}readings.confidence.tests.cumulative.ks") data-value=numfmt::data_value(k["ks"].as_f64())>{numfmt::display(k["ks"].as_f64())}</span>
                        " (Kolmogorov–Smirnov statistic, p = "
                        <span class="num" data-metric=format!("{prefix}readings.confidence.tests.cumulative.p_ks") data-value=numfmt::data_value(k["p_ks"].as_f64())>{numfmt::display(k["p_ks"].as_f64())}</span>
                        "; Tygert 2021, Arrieta-Ibarra et al. 2022)."</p>
                }
                .into_any()
            }
        };
        if !defined {
            return view! { <p class="notice" id="binning-free-undefined">"This diagram is undefined on these data (no samples)."</p> }.into_any();
        }
        let label = if kind == "smooth" {
            "Smooth reliability diagram of the confidence"
        } else {
            "Cumulative differences of the confidence"
        };
        view! {
            <div class="chart-wrap" role="img" aria-label=label data-diagram=kind id="chart-binning-free">
                <SizedSvg class="chart binning-free" draw=move |w| draw(w).unwrap_or_default()/>
                {stated}
            </div>
        }
        .into_any()
    }
}
