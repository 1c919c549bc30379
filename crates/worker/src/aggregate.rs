//! Opening an aggregate (`calibscope-bins/1`) in the worker: a single dropped file
//! whose first bytes name the format is read whole (an aggregate's size is bounded
//! by its cells, not its rows) and opened by calibscope-engine's
//! [`Session::from_aggregate`], without asking for a mapping.

use super::{engine, post};
use calibscope_engine::Session;
use calibscope_proto::codes;
use calibscope_share::{FileRef, Sha256Hasher};
use js_sys::Uint8Array;
use web_sys::{File, FileReaderSync};

/// The bytes of `file` from `start` to `end`, or why they could not be read.
fn read_range(
    reader: &FileReaderSync,
    file: &File,
    start: f64,
    end: f64,
) -> Result<Vec<u8>, String> {
    let blob = file
        .slice_with_f64_and_f64(start, end)
        .map_err(|e| format!("{}: {e:?}", file.name()))?;
    let buffer = reader.read_as_array_buffer(&blob).map_err(|e| {
        format!(
            "{}: the browser could not read the file ({e:?})",
            file.name()
        )
    })?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

/// Opens `files` as an aggregate when they are one: `true` when it answered the
/// request (opened or failed), `false` when the files are not an aggregate (read
/// them as predictions).
pub(super) fn open_if_aggregate(id: u64, files: &[File]) -> bool {
    let [file] = files else { return false };
    let Ok(reader) = FileReaderSync::new() else {
        return false;
    };
    let Ok(head) = read_range(&reader, file, 0.0, file.size().min(4096.0)) else {
        return false;
    };
    if !engine::aggregate::looks_like_aggregate(&head) {
        return false;
    }
    let name = file.name();
    let opened = read_range(&reader, file, 0.0, file.size()).and_then(|bytes| {
        let session = Session::from_aggregate(&name, &bytes)?;
        let mut hasher = Sha256Hasher::new();
        hasher.update(&bytes);
        let inputs = vec![FileRef {
            name: name.clone(),
            size: bytes.len() as u64,
            sha256: hasher.finish_hex(),
        }];
        Ok((session, inputs))
    });
    let msg = match opened {
        Err(message) => engine::worker_error(id, codes::BAD_REQUEST, message),
        Ok((session, refs)) => super::install_session(id, session, refs),
    };
    post(&msg);
    true
}
