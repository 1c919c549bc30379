//! The hooks the page exposes on `window` for tests and users' scripts:
//! `calibscopeIdle()` resolves once no worker request, fetch or worker start is
//! pending for two animation frames in a row (so a test waits without sleeps), and
//! `calibscopeDebugPanic()` / `calibscopeDebugOutOfMemory()` make the worker fail on
//! purpose (the crash-recovery tests).

use js_sys::{Function, Promise, Reflect};
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::client::Client;

fn wait_idle(client: Client, resolve: Function, quiet: u32) {
    request_animation_frame(move || {
        if client.idle_now() {
            if quiet >= 1 {
                let _ = resolve.call0(&JsValue::NULL);
            } else {
                wait_idle(client, resolve, quiet + 1);
            }
        } else {
            wait_idle(client, resolve, 0);
        }
    });
}

/// Installs `window.calibscopeIdle()` and the debug hooks the crash tests call.
pub(crate) fn install_hooks(client: Client) {
    let hook = Closure::<dyn Fn() -> Promise>::new(move || {
        Promise::new(&mut |resolve, _reject| wait_idle(client, resolve, 0))
    });
    expose("calibscopeIdle", hook.as_ref());
    hook.forget();
    for (name, f) in [
        ("calibscopeDebugPanic", Client::debug_panic as fn(Client)),
        ("calibscopeDebugOutOfMemory", Client::debug_out_of_memory),
    ] {
        let hook = Closure::<dyn Fn()>::new(move || f(client));
        expose(name, hook.as_ref());
        hook.forget();
    }
}

/// Sets `window[name]` to a function (the hooks tests and scripts call).
fn expose(name: &str, function: &JsValue) {
    let _ = Reflect::set(&window(), &name.into(), function.unchecked_ref());
}
