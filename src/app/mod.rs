//! The page: drop target, progress, errors, mapping panel, overview and the
//! reliability explorer. No maths here: every number comes from the worker.

mod chart;
mod client;
mod store;

use calibscope_app::numfmt::{count, data_value, display};
use calibscope_app::proto::{MappingOverride, Row, Summary};
use calibscope_app::{slider, text};
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, HtmlInputElement};

use store::{Computed, Status, Store};

/// The bundled example opened at start.
const EXAMPLE: &str = "assets/examples/digits_zoo_probs.csv";

pub fn start() {
    leptos::mount::mount_to_body(App);
}

fn files_of(list: Option<web_sys::FileList>) -> Vec<File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

async fn fetch_example() -> Result<File, JsValue> {
    let resp: web_sys::Response = JsFuture::from(window().fetch_with_str(EXAMPLE))
        .await?
        .dyn_into()?;
    if !resp.ok() {
        return Err(JsValue::from_str(&format!("HTTP {}", resp.status())));
    }
    let blob: web_sys::Blob = JsFuture::from(resp.blob()?).await?.dyn_into()?;
    let parts = js_sys::Array::of1(&blob);
    let name = EXAMPLE.rsplit('/').next().unwrap_or(EXAMPLE);
    File::new_with_blob_sequence(&parts, name)
}

#[component]
fn App() -> impl IntoView {
    let store = Store::new();
    provide_context(store);
    client::start(store);
    // the example audit
    client::busy(1);
    wasm_bindgen_futures::spawn_local(async move {
        match fetch_example().await {
            Ok(file) => client::open(vec![file], MappingOverride::default()),
            Err(e) => web_sys::console::warn_1(&e),
        }
        client::busy(-1);
    });
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
            store.example.set(false);
            client::open(files, MappingOverride::default());
        }
    });

    view! {
        <a class="skip" href="#overview">"Skip to the overview"</a>
        <header class="top">
            <h1>"calibscope"</h1>
            <p class="tagline">"When a classifier says 0.9, is it right 9 times in 10? Nothing leaves this page: the numbers are computed in a Web Worker."</p>
        </header>
        <main class:dragging=move || dragging.get()>
            <StatusBanner/>
            <DropTarget/>
            <ProgressPanel/>
            <ErrorPanel/>
            <MappingPanel/>
            <Overview/>
            <Explorer/>
        </main>
        <footer>
            <p>"calibscope " {env!("CARGO_PKG_VERSION")} " · metrics as defined by the calibscope metric contract · no network requests leave this origin"</p>
        </footer>
    }
}

#[component]
fn StatusBanner() -> impl IntoView {
    let store = expect_context::<Store>();
    move || match store.status.get() {
        Status::Crashed(msg) => {
            let (title, fix) = text::error_help("panic");
            view! {
                <section class="banner crashed" role="alert" data-error-code="panic">
                    <h2>{title}</h2>
                    <p class="detail">{msg}</p>
                    <p>{fix}</p>
                    <button id="restart-worker" on:click=move |_| client::restart()>"Restart the worker"</button>
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
fn DropTarget() -> impl IntoView {
    let store = expect_context::<Store>();
    let on_change = move |ev: leptos::ev::Event| {
        let input: HtmlInputElement = event_target(&ev);
        let files = files_of(input.files());
        if !files.is_empty() {
            store.example.set(false);
            client::open(files, MappingOverride::default());
        }
        input.set_value("");
    };
    view! {
        <section class="drop" id="drop-target" aria-labelledby="drop-title">
            <h2 id="drop-title">"Drop your predictions here"</h2>
            <p>"CSV/TSV, JSON, .npy (or a NAME.labels.npy + NAME.probs.npy pair) and .npz; several files of models on the same samples make a comparison. Files are read in this tab only."</p>
            <label class="picker">
                <span>"Choose files…"</span>
                <input id="file-input" type="file" multiple on:change=on_change/>
            </label>
            <Show when=move || store.example.get() && store.summary.with(|s| s.is_some())>
                <p class="example-note">"Showing the bundled example: ten scikit-learn models on 450 handwritten digits."</p>
            </Show>
        </section>
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

#[component]
fn ProgressPanel() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        store.progress.get().map(|p| {
            let big = p.bytes_total > 2_000_000;
            view! {
                <section class="progress" role="status" aria-live="polite" id="progress">
                    <p>"Reading " <strong>{p.file.clone()}</strong> " — " {mb(p.bytes_read)} " of " {mb(p.bytes_total)}</p>
                    {big.then(|| view! {
                        <progress id="progress-bar" max=p.bytes_total.to_string() value=p.bytes_read.to_string()></progress>
                    })}
                    <button id="cancel" on:click=move |_| client::cancel_current()>"Cancel"</button>
                </section>
            }
        })
    }
}

#[component]
fn ErrorPanel() -> impl IntoView {
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

fn field(name: &'static str, label: &'static str, value: String) -> impl IntoView {
    view! {
        <div class="field">
            <dt>{label}</dt>
            <dd data-field=name data-metric=format!("input.{name}") data-value=value.clone()>{value.clone()}</dd>
        </div>
    }
}

#[component]
fn MappingPanel() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        let failed = store.failed.get();
        let is_failed = failed.is_some();
        failed.or_else(|| store.summary.get()).map(|s| {
            let mapping = client::current_mapping();
            let label = RwSignal::new(mapping.label.clone().unwrap_or_default());
            let source = RwSignal::new(mapping.source.clone().unwrap_or_default());
            let model_col = RwSignal::new(match &mapping.model {
                None => "*auto*".to_string(),
                Some(c) => c.clone(),
            });
            let apply = move |_| {
                let m = model_col.get_untracked();
                client::remap(MappingOverride {
                    label: Some(label.get_untracked()).filter(|l| !l.is_empty()),
                    source: Some(source.get_untracked()).filter(|l| !l.is_empty()),
                    model: if m == "*auto*" { None } else { Some(m) },
                });
            };
            let cols = s.all_columns.clone();
            let label_options = cols
                .iter()
                .map(|c| view! { <option value=c.clone()>{c.clone()}</option> })
                .collect_view();
            let model_options = cols
                .iter()
                .map(|c| view! { <option value=c.clone()>{c.clone()}</option> })
                .collect_view();
            let guesses = s
                .guesses
                .iter()
                .map(|g| view! { <li><strong>{g.about.clone()}</strong> ": " {g.chose.clone()} " — " {g.why.clone()}</li> })
                .collect_view();
            let models = if s.models.len() > 1 {
                format!("{} models: {}", s.models.len(), s.models.join(", "))
            } else {
                s.models.join(", ")
            };
            view! {
                <section class="mapping" id="mapping" aria-labelledby="mapping-title" class:failed=is_failed>
                    <h2 id="mapping-title">{if is_failed { "What was read from the file that failed" } else { "What was read" }}</h2>
                    {is_failed.then(|| view! { <p class="note">"Not loaded because of the errors above; correct the mapping below if a column was taken for the wrong thing."</p> })}
                    <dl class="detected">
                        {field("file", "File", s.files.join(" + "))}
                        {field("format", "Format", s.format.clone())}
                        {field("n", "Samples n", s.n.to_string())}
                        {field("k", "Classes k", s.k.to_string())}
                        {field("kind", "Kind", s.kind.clone())}
                        {field("source", "Scores are", s.source.clone())}
                        {field("label", "Label column", s.label_column.clone().unwrap_or_else(|| "—".into()))}
                        {field("scores", "Score columns", s.score_columns.clone())}
                        {field("models", "Models", models)}
                        {field("model_column", "Model column", s.model_column.clone().unwrap_or_else(|| "none".into()))}
                        {field("ignored", "Ignored columns", if s.ignored.is_empty() { "none".into() } else { s.ignored.join(", ") })}
                    </dl>
                    {(!s.guesses.is_empty()).then(|| view! { <details><summary>"Choices made while reading"</summary><ul>{guesses}</ul></details> })}
                    <details class="correct" open=is_failed>
                        <summary>"Correct the mapping"</summary>
                        <div class="controls">
                            <label>"Label column "
                                <select id="map-label" prop:value=move || label.get() on:change=move |ev| label.set(event_target_value(&ev))>
                                    <option value="">"detect"</option>
                                    {label_options}
                                </select>
                            </label>
                            <label>"Scores are "
                                <select id="map-source" prop:value=move || source.get() on:change=move |ev| source.set(event_target_value(&ev))>
                                    <option value="">"detect"</option>
                                    <option value="probs">"probabilities"</option>
                                    <option value="logits">"logits"</option>
                                </select>
                            </label>
                            <label>"Model column "
                                <select id="map-model" prop:value=move || model_col.get() on:change=move |ev| model_col.set(event_target_value(&ev))>
                                    <option value="*auto*">"detect"</option>
                                    <option value="">"none (one model)"</option>
                                    {model_options}
                                </select>
                            </label>
                            <button id="map-apply" on:click=apply>"Read again"</button>
                        </div>
                    </details>
                </section>
            }
        })
    }
}

/// A number with its `data-metric` path and full-precision `data-value`.
fn num_view(path: String, value: Option<f64>, why_undefined: &'static str) -> AnyView {
    let shown = display(value);
    let dv = data_value(value);
    if value.is_some() {
        view! { <span class="num" data-metric=path data-value=dv>{shown}</span> }.into_any()
    } else {
        view! {
            <span class="num undefined" data-metric=path data-value=dv title=why_undefined tabindex="0">
                "undefined"<span class="why">{format!(" ({why_undefined})")}</span>
            </span>
        }
        .into_any()
    }
}

fn get_path<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |v, k| match v {
        Value::Object(o) => o.get(k),
        Value::Array(a) => a.get(k.parse::<usize>().ok()?),
        _ => None,
    })
}

/// A column header with a one-line explanation on hover and focus.
fn help_header(key: &'static str) -> impl IntoView {
    let d = text::metric(key);
    let id = format!("help-{key}");
    let described = id.clone();
    view! {
        <th scope="col">
            <span class="tip" tabindex="0" aria-describedby=described>
                {d.label}
                <span class="tiptext" role="tooltip" id=id>{d.help}</span>
            </span>
        </th>
    }
}

/// The overview's columns: (metric doc key, path in the audit, shown as extra).
fn overview_paths(kind: &str, m: usize) -> Vec<(&'static str, String)> {
    let brier = match kind {
        "binary" => (
            "readings.positive.brier".to_string(),
            format!("readings.positive.width.{m}."),
            ["cal", "ref", "res"],
        ),
        "multiclass" => (
            "binning_free.brier_multiclass".to_string(),
            format!("readings.classwise.width.{m}."),
            ["cal_sum", "ref_sum", "res_sum"],
        ),
        _ => (
            "readings.confidence.brier".to_string(),
            format!("readings.confidence.width.{m}."),
            ["cal", "ref", "res"],
        ),
    };
    vec![
        ("accuracy", "binning_free.accuracy".into()),
        ("ece_width", format!("readings.confidence.width.{m}.ece")),
        ("ece_mass", format!("readings.confidence.mass.{m}.ece")),
        ("mce", format!("readings.confidence.width.{m}.mce")),
        ("brier", brier.0),
        ("cal", format!("{}{}", brier.1, brier.2[0])),
        ("ref", format!("{}{}", brier.1, brier.2[1])),
        ("res", format!("{}{}", brier.1, brier.2[2])),
        ("nll", "binning_free.nll".into()),
        (
            "auc",
            if kind == "binary" {
                "binning_free.auc".into()
            } else {
                "binning_free.auc_macro".into()
            },
        ),
        ("lince_cw", format!("readings.classwise.width.{m}.lince_cw")),
        (
            "confce_corr",
            format!("readings.confidence.width.{m}.confce_corr"),
        ),
        ("csr", "beyond_ece.csr".into()),
        ("p_risk", "beyond_ece.p_risk".into()),
        ("cwa", "beyond_ece.cwa".into()),
        ("gain", "beyond_ece.gain".into()),
        (
            "cwauc",
            if kind == "binary" {
                "cwauc.class1".into()
            } else {
                "cwauc.macro".into()
            },
        ),
    ]
}

#[component]
fn Overview() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        let s = store.summary.get()?;
        let audits = store.audits.get();
        let m = s.m_overview;
        let cols = overview_paths(&s.kind, m);
        let headers = cols.iter().map(|(k, _)| help_header(k)).collect_view();
        let rows = audits
            .iter()
            .enumerate()
            .map(|(i, audit)| {
                let prefix = store.prefix(i);
                let name = s.models.get(i).cloned().unwrap_or_default();
                let cells = cols
                    .iter()
                    .map(|(key, path)| {
                        let d = text::metric(key);
                        let v = get_path(audit, path).and_then(|v| v.as_f64());
                        let cell = num_view(format!("{prefix}{path}"), v, d.undefined);
                        let extra = match *key {
                            "csr" => {
                                let sp = "beyond_ece.sigma_csr";
                                let sv = get_path(audit, sp).and_then(|v| v.as_f64());
                                Some(view! { <span class="pm">" ± " {num_view(format!("{prefix}{sp}"), sv, "undefined without samples")}</span> }.into_any())
                            }
                            "p_risk" => v.map(|p| {
                                let (class, label) = if p >= 0.95 {
                                    ("badge risk", "overconfident")
                                } else if p >= 0.5 {
                                    ("badge maybe", "possibly overconfident")
                                } else {
                                    ("badge ok", "no sign of overconfidence")
                                };
                                view! { <span class=class data-badge=label>{label}</span> }.into_any()
                            }),
                            _ => None,
                        };
                        view! { <td>{cell}{extra}</td> }
                    })
                    .collect_view();
                let select = move |_| {
                    store.model.set(i);
                };
                view! {
                    <tr class:selected=move || store.model.get() == i data-model=name.clone()>
                        <th scope="row">
                            <button class="linklike" on:click=select title="Explore this model's reliability">{name.clone()}</button>
                        </th>
                        {cells}
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <section class="overview" id="overview" aria-labelledby="overview-title">
                <h2 id="overview-title">"Overview"</h2>
                <p class="note">"Binned metrics on the confidence reading at m = " {m} " bins (Brier parts: " {match s.kind.as_str() { "binary" => "positive class", "multiclass" => "sum over classes", _ => "confidence reading" }} "). Hover or focus a heading for its meaning."</p>
                <div class="scroll">
                    <table class="metrics">
                        <thead><tr><th scope="col">"Model"</th>{headers}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </section>
        })
    }
}

fn reading_label(s: &Summary, reading: &str) -> String {
    match reading {
        "confidence" => "confidence (top label)".into(),
        "positive" => "P(y = 1)".into(),
        r => {
            let c: usize = r.trim_start_matches("class:").parse().unwrap_or(0);
            format!(
                "class {} probability",
                s.class_names
                    .get(c)
                    .cloned()
                    .unwrap_or_else(|| c.to_string())
            )
        }
    }
}

/// The `data-metric` paths of a reading's ECE family and reliability rows.
fn metric_path(prefix: &str, reading: &str, binning: &str, m: usize, key: &str) -> String {
    match reading.strip_prefix("class:") {
        Some(r) => format!("{prefix}readings.classwise.{binning}.{m}.per_class.{key}.{r}"),
        None => format!("{prefix}readings.{reading}.{binning}.{m}.{key}"),
    }
}

fn rows_path(prefix: &str, reading: &str, binning: &str, m: usize) -> String {
    let r = match reading.strip_prefix("class:") {
        Some(c) => format!("class_{c}"),
        None => reading.to_string(),
    };
    format!("{prefix}reliability.{r}.{binning}_{m}")
}

fn csv_of(c: &Computed) -> String {
    let (lo, hi) = if c.binning == "width" {
        ("lower_edge", "upper_edge")
    } else {
        ("u_min", "u_max")
    };
    let mut out = format!("bin,{lo},{hi},n,conf,acc,gap,successes,cp_lower,cp_upper\n");
    for r in &c.rows {
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{}\n",
            r.bin,
            data_value(Some(r.lower)),
            data_value(Some(r.upper)),
            r.n,
            data_value(Some(r.conf)),
            data_value(Some(r.acc)),
            data_value(Some(r.gap)),
            r.successes,
            data_value(Some(r.cp_lower)),
            data_value(Some(r.cp_upper))
        ));
    }
    out
}

#[component]
fn Explorer() -> impl IntoView {
    let store = expect_context::<Store>();
    let active = RwSignal::new(None::<usize>);
    let copied = RwSignal::new(String::new());
    let drawn = Memo::new(move |_| {
        let s = store.summary.get()?;
        store.computed.with(|c| {
            c.as_ref()
                .map(|c| chart::reliability(&c.rows, &reading_label(&s, &c.reading)))
        })
    });
    let steps = Memo::new(move |_| {
        store
            .summary
            .with(|s| s.as_ref().map(|s| slider::steps(s.m_max, &s.m_values)))
            .unwrap_or_else(|| vec![1])
    });
    let on_pointer = move |ev: leptos::ev::MouseEvent| {
        let Some(d) = drawn.get_untracked() else {
            return;
        };
        let Some(target) = ev.current_target() else {
            return;
        };
        let el: web_sys::Element = target.unchecked_into();
        let rect = el.get_bounding_client_rect();
        if rect.width() <= 0.0 {
            return;
        }
        let x = (ev.client_x() as f64 - rect.left()) * chart::W as f64 / rect.width();
        let hit = d
            .bins
            .iter()
            .position(|b| b.x0 <= x && x <= b.x1)
            .or_else(|| {
                d.bins
                    .iter()
                    .enumerate()
                    .min_by(|a, b| (a.1.cx - x).abs().total_cmp(&(b.1.cx - x).abs()))
                    .map(|(i, _)| i)
            });
        active.set(hit);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = drawn.with_untracked(|d| d.as_ref().map_or(0, |d| d.bins.len()));
        if n == 0 {
            return;
        }
        let cur = active.get_untracked();
        let next = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => Some(cur.map_or(0, |c| (c + 1).min(n - 1))),
            "ArrowLeft" | "ArrowUp" => Some(cur.map_or(0, |c| c.saturating_sub(1))),
            "Home" => Some(0),
            "End" => Some(n - 1),
            "Escape" => None,
            _ => return,
        };
        ev.prevent_default();
        active.set(next);
    };
    move || {
        let s = store.summary.get()?;
        let model_select = (s.models.len() > 1).then(|| {
            let options = s
                .models
                .iter()
                .enumerate()
                .map(|(i, name)| view! { <option value=i.to_string()>{name.clone()}</option> })
                .collect_view();
            view! {
                <label>"Model "
                    <select id="model-select" prop:value=move || store.model.get().to_string()
                        on:change=move |ev| store.model.set(event_target_value(&ev).parse().unwrap_or(0))>
                        {options}
                    </select>
                </label>
            }
        });
        let mut readings = vec![(
            "confidence".to_string(),
            "confidence (top label)".to_string(),
        )];
        if s.kind == "binary" {
            readings.push(("positive".into(), "positive class P(y = 1)".into()));
        }
        if s.kind != "toplabel" {
            for (r, name) in s.class_names.iter().enumerate().take(s.k) {
                readings.push((format!("class:{r}"), format!("class {name}")));
            }
        }
        let reading_options = readings
            .into_iter()
            .map(|(v, l)| view! { <option value=v>{l}</option> })
            .collect_view();
        let s2 = s.clone();
        Some(view! {
            <section class="explorer" id="explorer" aria-labelledby="explorer-title">
                <h2 id="explorer-title">"Reliability"</h2>
                <div class="controls" role="group" aria-label="Reliability diagram settings">
                    {model_select}
                    <label>"Reading "
                        <select id="reading-select" prop:value=move || store.reading.get()
                            on:change=move |ev| store.reading.set(event_target_value(&ev))>
                            {reading_options}
                        </select>
                    </label>
                    <fieldset class="toggle">
                        <legend>"Binning"</legend>
                        <label><input type="radio" name="binning" id="binning-width" value="width"
                            prop:checked=move || store.binning.get() == "width"
                            on:change=move |_| store.binning.set("width".into())/>"equal-width"</label>
                        <label><input type="radio" name="binning" id="binning-mass" value="mass"
                            prop:checked=move || store.binning.get() == "mass"
                            on:change=move |_| store.binning.set("mass".into())/>"equal-mass"</label>
                    </fieldset>
                    <div class="slider">
                        <label for="m-slider">"Bins m = " <output id="m-value" for="m-slider">{move || store.m.get()}</output></label>
                        <input id="m-slider" type="range" min="0"
                            max=move || (steps.with(|s| s.len()) - 1).to_string()
                            data-steps=move || steps.with(|s| s.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(","))
                            prop:value=move || steps.with(|s| slider::position(s, store.m.get())).to_string()
                            aria-valuetext=move || format!("{} bins", store.m.get())
                            on:input=move |ev| {
                                let i: usize = event_target_value(&ev).parse().unwrap_or(0);
                                if let Some(m) = steps.with_untracked(|s| s.get(i).copied()) {
                                    store.m.set(m);
                                }
                            }/>
                        <span class="range">"1 … " {s.m_max} " (log scale)"</span>
                        <label class="exact">"exactly "
                            <input id="m-input" type="number" min="1" max=s.m_max.to_string()
                                prop:value=move || store.m.get().to_string()
                                on:change=move |ev| {
                                    if let Ok(m) = event_target_value(&ev).parse::<usize>() {
                                        let max = store.summary.with_untracked(|s| s.as_ref().map_or(1, |s| s.m_max));
                                        store.m.set(m.clamp(1, max));
                                    }
                                }/>
                        </label>
                    </div>
                </div>
                <div class="chart-wrap">
                    <div class="chart" tabindex="0" role="img" id="chart"
                        aria-label=move || format!("Reliability diagram of {} with {} {} bins; use the arrow keys to read each bin", reading_label(&s2, &store.reading.get()), store.m.get(), store.binning.get())
                        on:mousemove=on_pointer on:mouseleave=move |_| active.set(None) on:keydown=on_key
                        on:blur=move |_| active.set(None)>
                        <div class="svg" inner_html=move || drawn.with(|d| d.as_ref().map(|d| d.svg.clone()).unwrap_or_default())></div>
                        <svg class="overlay" viewBox=format!("0 0 {} {}", chart::W, chart::H) aria-hidden="true">
                            {move || {
                                let i = active.get()?;
                                let b = drawn.with(|d| d.as_ref().and_then(|d| d.bins.get(i).copied()))?;
                                Some(view! {
                                    <rect class="hl" x=b.x0.to_string() y="14" width=(b.x1 - b.x0).max(2.0).to_string() height="336"></rect>
                                    <circle class="hl-point" cx=b.cx.to_string() cy=b.cy.to_string() r="6"></circle>
                                })
                            }}
                        </svg>
                        <Tooltip active=active drawn=drawn/>
                    </div>
                    <p class="legend">"Bars: accuracy per bin over its range · dots: (mean confidence, accuracy) · red: gap to the diagonal · whiskers: 95% Clopper–Pearson interval · strip: samples per bin."</p>
                </div>
                <EceFamily/>
                <ReliabilityTable copied=copied/>
            </section>
        })
    }
}

#[component]
fn Tooltip(active: RwSignal<Option<usize>>, drawn: Memo<Option<chart::Drawn>>) -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        let i = active.get()?;
        let b = drawn.with(|d| d.as_ref().and_then(|d| d.bins.get(i).copied()))?;
        let c = store.computed.get()?;
        let r: Row = c.rows.get(i)?.clone();
        let base = rows_path(&store.prefix(c.model), &c.reading, &c.binning, c.m);
        let (lo_name, hi_name, lo_key, hi_key) = if c.binning == "width" {
            ("[", ")", "lower_edge", "upper_edge")
        } else {
            ("[", "]", "u_min", "u_max")
        };
        let n = |k: &str, v: f64| {
            view! { <span data-metric=format!("{base}.{i}.{k}") data-value=data_value(Some(v))>{display(Some(v))}</span> }
        };
        let left = format!("{:.1}%", (b.cx / chart::W as f64 * 100.0).clamp(5.0, 70.0));
        let top = format!("{:.1}%", (b.cy / chart::H as f64 * 100.0).clamp(2.0, 60.0));
        Some(view! {
            <div class="tooltip" role="status" aria-live="polite" id="bin-tooltip" style:left=left style:top=top>
                <strong>"Bin " <span data-metric=format!("{base}.{i}.bin") data-value=r.bin.to_string()>{r.bin}</span></strong>
                " " {lo_name}{n(lo_key, r.lower)} ", " {n(hi_key, r.upper)}{hi_name}
                <br/>"count " <span data-metric=format!("{base}.{i}.n") data-value=r.n.to_string()>{count(r.n as u64)}</span>
                <br/>"mean confidence " {n("conf", r.conf)}
                <br/>"accuracy " {n("acc", r.acc)}
                <br/>"gap " {n("gap", r.gap)}
                <br/>"95% interval [" {n("cp_lower", r.cp_lower)} ", " {n("cp_upper", r.cp_upper)} "]"
            </div>
        })
    }
}

#[component]
fn EceFamily() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        let c = store.computed.get()?;
        let prefix = store.prefix(c.model);
        let mut keys = vec!["ece", "mce", "rmsce", "lince", "brier", "cal", "ref", "res"];
        if c.reading == "confidence" {
            keys.push("confce_corr");
        }
        let items = keys
            .into_iter()
            .map(|k| {
                let d = text::metric(k);
                let v = c.metrics.get(k).and_then(|v| v.as_f64());
                let path = metric_path(&prefix, &c.reading, &c.binning, c.m, k);
                let id = format!("ef-help-{k}");
                let described = id.clone();
                view! {
                    <div class="field">
                        <dt><span class="tip" tabindex="0" aria-describedby=described>{d.label}<span class="tiptext" role="tooltip" id=id>{d.help}</span></span></dt>
                        <dd>{num_view(path, v, d.undefined)}</dd>
                    </div>
                }
            })
            .collect_view();
        let bins_path = metric_path(&prefix, &c.reading, &c.binning, c.m, "nonempty_bins");
        Some(view! {
            <section class="ece-family" aria-label="ECE family at the chosen bins">
                <h3>"At m = " {c.m} ", " {if c.binning == "width" { "equal-width" } else { "equal-mass" }} " ("
                    <span class="num" data-metric=bins_path data-value=c.nonempty_bins.to_string()>{c.nonempty_bins}</span>
                    " non-empty bins)"</h3>
                <dl class="detected">{items}</dl>
            </section>
        })
    }
}

/// Rows of the reliability table shown before "Show all".
const TABLE_ROWS: usize = 200;

#[component]
fn ReliabilityTable(copied: RwSignal<String>) -> impl IntoView {
    let store = expect_context::<Store>();
    // the first TABLE_ROWS rows unless asked for all: thousands of rows cost the
    // slider hundreds of milliseconds of style and layout (BENCHMARKS.md, Browser)
    let show_all = RwSignal::new(false);
    let copy = move |_| {
        let Some(c) = store.computed.get_untracked() else {
            return;
        };
        let csv = csv_of(&c);
        let clipboard = window().navigator().clipboard();
        wasm_bindgen_futures::spawn_local(async move {
            let ok = JsFuture::from(clipboard.write_text(&csv)).await.is_ok();
            copied.set(if ok {
                "Copied as CSV.".into()
            } else {
                "The browser refused the clipboard.".into()
            });
        });
    };
    move || {
        let c = store.computed.get()?;
        let prefix = store.prefix(c.model);
        let base = rows_path(&prefix, &c.reading, &c.binning, c.m);
        let (lo_key, hi_key) = if c.binning == "width" {
            ("lower_edge", "upper_edge")
        } else {
            ("u_min", "u_max")
        };
        let total = c.rows.len();
        let shown = if show_all.get() {
            total
        } else {
            total.min(TABLE_ROWS)
        };
        let rows = c.rows[..shown]
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let p = |k: &str| format!("{base}.{i}.{k}");
                let cell = |k: &str, v: f64| {
                    view! { <td><span class="num" data-metric=p(k) data-value=data_value(Some(v))>{display(Some(v))}</span></td> }
                };
                view! {
                    <tr>
                        <td><span class="num" data-metric=p("bin") data-value=r.bin.to_string()>{r.bin}</span></td>
                        <td class="range">
                            <span class="num" data-metric=p(lo_key) data-value=data_value(Some(r.lower))>{display(Some(r.lower))}</span>
                            " – "
                            <span class="num" data-metric=p(hi_key) data-value=data_value(Some(r.upper))>{display(Some(r.upper))}</span>
                        </td>
                        <td><span class="num" data-metric=p("n") data-value=r.n.to_string()>{count(r.n as u64)}</span></td>
                        {cell("conf", r.conf)}
                        {cell("acc", r.acc)}
                        {cell("gap", r.gap)}
                        <td class="interval">
                            "["<span class="num" data-metric=p("cp_lower") data-value=data_value(Some(r.cp_lower))>{display(Some(r.cp_lower))}</span>
                            ", "<span class="num" data-metric=p("cp_upper") data-value=data_value(Some(r.cp_upper))>{display(Some(r.cp_upper))}</span>"]"
                        </td>
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <section class="table" aria-labelledby="table-title">
                <div class="table-head">
                    <h3 id="table-title">"Reliability table (" {c.rows.len()} " non-empty bins of " {c.m} ")"</h3>
                    <button id="copy-csv" on:click=copy>"Copy as CSV"</button>
                    <span class="copied" role="status">{move || copied.get()}</span>
                </div>
                <div class="scroll">
                    <table id="reliability-table" data-rows=c.rows.len().to_string()>
                        <thead><tr>
                            <th scope="col">"bin"</th><th scope="col">"range"</th><th scope="col">"count"</th>
                            <th scope="col">"conf"</th><th scope="col">"acc"</th><th scope="col">"gap"</th>
                            <th scope="col">"95% interval"</th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
                {(shown < total).then(|| view! {
                    <p class="more-rows">"Showing the first " {shown} " of " {total} " rows (Copy as CSV copies all of them). "
                        <button id="show-all-rows" on:click=move |_| show_all.set(true)>"Show all " {total} " rows"</button>
                    </p>
                })}
            </section>
        })
    }
}
