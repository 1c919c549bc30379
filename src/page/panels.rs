//! The status banner, the drop target, reading progress and the error panel; the
//! placement of help tooltips.

use crate::shared::text;
use leptos::prelude::*;
use web_sys::HtmlInputElement;

use crate::client::{Client, Status};
use crate::page::opening::{files_of, Opening};
use crate::page::store::Store;
use crate::sharing::exports::Dropped;

#[component]
pub fn StatusBanner() -> impl IntoView {
    let client = expect_context::<Client>();
    move || match client.status.get() {
        Status::Crashed(msg) => {
            let (title, fix) = text::error_help("panic");
            view! {
                <section class="banner crashed" role="alert" data-error-code="panic">
                    <h2>{title}</h2>
                    <p class="detail">{msg}</p>
                    <p>{fix}</p>
                    <button id="restart-worker" on:click=move |_| client.restart()>"Restart the worker"</button>
                </section>
            }
            .into_any()
        }
        Status::Incompatible => {
            let (title, fix) = text::error_help("proto_mismatch");
            view! { <section class="banner crashed" role="alert"><h2>{title}</h2><p>{fix}</p></section> }.into_any()
        }
        Status::Starting => {
            view! { <p class="status" role="status">"Starting the worker…"</p> }.into_any()
        }
        Status::Ready => ().into_any(),
    }
}

#[component]
pub fn DropTarget() -> impl IntoView {
    let store = expect_context::<Store>();
    let dropped = Dropped::from_context();
    let on_change = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let files = files_of(input.files());
        if !files.is_empty() {
            dropped.open(files);
        }
        input.set_value("");
    };
    view! {
        <section class="drop" id="drop-target" aria-labelledby="drop-title"
            class:compact=move || !store.example.get() && store.summary.with(Option::is_some)>
            <h2 id="drop-title">"Drop your predictions here"</h2>
            <p>"CSV/TSV, JSON, .npy (or a NAME.labels.npy + NAME.probs.npy pair) and .npz, plain or compressed with gzip or zstd; several files of models on the same samples make a comparison. Files are read in this tab only."</p>
            <label class="picker">
                <span>"Choose files…"</span>
                <input id="file-input" type="file" multiple on:change=on_change/>
            </label>
            <Show when=move || store.example.get() && store.summary.with(|s| s.is_some())>
                <p class="example-note">"Showing the bundled example: ten scikit-learn models on 450 handwritten digits."</p>
            </Show>
            <LimitsPanel/>
        </section>
    }
}

/// The size limits of the next read: larger files or data sets are refused before
/// their memory is reserved (the CLI has no limits by default).
#[component]
fn LimitsPanel() -> impl IntoView {
    let store = expect_context::<Store>();
    let set_mb = move |ev: leptos::ev::Event| {
        if let Ok(mb) = event_target_value(&ev).trim().parse::<f64>() {
            if mb.is_finite() && mb > 0.0 {
                store
                    .limits
                    .update(|l| l.max_file_bytes = (mb * 1e6).round() as u64);
            }
        }
    };
    let set_cells = move |ev: leptos::ev::Event| {
        if let Ok(m) = event_target_value(&ev).trim().parse::<f64>() {
            if m.is_finite() && m > 0.0 {
                store
                    .limits
                    .update(|l| l.max_cells = (m * 1e6).round() as u64);
            }
        }
    };
    view! {
        <details class="limits" id="limits">
            <summary>"Limits"</summary>
            <p class="note">"Files or data sets over these limits are refused before they are read into memory. A browser tab has about 4 GB for the worker; for larger inputs use the calibscope command-line tool."</p>
            <div class="controls">
                <label>"Largest file (MB) "
                    <input id="limit-file-mb" type="number" min="0.001" step="any"
                        prop:value=move || (store.limits.get().max_file_bytes as f64 / 1e6).to_string()
                        on:change=set_mb/>
                </label>
                <label>"Most values, rows × score columns (millions) "
                    <input id="limit-cells-m" type="number" min="0.000001" step="any"
                        prop:value=move || (store.limits.get().max_cells as f64 / 1e6).to_string()
                        on:change=set_cells/>
                </label>
            </div>
        </details>
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

#[component]
pub fn ProgressPanel() -> impl IntoView {
    let store = expect_context::<Store>();
    let opening = expect_context::<Opening>();
    move || {
        store.progress.get().map(|p| {
            let big = p.bytes_total > 2_000_000;
            view! {
                <section class="progress" role="status" aria-live="polite" id="progress">
                    <p>"Reading " <strong>{p.file.clone()}</strong> " — " {mb(p.bytes_read)} " of " {mb(p.bytes_total)}</p>
                    {big.then(|| view! {
                        <progress id="progress-bar" max=p.bytes_total.to_string() value=p.bytes_read.to_string()></progress>
                    })}
                    <button id="cancel" on:click=move |_| opening.cancel()>"Cancel"</button>
                </section>
            }
        })
    }
}

#[component]
pub fn ErrorPanel() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        store.error.get().map(|e| {
            let (title, fix) = text::error_help(&e.code);
            let items = e
                .errors
                .iter()
                .map(|it| {
                    let mut loc = vec![it.file.clone()];
                    if let Some(l) = it.line {
                        loc.push(format!("line {l}"));
                    }
                    if let Some(r) = it.row {
                        loc.push(format!("row {r}"));
                    }
                    if let Some(c) = &it.column {
                        loc.push(format!("column {c}"));
                    }
                    if let Some(m) = &it.model {
                        loc.push(format!("model {m}"));
                    }
                    let friendly = text::error_help(&it.code).0;
                    view! {
                        <li class="error-item" data-code=it.code.clone()
                            data-row=it.row.map(|r| r.to_string()).unwrap_or_default()
                            data-column=it.column.clone().unwrap_or_default()
                            data-file=it.file.clone()>
                            <strong>{loc.join(", ")}</strong> ": " {friendly} " — " {it.message.clone()}
                            " " <code>{it.code.clone()}</code>
                        </li>
                    }
                })
                .collect_view();
            let more = (e.more > 0).then(|| view! { <p>"… and " {e.more} " more errors."</p> });
            let kept = store.summary.with(|s| s.as_ref().map(|s| s.name.clone())).map(|name| {
                view! { <p class="kept">"Still shown below: " <strong>{name}</strong> "."</p> }
            });
            view! {
                <section class="error" role="alert" id="error" data-error-code=e.code.clone()>
                    <h2>{title}</h2>
                    <p class="fix">{fix}</p>
                    <ul>{items}</ul>
                    {more}
                    {e.errors.is_empty().then(|| view! { <p class="detail">{e.message.clone()}</p> })}
                    {kept}
                    <button on:click=move |_| store.error.set(None)>"Dismiss"</button>
                </section>
            }
        })
    }
}

/// Places the help tooltip of a `.tip` under the pointer or the keyboard focus in the
/// viewport (`position: fixed`, style/app.css), below its term or above it when
/// there is no room, kept inside the screen's width: a tooltip inside a table's
/// scrolling box is no longer cut off by the box.
pub fn install_tip_placement() {
    fn place(ev: &web_sys::Event) {
        use wasm_bindgen::JsCast;
        let Some(tip) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest(".tip").ok().flatten())
        else {
            return;
        };
        let Some(text) = tip
            .query_selector(".tiptext")
            .ok()
            .flatten()
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
        else {
            return;
        };
        let win = window();
        let vw = win
            .document()
            .and_then(|d| d.document_element())
            .map_or(0.0, |d| d.client_width() as f64);
        let vh = win
            .inner_height()
            .ok()
            .and_then(|h| h.as_f64())
            .unwrap_or(0.0);
        let r = tip.get_bounding_client_rect();
        let style = text.style();
        // measured where it is shown, then moved into the screen
        let _ = style.set_property("left", "0px");
        let _ = style.set_property("top", "0px");
        let t = text.get_bounding_client_rect();
        let margin = 8.0;
        let left = r.left().min(vw - t.width() - margin).max(margin);
        let below = r.bottom() + 4.0;
        let top = if below + t.height() > vh - margin && r.top() - t.height() - 4.0 >= margin {
            r.top() - t.height() - 4.0
        } else {
            below
        };
        let _ = style.set_property("left", &format!("{left:.0}px"));
        let _ = style.set_property("top", &format!("{top:.0}px"));
    }
    let _ = window_event_listener(leptos::ev::mouseover, move |ev| place(&ev));
    let _ = window_event_listener(leptos::ev::focusin, move |ev| place(&ev));
}
