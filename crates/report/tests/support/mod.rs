//! Helpers of the report tests: reading the numbers of a report back, CSV lines.
#![allow(dead_code)]

use serde_json::Value;

/// `/work/shared` (or `$CALIBSCOPE_SHARED`).
#[allow(unused_imports)]
pub use calibscope_test_support::shared;

/// HTML attribute text back to text.
pub fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every `(data-metric, data-value)` of a report, the value parsed as JSON.
pub fn numbers(html: &str) -> Vec<(String, Value)> {
    html.split("data-metric=\"")
        .skip(1)
        .map(|piece| {
            let path = unescape(&piece[..piece.find('"').unwrap()]);
            let rest = &piece[piece.find("data-value=\"").unwrap() + 12..];
            let value = unescape(&rest[..rest.find('"').unwrap()]);
            let value = serde_json::from_str(&value)
                .unwrap_or_else(|e| panic!("{path}: data-value {value:?}: {e}"));
            (path, value)
        })
        .collect()
}

/// A CSV line split on commas outside quotes (enough for these files).
pub fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                out.last_mut().unwrap().push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(String::new()),
            c => out.last_mut().unwrap().push(c),
        }
    }
    out
}

/// A CSV cell as JSON (empty: null).
pub fn cell(s: &str) -> Value {
    if s.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }
}
