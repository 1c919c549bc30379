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
use std::sync::{Condvar, Mutex};

use super::CsvStream;
use crate::error::ParseError;
use crate::table::TableBuilder;
use crate::{Options, Parser, State};

/// Files from this size up are read in parallel (when more than one thread is
/// available).
pub(crate) const MIN_BYTES: u64 = 8 << 20;
/// How many parts a file of `size` bytes is cut into: parts of 1/32 of the file,
/// from 256 KiB to 1 MiB (the parts read ahead are the read's extra memory), and at
/// least one per thread.
pub(crate) fn parts(size: u64, threads: usize) -> u64 {
    let part = (size / 32).clamp(256 << 10, 1 << 20);
    (size / part).max(threads as u64)
}

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
    let mut buf = vec![0u8; 4 << 10];
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

/// Slice size of the worker threads' reads.
const WORKER_SLICE: usize = 256 << 10;

/// How many parts past the last one joined may be read ahead (per thread): the
/// parts are joined as they come, so memory holds the table read so far and a few
/// parts, and a part's memory is reused by the next.
const AHEAD: usize = 2;

/// The work shared by the threads: parts to read (claimed in order), parts read.
struct Queue {
    /// The next part to claim.
    next: usize,
    /// Parts joined so far.
    joined: usize,
    /// The read stopped (an error): claim nothing more.
    stop: bool,
    /// Parts read: the stream, and whether its whole range was read.
    ready: Vec<Option<(CsvStream, bool)>>,
}

/// Everything a thread needs to read parts.
struct Work<'a> {
    src: &'a dyn Source,
    splits: &'a [u64],
    size: u64,
    proto: Follower,
    ahead: usize,
    queue: Mutex<Queue>,
    changed: Condvar,
}

impl Work<'_> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Claims the next part when it is not too far ahead of the parts joined.
    fn claim(&self, q: &mut Queue) -> Option<usize> {
        let j = q.next;
        (!q.stop && j < self.splits.len() && j < q.joined + self.ahead).then(|| {
            q.next += 1;
            j
        })
    }

    /// Reads part `j` on its own and hands it in.
    fn read(&self, j: usize, buf: &mut [u8]) {
        let from = self.splits[j];
        let to = self.splits.get(j + 1).copied();
        let mut s = self
            .proto
            .stream(to.unwrap_or(self.size).saturating_sub(from));
        let read = read_range(self.src, from, to, buf, |b| {
            s.push(b);
            !s.failed
        });
        if to.is_none() {
            s.end_input();
        }
        self.lock().ready[j] = Some((s, matches!(read, Ok(true))));
        self.changed.notify_all();
    }

    /// A worker thread: reads parts until none is left.
    fn worker(&self, buf: &mut [u8]) {
        loop {
            let j = {
                let mut q = self.lock();
                loop {
                    if q.stop || q.next >= self.splits.len() {
                        return;
                    }
                    if let Some(j) = self.claim(&mut q) {
                        break j;
                    }
                    q = self.changed.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            self.read(j, buf);
        }
    }

    /// Part `j` once read (the calling thread reads parts while it waits).
    fn take(&self, j: usize, buf: &mut [u8]) -> Option<(CsvStream, bool)> {
        let mut q = self.lock();
        loop {
            if let Some(part) = q.ready[j].take() {
                return Some(part);
            }
            if let Some(k) = self.claim(&mut q) {
                drop(q);
                self.read(k, buf);
                q = self.lock();
                continue;
            }
            if q.next <= j {
                // not claimed and cannot be: never happens (parts are claimed in order)
                return None;
            }
            q = self.changed.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn joined(&self, joined: usize, stop: bool) {
        let mut q = self.lock();
        q.joined = joined;
        q.stop |= stop;
        drop(q);
        self.changed.notify_all();
    }
}

/// Reads the rest of a file of `size` bytes: `done` bytes were pushed to `p`
/// already; `splits` (increasing, after `done`) cut the rest into parts, read by
/// `threads` threads (this one included) in slices of `buf`'s size and joined in
/// order as they come. Returns how many parts were read again serially. A read
/// error of the head part or of a part read again is returned (the serial read's
/// error); the parser then holds what it read.
pub(crate) fn run(
    p: &mut Parser,
    src: &dyn Source,
    (done, size): (u64, u64),
    splits: &[u64],
    threads: usize,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    let proto = match &p.state {
        State::Csv(c) => c.follower(),
        _ => None,
    };
    let (Some(proto), Some(&first)) = (proto, splits.first()) else {
        return push_serial(p, src, done, None, buf).map(|_| 0);
    };
    let threads = threads.clamp(1, splits.len() + 1);
    let work = Work {
        src,
        splits,
        size,
        proto,
        ahead: AHEAD * threads,
        queue: Mutex::new(Queue {
            next: 0,
            joined: 0,
            stop: false,
            ready: (0..splits.len()).map(|_| None).collect(),
        }),
        changed: Condvar::new(),
    };
    let slice = buf.len();
    std::thread::scope(|scope| {
        for _ in 1..threads {
            // a thread the system refuses is no error: the calling thread reads the
            // parts no worker took (`join_all`)
            let _ = std::thread::Builder::new()
                .name("calibscope-csv".into())
                .spawn_scoped(scope, || {
                    work.worker(&mut vec![0u8; slice.min(WORKER_SLICE)])
                });
        }
        let joined = join_all(p, &work, done, first, buf);
        // (on an error, the workers stop after the part they read)
        work.joined(splits.len(), true);
        joined
    })
}

/// Reads the head part, then joins the parts in order (reading parts while waiting).
fn join_all(
    p: &mut Parser,
    work: &Work<'_>,
    done: u64,
    first: u64,
    buf: &mut [u8],
) -> std::io::Result<usize> {
    push_serial(p, work.src, done, Some(first), buf)?;
    let mut again = 0;
    for j in 0..work.splits.len() {
        if !matches!(&p.state, State::Csv(c) if !c.failed) {
            break;
        }
        let part = work.take(j, buf);
        let State::Csv(c) = &mut p.state else {
            break;
        };
        let taken = match part {
            Some((s, true)) => c.absorb(s),
            _ => false,
        };
        if !taken {
            again += 1;
            let to = work.splits.get(j + 1).copied();
            push_serial(p, work.src, work.splits[j], to, buf)?;
        }
        work.joined(j + 1, false);
    }
    Ok(again)
}

/// What a part's stream starts from: the head's plan and limits.
struct Follower {
    file: String,
    options: Options,
    mapping: crate::ColumnMapping,
    table: TableBuilder,
}

impl Follower {
    /// A stream for a part of `size` bytes that starts at a record boundary after
    /// the header: the same delimiter, plan and limits, its own rows and lines
    /// (counted from 0 and 1; [`CsvStream::absorb`] shifts them).
    fn stream(&self, size: u64) -> CsvStream {
        let options = Options {
            size_hint: Some(size),
            ..self.options.clone()
        };
        let mut s = CsvStream::new(&self.file, &options, b"");
        s.options_mapping = self.mapping.clone();
        s.table = Some(self.table.clone());
        s.started = true;
        s
    }
}

impl CsvStream {
    /// What the streams of later parts start from (once the header is read).
    fn follower(&self) -> Option<Follower> {
        let table = self.table.as_ref()?.follower();
        let mut mapping = self.options_mapping.clone();
        mapping.delimiter = Some(self.delimiter);
        Some(Follower {
            file: self.sink.file.clone(),
            options: Options {
                mapping,
                max_errors: self.sink.max,
                max_record_bytes: self.max_record,
                max_cells: self.max_cells,
                ..Options::default()
            },
            mapping: self.options_mapping.clone(),
            table,
        })
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
