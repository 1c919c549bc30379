//! Exports of the open audit, made in the page from its record (written by the
//! worker with the audit crate, as `calibscope audit --record`): the self-contained
//! HTML report (calibscope-report, the CLI's `--html`; drawn here because plotters
//! measures text through `window`), the Markdown summary, CSV of every table, SVG and
//! PNG of every chart. Dropping an HTML report or a record back on the page restores
//! its settings and asks for its data files.

use calibscope_audit::{flips_settings_of, record_json_of, FlipsSettings, RECORD_SCHEMA};
use calibscope_core::binning::Binning;
use calibscope_share::{DataSource, FileRef, ViewState};
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

use crate::client::call::{Call, Mode};
use crate::client::Client;
use crate::page::opening::Opening;
use crate::page::store::Store;
use crate::shared::download::{blob_bytes, download_png, download_text, png_blob, save_bytes};
use crate::sharing::record_request::RecordOf;
use crate::sharing::Share;

/// Whether a dropped file may be a report or a record (rather than data).
fn may_be_report(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".html") || lower.ends_with(".htm") || lower.ends_with(".record.json")
}

/// The settings of a record or report's text, its data named by its inputs'
/// fingerprints (unless it names a bundled example).
fn record_settings(text: &str) -> Option<(ViewState, Option<FlipsSettings>)> {
    let v = record_json_of(text).ok()?;
    if v["schema"].as_str() != Some(RECORD_SCHEMA) {
        return None;
    }
    let mut state: ViewState = serde_json::from_value(v["settings"].clone()).ok()?;
    let inputs: Vec<FileRef> = serde_json::from_value(v["inputs"].clone()).unwrap_or_default();
    if !matches!(state.data, DataSource::Example { .. }) && !inputs.is_empty() {
        state.data = DataSource::Files { files: inputs };
    }
    let flips = flips_settings_of(&v["tables"]["flips"]).ok();
    Some((state, flips))
}

/// What opening dropped or picked files needs (taken from the context where a
/// drop target is made: event handlers run outside it).
#[derive(Clone, Copy)]
pub struct Dropped {
    store: Store,
    share: Share,
    opening: Opening,
    client: Client,
}

impl Dropped {
    pub fn from_context() -> Dropped {
        Dropped {
            store: expect_context(),
            share: expect_context(),
            opening: expect_context(),
            client: expect_context(),
        }
    }

    /// Opens dropped or picked files. A report or record among them restores its
    /// settings; its data files are read when dropped with it, else asked for.
    pub fn open(self, files: Vec<File>) {
        let Dropped {
            store,
            share,
            opening,
            client,
        } = self;
        if !files.iter().any(|f| may_be_report(&f.name())) {
            store.example.set(false);
            opening.open(files, share.drop_mapping());
            return;
        }
        client.busy(1);
        wasm_bindgen_futures::spawn_local(async move {
            let mut data = Vec::new();
            let mut restored = None;
            for f in files {
                if restored.is_none() && may_be_report(&f.name()) {
                    let text = JsFuture::from(f.text())
                        .await
                        .ok()
                        .and_then(|t| t.as_string());
                    if let Some(state) = text.as_deref().and_then(record_settings) {
                        restored = Some(state);
                        continue;
                    }
                }
                data.push(f);
            }
            match restored {
                Some((state, flips)) => {
                    if share.restore(state, flips) {
                        store.example.set(true);
                        opening.open_example();
                    }
                    if !data.is_empty() {
                        opening.open(data, share.drop_mapping());
                    }
                }
                None => {
                    store.example.set(false);
                    opening.open(data, share.drop_mapping());
                }
            }
            client.busy(-1);
        });
    }
}

/// [`stem`] of a record's JSON text.
pub fn stem_of_text(text: &str) -> String {
    serde_json::from_str::<Value>(text).map_or_else(|_| "calibscope".into(), |v| stem(&v))
}

/// The stem of the exported files: the data set's file name without extension.
pub fn stem(record: &Value) -> String {
    record["audits"][0]["file"]
        .as_str()
        .map(|f| f.rsplit(['/', '\\']).next().unwrap_or(f))
        .map(|f| f.rsplit_once('.').map_or(f, |(stem, _)| stem).to_string())
        .unwrap_or_else(|| "calibscope".into())
}

/// The size an SVG declares (`width="640" height="500"`).
fn svg_size(svg: &str) -> (u32, u32) {
    let attr = |name: &str| {
        let key = format!("{name}=\"");
        let start = svg.find(&key)? + key.len();
        let end = svg[start..].find('"')? + start;
        svg[start..end].parse().ok()
    };
    (
        attr("width").unwrap_or(calibscope_charts::W),
        attr("height").unwrap_or(calibscope_charts::H),
    )
}

/// The exported files of a record: `(name, MIME type, text)`.
fn files(record: &Value) -> Vec<(String, &'static str, String)> {
    let stem = stem(record);
    let settings = &record["settings"];
    let m = settings["m"].as_u64().unwrap_or(15) as usize;
    let binning = settings["binning"]
        .as_str()
        .and_then(Binning::from_name)
        .unwrap_or(Binning::Width);
    let mut out = vec![
        (
            format!("{stem}.report.html"),
            "text/html",
            calibscope_report::html_report(record),
        ),
        (
            format!("{stem}.summary.md"),
            "text/markdown",
            calibscope_audit::record_markdown(record, m, binning),
        ),
    ];
    for (name, text) in calibscope_report::csv_files(record) {
        out.push((format!("{stem}.{name}"), "text/csv", text));
    }
    for (name, text) in calibscope_report::svg_files(record) {
        out.push((format!("{stem}.{name}"), "image/svg+xml", text));
    }
    out
}

/// Where an exported file is listed and zipped: `(group, folder in the ZIP)`, the
/// groups in the order shown (report and summary, tables, charts).
fn group_of(name: &str) -> (usize, &'static str) {
    if name.ends_with(".csv") {
        (1, "tables/")
    } else if name.ends_with(".svg") || name.ends_with(".png") {
        (2, "charts/")
    } else {
        (0, "")
    }
}

/// The titles of the groups of [`group_of`].
const GROUPS: [&str; 3] = [
    "Report, summary and record",
    "Tables (CSV)",
    "Charts (SVG and PNG)",
];

/// The exported files of a record in the order listed and zipped: the report, the
/// summary, then each group by name.
fn ordered(record: &Value) -> Vec<(String, &'static str, String)> {
    let mut out = files(record);
    out.sort_by(|a, b| (group_of(&a.0).0, &a.0).cmp(&(group_of(&b.0).0, &b.0)));
    out
}

/// The ZIP of every export of `record` (its JSON text `text` too), the PNG of each
/// chart drawn here: `(archive name, bytes, number of files)`.
async fn zip_of(record: &Value, text: &str) -> Result<(String, Vec<u8>, usize), String> {
    let stem = stem(record);
    let mut members = vec![(format!("{stem}.record.json"), text.as_bytes().to_vec())];
    for (name, mime, body) in ordered(record) {
        let folder = group_of(&name).1;
        if mime == "image/svg+xml" {
            let (w, h) = svg_size(&body);
            let blob = png_blob(&body, w, h)
                .await
                .map_err(|e| format!("{name}: the PNG could not be drawn ({e:?})"))?;
            let png = blob_bytes(&blob)
                .await
                .map_err(|e| format!("{name}: the PNG could not be read ({e:?})"))?;
            members.push((format!("{folder}{name}"), body.into_bytes()));
            members.push((format!("{folder}{}", name.replace(".svg", ".png")), png));
        } else {
            members.push((format!("{folder}{name}"), body.into_bytes()));
        }
    }
    let count = members.len();
    let bytes = crate::sharing::zip::archive(&members)?;
    Ok((format!("{stem}.calibscope.zip"), bytes, count))
}

/// One exported file's button (and its PNG's, for a chart).
fn file_item(name: String, mime: &'static str, text: String) -> impl IntoView {
    let png = (mime == "image/svg+xml").then(|| {
        let (w, h) = svg_size(&text);
        let png_name = name.replace(".svg", ".png");
        let svg = text.clone();
        let label = png_name.clone();
        view! {
            " · "
            <button class="linklike" data-export=png_name.clone()
                on:click=move |_| download_png(&png_name, &svg, w, h)>{label}</button>
        }
    });
    let label = name.clone();
    view! {
        <li>
            <button class="linklike" data-export=name.clone()
                on:click=move |_| download_text(&name, mime, &text)>{label}</button>
            {png}
        </li>
    }
}

/// The exports section: "Download everything" (one ZIP), and the single files on
/// request, grouped.
#[component]
pub fn Exports() -> impl IntoView {
    let store = expect_context::<Store>();
    let share = expect_context::<Share>();
    let client = expect_context::<Client>();
    let call = Call::<RecordOf>::new(client, Mode::Latest);
    // the record's JSON (value and text), read once (None: not prepared, or stale)
    let record = RwSignal::new(None::<(Value, String)>);
    // whether the next record is zipped and downloaded
    let want_zip = RwSignal::new(false);
    let list_shown = RwSignal::new(false);
    let zip_status = RwSignal::new(String::new());
    Effect::new(move |_| {
        let Some(text) = call.answer.get() else {
            return;
        };
        let Ok(value) = serde_json::from_str::<Value>(&text) else {
            return;
        };
        record.set(Some((value.clone(), text.clone())));
        if !want_zip.get_untracked() {
            return;
        }
        want_zip.set(false);
        client.busy(1);
        wasm_bindgen_futures::spawn_local(async move {
            let saved = match zip_of(&value, &text).await {
                Ok((name, bytes, count)) => save_bytes(&name, "application/zip", &bytes)
                    .map(|_| {
                        format!(
                            "Saved {name}: {count} files, {:.1} KB.",
                            bytes.len() as f64 / 1e3
                        )
                    })
                    .map_err(|e| format!("{name} could not be saved ({e:?})")),
                Err(e) => Err(e),
            };
            zip_status.set(saved.unwrap_or_else(|e| e));
            client.busy(-1);
        });
    });
    // a new data set makes the prepared files stale
    Effect::new(move |_| {
        store.summary.track();
        record.set(None);
        list_shown.set(false);
    });
    let download_all = move |_| {
        want_zip.set(true);
        zip_status.set("Preparing the files…".into());
        call.send(share.record_request());
    };
    let show_files = move |_| {
        list_shown.set(true);
        call.send(share.record_request());
    };
    let groups = move || {
        if !list_shown.get() {
            return None;
        }
        record
            .with(|r| r.as_ref().map(|(rec, _)| ordered(rec)))
            .map(|files| {
                let mut grouped: [Vec<_>; 3] = Default::default();
                for f in files {
                    grouped[group_of(&f.0).0].push(f);
                }
                grouped
                    .into_iter()
                    .enumerate()
                    .filter(|(_, g)| !g.is_empty())
                    .map(|(i, g)| {
                        let items = g
                            .into_iter()
                            .map(|(name, mime, text)| file_item(name, mime, text))
                            .collect_view();
                        view! {
                            <h4>{GROUPS[i]}</h4>
                            <ul class="export-list">{items}</ul>
                        }
                    })
                    .collect_view()
            })
    };
    view! {
        <section class="exports" id="exports" aria-labelledby="exports-title">
            <h3 id="exports-title">"Download the report and files"</h3>
            <p class="hint">"A self-contained HTML report (no script; the record is inside it, so dropping it back here restores the audit), a Markdown summary, the record, a CSV of every table and an SVG and a PNG of every chart."</p>
            <div class="controls">
                <button id="download-zip" class="primary" disabled=move || store.summary.with(|s| s.is_none())
                    on:click=download_all>"Download everything (.zip)"</button>
                <button id="prepare-exports" disabled=move || store.summary.with(|s| s.is_none())
                    on:click=show_files>"Show the single files"</button>
                <span class="copied" role="status" id="zip-status">{move || zip_status.get()}</span>
            </div>
            {move || call.error.get().map(|e| view! { <p class="status error" role="alert" id="exports-error">{e.message}</p> })}
            <div id="export-list">{groups}</div>
        </section>
    }
}
