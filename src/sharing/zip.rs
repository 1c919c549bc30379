//! A ZIP archive of the exported files ("Download everything"), written in the page
//! from bytes it already holds. A small writer instead of the `zip` crate: it needs
//! only raw deflate (`miniz_oxide`, already in the bundle for data inside links) and
//! CRC-32 (`crc32fast`, already there for `.npz` files), so it adds almost nothing
//! to the wasm module.
//!
//! Format (PKWARE APPNOTE 6.3): one local header + data per member, then the central
//! directory and its end record. Members are deflated (method 8) when that makes
//! them smaller, else stored (method 0: already compressed bytes). Names are
//! UTF-8 (flag bit 11); times are the DOS epoch 1980-01-01 00:00, so the same files
//! make the same archive. No ZIP64: an export of more than 4 GiB or 65,535 members
//! is refused with an error naming the limit.

/// Deflate level (miniz 0–10): 6 is zlib's default, fast on text.
const LEVEL: u8 = 6;
/// DOS date of 1980-01-01 (day 1, month 1, year 0 since 1980).
const DOS_DATE: u16 = (1 << 5) | 1;
/// Flag bit 11: names are UTF-8.
const UTF8: u16 = 1 << 11;

/// One member's central-directory facts.
struct Entry {
    name: Vec<u8>,
    method: u16,
    crc: u32,
    compressed: u32,
    size: u32,
    offset: u32,
}

fn u16le(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// Fails when `v` does not fit the 32-bit fields of a ZIP without ZIP64.
fn fits(v: usize, what: &str) -> Result<u32, String> {
    u32::try_from(v).map_err(|_| format!("the ZIP archive cannot hold {what} of {v} bytes (over 4 GiB); download the files one by one"))
}

/// The ZIP archive of `files` (`(name, bytes)`, in this order). Errors when a size
/// exceeds 4 GiB or there are more than 65,535 files; an empty list makes an empty
/// (valid) archive; duplicate names are kept as given (callers pass unique names).
pub fn archive(files: &[(String, Vec<u8>)]) -> Result<Vec<u8>, String> {
    let count = u16::try_from(files.len()).map_err(|_| {
        format!(
            "the ZIP archive cannot hold {} files (at most 65,535); download the files one by one",
            files.len()
        )
    })?;
    let mut out = Vec::new();
    let mut entries = Vec::with_capacity(files.len());
    for (name, bytes) in files {
        let crc = crc32fast::hash(bytes);
        let deflated = miniz_oxide::deflate::compress_to_vec(bytes, LEVEL);
        let (method, data) = if deflated.len() < bytes.len() {
            (8u16, deflated.as_slice())
        } else {
            (0u16, bytes.as_slice())
        };
        if name.len() > usize::from(u16::MAX) {
            return Err(format!(
                "the ZIP archive cannot hold a file name of {} bytes",
                name.len()
            ));
        }
        let entry = Entry {
            name: name.as_bytes().to_vec(),
            method,
            crc,
            compressed: fits(data.len(), name)?,
            size: fits(bytes.len(), name)?,
            offset: fits(out.len(), "an archive")?,
        };
        u32le(&mut out, 0x0403_4b50);
        u16le(&mut out, 20); // version needed: 2.0 (deflate)
        u16le(&mut out, UTF8);
        u16le(&mut out, entry.method);
        u16le(&mut out, 0); // time 00:00:00
        u16le(&mut out, DOS_DATE);
        u32le(&mut out, entry.crc);
        u32le(&mut out, entry.compressed);
        u32le(&mut out, entry.size);
        u16le(&mut out, entry.name.len() as u16);
        u16le(&mut out, 0); // no extra field
        out.extend_from_slice(&entry.name);
        out.extend_from_slice(data);
        entries.push(entry);
    }
    let directory = fits(out.len(), "an archive")?;
    for e in &entries {
        u32le(&mut out, 0x0201_4b50);
        u16le(&mut out, 20); // made by: MS-DOS, 2.0
        u16le(&mut out, 20);
        u16le(&mut out, UTF8);
        u16le(&mut out, e.method);
        u16le(&mut out, 0);
        u16le(&mut out, DOS_DATE);
        u32le(&mut out, e.crc);
        u32le(&mut out, e.compressed);
        u32le(&mut out, e.size);
        u16le(&mut out, e.name.len() as u16);
        u16le(&mut out, 0); // extra
        u16le(&mut out, 0); // comment
        u16le(&mut out, 0); // disk
        u16le(&mut out, 0); // internal attributes
        u32le(&mut out, 0); // external attributes
        u32le(&mut out, e.offset);
        out.extend_from_slice(&e.name);
    }
    let size = fits(out.len(), "an archive")? - directory;
    u32le(&mut out, 0x0605_4b50);
    u16le(&mut out, 0);
    u16le(&mut out, 0);
    u16le(&mut out, count);
    u16le(&mut out, count);
    u32le(&mut out, size);
    u32le(&mut out, directory);
    u16le(&mut out, 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::archive;

    fn u16_at(b: &[u8], i: usize) -> usize {
        u16::from_le_bytes([b[i], b[i + 1]]) as usize
    }

    fn u32_at(b: &[u8], i: usize) -> usize {
        u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as usize
    }

    /// Reads the archive back through its central directory: `(name, bytes)`.
    fn read(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
        let end = zip.len() - 22;
        assert_eq!(u32_at(zip, end), 0x0605_4b50);
        let count = u16_at(zip, end + 10);
        let mut at = u32_at(zip, end + 16);
        let mut out = Vec::new();
        for _ in 0..count {
            assert_eq!(u32_at(zip, at), 0x0201_4b50);
            let method = u16_at(zip, at + 10);
            let crc = u32_at(zip, at + 16) as u32;
            let csize = u32_at(zip, at + 20);
            let size = u32_at(zip, at + 24);
            let nlen = u16_at(zip, at + 28);
            let offset = u32_at(zip, at + 42);
            let name = String::from_utf8(zip[at + 46..at + 46 + nlen].to_vec()).unwrap();
            at += 46 + nlen;
            assert_eq!(u32_at(zip, offset), 0x0403_4b50);
            let start = offset + 30 + u16_at(zip, offset + 26) + u16_at(zip, offset + 28);
            let data = &zip[start..start + csize];
            let bytes = match method {
                0 => data.to_vec(),
                8 => miniz_oxide::inflate::decompress_to_vec(data).unwrap(),
                m => panic!("method {m}"),
            };
            assert_eq!(bytes.len(), size);
            assert_eq!(crc32fast::hash(&bytes), crc);
            out.push((name, bytes));
        }
        out
    }

    #[test]
    fn members_read_back_in_order_deflated_or_stored() {
        let text = "bin,acc\n".repeat(500).into_bytes();
        // incompressible bytes are stored
        let mut noise = Vec::new();
        let mut x = 0x9e37_79b9_u32;
        for _ in 0..4096 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            noise.push(x as u8);
        }
        let files = vec![
            ("a.report.html".to_string(), text.clone()),
            ("charts/é.png".to_string(), noise.clone()),
            ("empty.md".to_string(), Vec::new()),
        ];
        let zip = archive(&files).unwrap();
        assert_eq!(read(&zip), files);
        assert!(
            zip.len() < text.len() / 4 + noise.len() + 400,
            "the text was deflated"
        );
        // the same files make the same archive
        assert_eq!(archive(&files).unwrap(), zip);
    }

    #[test]
    fn an_empty_list_is_an_empty_archive() {
        let zip = archive(&[]).unwrap();
        assert_eq!(zip.len(), 22);
        assert!(read(&zip).is_empty());
    }
}
