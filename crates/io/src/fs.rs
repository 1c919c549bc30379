//! File-system conveniences (native only).

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::Location;
use crate::{
    combine, npy_pair, pair_role, Dataset, ErrorCode, Options, ParseError, ParseErrors, Parsed,
    Parser,
};

const CHUNK: usize = 1 << 20;

fn display(path: &Path) -> String {
    path.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

fn io_error(path: &Path, e: std::io::Error) -> ParseErrors {
    ParseErrors::single(ParseError::new(
        ErrorCode::EmptyFile,
        &display(path),
        Location::default(),
        format!("cannot read {}: {e}", path.display()),
    ))
}

fn read_any(path: &Path, options: &Options) -> Result<Parsed, ParseErrors> {
    let mut f = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let mut opts = options.clone();
    if let Ok(m) = f.metadata() {
        opts.size_hint.get_or_insert(m.len());
    }
    let mut p = Parser::new(display(path), opts);
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = f.read(&mut buf).map_err(|e| io_error(path, e))?;
        if n == 0 {
            break;
        }
        if p.push(&buf[..n]).is_err() {
            break;
        }
    }
    p.finish_any()
}

/// Reads one file (streamed in 1 MiB slices: the parser reads each while it is
/// still in the cache).
pub fn read_path(path: &Path, options: &Options) -> Result<Dataset, ParseErrors> {
    let name = display(path);
    match read_any(path, options)? {
        Parsed::Dataset(d) => Ok(d),
        Parsed::Array(_) => Err(ParseErrors::single(ParseError::new(
            ErrorCode::NpyNeedsPair,
            &name,
            Location::default(),
            "this .npy holds a plain array without labels; open it together with its pair (NAME.labels.npy + NAME.probs.npy or NAME.logits.npy)",
        ))),
    }
}

/// Reads several files as one dataset. `NAME.labels.npy` + `NAME.probs.npy` (or
/// `NAME.logits.npy`) given together form one prediction set called `NAME`; every
/// other file is read on its own. More than one resulting set becomes a multi-model
/// dataset on the same samples ([`combine`]); their labels must agree row by row.
pub fn open_paths(paths: &[PathBuf], options: &Options) -> Result<Dataset, ParseErrors> {
    // group pairs, keeping the order of first appearance
    type Group = (String, Option<PathBuf>, Option<(PathBuf, crate::Source)>);
    let mut groups: Vec<Group> = Vec::new();
    let mut singles: Vec<(usize, PathBuf)> = Vec::new();
    let mut order: Vec<(bool, usize)> = Vec::new(); // (is_pair, index)
    for p in paths {
        let name = display(p);
        match pair_role(&name) {
            Some((stem, role)) => {
                let dir = p.parent().map(|d| d.to_path_buf());
                let key = format!(
                    "{}/{stem}",
                    dir.map(|d| d.display().to_string()).unwrap_or_default()
                );
                let gi = match groups.iter().position(|g| g.0 == key) {
                    Some(i) => i,
                    None => {
                        groups.push((key, None, None));
                        order.push((true, groups.len() - 1));
                        groups.len() - 1
                    }
                };
                match role {
                    None => groups[gi].1 = Some(p.clone()),
                    Some(s) => groups[gi].2 = Some((p.clone(), s)),
                }
            }
            None => {
                singles.push((singles.len(), p.clone()));
                order.push((false, singles.len() - 1));
            }
        }
    }
    let mut sets = Vec::new();
    for (is_pair, i) in order {
        if !is_pair {
            sets.push(read_path(&singles[i].1, options)?);
            continue;
        }
        let (key, labels, scores) = &groups[i];
        let stem = key.rsplit('/').next().unwrap_or(key).to_string();
        match (labels, scores) {
            (Some(l), Some((s, source))) => {
                let la = match read_any(l, options)? {
                    Parsed::Array(a) => a,
                    Parsed::Dataset(d) => {
                        sets.push(d);
                        continue;
                    }
                };
                let sa = match read_any(s, options)? {
                    Parsed::Array(a) => a,
                    Parsed::Dataset(d) => {
                        sets.push(d);
                        continue;
                    }
                };
                sets.push(npy_pair(&stem, la, sa, *source, options)?);
            }
            (Some(p), None) | (None, Some((p, _))) => {
                // a lone half: it may still be a structured array
                match read_any(p, options)? {
                    Parsed::Dataset(d) => sets.push(d),
                    Parsed::Array(_) => {
                        return Err(ParseErrors::single(ParseError::new(
                            ErrorCode::NpyNeedsPair,
                            &display(p),
                            Location::default(),
                            format!(
                                "{} has no partner: give {stem}.labels.npy together with {stem}.probs.npy or {stem}.logits.npy",
                                display(p)
                            ),
                        )))
                    }
                }
            }
            (None, None) => {}
        }
    }
    if sets.len() == 1 {
        return Ok(sets.pop().unwrap());
    }
    combine(sets)
}
