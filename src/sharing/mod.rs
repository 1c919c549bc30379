//! Permalinks: the page's state as a `calibscope-share` [`ViewState`] in the URL
//! fragment (`#a1=…`), kept up to date with `history.replaceState` (debounced) as
//! controls move; read at start (a bundled example by id is opened, user files are
//! asked for and checked against their SHA-256 when dropped, embedded data is
//! opened); "Copy link" and "include data in link".
//!
//! What a link restores: the view; the explorer's model, reading, binning and bin
//! count (the binning and bin count are those of the view shown: the explorer's, the
//! flips slider's or the Recalibrate view's); the flips view's metric, pinned
//! reference and Spearman bin counts; the Recalibrate view's seed, fraction and
//! method; the labs' controls (`lab`: each control's value under its id, written and
//! read by `lab_ui::keep`; the flips view's "temperature-scale each model first"
//! switch rides there too, under its id); the theme (the header's control, `theme.rs`); the data;
//! the column mapping. Records ([`Share::record_request`]) carry the page's state and the
//! Ranking flips view's controls (the record's `tables.flips` section).

pub mod examples;
pub mod exports;
pub mod panel;
pub mod record_request;
pub mod records;
pub mod zip;

use std::collections::BTreeMap;

use crate::proto::{MappingOverride, Reading};
use calibscope_audit::{FlipsSettings, Method};
use calibscope_core::binning::Binning;
use calibscope_share::{
    decode_lenient, embed, encode, BinningId, DataSource, EmbeddedFile, FileRef, MethodId, Theme,
    ViewId, ViewState, MAX_EMBEDDED_COMPRESSED, RECAL_MULTICLASS,
};
use examples::DEFAULT_EXAMPLE;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

use crate::client::Client;
use crate::flips::state::{parse_bins, FlipsState};
use crate::page::opening::Opening;
use crate::page::store::{Store, View};
use crate::recal::state as recal;

/// How long the URL waits for the controls to settle.
const DEBOUNCE_MS: u64 = 300;
/// The fragment of the start page without the bundled example.
const EMPTY_START: &str = "#empty";
/// Files above this size are never offered for embedding (they would not fit).
const EMBED_READ_MAX: f64 = 4.0 * MAX_EMBEDDED_COMPRESSED as f64 * 8.0;

/// A message above the views that does not block anything.
#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    /// `link` (the link could not be read), `reproduce` (drop the files),
    /// `mismatch` (the dropped files differ), `match` (they are the link's).
    pub kind: &'static str,
    pub text: String,
}

/// The signals of sharing.
#[derive(Clone, Copy)]
pub struct Share {
    pub notices: RwSignal<Vec<Notice>>,
    pub theme: RwSignal<Theme>,
    /// The lab views' settings (name → JSON), kept through links.
    pub lab: RwSignal<BTreeMap<String, Value>>,
    /// The files a link names, until they are dropped.
    pub expected: RwSignal<Vec<FileRef>>,
    /// The files a link named and its settings, kept after other files were
    /// dropped (a mismatch) until the right ones are, or the warning is dismissed.
    awaited: StoredValue<Option<(Vec<FileRef>, ViewState)>>,
    /// The opened files, embeddable in a link (when small enough).
    pub embeddable: RwSignal<Option<Vec<EmbeddedFile>>>,
    pub include_data: RwSignal<bool>,
    /// The link's settings that apply once its data set is open.
    pending: StoredValue<Option<ViewState>>,
    /// The URL update waiting for the controls to settle.
    timer: StoredValue<Option<TimeoutHandle>>,
    store: Store,
    flips: FlipsState,
    recal: recal::Settings,
    opening: Opening,
}

/// The fragment of the current state (`a1=…`), as context.
#[derive(Clone, Copy)]
pub struct Link(pub Memo<String>);

impl Share {
    fn notify(self, kind: &'static str, text: String) {
        self.notices.update(|n| {
            n.retain(|x| x.kind != kind);
            n.push(Notice { kind, text });
        });
    }

    fn dismiss(self, kind: &str) {
        if kind == "mismatch" {
            self.awaited.set_value(None);
        }
        self.notices.update(|n| n.retain(|x| x.kind != kind));
    }
}

/// The views and their names in links (the lab views are `lab-truth`, `lab-beyond`
/// in links, `truth-lab`, `beyond-lab` as page ids).
const VIEW_IDS: [(View, ViewId); 7] = [
    (View::Audit, ViewId::Audit),
    (View::Slices, ViewId::Slices),
    (View::Flips, ViewId::Flips),
    (View::Recalibrate, ViewId::Recalibrate),
    (View::Learn, ViewId::Learn),
    (View::TruthLab, ViewId::LabTruth),
    (View::BeyondLab, ViewId::LabBeyond),
];

fn view_id(v: View) -> ViewId {
    VIEW_IDS
        .iter()
        .find(|x| x.0 == v)
        .map_or(ViewId::Audit, |x| x.1)
}

fn view_of(id: ViewId) -> View {
    VIEW_IDS
        .iter()
        .find(|x| x.1 == id)
        .map_or(View::Audit, |x| x.0)
}

fn binning_of(b: BinningId) -> Binning {
    match b {
        BinningId::Width => Binning::Width,
        BinningId::Mass => Binning::Mass,
    }
}

fn binning_id(b: Binning) -> BinningId {
    match b {
        Binning::Width => BinningId::Width,
        Binning::Mass => BinningId::Mass,
    }
}

fn method_of(m: MethodId) -> Method {
    match m {
        MethodId::Temperature => Method::Temperature,
        MethodId::Platt => Method::Platt,
        MethodId::Isotonic => Method::Isotonic,
        MethodId::Beta => Method::Beta,
        MethodId::Histogram => Method::Histogram,
        MethodId::VennAbers => Method::VennAbers,
        MethodId::Vector => Method::Vector,
        MethodId::Matrix => Method::Matrix,
        MethodId::Dirichlet => Method::Dirichlet,
    }
}

fn method_id(m: Method) -> MethodId {
    match m {
        Method::Temperature => MethodId::Temperature,
        Method::Platt => MethodId::Platt,
        Method::Isotonic => MethodId::Isotonic,
        Method::Beta => MethodId::Beta,
        Method::Histogram => MethodId::Histogram,
        Method::VennAbers => MethodId::VennAbers,
        Method::Vector => MethodId::Vector,
        Method::Matrix => MethodId::Matrix,
        Method::Dirichlet => MethodId::Dirichlet,
    }
}

/// The links' key of the Ranking flips view's "temperature-scale each model first"
/// switch (kept with the labs' controls, under its element id: no new link version).
const TEMPERATURE_FIRST: &str = "flips-temperature-first";

/// The labs' controls with the other views' switches that are on (the flips
/// view's "temperature-scale first", the Recalibrate view's multiclass maps).
fn with_switches(
    mut lab: BTreeMap<String, Value>,
    switches: [(&str, bool); 2],
) -> BTreeMap<String, Value> {
    for (key, on) in switches {
        if on {
            lab.insert(key.into(), Value::Bool(true));
        }
    }
    lab
}

/// Sets the Spearman matrices' bin counts as a person would type them.
fn set_bins(fl: FlipsState, bins: &[usize]) {
    let text: Vec<String> = bins.iter().map(|b| b.to_string()).collect();
    fl.bins_text.set(text.join(", "));
}

impl Share {
    /// Creates sharing (call once, from the App): reads the fragment, applies it and
    /// installs the URL updates. Returns it and whether the app should open its
    /// default example (no link, or a link to it).
    pub fn start(
        store: Store,
        flips: FlipsState,
        recal: recal::Settings,
        opening: Opening,
        client: Client,
    ) -> (Share, bool) {
        let sh = Share {
            notices: RwSignal::new(Vec::new()),
            theme: RwSignal::new(Theme::System),
            lab: RwSignal::new(BTreeMap::new()),
            expected: RwSignal::new(Vec::new()),
            awaited: StoredValue::new(None),
            embeddable: RwSignal::new(None),
            include_data: RwSignal::new(false),
            pending: StoredValue::new(None),
            timer: StoredValue::new(None),
            store,
            flips,
            recal,
            opening,
        };
        provide_context(sh);
        let state = Memo::new(move |_| sh.current());
        let link = Memo::new(move |_| state.with(encode));
        provide_context(Link(link));
        opening.on_opened(move |inputs| sh.opened(inputs));
        let open_default = sh.read_link();
        // the URL follows the controls, once they settle
        Effect::new(move |_| {
            let fragment = link.get();
            // an empty start page stays one when reloaded
            let empty = state.with(|s| s.data == DataSource::None);
            if let Some(old) = sh.timer.try_update_value(|t| t.take()).flatten() {
                old.clear();
            }
            let handle = set_timeout_with_handle(
                move || {
                    let url = if empty {
                        EMPTY_START.to_string()
                    } else {
                        format!("#{fragment}")
                    };
                    if let Ok(h) = window().history() {
                        let _ =
                            h.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
                    }
                },
                std::time::Duration::from_millis(DEBOUNCE_MS),
            );
            sh.timer.set_value(handle.ok());
        });
        // small opened files may travel inside the link
        Effect::new(move |_| {
            store.inputs.track();
            sh.embeddable.set(None);
            let files = opening.files();
            let total: f64 = files.iter().map(|f| f.size()).sum();
            if files.is_empty() || total > EMBED_READ_MAX || store.example.get_untracked() {
                return;
            }
            client.busy(1);
            wasm_bindgen_futures::spawn_local(async move {
                sh.embeddable.set(embeddable(&files).await);
                client.busy(-1);
            });
        });
        (sh, open_default)
    }

    /// The page's state (tracked: read inside a memo, it follows every control).
    fn current(self) -> ViewState {
        let (store, fl, r) = (self.store, self.flips, self.recal);
        let view = store.subject.get();
        let (binning, m) = match view {
            View::Flips => (fl.binning.get(), fl.m.get()),
            View::Recalibrate => (r.binning.get(), r.m.get()),
            _ => (store.binning.get(), store.m.get()),
        };
        store.summary.track();
        let expected = self.expected.get();
        let data = if !expected.is_empty() {
            DataSource::Files { files: expected }
        } else if store.example.get() {
            DataSource::Example {
                id: DEFAULT_EXAMPLE.into(),
            }
        } else {
            match (self.include_data.get(), self.embeddable.get()) {
                (true, Some(files)) => DataSource::Embedded { files },
                _ => match store.inputs.get() {
                    files if files.is_empty() => DataSource::None,
                    files => DataSource::Files { files },
                },
            }
        };
        let defaults = ViewState::default();
        ViewState {
            view: view_id(view),
            model: store.model.get(),
            reading: store.reading.get().name(),
            binning: binning_id(binning),
            m,
            pinned_m: Some(fl.m_ref.get()),
            metric: fl.metric.get(),
            spearman_bins: parse_bins(&fl.bins_text.get()).unwrap_or(defaults.spearman_bins),
            split_seed: r.seed.get(),
            cal_fraction: r.fraction.get(),
            method: method_id(r.after.get()),
            lab: with_switches(
                self.lab.get(),
                [
                    (TEMPERATURE_FIRST, fl.temperature_first.get()),
                    (RECAL_MULTICLASS, r.multiclass.get()),
                ],
            ),
            theme: self.theme.get(),
            data,
            mapping: if store.example.get() {
                MappingOverride::default()
            } else {
                self.opening.mapping()
            },
        }
    }

    /// The ranking-flips view's controls as a record's flips section is computed with.
    fn flips_settings(self) -> FlipsSettings {
        let fl = self.flips;
        FlipsSettings {
            metric: fl.metric.get_untracked(),
            binning: fl.binning.get_untracked().name().into(),
            m: fl.m.get_untracked(),
            m_ref: fl.m_ref.get_untracked(),
            bins: parse_bins(&fl.bins_text.get_untracked())
                .unwrap_or_else(|_| FlipsSettings::default().bins),
            temperature_first: fl.temperature_first.get_untracked(),
        }
    }

    /// The request of the open data set's record: the page's state now, the opened
    /// files' fingerprints and the ranking-flips view's controls.
    pub fn record_request(self) -> record_request::RecordOf {
        record_request::RecordOf {
            settings: untrack(|| self.current()),
            inputs: self.store.inputs.get_untracked(),
            flips: self.flips_settings(),
        }
    }

    /// Sets what does not depend on the data set: the view, the flips and Recalibrate
    /// settings (and the shown view's binning and bin count when it is one of those).
    fn apply_early(self, s: &ViewState) {
        let (store, fl, r) = (self.store, self.flips, self.recal);
        let view = view_of(s.view);
        store.view.set(view);
        fl.metric.set(s.metric.clone());
        if let Some(p) = s.pinned_m {
            fl.m_ref.set(p.max(1));
        }
        set_bins(fl, &s.spearman_bins);
        r.seed.set(s.split_seed);
        if s.cal_fraction > 0.0 && s.cal_fraction < 1.0 {
            r.fraction.set(s.cal_fraction);
        }
        r.after.set(method_of(s.method));
        match view {
            View::Flips => {
                fl.binning.set(binning_of(s.binning));
                fl.m.set(s.m.max(1));
            }
            View::Recalibrate => {
                r.binning.set(binning_of(s.binning));
                r.m.set(s.m.max(1));
            }
            _ => {}
        }
        self.theme.set(s.theme);
        let mut lab = s.lab.clone();
        fl.temperature_first
            .set(lab.remove(TEMPERATURE_FIRST) == Some(Value::Bool(true)));
        if lab.remove(RECAL_MULTICLASS) == Some(Value::Bool(true)) {
            r.multiclass.set(true);
        }
        self.lab.set(lab);
    }

    /// Sets what needs the data set (called when a data set was opened).
    fn apply_loaded(self, s: &ViewState) {
        let store = self.store;
        let models = store
            .summary
            .with_untracked(|x| x.as_ref().map_or(0, |x| x.models.len()));
        if s.model < models {
            store.model.set(s.model);
        }
        if let Some(r) = Reading::parse(&s.reading) {
            store.reading.set(r);
        }
        if matches!(view_of(s.view), View::Audit) {
            store.binning.set(binning_of(s.binning));
            let max = store
                .summary
                .with_untracked(|x| x.as_ref().map_or(1, |x| x.m_max));
            store.m.set(s.m.clamp(1, max));
        }
    }

    /// Applies the page's fragment; returns whether to open the default example.
    fn read_link(self) -> bool {
        let hash = window().location().hash().unwrap_or_default();
        // `#empty`: the start page without the bundled example (a bookmark for
        // people who bring their own files, and for scripts that drop them)
        if hash == EMPTY_START {
            self.store.example.set(false);
            return false;
        }
        // anchors (#flips, #overview) are not links
        if !hash.contains('=') {
            return true;
        }
        let decoded = match decode_lenient(&hash) {
            Ok(d) => d,
            Err(e) => {
                self.notify(
                    "link",
                    format!("This link could not be read ({e}); the app opened with its defaults."),
                );
                return true;
            }
        };
        if !decoded.ignored.is_empty() {
            self.notify(
                "link",
                format!(
                    "Parts of this link were not understood and left at their defaults: {}.",
                    decoded.ignored.join("; ")
                ),
            );
        }
        self.apply_state(decoded.state)
    }

    /// Restores the settings of a dropped record or report (its data: its files'
    /// names, sizes and SHA-256; the Ranking flips controls of its flips section, if
    /// it has one); returns whether to open the default example.
    pub fn restore(self, state: ViewState, flips: Option<FlipsSettings>) -> bool {
        let open_default = self.apply_state(state);
        if let Some(f) = flips {
            let fl = self.flips;
            fl.metric.set(f.metric);
            if let Some(b) = Binning::from_name(&f.binning) {
                fl.binning.set(b);
            }
            fl.m.set(f.m.max(1));
            fl.m_ref.set(f.m_ref.max(1));
            fl.temperature_first.set(f.temperature_first);
            set_bins(fl, &f.bins);
        }
        open_default
    }

    /// Applies a view state: its settings now or once its data set is open, its
    /// data opened or asked for. Returns whether to open the default example.
    fn apply_state(self, state: ViewState) -> bool {
        self.apply_early(&state);
        let mapping = state.mapping.clone();
        let data = state.data.clone();
        self.pending.set_value(Some(state));
        match data {
            DataSource::None => true,
            DataSource::Example { id } if id == DEFAULT_EXAMPLE => true,
            DataSource::Example { id } => match examples::example_path(&id) {
                Some(path) => {
                    self.opening.open_example_at(path);
                    false
                }
                None => {
                    self.notify(
                        "link",
                        format!("This link names the example {id:?}, which this calibscope does not bundle; the default example is shown."),
                    );
                    true
                }
            },
            DataSource::Files { files } => {
                self.store.example.set(false);
                self.notify("reproduce", examples::reproduce_text(&files));
                self.expected.set(files);
                false
            }
            DataSource::Embedded { files } => {
                self.store.example.set(false);
                match embedded_files(&files) {
                    Ok(handles) => {
                        self.include_data.set(true);
                        self.opening.open(handles, mapping);
                    }
                    Err(e) => self.notify(
                        "link",
                        format!("The data inside this link cannot be read: {e}."),
                    ),
                }
                false
            }
        }
    }

    /// The mapping a dropped file is read with: the link's while its files are
    /// awaited.
    pub fn drop_mapping(self) -> MappingOverride {
        if self.expected.with_untracked(|e| e.is_empty()) {
            return self
                .awaited
                .with_value(|a| a.as_ref().map(|(_, s)| s.mapping.clone()))
                .unwrap_or_default();
        }
        self.pending
            .with_value(|p| p.as_ref().map(|s| s.mapping.clone()))
            .unwrap_or_default()
    }

    /// A data set was opened: checks the files against the link's fingerprints and
    /// applies the link's remaining settings. After files that are not the link's,
    /// the next data set opened is checked again: the right files replace the
    /// warning with the confirmation (and get the link's settings), other files
    /// update it.
    fn opened(self, inputs: &[FileRef]) {
        let expected = self.expected.get_untracked();
        let pending = self.pending.try_update_value(|p| p.take()).flatten();
        let (expected, state) = if !expected.is_empty() {
            self.dismiss("reproduce");
            self.expected.set(Vec::new());
            (expected, pending)
        } else if let Some((files, state)) = self.awaited.try_update_value(|a| a.take()).flatten() {
            (files, Some(state))
        } else {
            if let Some(state) = pending {
                self.apply_loaded(&state);
            }
            return;
        };
        let wrong = examples::mismatches(&expected, inputs);
        if wrong.is_empty() {
            self.notices.update(|n| n.retain(|x| x.kind != "mismatch"));
            self.notify(
                "match",
                "The dropped files are the link's files (same SHA-256).".into(),
            );
        } else {
            self.notices.update(|n| n.retain(|x| x.kind != "match"));
            self.notify(
                "mismatch",
                format!(
                    "These are not the link's files, so the numbers may differ: {}.",
                    wrong.join("; ")
                ),
            );
            if let Some(state) = &state {
                self.awaited.set_value(Some((expected, state.clone())));
            }
        }
        if let Some(state) = state {
            self.apply_loaded(&state);
        }
    }
}

async fn embeddable(files: &[File]) -> Option<Vec<EmbeddedFile>> {
    let mut out = Vec::new();
    for f in files {
        let buffer = JsFuture::from(f.array_buffer()).await.ok()?;
        let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
        out.push(embed(&f.name(), &bytes).ok()?);
    }
    Some(out)
}

fn embedded_files(files: &[EmbeddedFile]) -> Result<Vec<File>, String> {
    files
        .iter()
        .map(|f| {
            let bytes = f.bytes()?;
            let array = js_sys::Uint8Array::from(bytes.as_slice());
            File::new_with_u8_array_sequence(&js_sys::Array::of1(&array), &f.name)
                .map_err(|e| format!("{e:?}"))
        })
        .collect()
}
