//! Opening data, the page's own request: the files of the last open and their
//! mapping, the open in flight (a newer one cancels it), its progress and its
//! failure (the page-level progress and error panels hear about nothing else), and
//! the bundled examples.

use std::rc::Rc;

use crate::proto::{FromWorker, Limits, MappingOverride, Summary, ToWorker};
use calibscope_share::FileRef;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

use crate::audit::verdict::SecondStage;
use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::page::store::{ErrorView, ProgressView, Store};

/// The bundled example opened at start.
const EXAMPLE: &str = "assets/examples/digits_zoo_probs.csv";

/// Read `files` with `mapping` within `limits`.
pub struct OpenFiles {
    files: Vec<File>,
    mapping: MappingOverride,
    limits: Limits,
}

/// A data set that was read.
#[derive(Clone, Debug, PartialEq)]
pub struct Opened {
    pub summary: Summary,
    pub audits: Vec<Value>,
    pub inputs: Vec<FileRef>,
}

impl Request for OpenFiles {
    type Answer = Opened;
    const CANCELLABLE: bool = true;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Open {
            id,
            mapping: self.mapping.clone(),
            limits: self.limits,
        }
    }

    fn files(&self) -> Vec<File> {
        self.files.clone()
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Opened>> {
        match msg {
            FromWorker::Opened {
                summary,
                audits,
                inputs,
                ..
            } => Some(Reply::Done(Opened {
                summary,
                audits,
                inputs,
            })),
            _ => None,
        }
    }
}

/// What runs once a data set is shown (with its files' fingerprints).
type Listener = Rc<dyn Fn(&[FileRef])>;

/// The page's opening of data (a context value).
#[derive(Clone, Copy)]
pub struct Opening {
    call: Call<OpenFiles>,
    /// The files and mapping of the last open (read again with another mapping).
    last: StoredValue<(Vec<File>, MappingOverride), LocalStorage>,
    /// The files and mapping of the last data set that loaded: read again after a
    /// worker restart (not the files being opened when it crashed, which may be the
    /// cause).
    loaded: StoredValue<Option<(Vec<File>, MappingOverride)>, LocalStorage>,
    listeners: StoredValue<Vec<Listener>, LocalStorage>,
    /// The audit's second stage, asked once a data set is shown.
    stage: SecondStage,
    store: Store,
    client: Client,
}

impl Opening {
    /// Creates the page's opening (call once, from the App).
    pub fn new(store: Store, client: Client) -> Opening {
        let call_slot = StoredValue::new_local(None::<Opening>);
        let call = Call::handled(client, Mode::Latest, move |reply| {
            if let Some(o) = call_slot.get_value() {
                o.reply(reply);
            }
        });
        let stage = SecondStage::new(store, client);
        provide_context(stage);
        let opening = Opening {
            call,
            stage,
            last: StoredValue::new_local((Vec::new(), MappingOverride::default())),
            loaded: StoredValue::new_local(None),
            listeners: StoredValue::new_local(Vec::new()),
            store,
            client,
        };
        call_slot.set_value(Some(opening));
        client.on_restart(move || {
            if let Some((files, mapping)) = opening.loaded.get_value() {
                opening.open(files, mapping);
            }
        });
        opening
    }

    /// Runs `f` each time a data set is shown (after its summary is in the store).
    pub fn on_opened(self, f: impl Fn(&[FileRef]) + 'static) {
        self.listeners.update_value(|l| l.push(Rc::new(f)));
    }

    /// Opens `files` (cancelling an open in flight).
    pub fn open(self, files: Vec<File>, mapping: MappingOverride) {
        let total: f64 = files.iter().map(|f| f.size()).sum();
        self.last.set_value((files.clone(), mapping.clone()));
        let store = self.store;
        self.stage.cancel();
        store.error.set(None);
        store.failed.set(None);
        store.progress.set(Some(ProgressView {
            file: files.first().map(|f| f.name()).unwrap_or_default(),
            bytes_read: 0,
            bytes_total: total as u64,
        }));
        let limits = store.limits.get_untracked();
        self.call.send(OpenFiles {
            files,
            mapping,
            limits,
        });
    }

    /// Reads the last files again with another mapping.
    pub fn remap(self, mapping: MappingOverride) {
        let files = self.last.with_value(|l| l.0.clone());
        self.open(files, mapping);
    }

    /// The files of the last open.
    pub fn files(self) -> Vec<File> {
        self.last.with_value(|l| l.0.clone())
    }

    /// The mapping of the last open.
    pub fn mapping(self) -> MappingOverride {
        self.last.with_value(|l| l.1.clone())
    }

    /// Cancels the open in flight, if any.
    pub fn cancel(self) {
        self.call.cancel();
    }

    /// Opens the bundled example.
    pub fn open_example(self) {
        self.open_example_at(EXAMPLE);
    }

    /// Opens the bundled example at `path`.
    pub fn open_example_at(self, path: &'static str) {
        self.client.busy(1);
        wasm_bindgen_futures::spawn_local(async move {
            match fetch_example(path).await {
                Ok(file) => self.open(vec![file], MappingOverride::default()),
                Err(e) => web_sys::console::warn_1(&e),
            }
            self.client.busy(-1);
        });
    }

    fn reply(self, reply: Reply<Opened>) {
        let store = self.store;
        match reply {
            Reply::Progress(p) => store.progress.set(Some(ProgressView {
                file: p.label,
                bytes_read: p.done,
                bytes_total: p.total,
            })),
            Reply::Part(_) => {}
            Reply::Done(opened) => {
                self.loaded.set_value(Some(self.last.get_value()));
                // two tasks, so that no task holds the page for long: this one takes
                // the last data set's views down, the next one builds the new set's
                // (with a 100 MB file the two took ~30 ms in one task, and a
                // compilation or collection by V8 in it could pass 50 ms)
                store.progress.set(None);
                store.error.set(None);
                store.unload();
                self.client.busy(1);
                set_timeout(
                    move || {
                        self.client.busy(-1);
                        if self.call.pending.get_untracked() {
                            return; // another open started meanwhile: its answer follows
                        }
                        let Opened {
                            summary,
                            audits,
                            inputs,
                        } = opened;
                        store.inputs.set(inputs.clone());
                        store.load(summary, audits);
                        // in a later task: the views' first requests (their effects
                        // run before it) reach the worker first, so the first
                        // diagram does not wait behind a part of the second stage
                        set_timeout(
                            move || {
                                if !self.call.pending.get_untracked() {
                                    self.stage.start();
                                }
                            },
                            std::time::Duration::ZERO,
                        );
                        if !store.example.get_untracked() {
                            bring_result_into_view();
                        }
                        for f in self.listeners.get_value() {
                            f(&inputs);
                        }
                    },
                    std::time::Duration::ZERO,
                );
            }
            Reply::Failed(f) => {
                store.progress.set(None);
                store.failed.set(f.detected);
                store.error.set(Some(ErrorView {
                    code: f.code,
                    message: f.message,
                    errors: f.errors,
                    more: f.more,
                    columns: f.columns,
                }));
            }
            Reply::Cancelled => store.progress.set(None),
        }
    }
}

/// After a data set of the user's is shown: when its verdict starts in the lower
/// part of the screen (a phone, where the header, the drop zone and the tabs fill
/// the first screen), scrolls it to the top so the verdict and the diagram below it
/// are what is seen (once the views are built, in the next task).
fn bring_result_into_view() {
    set_timeout(
        || {
            let Some(el) = document().get_element_by_id("verdict") else {
                return;
            };
            let height = window()
                .inner_height()
                .ok()
                .and_then(|h| h.as_f64())
                .unwrap_or(0.0);
            if el.get_bounding_client_rect().top() > 0.4 * height {
                el.scroll_into_view();
            }
        },
        std::time::Duration::ZERO,
    );
}

/// The files of a file input or a drop.
pub fn files_of(list: Option<web_sys::FileList>) -> Vec<File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

async fn fetch_example(path: &str) -> Result<File, JsValue> {
    let resp: web_sys::Response = JsFuture::from(window().fetch_with_str(path))
        .await?
        .dyn_into()?;
    if !resp.ok() {
        return Err(JsValue::from_str(&format!("HTTP {}", resp.status())));
    }
    let blob: web_sys::Blob = JsFuture::from(resp.blob()?).await?.dyn_into()?;
    let parts = js_sys::Array::of1(&blob);
    let name = path.rsplit('/').next().unwrap_or(path);
    File::new_with_blob_sequence(&parts, name)
}
