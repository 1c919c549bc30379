//! What sharing shows: the notices above the views (a link that could not be read,
//! the files a link asks for, whether the dropped files are the link's) and the
//! "Share & export" view: the link ("Copy link", its length, "include the data in
//! the link"), the downloads (everything as one ZIP, or single files) and the audit
//! record (download, verify). These live in one view of their own, not under every
//! view: a person looking for "share" or "download" finds one tab that says so, and
//! what it shares is the view shown before it (named at its top).

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::page::store::{Store, View};
use crate::shared::widgets::copy_to_clipboard;
use crate::sharing::exports::Exports;
use crate::sharing::records::Records;
use crate::sharing::{Link, Share};

/// The "Share & export" view: the link, the downloads and the record of the view
/// shown before it.
#[component]
pub fn ShareView() -> impl IntoView {
    let store = expect_context::<Store>();
    let subject = move || store.subject.get();
    view! {
        <section class="share-view" id="share-view" aria-labelledby="share-view-title">
            <h2 id="share-view-title">"Share & export"</h2>
            <p class="note" id="share-subject" data-view=move || subject().id()>
                "The link, the downloads and the record below describe the "
                <button class="linklike" on:click=move |_| store.view.set(subject())>{move || subject().title()}</button>
                " view with its current settings"
                {move || (subject() == View::Learn).then_some(" (the tour keeps no settings of its own; the data set and theme are kept)")}
                "."
            </p>
            <SharePanel/>
            <Exports/>
            <Records/>
        </section>
    }
}

/// The notices (above the views).
#[component]
pub fn Notices() -> impl IntoView {
    let sh = expect_context::<Share>();
    view! {
        <div id="notices">
            <For each=move || sh.notices.get() key=|n| (n.kind, n.text.clone()) let:n>
                <p class="share-notice" class:warn=n.kind == "mismatch" || n.kind == "link"
                    data-notice=n.kind role=if n.kind == "mismatch" { "alert" } else { "status" }>
                    <span>{n.text.clone()}</span>
                    " "
                    <button class="linklike" on:click=move |_| sh.dismiss(n.kind)>"Dismiss"</button>
                </p>
            </For>
        </div>
    }
}

/// Focuses the link's box and selects its text, for a copy by hand.
fn select_share_link() {
    let input = document()
        .get_element_by_id("share-link")
        .and_then(|el| el.dyn_into::<web_sys::HtmlInputElement>().ok());
    if let Some(input) = input {
        let _ = input.focus();
        input.select();
    }
}

/// "Copy link", its length and "include data in link".
#[component]
pub fn SharePanel() -> impl IntoView {
    let sh = expect_context::<Share>();
    let Link(link) = expect_context::<Link>();
    let copied = RwSignal::new(String::new());
    let full = move || {
        let loc = window().location();
        format!(
            "{}{}#{}",
            loc.origin().unwrap_or_default(),
            loc.pathname().unwrap_or_default(),
            link.get()
        )
    };
    let copy = move |_| {
        copy_to_clipboard(full(), copied, "Link copied.", || {
            select_share_link();
            " The link is selected in the box: press Ctrl+C (⌘C) to copy it."
        })
    };
    let on_focus = move |ev: leptos::ev::FocusEvent| {
        if let Some(el) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        {
            el.select();
        }
    };
    view! {
        <section class="share" id="share" aria-labelledby="share-title">
            <h3 id="share-title">"Link to this view"</h3>
            <div class="controls">
                <button id="copy-link" on:click=copy>"Copy link"</button>
                <span id="link-length" data-length=move || full().len().to_string()>
                    {move || format!("{} characters", full().len())}
                </span>
                <span class="copied" id="copy-link-status" role="status">{move || copied.get()}</span>
            </div>
            <label class="share-link">"Link "
                <input id="share-link" type="text" readonly prop:value=full on:focus=on_focus/>
            </label>
            <Show when=move || sh.embeddable.with(|e| e.is_some())>
                <label class="include-data">
                    <input id="include-data" type="checkbox" prop:checked=move || sh.include_data.get()
                        on:change=move |ev| sh.include_data.set(event_target_checked(&ev))/>
                    " Include the data in the link. The data itself will be inside the link: anyone who has the link has your data."
                </label>
            </Show>
            <p class="hint">"The link holds the view's settings and your files' names, sizes and SHA-256, never their contents (unless you include the data). Whoever opens it drops the same files to see the same numbers."</p>
        </section>
    }
}
