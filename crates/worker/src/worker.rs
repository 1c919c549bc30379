//! The calibscope Web Worker: reads the dropped `File`s in slices
//! (`FileReaderSync`), parses them with calibscope-io's push parser, keeps the data
//! set, and answers the page with tables (calibscope-core / calibscope-audit).
//!
//! Messages in: `{json: "<ToWorker>", files?: [File]}`; out: `"<FromWorker JSON>"` (or
//! `{json, rows: Uint8Array}` for a table, `FromWorker::to_wire`), on
//! the `BroadcastChannel` the page named (`WorkerOptions.name`, see
//! `proto::ANSWER_CHANNEL_PREFIX`), or by `postMessage` without one (and for panics).
//! The data set never leaves the worker.
//!
//! The page and the worker load the same wasm (`dist/app_bg.wasm`, the binary of
//! crates/web), so the code both use (std, serde_json, the protocol, the share
//! codec, the allocator) is downloaded and compiled once. Its `main` mounts the page
//! only where there is a `window`; `worker_loader.js` calls [`worker_start`].

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};

use calibscope_engine::{self as engine, record, Session};

#[path = "aggregate.rs"]
mod aggregate;
#[path = "bootstrap.rs"]
mod bootstrap;
use bootstrap::start_bootstrap;
#[path = "flips_noise.rs"]
mod flips_noise;
#[path = "recal_multiclass.rs"]
mod recal_multiclass;
use recal_multiclass::start_recal_multiclass;
#[path = "slices.rs"]
mod slices;
#[path = "slices_view.rs"]
mod slices_view;
use calibscope_io::{Options, ParseErrors, Parsed, Parser};
use calibscope_proto::{
    codes, FromWorker, Limits, MappingOverride, ToWorker, ANSWER_CHANNEL_PREFIX, OUT_OF_MEMORY,
    PROTOCOL,
};
use calibscope_share::{FileRef, Sha256Hasher};
use flips_noise::start_flips_noise;
use js_sys::{Array, Promise, Reflect, Uint8Array};
use slices_view::start_slices;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{BroadcastChannel, DedicatedWorkerGlobalScope, File, FileReaderSync, MessageEvent};

/// Set by [`worker_start`]: this instance of the module is the worker.
static IN_WORKER: AtomicBool = AtomicBool::new(false);

/// Runs the worker: installs the message handler and posts the `Ready` handshake.
/// Called once by `worker_loader.js` (through the binary's export `workerStart`)
/// after the module is instantiated.
pub fn worker_start() {
    IN_WORKER.store(true, Ordering::Relaxed);
    start();
}

/// The module's allocator: the system one, which on failure in the worker (the
/// 4 GiB of wasm32 used up) first tells the page in words — without allocating: the message is
/// written out in advance and handed to JavaScript, which copies it — and then
/// returns the failure, on which Rust aborts the module.
struct ReportingAllocator;

impl ReportingAllocator {
    /// `p`, after telling the page when it is null (the allocation failed).
    #[inline]
    fn reported(p: *mut u8) -> *mut u8 {
        if p.is_null() {
            Self::out_of_memory();
        }
        p
    }

    #[cold]
    fn out_of_memory() {
        if !IN_WORKER.load(Ordering::Relaxed) {
            return;
        }
        let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
        let _ = scope.post_message(&JsValue::from_str(OUT_OF_MEMORY));
    }
}

// SAFETY: every call is forwarded to `System` with the same arguments; the failure
// path only reads a static string.
unsafe impl std::alloc::GlobalAlloc for ReportingAllocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::reported(std::alloc::System.alloc(layout))
    }
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        Self::reported(std::alloc::System.alloc_zeroed(layout))
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        Self::reported(std::alloc::System.realloc(ptr, layout, size))
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        std::alloc::System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: ReportingAllocator = ReportingAllocator;

/// Largest slice read at once (8 MiB: with 32 MiB slices the `ArrayBuffer`s
/// waiting for the garbage collector added ~0.25 × the data to the tab's peak
/// memory on a 400 MB file; bench/scale_browser.mjs).
const MAX_SLICE: f64 = (8u64 << 20) as f64;
/// Smallest slice (progress is reported per slice).
const MIN_SLICE: f64 = (1u64 << 20) as f64;

#[derive(Default)]
struct State {
    session: Option<Session>,
    /// The open request being read, if any.
    reading: Option<u64>,
    cancelled: HashSet<u64>,
    /// The audit's second stage in progress (a newer one, or a new data set,
    /// replaces it: latest wins).
    beyond: Option<engine::beyond::BeyondJob>,
    /// The Slices view's second part in progress (likewise).
    slices_part: Option<engine::slices::SlicesJob>,
    /// The Recalibrate view's multiclass maps in progress (likewise; a newer
    /// recalibration also replaces it).
    recal_multiclass: Option<engine::recal::MulticlassJob>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

fn scope() -> DedicatedWorkerGlobalScope {
    js_sys::global().unchecked_into()
}

thread_local! {
    /// The channel answers go out on ([`ANSWER_CHANNEL_PREFIX`]), when the page
    /// named one.
    static ANSWERS: Option<BroadcastChannel> = {
        let name = scope().name();
        name.starts_with(ANSWER_CHANNEL_PREFIX)
            .then(|| BroadcastChannel::new(&name).ok())
            .flatten()
    };
}

/// Posts `msg` to the page: its JSON text, or `{json, rows}` with the rows of a
/// table as bytes ([`FromWorker::to_wire`]); on the answer channel, or by
/// `postMessage` when there is none (or it refuses the message).
fn post(msg: &FromWorker) {
    let (json, rows) = msg.to_wire();
    let data = match rows {
        None => JsValue::from_str(&json),
        Some(bytes) => {
            let obj = js_sys::Object::new();
            let _ = Reflect::set(&obj, &"json".into(), &JsValue::from_str(&json));
            let _ = Reflect::set(&obj, &"rows".into(), &Uint8Array::from(&bytes[..]));
            obj.into()
        }
    };
    let sent = ANSWERS.with(|a| a.as_ref().is_some_and(|a| a.post_message(&data).is_ok()));
    if !sent {
        let _ = scope().post_message(&data);
    }
}

fn start() {
    std::panic::set_hook(Box::new(|info| {
        let message = info.to_string();
        web_sys::console::error_1(&JsValue::from_str(&message));
        // by `postMessage`, beside the worker's error event (the module stops)
        let _ = scope().post_message(&JsValue::from_str(&FromWorker::Panic { message }.to_json()));
    }));
    let on_message = Closure::<dyn FnMut(MessageEvent)>::new(on_message);
    scope().set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    engine::recal::set_clock(|| scope().performance().map_or(0.0, |p| p.now()));
    // debug hook for bench/scale_browser.mjs: the wasm memory (its byte length
    // only grows, so it is the peak of the Rust heap)
    let _ = Reflect::set(
        &scope(),
        &"__calibscopeWasmMemory".into(),
        &wasm_bindgen::memory(),
    );
    on_message.forget();
    post(&FromWorker::Ready {
        proto: PROTOCOL,
        build: env!("CARGO_PKG_VERSION").to_string(),
    });
}

fn on_message(event: MessageEvent) {
    LAST_REQUEST_MS.with(|t| t.set(now_ms()));
    let data = event.data();
    let json = Reflect::get(&data, &"json".into())
        .ok()
        .and_then(|v| v.as_string());
    let Some(json) = json else {
        post(&engine::worker_error(
            0,
            codes::BAD_REQUEST,
            "a message without json",
        ));
        return;
    };
    let msg: ToWorker = match serde_json::from_str(&json) {
        Ok(m) => m,
        Err(e) => {
            post(&engine::worker_error(0, codes::BAD_REQUEST, e.to_string()));
            return;
        }
    };
    match msg {
        ToWorker::Open {
            id,
            mapping,
            limits,
        } => start_open(id, files_of(&data), mapping, limits),
        ToWorker::DebugOutOfMemory { .. } => {
            // reserve 1 GB blocks (never touched) until the allocator fails
            let mut blocks: Vec<Vec<u8>> = Vec::new();
            loop {
                blocks.push(Vec::with_capacity(1 << 30));
            }
        }
        ToWorker::DebugPanic { id } => {
            panic!("debug panic requested by the page (request {id})")
        }
        ToWorker::Cancel { id } => STATE.with(|s| {
            s.borrow_mut().cancelled.insert(id);
        }),
        ToWorker::Compute {
            id,
            gen,
            model,
            reading,
            binning,
            m,
        } => {
            let answer = STATE.with(|s| {
                let mut s = s.borrow_mut();
                match s.session.as_mut() {
                    None => engine::worker_error(id, codes::NO_DATASET, "no data set is open"),
                    Some(session) => session.compute(id, gen, model, reading, binning, m),
                }
            });
            post(&answer);
        }
        ToWorker::Flips { id, gen, request } => {
            let answer = STATE.with(|s| match s.borrow_mut().session.as_mut() {
                None => engine::worker_error(id, codes::NO_DATASET, "no data set is open"),
                Some(session) => session.flips(id, gen, &request),
            });
            post(&answer);
        }
        ToWorker::Recalibrate {
            id,
            gen,
            model,
            seed,
            fraction,
        } => {
            warm_up_now();
            // the multiclass maps of the older fit are dropped (latest wins)
            STATE.with(|s| s.borrow_mut().recal_multiclass = None);
            with_session(id, |s| s.recalibrate(id, gen, model, seed, fraction));
            // Platt and isotonic once the temperature answer is out (cancelled
            // when a newer fit arrived meanwhile)
            wasm_bindgen_futures::spawn_local(async move {
                yield_now().await;
                let answer = STATE.with(|s| {
                    s.borrow_mut()
                        .session
                        .as_mut()
                        .map(|session| session.recalibrate_maps(id, gen))
                });
                post(&answer.unwrap_or(FromWorker::Cancelled { id }));
            });
        }
        ToWorker::RecalTables {
            id,
            gen,
            binning,
            m,
        } => with_session(id, |s| s.recal_tables(id, gen, binning, m)),
        ToWorker::RecalExport { id, method } => with_session(id, |s| {
            s.recal_export(id, method, env!("CARGO_PKG_VERSION"))
        }),
        ToWorker::RecalMulticlass { id, gen } => start_recal_multiclass(id, gen),
        ToWorker::Lab { id, request } => {
            let mut last = 0.0;
            let mut progress = |done: usize, total: usize| {
                // at most ~50 progress messages a second
                let now = js_sys::Date::now();
                if done == total || now - last > 20.0 {
                    last = now;
                    post(&FromWorker::LabProgress { id, done, total });
                }
            };
            post(&match engine::labs::run(&request, &mut progress) {
                Ok(answer) => FromWorker::LabResult { id, answer },
                Err(message) => engine::worker_error(id, codes::BAD_PARAMETERS, message),
            });
        }
        ToWorker::Record {
            id,
            settings,
            inputs,
            flips,
        } => with_session(id, |s| s.record(id, settings, inputs, flips, BUILD)),
        ToWorker::Verify { id } => start_verify(id, files_of(&data)),
        ToWorker::Bootstrap {
            id,
            replicates,
            seed,
            alpha,
        } => start_bootstrap(id, replicates, seed, alpha),
        ToWorker::Diagrams { id, model } => with_session(id, |s| s.diagrams(id, model)),
        ToWorker::FlipsNoise { id, request } => start_flips_noise(id, request),
        ToWorker::Slices { id, gen, request } => start_slices(id, gen, request),
        ToWorker::Brush { id, gen, request } => with_session(id, |s| s.brush(id, gen, &request)),
    }
}

/// The build id written in records.
const BUILD: &str = match option_env!("CALIBSCOPE_BUILD") {
    Some(b) => b,
    None => "dev",
};

fn files_of(data: &JsValue) -> Vec<File> {
    Reflect::get(data, &"files".into())
        .ok()
        .filter(Array::is_array)
        .map(|v| {
            Array::from(&v)
                .iter()
                .filter_map(|f| f.dyn_into::<File>().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// Finds the record among `files`, reads the others with its mapping and
/// compares the recomputation with it.
fn start_verify(id: u64, files: Vec<File>) {
    let fail = |message: String| post(&engine::worker_error(id, codes::BAD_REQUEST, message));
    let Ok(reader) = FileReaderSync::new() else {
        return fail("FileReaderSync is not available".into());
    };
    let mut found = None;
    let mut data = Vec::new();
    for f in files {
        if found.is_none() && record::may_be_record(&f.name()) {
            if let Some(v) = reader
                .read_as_text(&f)
                .ok()
                .and_then(|t| record::find_record(&t))
            {
                found = Some((f.name(), v));
                continue;
            }
        }
        data.push(f);
    }
    let Some((record_file, recorded)) = found else {
        return fail("none of the files is a calibscope record (calibscope-record/1 JSON, or an HTML report holding one)".into());
    };
    if data.is_empty() {
        return fail(format!(
            "{record_file} needs its data files: drop them with it"
        ));
    }
    let opts = match record::record_parse_options(&recorded) {
        Ok(o) => o,
        Err(e) => return fail(format!("{record_file}: {e}")),
    };
    wasm_bindgen_futures::spawn_local(async move {
        let msg = match read_all(id, &data, &opts).await {
            Err(msg) => msg,
            Ok((parsed, refs)) => {
                record::verified(id, &record_file, &recorded, parsed, &opts, refs, BUILD)
            }
        };
        post(&msg);
    });
}

/// Posts what `f` answers with the open session (an error when none is open).
fn with_session(id: u64, f: impl FnOnce(&mut Session) -> FromWorker) {
    let answer = STATE.with(|s| match s.borrow_mut().session.as_mut() {
        None => engine::worker_error(id, codes::NO_DATASET, "no data set is open"),
        Some(session) => f(session),
    });
    post(&answer);
}

fn start_open(id: u64, files: Vec<File>, mapping: MappingOverride, limits: Limits) {
    let opts = match engine::options(&mapping, limits, None) {
        Ok(opts) => opts,
        Err(message) => {
            post(&engine::worker_error(id, codes::BAD_MAPPING, message));
            return;
        }
    };
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        // a new drop cancels the one being read
        if let Some(old) = s.reading.replace(id) {
            s.cancelled.insert(old);
        }
    });
    // an aggregate (calibscope-bins/1) opens without a mapping
    if aggregate::open_if_aggregate(id, &files) {
        STATE.with(|s| s.borrow_mut().reading = None);
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let outcome = read_all(id, &files, &opts).await;
        let cancelled = STATE.with(|s| {
            let mut s = s.borrow_mut();
            if s.reading == Some(id) {
                s.reading = None;
            }
            s.cancelled.remove(&id)
        });
        let msg = match outcome {
            _ if cancelled => FromWorker::Cancelled { id },
            Err(msg) => msg,
            Ok((parsed, refs)) => match engine::assemble(parsed, &opts) {
                Err(errors) => engine::parse_error_message(id, &errors),
                Ok(dataset) => install_session(id, Session::new(dataset), refs),
            },
        };
        post(&msg);
        warm_up_once();
    });
}

const WARM_UP_DELAY_MS: i32 = 1_500;

/// How long the page must have sent nothing before a piece of the warm-up runs.
const WARM_UP_QUIET_MS: f64 = 1_000.0;

thread_local! {
    /// `performance.now()` of the page's last request.
    static LAST_REQUEST_MS: std::cell::Cell<f64> = const { std::cell::Cell::new(0.0) };
    /// The warm-up's fits not run yet (`None` before it is scheduled).
    static WARM_UP_LEFT: std::cell::RefCell<Option<Vec<calibscope_core::PredictionSet>>> =
        const { std::cell::RefCell::new(None) };
}

fn now_ms() -> f64 {
    scope().performance().map_or(0.0, |p| p.now())
}

/// [`engine::recal::warm_up`], once, one fit per task: from [`WARM_UP_DELAY_MS`]
/// after the first file's answer (the page's follow-up requests for the first view
/// come first), each fit when no file is being read and the page has sent nothing
/// for [`WARM_UP_QUIET_MS`] (a slider being moved is not held up), or all that is
/// left before the first fit if that comes sooner (the fit then runs optimised
/// code; the warm-up costs less than running it unoptimised).
fn warm_up_once() {
    if WARM_UP_LEFT.with(|w| w.borrow().is_some()) {
        return;
    }
    WARM_UP_LEFT.with(|w| *w.borrow_mut() = Some(engine::recal::warm_up_sets().into()));
    wasm_bindgen_futures::spawn_local(async {
        sleep(WARM_UP_DELAY_MS).await;
        loop {
            let quiet = now_ms() - LAST_REQUEST_MS.with(|t| t.get());
            let reading = STATE.with(|s| s.borrow().reading.is_some());
            if reading {
                sleep(WARM_UP_DELAY_MS).await;
                continue;
            }
            if quiet < WARM_UP_QUIET_MS {
                sleep((WARM_UP_QUIET_MS - quiet).max(50.0) as i32).await;
                continue;
            }
            let Some(set) = WARM_UP_LEFT.with(|w| w.borrow_mut().as_mut().and_then(Vec::pop))
            else {
                break;
            };
            std::hint::black_box(engine::recal::warm_up_fit(&set));
            yield_now().await;
        }
    });
}

/// Runs what is left of the warm-up.
fn warm_up_now() {
    warm_up_once();
    let left = WARM_UP_LEFT.with(|w| w.borrow_mut().as_mut().map(std::mem::take));
    for set in left.unwrap_or_default() {
        std::hint::black_box(engine::recal::warm_up_fit(&set));
    }
}

fn is_cancelled(id: u64) -> bool {
    STATE.with(|s| s.borrow().cancelled.contains(&id))
}

/// Lets the worker's event loop run (so a Cancel can arrive).
async fn yield_now() {
    sleep(0).await;
}

/// Resolves after `ms` milliseconds (a timer task).
async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        let _ = scope().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}

type ParsedFiles = Vec<(String, Result<Parsed, ParseErrors>)>;

/// Reads and parses every file, hashing each one (SHA-256) over the same slices.
async fn read_all(
    id: u64,
    files: &[File],
    opts: &Options,
) -> Result<(ParsedFiles, Vec<FileRef>), FromWorker> {
    let reader = FileReaderSync::new().map_err(|e| {
        engine::worker_error(id, codes::READ_FAILED, format!("FileReaderSync: {e:?}"))
    })?;
    let total: f64 = files.iter().map(|f| f.size()).sum();
    let mut done = 0.0;
    let mut out = Vec::with_capacity(files.len());
    let mut refs = Vec::with_capacity(files.len());
    let mut bytes = Vec::new();
    for (index, file) in files.iter().enumerate() {
        let mut hasher = Sha256Hasher::new();
        let name = file.name();
        let size = file.size();
        let options = Options {
            size_hint: Some(size as u64),
            ..opts.clone()
        };
        let mut parser = Parser::new(name.clone(), options);
        let slice = (size / 16.0).clamp(MIN_SLICE, MAX_SLICE).floor();
        let mut at = 0.0;
        while at < size {
            let end = (at + slice).min(size);
            let blob = file.slice_with_f64_and_f64(at, end).map_err(|e| {
                engine::worker_error(id, codes::READ_FAILED, format!("{name}: {e:?}"))
            })?;
            let buffer = reader.read_as_array_buffer(&blob).map_err(|e| {
                engine::worker_error(
                    id,
                    codes::READ_FAILED,
                    format!("{name}: the browser could not read the file ({e:?})"),
                )
            })?;
            // into one reused buffer: no allocation per slice next to the columns
            let view = Uint8Array::new(&buffer);
            bytes.resize(view.length() as usize, 0);
            view.copy_to(&mut bytes);
            hasher.update(&bytes);
            at = end;
            let failed = parser.push(&bytes).is_err();
            post(&FromWorker::Progress {
                id,
                file: name.clone(),
                file_index: index,
                files: files.len(),
                bytes_read: (done + at) as u64,
                bytes_total: total as u64,
            });
            yield_now().await;
            if is_cancelled(id) {
                return Err(FromWorker::Cancelled { id });
            }
            if failed {
                break;
            }
        }
        done += size;
        refs.push(FileRef {
            name: name.clone(),
            size: size as u64,
            sha256: hasher.finish_hex(),
        });
        out.push((name, parser.finish_any()));
    }
    Ok((out, refs))
}

/// Makes `session` the open data set and returns its `Opened` answer to request
/// `id`, naming the files `refs` it was read from. A second stage of the previous
/// data set stops at its next slice.
pub(crate) fn install_session(id: u64, session: Session, refs: Vec<FileRef>) -> FromWorker {
    let mut msg = session.opened(id);
    if let FromWorker::Opened { inputs, .. } = &mut msg {
        *inputs = refs;
    }
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        s.session = Some(session);
        s.beyond = None;
        s.slices_part = None;
        s.recal_multiclass = None;
    });
    msg
}
