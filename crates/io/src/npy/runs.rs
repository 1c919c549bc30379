//! Runs of a structured array's fields: adjacent scalar float fields of one type
//! (typically the scores, `p_0 … p_9`) are decoded together, in one pass over the
//! records, into one row-major `rows × width` block. When the mapping takes a run
//! whole and in order as the score matrix, the block *is* the matrix (no copy, and
//! the parse holds the values once); any other use of a member copies its values
//! out of the block.

use std::cell::RefCell;
use std::rc::Rc;

use super::assembly::ArrCol;
use super::header::empty_column;
use super::{Column, Field, Kind};

/// Fields `first .. first + width` of a structured array, decoded as one block.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Run {
    pub(super) first: usize,
    pub(super) width: usize,
    pub(super) data: Column,
}

impl Run {
    pub(super) fn contains(&self, field: usize) -> bool {
        (self.first..self.first + self.width).contains(&field)
    }
}

/// Whether field `field` is decoded as a member of one of `runs` (and so has no
/// column of its own).
pub(super) fn in_run(runs: &[Run], field: usize) -> bool {
    runs.iter().any(|r| r.contains(field))
}

/// The runs of `fields`: maximal sequences of at least two consecutive scalar float
/// fields of the same type (size and byte order), each starting in the record where
/// the one before ends. Empty when there are none (or for one field).
pub(super) fn float_runs(fields: &[Field]) -> Vec<Run> {
    let mut runs = Vec::new();
    let mut i = 0;
    while i < fields.len() {
        let f = &fields[i];
        let mut j = i + 1;
        if f.ty.kind == Kind::F && f.count == 1 {
            while j < fields.len() {
                let (prev, g) = (&fields[j - 1], &fields[j]);
                if g.ty != f.ty || g.count != 1 || g.offset != prev.offset + prev.ty.size {
                    break;
                }
                j += 1;
            }
        }
        if j - i >= 2 {
            runs.push(Run {
                first: i,
                width: j - i,
                data: empty_column(f.ty),
            });
        }
        i = j;
    }
    runs
}

/// A field's place in a run: its values are column `index` of the shared block
/// (`None` once the block has been taken whole).
#[derive(Clone)]
pub(crate) struct RunMember {
    block: Rc<RefCell<Option<Column>>>,
    index: usize,
    width: usize,
}

/// The array's runs as shared blocks, and for field `i` its place in one (if any).
pub(super) fn members(runs: Vec<Run>, fields: usize) -> Vec<Option<RunMember>> {
    let mut out = vec![None; fields];
    for run in runs {
        let block = Rc::new(RefCell::new(Some(run.data)));
        for index in 0..run.width {
            out[run.first + index] = Some(RunMember {
                block: block.clone(),
                index,
                width: run.width,
            });
        }
    }
    out
}

/// The block of a run when `parts` (indices into `cols`) are exactly its members
/// in order: taken out of the run, to be the score matrix as it is.
pub(super) fn take_whole(cols: &[ArrCol], parts: &[usize]) -> Option<Column> {
    let first = cols[*parts.first()?].run.as_ref()?;
    let whole = first.width == parts.len()
        && parts.iter().enumerate().all(|(i, &c)| {
            cols[c]
                .run
                .as_ref()
                .is_some_and(|m| Rc::ptr_eq(&m.block, &first.block) && m.index == i)
        });
    if whole {
        first.block.borrow_mut().take()
    } else {
        None
    }
}

/// Gives the members of runs among `used` (indices into `cols`) whose block is still
/// there their own values (a strided copy out of the block), so that they read like
/// any other column; every member lets go of its block, which is freed here.
pub(super) fn copy_out(cols: &mut [ArrCol], used: &[usize]) {
    for (i, c) in cols.iter_mut().enumerate() {
        let Some(m) = c.run.take() else { continue };
        if !used.contains(&i) {
            continue;
        }
        let block = m.block.borrow();
        let Some(block) = block.as_ref() else {
            continue;
        };
        let (i, w) = (m.index, m.width);
        c.data = match block {
            Column::F32(v) => Column::F32(v.iter().skip(i).step_by(w).copied().collect()),
            Column::F64(v) => Column::F64(v.iter().skip(i).step_by(w).copied().collect()),
            Column::Int(v) => Column::Int(v.iter().skip(i).step_by(w).copied().collect()),
            other => other.clone(),
        };
    }
}
