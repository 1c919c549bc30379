//! The page's side of the worker protocol: starts the worker (with the name of the
//! `BroadcastChannel` it answers on, `proto::ANSWER_CHANNEL_PREFIX`), waits for its
//! handshake, numbers requests, drops stale generations, maps answers to signals,
//! turns a worker crash into a restart offer, and counts what is pending for the
//! `window.calibscopeIdle()` hook (installed by `super::idle`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::labs::{LabAnswer, LabRequest};
use crate::proto::{FromWorker, MappingOverride, ToWorker, ANSWER_CHANNEL_PREFIX, PROTOCOL};
use js_sys::{Array, Object, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, File, MessageEvent, Worker, WorkerOptions, WorkerType};

use super::store::{Computed, ErrorView, ProgressView, Status, Store};

struct Client {
    worker: Option<Worker>,
    /// The channel the worker answers on (see [`ANSWER_CHANNEL_PREFIX`]).
    answers: Option<BroadcastChannel>,
    next_id: u64,
    /// Latest compute generation sent; answers of older ones are dropped.
    latest_gen: u64,
    /// Requests sent and not yet answered.
    pending: HashSet<u64>,
    /// Messages sent before the handshake arrived.
    queue: Vec<(String, Array)>,
    ready: bool,
    /// The open request in flight (a new drop cancels it).
    opening: Option<u64>,
    /// The files of the last open (read again with another mapping).
    files: Vec<File>,
    mapping: MappingOverride,
    /// The files and mapping of the last data set that loaded: read again after a
    /// worker restart (not the files being opened when it crashed, which may be the
    /// cause).
    loaded: Option<(Vec<File>, MappingOverride)>,
    store: Option<Store>,
    /// Other pending work (fetches, frames) for the idle hook.
    busy: usize,
    /// The pages' handlers of lab requests in flight.
    labs: HashMap<u64, LabHandler>,
}

/// What a lab request reports to its page.
pub enum LabEvent {
    /// `done` of `total` repetitions.
    Progress(usize, usize),
    Done(Box<LabAnswer>),
    Failed(String),
}

type LabHandler = Rc<dyn Fn(LabEvent)>;

thread_local! {
    static CLIENT: RefCell<Client> = RefCell::new(Client {
        worker: None,
        answers: None,
        next_id: 1,
        latest_gen: 0,
        pending: HashSet::new(),
        queue: Vec::new(),
        ready: false,
        opening: None,
        files: Vec::new(),
        mapping: MappingOverride::default(),
        loaded: None,
        store: None,
        busy: 0,
        labs: HashMap::new(),
    });
}

fn store() -> Store {
    CLIENT.with(|c| c.borrow().store.expect("client started"))
}

/// Starts the worker and installs `window.calibscopeIdle`.
pub fn start(store: Store) {
    CLIENT.with(|c| c.borrow_mut().store = Some(store));
    spawn_worker();
    super::idle::install_hooks();
}

fn spawn_worker() {
    let st = store();
    st.status.set(Status::Starting);
    let opts = WorkerOptions::new();
    opts.set_type(WorkerType::Module);
    // a name of this worker's own: no other tab or worker answers on its channel
    let name = format!(
        "{ANSWER_CHANNEL_PREFIX}{:x}-{:x}",
        js_sys::Date::now() as u64,
        (js_sys::Math::random() * 2f64.powi(52)) as u64
    );
    opts.set_name(&name);
    let worker = match Worker::new_with_options("./worker_loader.js", &opts) {
        Ok(w) => w,
        Err(e) => {
            st.status.set(Status::Crashed(format!(
                "the worker could not start: {e:?}"
            )));
            return;
        }
    };
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(|ev: MessageEvent| {
        let data = ev.data();
        // the JSON text, or `{json, rows}` with a table's rows as bytes (`to_wire`)
        let (text, rows) = match data.as_string() {
            Some(text) => (Some(text), None),
            None => (
                Reflect::get(&data, &"json".into())
                    .ok()
                    .and_then(|j| j.as_string()),
                Reflect::get(&data, &"rows".into())
                    .ok()
                    .and_then(|r| r.dyn_into::<js_sys::Uint8Array>().ok())
                    .map(|r| r.to_vec()),
            ),
        };
        let Some(text) = text else { return };
        match FromWorker::from_wire(&text, rows.as_deref()) {
            Ok(msg) => handle(msg),
            Err(e) => crashed(format!("unreadable worker message: {e}")),
        }
    });
    worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // answers come on the channel when the worker could open it, else as messages
    let answers = BroadcastChannel::new(&name).ok();
    if let Some(a) = &answers {
        a.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    }
    on_message.forget();
    let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(|ev: web_sys::Event| {
        ev.prevent_default();
        let message = ev
            .dyn_ref::<web_sys::ErrorEvent>()
            .map(|e| e.message())
            .unwrap_or_else(|| "the worker stopped".into());
        // a panic already reported itself; keep its message
        if !matches!(store().status.get_untracked(), Status::Crashed(_)) {
            crashed(message);
        }
    });
    worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
    on_error.forget();
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.worker = Some(worker);
        if let Some(old) = std::mem::replace(&mut c.answers, answers) {
            old.close();
        }
        c.ready = false;
        c.pending.clear();
        c.opening = None;
    });
}

fn crashed(message: String) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.pending.clear();
        c.queue.clear();
        c.labs.clear();
        c.opening = None;
        c.ready = false;
    });
    let store = store();
    store.progress.set(None);
    store.status.set(Status::Crashed(message));
}

/// Terminates the worker, starts a new one and reads the last data set that loaded
/// again (the page keeps showing it meanwhile).
pub fn restart() {
    let old = CLIENT.with(|c| c.borrow_mut().worker.take());
    if let Some(w) = old {
        w.terminate();
    }
    spawn_worker();
    if let Some((files, mapping)) = CLIENT.with(|c| c.borrow().loaded.clone()) {
        open(files, mapping);
    }
}

fn send(msg: &ToWorker, files: Array) {
    let json = serde_json::to_string(msg).expect("requests serialise");
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if !c.ready {
            c.queue.push((json, files));
            return;
        }
        post(&c, &json, &files);
    });
}

fn post(c: &Client, json: &str, files: &Array) {
    let Some(worker) = &c.worker else { return };
    let obj = Object::new();
    let _ = Reflect::set(&obj, &"json".into(), &JsValue::from_str(json));
    let _ = Reflect::set(&obj, &"files".into(), files);
    let _ = worker.post_message(&obj);
}

fn next_id() -> u64 {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        let id = c.next_id;
        c.next_id += 1;
        c.pending.insert(id);
        id
    })
}

/// Opens `files` (cancelling an open in flight).
pub fn open(files: Vec<File>, mapping: MappingOverride) {
    if let Some(old) = CLIENT.with(|c| c.borrow().opening) {
        cancel(old);
    }
    let id = next_id();
    let array = Array::new();
    for f in &files {
        array.push(f);
    }
    let total: f64 = files.iter().map(|f| f.size()).sum();
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.opening = Some(id);
        c.files = files.clone();
        c.mapping = mapping.clone();
    });
    let store = store();
    store.error.set(None);
    store.failed.set(None);
    store.progress.set(Some(ProgressView {
        id,
        file: files.first().map(|f| f.name()).unwrap_or_default(),
        bytes_read: 0,
        bytes_total: total as u64,
    }));
    let limits = store.limits.get_untracked();
    send(
        &ToWorker::Open {
            id,
            mapping,
            limits,
        },
        array,
    );
}

/// Reads the last files again with another mapping.
pub fn remap(mapping: MappingOverride) {
    let files = CLIENT.with(|c| c.borrow().files.clone());
    open(files, mapping);
}

/// The names of the files of the last open.
pub fn current_files() -> Vec<String> {
    CLIENT.with(|c| c.borrow().files.iter().map(|f| f.name()).collect())
}

/// The files of the last open.
pub fn current_file_handles() -> Vec<File> {
    CLIENT.with(|c| c.borrow().files.clone())
}

/// The mapping of the last open.
pub fn current_mapping() -> MappingOverride {
    CLIENT.with(|c| c.borrow().mapping.clone())
}

/// Cancels open request `id`.
pub fn cancel(id: u64) {
    send(&ToWorker::Cancel { id }, Array::new());
}

/// Cancels the open in flight, if any.
pub fn cancel_current() {
    if let Some(id) = CLIENT.with(|c| c.borrow().opening) {
        cancel(id);
    }
}

/// Asks for the reliability table of `(model, reading, binning, m)`; only the answer
/// to the latest such request is kept.
pub fn compute(model: usize, reading: String, binning: String, m: usize) {
    let id = next_id();
    let gen = CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.latest_gen += 1;
        c.latest_gen
    });
    send(
        &ToWorker::Compute {
            id,
            gen,
            model,
            reading,
            binning,
            m,
        },
        Array::new(),
    );
}

/// Sends a ranking-flips question; returns its generation (its id): the view keeps
/// only the latest generation's answer of each kind.
pub fn flips(request: crate::flips::FlipsRequest) -> u64 {
    let id = next_id();
    send(
        &ToWorker::Flips {
            id,
            gen: id,
            request,
        },
        Array::new(),
    );
    id
}

/// Sends the request `build` makes from a fresh id (the views' own requests, whose
/// answers go to their modules); returns the id.
pub fn request(build: impl FnOnce(u64) -> ToWorker) -> u64 {
    let id = next_id();
    send(&build(id), Array::new());
    id
}

/// Sends a lab request; `on` hears its progress and its answer or error (never the
/// page's error panel). Returns the request id.
pub fn lab(request: LabRequest, on: impl Fn(LabEvent) + 'static) -> u64 {
    let id = next_id();
    CLIENT.with(|c| c.borrow_mut().labs.insert(id, Rc::new(on)));
    send(&ToWorker::Lab { id, request }, Array::new());
    id
}

/// The handler of lab request `id` (removed when `last`), outside the borrow.
fn lab_handler(id: u64, last: bool) -> Option<LabHandler> {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        if last {
            c.labs.remove(&id)
        } else {
            c.labs.get(&id).cloned()
        }
    })
}

/// Sends the request `build` makes, with `files` (a record to verify and its data).
pub fn request_files(build: impl FnOnce(u64) -> ToWorker, files: Vec<File>) -> u64 {
    let id = next_id();
    let array = Array::new();
    for f in &files {
        array.push(f);
    }
    send(&build(id), array);
    id
}

/// Makes the worker panic (for the crash-path test).
pub fn debug_panic() {
    let id = next_id();
    send(&ToWorker::DebugPanic { id }, Array::new());
}

/// Makes the worker run out of memory (for the out-of-memory test).
pub fn debug_out_of_memory() {
    let id = next_id();
    send(&ToWorker::DebugOutOfMemory { id }, Array::new());
}

/// Marks other work (a fetch) as pending for the idle hook.
pub fn busy(delta: isize) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.busy = (c.busy as isize + delta).max(0) as usize;
    });
}

fn done(id: u64) {
    CLIENT.with(|c| {
        let mut c = c.borrow_mut();
        c.pending.remove(&id);
        if c.opening == Some(id) {
            c.opening = None;
        }
    });
}

fn handle(msg: FromWorker) {
    let store = store();
    match msg {
        FromWorker::Ready { proto, build } => {
            if proto != PROTOCOL {
                crashed(format!(
                    "the worker speaks protocol {proto} (build {build}), the page {PROTOCOL}"
                ));
                store.status.set(Status::Incompatible);
                return;
            }
            let queue = CLIENT.with(|c| {
                let mut c = c.borrow_mut();
                c.ready = true;
                std::mem::take(&mut c.queue)
            });
            store.status.set(Status::Ready);
            CLIENT.with(|c| {
                let c = c.borrow();
                for (json, files) in &queue {
                    post(&c, json, files);
                }
            });
        }
        FromWorker::Progress {
            id,
            file,
            bytes_read,
            bytes_total,
            ..
        } => {
            if CLIENT.with(|c| c.borrow().opening) == Some(id) {
                store.progress.set(Some(ProgressView {
                    id,
                    file,
                    bytes_read,
                    bytes_total,
                }));
            }
        }
        FromWorker::Opened {
            id,
            summary,
            audits,
            inputs,
        } => {
            let current = CLIENT.with(|c| c.borrow().opening) == Some(id);
            done(id);
            if current {
                CLIENT.with(|c| {
                    let mut c = c.borrow_mut();
                    c.loaded = Some((c.files.clone(), c.mapping.clone()));
                });
                // two tasks, so that no task holds the page for long: this one takes
                // the last data set's views down, the next one builds the new set's
                // (with a 100 MB file the two took ~30 ms in one task, and a
                // compilation or collection by V8 in it could pass 50 ms)
                store.progress.set(None);
                store.error.set(None);
                store.unload();
                busy(1);
                set_timeout(
                    move || {
                        busy(-1);
                        if CLIENT.with(|c| c.borrow().opening.is_some()) {
                            return; // another open started meanwhile: its answer follows
                        }
                        let store = self::store();
                        store.inputs.set(inputs.clone());
                        store.load(summary, audits);
                        super::share::opened(&inputs);
                    },
                    std::time::Duration::ZERO,
                );
            }
        }
        FromWorker::Computed {
            id,
            gen,
            model,
            reading,
            binning,
            m,
            rows,
            metrics,
            nonempty_bins,
        } => {
            done(id);
            if gen == CLIENT.with(|c| c.borrow().latest_gen) {
                store.computed.set(Some(Computed {
                    model,
                    reading,
                    binning,
                    m,
                    rows,
                    metrics,
                    nonempty_bins,
                }));
            }
        }
        FromWorker::Flips { id, gen, answer } => {
            done(id);
            super::flips_state::accept(gen, answer);
        }
        FromWorker::Recalibrated { id, complete, .. } => {
            // the first part of a fit is followed by the second (or a Cancelled)
            if complete {
                done(id);
            }
            super::recal::answer(msg);
        }
        FromWorker::RecalTables { id, .. } | FromWorker::RecalExport { id, .. } => {
            done(id);
            super::recal::answer(msg);
        }
        FromWorker::LabProgress { id, done, total } => {
            if let Some(h) = lab_handler(id, false) {
                h(LabEvent::Progress(done, total));
            }
        }
        FromWorker::LabResult { id, answer } => {
            done(id);
            if let Some(h) = lab_handler(id, true) {
                h(LabEvent::Done(Box::new(answer)));
            }
        }
        FromWorker::Record { id, .. } | FromWorker::Verified { id, .. } => {
            done(id);
            super::verify::answer(msg);
        }
        FromWorker::Cancelled { id } => {
            let current = CLIENT.with(|c| c.borrow().opening) == Some(id);
            done(id);
            if current || store.progress.get_untracked().is_some_and(|p| p.id == id) {
                store.progress.set(None);
            }
        }
        FromWorker::Error {
            id,
            code,
            message,
            errors,
            more,
            detected,
            columns,
        } => {
            if let Some(h) = lab_handler(id, true) {
                done(id);
                h(LabEvent::Failed(message));
                return;
            }
            let was_open = CLIENT.with(|c| c.borrow().opening) == Some(id);
            done(id);
            super::recal::failed(id, &message);
            super::verify::failed(id, &message);
            if was_open {
                store.progress.set(None);
                store.failed.set(detected);
            }
            store.error.set(Some(ErrorView {
                code,
                message,
                errors,
                more,
                columns,
            }));
        }
        FromWorker::Panic { message } => crashed(message),
    }
}

/// Whether no request, fetch or worker start is pending.
pub(super) fn idle_now() -> bool {
    let (pending, busy, ready, has_worker) = CLIENT.with(|c| {
        let c = c.borrow();
        (c.pending.len(), c.busy, c.ready, c.worker.is_some())
    });
    let status = store().status.get_untracked();
    let starting = has_worker && !ready && matches!(status, Status::Starting);
    pending == 0 && busy == 0 && !starting
}
