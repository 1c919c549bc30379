//! `.npz` archives, read as a stream of local file headers (the central directory at
//! the end is not needed: `np.savez` writes sizes and CRCs into the local headers).
//! Members are stored or deflated; each `.npy` member is decoded as it inflates.
//!
//! Zip-bomb guards: a member's declared uncompressed size must not exceed
//! [`crate::Options::max_decompressed`]; while inflating, a member may not produce
//! more than it declares (nor more than its `.npy` header declares), and all members
//! together not more than the limit.

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use crate::error::{Location, Sink};
use crate::npy::{array_cols, assemble, NpyArray, NpyDecoder};
use crate::{Dataset, ErrorCode, Format, Options, ParseErrors};

const SIG_LOCAL: u32 = 0x0403_4b50;
const SIG_CENTRAL: u32 = 0x0201_4b50;
const SIG_EOCD: u32 = 0x0605_4b50;
const SIG_EOCD64: u32 = 0x0606_4b50;
const SIG_DESCRIPTOR: u32 = 0x0807_4b50;

struct Member {
    name: String,
    method: u16,
    crc: u32,
    csize: u64,
    usize_: u64,
    /// sizes and CRC are in a data descriptor after the data (flag bit 3)
    deferred: bool,
    zip64: bool,
    consumed: u64,
    produced: u64,
    hasher: crc32fast::Hasher,
    inflater: Option<Box<InflateState>>,
    dec: Option<NpyDecoder>,
    start: u64,
}

enum ZState {
    Header,
    Member(Box<Member>),
    Descriptor(Box<Member>),
    Trailer,
}

pub(crate) struct ZipStream {
    opts: Options,
    sink: Sink,
    state: ZState,
    buf: Vec<u8>,
    offset: u64,
    out: Vec<u8>,
    members: Vec<(String, NpyArray)>,
    ignored: Vec<String>,
    total_out: u64,
    failed: bool,
}

fn u16le(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}
fn u32le(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}
fn u64le(b: &[u8], i: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[i..i + 8]);
    u64::from_le_bytes(a)
}

fn mib(x: u64) -> String {
    if x >= 1 << 30 {
        format!("{:.1} GiB", x as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", x as f64 / (1u64 << 20) as f64)
    }
}

impl ZipStream {
    pub fn new(file: &str, opts: &Options) -> Self {
        ZipStream {
            opts: opts.clone(),
            sink: Sink::new(file, opts.max_errors),
            state: ZState::Header,
            buf: Vec::new(),
            offset: 0,
            out: Vec::new(),
            members: Vec::new(),
            ignored: Vec::new(),
            total_out: 0,
            failed: false,
        }
    }

    pub fn failed(&self) -> bool {
        self.failed
    }

    fn fail(
        &mut self,
        code: ErrorCode,
        offset: u64,
        member: Option<String>,
        msg: impl Into<String>,
    ) {
        self.sink
            .push(code, Location::offset(offset).with_member(member), msg);
        self.failed = true;
    }

    pub fn push(&mut self, mut data: &[u8]) {
        while !self.failed && !data.is_empty() {
            let n = match std::mem::replace(&mut self.state, ZState::Trailer) {
                ZState::Trailer => data.len(),
                ZState::Header => self.header(data),
                ZState::Member(m) => self.member(m, data),
                ZState::Descriptor(m) => self.descriptor(m, data),
            };
            self.offset += n as u64;
            data = &data[n..];
        }
    }

    /// Accumulates and parses a local header; returns bytes consumed.
    fn header(&mut self, data: &[u8]) -> usize {
        let mut used = 0;
        let need = |b: &[u8]| -> usize {
            if b.len() < 4 {
                return 4;
            }
            if u32le(b, 0) != SIG_LOCAL {
                return 4;
            }
            if b.len() < 30 {
                return 30;
            }
            30 + u16le(b, 26) as usize + u16le(b, 28) as usize
        };
        loop {
            let want = need(&self.buf);
            if self.buf.len() >= want {
                break;
            }
            let take = (want - self.buf.len()).min(data.len() - used);
            self.buf.extend_from_slice(&data[used..used + take]);
            used += take;
            if self.buf.len() < want {
                self.state = ZState::Header;
                return used;
            }
        }
        let b = std::mem::take(&mut self.buf);
        let start = self.offset + used as u64 - b.len() as u64;
        let sig = u32le(&b, 0);
        if sig != SIG_LOCAL {
            match sig {
                SIG_CENTRAL | SIG_EOCD | SIG_EOCD64 => {
                    self.state = ZState::Trailer;
                }
                _ => self.fail(
                    ErrorCode::ZipBad,
                    start,
                    None,
                    format!("not a zip archive: unexpected signature {sig:#010x} where a member header should be"),
                ),
            }
            return used;
        }
        let flags = u16le(&b, 6);
        let method = u16le(&b, 8);
        let crc = u32le(&b, 14);
        let mut csize = u32le(&b, 18) as u64;
        let mut usize_ = u32le(&b, 22) as u64;
        let nlen = u16le(&b, 26) as usize;
        let xlen = u16le(&b, 28) as usize;
        let name = String::from_utf8_lossy(&b[30..30 + nlen]).into_owned();
        // zip64 extra field
        let extra = &b[30 + nlen..30 + nlen + xlen];
        let mut zip64 = false;
        let mut i = 0;
        while i + 4 <= extra.len() {
            let id = u16le(extra, i);
            let sz = u16le(extra, i + 2) as usize;
            let body = &extra[(i + 4).min(extra.len())..(i + 4 + sz).min(extra.len())];
            if id == 1 {
                zip64 = true;
                let mut j = 0;
                if usize_ == 0xffff_ffff && body.len() >= j + 8 {
                    usize_ = u64le(body, j);
                    j += 8;
                }
                if csize == 0xffff_ffff && body.len() >= j + 8 {
                    csize = u64le(body, j);
                }
            }
            i += 4 + sz;
        }
        let member = Some(name.clone());
        if flags & 1 != 0 {
            self.fail(
                ErrorCode::ZipUnsupported,
                start,
                member,
                "the member is encrypted; save the arrays without a password",
            );
            return used;
        }
        let deferred = flags & 8 != 0;
        if method != 0 && method != 8 {
            let what = match method {
                12 => "bzip2",
                14 => "lzma",
                93 => "zstd",
                95 => "xz",
                9 => "deflate64",
                _ => "an unknown method",
            };
            self.fail(
                ErrorCode::ZipUnsupported,
                start,
                member,
                format!("the member is compressed with {what} (method {method}); only stored and deflate are read (np.savez / np.savez_compressed write those)"),
            );
            return used;
        }
        if deferred && method == 0 {
            self.fail(ErrorCode::ZipUnsupported, start, member, "a stored member whose size is only given after its data (streamed zip); rewrite the archive with np.savez");
            return used;
        }
        if !deferred && usize_ > self.opts.max_decompressed {
            self.fail(
                ErrorCode::ZipTooLarge,
                start,
                member,
                format!(
                    "the member declares {} uncompressed, more than the limit of {} (zip bomb?); raise Options::max_decompressed if it is genuine",
                    mib(usize_),
                    mib(self.opts.max_decompressed)
                ),
            );
            return used;
        }
        if method == 0 && !deferred && usize_ != csize {
            self.fail(
                ErrorCode::ZipBad,
                start,
                member,
                "a stored member whose compressed and uncompressed sizes differ",
            );
            return used;
        }
        let dec = if name.ends_with(".npy") {
            let mut o = self.opts.clone();
            let cap = if deferred {
                0
            } else {
                usize_
                    .min(csize.saturating_mul(1100))
                    .min(self.opts.max_decompressed)
            };
            o.size_hint = Some(cap);
            Some(NpyDecoder::new(&self.sink.file, Some(name.clone()), &o))
        } else {
            self.ignored.push(name.clone());
            None
        };
        let inflater = (method == 8).then(|| InflateState::new_boxed(DataFormat::Raw));
        let m = Member {
            name,
            method,
            crc,
            csize,
            usize_,
            deferred,
            zip64,
            consumed: 0,
            produced: 0,
            hasher: crc32fast::Hasher::new(),
            inflater,
            dec,
            start,
        };
        if method == 0 && csize == 0 {
            self.end_member(Box::new(m));
        } else {
            self.state = ZState::Member(Box::new(m));
        }
        used
    }

    /// Passes inflated bytes on. The part within the declared size (and the global
    /// limit) is decoded first, so the outcome does not depend on how the inflater
    /// happened to chunk its output.
    fn emit(&mut self, m: &mut Member, bytes: &[u8]) -> bool {
        let member_room = if m.deferred {
            u64::MAX
        } else {
            m.usize_.saturating_sub(m.produced)
        };
        let total_room = self.opts.max_decompressed.saturating_sub(self.total_out);
        let room = member_room.min(total_room).min(bytes.len() as u64) as usize;
        let (ok, over) = bytes.split_at(room);
        m.produced += ok.len() as u64;
        self.total_out += ok.len() as u64;
        m.hasher.update(ok);
        if let Some(d) = &mut m.dec {
            d.push(ok);
            if d.failed() {
                let d = m.dec.take().unwrap();
                let errs = d.finish_array().err();
                for e in errs.map(|e| e.errors).unwrap_or_default() {
                    self.sink.push(e.code, e.location, e.message);
                }
                self.failed = true;
                return false;
            }
        }
        if !over.is_empty() {
            let msg = if total_room < member_room {
                format!(
                    "the archive inflates beyond the limit of {} (zip bomb?); raise Options::max_decompressed if it is genuine",
                    mib(self.opts.max_decompressed)
                )
            } else {
                format!(
                    "the member inflates beyond its declared size of {} bytes (zip bomb or corrupt archive)",
                    m.usize_
                )
            };
            self.fail(ErrorCode::ZipTooLarge, m.start, Some(m.name.clone()), msg);
            return false;
        }
        true
    }

    fn member(&mut self, mut m: Box<Member>, data: &[u8]) -> usize {
        let limit = if m.deferred {
            data.len()
        } else {
            (m.csize - m.consumed).min(data.len() as u64) as usize
        };
        let input = &data[..limit];
        if m.method == 0 {
            m.consumed += input.len() as u64;
            if !self.emit(&mut m, input) {
                return limit;
            }
            if m.consumed == m.csize {
                self.end_member(m);
            } else {
                self.state = ZState::Member(m);
            }
            return limit;
        }
        // deflate
        if self.out.is_empty() {
            self.out = vec![0; 256 * 1024];
        }
        let mut pos = 0;
        loop {
            let mut inf = m.inflater.take().unwrap();
            let mut out = std::mem::take(&mut self.out);
            let r = inflate(&mut inf, &input[pos..], &mut out, MZFlush::None);
            m.inflater = Some(inf);
            pos += r.bytes_consumed;
            m.consumed += r.bytes_consumed as u64;
            let ok = self.emit(&mut m, &out[..r.bytes_written]);
            self.out = out;
            if !ok {
                return limit;
            }
            match r.status {
                Ok(MZStatus::StreamEnd) => {
                    if m.deferred {
                        self.state = ZState::Descriptor(m);
                        return pos;
                    }
                    if m.consumed < m.csize {
                        // padding after the deflate stream: skip it
                        let skip = ((m.csize - m.consumed) as usize).min(input.len() - pos);
                        m.consumed += skip as u64;
                        pos += skip;
                        if m.consumed < m.csize {
                            self.state = ZState::Member(m);
                            return pos;
                        }
                    }
                    self.end_member(m);
                    return pos;
                }
                Ok(_) | Err(MZError::Buf) => {
                    if r.bytes_consumed == 0 && r.bytes_written == 0 {
                        // needs more input
                        if !m.deferred && m.consumed >= m.csize {
                            self.fail(ErrorCode::ZipBad, m.start, Some(m.name.clone()), "the deflate data ends before the end of its stream (corrupt member)");
                            return limit;
                        }
                        self.state = ZState::Member(m);
                        return pos;
                    }
                }
                Err(_) => {
                    self.fail(
                        ErrorCode::ZipBad,
                        m.start,
                        Some(m.name.clone()),
                        "the deflate data is corrupt",
                    );
                    return limit;
                }
            }
        }
    }

    fn descriptor(&mut self, m: Box<Member>, data: &[u8]) -> usize {
        let body = if m.zip64 { 20 } else { 12 };
        let mut used = 0;
        let want = |b: &[u8]| -> usize {
            if b.len() >= 4 && u32le(b, 0) == SIG_DESCRIPTOR {
                4 + body
            } else {
                body
            }
        };
        loop {
            let w = want(&self.buf);
            if self.buf.len() >= w {
                break;
            }
            let take = (w - self.buf.len()).min(data.len() - used);
            self.buf.extend_from_slice(&data[used..used + take]);
            used += take;
            if self.buf.len() < w && used == data.len() {
                self.state = ZState::Descriptor(m);
                return used;
            }
        }
        let b = std::mem::take(&mut self.buf);
        let o = if u32le(&b, 0) == SIG_DESCRIPTOR { 4 } else { 0 };
        let mut m = m;
        m.crc = u32le(&b, o);
        m.usize_ = if m.zip64 {
            u64le(&b, o + 12)
        } else {
            u32le(&b, o + 8) as u64
        };
        m.deferred = false;
        self.end_member(m);
        used
    }

    fn end_member(&mut self, m: Box<Member>) {
        self.state = ZState::Header;
        let Member {
            name,
            crc,
            usize_,
            produced,
            hasher,
            dec,
            start,
            ..
        } = *m;
        if produced != usize_ {
            self.fail(
                ErrorCode::ZipBad,
                start,
                Some(name),
                format!("the member inflates to {produced} bytes but declares {usize_}"),
            );
            return;
        }
        let got = hasher.finalize();
        if got != crc {
            self.fail(
                ErrorCode::ZipCrc,
                start,
                Some(name),
                format!("CRC-32 mismatch (stored {crc:#010x}, computed {got:#010x}): the archive is corrupt"),
            );
            return;
        }
        if let Some(d) = dec {
            match d.finish_array() {
                Ok(a) => {
                    let stem = name.strip_suffix(".npy").unwrap_or(&name).to_string();
                    self.members.push((stem, a));
                }
                Err(e) => {
                    for e in e.errors {
                        self.sink.push(e.code, e.location, e.message);
                    }
                    self.failed = true;
                }
            }
        }
    }

    pub fn finish(mut self) -> Result<Dataset, ParseErrors> {
        if self.failed {
            return Err(self.sink.into_errors(None));
        }
        match &self.state {
            ZState::Trailer => {}
            ZState::Header if self.buf.is_empty() && self.offset == 0 => {
                self.fail(ErrorCode::EmptyFile, 0, None, "the file is empty");
            }
            ZState::Header => {
                let off = self.offset;
                self.fail(
                    ErrorCode::ZipTruncated,
                    off,
                    None,
                    "the archive ends before its central directory (truncated download?)",
                );
            }
            ZState::Member(m) | ZState::Descriptor(m) => {
                let (off, name) = (self.offset, m.name.clone());
                self.fail(
                    ErrorCode::ZipTruncated,
                    off,
                    Some(name),
                    "the archive ends inside this member (truncated download?)",
                );
            }
        }
        if self.failed {
            return Err(self.sink.into_errors(None));
        }
        if self.members.is_empty() {
            let msg = if self.ignored.is_empty() {
                "the archive has no members; save the arrays with np.savez(path, labels=y, probs=p)"
                    .to_string()
            } else {
                format!(
                    "the archive has no .npy members (found {}); save the arrays with np.savez",
                    self.ignored.join(", ")
                )
            };
            self.sink
                .push(ErrorCode::ZipEmpty, Location::default(), msg);
            return Err(self.sink.into_errors(None));
        }
        let file = self.sink.file.clone();
        let mut cols = Vec::new();
        for (stem, a) in self.members {
            let origin = Some(format!("{stem}.npy"));
            cols.extend(array_cols(a, origin, Some(&stem)));
        }
        let mut r = assemble(&file, Format::Npz, cols, &self.opts, true);
        if let Ok(ds) = &mut r {
            ds.detection.ignored.extend(self.ignored);
        }
        r
    }
}
