//! The page's link to the worker, a router that knows no view: it starts the worker
//! (with the name of the `BroadcastChannel` it answers on,
//! `proto::ANSWER_CHANNEL_PREFIX`), waits for its handshake, numbers requests and
//! hands every message of a request (its progress, its answer, its failure) to the
//! one that asked ([`Client::ask`]). A worker crash becomes a restart offer; what is
//! pending is counted for the `window.calibscopeIdle()` hook (`crate::client::idle`).
//!
//! A view talks to the worker through a [`crate::client::call::Call`] of its own
//! [`Request`] type; adding a view adds a request type, never a line here.

pub mod call;
pub mod idle;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::proto::{ErrorItem, FromWorker, Summary, ToWorker, ANSWER_CHANNEL_PREFIX, PROTOCOL};
use js_sys::{Array, Object, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::{BroadcastChannel, File, MessageEvent, Worker, WorkerOptions, WorkerType};

/// The worker's state.
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Starting,
    Ready,
    /// The worker panicked or stopped; the page offers a restart.
    Crashed(String),
    /// The worker speaks another protocol version.
    Incompatible,
}

/// A question to the worker and how its answers read.
pub trait Request: 'static {
    /// What the worker answers.
    type Answer: Clone + Send + Sync + 'static;
    /// The message of this request under id `id`.
    fn message(&self, id: u64) -> ToWorker;
    /// The files posted with it (their handles, never their bytes).
    fn files(&self) -> Vec<File> {
        Vec::new()
    }
    /// The answer a message of the worker carries for this request (`None`: not an
    /// answer of this kind). Progress, failures and cancellations are read by the
    /// client for every request alike.
    fn answer(&self, msg: FromWorker) -> Option<Reply<Self::Answer>>;
    /// Whether the worker stops this request when a newer one of the same
    /// [`Call`](crate::client::call::Call) replaces it (reading files).
    const CANCELLABLE: bool = false;
}

/// Progress of a request: `done` of `total` (bytes of `label`, or repetitions).
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub label: String,
    pub done: u64,
    pub total: u64,
}

/// A failed request: the worker's error, with what a failed read found.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub code: String,
    pub message: String,
    pub errors: Vec<ErrorItem>,
    pub more: usize,
    /// What was read, when the file could be read but its values break the contract.
    pub detected: Option<Summary>,
    /// The columns of a header that could not be mapped.
    pub columns: Vec<String>,
}

/// One message of the worker about a request (short-lived: moved once to its
/// asker, so the size difference of the variants does not matter).
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Reply<A> {
    Progress(Progress),
    /// A first part of the answer; the rest follows.
    Part(A),
    /// The answer (the request is finished).
    Done(A),
    /// The request failed (finished).
    Failed(Failure),
    /// The request was cancelled, or the worker stopped (finished).
    Cancelled,
}

impl<A> Reply<A> {
    /// Whether no message about the request follows this one.
    pub fn is_last(&self) -> bool {
        matches!(self, Reply::Done(_) | Reply::Failed(_) | Reply::Cancelled)
    }

    /// The reply of `msg`, read by `request` where it carries an answer.
    fn of<R: Request<Answer = A>>(request: &R, msg: FromWorker) -> Option<Reply<A>> {
        Some(match common(msg) {
            Ok(Common::Progress(p)) => Reply::Progress(p),
            Ok(Common::Failed(f)) => Reply::Failed(f),
            Ok(Common::Cancelled) => Reply::Cancelled,
            Err(msg) => return request.answer(msg),
        })
    }
}

/// The replies every request reads alike (short-lived, as [`Reply`]).
#[allow(clippy::large_enum_variant)]
enum Common {
    Progress(Progress),
    Failed(Failure),
    Cancelled,
}

/// The reply of `msg` that every request reads alike, or `msg` (an answer). Not
/// inlined: one copy for every request type. (The message is moved once, so its
/// size in the `Err` does not matter.)
#[inline(never)]
#[allow(clippy::result_large_err)]
fn common(msg: FromWorker) -> Result<Common, FromWorker> {
    match msg {
        FromWorker::Progress {
            file,
            bytes_read,
            bytes_total,
            ..
        } => Ok(Common::Progress(Progress {
            label: file,
            done: bytes_read,
            total: bytes_total,
        })),
        FromWorker::LabProgress { done, total, .. } => Ok(Common::Progress(Progress {
            label: String::new(),
            done: done as u64,
            total: total as u64,
        })),
        FromWorker::Cancelled { .. } => Ok(Common::Cancelled),
        FromWorker::Error {
            code,
            message,
            errors,
            more,
            detected,
            columns,
            ..
        } => Ok(Common::Failed(Failure {
            code,
            message,
            errors,
            more,
            detected,
            columns,
        })),
        msg => Err(msg),
    }
}

/// Where the messages of one request go; returns whether the request is finished.
type Route = Rc<dyn Fn(FromWorker) -> bool>;

struct Link {
    worker: Option<Worker>,
    /// The channel the worker answers on (see [`ANSWER_CHANNEL_PREFIX`]).
    answers: Option<BroadcastChannel>,
    next_id: u64,
    /// Requests sent and not yet finished.
    pending: HashSet<u64>,
    /// Who hears the messages of each pending request.
    routes: HashMap<u64, Route>,
    /// Messages sent before the handshake arrived.
    queue: Vec<(String, Array)>,
    ready: bool,
    /// Other pending work (fetches, frames) for the idle hook.
    busy: usize,
    /// What runs once a restarted worker is ready to take requests.
    on_restart: Option<Rc<dyn Fn()>>,
}

/// The handle of the worker link (a copyable context value).
#[derive(Clone, Copy)]
pub struct Client {
    link: StoredValue<Rc<RefCell<Link>>, LocalStorage>,
    pub status: RwSignal<Status>,
}

impl Client {
    /// Starts the worker (call once, from the App).
    pub fn start() -> Client {
        let client = Client {
            link: StoredValue::new_local(Rc::new(RefCell::new(Link {
                worker: None,
                answers: None,
                next_id: 1,
                pending: HashSet::new(),
                routes: HashMap::new(),
                queue: Vec::new(),
                ready: false,
                busy: 0,
                on_restart: None,
            }))),
            status: RwSignal::new(Status::Starting),
        };
        client.spawn_worker();
        client
    }

    fn with<T>(self, f: impl FnOnce(&mut Link) -> T) -> T {
        let link = self.link.get_value();
        let mut link = link.borrow_mut();
        f(&mut link)
    }

    fn spawn_worker(self) {
        self.status.set(Status::Starting);
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
                self.status.set(Status::Crashed(format!(
                    "the worker could not start: {e:?}"
                )));
                return;
            }
        };
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new(move |ev: MessageEvent| {
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
                Ok(msg) => self.handle(msg),
                Err(e) => self.crashed(format!("unreadable worker message: {e}")),
            }
        });
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        // answers come on the channel when the worker could open it, else as messages
        let answers = BroadcastChannel::new(&name).ok();
        if let Some(a) = &answers {
            a.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        }
        on_message.forget();
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            ev.prevent_default();
            let message = ev
                .dyn_ref::<web_sys::ErrorEvent>()
                .map(|e| e.message())
                .unwrap_or_else(|| "the worker stopped".into());
            // a panic already reported itself; keep its message
            if !matches!(self.status.get_untracked(), Status::Crashed(_)) {
                self.crashed(message);
            }
        });
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        on_error.forget();
        self.with(|c| {
            c.worker = Some(worker);
            if let Some(old) = std::mem::replace(&mut c.answers, answers) {
                old.close();
            }
            c.ready = false;
            c.pending.clear();
        });
    }

    /// The worker stopped: every request in flight is cancelled for its asker.
    fn crashed(self, message: String) {
        let routes = self.with(|c| {
            c.pending.clear();
            c.queue.clear();
            c.ready = false;
            std::mem::take(&mut c.routes)
        });
        for (id, route) in routes {
            route(FromWorker::Cancelled { id });
        }
        self.status.set(Status::Crashed(message));
    }

    /// What to do once a restarted worker runs (read the last data set again).
    pub fn on_restart(self, f: impl Fn() + 'static) {
        self.with(|c| c.on_restart = Some(Rc::new(f)));
    }

    /// Terminates the worker, starts a new one and runs the [`on_restart`]
    /// (Self::on_restart) hook.
    pub fn restart(self) {
        if let Some(w) = self.with(|c| c.worker.take()) {
            w.terminate();
        }
        self.spawn_worker();
        if let Some(f) = self.with(|c| c.on_restart.clone()) {
            f();
        }
    }

    fn next_id(self) -> u64 {
        self.with(|c| {
            let id = c.next_id;
            c.next_id += 1;
            c.pending.insert(id);
            id
        })
    }

    fn send(self, msg: &ToWorker, files: &[File]) {
        let json = serde_json::to_string(msg).expect("requests serialise");
        let array = Array::new();
        for f in files {
            array.push(f);
        }
        self.with(|c| {
            if !c.ready {
                c.queue.push((json, array));
                return;
            }
            post(c, &json, &array);
        });
    }

    /// Sends `request`; `on` hears each of its messages (progress, parts, its answer
    /// or failure). Returns the request's id.
    pub fn ask<R: Request>(self, request: R, on: impl Fn(u64, Reply<R::Answer>) + 'static) -> u64 {
        let id = self.next_id();
        let msg = request.message(id);
        let files = request.files();
        let route: Route = Rc::new(move |msg| match Reply::of(&request, msg) {
            Some(reply) => {
                let last = reply.is_last();
                on(id, reply);
                last
            }
            None => false,
        });
        self.with(|c| c.routes.insert(id, route));
        self.send(&msg, &files);
        id
    }

    /// Asks the worker to stop request `id` (reading files); it answers `Cancelled`.
    pub fn cancel(self, id: u64) {
        self.send(&ToWorker::Cancel { id }, &[]);
    }

    /// Makes the worker panic (for the crash-path test).
    pub fn debug_panic(self) {
        let id = self.next_id();
        self.send(&ToWorker::DebugPanic { id }, &[]);
    }

    /// Makes the worker run out of memory (for the out-of-memory test).
    pub fn debug_out_of_memory(self) {
        let id = self.next_id();
        self.send(&ToWorker::DebugOutOfMemory { id }, &[]);
    }

    /// Marks other work (a fetch) as pending for the idle hook.
    pub fn busy(self, delta: isize) {
        self.with(|c| c.busy = (c.busy as isize + delta).max(0) as usize);
    }

    fn handle(self, msg: FromWorker) {
        match msg {
            FromWorker::Ready { proto, build } => {
                if proto != PROTOCOL {
                    self.crashed(format!(
                        "the worker speaks protocol {proto} (build {build}), the page {PROTOCOL}"
                    ));
                    self.status.set(Status::Incompatible);
                    return;
                }
                self.status.set(Status::Ready);
                self.with(|c| {
                    c.ready = true;
                    for (json, files) in std::mem::take(&mut c.queue) {
                        post(c, &json, &files);
                    }
                });
            }
            FromWorker::Panic { message } => self.crashed(message),
            msg => {
                let Some(id) = msg.id() else { return };
                // called outside the borrow: the asker may send the next request
                let route = self.with(|c| c.routes.get(&id).cloned());
                let last = match route {
                    Some(route) => route(msg),
                    None => !matches!(
                        msg,
                        FromWorker::Progress { .. } | FromWorker::LabProgress { .. }
                    ),
                };
                if last {
                    self.with(|c| {
                        c.pending.remove(&id);
                        c.routes.remove(&id);
                    });
                }
            }
        }
    }

    /// Whether no request, fetch or worker start is pending.
    pub fn idle_now(self) -> bool {
        let (pending, busy, ready, has_worker) =
            self.with(|c| (c.pending.len(), c.busy, c.ready, c.worker.is_some()));
        let starting =
            has_worker && !ready && matches!(self.status.get_untracked(), Status::Starting);
        pending == 0 && busy == 0 && !starting
    }
}

fn post(c: &Link, json: &str, files: &Array) {
    let Some(worker) = &c.worker else { return };
    let obj = Object::new();
    let _ = Reflect::set(&obj, &"json".into(), &JsValue::from_str(json));
    let _ = Reflect::set(&obj, &"files".into(), files);
    let _ = worker.post_message(&obj);
}
