//! The page's root: the drop target, progress, errors and the mapping panel above a
//! view chosen in the navigation (the audit: overview and reliability explorer, and
//! the other views). No maths here: every number comes from the worker.

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::audit::explorer::{Explorer, Tables};
use crate::audit::multilabel::MultilabelNote;
use crate::audit::overview::Overview;
use crate::audit::selective::Selective;
use crate::audit::verdict::Verdicts;
use crate::client::{idle, Client};
use crate::flips::state::FlipsState;
use crate::flips::Flips;
use crate::labs::beyond::BeyondLab;
use crate::labs::truth::TruthLab;
use crate::learn::Learn;
use crate::page::aggregate::{self, AggregateNote};
use crate::page::mapping::MappingPanel;
use crate::page::opening::{files_of, Opening};
use crate::page::panels::{
    install_tip_placement, DropTarget, ErrorPanel, ProgressPanel, StatusBanner,
};
use crate::page::store::{Store, View};
use crate::page::theme::ThemeControl;
use crate::recal::state::RecalState;
use crate::recal::Recalibrate;
use crate::sharing::exports::Dropped;
use crate::sharing::panel::{Notices, ShareView};
use crate::sharing::Share;

pub fn start() {
    leptos::mount::mount_to_body(App);
}

/// The page: every view's state is made here, once, and provided as context (a view
/// switched away keeps its settings and answers).
#[component]
fn App() -> impl IntoView {
    let store = Store::new();
    provide_context(store);
    provide_context(store.aggregate);
    let client = Client::start();
    provide_context(client);
    idle::install_hooks(client);
    let opening = Opening::new(store, client);
    provide_context(opening);
    let flips = FlipsState::new(store, client);
    provide_context(flips);
    let recal = RecalState::new(store, client);
    provide_context(recal);
    // the link's view, or the example audit
    let (_, open_default) = Share::start(store, flips, recal.settings(), opening, client);
    if open_default {
        opening.open_example();
    }
    // the chosen reading's table, recomputed on every change (latest wins)
    provide_context(Tables::new(store, client));
    install_tip_placement();
    // drop anywhere on the page
    let dropped = Dropped::from_context();
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
            dropped.open(files);
        }
    });

    view! {
        <a class="skip" href="#overview">"Skip to the overview"</a>
        <header class="top">
            <h1>"calibscope"</h1>
            <ThemeControl/>
            <p class="tagline">"When a classifier says 0.9, is it right 9 times in 10? Nothing leaves this page: the numbers are computed in a Web Worker."</p>
        </header>
        <main class:dragging=move || dragging.get()>
            <StatusBanner/>
            <Notices/>
            <DropTarget/>
            <ProgressPanel/>
            <ErrorPanel/>
            <MappingPanel/>
            <ViewNav/>
            {move || match store.view.get() {
                View::Audit => view! {
                    <AggregateNote summary=store.summary/>
                    // on a wide screen the verdicts stand beside the diagram
                    <div class="audit-lead"><div class="lead-side"><Verdicts/><MultilabelNote/><Selective/></div><Explorer/></div>
                    <Overview/>
                }.into_any(),
                View::Flips => aggregate::unavailable_view("Ranking flips", aggregate::NO_FLIPS)
                    .unwrap_or_else(|| view! { <Flips/> }.into_any()),
                View::Recalibrate => aggregate::unavailable_view("Recalibrate", aggregate::NO_RECALIBRATION)
                    .unwrap_or_else(|| view! { <Recalibrate/> }.into_any()),
                View::Slices => view! { <crate::slices::Slices/> }.into_any(),
                View::Learn => view! { <Learn/> }.into_any(),
                View::TruthLab => view! { <TruthLab/> }.into_any(),
                View::BeyondLab => view! { <BeyondLab/> }.into_any(),
                View::Share => view! { <ShareView/> }.into_any(),
            }}
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
