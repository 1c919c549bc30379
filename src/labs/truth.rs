//! The truthfulness lab (source: "Truthful Calibration Errors for Multi-Class
//! Prediction"): the three-class example with expected and simulated ConfCE and
//! ConfCE^corr per reporting strategy, and the exact-conditioning example.
//!
//! `data-metric` paths: `lab.truth.report.<strategy>.confidence|q`,
//! `lab.truth.expected.confce.<strategy>`, `lab.truth.expected.confce_corr.<strategy>`,
//! `lab.truth.sim.confce.<strategy>.mean|se`, `lab.truth.sim.confce_corr.<strategy>.mean|se`
//! (strategies `honest`, `uniform`, `temperature`, `coarse`), `lab.truth.share`,
//! `lab.truth.exact.<truthful|constant>.<n>` and `lab.truth.exact.sim.<truthful|constant|binned>.<n>.mean|se`.

use crate::proto::labs::{LabAnswer, LabRequest};
use calibscope_core::binning::Binning;
use leptos::prelude::*;

use crate::labs::ui::{self, chart, choice, mc, num, number, Call};
use calibscope_charts::palette::Ink;
use calibscope_charts::small::{self, Axis, Series};

const STRATEGIES: [(&str, &str); 4] = [
    ("honest", "honest (report p*)"),
    ("uniform", "uniform = constant base rate"),
    ("temperature", "temperature T"),
    ("coarse", "coarse (grid 1/g)"),
];

/// Sets component `i` of the posterior to `v` and rescales the others so the sum
/// stays 1 (equal shares when the others are all zero).
fn set_component(p: RwSignal<[f64; 3]>, i: usize, v: f64) {
    p.update(|p| {
        let v = v.clamp(0.0, 1.0);
        let rest: f64 = (0..3).filter(|&j| j != i).map(|j| p[j]).sum();
        for j in (0..3).filter(|&j| j != i) {
            p[j] = if rest > 0.0 {
                p[j] / rest * (1.0 - v)
            } else {
                (1.0 - v) / 2.0
            };
        }
        p[i] = v;
    });
}

/// The simplex picker: a triangle (click to choose) and three number fields.
fn simplex(p: RwSignal<[f64; 3]>) -> impl IntoView {
    // corners: class 1 top, class 2 bottom left, class 3 bottom right
    let corners = [(100.0, 8.0), (8.0, 168.0), (192.0, 168.0)];
    let dot = move || {
        let p = p.get();
        let x: f64 = (0..3).map(|i| p[i] * corners[i].0).sum();
        let y: f64 = (0..3).map(|i| p[i] * corners[i].1).sum();
        (x, y)
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        use wasm_bindgen::JsCast;
        let Some(el) = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        let r = el.get_bounding_client_rect();
        let x = (ev.client_x() as f64 - r.left()) / r.width() * 200.0;
        let y = (ev.client_y() as f64 - r.top()) / r.height() * 176.0;
        // barycentric coordinates
        let ((x1, y1), (x2, y2), (x3, y3)) = (corners[0], corners[1], corners[2]);
        let det = (y2 - y3) * (x1 - x3) + (x3 - x2) * (y1 - y3);
        let a = ((y2 - y3) * (x - x3) + (x3 - x2) * (y - y3)) / det;
        let b = ((y3 - y1) * (x - x3) + (x1 - x3) * (y - y3)) / det;
        let (a, b) = (a.clamp(0.0, 1.0), b.clamp(0.0, 1.0));
        let s = (a + b).max(1.0);
        let (a, b) = (a / s, b / s);
        p.set([a, b, (1.0 - a - b).max(0.0)]);
    };
    let fields = (0..3)
        .map(|i| {
            let id = ["p1", "p2", "p3"][i];
            view! {
                <label for=id>{format!("p*{} ", ["₁", "₂", "₃"][i])}</label>
                <input type="number" id=id min="0" max="1" step="0.01"
                    prop:value=move || format!("{:.4}", p.get()[i])
                    on:change=move |ev| {
                        if let Ok(v) = event_target_value(&ev).trim().parse::<f64>() {
                            if v.is_finite() { set_component(p, i, v) }
                        }
                    }/>
            }
        })
        .collect_view();
    view! {
        <div class="simplex">
            <svg class="simplex-svg" viewBox="0 0 200 176" on:click=on_click
                aria-label="the probability simplex of three classes; click to choose p*">
                <path class="tri" d="M100 8 L8 168 L192 168 Z"/>
                <text class="tick" x="100" y="7" text-anchor="middle">"1"</text>
                <text class="tick" x="6" y="175">"2"</text>
                <text class="tick" x="194" y="175" text-anchor="end">"3"</text>
                {move || { let (x, y) = dot(); view! { <circle class="dot" cx=x cy=y r="5"/> } }}
            </svg>
            <div class="simplex-fields">{fields}
                <button type="button" class="linklike" on:click=move |_| p.set([0.5, 1.0 / 3.0, 1.0 / 6.0])>
                    "reset to (1/2, 1/3, 1/6)"
                </button>
            </div>
        </div>
    }
}

pub(crate) fn truth_table(call: Call) -> impl IntoView {
    move || {
        let Some(LabAnswer::Truth { rows, share, reps }) = call.answer.get() else {
            return view! { <p class="status">"computing…"</p> }.into_any();
        };
        let best = |f: fn(&crate::proto::labs::TruthRow) -> f64| {
            rows.iter()
                .min_by(|a, b| f(a).total_cmp(&f(b)))
                .map(|r| r.key.clone())
                .unwrap_or_default()
        };
        let best_plain = best(|r| r.expected_confce);
        let best_corr = best(|r| r.expected_confce_corr);
        let (attr_plain, attr_corr) = (best_plain.clone(), best_corr.clone());
        // the source's comparison: honest against uniform
        let pick = |f: fn(&crate::proto::labs::TruthRow) -> f64| {
            let by = |k: &str| rows.iter().find(|r| r.key == k).map(f).unwrap_or(f64::NAN);
            if by("uniform") < by("honest") {
                "the uniform report"
            } else {
                "the honest report"
            }
        };
        let (pair_plain, pair_corr) = (
            pick(|r| r.expected_confce),
            pick(|r| r.expected_confce_corr),
        );
        let body = rows
            .iter()
            .map(|r| {
                let k = r.key.clone();
                let title = STRATEGIES.iter().find(|s| s.0 == k).map(|s| s.1).unwrap_or("");
                view! {
                    <tr data-strategy=k.clone()>
                        <th scope="row">{title}</th>
                        <td>{num(format!("lab.truth.report.{k}.confidence"), Some(r.confidence))}</td>
                        <td>{num(format!("lab.truth.report.{k}.q"), Some(r.q))}</td>
                        <td>{num(format!("lab.truth.expected.confce.{k}"), Some(r.expected_confce))}</td>
                        <td>{mc(&format!("lab.truth.sim.confce.{k}"), r.sim_confce.mean, r.sim_confce.se)}</td>
                        <td>{num(format!("lab.truth.expected.confce_corr.{k}"), Some(r.expected_confce_corr))}</td>
                        <td>{mc(&format!("lab.truth.sim.confce_corr.{k}"), r.sim_confce_corr.mean, r.sim_confce_corr.se)}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <div class="scroll" tabindex="0">
                <table class="lab-table" id="truth-table">
                    <thead><tr>
                        <th scope="col">"strategy"</th><th scope="col">"reported c"</th>
                        <th scope="col">"q = P(correct)"</th><th scope="col">"E[ConfCE]"</th>
                        <th scope="col">{format!("simulated ({reps} runs)")}</th>
                        <th scope="col">"E[ConfCE^corr]"</th><th scope="col">"simulated"</th>
                    </tr></thead>
                    <tbody>{body}</tbody>
                </table>
            </div>
            <p class="verdict" id="truth-pair">"Honest against uniform: ConfCE expects less from "
                <strong data-prefers="confce">{pair_plain}</strong>"; ConfCE^corr expects less from "
                <strong data-prefers="confce_corr">{pair_corr}</strong>"."</p>
            <p class="verdict" data-best-confce=attr_plain data-best-confce-corr=attr_corr>
                "Lowest expected ConfCE: " <strong>{best_plain}</strong>
                ". Lowest expected ConfCE^corr: " <strong>{best_corr}</strong>
                ". Bin share Σ(n_B/n)² = " {num("lab.truth.share", Some(share))} "."
            </p>
        }
        .into_any()
    }
}

const EXPECTATION_MATH: &str = r#"<math display="block"><mrow><mi mathvariant="normal">E</mi><mo>[</mo><msub><mi>ConfCE</mi><mi>B</mi></msub><mo>]</mo><mo>=</mo><msup><mrow><mo>(</mo><mi>c</mi><mo>−</mo><mi>q</mi><mo>)</mo></mrow><mn>2</mn></msup><munder><mo>∑</mo><mi>B</mi></munder><msup><mrow><mo>(</mo><mfrac><msub><mi>n</mi><mi>B</mi></msub><mi>n</mi></mfrac><mo>)</mo></mrow><mn>2</mn></msup><mo>+</mo><mfrac><mrow><mi>q</mi><mo>(</mo><mn>1</mn><mo>−</mo><mi>q</mi><mo>)</mo></mrow><mi>n</mi></mfrac><mo>,</mo><mspace width="1em"/><mi mathvariant="normal">E</mi><mo>[</mo><msubsup><mi>ConfCE</mi><mi>B</mi><mi>corr</mi></msubsup><mo>]</mo><mo>=</mo><mo>…</mo><mo>+</mo><mfrac><mrow><mn>1</mn><mo>−</mo><msup><mi>q</mi><mn>2</mn></msup></mrow><mi>n</mi></mfrac></mrow></math>"#;

fn exact_conditioning() -> impl IntoView {
    const NS: [usize; 7] = [10, 30, 100, 300, 1000, 3000, 10_000];
    let m = RwSignal::new(15.0);
    let call = ui::call().auto(move || LabRequest::ExactConditioning {
        ns: NS.to_vec(),
        m: m.get() as usize,
        reps: 200,
        seed: 7,
    });
    let svg = move |w: u32| {
        let Some(LabAnswer::ExactConditioning { points }) = call.answer.get() else {
            return String::new();
        };
        let pick = |f: fn(&crate::proto::labs::EcPoint) -> f64| {
            points
                .iter()
                .map(|p| (p.n as f64, f(p)))
                .collect::<Vec<_>>()
        };
        let line = |ink, dotted, legend, points| Series {
            ink,
            dotted,
            legend,
            points,
        };
        small::lines_sized(
            w,
            &[
                line(Ink::A, false, "truthful (exact)", pick(|p| p.truthful)),
                line(
                    Ink::A,
                    true,
                    "truthful (simulated)",
                    pick(|p| p.sim_truthful.mean),
                ),
                line(
                    Ink::C,
                    true,
                    "truthful, m bins (simulated)",
                    pick(|p| p.sim_binned.mean),
                ),
                line(Ink::B, false, "constant (exact)", pick(|p| p.constant)),
                line(
                    Ink::B,
                    true,
                    "constant (simulated)",
                    pick(|p| p.sim_constant.mean),
                ),
            ],
            Axis {
                lo: 10.0,
                hi: 10_000.0,
                log: true,
            },
            Axis {
                lo: 0.001,
                hi: 10.0,
                log: true,
            },
            ("n (log scale)", "expected ECE (log scale)"),
            (&[10.0, 100.0, 1000.0, 10_000.0], &[0.001, 0.01, 0.1, 1.0]),
        )
    };
    let table = move || {
        let Some(LabAnswer::ExactConditioning { points }) = call.answer.get() else {
            return ().into_any();
        };
        points
            .iter()
            .map(|p| {
                let n = p.n;
                view! { <tr>
                    <td>{n}</td>
                    <td>{num(format!("lab.truth.exact.truthful.{n}"), Some(p.truthful))}</td>
                    <td>{mc(&format!("lab.truth.exact.sim.truthful.{n}"), p.sim_truthful.mean, p.sim_truthful.se)}</td>
                    <td>{num(format!("lab.truth.exact.constant.{n}"), Some(p.constant))}</td>
                    <td>{mc(&format!("lab.truth.exact.sim.constant.{n}"), p.sim_constant.mean, p.sim_constant.se)}</td>
                    <td>{mc(&format!("lab.truth.exact.sim.binned.{n}"), p.sim_binned.mean, p.sim_binned.se)}</td>
                </tr> }
            })
            .collect_view()
            .into_any()
    };
    view! {
        <section aria-labelledby="exact-h">
            <h3 id="exact-h">"Exact conditioning: the honest forecaster pays for its detail"</h3>
            <p>"Take binary outcomes whose true probabilities p are spread uniformly over [0, 1]. \
                Condition exactly on the forecast (one bin per distinct value). The truthful forecaster \
                reports p: every bin holds one sample, so its ECE is the mean of |p − y|, about 1/3 \
                however large n is. The constant forecaster reports the base rate 1/2: one bin, and \
                its ECE |ȳ − 1/2| shrinks like 1/√(2πn). The metric prefers the useless forecaster. \
                Binning softens this without removing it: with m equal-width bins the honest forecaster's \
                noise falls like √(m/n), still far above the constant's."</p>
            {number("exact-m", "bins m for the binned curve ", m, 1.0, 100.0, 1.0)}
            {call.status("simulating")}
            {chart(svg)}
            <div class="scroll" tabindex="0"><table class="lab-table" id="exact-table">
                <thead><tr><th scope="col">"n"</th><th scope="col">"truthful, exact"</th><th scope="col">"simulated (200 runs)"</th>
                    <th scope="col">"constant, exact"</th><th scope="col">"simulated"</th>
                    <th scope="col">"truthful, m bins (simulated)"</th></tr></thead>
                <tbody>{table}</tbody>
            </table></div>
        </section>
    }
}

#[component]
pub fn TruthLab() -> impl IntoView {
    let p = RwSignal::new([0.5, 1.0 / 3.0, 1.0 / 6.0]);
    let temperature = RwSignal::new(0.5);
    let grid = RwSignal::new(3.0);
    let n = RwSignal::new(100.0);
    let m = RwSignal::new(10.0);
    let reps = RwSignal::new(2000.0);
    let binning = RwSignal::new("width".to_string());
    // the posterior p* travels in links as its three components
    ui::keep("truth-p", p, |p: [f64; 3]| {
        let ok =
            p.iter().all(|x| (0.0..=1.0).contains(x)) && (p.iter().sum::<f64>() - 1.0).abs() < 1e-6;
        ok.then_some(p)
    });
    let call = ui::call().auto(move || LabRequest::Truth {
        p_star: p.get().to_vec(),
        temperature: temperature.get(),
        grid: grid.get() as u32,
        n: n.get() as usize,
        m: m.get() as usize,
        binning: Binning::from_name(&binning.get()).unwrap_or(Binning::Width),
        reps: reps.get() as usize,
        seed: 1,
    });
    view! {
        <section class="lab" id="truth-lab" aria-labelledby="truth-h">
            <h2 id="truth-h">"Truthfulness lab"</h2>
            <p>"After \u{201c}Truthful Calibration Errors for Multi-Class Prediction\u{201d}. A calibration \
                error is truthful when a forecaster minimises its expected value by reporting what it \
                believes. Here every sample has the true class probabilities p* (in a random order of \
                the classes, known to the honest forecaster), and each strategy reports something: \
                its top class gets confidence c and is right with probability q."</p>
            <div class="controls">
                {simplex(p)}
                <div class="lab-controls">
                    {number("truth-temperature", "temperature T ", temperature, 0.1, 5.0, 0.05)}
                    {number("truth-grid", "grid g ", grid, 1.0, 20.0, 1.0)}
                    {number("truth-n", "n ", n, 10.0, 10_000.0, 10.0)}
                    {number("truth-m", "bins m ", m, 1.0, 100.0, 1.0)}
                    {number("truth-reps", "repetitions ", reps, 10.0, 5000.0, 10.0)}
                    {choice("truth-binning", "binning ", vec![("width", "equal-width"), ("mass", "equal-mass")], binning)}
                </div>
            </div>
            <div class="math" tabindex="0" inner_html=EXPECTATION_MATH></div>
            <p class="detail">"All samples report the same c, so one equal-width bin holds them all; \
                equal-mass bins split the tie by row order. The bias term needs c = q; the noise term \
                q(1 − q) is largest at q = 1/2, so an honest forecaster with top probability 1/2 pays \
                more noise than one that reports the uniform vector (q = 1/3). The correction (1/n)(1 − acc) \
                turns the noise into 1 − q², which falls as q grows: only the honest top class wins."</p>
            {call.status("simulating")}
            {truth_table(call)}
        </section>
        {exact_conditioning()}
    }
}
