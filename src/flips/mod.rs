//! The ranking-flips view (METRICS.md §4.1): a metric against the bin
//! count for every model, the ranking at the slider's bin count against a pinned
//! reference with its flips, the Spearman matrices of every metric over a set of
//! bin counts, and why binned ECE flips while the truthful errors do not. The
//! `data-metric` paths are documented in `crate::proto::flips`.

pub mod chart;
pub mod export;
pub mod finding;
pub mod noise;
pub mod protocol;
pub mod state;

use crate::proto::flips::{
    FlipsMatrices, FlipsNoise, FlipsNoiseRequest, FlipsRanking, FlipsRequest, MetricMatrix,
};
use crate::shared::slider;
use calibscope_core::binning::Binning;
use calibscope_core::bootstrap::DEFAULT_REPLICATES;
use calibscope_core::Kind;
use leptos::prelude::*;

use crate::client::call::Call;
use crate::flips::state::{label, parse_bins, FlipsState, METRICS};
use crate::page::opening::Opening;
use crate::page::store::Store;
use crate::shared::widgets::{binning_toggle, m_slider, num_view};

fn is_reference(metric: &str) -> bool {
    matches!(metric, "error" | "brier_over_k" | "l_conf")
}

/// Why a Spearman correlation is undefined.
fn rho_undefined(models: usize) -> &'static str {
    if models < 3 {
        "fewer than 3 models"
    } else {
        "a ranking is constant"
    }
}

/// `ranking.metrics.<metric>.<binning>`.
fn base(metric: &str, binning: Binning) -> String {
    format!("ranking.metrics.{metric}.{}", binning.name())
}

/// The `data-metric` path of model `name`'s value at `m`.
fn value_path(name: &str, metric: &str, binning: Binning, m: usize) -> String {
    if is_reference(metric) {
        format!("models.{name}.binning_free.{metric}")
    } else {
        format!("models.{name}.metrics.{metric}.{}.{m}", binning.name())
    }
}

fn vs_error_path(metric: &str, binning: Binning, m: usize) -> String {
    if is_reference(metric) {
        format!("ranking.binning_free_spearman_vs_error.{metric}")
    } else {
        format!("{}.spearman_vs_error.{m}", base(metric, binning))
    }
}

fn int_view(path: String, v: usize) -> impl IntoView {
    view! { <span class="num" data-metric=path data-value=v.to_string()>{v}</span> }
}

#[component]
pub fn Flips() -> impl IntoView {
    let store = expect_context::<Store>();
    let st = expect_context::<FlipsState>();
    let models = Memo::new(move |_| {
        store
            .summary
            .with(|s| s.as_ref().map(|s| s.models.clone()).unwrap_or_default())
    });
    let enough = move || models.with(|m| m.len() >= 2);
    // every data set opened asks again (even one with the same model names)
    let loaded = move || {
        store.summary.track();
        enough()
    };
    Effect::new(move |_| {
        if loaded() {
            st.ask(
                FlipsRequest::Curve {
                    metric: st.metric.get(),
                    binning: st.binning.get(),
                }
                .scaled_first(st.temperature_first.get()),
            );
        }
    });
    Effect::new(move |_| {
        if loaded() {
            st.ask(
                FlipsRequest::Rank {
                    metric: st.metric.get(),
                    binning: st.binning.get(),
                    m: st.m_at(),
                    m_ref: st.ref_at(),
                }
                .scaled_first(st.temperature_first.get()),
            );
        }
    });
    Effect::new(move |_| {
        if let (true, Ok(bins)) = (loaded(), parse_bins(&st.bins_text.get())) {
            st.ask(
                FlipsRequest::Matrices {
                    binning: st.binning.get(),
                    bins,
                }
                .scaled_first(st.temperature_first.get()),
            );
        }
    });
    // the flips against noise of the ranking's two bin counts, as soon as it is shown
    Effect::new(move |_| {
        let metric = st.metric.get();
        if loaded() && !is_reference(&metric) {
            st.noise_ranking.send(FlipsNoiseRequest {
                metrics: vec![metric],
                binning: st.binning.get(),
                bins: vec![st.ref_at(), st.m_at()],
                temperature_first: st.temperature_first.get(),
            });
        }
    });
    // the matrices' flips (every binned metric, every pair of bin counts) are checked
    // on request (`matrices_noise_button`): on 100 classes that bootstrap takes
    // minutes. A data set opened forgets the previous one's check.
    Effect::new(move |_| {
        store.summary.track();
        st.noise_matrices.cancel();
        st.noise_matrices.answer.set(None);
    });
    move || {
        store.summary.with(|s| s.is_some()).then_some(())?;
        if !enough() {
            return Some(view! { <NeedsModels/> }.into_any());
        }
        Some(
            view! {
                <section class="flips" id="flips" aria-labelledby="flips-title">
                    <h2 id="flips-title">"Ranking flips"</h2>
                    <p class="note">{calibscope_audit::flips_summary::FLIPS_NOTE}" "
                        <a href="#why-flips">"Why?"</a></p>
                    <FlipsControls/>
                    {move || st.error.get().map(|e| view! { <p class="notice error" role="alert" id="flips-error">{e}</p> })}
                    <protocol::ProtocolControls/>
                    <protocol::Taus/>
                    <chart::FlipsCharts/>
                    <noise::NoiseNote/>
                    <RankingTable/>
                    <SpearmanMatrices/>
                    <protocol::Finding/>
                    <WhyFlips/>
                </section>
            }
            .into_any(),
        )
    }
}

#[component]
fn NeedsModels() -> impl IntoView {
    let store = expect_context::<Store>();
    let opening = expect_context::<Opening>();
    let open = move |_| {
        store.example.set(true);
        opening.open_example();
    };
    view! {
        <section class="flips" id="flips" aria-labelledby="flips-title">
            <h2 id="flips-title">"Ranking flips"</h2>
            <p id="flips-needs-models">"This view compares how several models rank; the data set open has one model. "
                "Drop the predictions of at least 2 models on the same samples (several files, or one long-format file with a "
                <code>"model"</code>" column); Spearman correlations need at least 3."</p>
            <button id="flips-open-example" on:click=open>"Open the example (10 models on the digits)"</button>
            <WhyFlips/>
        </section>
    }
}

#[component]
fn FlipsControls() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let m_max = st.m_max;
    let store = expect_context::<Store>();
    let steps = Memo::new(move |_| {
        let extra: Vec<usize> = [5, 20, 100, st.m_ref.get()].into_iter().collect();
        slider::steps(m_max.get(), &extra)
    });
    let options = METRICS
        .iter()
        .map(|(k, l)| view! { <option value=*k>{*l}</option> })
        .collect_view();
    let toplabel = move || {
        store
            .summary
            .with(|s| s.as_ref().is_some_and(|s| s.kind == Kind::TopLabel))
    };
    let set_m = move |m: usize| st.m.set(st.clamp(m));
    view! {
        <div class="controls" role="group" aria-label="Ranking flips settings">
            <label>"Metric "
                <select id="flips-metric" prop:value=move || st.metric.get()
                    on:change=move |ev| st.metric.set(event_target_value(&ev))>
                    {options}
                </select>
            </label>
            {binning_toggle("flips-binning", st.binning)}
            <label><input type="checkbox" id="flips-log-y" prop:checked=move || st.log_y.get()
                on:change=move |ev| st.log_y.set(event_target_checked(&ev))/>" log y axis"</label>
        </div>
        {move || toplabel().then(|| view! {
            <p class="notice" role="note" id="flips-toplabel-note">"Top-label input: LinCE^cw, cwECE and Brier/k need every class probability and cannot be computed here; the confidence metrics (ConfECE, ConfCE, ConfCE^corr, RMSCE, l_conf) can."</p>
        })}
        <div class="controls slider" role="group" aria-label="Bin counts">
            <label for="flips-m-slider">"Bins m = " <output id="flips-m-value" for="flips-m-slider">{move || st.m_at()}</output></label>
            {m_slider("flips-m-slider", st.m, steps)}
            <span class="range">"1 … " {move || m_max.get()} " (log scale)"</span>
            <label class="exact">"exactly "
                <input id="flips-m-input" type="number" min="1" max=move || m_max.get().to_string()
                    prop:value=move || st.m.get().to_string()
                    on:change=move |ev| {
                        if let Ok(m) = event_target_value(&ev).parse::<usize>() { set_m(m) }
                    }/>
            </label>
            <button id="flips-pin" on:click=move |_| st.m_ref.set(st.clamp(st.m.get_untracked()))>
                {move || format!("Pin m = {} as reference", st.m_at())}
            </button>
            <label>"reference m "
                <input id="flips-ref-input" type="number" min="1" max=move || m_max.get().to_string()
                    prop:value=move || st.ref_at().to_string()
                    on:change=move |ev| {
                        if let Ok(m) = event_target_value(&ev).parse::<usize>() {
                            st.m_ref.set(st.clamp(m))
                        }
                    }/>
            </label>
        </div>
    }
}

#[component]
fn RankingTable() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let store = expect_context::<Store>();
    let names = move || {
        store
            .summary
            .with(|s| s.as_ref().map(|s| s.models.clone()).unwrap_or_default())
    };
    let export = move |_| {
        if let Some(r) = st.ranking.get_untracked() {
            let csv = export::ranking_csv(&r, &names());
            export::download_text(
                &format!(
                    "calibscope-ranking-{}-{}-m{}-ref{}.csv",
                    r.metric,
                    r.binning.name(),
                    r.m,
                    r.m_ref
                ),
                "text/csv",
                &csv,
            );
        }
    };
    move || {
        let r = st.ranking.get()?;
        if let Some(why) = &r.unavailable {
            return Some(view! { <p class="notice unavailable" id="flips-ranking-unavailable">{format!("No ranking: {why}.")}</p> }.into_any());
        }
        Some(view! {
            <section class="flips-ranking" aria-labelledby="flips-ranking-title">
                <div class="table-head">
                    <h3 id="flips-ranking-title">{format!("Ranking by {} at m = {} against the reference m = {}", label(&r.metric), r.m, r.m_ref)}</h3>
                    <button id="flips-export-ranking" on:click=export>"Ranking as CSV"</button>
                </div>
                {ranking_body(&r, &names(), st.noise_ranking)}
            </section>
        }.into_any())
    }
}

fn ranking_body(
    r: &FlipsRanking,
    names: &[String],
    noise: Call<FlipsNoiseRequest>,
) -> impl IntoView {
    let b = base(&r.metric, r.binning);
    let (lo, hi) = (r.m.min(r.m_ref), r.m.max(r.m_ref));
    let key = format!("{lo}|{hi}");
    let flipped: Vec<bool> = (0..names.len())
        .map(|i| r.flip_pairs.iter().any(|&(a, c)| a == i || c == i))
        .collect();
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &c| {
        r.ranks
            .get(a)
            .unwrap_or(&0.0)
            .total_cmp(r.ranks.get(c).unwrap_or(&0.0))
    });
    let rows = order
        .into_iter()
        .map(|i| {
            let name = names[i].clone();
            let rank = r.ranks.get(i).copied();
            let change = r.rank_change.get(i).copied().unwrap_or(0.0);
            let (arrow, class, said) = if change > 0.0 {
                ("▲", "up", "moved up")
            } else if change < 0.0 {
                ("▼", "down", "moved down")
            } else {
                ("=", "same", "same rank")
            };
            view! {
                <tr class:flipped=flipped[i] data-model=name.clone()>
                    <th scope="row">{name.clone()}{flipped[i].then(|| view! { <span class="badge flip">"flipped"</span> })}</th>
                    <td>{num_view(format!("{b}.ranks.{}.{i}", r.m), rank, "undefined value")}</td>
                    <td>{num_view(value_path(&name, &r.metric, r.binning, r.m), r.values.get(i).copied().flatten(), "undefined for this model")}</td>
                    <td>{num_view(format!("{b}.ranks.{}.{i}", r.m_ref), r.ranks_ref.get(i).copied(), "undefined value")}</td>
                    <td>{num_view(value_path(&name, &r.metric, r.binning, r.m_ref), r.values_ref.get(i).copied().flatten(), "undefined for this model")}</td>
                    <td class=format!("change {class}")><span aria-label=said>{arrow}</span>" "
                        {num_view(format!("{b}.rank_change.{}|{}.{i}", r.m_ref, r.m), Some(change), "")}</td>
                </tr>
            }
        })
        .collect_view();
    let pairs = r
        .flip_pairs
        .iter()
        .enumerate()
        .map(|(j, &(a, c))| {
            let v = format!("{}|{}", names[a], names[c]);
            let (pair, metric, binning) = (
                (names[a].clone(), names[c].clone()),
                r.metric.clone(),
                r.binning,
            );
            let mark = move || {
                noise.answer.with(|x| {
                    let x = x.as_ref().filter(|x| x.binning == binning && x.bins == [lo, hi])?;
                    noise::flip_mark(noise::section(x, &metric)?, &metric, (lo, hi), (&pair.0, &pair.1))
                })
            };
            view! {
                <li data-metric=format!("{b}.flip_pairs.{key}.{j}") data-value=v>{format!("{} ↔ {}", names[a], names[c])}
                    {move || if noise.pending.get() { noise::pending_mark().into_any() } else { mark().into_any() }}
                </li>
            }
        })
        .collect_view();
    let models = names.len();
    view! {
        <p class="flip-summary">
            <strong>{int_view(format!("{b}.flip_count.{key}"), r.flip_pairs.len())}" flips"</strong>
            " between m = " {r.m_ref} " and m = " {r.m} " · Spearman between the two rankings "
            {num_view(format!("{b}.spearman_between.{key}"), r.spearman, rho_undefined(models))}
            " · Spearman against classification error at m = " {r.m} ": "
            {num_view(vs_error_path(&r.metric, r.binning, r.m), r.spearman_vs_error, rho_undefined(models))}
            " (at the reference: "
            {num_view(vs_error_path(&r.metric, r.binning, r.m_ref), r.spearman_vs_error_ref, rho_undefined(models))} ")"
        </p>
        <div class="scroll" tabindex="0">
            <table id="flips-ranking" class="metrics">
                <thead><tr>
                    <th scope="col">"model"</th>
                    <th scope="col">{format!("rank at m = {}", r.m)}</th><th scope="col">{format!("value at m = {}", r.m)}</th>
                    <th scope="col">{format!("rank at m = {}", r.m_ref)}</th><th scope="col">{format!("value at m = {}", r.m_ref)}</th>
                    <th scope="col">"change (▲ up)"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
        {(!r.flip_pairs.is_empty()).then(|| view! { <p class="pairs-title">"Pairs whose order reversed:"</p><ul class="flip-pairs" id="flips-pairs">{pairs}</ul> })}
    }
}

#[component]
fn SpearmanMatrices() -> impl IntoView {
    let st = expect_context::<FlipsState>();
    let store = expect_context::<Store>();
    let error = move || parse_bins(&st.bins_text.get()).err();
    let export = move |_| {
        if let Some(x) = st.matrices.get_untracked() {
            export::download_text(
                &format!("calibscope-spearman-{}.csv", x.binning.name()),
                "text/csv",
                &export::matrices_csv(&x),
            );
        }
    };
    view! {
        <section class="flips-matrices" aria-labelledby="flips-matrices-title">
            <div class="table-head">
                <h3 id="flips-matrices-title">"Spearman between bin counts, every metric"</h3>
                <button id="flips-export-matrices" on:click=export>"Matrices as CSV"</button>
            </div>
            <label>"Bin counts compared "
                <input id="flips-bins" type="text" inputmode="numeric" aria-describedby="flips-bins-help"
                    prop:value=move || st.bins_text.get()
                    on:change=move |ev| st.bins_text.set(event_target_value(&ev))/>
            </label>
            <span id="flips-bins-help" class="status">" e.g. 5, 20, 2000 (clipped to n). Each cell: Spearman ρ of the two rankings, flips in brackets."</span>
            {move || error().map(|e| view! { <p class="error-inline" role="alert" id="flips-bins-error">{e}</p> })}
            {move || {
                let x = st.matrices.get()?;
                let names = store.summary.with(|s| s.as_ref().map(|s| s.models.clone()).unwrap_or_default());
                let models = names.len();
                let bins: Vec<String> = x.bins.iter().map(|m| m.to_string()).collect();
                let bins = bins.join(",");
                Some(view! {
                    <div class="matrix-grid" data-bins=bins>
                        {x.metrics.iter().map(|mm| matrix_view(&x, mm, models)).collect_view()}
                    </div>
                    <div class="matrix-noise">
                        {matrices_noise_button(&x)}
                        {x.metrics.iter().map(|mm| matrix_noise(&x, mm, &names, st.noise_matrices)).collect_view()}
                    </div>
                })
            }}
        </section>
    }
}

fn matrix_view(x: &FlipsMatrices, mm: &MetricMatrix, models: usize) -> impl IntoView {
    let b = base(&mm.metric, x.binning);
    let title = label(&mm.metric);
    if let Some(why) = &mm.unavailable {
        return view! {
            <figure class="matrix unavailable" data-matrix=mm.metric.clone()>
                <figcaption>{title}</figcaption>
                <p class="notice">{format!("Not computable: {why}.")}</p>
            </figure>
        }
        .into_any();
    }
    let head = x
        .bins
        .iter()
        .map(|m| view! { <th scope="col">{*m}</th> })
        .collect_view();
    let rows = x
        .bins
        .iter()
        .enumerate()
        .map(|(a, ma)| {
            let cells = (0..x.bins.len())
                .map(|c| {
                    let rho = mm.spearman.get(a).and_then(|r| r.get(c)).copied().flatten();
                    let flips = mm.flips.get(a).and_then(|r| r.get(c)).copied().unwrap_or(0);
                    let has = flips > 0;
                    view! {
                        <td class:has-flips=has>{num_view(format!("{b}.spearman.{a}.{c}"), rho, rho_undefined(models))}
                            <span class="flips-n">" (" {int_view(format!("{b}.flips.{a}.{c}"), flips)} ")"</span></td>
                    }
                })
                .collect_view();
            view! { <tr><th scope="row">{*ma}</th>{cells}</tr> }
        })
        .collect_view();
    let vs_error = x
        .bins
        .iter()
        .enumerate()
        .map(|(j, m)| {
            let v = mm.spearman_vs_error.get(j).copied().flatten();
            view! { <td>{num_view(vs_error_path(&mm.metric, x.binning, *m), v, rho_undefined(models))}</td> }
        })
        .collect_view();
    view! {
        <figure class="matrix" data-matrix=mm.metric.clone()>
            <figcaption>{title}</figcaption>
            <table>
                <thead><tr><th scope="col">"m"</th>{head}</tr></thead>
                <tbody>{rows}<tr class="vs-error"><th scope="row">"ρ vs error"</th>{vs_error}</tr></tbody>
            </table>
        </figure>
    }
    .into_any()
}

/// The button that checks every flip of the matrices `x` against noise (nothing when
/// no metric flips). On request, not by itself: the paired bootstrap of every binned
/// metric at every bin count costs seconds on 10 classes and minutes on 100.
fn matrices_noise_button(x: &FlipsMatrices) -> Option<impl IntoView> {
    let st = expect_context::<FlipsState>();
    let flipping: Vec<String> = x
        .metrics
        .iter()
        .filter(|mm| !mm.flip_pairs.is_empty())
        .map(|mm| mm.metric.clone())
        .collect();
    if flipping.is_empty() {
        return None;
    }
    let tf = st.temperature_first.get_untracked();
    let request = FlipsNoiseRequest {
        metrics: flipping,
        binning: x.binning,
        bins: x.bins.clone(),
        temperature_first: tf,
    };
    let x = x.clone();
    let checked = Memo::new(move |_| {
        st.noise_matrices
            .answer
            .with(|a| a.as_ref().is_some_and(|a| noise::answers(a, &x, tf)))
    });
    let pending = st.noise_matrices.pending;
    let replicates = crate::shared::numfmt::count(DEFAULT_REPLICATES as u64);
    Some(view! {
        <p class="noise-ask">
            <button id="flips-noise-check-matrices" type="button"
                prop:disabled=move || pending.get() || checked.get()
                on:click=move |_| st.noise_matrices.send(request.clone())>
                {move || if checked.get() { "Checked against noise" } else { "Check these flips against noise" }}
            </button>
            <span class="status">{format!(" {replicates} paired resamples of every metric that flips; on many classes this takes a while.")}</span>
        </p>
    })
}

/// The flips of one metric's matrix, each marked against noise (nothing when the
/// metric has no flips).
fn matrix_noise(
    x: &FlipsMatrices,
    mm: &MetricMatrix,
    names: &[String],
    noise: Call<FlipsNoiseRequest>,
) -> Option<impl IntoView> {
    let flips: Vec<(usize, usize, String, String)> = mm
        .flip_pairs
        .iter()
        .flat_map(|fp| {
            fp.pairs
                .iter()
                .map(move |&(i, j)| (x.bins[fp.a], x.bins[fp.b], i, j))
        })
        .filter_map(|(lo, hi, i, j)| Some((lo, hi, names.get(i)?.clone(), names.get(j)?.clone())))
        .collect();
    if flips.is_empty() {
        return None;
    }
    let tf = expect_context::<FlipsState>()
        .temperature_first
        .get_untracked();
    let shown = x.clone();
    let metric = mm.metric.clone();
    let answer = move || {
        noise
            .answer
            .with(|a| a.clone().filter(|a| noise::answers(a, &shown, tf)))
    };
    let answer = Memo::new(move |_| answer());
    let summary = {
        let metric = metric.clone();
        move || {
            if noise.pending.get() {
                return "checking against noise…";
            }
            let beyond = answer.with(|a| {
                a.as_ref()
                    .and_then(|a| noise::section(a, &metric))
                    .map(|s| {
                        s["flips"].as_object().is_some_and(|f| {
                            f.values()
                                .flat_map(|l| l.as_array().into_iter().flatten())
                                .any(|f| f["within_noise"] == false)
                        })
                    })
            });
            match beyond {
                Some(true) => "some beyond noise",
                Some(false) => "all within noise",
                None => "not checked",
            }
        }
    };
    let items = flips
        .into_iter()
        .map(|(lo, hi, a, b)| {
            let metric = metric.clone();
            let text = format!("m = {lo} vs m = {hi}: {a} ↔ {b}");
            let mark = move || {
                answer.with(|x: &Option<FlipsNoise>| {
                    let x = x.as_ref()?;
                    noise::flip_mark(noise::section(x, &metric)?, &metric, (lo, hi), (&a, &b))
                })
            };
            view! { <li>{text}{mark}</li> }
        })
        .collect_view();
    Some(view! {
        <details class="noise-flips" data-matrix=mm.metric.clone()>
            <summary>{label(&mm.metric)}" — flips against noise: "{summary}</summary>
            <ul>{items}</ul>
        </details>
    })
}

/// Why rankings flip, in the project's words (other views link to `#why-flips`).
#[component]
pub fn WhyFlips() -> impl IntoView {
    view! {
        <section class="why" id="why-flips" aria-labelledby="why-flips-title">
            <h3 id="why-flips-title">"Why rankings flip with the number of bins"</h3>
            <p>"A binned calibration error compares, inside each bin, the mean confidence with the share of correct answers. "
               "That share is itself a noisy estimate: with m bins of n/m samples each, sampling noise alone leaves a gap of order √(m/n) in every bin, even for a perfectly calibrated model. "
               "Coarse bins pool many samples and average that noise away; fine bins keep it. "
               "So the usual ECE (ConfECE, ℓ1) rewards a model for being blurry rather than right: a model that reports coarse or flattened confidences pools its own noise away, "
               "and which of two models looks better can reverse when only m changes. This metric is not truthful: reporting something other than your honest probabilities can lower it."</p>
            <p>"The squared errors separate the two effects. Their expectation is a calibration term plus a variance term that depends on the data, not on what the model reports. "
               "For the class probabilities (LinCE^cw, the mean over classes) that is already truthful. "
               "For the confidence of the predicted class (ConfCE) one more step is needed: a model can choose which class it predicts, and the variance term q(1 − q) is not monotone in the true probability q of that class. "
               "Adding (1/n)(1 − accuracy) turns that term into (1/n²) Σ (1 − q²), which falls as q grows: the lowest expected value needs the most probable class, reported honestly. That is ConfCE^corr. "
               "The correction is at most 1/n, so it vanishes for large samples."</p>
            <p>"Read it here: pick ConfECE and move the slider between a coarse m (5) and a fine one (2000, or n): count the flips. "
               "Switch to ConfCE^corr or LinCE^cw and count again: truthfulness is a property of the expected value, so on a finite set of models their rankings can still move; the counts above say how much they do on yours. "
               "With equal-mass bins (the default) every bin holds the same number of samples, so the noise per bin is the same across the range of confidences."</p>
        </section>
    }
}
