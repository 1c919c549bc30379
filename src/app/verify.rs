//! Audit records in the page: "Download record" (the worker writes the
//! calibscope-record/1 of the open data set with the page's settings, by the audit
//! crate's code, as `calibscope audit --record`), and "Verify a record": a record
//! (JSON or an HTML report) dropped or picked with its data files is recomputed in
//! the worker and every value is listed ✓ identical / ✗ differs (both values); a
//! record computed under an earlier version of the metric contract has its values
//! moved only by a definition change listed as such, with the change.

use std::cell::Cell;

use crate::proto::{CheckItem, FromWorker, ToWorker};
use leptos::prelude::*;
use serde_json::Value;
use web_sys::File;

use super::store::Store;
use super::{client, files_of, flips_export, share};

/// The outcome of a verification.
#[derive(Clone, Debug, PartialEq)]
struct Verified {
    record_file: String,
    producer: String,
    checks: Vec<CheckItem>,
    notes: Vec<String>,
}

#[derive(Clone, Copy)]
struct VerifyState {
    result: RwSignal<Option<Verified>>,
    status: RwSignal<String>,
}

thread_local! {
    static STATE: Cell<Option<VerifyState>> = const { Cell::new(None) };
    /// The record and verify requests in flight.
    static ASKED: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}

/// An answer of the worker (called by the client).
pub fn answer(msg: FromWorker) {
    let Some(st) = STATE.with(|s| s.get()) else {
        return;
    };
    let (record_id, verify_id) = ASKED.with(|a| a.get());
    match msg {
        FromWorker::Record { id, record } if id == record_id => {
            let name = super::export::stem(&record);
            let text = serde_json::to_string_pretty(&record).unwrap_or_default() + "\n";
            flips_export::download_text(&format!("{name}.record.json"), "application/json", &text);
            st.status.set(format!("Saved {name}.record.json."));
        }
        FromWorker::Verified {
            id,
            record_file,
            producer,
            checks,
            notes,
        } if id == verify_id => {
            st.status.set(String::new());
            st.result.set(Some(Verified {
                record_file,
                producer,
                checks,
                notes,
            }));
        }
        FromWorker::Record { id, record } => {
            super::export::answer(id, &record);
        }
        _ => {}
    }
}

/// A failed request (called by the client).
pub fn failed(id: u64, message: &str) {
    let Some(st) = STATE.with(|s| s.get()) else {
        return;
    };
    let (record_id, verify_id) = ASKED.with(|a| a.get());
    if id == record_id || id == verify_id {
        st.status.set(message.to_string());
    }
}

fn verify_files(files: Vec<File>) {
    if files.is_empty() {
        return;
    }
    if let Some(st) = STATE.with(|s| s.get()) {
        st.result.set(None);
        st.status.set("Recomputing the record…".into());
    }
    let id = client::request_files(|id| ToWorker::Verify { id }, files);
    ASKED.with(|a| a.set((a.get().0, id)));
}

fn short(v: &Option<Value>) -> String {
    match v {
        None => "—".into(),
        Some(v) => {
            let s = v.to_string();
            if s.chars().count() > 60 {
                format!("{}…", s.chars().take(60).collect::<String>())
            } else {
                s
            }
        }
    }
}

/// Identical, equal up to floating-point rounding, or moved only by a definition
/// change of the metric contract (verified).
fn verified(c: &CheckItem) -> bool {
    matches!(c.status.as_str(), "identical" | "rounding" | "definition")
}

fn check_row(c: CheckItem) -> impl IntoView {
    let ok = c.status == "identical";
    let mark = match c.status.as_str() {
        "identical" => "✓ identical".to_string(),
        "rounding" => "✓ equal up to floating-point rounding".to_string(),
        "definition" => format!("✓ {}", c.note.clone().unwrap_or_default()),
        "differs" => "✗ differs".to_string(),
        _ => "✗ missing".to_string(),
    };
    view! {
        <tr data-path=c.path.clone() data-status=c.status.clone() class:bad=!verified(&c)>
            <th scope="row"><code>{c.path.clone()}</code></th>
            <td class="mark">{mark}</td>
            <td data-recorded=short(&c.recorded)>{short(&c.recorded)}</td>
            <td data-recomputed=short(&c.recomputed)>{if ok { String::new() } else { short(&c.recomputed) }}</td>
        </tr>
    }
}

fn result_view(v: Verified) -> impl IntoView {
    let total = v.checks.len();
    let failed = v.checks.iter().filter(|c| !verified(c)).count();
    let rounding = v.checks.iter().filter(|c| c.status == "rounding").count();
    let changed = v.checks.iter().filter(|c| c.status == "definition").count();
    let changed_text = if changed > 0 {
        format!(", {changed} of them moved only because a definition of the metric contract changed since the record was written")
    } else {
        String::new()
    };
    let bad = failed > 0;
    // differences first, then definition changes, rounding, identical values
    let mut checks = v.checks;
    checks.sort_by_key(|c| match c.status.as_str() {
        "identical" => 3,
        "rounding" => 2,
        "definition" => 1,
        _ => 0,
    });
    let rows = checks.into_iter().map(check_row).collect_view();
    let notes = v
        .notes
        .into_iter()
        .map(|n| view! { <li>{n}</li> })
        .collect_view();
    view! {
        <p id="verify-summary" role="status" class:bad=bad
            data-compared=total.to_string() data-identical=(total - failed).to_string() data-rounding=rounding.to_string() data-definition=changed.to_string() data-failed=failed.to_string()>
            <strong>{if failed == 0 { "✓ Every value verifies" } else { "✗ Some values differ" }}</strong>
            {format!(": {total} values compared, {} verified ({rounding} of them up to floating-point rounding of another platform{changed_text}), {failed} differ or are missing (record {} by {}).", total - failed, v.record_file, v.producer)}
        </p>
        <ul class="verify-notes">{notes}</ul>
        <div class="rows-box verify-box" tabindex="0">
            <table id="verify-checks">
                <thead><tr><th scope="col">"value"</th><th scope="col">"check"</th><th scope="col">"recorded"</th><th scope="col">"recomputed"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The records section: download the open audit's record, verify a record.
#[component]
pub fn Records() -> impl IntoView {
    let store = expect_context::<Store>();
    let st = VerifyState {
        result: RwSignal::new(None),
        status: RwSignal::new(String::new()),
    };
    STATE.with(|s| s.set(Some(st)));
    let download = move |_| {
        st.status.set("Writing the record…".into());
        let id = client::request(share::record_request);
        ASKED.with(|a| a.set((id, a.get().1)));
    };
    let on_pick = move |ev: leptos::ev::Event| {
        let input: web_sys::HtmlInputElement = event_target(&ev);
        verify_files(files_of(input.files()));
        input.set_value("");
    };
    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        ev.stop_propagation();
        verify_files(files_of(ev.data_transfer().and_then(|d| d.files())));
    };
    view! {
        <section class="records" id="records" aria-labelledby="records-title">
            <h2 id="records-title">"Audit record"</h2>
            <div class="controls">
                <button id="download-record" disabled=move || store.summary.with(|s| s.is_none())
                    on:click=download>"Download record"</button>
                <span class="hint">"calibscope-record/1 JSON: the files' fingerprints, the settings and every number; `calibscope verify` re-checks it."</span>
            </div>
            <div class="verify-drop" id="verify-drop" on:drop=on_drop>
                <h3>"Verify a record"</h3>
                <p>"Drop a record (JSON, or an HTML report) together with its data file(s) here; every number is recomputed in this tab and compared."</p>
                <label class="picker"><span>"Choose the record and its data…"</span>
                    <input id="verify-input" type="file" multiple on:change=on_pick/>
                </label>
            </div>
            <p class="status" role="status" id="verify-status">{move || st.status.get()}</p>
            {move || st.result.get().map(result_view)}
        </section>
    }
}
