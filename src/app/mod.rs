//! The page: the drop target, progress, errors and the mapping panel above a view
//! chosen in the navigation (the audit: overview and reliability explorer, and the
//! other views). No maths here: every number comes from the worker.

mod chart;
mod client;
mod explorer;
mod export;
mod flips;
mod flips_chart;
mod flips_export;
mod flips_protocol;
mod flips_state;
mod idle;
mod lab_beyond;
mod lab_repro;
mod lab_truth;
mod lab_ui;
mod learn;
mod learn_steps;
mod mapping;
mod overview;
mod panels;
mod recal;
mod recal_fitted;
mod recal_ledger;
mod recal_views;
mod share;
mod store;
mod theme;
mod verify;
mod widgets;

use crate::proto::MappingOverride;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

use explorer::Explorer;
use mapping::MappingPanel;
use overview::Overview;
use panels::{DropTarget, ErrorPanel, ProgressPanel, StatusBanner};
use store::{Store, View};

/// The bundled example opened at start.
const EXAMPLE: &str = "assets/examples/digits_zoo_probs.csv";

pub fn start() {
    leptos::mount::mount_to_body(App);
}

pub(crate) fn files_of(list: Option<web_sys::FileList>) -> Vec<File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Opens the bundled example (also offered by views that need several models).
pub(crate) fn open_example() {
    open_example_at(EXAMPLE);
}

/// Opens the bundled example at `path`.
pub(crate) fn open_example_at(path: &'static str) {
    client::busy(1);
    wasm_bindgen_futures::spawn_local(async move {
        match fetch_example(path).await {
            Ok(file) => client::open(vec![file], MappingOverride::default()),
            Err(e) => web_sys::console::warn_1(&e),
        }
        client::busy(-1);
    });
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

#[component]
fn App() -> impl IntoView {
    let store = Store::new();
    provide_context(store);
    flips_state::provide(store);
    client::start(store);
    recal::init(store);
    // the link's view, or the example audit
    if share::start(store) {
        open_example();
    }
    // the chosen reading's table, recomputed on every change (latest wins)
    Effect::new(move |_| {
        let has = store.summary.with(|s| s.is_some());
        let (model, reading, binning, m) = (
            store.model.get(),
            store.reading.get(),
            store.binning.get(),
            store.m.get(),
        );
        if has {
            client::compute(model, reading, binning, m);
        }
    });
    // drop anywhere on the page
    let dragging = RwSignal::new(false);
    let _ = window_event_listener(leptos::ev::dragover, move |ev| {
        ev.prevent_default();
        dragging.set(true);
    });
    let _ = window_event_listener(leptos::ev::dragleave, move |ev| {
        if ev.related_target().is_none() {
            dragging.set(false);
        }
    });
    let _ = window_event_listener(leptos::ev::drop, move |ev| {
        ev.prevent_default();
        dragging.set(false);
        let files = files_of(ev.data_transfer().and_then(|d| d.files()));
        if !files.is_empty() {
            export::open_dropped(store, files);
        }
    });

    view! {
        <a class="skip" href="#overview">"Skip to the overview"</a>
        <header class="top">
            <h1>"calibscope"</h1>
            <theme::ThemeControl/>
            <p class="tagline">"When a classifier says 0.9, is it right 9 times in 10? Nothing leaves this page: the numbers are computed in a Web Worker."</p>
        </header>
        <main class:dragging=move || dragging.get()>
            <StatusBanner/>
            <share::Notices/>
            <DropTarget/>
            <ProgressPanel/>
            <ErrorPanel/>
            <MappingPanel/>
            <ViewNav/>
            {move || match store.view.get() {
                View::Audit => view! { <Overview/><Explorer/> }.into_any(),
                View::Flips => view! { <flips::Flips/> }.into_any(),
                View::Recalibrate => view! { <recal::Recalibrate/> }.into_any(),
                View::Learn => view! { <learn::Learn/> }.into_any(),
                View::TruthLab => view! { <lab_truth::TruthLab/> }.into_any(),
                View::BeyondLab => view! { <lab_beyond::BeyondLab/> }.into_any(),
            }}
            <share::SharePanel/>
            <verify::Records/>
            <export::Exports/>
        </main>
        <footer>
            <p>"calibscope " {env!("CARGO_PKG_VERSION")} " · metrics as defined by the calibscope metric contract · no network requests leave this origin"</p>
        </footer>
    }
}

/// The navigation between the views (a tab list; arrow keys move between tabs).
#[component]
fn ViewNav() -> impl IntoView {
    let store = expect_context::<Store>();
    // built each time the nav is shown (a view is not `Clone` once type-erased)
    let tabs = move || {
        View::ALL
        .iter()
        .map(|&v| {
            view! {
                <button role="tab" id=format!("tab-{}", v.id()) data-view=v.id()
                    aria-selected=move || (store.view.get() == v).to_string()
                    tabindex=move || if store.view.get() == v { "0" } else { "-1" }
                    on:click=move |_| store.view.set(v)
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        let i = View::ALL.iter().position(|&x| x == v).unwrap_or(0);
                        let n = View::ALL.len();
                        let next = match ev.key().as_str() {
                            "ArrowRight" => (i + 1) % n,
                            "ArrowLeft" => (i + n - 1) % n,
                            "Home" => 0,
                            "End" => n - 1,
                            _ => return,
                        };
                        ev.prevent_default();
                        store.view.set(View::ALL[next]);
                        if let Some(el) = document().get_element_by_id(&format!("tab-{}", View::ALL[next].id())) {
                            let _ = el.unchecked_into::<web_sys::HtmlElement>().focus();
                        }
                    }>
                    {v.title()}
                </button>
            }
        })
        .collect_view()
    };
    view! {
        <Show when=move || store.summary.with(|s| s.is_some())>
            <nav class="views" role="tablist" aria-label="Views">{tabs()}</nav>
        </Show>
    }
}
