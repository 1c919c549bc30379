//! The request of the open data set's record, in a module that imports no other
//! sharing module: the share state makes it, and the records and exports panels
//! (which import the share state) send it.

use calibscope_audit::FlipsSettings;
use calibscope_share::{FileRef, ViewState};

use crate::client::{Reply, Request};
use crate::proto::{FromWorker, ToWorker};

/// The request of the open data set's record (see
/// [`crate::sharing::Share::record_request`]).
pub struct RecordOf {
    pub(super) settings: ViewState,
    pub(super) inputs: Vec<FileRef>,
    pub(super) flips: FlipsSettings,
}

impl Request for RecordOf {
    /// The record's JSON text.
    type Answer = String;

    fn message(&self, id: u64) -> ToWorker {
        ToWorker::Record {
            id,
            settings: self.settings.clone(),
            inputs: self.inputs.clone(),
            flips: Some(self.flips.clone()),
        }
    }

    fn answer(&self, msg: FromWorker) -> Option<Reply<String>> {
        match msg {
            FromWorker::Record { record, .. } => Some(Reply::Done(record)),
            _ => None,
        }
    }
}
