//! The reliability explorer: the diagram with its slider, reading and binning
//! controls, the ECE family at the chosen bins and the reliability table.

use crate::audit::table_rows;
use crate::audit::table_window::{row_window, ROW_PX};
use crate::proto::{FromWorker, Reading, Row, Summary, ToWorker};
use crate::shared::numfmt::{count, data_value, display};
use crate::shared::{slider, text};
use calibscope_core::binning::Binning;
use calibscope_core::Kind;
use leptos::prelude::*;

use crate::slices::brush::{BrushPanel, BrushTarget};
use wasm_bindgen::JsCast;

use crate::audit::binning_free::{BinningFree, BinningFreeChart, Diagram};
use crate::client::call::{Call, Mode};
use crate::client::{Client, Reply, Request};
use crate::page::store::{Computed, Store};
use crate::shared::chart;
use crate::shared::widgets::{binning_toggle, copy_to_clipboard, m_slider, model_select, num_view};

/// The reliability table and ECE family of one reading at `(binning, m)`.
pub struct ComputeAt {
    model: usize,
    reading: Reading,
    binning: Binning,
    m: usize,
}

impl Request for ComputeAt {
    type Answer = Computed;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Compute {
            id,
            gen: id,
            model: self.model,
            reading: self.reading,
            binning: self.binning,
            m: self.m,
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<Computed>> {
        match msg {
            FromWorker::Computed {
                model,
                reading,
                binning,
                m,
                rows,
                metrics,
                nonempty_bins,
                ..
            } => Some(Reply::Done(Computed {
                model,
                reading,
                binning,
                m,
                rows,
                metrics,
                nonempty_bins,
            })),
            _ => None,
        }
    }
}

/// The explorer's table of the chosen reading, asked again on every change (latest
/// wins; created once, from the App, and provided as context).
#[derive(Clone, Copy)]
pub struct Tables(Call<ComputeAt>);

impl Tables {
    /// The explorer's requests: its tables, and (provided as context) the
    /// binning-free diagrams' ([`BinningFree`]).
    pub fn new(store: Store, client: Client) -> Tables {
        provide_context(BinningFree::new(store, client));
        let call = Call::new(client, Mode::Latest).answer_into(store.computed);
        Effect::new(move |_| {
            let has = store.summary.with(|s| s.is_some());
            let (model, reading, binning, m) = (
                store.model.get(),
                store.reading.get(),
                store.binning.get(),
                store.m.get(),
            );
            if has {
                call.send(ComputeAt {
                    model,
                    reading,
                    binning,
                    m,
                });
            }
        });
        Tables(call)
    }
}

fn reading_label(s: &Summary, reading: Reading) -> String {
    match reading {
        Reading::Confidence => "confidence (top label)".into(),
        Reading::Positive => "P(y = 1)".into(),
        Reading::Class(c) => {
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
fn metric_path(prefix: &str, reading: Reading, binning: Binning, m: usize, key: &str) -> String {
    let binning = binning.name();
    match reading {
        Reading::Class(r) => {
            format!("{prefix}readings.classwise.{binning}.{m}.per_class.{key}.{r}")
        }
        r => format!("{prefix}readings.{}.{binning}.{m}.{key}", r.name()),
    }
}

fn rows_path(prefix: &str, reading: Reading, binning: Binning, m: usize) -> String {
    let r = match reading {
        Reading::Class(c) => format!("class_{c}"),
        r => r.name(),
    };
    format!("{prefix}reliability.{r}.{}_{m}", binning.name())
}

#[component]
pub fn Explorer() -> impl IntoView {
    let store = expect_context::<Store>();
    let Tables(tables) = expect_context::<Tables>();
    let bf = expect_context::<BinningFree>();
    let active = RwSignal::new(None::<usize>);
    let copied = RwSignal::new(String::new());
    // drawn at the chart box's width (CSS px), the count strip on the chosen scale
    let svg_box = NodeRef::<leptos::html::Div>::new();
    let width = chart::drawn_width(svg_box, chart::W);
    let counts = RwSignal::new(chart::CountScale::Auto);
    let drawn = Memo::new(move |_| {
        let s = store.summary.get()?;
        let (width, counts) = (width.get(), counts.get());
        store.computed.with(|c| {
            c.as_ref().map(|c| {
                let x_label = reading_label(&s, c.reading);
                chart::reliability_with(
                    &c.rows,
                    &chart::Options {
                        width,
                        x_label: &x_label,
                        y_label: chart::y_label(c.reading),
                        counts,
                    },
                )
            })
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
        let x = (ev.client_x() as f64 - rect.left()) * d.w as f64 / rect.width();
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
    // brushing: the rows of the bin clicked, or chosen with Enter
    let brush = RwSignal::new(None::<BrushTarget>);
    let select_bin = move || {
        let Some(i) = active.get_untracked() else {
            return;
        };
        let target = store.computed.with_untracked(|c| {
            let c = c.as_ref()?;
            let r = c.rows.get(i)?;
            Some(BrushTarget {
                model: c.model,
                reading: c.reading,
                binning: c.binning,
                m: c.m,
                bin: r.bin,
                group: None,
                label: format!("bin {} of {} ({} rows)", r.bin, c.m, r.n),
            })
        });
        brush.set(target);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = drawn.with_untracked(|d| d.as_ref().map_or(0, |d| d.bins.len()));
        if n == 0 {
            return;
        }
        if ev.key() == "Enter" {
            ev.prevent_default();
            select_bin();
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
        let model_select = model_select(store, &s.models, "model-select");
        let mut readings = vec![(
            "confidence".to_string(),
            "confidence (top label)".to_string(),
        )];
        if s.kind == Kind::Binary {
            readings.push(("positive".into(), "positive class P(y = 1)".into()));
        }
        // rows with different numbers of choices: no class is the same from row to row
        if s.kind != Kind::TopLabel && s.classwise_unavailable.is_none() {
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
                {move || (bf.diagram.get() != Diagram::Binned).then(|| view! { <BinningFreeChart/> })}
                <div class="chart-wrap" hidden=move || bf.diagram.get() != Diagram::Binned>
                    <div class="chart" tabindex="0" role="img" id="chart"
                        aria-label=move || format!("Reliability diagram of {} with {} {} bins; use the arrow keys to read each bin and Enter to list its rows", reading_label(&s2, store.reading.get()), store.m.get(), store.binning.get().name())
                        on:mousemove=on_pointer on:mouseleave=move |_| active.set(None) on:keydown=on_key
                        on:click=move |ev| { on_pointer(ev); select_bin(); }
                        on:blur=move |_| active.set(None)>
                        <div class="svg" node_ref=svg_box inner_html=move || drawn.with(|d| d.as_ref().map(|d| d.svg.clone()).unwrap_or_default())></div>
                        <svg class="overlay" viewBox=move || drawn.with(|d| d.as_ref().map_or(format!("0 0 {} {}", chart::W, chart::H), |d| format!("0 0 {} {}", d.w, d.h))) aria-hidden="true">
                            {move || {
                                let i = active.get()?;
                                let (b, top, bottom) = drawn.with(|d| d.as_ref().and_then(|d| Some((d.bins.get(i).copied()?, d.y_top, d.y_bottom))))?;
                                Some(view! {
                                    <rect class="hl" x=b.x0.to_string() y=top.to_string() width=(b.x1 - b.x0).max(2.0).to_string() height=(bottom - top).to_string()></rect>
                                    <circle class="hl-point" cx=b.cx.to_string() cy=b.cy.to_string() r="6"></circle>
                                })
                            }}
                        </svg>
                        <Tooltip active=active drawn=drawn/>
                    </div>
                    <BrushPanel target=brush id="audit-brush"/>
                    <p class="legend">"Click a bin (or choose it with the arrow keys and press Enter) to list its rows. The whiskers are 95% Clopper–Pearson intervals of each bin's accuracy. The strip under the diagram counts the samples per bin, on a log scale when the counts differ more than 20-fold (automatic). When the bins are narrower than 8 pixels only the bars are drawn."</p>
                </div>
                <div class="controls" role="group" aria-label="Reliability diagram settings">
                    {model_select}
                    <label>"Reading "
                        <select id="reading-select" prop:value=move || store.reading.get().name()
                            on:change=move |ev| {
                                if let Some(r) = Reading::parse(&event_target_value(&ev)) {
                                    store.reading.set(r);
                                }
                            }>
                            {reading_options}
                        </select>
                    </label>
                    {s.classwise_unavailable.clone().map(|why| view! { <p class="hint" id="classwise-unavailable">{why}</p> })}
                    {binning_toggle("binning", store.binning)}
                    <label>"Count strip "
                        <select id="count-scale" on:change=move |ev| counts.set(match event_target_value(&ev).as_str() {
                            "log" => chart::CountScale::Log,
                            "linear" => chart::CountScale::Linear,
                            _ => chart::CountScale::Auto,
                        })>
                            <option value="auto">"automatic"</option>
                            <option value="log">"log scale"</option>
                            <option value="linear">"linear scale"</option>
                        </select>
                    </label>
                    <label>"Diagram "
                        <select id="diagram-select" prop:value=move || bf.diagram.get().name()
                            on:change=move |ev| bf.diagram.set(match event_target_value(&ev).as_str() {
                                "smooth" => Diagram::Smooth,
                                "cumulative" => Diagram::Cumulative,
                                _ => Diagram::Binned,
                            })>
                            <option value="binned">"binned"</option>
                            <option value="smooth">"smooth (no bins)"</option>
                            <option value="cumulative">"cumulative differences"</option>
                        </select>
                    </label>
                    <div class="slider">
                        <label for="m-slider">"Bins m = " <output id="m-value" for="m-slider">{move || store.m.get()}</output></label>
                        {m_slider("m-slider", store.m, steps)}
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
                {move || tables.error.get().map(|e| view! { <p class="notice error" role="alert" id="explorer-error">{e.message}</p> })}
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
        let (b, w, h) = drawn.with(|d| {
            d.as_ref()
                .and_then(|d| Some((d.bins.get(i).copied()?, d.w, d.h)))
        })?;
        store.computed.with(|c| {
            let c = c.as_ref()?;
            let r: Row = *c.rows.get(i)?;
            let base = rows_path(&store.prefix(c.model), c.reading, c.binning, c.m);
            let (lo_name, hi_name, lo_key, hi_key) = if c.binning == Binning::Width {
                ("[", ")", "lower_edge", "upper_edge")
            } else {
                ("[", "]", "u_min", "u_max")
            };
            let n = |k: &str, v: f64| {
                view! { <span data-metric=format!("{base}.{i}.{k}") data-value=data_value(Some(v))>{display(Some(v))}</span> }
            };
            let left = format!("{:.1}%", (b.cx / w as f64 * 100.0).clamp(5.0, 70.0));
            let top = format!("{:.1}%", (b.cy / h as f64 * 100.0).clamp(2.0, 60.0));
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
        })
    }
}

#[component]
fn EceFamily() -> impl IntoView {
    let store = expect_context::<Store>();
    move || {
        store.computed.with(|c| {
            let c = c.as_ref()?;
            let prefix = store.prefix(c.model);
            let mut keys = vec!["ece", "mce", "rmsce", "lince", "brier", "cal", "ref", "res"];
            if c.reading == Reading::Confidence {
                keys.push("confce_corr");
            }
            let items = keys
                .into_iter()
                .map(|k| {
                    let d = text::metric(k);
                    let v = c.metrics.get(k).copied().flatten();
                    let path = metric_path(&prefix, c.reading, c.binning, c.m, k);
                    crate::page::aggregate::note_table(&path, k, &c.metrics);
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
            let bins_path = metric_path(&prefix, c.reading, c.binning, c.m, "nonempty_bins");
            Some(view! {
                <section class="ece-family" aria-label="ECE family at the chosen bins">
                    <h3>"At m = " {c.m} ", " {if c.binning == Binning::Width { "equal-width" } else { "equal-mass" }} " ("
                        <span class="num" data-metric=bins_path data-value=c.nonempty_bins.to_string()>{c.nonempty_bins}</span>
                        " non-empty bins)"</h3>
                    <dl class="detected">{items}</dl>
                </section>
            })
        })
    }
}

#[component]
fn ReliabilityTable(copied: RwSignal<String>) -> impl IntoView {
    let store = expect_context::<Store>();
    // Only the rows in view (and some overscan) are in the DOM: a table of a
    // thousand rows costs every slider step tens of milliseconds of style, layout
    // and paint (BENCHMARKS.md, Browser). The box scrolls through all of them;
    // "Copy as CSV" copies all of them.
    let scroll_top = RwSignal::new(0.0f64);
    let copy = move |_| {
        let Some(c) = store.computed.get_untracked() else {
            return;
        };
        let csv = table_rows::csv(&c.rows, c.binning);
        copy_to_clipboard(csv, copied, "Copied as CSV.", || "");
    };
    let on_scroll = move |ev: leptos::ev::Event| {
        let el: web_sys::Element = event_target(&ev);
        let top = el.scroll_top() as f64;
        let total = store
            .computed
            .with_untracked(|c| c.as_ref().map_or(0, |c| c.rows.len()));
        // a new window only when the rows in view leave the current one
        if row_window(top, total) != row_window(scroll_top.get_untracked(), total) {
            scroll_top.set(top);
        }
    };
    let window_rows = Memo::new(move |_| {
        let total = store
            .computed
            .with(|c| c.as_ref().map_or(0, |c| c.rows.len()));
        let (first, end) = row_window(scroll_top.get(), total);
        (first, end, total)
    });
    // the rows in view as one HTML string (see `table_rows`)
    let rows = move || {
        let (first, end, _) = window_rows.get();
        store.computed.with(|c| {
            let Some(c) = c.as_ref() else {
                return String::new();
            };
            let base = rows_path(&store.prefix(c.model), c.reading, c.binning, c.m);
            let end = end.min(c.rows.len());
            table_rows::rows_html(
                &base,
                first.min(end),
                &c.rows[first.min(end)..end],
                c.binning,
            )
        })
    };
    // padding set through the CSSOM (`style:`), which the CSP allows, not as a
    // `style` attribute, which `style-src 'self'` blocks
    let pad_top = move || format!("{}px", window_rows.get().0 * ROW_PX);
    let pad_bottom = move || {
        let (_, end, total) = window_rows.get();
        format!("{}px", (total - end) * ROW_PX)
    };
    let title = move || {
        store.computed.with(|c| {
            c.as_ref().map(|c| {
                format!(
                    "Reliability table ({} non-empty bins of {})",
                    c.rows.len(),
                    c.m
                )
            })
        })
    };
    // the section is built once per data set, not per answer (its rows and title
    // follow the answers; rebuilding it would also reset the box's scroll position)
    let shown = Memo::new(move |_| store.computed.with(|c| c.is_some()));
    move || {
        shown.get().then(|| view! {
            <section class="table" aria-labelledby="table-title">
                <div class="table-head">
                    <h3 id="table-title">{title}</h3>
                    <button id="copy-csv" on:click=copy>"Copy as CSV"</button>
                    <span class="copied" id="copy-csv-status" role="status">{move || copied.get()}</span>
                </div>
                <div class="scroll rows-box" id="reliability-rows" tabindex="0" on:scroll=on_scroll
                    aria-label="Reliability table rows (scrolls)">
                    <div style:padding-top=pad_top style:padding-bottom=pad_bottom>
                        <table id="reliability-table" data-rows=move || window_rows.get().2.to_string()
                            data-first-row=move || window_rows.get().0.to_string()
                            aria-rowcount=move || (window_rows.get().2 + 1).to_string()>
                            <thead><tr aria-rowindex="1">
                                <th scope="col">"bin"</th><th scope="col">"range"</th><th scope="col">"count"</th>
                                <th scope="col">"conf"</th><th scope="col">"acc"</th><th scope="col">"gap"</th>
                                <th scope="col">"95% interval"</th>
                            </tr></thead>
                            <tbody inner_html=rows></tbody>
                        </table>
                    </div>
                </div>
                {move || {
                    let (first, end, total) = window_rows.get();
                    (total > end - first).then(|| view! {
                        <p class="more-rows">"Rows " {first + 1} "–" {end} " of " {total} " are in the page; scroll the table for the others. Copy as CSV copies all of them."</p>
                    })
                }}
            </section>
        })
    }
}
