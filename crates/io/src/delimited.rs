//! Small delimited tables read whole: the header's delimiter from its names, and
//! the records one at a time (RFC 4180 quoting). Used by the readers that buffer
//! their table (verbalised confidence, multilabel), whose rows are read once at
//! the end.

use std::borrow::Cow;

use crate::mapping::norm;

/// The most fields a record may have.
pub(crate) const MAX_FIELDS: usize = 4096;

/// The delimiter (`,` tab `;` `|`) under which the first line's names (normalised)
/// satisfy `fits`.
pub(crate) fn header_delimiter(head: &[u8], fits: impl Fn(&[String]) -> bool) -> Option<u8> {
    let line = head.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end_matches('\r');
    [b',', b'\t', b';', b'|'].into_iter().find(|&delim| {
        let names: Vec<String> = line
            .split(delim as char)
            .map(|n| norm(n.trim_matches('"')))
            .collect();
        fits(&names)
    })
}

/// Calls `f(line, fields)` for each record of `text` in order, `line` the 1-based
/// line the record starts on (text that is not UTF-8 is read lossily); blank lines
/// are skipped. `Err(record)`: that record
/// (0-based, the header included) has more than [`MAX_FIELDS`] fields.
pub(crate) fn for_each_record(
    text: &[u8],
    delim: u8,
    mut f: impl FnMut(u64, &[Cow<'_, str>]),
) -> Result<(), usize> {
    let mut reader = csv_core::ReaderBuilder::new().delimiter(delim).build();
    let mut out = vec![0u8; text.len() + 1];
    let mut ends = vec![0usize; MAX_FIELDS];
    let mut pos = 0usize;
    // line breaks before `pos`
    let mut breaks = 0u64;
    let mut records = 0usize;
    // a record may take more than one call (the last one, ended by the end of the
    // input): each call writes after what the previous ones wrote
    let (mut nout, mut nend) = (0, 0);
    let mut start_line = 1;
    loop {
        if nout == 0 && nend == 0 {
            // blank lines before a record are no record
            while pos < text.len() && matches!(text[pos], b'\r' | b'\n') {
                breaks += u64::from(text[pos] == b'\n');
                pos += 1;
            }
            start_line = breaks + 1;
        }
        let (res, nin, o, e) =
            reader.read_record(&text[pos..], &mut out[nout..], &mut ends[nend..]);
        breaks += memchr::memchr_iter(b'\n', &text[pos..pos + nin]).count() as u64;
        pos += nin;
        nout += o;
        nend += e;
        match res {
            csv_core::ReadRecordResult::Record => {
                let mut start = 0;
                let fields: Vec<Cow<'_, str>> = ends[..nend]
                    .iter()
                    .map(|&e| {
                        let s = String::from_utf8_lossy(&out[start..e]);
                        start = e;
                        s
                    })
                    .collect();
                if !(fields.len() == 1 && fields[0].is_empty()) {
                    f(start_line, &fields);
                    records += 1;
                }
                (nout, nend) = (0, 0);
            }
            csv_core::ReadRecordResult::End => return Ok(()),
            csv_core::ReadRecordResult::InputEmpty => {}
            csv_core::ReadRecordResult::OutputFull | csv_core::ReadRecordResult::OutputEndsFull => {
                return Err(records)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_carry_their_starting_line_and_blank_lines_are_skipped() {
        let text = b"a,b\n1,\"x\ny\"\n\n2,3\r\n";
        let mut seen = Vec::new();
        for_each_record(text, b',', |line, fields| {
            seen.push((
                line,
                fields.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            ))
        })
        .unwrap();
        let want = |l: u64, f: &[&str]| (l, f.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            seen,
            vec![
                want(1, &["a", "b"]),
                want(2, &["1", "x\ny"]),
                want(5, &["2", "3"])
            ]
        );
    }

    #[test]
    fn a_record_with_too_many_fields_is_named() {
        let mut text = b"a\n".to_vec();
        text.extend(std::iter::repeat_n(b',', MAX_FIELDS + 1));
        assert_eq!(for_each_record(&text, b',', |_, _| {}), Err(1));
    }

    #[test]
    fn the_delimiter_is_the_one_under_which_the_names_fit() {
        let fits = |n: &[String]| n.len() == 2 && n[1] == "b";
        assert_eq!(header_delimiter(b"a;b\n1;2", fits), Some(b';'));
        assert_eq!(header_delimiter(b"a\tb", fits), Some(b'\t'));
        assert_eq!(header_delimiter(b"a b", fits), None);
    }
}
