//! Audit records in the page: "Download record" (the worker writes the
//! calibscope-record/1 of the open data set with the page's settings, by the audit
//! crate's code, as `calibscope audit --record`), and "Verify a record": a record
//! (JSON or an HTML report) dropped or picked with its data files is recomputed in
//! the worker and every value is listed ✓ identical / ✗ differs (both values); a
//! record computed under an earlier version of the metric contract has its values
//! moved only by a definition change listed as such, with the change.

use crate::proto::{CheckItem, CheckStatus, FromWorker, ToWorker};
use leptos::prelude::*;
use web_sys::File;

use crate::client::call::{Call, Mode};
use crate::client::{Reply, Request};
use crate::page::opening::files_of;
use crate::page::store::Store;
use crate::shared::download::download_text;
use crate::sharing::record_request::RecordOf;
use crate::sharing::Share;

/// The outcome of a verification.
#[derive(Clone, Debug, PartialEq)]
pub struct Verified {
    record_file: String,
    producer: String,
    checks: Vec<CheckItem>,
    notes: Vec<String>,
}

/// Verify the record among `files` against the data files among them.
pub struct VerifyFiles(Vec<File>);

impl Request for VerifyFiles {
    type Answer = Verified;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Verify { id }
    }

    fn files(&self) -> Vec<File> {
        self.0.clone()
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Verified>> {
        match msg {
            FromWorker::Verified {
                record_file,
                producer,
                checks,
                notes,
                ..
            } => Some(Reply::Done(Verified {
                record_file,
                producer,
                checks,
                notes,
            })),
            _ => None,
        }
    }
}

/// Whether a file may be a record or report rather than data (by its name).
fn may_be_record(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".html") || lower.ends_with(".htm") || lower.ends_with(".json")
}

/// What a record (or report) `name` dropped alone needs to be verified: its data
/// files by name, size and SHA-256, and how to give them. `None` when `text` holds
/// no calibscope record.
fn needs_text(name: &str, text: &str) -> Option<String> {
    let v = calibscope_audit::record_json_of(text).ok()?;
    if v["schema"].as_str() != Some(calibscope_audit::RECORD_SCHEMA) {
        return None;
    }
    let inputs: Vec<calibscope_share::FileRef> =
        serde_json::from_value(v["inputs"].clone()).unwrap_or_default();
    let files = if inputs.is_empty() {
        "the data files it was computed from (it does not name them)".to_string()
    } else {
        inputs
            .iter()
            .map(crate::sharing::examples::file_text)
            .collect::<Vec<_>>()
            .join(" and ")
    };
    Some(format!(
        "{name} holds the numbers, not the data they were computed from. To verify it, drop it here together with {files} (or choose all of them at once with the button above); every number is then recomputed from the data and compared."
    ))
}

/// A value's JSON text, cut after 60 characters.
fn short(v: &Option<String>) -> String {
    match v {
        None => "—".into(),
        Some(s) if s.chars().count() > 60 => {
            format!("{}…", s.chars().take(60).collect::<String>())
        }
        Some(s) => s.clone(),
    }
}

fn check_row(c: CheckItem) -> impl IntoView {
    let ok = c.status == CheckStatus::Identical;
    let mark = match c.status {
        CheckStatus::Identical => "✓ identical".to_string(),
        CheckStatus::Rounding => "✓ equal up to floating-point rounding".to_string(),
        CheckStatus::Definition => format!("✓ {}", c.note.clone().unwrap_or_default()),
        CheckStatus::Differs => "✗ differs".to_string(),
        CheckStatus::Missing | CheckStatus::Extra => "✗ missing".to_string(),
    };
    view! {
        <tr data-path=c.path.clone() data-status=c.status.name() class:bad=!c.status.verified()>
            <th scope="row"><code>{c.path.clone()}</code></th>
            <td class="mark">{mark}</td>
            <td data-recorded=short(&c.recorded)>{short(&c.recorded)}</td>
            <td data-recomputed=short(&c.recomputed)>{if ok { String::new() } else { short(&c.recomputed) }}</td>
        </tr>
    }
}

fn result_view(v: Verified) -> impl IntoView {
    let total = v.checks.len();
    let count = |s: CheckStatus| v.checks.iter().filter(|c| c.status == s).count();
    let failed = v.checks.iter().filter(|c| !c.status.verified()).count();
    let rounding = count(CheckStatus::Rounding);
    let changed = count(CheckStatus::Definition);
    let changed_text = if changed > 0 {
        format!(", {changed} of them moved only because a definition of the metric contract changed since the record was written")
    } else {
        String::new()
    };
    let bad = failed > 0;
    // differences first, then definition changes, rounding, identical values
    let mut checks = v.checks;
    checks.sort_by_key(|c| match c.status {
        CheckStatus::Identical => 3,
        CheckStatus::Rounding => 2,
        CheckStatus::Definition => 1,
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
    let share = expect_context::<Share>();
    let client = expect_context::<crate::client::Client>();
    let status = RwSignal::new(String::new());
    let record = Call::<RecordOf>::handled(client, Mode::Latest, move |reply| match reply {
        Reply::Done(text) => {
            let name = crate::sharing::exports::stem_of_text(&text);
            download_text(&format!("{name}.record.json"), "application/json", &text);
            status.set(format!("Saved {name}.record.json."));
        }
        Reply::Failed(f) => status.set(f.message),
        _ => {}
    });
    let result = RwSignal::new(None::<Verified>);
    let verify = Call::<VerifyFiles>::handled(client, Mode::Latest, move |reply| match reply {
        Reply::Done(v) => {
            status.set(String::new());
            result.set(Some(v));
        }
        Reply::Failed(f) => status.set(f.message),
        _ => {}
    });
    let verify_files = move |files: Vec<File>| {
        if files.is_empty() {
            return;
        }
        result.set(None);
        if files.iter().all(|f| may_be_record(&f.name())) {
            // only records (or JSON data)? a record without data: say which files
            // it needs instead of asking the worker
            client.busy(1);
            wasm_bindgen_futures::spawn_local(async move {
                let mut needs = None;
                let mut data = false;
                for f in &files {
                    let text = wasm_bindgen_futures::JsFuture::from(f.text()).await;
                    match text
                        .ok()
                        .and_then(|t| t.as_string())
                        .and_then(|t| needs_text(&f.name(), &t))
                    {
                        Some(n) if needs.is_none() => needs = Some(n),
                        Some(_) => {}
                        None => data = true,
                    }
                }
                match needs {
                    Some(n) if !data => status.set(n),
                    _ => {
                        status.set("Recomputing the record…".into());
                        verify.send(VerifyFiles(files));
                    }
                }
                client.busy(-1);
            });
            return;
        }
        status.set("Recomputing the record…".into());
        verify.send(VerifyFiles(files));
    };
    let download = move |_| {
        status.set("Writing the record…".into());
        record.send(share.record_request());
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
            <h3 id="records-title">"Audit record"</h3>
            <div class="controls">
                <button id="download-record" disabled=move || store.summary.with(|s| s.is_none())
                    on:click=download>"Download record"</button>
                <span class="hint">"A JSON file with your data files' names, sizes and fingerprints (SHA-256), the settings and every number. Drop it below with the data files, or run calibscope verify on it and the data files with the command-line tool, and every number is recomputed and compared."</span>
            </div>
            <div class="verify-drop" id="verify-drop" on:drop=on_drop>
                <h4>"Verify a record"</h4>
                <p>"Drop a record (JSON, or an HTML report) together with its data file(s) here; every number is recomputed in this tab and compared."</p>
                <label class="picker"><span>"Choose the record and its data…"</span>
                    <input id="verify-input" type="file" multiple on:change=on_pick/>
                </label>
            </div>
            <p class="status" role="status" id="verify-status">{move || status.get()}</p>
            {move || result.get().map(result_view)}
        </section>
    }
}
