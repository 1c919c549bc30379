//! The page's state: signals shared by every view (provided as context).

use crate::proto::{ErrorItem, Limits, Metrics, Reading, Row, Summary};
use calibscope_core::binning::Binning;
use leptos::prelude::*;
use serde_json::Value;

/// The views of the page, chosen in the navigation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// The overview and the reliability explorer.
    Audit,
    /// Calibration per group, and the rows of a group's bin.
    Slices,
    /// Rankings of several models across bin counts.
    Flips,
    /// Temperature, Platt and isotonic recalibration, before and after.
    Recalibrate,
    /// The guided tour of calibration.
    Learn,
    /// The truthfulness lab (seed 000).
    TruthLab,
    /// The beyond-ECE lab (seed 002).
    BeyondLab,
    /// Sharing and exports of the view shown before it (the link, the record, the
    /// report and files): one place, not under every view.
    Share,
}

impl View {
    /// Every view, in the navigation's order.
    pub const ALL: &'static [View] = &[
        View::Audit,
        View::Slices,
        View::Flips,
        View::Recalibrate,
        View::Learn,
        View::TruthLab,
        View::BeyondLab,
        View::Share,
    ];

    /// Its id in the page (`tab-<id>`) and in links.
    pub fn id(self) -> &'static str {
        match self {
            View::Audit => "audit",
            View::Slices => "slices",
            View::Flips => "flips",
            View::Recalibrate => "recalibrate",
            View::Learn => "learn",
            View::TruthLab => "truth-lab",
            View::BeyondLab => "beyond-lab",
            View::Share => "share",
        }
    }

    /// Its title in the navigation.
    pub fn title(self) -> &'static str {
        match self {
            View::Audit => "Audit",
            View::Slices => "Slices",
            View::Flips => "Ranking flips",
            View::Recalibrate => "Recalibrate",
            View::Learn => "Learn",
            View::TruthLab => "Truthfulness lab",
            View::BeyondLab => "Beyond-ECE lab",
            View::Share => "Share & export",
        }
    }

    /// The view whose [`id`](Self::id) is `id`, if this build has it (links by id
    /// string, e.g. the tour's "recalibrate" and "flips").
    pub fn from_id(id: &str) -> Option<View> {
        View::ALL.iter().copied().find(|v| v.id() == id)
    }
}

/// Reading progress of the open in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgressView {
    pub file: String,
    pub bytes_read: u64,
    pub bytes_total: u64,
}

/// An error to show.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorView {
    pub code: String,
    pub message: String,
    pub errors: Vec<ErrorItem>,
    pub more: usize,
    /// The columns of a header that could not be mapped.
    pub columns: Vec<String>,
}

/// The latest reliability table.
#[derive(Clone, Debug, PartialEq)]
pub struct Computed {
    pub model: usize,
    pub reading: Reading,
    pub binning: Binning,
    pub m: usize,
    pub rows: Vec<Row>,
    pub metrics: Metrics,
    pub nonempty_bins: usize,
}

/// Every signal of the page.
#[derive(Clone, Copy)]
pub struct Store {
    pub summary: RwSignal<Option<Summary>>,
    pub audits: RwSignal<Vec<Value>>,
    pub error: RwSignal<Option<ErrorView>>,
    pub progress: RwSignal<Option<ProgressView>>,
    pub model: RwSignal<usize>,
    pub reading: RwSignal<Reading>,
    pub binning: RwSignal<Binning>,
    pub m: RwSignal<usize>,
    pub computed: RwSignal<Option<Computed>>,
    /// Whether the example is shown (no file of the user's yet).
    pub example: RwSignal<bool>,
    /// What was read from files that failed on their values (for the mapping panel).
    pub failed: RwSignal<Option<Summary>>,
    /// The view shown under the mapping panel.
    pub view: RwSignal<View>,
    /// The view that links and records describe: the one shown, or while the
    /// "Share & export" view is shown, the one shown before it.
    pub subject: Memo<View>,
    /// The size limits of the next read.
    pub limits: RwSignal<Limits>,
    /// The opened files' names, sizes and SHA-256 (hashed by the worker).
    pub inputs: RwSignal<Vec<calibscope_share::FileRef>>,
    /// Which numbers are exact or bounded when the data set is an aggregate.
    pub aggregate: crate::page::aggregate::AggregateMarks,
}

impl Store {
    pub fn new() -> Store {
        let view = RwSignal::new(View::Audit);
        let subject = Memo::new(move |before: Option<&View>| match view.get() {
            View::Share => before.copied().unwrap_or(View::Audit),
            v => v,
        });
        Store {
            summary: RwSignal::new(None),
            audits: RwSignal::new(Vec::new()),
            error: RwSignal::new(None),
            progress: RwSignal::new(None),
            model: RwSignal::new(0),
            reading: RwSignal::new(Reading::Confidence),
            binning: RwSignal::new(Binning::Width),
            m: RwSignal::new(15),
            computed: RwSignal::new(None),
            example: RwSignal::new(true),
            failed: RwSignal::new(None),
            view,
            subject,
            limits: RwSignal::new(Limits::default()),
            inputs: RwSignal::new(Vec::new()),
            aggregate: crate::page::aggregate::AggregateMarks::new(),
        }
    }

    /// Takes the views of the data set shown down (before [`Store::load`]).
    pub fn unload(&self) {
        self.computed.set(None);
        self.failed.set(None);
    }

    /// A data set was opened: show it from its defaults.
    pub fn load(&self, summary: Summary, audits: Vec<Value>) {
        self.unload();
        self.model.set(0);
        self.reading.set(Reading::Confidence);
        self.m.set(summary.m_overview);
        self.aggregate.load(&summary.models, &audits);
        self.audits.set(audits);
        self.summary.set(Some(summary));
    }

    /// The `data-metric` prefix of model `i` (`models.<name>.` when several).
    pub fn prefix(&self, i: usize) -> String {
        self.summary.with(|s| match s {
            Some(s) if s.models.len() > 1 => format!("models.{}.", s.models[i]),
            _ => String::new(),
        })
    }
}
