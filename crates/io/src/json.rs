//! JSON input (buffered).

use crate::error::{Location, Sink};
use crate::{Dataset, ErrorCode, Options, ParseErrors};

pub(crate) struct JsonBuf {
    buf: Vec<u8>,
    sink: Sink,
    opts: Options,
    failed: bool,
}

impl JsonBuf {
    pub fn new(file: &str, _bom: usize, opts: &Options) -> Self {
        JsonBuf {
            buf: Vec::new(),
            sink: Sink::new(file, opts.max_errors),
            opts: opts.clone(),
            failed: false,
        }
    }
    pub fn failed(&self) -> bool {
        self.failed
    }
    pub fn push(&mut self, data: &[u8]) {
        if self.failed {
            return;
        }
        if self.buf.len() + data.len() > self.opts.max_json_bytes {
            self.sink.push(
                ErrorCode::JsonShape,
                Location::default(),
                "the JSON document is larger than the limit; use CSV or .npz for large files",
            );
            self.failed = true;
            return;
        }
        self.buf.extend_from_slice(data);
    }
    pub fn finish(mut self) -> Result<Dataset, ParseErrors> {
        self.sink.push(
            ErrorCode::JsonShape,
            Location::default(),
            "JSON is not supported yet",
        );
        Err(self.sink.into_errors(None))
    }
}
