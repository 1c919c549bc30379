//! Exports of the ranking-flips view: the ranking table and the Spearman matrices as
//! CSV, the chart as SVG or PNG. Files are made in the page (Blob + object URL, the
//! PNG by drawing the SVG into a canvas): nothing leaves the origin.

use crate::flips::{FlipsMatrices, FlipsRanking};
use crate::numfmt::data_value;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Offers `blob` as a download called `name`.
fn download_blob(blob: &web_sys::Blob, name: &str) -> Result<(), JsValue> {
    let url = web_sys::Url::create_object_url_with_blob(blob)?;
    let a: web_sys::HtmlAnchorElement = document().create_element("a")?.unchecked_into();
    a.set_href(&url);
    a.set_download(name);
    document().body().ok_or("no body")?.append_child(&a)?;
    a.click();
    a.remove();
    // the download has started from the URL; it can go after this task
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    window().set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 1000)?;
    Ok(())
}

/// Offers `text` as a download called `name` of type `mime`.
pub fn download_text(name: &str, mime: &str, text: &str) {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let result = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)
        .and_then(|blob| download_blob(&blob, name));
    if let Err(e) = result {
        web_sys::console::warn_1(&e);
    }
}

/// Draws `svg` (of size `w × h`) into a canvas at twice its size and offers it as a
/// PNG download.
pub fn download_png(name: &str, svg: &str, w: u32, h: u32) {
    let result = (|| -> Result<(), JsValue> {
        let img = web_sys::HtmlImageElement::new()?;
        let canvas: web_sys::HtmlCanvasElement =
            document().create_element("canvas")?.unchecked_into();
        canvas.set_width(2 * w);
        canvas.set_height(2 * h);
        let name = name.to_string();
        let img2 = img.clone();
        let onload = Closure::once_into_js(move || {
            let drawn = (|| -> Result<(), JsValue> {
                let ctx: web_sys::CanvasRenderingContext2d = canvas
                    .get_context("2d")?
                    .ok_or("no 2d context")?
                    .unchecked_into();
                ctx.set_fill_style_str("#ffffff");
                ctx.fill_rect(0.0, 0.0, 2.0 * w as f64, 2.0 * h as f64);
                ctx.draw_image_with_html_image_element_and_dw_and_dh(
                    &img2,
                    0.0,
                    0.0,
                    2.0 * w as f64,
                    2.0 * h as f64,
                )?;
                let save = Closure::once_into_js(move |blob: Option<web_sys::Blob>| {
                    if let Some(blob) = blob {
                        let _ = download_blob(&blob, &name);
                    }
                });
                canvas.to_blob(save.unchecked_ref())
            })();
            if let Err(e) = drawn {
                web_sys::console::warn_1(&e);
            }
        });
        img.set_onload(Some(onload.unchecked_ref()));
        let encoded = js_sys::encode_uri_component(svg);
        img.set_src(&format!(
            "data:image/svg+xml;charset=utf-8,{}",
            String::from(encoded)
        ));
        Ok(())
    })();
    if let Err(e) = result {
        web_sys::console::warn_1(&e);
    }
}

use calibscope_audit::csv;

/// The ranking table as CSV: one row per model.
pub fn ranking_csv(r: &FlipsRanking, names: &[String]) -> String {
    let mut out = format!(
        "model,rank_m{m},value_m{m},rank_m{mr},value_m{mr},rank_change,flipped\n",
        m = r.m,
        mr = r.m_ref
    );
    for (i, name) in names.iter().enumerate() {
        let flipped = r.flip_pairs.iter().any(|&(a, b)| a == i || b == i);
        let rank = |v: &[f64]| data_value(v.get(i).copied());
        let value = |v: &[Option<f64>]| data_value(v.get(i).copied().flatten());
        out.push_str(&format!(
            "{},{},{},{},{},{},{}\n",
            csv::label(name),
            rank(&r.ranks),
            value(&r.values),
            rank(&r.ranks_ref),
            value(&r.values_ref),
            rank(&r.rank_change),
            flipped
        ));
    }
    out
}

/// Every metric's Spearman and flip matrix as CSV (long form: one row per pair of
/// bin counts), then each metric's Spearman against the classification error.
pub fn matrices_csv(x: &FlipsMatrices) -> String {
    let mut out = String::from("metric,binning,m_a,m_b,spearman,flips\n");
    for mm in &x.metrics {
        for (a, ma) in x.bins.iter().enumerate() {
            for (b, mb) in x.bins.iter().enumerate() {
                let rho = mm.spearman.get(a).and_then(|r| r.get(b)).copied().flatten();
                let flips = mm
                    .flips
                    .get(a)
                    .and_then(|r| r.get(b))
                    .map_or(String::new(), |f| f.to_string());
                out.push_str(&format!(
                    "{},{},{ma},{mb},{},{flips}\n",
                    mm.metric,
                    x.binning,
                    data_value(rho)
                ));
            }
        }
    }
    out.push_str("\nmetric,binning,m,spearman_vs_error\n");
    for mm in &x.metrics {
        for (j, m) in x.bins.iter().enumerate() {
            let v = mm.spearman_vs_error.get(j).copied().flatten();
            out.push_str(&format!(
                "{},{},{m},{}\n",
                mm.metric,
                x.binning,
                data_value(v)
            ));
        }
    }
    out
}
