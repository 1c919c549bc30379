//! Streaming CSV / TSV / semicolon-separated tables (csv-core's push model).

use csv_core::{ReadRecordResult, Reader, ReaderBuilder};

use crate::error::{Location, Sink};
use crate::mapping::{plan, Col};
use crate::num::parse_f64;
use crate::table::TableBuilder;
use crate::{Dataset, ErrorCode, Format, Options, ParseErrors};

/// Chooses the delimiter from the header line: the most frequent of `,` `\t` `;` `|`
/// outside quotes (`,` when none occurs).
pub(crate) fn sniff_delimiter(head: &[u8]) -> (u8, String) {
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

pub(crate) struct CsvStream {
    rdr: Reader,
    out: Vec<u8>,
    ends: Vec<usize>,
    outlen: usize,
    endlen: usize,
    delimiter: u8,
    delim_why: Option<String>,
    table: Option<TableBuilder>,
    pub sink: Sink,
    failed: bool,
    ended: bool,
    consumed: u64,
    max_record: usize,
    size_hint: Option<u64>,
    options_mapping: crate::ColumnMapping,
    record_line: u64,
    first_data_line: Option<u64>,
    irregular: bool,
}

impl CsvStream {
    pub fn new(file: &str, opts: &Options, head: &[u8]) -> Self {
        let (delimiter, why) = match opts.mapping.delimiter {
            Some(d) => (d, None),
            None => {
                let (d, why) = sniff_delimiter(head);
                (d, Some(why))
            }
        };
        let rdr = ReaderBuilder::new().delimiter(delimiter).build();
        CsvStream {
            rdr,
            out: vec![0; 64 * 1024],
            ends: vec![0; 256],
            outlen: 0,
            endlen: 0,
            delimiter,
            delim_why: why,
            table: None,
            sink: Sink::new(file, opts.max_errors),
            failed: false,
            ended: false,
            consumed: 0,
            max_record: opts.max_record_bytes,
            size_hint: opts.size_hint,
            options_mapping: opts.mapping.clone(),
            record_line: 1,
            first_data_line: None,
            irregular: false,
        }
    }

    pub fn failed(&self) -> bool {
        self.failed
    }

    fn fatal(&mut self, code: ErrorCode, loc: Location, msg: impl Into<String>) {
        self.sink.push(code, loc, msg);
        self.failed = true;
    }

    pub fn push(&mut self, mut input: &[u8]) {
        if self.failed || self.ended {
            return;
        }
        loop {
            // csv-core reads an empty input as the end of the file: never pass one here
            if input.is_empty() {
                return;
            }
            let (res, nin, nout, nend) = self.rdr.read_record(
                input,
                &mut self.out[self.outlen..],
                &mut self.ends[self.endlen..],
            );
            input = &input[nin..];
            self.consumed += nin as u64;
            self.outlen += nout;
            self.endlen += nend;
            match res {
                ReadRecordResult::InputEmpty => {
                    if input.is_empty() {
                        return;
                    }
                }
                ReadRecordResult::OutputFull => {
                    if self.out.len() >= self.max_record {
                        let line = self.record_line;
                        self.fatal(
                            ErrorCode::RecordTooLong,
                            Location::default().with_line(Some(line)),
                            format!(
                                "a record longer than {} MiB (no line break found); is this really a CSV file?",
                                self.max_record >> 20
                            ),
                        );
                        return;
                    }
                    let n = (self.out.len() * 2).min(self.max_record);
                    self.out.resize(n, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    let n = self.ends.len() * 2;
                    self.ends.resize(n, 0);
                }
                ReadRecordResult::Record => {
                    self.record();
                    self.outlen = 0;
                    self.endlen = 0;
                    self.next_record_line();
                    if self.failed {
                        return;
                    }
                }
                ReadRecordResult::End => {
                    self.ended = true;
                    return;
                }
            }
        }
    }

    /// After a record: the next one starts on the reader's current line. Records that
    /// span lines (quoted newlines) or skipped blank lines make row → line irregular.
    fn next_record_line(&mut self) {
        let next = self.rdr.line();
        if next != self.record_line + 1 && self.table.as_ref().is_some_and(|t| t.rows > 0) {
            self.irregular = true;
        }
        if self.table.is_some() && self.first_data_line.is_none() {
            self.first_data_line = Some(next);
        }
        self.record_line = next;
    }

    fn record(&mut self) {
        let buf = &self.out[..self.outlen];
        let ends = &self.ends[..self.endlen];
        let line = Some(self.record_line);
        if let Some(t) = &mut self.table {
            t.record(buf, ends, line, &mut self.sink);
            if t.rows == 1024 {
                if let Some(total) = self.size_hint {
                    let per_row = (self.consumed as f64 / 1025.0).max(1.0);
                    let rows = (total.saturating_sub(self.consumed) as f64 / per_row * 1.02) as u64;
                    t.reserve_rows(rows + 64);
                }
            }
            return;
        }
        // the header
        let mut names = Vec::with_capacity(ends.len());
        let mut start = 0;
        for &e in ends {
            let f = &buf[start..e];
            start = e;
            match std::str::from_utf8(f) {
                Ok(s) => names.push(s.trim().to_string()),
                Err(_) => {
                    self.fatal(
                        ErrorCode::NotUtf8,
                        Location::default().with_line(line),
                        "the header is not valid UTF-8 text; save the file as UTF-8",
                    );
                    return;
                }
            }
        }
        if names.iter().all(|n| n.is_empty()) {
            // blank line before the header
            return;
        }
        if names.len() >= 2
            && names
                .iter()
                .all(|n| !n.is_empty() && parse_f64(n.as_bytes()).is_some_and(|v| !v.is_nan()))
        {
            self.fatal(
                ErrorCode::NoHeader,
                Location::default().with_line(line),
                format!(
                    "the first line ({}) looks like data; add a header row such as label,p_0,p_1,... or label,p",
                    names.join(",").chars().take(60).collect::<String>()
                ),
            );
            return;
        }
        let cols: Vec<Col> = names
            .into_iter()
            .map(|name| Col { name, width: 1 })
            .collect();
        match plan(&cols, &self.options_mapping) {
            Ok(mut p) => {
                p.detection.mapping.delimiter = Some(self.delimiter);
                if let Some(why) = self.delim_why.take() {
                    if self.delimiter != b',' || why.contains("and") {
                        p.detection.guess(
                            "delimiter",
                            format!("{:?}", self.delimiter as char),
                            why,
                        );
                    }
                }
                self.table = Some(TableBuilder::new(cols, p));
            }
            Err(errs) => {
                for e in errs {
                    let mut loc = Location::default().with_line(line);
                    loc.column = e.column;
                    self.sink.push(e.code, loc, e.message);
                }
                self.failed = true;
            }
        }
    }

    pub fn finish(mut self) -> Result<Dataset, ParseErrors> {
        if !self.failed {
            // flush the last record (no trailing newline)
            while !self.ended && !self.failed {
                self.push_end();
            }
        }
        if self.failed {
            return Err(self.sink.into_errors(None));
        }
        let file = self.sink.file.clone();
        match self.table.take() {
            None => {
                self.sink.push(
                    ErrorCode::EmptyFile,
                    Location::default(),
                    "the file is empty: expected a header row and data rows",
                );
                Err(self.sink.into_errors(None))
            }
            Some(t) => {
                let format = if t.plan.model.is_some() {
                    Format::CsvLong
                } else {
                    Format::Csv
                };
                let base = if self.irregular {
                    None
                } else {
                    self.first_data_line
                };
                t.finish(&file, format, self.sink, base)
            }
        }
    }

    fn push_end(&mut self) {
        let (res, _, nout, nend) = self.rdr.read_record(
            &[],
            &mut self.out[self.outlen..],
            &mut self.ends[self.endlen..],
        );
        self.outlen += nout;
        self.endlen += nend;
        match res {
            ReadRecordResult::Record => {
                self.record();
                self.outlen = 0;
                self.endlen = 0;
                self.next_record_line();
            }
            ReadRecordResult::End => self.ended = true,
            ReadRecordResult::OutputFull => {
                let n = (self.out.len() * 2).min(self.max_record.max(self.out.len() + 1));
                self.out.resize(n, 0);
            }
            ReadRecordResult::OutputEndsFull => {
                let n = self.ends.len() * 2;
                self.ends.resize(n, 0);
            }
            ReadRecordResult::InputEmpty => {}
        }
    }
}
