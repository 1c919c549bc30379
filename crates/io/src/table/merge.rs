//! Joining the tables of consecutive parts of one file read in parallel
//! ([`crate::csv::parallel`]): a part read on its own from a record boundary, then
//! appended, gives the table the serial read would have built — or the part is
//! refused and read again after the previous one.

use super::{IdBuf, ModelBuf, TableBuilder};
use crate::error::Location;
use crate::pages::prefer_huge_pages;

/// Appends `b` to `a` (moves it when `a` is empty).
fn join<T: Copy>(a: &mut Vec<T>, b: Vec<T>) {
    if a.is_empty() && a.capacity() < b.len() {
        *a = b;
    } else {
        a.reserve(b.len());
        prefer_huge_pages(a);
        a.extend_from_slice(&b);
    }
}

impl ModelBuf {
    /// Appends the samples of `o`, whose file rows start at `base`; its grouping
    /// codes are translated by `group_maps` (its codes → this table's).
    fn append(&mut self, o: ModelBuf, base: u64, group_maps: &[Vec<u32>]) {
        let ModelBuf {
            labels,
            values,
            pred,
            ids,
            file_rows,
            groups,
            ..
        } = o;
        for ((mine, theirs), map) in self.groups.iter_mut().zip(groups).zip(group_maps) {
            mine.extend(theirs.iter().map(|&c| map[c as usize]));
        }
        join(&mut self.labels, labels);
        join(&mut self.values, values);
        join(&mut self.pred, pred);
        self.file_rows.extend(file_rows.iter().map(|r| r + base));
        self.ids = match (self.ids.take(), ids) {
            (Some(IdBuf::Int(mut a)), Some(IdBuf::Int(b))) => {
                join(&mut a, b);
                Some(IdBuf::Int(a))
            }
            // text on either side: all text, as `IdBuf::push` makes it when the first
            // text id comes (text then integers is refused by `can_absorb` unless
            // the integers are none)
            (Some(a), Some(b)) => {
                let mut texts = a.into_texts();
                texts.extend(b.into_texts());
                Some(IdBuf::Text(texts))
            }
            (a, b) => a.or(b),
        };
    }
}

impl TableBuilder {
    /// An empty table on the same columns and plan, for a later part of the file.
    /// It does not report labels that mix names and integers: [`Self::absorb`]
    /// does, where the serial read would have.
    pub(crate) fn follower(&self) -> TableBuilder {
        let mut t = TableBuilder::new(self.cols.clone(), self.plan.clone());
        t.labels.mixed_reported = true;
        t
    }

    /// Long format: every model is found by its name (no model made for a row
    /// without a model field before any model was named, no name changed by
    /// trimming or by invalid UTF-8), so a part's models are the serial read's.
    fn keyed(&self) -> bool {
        !self.long
            || (self.model_index.len() == self.models.len()
                && self
                    .model_index
                    .iter()
                    .all(|(k, &i)| self.models.get(i).is_some_and(|m| m.name.as_bytes() == k)))
    }

    fn model_of(&self, name: &str) -> Option<usize> {
        if self.long {
            self.model_index.get(name.as_bytes()).copied()
        } else {
            Some(0)
        }
    }

    /// Whether `next`, read on its own from the record boundary where this table
    /// ends, holds what the serial read would have added. Not when a model's ids
    /// are already text here but were read as integers there (the serial read
    /// would have kept their text, e.g. `007`), nor for [`Self::keyed`] failures.
    pub(crate) fn can_absorb(&self, next: &TableBuilder) -> bool {
        self.keyed()
            && next.keyed()
            && next.models.iter().all(|m| {
                let mine = self
                    .model_of(&m.name)
                    .and_then(|i| self.models[i].ids.as_ref());
                let ints = match &m.ids {
                    Some(IdBuf::Int(v)) => !v.is_empty(),
                    _ => m.ids_converted,
                };
                !(ints && matches!(mine, Some(IdBuf::Text(_))))
            })
    }

    /// Appends the rows of `next` (see [`Self::can_absorb`]). Returns the error of
    /// labels that mix names and integers when it falls in `next`'s rows, with the
    /// row it is reported at.
    pub(crate) fn absorb(&mut self, next: TableBuilder) -> Option<(Location, String, u64)> {
        let base = self.rows;
        let TableBuilder {
            models,
            last_model,
            rows,
            bad_rows,
            labels,
            group_dicts,
            ..
        } = next;
        let has_id = self.plan.id.is_some();
        let group_maps: Vec<Vec<u32>> = self
            .group_dicts
            .iter_mut()
            .zip(&group_dicts)
            .map(|(mine, theirs)| mine.absorb(theirs))
            .collect();
        let mut map = Vec::with_capacity(models.len());
        for m in models {
            let i = match self.model_of(&m.name) {
                Some(i) => i,
                None => {
                    let i = self.models.len();
                    self.models.push(ModelBuf::new(
                        m.name.clone(),
                        has_id,
                        self.plan.groups.len(),
                    ));
                    self.model_index.insert(m.name.as_bytes().to_vec(), i);
                    i
                }
            };
            map.push(i);
            self.models[i].append(m, base, &group_maps);
        }
        if let Some(&i) = map.get(last_model) {
            self.last_model = i;
        }
        self.rows += rows;
        self.bad_rows.extend(bad_rows.iter().map(|r| r + base));
        let l = &mut self.labels;
        l.absorb(&labels, base);
        l.saw_int = l.saw_int.or(labels.saw_int.map(|r| r + base));
        l.saw_name = l.saw_name.or(labels.saw_name.map(|r| r + base));
        let (a, b) = l.mixed()?;
        let row = a.max(b);
        if let Err(at) = self.bad_rows.binary_search(&row) {
            self.bad_rows.insert(at, row);
        }
        let (loc, message) = self.mixed_error(a, b);
        Some((loc, message, row))
    }
}
