//! Parallel reading of a large CSV file (native only): the header and the plan come
//! from the head of the file as in the serial read; the rest is cut at line breaks
//! into parts that threads read on their own, each with its own [`CsvStream`] on
//! the same plan; the parts are then appended in order.
//!
//! A part is read speculatively: its first byte is taken to start a record. The
//! read of the parts before it says whether it did (their stream ends outside a
//! quoted field, with no record pending). When it did not (a line break inside a
//! quoted field), or when the part's table cannot be appended exactly
//! ([`TableBuilder::can_absorb`]), the part is read again, serially, after the
//! previous one. So the result is the serial read's: the same dataset, the same
//! errors in the same order with the same rows and lines, the same limit of
//! [`crate::Options::max_errors`].

use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::CsvStream;
use crate::error::ParseError;
use crate::{Options, Parser, State};

/// Files from this size up are read in parallel (when more than one thread is
/// available).
pub(crate) const MIN_BYTES: u64 = 8 << 20;
/// Bytes per part: more parts than threads keep the merge's extra memory (one part
/// copied at a time) small and balance the threads.
pub(crate) const PART_BYTES: u64 = 4 << 20;

/// Where the bytes come from: a file (each thread opens it) or memory (tests).
pub(crate) trait Source: Sync {
    /// A reader from byte `offset` on.
    fn open_at(&self, offset: u64) -> std::io::Result<Box<dyn Read + Send + '_>>;
}

impl Source for &[u8] {
    fn open_at(&self, offset: u64) -> std::io::Result<Box<dyn Read + Send + '_>> {
        let at = usize::try_from(offset).map_or(self.len(), |o| o.min(self.len()));
        Ok(Box::new(&self[at..]))
    }
}

/// Threads to use: `Options::threads`, or one per core.
pub(crate) fn threads(options: &Options) -> usize {
    match options.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// Whether the parser, having read the head of a file of `size` bytes, may read
/// the rest in parallel: a CSV whose header is read, no cell limit (it counts rows
/// as they come), more than one thread.
pub(crate) fn eligible(p: &Parser, size: u64, threads: usize) -> bool {
    let State::Csv(c) = &p.state else {
        return false;
    };
    threads > 1
        && size >= MIN_BYTES
        && p.opts.max_cells == u64::MAX
        && !c.failed
        && c.table.is_some()
}

/// The part boundaries after `done` (bytes already read): one after the first line
/// break at or after each of `parts - 1` evenly spaced offsets. A boundary is
/// dropped when no line break comes within 1 MiB.
pub(crate) fn split_points(
    src: &dyn Source,
    done: u64,
    size: u64,
    parts: u64,
) -> std::io::Result<Vec<u64>> {
    let mut splits: Vec<u64> = Vec::new();
    let mut buf = vec![0u8; 64 << 10];
    for k in 1..parts {
        let nominal = size / parts * k;
        let from = (nominal.max(1) - 1)
            .max(done)
            .max(splits.last().copied().unwrap_or(0));
        let mut r = src.open_at(from)?.take(1 << 20);
        let mut at = from;
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                break;
            }
            if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
                let split = at + i as u64 + 1;
                if split > done && split < size && splits.last().is_none_or(|&s| split > s) {
                    splits.push(split);
                }
                break;
            }
            at += n as u64;
        }
    }
    Ok(splits)
}

/// Reads `[from, to)` (to the end when `to` is `None`) in slices of `buf`'s size
/// and hands each to `push`, which says whether to go on. Returns whether the whole
/// range was there.
fn read_range(
    src: &dyn Source,
    from: u64,
    to: Option<u64>,
    buf: &mut [u8],
    mut push: impl FnMut(&[u8]) -> bool,
) -> std::io::Result<bool> {
    let mut r = src.open_at(from)?;
    let mut left = to.map_or(u64::MAX, |t| t.saturating_sub(from));
    while left > 0 {
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = r.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        left -= n as u64;
        if !push(&buf[..n]) {
            return Ok(true);
        }
    }
    Ok(to.is_none() || left == 0)
}

/// Feeds the parser serially.
fn push_serial(
    p: &mut Parser,
    src: &dyn Source,
    from: u64,
    to: Option<u64>,
    buf: &mut [u8],
) -> std::io::Result<()> {
    read_range(src, from, to, buf, |b| p.push(b).is_ok()).map(|_| ())
}

/// A part: its stream, and whether it was read whole.
struct Part {
    stream: Option<CsvStream>,
    read: bool,
}

/// Reads the rest of a file of `size` bytes: `done` bytes were pushed to `p` already; `splits`
/// (increasing, after `done`) cut the rest into parts. Returns how many parts
/// were read again serially. A read error of the head part or of a part read
/// again is returned (the serial read's error); the parser then holds what it
/// read.
pub(crate) fn run(
    p: &mut Parser,
    src: &dyn Source,
    (done, size): (u64, u64),
    splits: &[u64],
    threads: usize,
    slice: usize,
) -> std::io::Result<usize> {
    let mut buf = vec![0u8; slice.max(1)];
    let followers: Option<Vec<CsvStream>> = match &p.state {
        State::Csv(c) => splits
            .iter()
            .enumerate()
            .map(|(j, &s)| {
                let end = splits.get(j + 1).copied().unwrap_or(size);
                c.follower(end.saturating_sub(s))
            })
            .collect(),
        _ => None,
    };
    let (Some(followers), Some(&first)) = (followers, splits.first()) else {
        return push_serial(p, src, done, None, &mut buf).map(|_| 0);
    };
    let parts: Vec<Mutex<Part>> = followers
        .into_iter()
        .map(|s| {
            Mutex::new(Part {
                stream: Some(s),
                read: false,
            })
        })
        .collect();
    let next = AtomicUsize::new(0);
    let work = |buf: &mut [u8]| loop {
        let j = next.fetch_add(1, Ordering::Relaxed);
        let Some(part) = parts.get(j) else {
            break;
        };
        let Ok(mut part) = part.lock() else {
            break;
        };
        let Some(s) = part.stream.as_mut() else {
            continue;
        };
        let to = splits.get(j + 1).copied();
        let read = read_range(src, splits[j], to, buf, |b| {
            s.push(b);
            !s.failed
        });
        if to.is_none() {
            s.end_input();
        }
        part.read = matches!(read, Ok(true));
    };
    let head = std::thread::scope(|scope| {
        for _ in 1..threads.min(parts.len() + 1) {
            scope.spawn(|| work(&mut vec![0u8; slice.max(1)]));
        }
        let head = push_serial(p, src, done, Some(first), &mut buf);
        work(&mut buf);
        head
    });
    head?;
    let mut again = 0;
    for (j, part) in parts.into_iter().enumerate() {
        let Part { stream, read } = part.into_inner().unwrap_or(Part {
            stream: None,
            read: false,
        });
        let State::Csv(c) = &mut p.state else {
            break;
        };
        if c.failed {
            break;
        }
        let taken = match stream {
            Some(s) if read => c.absorb(s),
            _ => false,
        };
        if !taken {
            again += 1;
            push_serial(p, src, splits[j], splits.get(j + 1).copied(), &mut buf)?;
        }
    }
    Ok(again)
}

impl CsvStream {
    /// A stream for a part of `size` bytes that starts at a record boundary after
    /// the header: the same delimiter, plan and limits, its own rows and lines
    /// (counted from 0 and 1; [`CsvStream::absorb`] shifts them).
    fn follower(&self, size: u64) -> Option<CsvStream> {
        let table = self.table.as_ref()?.follower();
        let mut mapping = self.options_mapping.clone();
        mapping.delimiter = Some(self.delimiter);
        let opts = Options {
            mapping,
            max_errors: self.sink.max,
            size_hint: Some(size),
            max_record_bytes: self.max_record,
            max_cells: self.max_cells,
            ..Options::default()
        };
        let mut s = CsvStream::new(&self.sink.file, &opts, b"");
        s.options_mapping = self.options_mapping.clone();
        s.table = Some(table);
        s.started = true;
        Some(s)
    }

    /// Appends a part read on its own when this stream ends at a record boundary
    /// and the part's rows can be appended exactly; `false` (nothing changed)
    /// otherwise.
    fn absorb(&mut self, next: CsvStream) -> bool {
        let at_boundary = |s: &CsvStream| s.core.is_none() && s.carry.is_empty();
        let ok = !self.failed
            && !self.ended
            && at_boundary(self)
            && (next.failed || at_boundary(&next))
            && match (&self.table, &next.table) {
                (Some(a), Some(b)) => a.can_absorb(b),
                _ => false,
            };
        let (true, Some(t), Some(nt)) = (ok, self.table.as_mut(), next.table) else {
            return false;
        };
        let base = t.rows;
        let lines = self.line - 1;
        let mixed = t.absorb(nt);
        if let Some(f) = next.first_data_line {
            match self.first_data_line {
                None => self.first_data_line = Some(lines + f),
                Some(first) => self.irregular |= lines + f != first + base,
            }
        }
        self.irregular |= next.irregular;
        let mut errors: Vec<ParseError> = next
            .sink
            .errors
            .into_iter()
            .map(|mut e| {
                e.location.row = e.location.row.map(|r| r + base);
                e.location.line = e.location.line.map(|l| l + lines);
                e
            })
            .collect();
        if let Some((loc, message, row)) = mixed {
            // after the errors of its row, as the serial read reports it
            let at = errors
                .iter()
                .position(|e| e.location.row.is_none_or(|r| r > row))
                .unwrap_or(errors.len());
            let e = ParseError::new(
                crate::ErrorCode::MixedLabelTypes,
                &self.sink.file,
                loc,
                message,
            );
            errors.insert(at, e);
        }
        for e in errors {
            self.sink.push_error(e);
        }
        self.sink.more += next.sink.more;
        self.line = lines + next.line;
        self.consumed += next.consumed;
        self.failed |= next.failed;
        true
    }
}
