//! Streaming CSV / TSV / semicolon-separated tables (csv-core's push model).

use csv_core::{ReadRecordResult, Reader, ReaderBuilder};

use crate::error::{Location, Sink};
use crate::mapping::{plan, Col};
use crate::num::parse_f64;
use crate::table::{rows_at_once, TableBuilder};
use crate::{Dataset, ErrorCode, Format, Options, ParseErrors};

#[cfg(not(target_family = "wasm"))]
pub(crate) mod parallel;
mod sniff;
use sniff::sniff_delimiter;
#[cfg(test)]
mod rows_at_once_tests;

/// A text table read as it arrives. Records without a quote (the common case) are
/// split in place with `memchr` and parsed straight from the input; a record holding
/// a `"` (and every record when the delimiter is a quote or a line break) goes
/// through csv-core. A record cut by a slice boundary waits in `carry`.
pub(crate) struct CsvStream {
    /// csv-core's reader, built when the first quoted record comes (see
    /// [`core_reader`]).
    rdr: Option<Reader>,
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
    /// Bytes consumed up to the end of the last record.
    consumed: u64,
    max_record: usize,
    max_cells: u64,
    size_hint: Option<u64>,
    options_mapping: crate::ColumnMapping,
    /// [`Options::unaligned_models`].
    unaligned_models: bool,
    /// Line number at the scan position (1-based, counting `\n`).
    line: u64,
    first_data_line: Option<u64>,
    irregular: bool,
    /// Whether unquoted records take the fast path (not with a `"`, `\r` or `\n`
    /// delimiter).
    fast: bool,
    /// Whether plain numeric rows may be parsed in place ([`TableBuilder::fast_row`]).
    numeric: bool,
    /// A quoted record is being read by csv-core: its first line, and the reader's
    /// line count when it started.
    core: Option<(u64, u64)>,
    /// The start of an unquoted record cut by the end of the previous slice (no
    /// quote, no line break), and its number of field bytes (without delimiters).
    carry: Vec<u8>,
    carry_out: usize,
    /// Field ends (relative to the record start, delimiters kept) of the fast path.
    fends: Vec<usize>,
    started: bool,
}

/// The reader in `slot`, built (for `delimiter`) on first use: building csv-core's
/// DFA costs ~20 µs, which every part of a parallel read paid although few files
/// hold a quote. (csv-core's `Reader::clone` does not copy the whole DFA, so a
/// built reader cannot be shared by cloning.) csv-core strips a BOM from its
/// first input; here a BOM is dealt with before (in `push`): a blank line marks
/// the reader as started.
fn core_reader(slot: &mut Option<Reader>, delimiter: u8) -> &mut Reader {
    slot.get_or_insert_with(|| {
        let mut rdr = ReaderBuilder::new().delimiter(delimiter).build();
        rdr.read_record(b"\n", &mut [0; 64], &mut [0; 4]);
        rdr
    })
}

enum Stop {
    /// Every byte was used.
    End,
    /// A record holding a quote starts here.
    Quote(usize),
    /// The unfinished last record starts here.
    Partial(usize),
    /// A fatal error.
    Failed,
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
        let out = vec![0; 64 * 1024];
        let ends = vec![0; 256];
        CsvStream {
            rdr: None,
            out,
            ends,
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
            max_cells: opts.max_cells,
            size_hint: opts.size_hint,
            options_mapping: opts.mapping.clone(),
            unaligned_models: opts.unaligned_models,
            line: 1,
            first_data_line: None,
            irregular: false,
            fast: !matches!(delimiter, b'"' | b'\r' | b'\n'),
            numeric: !delimiter.is_ascii_alphanumeric()
                && !matches!(delimiter, b'"' | b'\r' | b'\n' | b'.' | b'+' | b'-'),
            core: None,
            carry: Vec::new(),
            carry_out: 0,
            fends: Vec::with_capacity(64),
            started: false,
        }
    }

    pub fn failed(&self) -> bool {
        self.failed
    }

    fn fatal(&mut self, code: ErrorCode, loc: Location, msg: impl Into<String>) {
        self.sink.push(code, loc, msg);
        self.failed = true;
    }

    /// Output bytes (field text) of one record at which csv-core's buffer is at
    /// its limit: a record with more (or this many and another byte) is refused.
    fn record_limit(&self) -> usize {
        self.max_record.max(64 * 1024)
    }

    fn too_long(&mut self, line: u64) {
        self.fatal(
            ErrorCode::RecordTooLong,
            Location::default().with_line(Some(line)),
            format!(
                "a record longer than {} MiB (no line break found); is this really a CSV file?",
                self.max_record >> 20
            ),
        );
    }

    pub fn push(&mut self, mut input: &[u8]) {
        if self.failed || self.ended || input.is_empty() {
            return;
        }
        if !self.started {
            // as csv-core: a (second) BOM at the start of the first slice is dropped
            self.started = true;
            if input.len() >= 3 && input.starts_with(b"\xef\xbb\xbf") {
                input = &input[3..];
                self.consumed += 3;
            }
        }
        while !input.is_empty() && !self.failed {
            if self.core.is_some() {
                input = self.push_core(input);
                continue;
            }
            if !self.carry.is_empty() {
                // complete the record cut by the previous slice
                match memchr::memchr3(b'\n', b'\r', b'"', input) {
                    Some(i) if input[i] != b'"' => {
                        let mut carry = std::mem::take(&mut self.carry);
                        carry.extend_from_slice(&input[..=i]);
                        let base = self.consumed;
                        self.scan(&carry, base);
                        carry.clear();
                        self.carry = carry;
                        self.carry_out = 0;
                        input = &input[i + 1..];
                    }
                    Some(_) => {
                        // a quote: csv-core reads the record from its start
                        let mut carry = std::mem::take(&mut self.carry);
                        self.carry_out = 0;
                        self.core =
                            Some((self.line, core_reader(&mut self.rdr, self.delimiter).line()));
                        let rest = self.push_core(&carry);
                        debug_assert!(rest.is_empty() || self.failed);
                        carry.clear();
                        self.carry = carry;
                    }
                    None => {
                        self.extend_carry(input);
                        return;
                    }
                }
                continue;
            }
            let base = self.consumed;
            match self.scan(input, base) {
                Stop::End | Stop::Failed => return,
                Stop::Partial(start) => {
                    self.consumed = base + start as u64;
                    self.extend_carry(&input[start..]);
                    return;
                }
                Stop::Quote(start) => {
                    self.consumed = base + start as u64;
                    self.core =
                        Some((self.line, core_reader(&mut self.rdr, self.delimiter).line()));
                    input = &input[start..];
                }
            }
        }
    }

    /// Keeps the start of an unfinished record (no quote, no line break); it is
    /// refused as soon as it is known to be too long.
    fn extend_carry(&mut self, bytes: &[u8]) {
        let d = self.delimiter;
        self.carry.extend_from_slice(bytes);
        self.carry_out += bytes.len() - memchr::memchr_iter(d, bytes).count();
        let out = self.carry_out;
        let limit = self.record_limit();
        if out > limit || (out == limit && self.carry.last() == Some(&d)) {
            let line = self.line;
            self.too_long(line);
        }
    }

    /// Reads unquoted records from `data` (whose first byte is at stream offset
    /// `base`, at a record boundary) until a quote, the end of `data` or an error.
    fn scan(&mut self, data: &[u8], base: u64) -> Stop {
        let d = self.delimiter;
        let n = data.len();
        let quote = memchr::memchr(b'"', data).unwrap_or(usize::MAX);
        let limit = self.record_limit();
        let mut fends = std::mem::take(&mut self.fends);
        let mut pos = 0;
        let stop = 'records: loop {
            // blank lines (and the `\n` of a CRLF) between records
            while pos < n {
                match data[pos] {
                    b'\n' => self.line += 1,
                    b'\r' => {}
                    _ => break,
                }
                pos += 1;
            }
            if pos == n {
                break Stop::End;
            }
            let start = pos;
            if !self.fast {
                break Stop::Quote(start);
            }
            if let Some(t) = &mut self.table {
                if t.fast && self.numeric {
                    if let (Some(first), true) =
                        (self.first_data_line, t.rows > 1024 && rows_at_once())
                    {
                        // many rows at once, past the row at which the columns are
                        // reserved and within the cell limit: what `after_row` does
                        // for each of them, done once (they are consecutive lines)
                        let max_rows = crate::limits::rows_within(t.width() as u64, self.max_cells)
                            .saturating_sub(t.rows);
                        let before = t.rows;
                        let (rows, used) =
                            t.fast_rows(&data[start..quote.min(n)], d, limit, max_rows);
                        if rows > 0 {
                            self.irregular |= self.line != first + before;
                            self.line += rows;
                            pos = start + used;
                            // (as row by row: a record ends after its `\r`, the `\n`
                            // of a CRLF is a blank line's)
                            let crlf = data[pos - 2] == b'\r';
                            self.consumed = base + (pos - crlf as usize) as u64;
                            continue;
                        }
                    }
                    let before = t.rows;
                    if let Some(len) = t.fast_row(&data[start..quote.min(n)], d) {
                        let end = start + len;
                        if len < limit {
                            pos = end + 1;
                            self.consumed = base + pos as u64;
                            let line = self.line;
                            self.after_row(before, line);
                            if data[end] == b'\n' {
                                self.line += 1;
                            }
                            continue;
                        }
                        // too long (the general path says so): undo
                        t.undo_row();
                    }
                }
            }
            fends.clear();
            let end = loop {
                match memchr::memchr3(d, b'\n', b'\r', &data[pos..]) {
                    Some(i) => {
                        let at = pos + i;
                        fends.push(at - start);
                        pos = at + 1;
                        if data[at] != d {
                            break at;
                        }
                    }
                    None if quote < n => break 'records Stop::Quote(start),
                    None => break 'records Stop::Partial(start),
                }
            };
            if quote < end {
                // the record holds a quote (`quote` >= `start`: records before
                // it ended before it)
                break Stop::Quote(start);
            }
            if (end - start) - (fends.len() - 1) >= limit {
                let line = self.line;
                self.too_long(line);
                break Stop::Failed;
            }
            self.consumed = base + pos as u64;
            let line = self.line;
            self.record(&data[start..end], &fends, 1, line);
            if data[end] == b'\n' {
                self.line += 1;
            }
            if self.failed {
                break Stop::Failed;
            }
        };
        self.fends = fends;
        stop
    }

    /// Feeds csv-core (reading one quoted record); returns the input after it.
    fn push_core<'a>(&mut self, mut input: &'a [u8]) -> &'a [u8] {
        let Some((line, rdr_line)) = self.core else {
            return input;
        };
        loop {
            // csv-core reads an empty input as the end of the file: never pass one here
            if input.is_empty() {
                return input;
            }
            let (res, nin, nout, nend) = core_reader(&mut self.rdr, self.delimiter).read_record(
                input,
                &mut self.out[self.outlen..],
                &mut self.ends[self.endlen..],
            );
            input = &input[nin..];
            self.consumed += nin as u64;
            self.outlen += nout;
            self.endlen += nend;
            match res {
                ReadRecordResult::InputEmpty | ReadRecordResult::End => {}
                ReadRecordResult::OutputFull => {
                    if self.out.len() >= self.max_record {
                        self.too_long(line);
                        return &[];
                    }
                    let n = (self.out.len() * 2).min(self.max_record);
                    self.out.resize(n, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    let n = self.ends.len() * 2;
                    self.ends.resize(n, 0);
                }
                ReadRecordResult::Record => {
                    self.core_record(line, rdr_line);
                    return input;
                }
            }
        }
    }

    /// csv-core has a record: hand it on and go back to the fast path.
    fn core_record(&mut self, line: u64, rdr_line: u64) {
        let out = std::mem::take(&mut self.out);
        let ends = std::mem::take(&mut self.ends);
        self.record(&out[..self.outlen], &ends[..self.endlen], 0, line);
        self.out = out;
        self.ends = ends;
        self.outlen = 0;
        self.endlen = 0;
        self.line = line + (core_reader(&mut self.rdr, self.delimiter).line() - rdr_line);
        self.core = None;
    }

    /// Row bookkeeping after a record (`before`: the row count before it).
    #[inline]
    fn after_row(&mut self, before: u64, line: u64) {
        if self.failed {
            return;
        }
        let Some(t) = &mut self.table else {
            return;
        };
        if t.rows == before {
            return;
        }
        match self.first_data_line {
            None => self.first_data_line = Some(line),
            Some(first) => {
                if line != first + before {
                    self.irregular = true;
                }
            }
        }
        let width = t.width() as u64;
        let mut over =
            crate::limits::over(t.rows, width, self.max_cells).then_some((t.rows, false));
        // the columns are reserved from an estimate of the rows to come: at row
        // 1024, or before it once 64 Ki cells are read (a table of 10,000 classes
        // may have fewer than 1024 rows); a file too large for the cell limit is
        // refused from the estimate at row 1024 only
        let cells = |rows: u64| crate::limits::cells(rows, width);
        let early = t.rows < 1024 && cells(t.rows) >= 1 << 16 && cells(t.rows - 1) < 1 << 16;
        if (t.rows == 1024 || early) && over.is_none() {
            if let Some(total) = self.size_hint {
                let per_row = (self.consumed as f64 / (t.rows + 1) as f64).max(1.0);
                let rows = (total.saturating_sub(self.consumed) as f64 / per_row * 1.02) as u64;
                // refused from the estimate (without the reserve's 2% margin),
                // before the columns are reserved
                let estimate = t.rows + (rows as f64 / 1.02) as u64;
                if !crate::limits::over(estimate, width, self.max_cells) {
                    t.reserve_rows(rows + 64);
                } else if !early {
                    over = Some((estimate, true));
                }
            }
        }
        if let Some((rows, estimated)) = over {
            let message = crate::limits::too_many_cells(
                rows.saturating_mul(width.max(1)),
                self.max_cells,
                estimated,
            );
            self.fatal(
                ErrorCode::TooManyCells,
                Location::default().with_line(Some(line)),
                message,
            );
        }
    }

    /// One record (fields `buf[ends[i-1] + gap..ends[i]]`) that starts on `line`.
    fn record(&mut self, buf: &[u8], ends: &[usize], gap: usize, line: u64) {
        if let Some(t) = &mut self.table {
            let before = t.rows;
            t.record(buf, ends, gap, Some(line), &mut self.sink);
            self.after_row(before, line);
            return;
        }
        let line = Some(line);
        // the header
        let mut names = Vec::with_capacity(ends.len());
        let mut start = 0;
        for &e in ends {
            let f = &buf[start..e];
            start = e + gap;
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
                p.unaligned_models = self.unaligned_models;
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
                self.sink
                    .push_plan_errors(&cols, errs, Location::default().with_line(line));
                self.failed = true;
            }
        }
    }

    pub fn finish(mut self) -> Result<Dataset, ParseErrors> {
        self.end_input();
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

    /// The end of the input: the last record (no line break at the end).
    pub(crate) fn end_input(&mut self) {
        if !self.failed && !self.ended {
            if self.core.is_some() {
                while self.core.is_some() && !self.failed {
                    self.push_end();
                }
            } else if !self.carry.is_empty() {
                let carry = std::mem::take(&mut self.carry);
                let d = self.delimiter;
                let (out, limit) = (self.carry_out, self.record_limit());
                if out > limit || (out == limit && carry.last() == Some(&d)) {
                    let line = self.line;
                    self.too_long(line);
                } else {
                    let mut fends = std::mem::take(&mut self.fends);
                    fends.clear();
                    fends.extend(memchr::memchr_iter(d, &carry));
                    fends.push(carry.len());
                    self.consumed += carry.len() as u64;
                    let line = self.line;
                    self.record(&carry, &fends, 1, line);
                }
            }
            self.ended = true;
        }
    }

    /// The end of the input while csv-core reads a record.
    fn push_end(&mut self) {
        let Some((line, rdr_line)) = self.core else {
            return;
        };
        let (res, _, nout, nend) = core_reader(&mut self.rdr, self.delimiter).read_record(
            &[],
            &mut self.out[self.outlen..],
            &mut self.ends[self.endlen..],
        );
        self.outlen += nout;
        self.endlen += nend;
        match res {
            ReadRecordResult::Record => self.core_record(line, rdr_line),
            ReadRecordResult::End => self.core = None,
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
