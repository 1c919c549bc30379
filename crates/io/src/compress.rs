//! Compressed text (`.csv.gz`, `.jsonl.gz`, `.csv.zst`, ...), decompressed while it
//! streams: every pushed slice is decompressed and its output pushed at once to a
//! [`Parser`] of the decompressed bytes, so memory is that parser's (the columns),
//! a 256 KiB output buffer and, for zstd, the frame's window; never the whole file.
//! (The zstd decoder passes its output on once it is more than one window behind
//! the input — 2–8 MiB at zstd's usual levels — or at the end of a frame.)
//!
//! - gzip (RFC 1952; recognised by its magic `1f 8b`, not by the file name): the
//!   header (optional extra field, name, comment, header CRC) is read here, the
//!   deflate data by `miniz_oxide` (the inflater `.npz` members already use), and
//!   the trailer's CRC-32 and length are checked; members written one after another
//!   (`cat a.gz b.gz`, `bgzip`) are read in turn.
//! - zstd (RFC 8878; magic `28 b5 2f fd`): frames and blocks are cut here, each
//!   complete block decoded by `ruzstd` (pure Rust); skippable frames are skipped,
//!   the content checksum is checked when the frame has one.
//!
//! Errors are located by the byte of the compressed file where the stream went
//! wrong (or ended); the decompressed size is limited by
//! [`crate::Options::max_decompressed`].

use miniz_oxide::inflate::stream::{inflate, InflateState};
use miniz_oxide::{DataFormat, MZError, MZFlush, MZStatus};

use crate::error::Location;
use crate::{ErrorCode, Options, ParseError, ParseErrors, Parsed, Parser};

/// The codec of a compressed stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Codec {
    Gzip,
    Zstd,
}

impl Codec {
    fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Zstd => "zstd",
        }
    }
}

const OUT: usize = 256 * 1024;
/// The largest zstd block (RFC 8878 §3.1.1.2.3: 128 KiB).
const ZSTD_BLOCK_MAX: usize = 128 * 1024;

enum Gz {
    /// Reading a member header (bytes so far in `buf`).
    Header,
    /// Inflating a member's deflate data.
    Body(Box<InflateState>, crc32fast::Hasher, u64),
    /// Reading the 8-byte trailer: CRC-32, length mod 2^32.
    Trailer(u32, u64),
    /// A member ended; another may follow.
    Between,
}

#[derive(Clone, Copy)]
enum Zs {
    /// Reading a frame header (or a skippable frame's 8 bytes).
    Frame,
    /// Skipping the rest of a skippable frame.
    Skip(u64),
    /// Reading blocks; whether the frame has a content checksum.
    Blocks(bool),
    /// A frame ended; another may follow.
    Between,
}

/// A compressed stream and the parser of what it decompresses to.
pub(crate) struct Decompress {
    codec: Codec,
    name: String,
    inner: Box<Parser>,
    /// Compressed bytes consumed (the location of errors).
    at: u64,
    /// Decompressed bytes produced.
    produced: u64,
    limit: u64,
    buf: Vec<u8>,
    out: Vec<u8>,
    gz: Gz,
    zs: Zs,
    zdec: Option<Box<ruzstd::decoding::FrameDecoder>>,
    /// Members / frames fully read.
    complete: u64,
    error: Option<ParseErrors>,
}

impl Decompress {
    pub(crate) fn new(codec: Codec, name: &str, opts: &Options) -> Self {
        let mut inner_opts = opts.clone();
        // the limits on the file are the outer parser's; the decompressed text is
        // held to max_decompressed here, and its size is not known
        inner_opts.size_hint = None;
        inner_opts.max_file_bytes = u64::MAX;
        Decompress {
            codec,
            name: name.to_string(),
            inner: Box::new(Parser::new(name, inner_opts)),
            at: 0,
            produced: 0,
            limit: opts.max_decompressed,
            buf: Vec::new(),
            out: Vec::new(),
            gz: Gz::Header,
            zs: Zs::Frame,
            zdec: None,
            complete: 0,
            error: None,
        }
    }

    pub(crate) fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn fail(&mut self, at: u64, message: String) {
        if self.error.is_none() {
            self.error = Some(ParseErrors::single(ParseError::new(
                ErrorCode::CompressedBad,
                &self.name,
                Location::offset(at),
                message,
            )));
        }
    }

    /// Passes decompressed bytes to the parser (within the limit).
    fn emit(&mut self, bytes: &[u8]) {
        if bytes.is_empty() || self.error.is_some() {
            return;
        }
        let room = self.limit.saturating_sub(self.produced);
        if bytes.len() as u64 > room {
            let msg = format!(
                "the {} data decompresses to more than the limit of {} bytes (a compression bomb?); raise Options::max_decompressed if the file is genuine",
                self.codec.name(),
                self.limit
            );
            self.fail(self.at, msg);
            return;
        }
        self.produced += bytes.len() as u64;
        if let Err(e) = self.inner.push(bytes) {
            self.error = Some(decompressed(self.codec, e));
        }
    }

    pub(crate) fn push(&mut self, data: &[u8]) {
        if self.error.is_some() {
            return;
        }
        match self.codec {
            Codec::Gzip => self.push_gzip(data),
            Codec::Zstd => {
                self.buf.extend_from_slice(data);
                let used = self.zstd_units();
                self.buf.drain(..used);
            }
        }
    }

    // --- gzip

    fn push_gzip(&mut self, mut data: &[u8]) {
        while !data.is_empty() && self.error.is_none() {
            let n = match std::mem::replace(&mut self.gz, Gz::Between) {
                Gz::Between => {
                    if data[0] == 0 {
                        // zero padding after the last member (tape blocks): ignored
                        let n = data.iter().take_while(|&&b| b == 0).count();
                        self.at += n as u64;
                        data = &data[n..];
                        continue;
                    }
                    self.gz = Gz::Header;
                    0
                }
                Gz::Header => self.gz_header(data),
                Gz::Body(state, hasher, size) => self.gz_body(state, hasher, size, data),
                Gz::Trailer(crc, size) => self.gz_trailer(crc, size, data),
            };
            self.at += n as u64;
            data = &data[n..];
        }
    }

    /// Buffers and reads a member header; returns the bytes of `data` used.
    fn gz_header(&mut self, data: &[u8]) -> usize {
        let had = self.buf.len();
        let take = data.len().min(64 * 1024);
        self.buf.extend_from_slice(&data[..take]);
        let start = self.at - had as u64;
        match gzip_header_len(&self.buf) {
            Err(msg) => {
                let msg = if self.complete > 0 {
                    format!("after the end of gzip member {} come bytes that are not another gzip member ({msg}): the file is damaged or has data appended; download or compress it again", self.complete)
                } else {
                    msg
                };
                self.fail(start, msg);
                take
            }
            Ok(None) => {
                if self.buf.len() >= 64 * 1024 {
                    self.fail(
                        start,
                        "the gzip header's name or comment field has no end (corrupt header)"
                            .into(),
                    );
                }
                self.gz = Gz::Header;
                take
            }
            Ok(Some(len)) => {
                self.buf.clear();
                self.gz = Gz::Body(
                    InflateState::new_boxed(DataFormat::Raw),
                    crc32fast::Hasher::new(),
                    0,
                );
                len - had
            }
        }
    }

    fn gz_body(
        &mut self,
        mut state: Box<InflateState>,
        mut hasher: crc32fast::Hasher,
        mut size: u64,
        data: &[u8],
    ) -> usize {
        if self.out.is_empty() {
            self.out = vec![0; OUT];
        }
        let mut pos = 0;
        loop {
            let mut out = std::mem::take(&mut self.out);
            let r = inflate(&mut state, &data[pos..], &mut out, MZFlush::None);
            pos += r.bytes_consumed;
            let written = &out[..r.bytes_written];
            hasher.update(written);
            size += written.len() as u64;
            self.emit(written);
            self.out = out;
            if self.error.is_some() {
                return data.len();
            }
            match r.status {
                Ok(MZStatus::StreamEnd) => {
                    self.gz = Gz::Trailer(hasher.finalize(), size);
                    return pos;
                }
                Ok(_) | Err(MZError::Buf)
                    if r.bytes_consumed > 0 || r.bytes_written > 0 || pos == data.len() =>
                {
                    if pos == data.len() && r.bytes_written < OUT {
                        self.gz = Gz::Body(state, hasher, size);
                        return pos;
                    }
                }
                _ => {
                    // an error, or no progress with input left
                    let at = self.at + pos as u64;
                    self.fail(
                        at,
                        format!(
                            "the gzip data is corrupt near this byte ({} bytes decompressed before it): the file is damaged; download or compress it again",
                            self.produced
                        ),
                    );
                    return data.len();
                }
            }
        }
    }

    fn gz_trailer(&mut self, crc: u32, size: u64, data: &[u8]) -> usize {
        let want = 8 - self.buf.len();
        let take = want.min(data.len());
        self.buf.extend_from_slice(&data[..take]);
        if self.buf.len() < 8 {
            self.gz = Gz::Trailer(crc, size);
            return take;
        }
        let b = std::mem::take(&mut self.buf);
        let stored_crc = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let stored_len = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
        let start = self.at + take as u64 - 8;
        if stored_crc != crc {
            self.fail(start, format!("the gzip member's CRC-32 is {stored_crc:08x} but its data gives {crc:08x}: the file is damaged; download or compress it again"));
        } else if stored_len != size as u32 {
            self.fail(start, format!("the gzip member declares {stored_len} bytes (mod 2^32) but inflates to {size}: the file is damaged"));
        } else {
            self.complete += 1;
        }
        take
    }

    // --- zstd

    /// Reads the complete units (frame headers, blocks) at the start of `buf`;
    /// returns the bytes used.
    fn zstd_units(&mut self) -> usize {
        let mut pos = 0;
        while self.error.is_none() {
            let rest = &self.buf[pos..];
            let used = match self.zs {
                Zs::Between if rest.is_empty() => break,
                Zs::Between => {
                    self.zs = Zs::Frame;
                    0
                }
                Zs::Skip(left) => {
                    let n = (left.min(rest.len() as u64)) as usize;
                    self.zs = if n as u64 == left {
                        self.complete += 1;
                        Zs::Between
                    } else {
                        Zs::Skip(left - n as u64)
                    };
                    if n == 0 {
                        break;
                    }
                    n
                }
                Zs::Frame => match zstd_frame_header(rest) {
                    Err(msg) => {
                        let msg = if self.complete > 0 {
                            format!("after the end of zstd frame {} come bytes that are not another zstd frame ({msg}): the file is damaged or has data appended; download or compress it again", self.complete)
                        } else {
                            msg
                        };
                        self.fail(self.at, msg);
                        break;
                    }
                    Ok(None) => break,
                    Ok(Some(FrameHead::Skippable(len))) => {
                        self.zs = Zs::Skip(len);
                        8
                    }
                    Ok(Some(FrameHead::Frame { len, checksum })) => {
                        let dec = self
                            .zdec
                            .get_or_insert_with(|| Box::new(ruzstd::decoding::FrameDecoder::new()));
                        if let Err(e) = dec.reset(&rest[..len]) {
                            self.fail(
                                self.at,
                                format!("the zstd frame header cannot be used: {e}"),
                            );
                            break;
                        }
                        self.zs = Zs::Blocks(checksum);
                        len
                    }
                },
                Zs::Blocks(checksum) => {
                    if rest.len() < 3 {
                        break;
                    }
                    let h = u32::from_le_bytes([rest[0], rest[1], rest[2], 0]);
                    let (last, kind, size) = (h & 1 == 1, (h >> 1) & 3, (h >> 3) as usize);
                    if kind == 3 || size > ZSTD_BLOCK_MAX {
                        self.fail(
                            self.at,
                            format!(
                                "the zstd data is corrupt at this byte (a block header of {}): the file is damaged; download or compress it again",
                                if kind == 3 { "reserved type".to_string() } else { format!("{size} bytes, more than a block holds") }
                            ),
                        );
                        break;
                    }
                    let body = if kind == 1 { 1 } else { size };
                    let need = 3 + body + if last && checksum { 4 } else { 0 };
                    if rest.len() < need {
                        break;
                    }
                    self.zstd_block(pos, need, last);
                    if last && self.error.is_none() {
                        self.complete += 1;
                        self.zs = Zs::Between;
                    }
                    need
                }
            };
            pos += used;
            self.at += used as u64;
        }
        pos.min(self.buf.len())
    }

    /// Decodes one complete block at `buf[pos..pos + len]` and passes its output on.
    fn zstd_block(&mut self, pos: usize, len: usize, last: bool) {
        use ruzstd::decoding::BlockDecodingStrategy;
        let mut dec = self.zdec.take().expect("a frame was started");
        let r = dec.decode_blocks(
            &self.buf[pos..pos + len],
            BlockDecodingStrategy::UptoBlocks(1),
        );
        if let Err(e) = r {
            self.fail(
                self.at,
                format!("the zstd data is corrupt in the block at this byte ({e}): the file is damaged; download or compress it again"),
            );
            self.zdec = Some(dec);
            return;
        }
        let mut out = std::mem::take(&mut self.out);
        out.clear();
        let _ = dec.collect_to_writer(&mut out);
        self.emit(&out);
        out.clear();
        self.out = out;
        if last {
            if let (Some(stored), Some(computed)) =
                (dec.get_checksum_from_data(), dec.get_calculated_checksum())
            {
                if stored != computed && self.error.is_none() {
                    self.fail(self.at, format!("the zstd frame's checksum is {stored:08x} but its data gives {computed:08x}: the file is damaged; download or compress it again"));
                }
            }
        }
        self.zdec = Some(dec);
    }

    /// Ends the input: a stream that stops inside a member / frame is truncated.
    pub(crate) fn finish_any(mut self) -> Result<Parsed, ParseErrors> {
        if self.error.is_none() {
            let open = match self.codec {
                Codec::Gzip => match self.gz {
                    Gz::Between => false,
                    Gz::Header => self.complete == 0 || !self.buf.is_empty(),
                    _ => true,
                },
                Codec::Zstd => !matches!(self.zs, Zs::Between) || !self.buf.is_empty(),
            };
            if open {
                let msg = format!(
                    "the {} stream ends early, after {} compressed bytes ({} decompressed): the file is truncated (an interrupted download or copy?); download or compress it again",
                    self.codec.name(),
                    self.at + self.buf.len() as u64,
                    self.produced
                );
                let at = self.at + self.buf.len() as u64;
                self.fail(at, msg);
            }
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => {
                let codec = self.codec;
                self.inner.finish_any().map_err(|e| decompressed(codec, e))
            }
        }
    }
}

/// Errors about the whole decompressed content say that it was decompressed.
fn decompressed(codec: Codec, mut e: ParseErrors) -> ParseErrors {
    for e in &mut e.errors {
        if matches!(e.code, ErrorCode::UnknownFormat | ErrorCode::EmptyFile) {
            e.message = format!("after {} decompression, {}", codec.name(), e.message);
        }
    }
    e
}

/// The length of the gzip header at the start of `b`: `Ok(None)` when more bytes
/// are needed, `Err` when it is not a gzip header.
fn gzip_header_len(b: &[u8]) -> Result<Option<usize>, String> {
    if b.len() < 10 {
        if b.len() >= 2 && b[..2] != [0x1f, 0x8b] {
            return Err("no 1f 8b magic".into());
        }
        return Ok(None);
    }
    if b[..2] != [0x1f, 0x8b] {
        return Err("no 1f 8b magic".into());
    }
    if b[2] != 8 {
        return Err(format!(
            "the gzip member uses compression method {}, not deflate (8)",
            b[2]
        ));
    }
    let flags = b[3];
    if flags & 0xe0 != 0 {
        return Err(format!(
            "the gzip header has reserved flag bits set ({flags:#04x}): corrupt header"
        ));
    }
    let mut at = 10;
    if flags & 4 != 0 {
        if b.len() < at + 2 {
            return Ok(None);
        }
        at += 2 + u16::from_le_bytes([b[at], b[at + 1]]) as usize;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            match b.get(at..).and_then(|r| r.iter().position(|&c| c == 0)) {
                Some(z) => at += z + 1,
                None => return Ok(None),
            }
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    Ok((b.len() >= at).then_some(at))
}

enum FrameHead {
    /// A skippable frame with this many bytes after its 8-byte header.
    Skippable(u64),
    /// A frame header of `len` bytes; whether blocks end with a checksum.
    Frame { len: usize, checksum: bool },
}

fn zstd_frame_header(b: &[u8]) -> Result<Option<FrameHead>, String> {
    if b.len() < 4 {
        if !b.is_empty() && b[0] != 0x28 && b[0] & 0xf0 != 0x50 {
            return Err("no 28 b5 2f fd magic".into());
        }
        return Ok(None);
    }
    let magic = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    if magic & 0xffff_fff0 == 0x184d_2a50 {
        if b.len() < 8 {
            return Ok(None);
        }
        return Ok(Some(FrameHead::Skippable(
            u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as u64,
        )));
    }
    if magic != 0xfd2f_b528 {
        return Err("no 28 b5 2f fd magic".into());
    }
    if b.len() < 5 {
        return Ok(None);
    }
    let fhd = b[4];
    if fhd & 8 != 0 {
        return Err("the zstd frame header has its reserved bit set: corrupt header".into());
    }
    let single = fhd & 0x20 != 0;
    let fcs = match fhd >> 6 {
        0 => usize::from(single),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let dict = [0, 1, 2, 4][(fhd & 3) as usize];
    let len = 5 + usize::from(!single) + dict + fcs;
    Ok((b.len() >= len).then_some(FrameHead::Frame {
        len,
        checksum: fhd & 4 != 0,
    }))
}

#[cfg(test)]
#[path = "compress_tests.rs"]
mod tests;
