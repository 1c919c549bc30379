//! Steps 6 to 8 of the Learn tour: temperature scaling, truthfulness, risk.

use crate::proto::labs::{LabAnswer, LabRequest};
use calibscope_core::binning::Binning;
use leptos::prelude::*;

use crate::labs::ui::{self, num, number};
use crate::page::store::{Store, View};

const TEMPERATURE_MATH: &str = r#"<math display="block"><mrow><msub><mi>p</mi><mi>τ</mi></msub><mo>=</mo><mi>σ</mi><mo>(</mo><mi>s</mi><mo>/</mo><mi>τ</mi><mo>)</mo><mo>,</mo><mspace width="1em"/><mi>τ</mi><mo>&gt;</mo><mn>0</mn><mo>:</mo><mspace width="1em"/><msub><mi>s</mi><mi>i</mi></msub><mo>&gt;</mo><msub><mi>s</mi><mi>j</mi></msub><mo>⇔</mo><msub><mi>s</mi><mi>i</mi></msub><mo>/</mo><mi>τ</mi><mo>&gt;</mo><msub><mi>s</mi><mi>j</mi></msub><mo>/</mo><mi>τ</mi><mo>,</mo><mspace width="1em"/><mi>sign</mi><mo>(</mo><mi>s</mi><mo>/</mo><mi>τ</mi><mo>)</mo><mo>=</mo><mi>sign</mi><mo>(</mo><mi>s</mi><mo>)</mo></mrow></math>"#;

/// Step 6: fit τ and check the invariance theorem on the data.
pub fn temperature() -> impl IntoView {
    let sharpness = RwSignal::new(2.5);
    let call = ui::call().auto(move || forecaster(5000, 15, sharpness.get(), false, 1));
    view! {
        <p>"Temperature scaling divides the model's logit s by one number τ, chosen to minimise the \
            negative log-likelihood. The theorem takes two lines: dividing by a positive τ keeps the order \
            of the scores, so the ranking (and AUC) cannot change; and it keeps their sign, so the predicted \
            class (and accuracy) cannot change. Only the confidence moves. Bend the forecaster with the dial: \
            the fitted τ comes out close to the dial, undoing it."</p>
        {math(TEMPERATURE_MATH)}
        {number("learn-temp-dial", "dial ", sharpness, 0.25, 4.0, 0.05)}
        {call.status("fitting")}
        {move || match call.answer.get() {
            Some(LabAnswer::Forecaster { ece, temperature: Some(t), .. }) => view! {
                <div class="scroll" tabindex="0"><table class="lab-table" id="learn-temperature">
                    <thead><tr><th scope="col">""</th><th scope="col">"before (τ = 1)"</th><th scope="col">{"after (τ = "}{num("learn.temperature.tau", Some(t.tau))}")"</th></tr></thead>
                    <tbody>
                        <tr><th scope="row">"NLL"</th><td>{num("learn.temperature.nll_before", Some(t.nll_before))}</td><td>{num("learn.temperature.nll_after", Some(t.nll_after))}</td></tr>
                        <tr><th scope="row">"ECE (15 bins)"</th><td>{num("learn.temperature.ece_before", ece)}</td><td>{num("learn.temperature.ece_after", t.ece_after)}</td></tr>
                        <tr><th scope="row">"AUC"</th><td>{num("learn.temperature.auc_before", t.auc_before)}</td><td>{num("learn.temperature.auc_after", t.auc_after)}</td></tr>
                        <tr><th scope="row">"accuracy"</th><td>{num("learn.temperature.acc_before", Some(t.acc_before))}</td><td>{num("learn.temperature.acc_after", Some(t.acc_after))}</td></tr>
                    </tbody>
                </table></div>
                <p data-order-identical=t.order_identical.to_string()>{if t.order_identical {
                    "The order of the 5,000 scores is identical before and after: checked, not assumed."
                } else {
                    "The order of the scores changed: this should not happen (please report it)."
                }}</p>
            }.into_any(),
            _ => ().into_any(),
        }}
    }
}

/// Step 7: why binned errors can be gamed.
pub fn truthfulness() -> impl IntoView {
    let call = ui::call().auto(|| LabRequest::Truth {
        p_star: vec![0.5, 1.0 / 3.0, 1.0 / 6.0],
        temperature: 0.5,
        grid: 3,
        n: 100,
        m: 10,
        binning: Binning::Width,
        reps: 500,
        seed: 1,
    });
    view! {
        <p>"A calibration error is a score the forecaster can play against. With three classes and true \
            probabilities (1/2, 1/3, 1/6), the squared binned error ConfCE expects less from a forecaster \
            that shrugs and reports (1/3, 1/3, 1/3) than from the honest one: the honest top class is a coin \
            flip, whose noise q(1 − q) = 1/4 is the largest possible. A small correction restores the \
            incentive. The same noise makes rankings of models flip when the number of bins changes."</p>
        {crate::labs::truth::truth_table(call)}
        <p>{go("truth-lab", "Open the truthfulness lab")} " · " {go("flips", "Ranking flips on your data")}</p>
    }
}

/// Step 8: CSR, P_risk and cwA.
pub fn risk() -> impl IntoView {
    view! {
        <p>"ECE averages; risk lives in the tail. The Calibrated Size Ratio charges each mistake 1/(1 − c), \
            so a wrong answer given with confidence 0.999 costs a thousand. Its expectation is 1 for a calibrated \
            model, and σ_CSR turns an excess above 1 into P_risk, the probability that the model is overconfident \
            beyond chance (a CSR at or below 1 carries no overconfidence risk: P_risk is 0). Confidence-weighted accuracy cwA is the complement: does confidence point at the right \
            answers? Below, one confident mistake hides behind an ECE smaller than 1/N."</p>
        {crate::labs::beyond::counterexample()}
        <p>{go("beyond-lab", "Open the beyond-ECE lab")}</p>
    }
}

/// A link-like button to another view of the page (the labs).
pub fn go(id: &'static str, text: &'static str) -> impl IntoView {
    let store = expect_context::<Store>();
    let target = View::from_id(id);
    view! {
        <button type="button" class="linklike" data-target=id disabled=target.is_none()
            on:click=move |_| if let Some(v) = target { store.view.set(v) }>{text}</button>
    }
}

/// Static MathML of the tour (our markup, never the user's).
pub fn math(markup: &'static str) -> impl IntoView {
    view! { <div class="math" tabindex="0" inner_html=markup></div> }
}

/// The tour's forecaster request.
pub fn forecaster(n: usize, m: usize, sharpness: f64, base_rate: bool, reps: usize) -> LabRequest {
    LabRequest::Forecaster {
        n,
        m,
        sharpness,
        base_rate,
        reps,
        seed: 2,
    }
}
