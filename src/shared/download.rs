//! Saving files made in the page: a Blob offered through an object URL (the PNG of
//! an SVG by drawing it into a canvas). Nothing leaves the origin.

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
    // revoked a minute later, once the browser has surely taken the file: a URL
    // revoked while a download still reads it can fail that download
    let revoke = Closure::once_into_js(move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    });
    window()
        .set_timeout_with_callback_and_timeout_and_arguments_0(revoke.unchecked_ref(), 60_000)?;
    Ok(())
}

/// Offers `text` as a download called `name` of type `mime`.
pub fn save_text(name: &str, mime: &str, text: &str) -> Result<(), JsValue> {
    let parts = js_sys::Array::of1(&JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options)?;
    download_blob(&blob, name)
}

/// [`save_text`], a failure logged to the console.
pub fn download_text(name: &str, mime: &str, text: &str) {
    if let Err(e) = save_text(name, mime, text) {
        web_sys::console::warn_1(&e);
    }
}

/// Offers `bytes` as a download called `name` of type `mime`.
pub fn save_bytes(name: &str, mime: &str, bytes: &[u8]) -> Result<(), JsValue> {
    let array = js_sys::Uint8Array::from(bytes);
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(
        &js_sys::Array::of1(&array),
        &options,
    )?;
    download_blob(&blob, name)
}

/// The PNG of `svg` (of size `w × h`), drawn into a canvas at twice its size on a
/// white ground.
pub async fn png_blob(svg: &str, w: u32, h: u32) -> Result<web_sys::Blob, JsValue> {
    let img = web_sys::HtmlImageElement::new()?;
    let canvas: web_sys::HtmlCanvasElement = document().create_element("canvas")?.unchecked_into();
    canvas.set_width(2 * w);
    canvas.set_height(2 * h);
    let img2 = img.clone();
    let promise = js_sys::Promise::new(&mut |resolve, reject| {
        let canvas = canvas.clone();
        let img2 = img2.clone();
        let fail = reject.clone();
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
                canvas.to_blob(resolve.unchecked_ref())
            })();
            if let Err(e) = drawn {
                let _ = reject.call1(&JsValue::NULL, &e);
            }
        });
        let onerror = Closure::once_into_js(move || {
            let _ = fail.call1(
                &JsValue::NULL,
                &JsValue::from_str("the chart could not be drawn"),
            );
        });
        img.set_onload(Some(onload.unchecked_ref()));
        img.set_onerror(Some(onerror.unchecked_ref()));
    });
    let encoded = js_sys::encode_uri_component(svg);
    img.set_src(&format!(
        "data:image/svg+xml;charset=utf-8,{}",
        String::from(encoded)
    ));
    let blob = wasm_bindgen_futures::JsFuture::from(promise).await?;
    blob.dyn_into::<web_sys::Blob>()
        .map_err(|_| JsValue::from_str("the canvas made no PNG"))
}

/// The bytes of `blob`.
pub async fn blob_bytes(blob: &web_sys::Blob) -> Result<Vec<u8>, JsValue> {
    let buffer = wasm_bindgen_futures::JsFuture::from(blob.array_buffer()).await?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Offers the PNG of `svg` (of size `w × h`, drawn at twice its size) as a download.
pub fn download_png(name: &str, svg: &str, w: u32, h: u32) {
    let (name, svg) = (name.to_string(), svg.to_string());
    wasm_bindgen_futures::spawn_local(async move {
        let saved = match png_blob(&svg, w, h).await {
            Ok(blob) => download_blob(&blob, &name),
            Err(e) => Err(e),
        };
        if let Err(e) = saved {
            web_sys::console::warn_1(&e);
        }
    });
}
