//! The Recalibrate view's state (created once, with the page, and kept while other
//! views are shown): its settings, its requests to the worker (the fit, the
//! before/after tables, the downloads) and their latest answers.

use crate::proto::{FromWorker, Reading, RecalTable, RecalView, ToWorker};
use calibscope_audit::Method;
use calibscope_core::binning::Binning;
use leptos::prelude::*;
use serde_json::Value;

use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::page::store::Store;
use crate::shared::download::save_text;
use crate::shared::widgets::get_path;

/// The latest fit the worker sent.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The fit's generation (the multiclass maps extend it).
    pub(crate) gen: u64,
    /// Whether every map of the fit is in (not only temperature scaling).
    pub(crate) complete: bool,
    pub(crate) model: usize,
    pub(crate) seed: u64,
    pub(crate) fraction: f64,
    pub(crate) section: Value,
    pub(crate) view: RecalView,
}

/// The latest tables answer: the evaluation split before and after each method.
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    pub binning: Binning,
    pub reading: Reading,
    pub m: usize,
    pub tables: Vec<RecalTable>,
}

/// Split model `model` with `seed` and `fraction`, fit every method.
struct Fit {
    model: usize,
    seed: u64,
    fraction: f64,
}

impl Request for Fit {
    type Answer = Answer;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Recalibrate {
            id,
            gen: id,
            model: self.model,
            seed: self.seed,
            fraction: self.fraction,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Answer>> {
        recalibrated(msg)
    }
}

/// The reply of a [`FromWorker::Recalibrated`]: its first part (split,
/// temperature) is followed by the second.
fn recalibrated(msg: FromWorker) -> Option<Reply<Answer>> {
    match msg {
        FromWorker::Recalibrated {
            gen,
            model,
            seed,
            fraction,
            complete,
            section,
            view,
            ..
        } => {
            let answer = Answer {
                gen,
                complete,
                model,
                seed,
                fraction,
                section,
                view,
            };
            Some(if complete {
                Reply::Done(answer)
            } else {
                Reply::Part(answer)
            })
        }
        _ => None,
    }
}

/// Fit vector scaling, matrix scaling and Dirichlet calibration on the split of
/// the complete fit of generation `gen`.
pub(crate) struct FitMulticlass {
    gen: u64,
}

impl Request for FitMulticlass {
    type Answer = Answer;
    const CANCELLABLE: bool = true;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::RecalMulticlass { id, gen: self.gen }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Answer>> {
        recalibrated(msg)
    }
}

/// The before/after tables of the last fit at `(binning, m)`.
struct TablesAt {
    binning: Binning,
    m: usize,
}

impl Request for TablesAt {
    type Answer = Tables;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::RecalTables {
            id,
            gen: id,
            binning: self.binning,
            m: self.m,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Tables>> {
        match msg {
            FromWorker::RecalTables {
                binning,
                m,
                reading,
                tables,
                ..
            } => Some(Reply::Done(Tables {
                binning,
                reading,
                m,
                tables,
            })),
            _ => None,
        }
    }
}

/// Which file of a method's export to save.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Want {
    Csv,
    Json,
}

/// The last fit's files for `method`.
struct ExportOf {
    method: Method,
    want: Want,
}

/// A file to save: `(name, text, MIME type)` and the method it is of.
#[derive(Clone, Debug, PartialEq)]
struct Export {
    name: String,
    text: String,
    mime: &'static str,
    method: Method,
}

impl Request for ExportOf {
    type Answer = Export;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::RecalExport {
            id,
            method: self.method,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Export>> {
        match msg {
            FromWorker::RecalExport {
                method,
                stem,
                csv,
                params,
                ..
            } => Some(Reply::Done(match self.want {
                Want::Json => Export {
                    name: format!("{stem}_params.json"),
                    text: params,
                    mime: "application/json",
                    method,
                },
                Want::Csv => Export {
                    name: format!("{stem}.csv"),
                    text: csv,
                    mime: "text/csv",
                    method,
                },
            })),
            _ => None,
        }
    }
}

/// The settings a permalink carries: seed, fraction, binning, m and the AFTER method.
#[derive(Clone, Copy)]
pub struct Settings {
    pub seed: RwSignal<u64>,
    pub fraction: RwSignal<f64>,
    pub binning: RwSignal<Binning>,
    pub m: RwSignal<usize>,
    /// The method of the AFTER diagram.
    pub after: RwSignal<Method>,
    /// Whether vector, matrix and Dirichlet scaling are asked for.
    pub multiclass: RwSignal<bool>,
}

/// The view's state (created once, with the page, and kept while other views are
/// shown).
#[derive(Clone, Copy)]
pub struct RecalState {
    pub(crate) seed: RwSignal<u64>,
    pub(crate) fraction: RwSignal<f64>,
    pub(crate) binning: RwSignal<Binning>,
    pub(crate) m: RwSignal<usize>,
    pub(crate) after: RwSignal<Method>,
    pub(crate) answer: RwSignal<Option<Answer>>,
    pub(crate) tables: RwSignal<Option<Tables>>,
    pub(crate) error: RwSignal<Option<String>>,
    pub(crate) export_status: RwSignal<String>,
    /// Whether the multiclass maps are wanted: asked for after every complete fit
    /// until the user cancels.
    pub(crate) multiclass_wanted: RwSignal<bool>,
    /// The multiclass maps' fits done and in all, while they run.
    pub(crate) multiclass_progress: RwSignal<Option<(u64, u64)>>,
    pub(crate) multiclass: Call<FitMulticlass>,
    fit: Call<Fit>,
    tables_at: Call<TablesAt>,
    export: Call<ExportOf>,
}

impl RecalState {
    /// Creates the view's state (call once, from the App; provided as context): a
    /// recalibration is forgotten when another data set is opened.
    pub fn new(store: Store, client: Client) -> RecalState {
        let answer = RwSignal::new(None);
        let tables = RwSignal::new(None);
        let error = RwSignal::new(None);
        let export_status = RwSignal::new(String::new());
        let fit = Call::handled(client, Mode::Latest, move |reply| match reply {
            Reply::Part(a) | Reply::Done(a) => {
                error.set(None);
                answer.set(Some(a));
            }
            Reply::Failed(f) => error.set(Some(f.message)),
            _ => {}
        });
        let tables_at = Call::handled(client, Mode::Latest, move |reply| match reply {
            Reply::Done(t) => tables.set(Some(t)),
            Reply::Failed(f) => error.set(Some(f.message)),
            _ => {}
        });
        let export = Call::handled(
            client,
            Mode::Every,
            move |reply: Reply<Export>| match reply {
                Reply::Done(e) => export_status.set(match save_text(&e.name, e.mime, &e.text) {
                    Ok(()) => format!("Saved {} ({}).", e.name, e.method.name()),
                    Err(err) => format!("The download failed: {err:?}"),
                }),
                Reply::Failed(f) => {
                    export_status.set(format!("The file could not be made: {}", f.message))
                }
                _ => {}
            },
        );
        let multiclass_progress = RwSignal::new(None);
        let multiclass = Call::handled(client, Mode::Latest, move |reply| {
            if let Reply::Progress(p) = &reply {
                multiclass_progress.set(Some((p.done, p.total)));
                return;
            }
            multiclass_progress.set(None);
            match reply {
                Reply::Done(a) => {
                    error.set(None);
                    answer.set(Some(a));
                }
                Reply::Failed(f) => error.set(Some(f.message)),
                _ => {}
            }
        });
        let r = RecalState {
            seed: RwSignal::new(0),
            fraction: RwSignal::new(0.5),
            binning: RwSignal::new(Binning::Width),
            m: RwSignal::new(15),
            after: RwSignal::new(Method::Temperature),
            answer,
            tables,
            error,
            export_status,
            multiclass_wanted: RwSignal::new(false),
            multiclass_progress,
            multiclass,
            fit,
            tables_at,
            export,
        };
        Effect::new(move |_| {
            store.summary.track();
            r.answer.set(None);
            r.tables.set(None);
            r.error.set(None);
        });
        // a link showing a multiclass map asks for them
        Effect::new(move |_| {
            if Method::MULTICLASS.contains(&r.after.get()) {
                r.multiclass_wanted.set(true);
            }
        });
        // the multiclass maps, when wanted, after each complete fit that lacks them
        Effect::new(move |_| {
            if !r.multiclass_wanted.get() {
                return;
            }
            let gen = r.answer.with(|a| {
                a.as_ref()
                    .filter(|a| a.complete && multiclass_offered(&a.view) && !has_multiclass(a))
                    .map(|a| a.gen)
            });
            if let Some(gen) = gen {
                r.multiclass.send(FitMulticlass { gen });
            }
        });
        r
    }

    /// Asks for the multiclass maps (now, and after each later complete fit).
    pub(crate) fn fit_multiclass(self) {
        if !self.multiclass_wanted.get_untracked() {
            // the effect above sends it
            self.multiclass_wanted.set(true);
            return;
        }
        // wanted already (a failed or cancelled try): send again
        if let Some(gen) = self
            .answer
            .with_untracked(|a| a.as_ref().filter(|a| a.complete).map(|a| a.gen))
        {
            self.multiclass.send(FitMulticlass { gen });
        }
    }

    /// Stops the multiclass maps' fit (they are no longer asked for).
    pub(crate) fn cancel_multiclass(self) {
        self.multiclass_wanted.set(false);
        self.multiclass.cancel();
    }

    /// The settings a permalink carries.
    pub fn settings(self) -> Settings {
        Settings {
            seed: self.seed,
            fraction: self.fraction,
            binning: self.binning,
            m: self.m,
            after: self.after,
            multiclass: self.multiclass_wanted,
        }
    }

    /// Fits model `model` on the split of `seed` and `fraction`.
    pub(crate) fn fit(self, model: usize, seed: u64, fraction: f64) {
        self.fit.elapsed.set(None);
        self.fit.first.set(None);
        self.fit.send(Fit {
            model,
            seed,
            fraction,
        });
    }

    /// Asks for the before/after tables of the last fit at `(binning, m)`.
    pub(crate) fn ask_tables(self, binning: Binning, m: usize) {
        self.tables_at.send(TablesAt { binning, m });
    }

    /// Milliseconds from the latest fit request to its answer, and to its first
    /// part (page clock; the browser benchmark reads them).
    pub(crate) fn answer_ms(self) -> (Option<f64>, Option<f64>) {
        (self.fit.elapsed.get(), self.fit.first.get())
    }

    /// Whether a fit is in flight (or its second part).
    pub(crate) fn fitting(self) -> bool {
        self.fit.pending.get()
    }

    /// Saves the last fit's `want` file of `method`.
    pub(crate) fn export(self, method: Method, want: Want) {
        self.export_status.set("Preparing the file…".into());
        self.export.send(ExportOf { method, want });
    }
}

pub(crate) fn f64_at(v: &Value, path: &str) -> Option<f64> {
    get_path(v, path).and_then(Value::as_f64)
}

/// The methods the view offers for `view`'s data set: every method (the
/// multiclass maps once fitted and defined), or temperature scaling alone when the
/// others are left out (a ragged log's class positions).
pub fn offered(view: &RecalView) -> Vec<Method> {
    match view.left_out {
        Some(_) => vec![Method::Temperature],
        None => Method::ALL
            .into_iter()
            .chain(
                Method::MULTICLASS
                    .into_iter()
                    .filter(|&m| view.checks.has(m)),
            )
            .collect(),
    }
}

/// Whether the multiclass maps can be fitted on `view`'s data set: three classes or
/// more, every row with the same classes.
pub fn multiclass_offered(view: &RecalView) -> bool {
    view.left_out.is_none() && view.class_counts.calibration.len() >= 3
}

/// Whether `answer` holds the multiclass maps (fitted, or undefined with a reason).
pub fn has_multiclass(answer: &Answer) -> bool {
    Method::MULTICLASS
        .iter()
        .all(|m| answer.section.get(m.name()).is_some())
}
