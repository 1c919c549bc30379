//! The theme control in the header: System (follow the browser), Light or Dark. The
//! choice is `Share::theme` (so links carry it and restore it) and is applied as
//! `data-theme` on `<html>`, which style/app.css reads: its colours (and the charts',
//! restyled through the same CSS variables) follow the chosen color-scheme.

use calibscope_share::Theme;
use leptos::prelude::*;

use crate::sharing::Share;

const CHOICES: [(Theme, &str, &str); 3] = [
    (Theme::System, "system", "System"),
    (Theme::Light, "light", "Light"),
    (Theme::Dark, "dark", "Dark"),
];

/// Sets `data-theme` on `<html>` (removed for System).
fn apply(theme: Theme) {
    let Some(root) = document().document_element() else {
        return;
    };
    let _ = match CHOICES.iter().find(|c| c.0 == theme) {
        Some((Theme::System, ..)) | None => root.remove_attribute("data-theme"),
        Some((_, value, _)) => root.set_attribute("data-theme", value),
    };
}

/// The labelled theme `<select>` (keyboard: Tab to it, arrows to choose).
#[component]
pub fn ThemeControl() -> impl IntoView {
    let sh = expect_context::<Share>();
    Effect::new(move |_| apply(sh.theme.get()));
    let options = CHOICES
        .iter()
        .map(|&(theme, value, label)| {
            view! { <option value=value selected=move || sh.theme.get() == theme>{label}</option> }
        })
        .collect_view();
    let on_change = move |ev| {
        let value = event_target_value(&ev);
        if let Some((theme, ..)) = CHOICES.iter().find(|c| c.1 == value) {
            sh.theme.set(*theme);
        }
    };
    view! {
        <div class="theme">
            <label for="theme">"Theme"</label>
            <select id="theme" on:change=on_change
                prop:value=move || CHOICES.iter().find(|c| c.0 == sh.theme.get()).map_or("system", |c| c.1)>
                {options}
            </select>
        </div>
    }
}
