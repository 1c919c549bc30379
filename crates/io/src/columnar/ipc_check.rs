//! A compressed Arrow IPC buffer starts with its decompressed length (an i64), and
//! the Arrow reader allocates that much before it decompresses: a damaged or
//! hostile file that claims terabytes aborts the process (out of memory), which no
//! error handling can catch; so does a message whose metadata or body length runs
//! past the end of the file (the reader allocates it before reading). The mutation
//! test found both. [`check`] reads every message's lengths and every record and
//! dictionary batch's buffers first (the IPC file's footer blocks, or the stream's
//! messages in order) and refuses such claims.

use super::Container;
use arrow_ipc::{root_as_footer, root_as_message, Message};

/// `Err(message)` when a message's metadata or body runs past the end of `bytes`
/// (the reader would allocate the claimed size first), or a compressed buffer
/// claims more than `limit` decompressed bytes; `Ok` otherwise (also when the layout
/// cannot be read: the reader then says what is wrong).
pub(crate) fn check(container: Container, bytes: &[u8], limit: u64) -> Result<(), String> {
    match container {
        Container::Parquet => Ok(()),
        Container::IpcFile => {
            let Some(footer) = footer(bytes) else {
                return Ok(());
            };
            let blocks = footer
                .recordBatches()
                .into_iter()
                .flatten()
                .chain(footer.dictionaries().into_iter().flatten());
            for b in blocks {
                let claimed = [b.offset(), i64::from(b.metaDataLength()), b.bodyLength()];
                let end = claimed
                    .iter()
                    .try_fold(0u64, |a, &v| a.checked_add(u64::try_from(v).ok()?));
                if end.is_none_or(|e| e > bytes.len() as u64) {
                    return Err(past_the_end(&claimed, bytes.len()));
                }
                let (start, meta) = (b.offset() as usize, b.metaDataLength() as usize);
                let block = &bytes[start..start + meta + b.bodyLength() as usize];
                // as the reader parses it: the whole block after the marker and length
                let skip = if block.starts_with(&[0xff; 4]) { 8 } else { 4 };
                if let Some(message) = block.get(skip..).and_then(|m| root_as_message(m).ok()) {
                    batch_claims(&message, bytes, start + meta, limit)?;
                }
            }
            Ok(())
        }
        Container::IpcStream => {
            let mut at = 0;
            while let Some((message, body)) = message_at(bytes, at)? {
                let len = message.bodyLength();
                if u64::try_from(len)
                    .ok()
                    .and_then(|l| l.checked_add(body as u64))
                    .is_none_or(|e| e > bytes.len() as u64)
                {
                    return Err(past_the_end(&[body as i64, len], bytes.len()));
                }
                batch_claims(&message, bytes, body, limit)?;
                at = body + len as usize;
            }
            Ok(())
        }
    }
}

fn past_the_end(claimed: &[i64], len: usize) -> String {
    let parts: Vec<String> = claimed.iter().map(i64::to_string).collect();
    format!(
        "a message's offset and lengths ({}) run past the end of the file ({len} bytes)",
        parts.join(" + ")
    )
}

/// The footer of an IPC file (`… footer, i32 length, "ARROW1"`).
fn footer(bytes: &[u8]) -> Option<arrow_ipc::Footer<'_>> {
    let end = bytes.len().checked_sub(10)?;
    let len = i32::from_le_bytes(bytes[end..end + 4].try_into().ok()?);
    let start = end.checked_sub(usize::try_from(len).ok()?)?;
    root_as_footer(&bytes[start..end]).ok()
}

/// The message at `at` (`[FF FF FF FF] i32 length, flatbuffer`) and where its body
/// starts; `None` at the end of the stream (or where no message can be read: the
/// reader says why), an error when the metadata runs past the end of `bytes`.
#[allow(clippy::type_complexity)]
fn message_at(bytes: &[u8], at: usize) -> Result<Option<(Message<'_>, usize)>, String> {
    // as the reader reads it: four bytes, the marker then the length, or (the legacy
    // layout) the length alone; so a stream's last 4–7 bytes are a length too
    let Some(head) = at.checked_add(4).and_then(|e| bytes.get(at..e)) else {
        return Ok(None);
    };
    let (len_at, fb_at) = if head == [0xff; 4] {
        (at + 4, at + 8)
    } else {
        (at, at + 4)
    };
    let Some(len) = bytes
        .get(len_at..len_at + 4)
        .and_then(|b| b.try_into().ok())
        .map(i32::from_le_bytes)
        .and_then(|l| usize::try_from(l).ok())
    else {
        return Ok(None);
    };
    if len == 0 {
        return Ok(None);
    }
    let Some(fb) = fb_at.checked_add(len).and_then(|end| bytes.get(fb_at..end)) else {
        return Err(past_the_end(&[fb_at as i64, len as i64], bytes.len()));
    };
    Ok(root_as_message(fb).ok().map(|m| (m, fb_at + len)))
}

/// Refuses a compressed buffer of `message` (a record or dictionary batch whose
/// body starts at `body`) that claims more than `limit` decompressed bytes.
fn batch_claims(message: &Message, bytes: &[u8], body: usize, limit: u64) -> Result<(), String> {
    let batch = message
        .header_as_record_batch()
        .or_else(|| message.header_as_dictionary_batch().and_then(|d| d.data()));
    let Some(batch) = batch.filter(|b| b.compression().is_some()) else {
        return Ok(());
    };
    for buffer in batch.buffers().into_iter().flatten() {
        let Ok(offset) = usize::try_from(buffer.offset()) else {
            continue;
        };
        let Some(at) = body.checked_add(offset) else {
            continue;
        };
        let Some(prefix) = bytes.get(at..at.saturating_add(8)) else {
            continue;
        };
        if buffer.length() < 8 {
            continue;
        }
        let claim = i64::from_le_bytes(prefix.try_into().expect("8 bytes"));
        if claim > 0 && claim as u64 > limit {
            return Err(format!(
                "a compressed column buffer says it holds {claim} bytes once decompressed, more than the limit of {limit}: the file is damaged (or a compression bomb)"
            ));
        }
    }
    Ok(())
}
