//! CSV fields, written once for every CSV calibscope writes (RFC 4180).
//!
//! Two kinds of text cell:
//! - [`field`]: data meant to be read back (ids, class names of the recalibrated
//!   predictions): only quoted, never altered;
//! - [`label`]: names shown in tables for people (model, class and column names,
//!   number paths): quoted, and a cell a spreadsheet would run as a formula (text
//!   starting with `=`, `+`, `-`, `@`, a tab or a carriage return that is not a
//!   number) gets a leading `'`, so opening the export cannot execute a name
//!   (OWASP "CSV injection").

/// `s` as a CSV field: in double quotes (inner quotes doubled) when it holds a
/// comma, a quote, a newline or a carriage return; as it is otherwise.
///
/// ```
/// use calibscope_audit::csv::field;
/// assert_eq!(field("cat"), "cat");
/// assert_eq!(field("a,b"), "\"a,b\"");
/// assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
/// assert_eq!(field("=1+2"), "=1+2");
/// ```
pub fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// `s` as a CSV field of a table for people: [`field`], after a leading `'` when
/// a spreadsheet would read `s` as a formula. Numbers (`-1`, `+0.5`) stay as they
/// are.
///
/// ```
/// use calibscope_audit::csv::label;
/// assert_eq!(label("resnet-50"), "resnet-50");
/// assert_eq!(label("-1"), "-1");
/// assert_eq!(label("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
/// assert_eq!(label("@SUM(A1)"), "'@SUM(A1)");
/// assert_eq!(label("-2+3+cmd|' /C calc'!A0"), "'-2+3+cmd|' /C calc'!A0");
/// ```
pub fn label(s: &str) -> String {
    let formula =
        s.starts_with(['=', '+', '-', '@', '\t', '\r']) && s.trim().parse::<f64>().is_err();
    if formula {
        field(&format!("'{s}"))
    } else {
        field(s)
    }
}
