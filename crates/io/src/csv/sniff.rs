//! The delimiter of a text table, chosen from its header line, with the reason
//! (which the parse result reports as its guess).

/// Chooses the delimiter from the header line: the most frequent of `,` `\t` `;` `|`
/// outside quotes (`,` when none occurs).
pub(super) fn sniff_delimiter(head: &[u8]) -> (u8, String) {
    let line_end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    let line = &head[..line_end];
    let mut counts = [0usize; 4];
    let cands = [b',', b'\t', b';', b'|'];
    let mut quoted = false;
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted {
            if let Some(i) = cands.iter().position(|&c| c == b) {
                counts[i] += 1;
            }
        }
    }
    let best = (0..4).max_by_key(|&i| (counts[i], 4 - i)).unwrap_or(0);
    if counts[best] == 0 {
        return (
            b',',
            "no delimiter in the header line; read as one column".into(),
        );
    }
    let name = match cands[best] {
        b',' => "comma",
        b'\t' => "tab",
        b';' => "semicolon",
        _ => "pipe",
    };
    let others: Vec<String> = (0..4)
        .filter(|&i| i != best && counts[i] > 0)
        .map(|i| format!("{} × {:?}", counts[i], cands[i] as char))
        .collect();
    let why = if others.is_empty() {
        format!("the header line has {} {name}s", counts[best])
    } else {
        format!(
            "the header line has {} {name}s (and {}); the most frequent was taken",
            counts[best],
            others.join(", ")
        )
    };
    (cands[best], why)
}
