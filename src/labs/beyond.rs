//! The beyond-ECE lab (source: "Beyond ECE: Calibrated Size Ratio, Risk Assessment,
//! and Confidence-Weighted Metrics"): the synthetic generator of METRICS.md §7 with
//! its confidence histogram, reliability diagram and risk metrics; the repeated-run
//! summary beside the paper's Table 5; the ECE < 1/N, CSR > Λ counterexample.
//!
//! `data-metric` paths: `lab.beyond.run.<ece|acc|csr|sigma_csr|zscore|p_risk|cwa|gain|auc|cwauc>`,
//! `lab.beyond.repeat.<acc|cwa|gain|csr|sigma_csr|p_risk>.mean|se`,
//! `lab.beyond.repeat.<beyond_1sigma|beyond_3sigma|reps|ms>`,
//! `lab.beyond.paper.<acc|cwa|gain|csr|sigma_csr|beyond_1sigma|beyond_3sigma|p_risk>`,
//! `lab.beyond.table.<dist>.<key>` and `lab.beyond.table.<dist>.paper.<key>` (the
//! ten-distribution table: means and the paper's values, keys as in `paper`),
//! `lab.beyond.table.p_risk.<min|max>` and `lab.beyond.table.p_risk.paper.<min|max>`
//! (the table's mean P_risk range and the paper's),
//! `lab.beyond.counter.<ece|one_over_n|csr|sigma_csr|p_risk|cwa|delta|flat>`; the
//! reproduction of the paper's tables: see `lab_repro.rs`.

use crate::proto::labs::{LabAnswer, LabRequest, Risk};
use calibscope_core::synth::{Distribution, Mode};
use leptos::prelude::*;

use crate::labs::repro::{COLUMNS, DISTS, MODES};
use crate::labs::ui::{self, choice, mc, num, number, Call};
use crate::shared::chart;
use calibscope_charts::palette::Ink;
use calibscope_charts::small::{self, Axis, Series};

/// The risk metrics under `prefix` (`<prefix>.csr`, ...).
fn risk_list(prefix: &'static str, r: Risk) -> impl IntoView {
    let item = |key: &'static str, label: &'static str, v: Option<f64>| {
        view! { <div><dt>{label}</dt><dd>{num(format!("{prefix}.{key}"), v)}</dd></div> }
    };
    view! {
        {item("acc", "accuracy", r.acc)}
        {item("csr", "CSR", r.csr)}
        {item("sigma_csr", "σ_CSR", r.sigma_csr)}
        {item("zscore", "z = (CSR − 1)/σ", r.zscore)}
        {item("p_risk", "P_risk = Φ(z) if CSR > 1, else 0", r.p_risk)}
        {item("cwa", "cwA", r.cwa)}
        {item("gain", "gain", r.gain)}
    }
}

fn run_view(call: Call) -> impl IntoView {
    move || {
        let Some(LabAnswer::Generate {
            hist,
            rows,
            ece,
            risk,
            auc,
            cwauc,
            roc,
        }) = call.answer.get()
        else {
            return view! { <p class="status">"generating…"</p> }.into_any();
        };
        let rel = move |width| {
            chart::reliability_with(
                &rows,
                &chart::Options {
                    width,
                    x_label: "confidence",
                    ..chart::Options::default()
                },
            )
            .svg
        };
        let roc_svg = move |w| {
            small::lines_sized(
                w,
                &[
                    Series {
                        ink: Ink::A,
                        dotted: false,
                        legend: "ROC",
                        points: roc.iter().map(|p| (p.fpr, p.tpr)).collect(),
                    },
                    Series {
                        ink: Ink::B,
                        dotted: false,
                        legend: "cwROC",
                        points: roc.iter().map(|p| (p.cw_fpr, p.cw_tpr)).collect(),
                    },
                ],
                Axis::UNIT,
                Axis::UNIT,
                ("false-positive rate (class 1)", "true-positive rate"),
                (&[0.0, 0.5, 1.0], &[0.0, 0.5, 1.0]),
            )
        };
        let hist_svg = move |w| small::histogram_sized(w, &hist, "confidence c");
        view! {
            <dl class="metrics-list" id="beyond-run">
                <div><dt>"ECE"</dt><dd>{num("lab.beyond.run.ece", ece)}</dd></div>
                {risk_list("lab.beyond.run", risk)}
                <div><dt>"AUC"</dt><dd>{num("lab.beyond.run.auc", auc)}</dd></div>
                <div><dt>"cwAUC"</dt><dd>{num("lab.beyond.run.cwauc", cwauc)}</dd></div>
            </dl>
            <div class="lab-charts">
                <figure><chart::SizedSvg class="lab-svg" fallback=420 draw=hist_svg/><figcaption>"Confidence histogram"</figcaption></figure>
                <figure class="chart"><chart::SizedSvg class="svg" draw=rel/><figcaption>"Reliability diagram (equal-width bins, Clopper–Pearson 95% intervals)"</figcaption></figure>
                <figure><chart::SizedSvg class="lab-svg" fallback=420 draw=roc_svg/><figcaption>"ROC and confidence-weighted ROC of class 1"</figcaption></figure>
            </div>
        }
        .into_any()
    }
}

fn repeat_view(call: Call) -> impl IntoView {
    move || {
        let Some(LabAnswer::Repeat { summary: s, paper }) = call.answer.get() else {
            return ().into_any();
        };
        let paper_cell = move |i: usize, key: &'static str| match paper {
            Some(p) => num(format!("lab.beyond.paper.{key}"), Some(p[i])),
            None => view! { <span class="status">"—"</span> }.into_any(),
        };
        let row = move |label: &'static str, key: &'static str, ours: AnyView, i: usize| {
            view! { <tr><th scope="row">{label}</th><td>{ours}</td><td>{paper_cell(i, key)}</td></tr> }
        };
        let p = "lab.beyond.repeat";
        view! {
            <table class="lab-table" id="repeat-table">
                <thead><tr><th scope="col">"mean over " {num("lab.beyond.repeat.reps", Some(s.reps as f64))} " runs"</th>
                    <th scope="col">"this page (± s.e.)"</th><th scope="col">"paper, Table 5"</th></tr></thead>
                <tbody>
                    {row("Acc", "acc", mc(&format!("{p}.acc"), s.acc.mean, s.acc.se), 0)}
                    {row("cwA", "cwa", mc(&format!("{p}.cwa"), s.cwa.mean, s.cwa.se), 1)}
                    {row("gain", "gain", mc(&format!("{p}.gain"), s.gain.mean, s.gain.se), 2)}
                    {row("CSR", "csr", mc(&format!("{p}.csr"), s.csr.mean, s.csr.se), 3)}
                    {row("σ_CSR", "sigma_csr", mc(&format!("{p}.sigma_csr"), s.sigma_csr.mean, s.sigma_csr.se), 4)}
                    {row("share with CSR > 1 + σ", "beyond_1sigma", num(format!("{p}.beyond_1sigma"), Some(s.beyond_1sigma)), 5)}
                    {row("share with CSR > 1 + 3σ", "beyond_3sigma", num(format!("{p}.beyond_3sigma"), Some(s.beyond_3sigma)), 6)}
                    {row("P_risk", "p_risk", mc(&format!("{p}.p_risk"), s.p_risk.mean, s.p_risk.se), 7)}
                </tbody>
            </table>
            <p class="detail">"Computed in "{move || num("lab.beyond.repeat.ms", call.elapsed.get())}" ms (page to worker and back). "
                {if paper.is_some() { "The paper's column is its Table 5 (Perfect calibration, 100 repetitions, other random numbers): expect agreement within the noise, not digit for digit." }
                 else { "The paper prints Table 5 values only for Perfect calibration at N = 100 and 10,000 (and 100,000)." }}</p>
        }
        .into_any()
    }
}

fn table_view(call: Call) -> impl IntoView {
    move || {
        let Some(LabAnswer::RepeatTable { rows }) = call.answer.get() else {
            return ().into_any();
        };
        let reps = rows.first().map_or(0, |r| r.summary.reps);
        let body = rows
            .iter()
            .map(|r| {
                let d = r.dist.clone();
                let title = DISTS.iter().find(|x| x.0 == d).map_or("", |x| x.1);
                let s = r.summary;
                let ours = [
                    s.acc.mean,
                    s.cwa.mean,
                    s.gain.mean,
                    s.csr.mean,
                    s.sigma_csr.mean,
                    s.beyond_1sigma,
                    s.beyond_3sigma,
                    s.p_risk.mean,
                ];
                let cells = COLUMNS
                    .iter()
                    .enumerate()
                    .map(|(i, (key, _))| {
                        let paper = r.paper.map(|p| {
                            view! { <br/><span class="paper">"paper " {num(format!("lab.beyond.table.{d}.paper.{key}"), Some(p[i]))}</span> }
                        });
                        view! { <td>{num(format!("lab.beyond.table.{d}.{key}"), Some(ours[i]))}{paper}</td> }
                    })
                    .collect_view();
                view! { <tr><th scope="row">{title}</th>{cells}</tr> }
            })
            .collect_view();
        let head = COLUMNS
            .iter()
            .map(|(_, h)| view! { <th scope="col">{*h}</th> })
            .collect_view();
        view! {
            <div class="scroll" tabindex="0"><table class="lab-table" id="table5">
                <caption>{format!("Means over {reps} repetitions per distribution; >1σ and >3σ are the shares of runs with CSR above 1 + σ and 1 + 3σ.")}</caption>
                <thead><tr><th scope="col">"distribution"</th>{head}</tr></thead>
                <tbody>{body}</tbody>
            </table></div>
            {p_risk_note(&rows)}
        }
        .into_any()
    }
}

/// The table's mean P_risk range beside the paper's (rows with a paper value),
/// computed from the numbers shown.
fn p_risk_note(rows: &[crate::proto::labs::TableRow]) -> impl IntoView {
    let range = |v: Vec<f64>| {
        v.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            })
    };
    let (lo, hi) = range(rows.iter().map(|r| r.summary.p_risk.mean).collect());
    let paper: Vec<f64> = rows.iter().filter_map(|r| r.paper.map(|p| p[7])).collect();
    let p = "lab.beyond.table.p_risk";
    let theirs = (!paper.is_empty()).then(|| {
        let (plo, phi) = range(paper);
        view! { "; the paper's Table 5 rows: " {num(format!("{p}.paper.min"), Some(plo))} " to "
        {num(format!("{p}.paper.max"), Some(phi))} }
    });
    view! {
        <p class="detail">"Mean P_risk of these rows: " {num(format!("{p}.min"), Some(lo))} " to "
            {num(format!("{p}.max"), Some(hi))} {theirs} ". The reproduction below compares every \
            cell of the paper's tables with its standard error."</p>
    }
}

pub(crate) fn counterexample() -> impl IntoView {
    let n = RwSignal::new(1000.0);
    let lambda = RwSignal::new(10.0);
    let p = RwSignal::new(0.7);
    let m = RwSignal::new(15.0);
    let call = ui::call().auto(move || LabRequest::Counterexample {
        n: n.get() as usize,
        lambda: lambda.get(),
        p: p.get(),
        m: m.get() as usize,
    });
    let result = move || {
        let Some(LabAnswer::Counterexample {
            n,
            delta,
            flat,
            ece,
            risk,
            ..
        }) = call.answer.get()
        else {
            return ().into_any();
        };
        view! {
            <dl class="metrics-list" id="counter-result">
                <div><dt>"ECE"</dt><dd>{num("lab.beyond.counter.ece", ece)}</dd></div>
                <div><dt>"1/N"</dt><dd>{num("lab.beyond.counter.one_over_n", Some(1.0 / n as f64))}</dd></div>
                <div><dt>"CSR"</dt><dd>{num("lab.beyond.counter.csr", risk.csr)}</dd></div>
                <div><dt>"σ_CSR"</dt><dd>{num("lab.beyond.counter.sigma_csr", risk.sigma_csr)}</dd></div>
                <div><dt>"P_risk"</dt><dd>{num("lab.beyond.counter.p_risk", risk.p_risk)}</dd></div>
                <div><dt>"cwA"</dt><dd>{num("lab.beyond.counter.cwa", risk.cwa)}</dd></div>
                <div><dt>"flat confidence"</dt><dd>{num("lab.beyond.counter.flat", Some(flat))}</dd></div>
                <div><dt>"δ"</dt><dd>{num("lab.beyond.counter.delta", Some(delta))}</dd></div>
            </dl>
        }
        .into_any()
    };
    view! {
        <section aria-labelledby="counter-h">
            <h3 id="counter-h">"Counterexample: ECE below 1/N, CSR above Λ"</h3>
            <p>"The paper shows that ECE and CSR measure different things. Construction: N − 1 predictions \
                share one confidence and are right exactly that often, so their residuals cancel in any \
                equal-width bin; one more prediction is wrong with confidence 1 − δ, δ = 1/(N(Λ + 1)). \
                The ECE is (1 − δ)/N, below 1/N, while that one confident mistake adds 1/(Nδ) = Λ + 1 to \
                the CSR: an almost perfect ECE hiding an arbitrarily risky prediction."</p>
            <div class="controls">
                {number("counter-n", "N ", n, 2.0, 100_000.0, 1.0)}
                {number("counter-lambda", "Λ ", lambda, 0.5, 1000.0, 0.5)}
                {number("counter-p", "flat confidence ", p, 0.0, 0.99, 0.01)}
                {number("counter-m", "bins m ", m, 1.0, 100.0, 1.0)}
            </div>
            {call.status("building")}
            {result}
        </section>
    }
}

#[component]
pub fn BeyondLab() -> impl IntoView {
    // the option lists follow the core's order
    debug_assert!(DISTS
        .iter()
        .zip(Distribution::ALL)
        .all(|(d, c)| d.0 == c.name()));
    debug_assert!(MODES.iter().zip(Mode::ALL).all(|(m, c)| m.0 == c.name()));
    let dist = RwSignal::new("uniform".to_string());
    let mode = RwSignal::new("perfect".to_string());
    let n = RwSignal::new(10_000.0);
    let m = RwSignal::new(15.0);
    let seed = RwSignal::new(1.0);
    let reps = RwSignal::new(100.0);
    let run = ui::call().auto(move || LabRequest::Generate {
        dist: dist.get(),
        mode: mode.get(),
        n: n.get() as usize,
        m: m.get() as usize,
        seed: seed.get() as u64,
    });
    let repeat = ui::call();
    let table = ui::call();
    let start_table = move |_| {
        table.send(LabRequest::RepeatTable {
            mode: mode.get_untracked(),
            n: n.get_untracked() as usize,
            reps: reps.get_untracked() as usize,
            seed: seed.get_untracked() as u64,
        })
    };
    let start = move |_| {
        repeat.send(LabRequest::Repeat {
            dist: dist.get_untracked(),
            mode: mode.get_untracked(),
            n: n.get_untracked() as usize,
            reps: reps.get_untracked() as usize,
            seed: seed.get_untracked() as u64,
        })
    };
    view! {
        <section class="lab" id="beyond-lab" aria-labelledby="beyond-h">
            <h2 id="beyond-h">"Beyond-ECE lab"</h2>
            <p>"After \u{201c}Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted \
                Metrics\u{201d}. Each synthetic prediction has a confidence c drawn from a distribution and is \
                right with probability p(c) set by a calibration mode. The Calibrated Size Ratio sums, over \
                the mistakes, 1/(1 − c): a mistake made at confidence 0.99 counts 100 times. For a calibrated \
                model its expectation is 1; above 1 means overconfidence, and σ_CSR says how far chance alone \
                moves it. cwA weights accuracy by confidence: above the plain accuracy when confidence is informative."</p>
            <div class="controls">
                {choice("beyond-dist", "distribution ", DISTS.to_vec(), dist)}
                {choice("beyond-mode", "calibration ", MODES.to_vec(), mode)}
                {number("beyond-n", "N ", n, 100.0, 1_000_000.0, 100.0)}
                {number("beyond-m", "bins m ", m, 1.0, 100.0, 1.0)}
                {number("beyond-seed", "seed ", seed, 0.0, 1e9, 1.0)}
            </div>
            {run.status("generating")}
            {run_view(run)}
            <h3>"Repeat"</h3>
            <div class="controls">
                {number("beyond-reps", "repetitions R ", reps, 1.0, 1000.0, 1.0)}
                <button type="button" id="beyond-repeat" on:click=start>"Repeat R times"</button>
                <button type="button" id="beyond-table" on:click=start_table>"Repeat for all ten distributions"</button>
            </div>
            {repeat.status("repetitions")}
            {repeat_view(repeat)}
            {table.status("repetitions")}
            {table_view(table)}
            {crate::labs::repro::reproduction(seed)}
        </section>
        {counterexample()}
    }
}
