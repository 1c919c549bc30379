//! Parsing small inline inputs in tests: the dataset or the errors, and the scores read back as `f64`.

use calibscope_core::{Scores, Values};
use calibscope_io::{parse_bytes, Dataset, Options, ParseErrors};

pub fn ok(name: &str, bytes: &[u8]) -> Dataset {
    parse_bytes(name, bytes, &Options::default()).unwrap_or_else(|e| panic!("{name}: {e}"))
}
pub fn err(name: &str, bytes: &[u8]) -> ParseErrors {
    match parse_bytes(name, bytes, &Options::default()) {
        Ok(d) => panic!("{name}: expected an error, got {d:?}"),
        Err(e) => e,
    }
}
pub fn f64s(v: &Values) -> Vec<f64> {
    (0..v.len()).map(|i| v.get(i)).collect()
}
pub fn scores(ds: &Dataset) -> Vec<f64> {
    match &ds.models[0].1.scores {
        Scores::Column { values, .. } | Scores::Matrix { values, .. } => f64s(values),
        Scores::TopLabel { confidence, .. } => f64s(confidence),
    }
}
