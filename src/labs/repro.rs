//! The Beyond-ECE lab's reproduction of the paper's synthetic tables: Table 5
//! (Perfect calibration, N = 100 and 10,000) and Tables 8 and 9 (every distribution
//! and calibration mode, N = 1000), 100 repetitions per row, every cell shown with
//! the paper's value, ours, the standard error of the difference and a verdict; the
//! cells the rule cannot judge are listed with their reason and its numbers.
//!
//! `data-metric` paths: `lab.beyond.repro.t<table>.n<N>.<dist>.<mode>.<column>.<paper|ours|se>`
//! (columns as in the repeat table: `acc`, `cwa`, `gain`, `csr`, `sigma_csr`,
//! `beyond_1sigma`, `beyond_3sigma`, `p_risk`), the cell's `data-verdict` attribute
//! (`agrees`, `off`, `cannot agree`, `not judged`), `<cell path>.evidence.<key>`,
//! `lab.beyond.repro.count.<total|agrees|off|cannot_agree|not_judged>`,
//! `lab.beyond.repro.p_risk.n<N>.<ours|paper>.<min|max>`, `lab.beyond.repro.reps`,
//! `lab.beyond.repro.seed`.

use crate::proto::labs::{LabAnswer, LabRequest};
use crate::proto::labs::{ReproCell, ReproRow};
use leptos::prelude::*;

use crate::labs::ui::{self, num, Call};

/// The beyond-ECE lab's confidence distributions: `(id, title)`.
pub(crate) const DISTS: [(&str, &str); 10] = [
    ("uniform", "Uniform U(0,1)"),
    ("skew_high", "Skew High Beta(3, 0.5)"),
    ("skew_low", "Skew Low Beta(0.5, 3)"),
    ("bimodal", "Bimodal"),
    ("tight_hi", "Tight Hi U(0.8, 1)"),
    ("tight_lo", "Tight Lo U(0, 0.2)"),
    ("normal", "Normal N(0.7, 0.1²)"),
    ("log_uniform_low", "Log-Uniform Low"),
    ("log_uniform_high", "Log-Uniform High"),
    ("bell", "Bell Beta(5, 5)"),
];

/// The beyond-ECE lab's miscalibration modes: `(id, title)`.
pub(crate) const MODES: [(&str, &str); 8] = [
    ("random_0.5", "Random 0.5"),
    ("perfect", "Perfect p = c"),
    ("underconf_linear", "Underconf 0.2 + 0.8c"),
    ("underconf_sqrt", "Underconf √c"),
    ("random_over_c", "Random over c U(c, 1)"),
    ("overconf_sqrt", "Overconf 1 − √(1 − c)"),
    ("overconf_half", "Overconf c/2"),
    ("random_under_c", "Random under c U(0, c)"),
];

/// The columns of Table 5: `(key, header)`.
pub(crate) const COLUMNS: [(&str, &str); 8] = [
    ("acc", "Acc"),
    ("cwa", "cwA"),
    ("gain", "gain"),
    ("csr", "CSR"),
    ("sigma_csr", "σ_CSR"),
    ("beyond_1sigma", ">1σ"),
    ("beyond_3sigma", ">3σ"),
    ("p_risk", "P_risk"),
];

fn title(list: &[(&'static str, &'static str)], id: &str) -> &'static str {
    list.iter().find(|x| x.0 == id).map_or("", |x| x.1)
}

fn prefix(r: &ReproRow) -> String {
    format!(
        "lab.beyond.repro.t{}.n{}.{}.{}",
        r.table, r.n, r.dist, r.mode
    )
}

fn cell_view(path: String, c: &ReproCell) -> impl IntoView {
    let mark = c.reason.as_ref().map(|_| "*");
    view! {
        <td class="repro-cell" data-verdict=c.verdict.clone()>
            <span class="ours">{num(format!("{path}.ours"), Some(c.ours))}</span>
            <span class="paper">"paper " {num(format!("{path}.paper"), Some(c.paper))}</span>
            <span class="se">"SE " {num(format!("{path}.se"), Some(c.se))}</span>
            <span class="verdict">{c.verdict.clone()}{mark}</span>
        </td>
    }
}

fn table_view(rows: Vec<ReproRow>, caption: String, with_mode: bool) -> impl IntoView {
    let head = COLUMNS
        .iter()
        .map(|(_, h)| view! { <th scope="col">{*h}</th> })
        .collect_view();
    let body = rows
        .iter()
        .map(|r| {
            let p = prefix(r);
            let cells = r
                .cells
                .iter()
                .zip(COLUMNS)
                .map(|(c, (key, _))| cell_view(format!("{p}.{key}"), c))
                .collect_view();
            let name = if with_mode {
                format!("{} · {}", title(&DISTS, &r.dist), title(&MODES, &r.mode))
            } else {
                title(&DISTS, &r.dist).to_string()
            };
            view! { <tr><th scope="row">{name}</th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <div class="scroll" tabindex="0"><table class="lab-table repro-table">
            <caption>{caption}</caption>
            <thead><tr><th scope="col">"distribution"</th>{head}</tr></thead>
            <tbody>{body}</tbody>
        </table></div>
    }
}

/// The rows of `table` (and, for Table 5, of one `n`).
fn pick(rows: &[ReproRow], table: u8, n: Option<usize>) -> Vec<ReproRow> {
    rows.iter()
        .filter(|r| r.table == table && n.is_none_or(|n| r.n == n))
        .cloned()
        .collect()
}

fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// The sentence on the Perfect rows' P_risk at `n`, from the table.
fn p_risk_line(rows: &[ReproRow], n: usize) -> impl IntoView {
    let perfect: Vec<&ReproRow> = rows.iter().filter(|r| r.table == 5 && r.n == n).collect();
    let (lo, hi) = range(perfect.iter().map(|r| r.cells[7].ours));
    let (plo, phi) = range(perfect.iter().map(|r| r.cells[7].paper));
    let p = format!("lab.beyond.repro.p_risk.n{n}");
    view! {
        <li>"N = " {n.to_string()} ": ours from " {num(format!("{p}.ours.min"), Some(lo))} " to "
            {num(format!("{p}.ours.max"), Some(hi))} ", the paper's from "
            {num(format!("{p}.paper.min"), Some(plo))} " to " {num(format!("{p}.paper.max"), Some(phi))} "."</li>
    }
}

fn reasons_view(rows: &[ReproRow]) -> impl IntoView {
    let items = rows
        .iter()
        .flat_map(|r| {
            r.cells
                .iter()
                .zip(COLUMNS)
                .filter_map(move |(c, (key, head))| {
                    let reason = c.reason.clone()?;
                    let path = format!("{}.{key}", prefix(r));
                    let evidence = reason
                        .evidence
                        .iter()
                        .map(|e| {
                            view! { <li>{e.label.clone()} ": " {num(format!("{path}.evidence.{}", e.key), Some(e.value))}</li> }
                        })
                        .collect_view();
                    let mode = if r.table == 5 {
                        String::new()
                    } else {
                        format!(" · {}", title(&MODES, &r.mode))
                    };
                    Some(view! {
                        <li data-cell=path.clone() data-reason=reason.key.clone()>
                            <strong>{format!("Table {}, N = {}, {}{mode}, {head}: {}", r.table, r.n, title(&DISTS, &r.dist), reason.label)}</strong>
                            " (paper " {num(format!("{path}.paper"), Some(c.paper))} ", ours " {num(format!("{path}.ours"), Some(c.ours))} "): "
                            {reason.text.clone()} "."
                            <ul class="evidence">{evidence}</ul>
                        </li>
                    })
                })
        })
        .collect_view();
    view! { <ol id="repro-reasons" class="repro-reasons">{items}</ol> }
}

fn answer_view(call: Call) -> impl IntoView {
    move || {
        let Some(LabAnswer::Reproduce { seed, reps, rows }) = call.answer.get() else {
            return ().into_any();
        };
        let count = |v: &str| {
            rows.iter()
                .flat_map(|r| &r.cells)
                .filter(|c| c.verdict == v)
                .count() as f64
        };
        let total = rows.iter().map(|r| r.cells.len()).sum::<usize>() as f64;
        let c = "lab.beyond.repro.count";
        view! {
            <p id="repro-summary">
                {num(format!("{c}.agrees"), Some(count("agrees")))} " of " {num(format!("{c}.total"), Some(total))}
                " cells agree with the paper within 4 standard errors; "
                {num(format!("{c}.cannot_agree"), Some(count("cannot agree")))} " cannot agree and "
                {num(format!("{c}.not_judged"), Some(count("not judged")))} " cannot be judged by that rule (reasons below, marked *); "
                {num(format!("{c}.off"), Some(count("off")))} " are off. Each row: "
                {num("lab.beyond.repro.reps", Some(reps as f64))} " repetitions, repetition r seeded with "
                {num("lab.beyond.repro.seed", Some(seed as f64))} " + r."
            </p>
            <p>"The mean overconfidence risk P_risk of perfectly calibrated data (Table 5):"</p>
            <ul>{p_risk_line(&rows, 100)}{p_risk_line(&rows, 10_000)}</ul>
            {table_view(pick(&rows, 5, Some(100)), "Table 5, Perfect calibration, N = 100".into(), false)}
            {table_view(pick(&rows, 5, Some(10_000)), "Table 5, Perfect calibration, N = 10,000".into(), false)}
            {table_view(pick(&rows, 8, None), "Table 8, N = 1000".into(), true)}
            {table_view(pick(&rows, 9, None), "Table 9, N = 1000".into(), true)}
            <h4>"Cells the rule cannot judge"</h4>
            {reasons_view(&rows)}
        }
        .into_any()
    }
}

/// The reproduction section, seeded with the lab's `seed`.
pub(crate) fn reproduction(seed: RwSignal<f64>) -> impl IntoView {
    let call = ui::call();
    let start = move |_| {
        call.send(LabRequest::Reproduce {
            seed: seed.get_untracked() as u64,
        })
    };
    view! {
        <section aria-labelledby="repro-h" id="beyond-repro">
            <h3 id="repro-h">"Reproducing the paper's Tables 5, 8 and 9"</h3>
            <p>"Every row of the paper's synthetic tables, run again as the paper did: 100 repetitions \
                of N samples from the generator above, each column averaged. Each cell shows our mean, the \
                paper's value and the standard error (SE) of their difference, which counts the noise of \
                both sets of 100 repetitions: for a mean, s·√(1/100 + 1/100) with s the spread of our \
                runs; for a share of runs, the pooled two-proportion error. A cell agrees when the two \
                values are within 4 SE plus half a unit of the paper's last printed digit (0.00005). Some \
                cells cannot be judged this way; each is listed below the tables with its reason and the \
                numbers behind it."</p>
            <div class="controls">
                <button type="button" id="beyond-repro-run" on:click=start>"Reproduce the paper's tables"</button>
                <span class="detail">"(uses the seed set above)"</span>
            </div>
            {call.status("repetitions")}
            {answer_view(call)}
        </section>
    }
}
