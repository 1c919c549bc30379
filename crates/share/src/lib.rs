//! # calibscope-share
//!
//! Sharing without servers. A view of calibscope is a [`ViewState`]; a permalink
//! carries it in the URL fragment as
//!
//! ```text
//! a1=<base64url, no padding, of raw DEFLATE of the JSON of the fields that differ from the default>
//! ```
//!
//! The `a1` prefix is the link version. [`decode`] never panics: a bad link is a
//! [`LinkError`] with a message for people. Files are identified by name, size and
//! SHA-256 ([`sha256_hex`], [`Sha256Hasher`]), so the data itself stays with its owner.
//!
//! ```
//! use calibscope_share::{decode, encode, ViewState};
//! let mut s = ViewState::default();
//! s.m = 20;
//! let link = encode(&s);
//! assert!(link.starts_with("a1="));
//! assert_eq!(decode(&format!("#{link}")).unwrap(), s);
//! ```

mod state;

pub use state::{
    BinningId, DataSource, EmbeddedFile, FileRef, MappingState, MethodId, Theme, ViewId, ViewState,
    RECAL_MULTICLASS,
};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;

/// The link version this build writes and reads.
pub const VERSION: &str = "a1";
/// The longest link accepted (characters after the `#`).
pub const MAX_LINK_CHARS: usize = 256 * 1024;
/// The largest inflated JSON accepted (a guard against deflate bombs).
pub const MAX_JSON_BYTES: usize = 1 << 20;
/// The largest compressed data that may be embedded in a link.
pub const MAX_EMBEDDED_COMPRESSED: usize = 32 * 1024;

/// Why a link could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkError {
    /// The fragment is not a calibscope link at all.
    NotALink,
    /// A link of another version (e.g. from a newer calibscope).
    UnknownVersion(String),
    /// The link is longer than [`MAX_LINK_CHARS`] or inflates past [`MAX_JSON_BYTES`].
    TooLarge(String),
    /// The payload is not base64url.
    Base64(String),
    /// The payload is not DEFLATE data.
    Deflate(String),
    /// The inflated payload is not the JSON of a view state.
    Json(String),
}

impl fmt::Display for LinkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LinkError::NotALink => write!(
                f,
                "the link does not hold a calibscope view (expected #{VERSION}=…)"
            ),
            LinkError::UnknownVersion(v) => write!(
                f,
                "the link has version {v}, this calibscope reads {VERSION}; it may come from a newer calibscope"
            ),
            LinkError::TooLarge(what) => write!(f, "the link is too large: {what}"),
            LinkError::Base64(e) => write!(f, "the link is damaged (not base64url: {e})"),
            LinkError::Deflate(e) => write!(f, "the link is damaged (not DEFLATE data: {e})"),
            LinkError::Json(e) => write!(f, "the link does not hold a valid view: {e}"),
        }
    }
}

impl std::error::Error for LinkError {}

/// The JSON object of the fields of `state` that differ from the default. A number
/// JSON cannot hold (a NaN split fraction) is left out, so the link carries the
/// default instead of a value no build could read.
pub fn diff_json(state: &ViewState) -> Map<String, Value> {
    let full = serde_json::to_value(state).unwrap_or(Value::Null);
    let base = serde_json::to_value(ViewState::default()).unwrap_or(Value::Null);
    let mut out = Map::new();
    if let (Value::Object(full), Value::Object(base)) = (full, base) {
        for (k, v) in full {
            let unrepresentable = v.is_null() && !base[&k].is_null();
            if base.get(&k) != Some(&v) && !unrepresentable {
                out.insert(k, v);
            }
        }
    }
    out
}

/// Raw DEFLATE at the best level.
fn deflate(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(bytes, 10)
}

/// The permalink fragment of `state` (without the `#`): `a1=` + base64url(deflate(JSON)).
pub fn encode(state: &ViewState) -> String {
    let json = serde_json::to_vec(&Value::Object(diff_json(state))).unwrap_or_default();
    format!("{VERSION}={}", URL_SAFE_NO_PAD.encode(deflate(&json)))
}

/// The JSON object of a permalink fragment (with or without its leading `#`).
fn payload(fragment: &str) -> Result<Map<String, Value>, LinkError> {
    let s = fragment.strip_prefix('#').unwrap_or(fragment).trim();
    if s.len() > MAX_LINK_CHARS {
        return Err(LinkError::TooLarge(format!(
            "{} characters, at most {MAX_LINK_CHARS} are read",
            s.len()
        )));
    }
    let Some((version, payload)) = s.split_once('=') else {
        return Err(LinkError::NotALink);
    };
    if version != VERSION {
        let looks_versioned = version.len() > 1
            && version.starts_with('a')
            && version[1..].bytes().all(|b| b.is_ascii_digit());
        return Err(if looks_versioned {
            LinkError::UnknownVersion(version.to_string())
        } else {
            LinkError::NotALink
        });
    }
    let compressed = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|e| LinkError::Base64(e.to_string()))?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&compressed, MAX_JSON_BYTES)
        .map_err(|e| match e.status {
            miniz_oxide::inflate::TINFLStatus::HasMoreOutput => {
                LinkError::TooLarge(format!("its view inflates past {MAX_JSON_BYTES} bytes"))
            }
            _ => LinkError::Deflate(format!("{:?}", e.status)),
        })?;
    match serde_json::from_slice(&json).map_err(|e| LinkError::Json(e.to_string()))? {
        Value::Object(o) => Ok(o),
        _ => Err(LinkError::Json("expected a JSON object".into())),
    }
}

/// Reads a permalink fragment, with or without its leading `#`. Strict: a field
/// with a value this build does not know (say, a view added later) fails the link;
/// see [`decode_lenient`].
pub fn decode(fragment: &str) -> Result<ViewState, LinkError> {
    serde_json::from_value(Value::Object(payload(fragment)?))
        .map_err(|e| LinkError::Json(e.to_string()))
}

/// A link read field by field: what could be read, and a note per field that could
/// not (left at its default).
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    pub state: ViewState,
    /// `field: why`, for each field whose value was not understood.
    pub ignored: Vec<String>,
}

/// Reads a permalink fragment, keeping every field it understands: a field whose
/// value is unknown to this build (a newer view, a bad number) is left at its
/// default and noted, so a link from a newer calibscope still opens what it can.
pub fn decode_lenient(fragment: &str) -> Result<Decoded, LinkError> {
    let mut fields = payload(fragment)?;
    let mut ignored = Vec::new();
    fields.retain(|key, value| {
        let mut one = Map::new();
        one.insert(key.clone(), value.clone());
        match serde_json::from_value::<ViewState>(Value::Object(one)) {
            Ok(_) => true,
            Err(e) => {
                ignored.push(format!("{key}: {e}"));
                false
            }
        }
    });
    let state = serde_json::from_value(Value::Object(fields))
        .map_err(|e| LinkError::Json(e.to_string()))?;
    Ok(Decoded { state, ignored })
}

/// An [`EmbeddedFile`] of `bytes`, or why they cannot be embedded: their DEFLATE
/// size passes [`MAX_EMBEDDED_COMPRESSED`].
pub fn embed(name: &str, bytes: &[u8]) -> Result<EmbeddedFile, String> {
    let size = deflate(bytes).len();
    if size > MAX_EMBEDDED_COMPRESSED {
        return Err(format!(
            "{name} compresses to {size} bytes; at most {MAX_EMBEDDED_COMPRESSED} bytes of data fit in a link"
        ));
    }
    Ok(EmbeddedFile::new(name, bytes))
}

/// Bytes hashed per call of the SHA-256 compression function (see
/// [`Sha256Hasher::update`]).
pub const HASH_CALL_BYTES: usize = 1 << 16;

/// An incremental SHA-256: feed slices as they are read, then take the hex digest.
#[derive(Clone, Default)]
pub struct Sha256Hasher(Sha256);

impl Sha256Hasher {
    pub fn new() -> Self {
        Self::default()
    }
    /// Adds the next bytes, in calls of at most [`HASH_CALL_BYTES`]: in a browser, a
    /// WebAssembly function starts in V8's baseline compiler and its optimised code
    /// is used from its next call on (V8 does not replace a running call), so one
    /// call over a whole 145 MB file ran at ~28 MB/s instead of ~250 MB/s.
    pub fn update(&mut self, bytes: &[u8]) {
        for part in bytes.chunks(HASH_CALL_BYTES) {
            self.0.update(part);
        }
    }
    /// The digest of everything added, as 64 lowercase hex digits.
    pub fn finish_hex(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// SHA-256 of `bytes` as 64 lowercase hex digits.
///
/// ```
/// assert_eq!(
///     calibscope_share::sha256_hex(b"abc"),
///     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/// );
/// ```
pub fn sha256_hex(bytes: &[u8]) -> String {
    let mut h = Sha256Hasher::new();
    h.update(bytes);
    h.finish_hex()
}

/// The fingerprint of a file's bytes.
pub fn file_ref(name: &str, bytes: &[u8]) -> FileRef {
    FileRef {
        name: name.into(),
        size: bytes.len() as u64,
        sha256: sha256_hex(bytes),
    }
}

/// The fuzz check: `decode` never panics, and what it accepts re-encodes to a link
/// that decodes to the same state.
#[doc(hidden)]
pub fn fuzz_check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // as a fragment, as the payload's bytes, and as the payload's JSON
    let inputs = [
        text.to_string(),
        format!("{VERSION}={}", URL_SAFE_NO_PAD.encode(data)),
        format!("{VERSION}={}", URL_SAFE_NO_PAD.encode(deflate(data))),
    ];
    for input in &inputs {
        let strict = decode(input);
        let lenient = decode_lenient(input);
        // strict success implies lenient success with the same state, nothing ignored
        if let Ok(state) = &strict {
            let l = lenient.as_ref().expect("lenient reads what strict reads");
            assert!(l.ignored.is_empty() && &l.state == state);
        }
        if let Ok(Decoded { state, .. }) = lenient {
            let again = decode(&encode(&state)).expect("a re-encoded link decodes");
            // NaN never reaches a state (JSON has none), so equality is exact
            assert_eq!(again, state, "re-encoded link decodes to another state");
        }
    }
}
