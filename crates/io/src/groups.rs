//! Grouping columns (issue 32): columns the mapping does not otherwise use, chosen
//! through [`crate::ColumnMapping::groups`], whose values split the samples into
//! groups (one column) or into the cells of their intersection (several columns).
//!
//! A value is the column's text, trimmed (JSON `true`/`false` and numbers as they are
//! written, `.npy` integers in decimal, booleans `true`/`false`); an empty cell is the
//! value `""`. Values of one column are ordered as integers when every value is one,
//! else by their bytes; a cell of several columns is ordered by its values, column by
//! column. Only cells that hold samples are groups.

use std::collections::HashMap;

/// The most groups a grouping may have: a grouping is a category (a subject, a
/// hospital, a binarised feature), not an identifier or a continuous value.
pub const MAX_GROUPS: usize = 1000;

/// The groups of a dataset's samples.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Groups {
    /// The grouping columns, as the file names them.
    pub columns: Vec<String>,
    /// Each group's name: its value for one column; for several, the values joined
    /// by `" · "`.
    pub names: Vec<String>,
    /// Each group's value in each grouping column (`values[g][c]`).
    pub values: Vec<Vec<String>>,
    /// Each sample's group (an index into `names`), in sample order.
    pub codes: Vec<u32>,
}

impl Groups {
    /// Number of groups.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when there is no group (no sample).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The samples of each group, ascending.
    pub fn rows(&self) -> Vec<Vec<usize>> {
        let mut rows = vec![Vec::new(); self.names.len()];
        for (i, &g) in self.codes.iter().enumerate() {
            rows[g as usize].push(i);
        }
        rows
    }
}

/// The distinct values of one grouping column, coded in order of first appearance.
#[derive(Clone, Debug, Default)]
pub(crate) struct Dict {
    index: HashMap<Box<[u8]>, u32>,
    pub values: Vec<Vec<u8>>,
}

impl Dict {
    /// The code of a value (its text, trimmed), a new one for a new value.
    #[inline]
    pub fn code(&mut self, raw: &[u8]) -> u32 {
        let t = crate::num::trim(raw);
        if let Some(&c) = self.index.get(t) {
            return c;
        }
        let c = self.values.len() as u32;
        self.index.insert(t.into(), c);
        self.values.push(t.to_vec());
        c
    }

    /// Codes of `other`'s values in this dictionary (new values are added). Used
    /// when the parallel reader merges its chunks (not in the browser's build).
    #[cfg(not(target_family = "wasm"))]
    pub fn absorb(&mut self, other: &Dict) -> Vec<u32> {
        other.values.iter().map(|v| self.code(v)).collect()
    }
}

/// Order of a column's values: as integers when every one is, else by bytes.
fn value_order(values: &[String]) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..values.len()).collect();
    let ints: Option<Vec<i128>> = values.iter().map(|v| v.parse::<i128>().ok()).collect();
    match ints {
        Some(ints) => idx.sort_by_key(|&i| ints[i]),
        None => idx.sort_by(|&a, &b| values[a].cmp(&values[b])),
    }
    idx
}

/// The groups of `columns` from each column's dictionary and per-sample codes.
/// `Err` says why the grouping cannot be used (more than [`MAX_GROUPS`] groups).
pub(crate) fn assemble(
    columns: Vec<String>,
    dicts: Vec<Dict>,
    codes: Vec<Vec<u32>>,
) -> Result<Groups, String> {
    let n = codes.first().map_or(0, Vec::len);
    // each column's values in order, and each first-appearance code's rank
    let mut ranks: Vec<Vec<u32>> = Vec::with_capacity(dicts.len());
    let mut sorted_values: Vec<Vec<String>> = Vec::with_capacity(dicts.len());
    for (c, d) in dicts.into_iter().enumerate() {
        // only values some sample has (a dictionary may hold one no sample kept)
        let mut used = vec![false; d.values.len()];
        for &code in &codes[c] {
            used[code as usize] = true;
        }
        let kept: Vec<usize> = (0..used.len()).filter(|&i| used[i]).collect();
        let values: Vec<String> = kept
            .iter()
            .map(|&i| String::from_utf8_lossy(&d.values[i]).into_owned())
            .collect();
        if values.len() > MAX_GROUPS {
            return Err(too_many(&columns[c..=c], values.len()));
        }
        let order = value_order(&values);
        let mut rank = vec![0u32; used.len()];
        for (r, &i) in order.iter().enumerate() {
            rank[kept[i]] = r as u32;
        }
        sorted_values.push(order.iter().map(|&i| values[i].clone()).collect());
        ranks.push(rank);
    }
    // a cell's key: the ranks in mixed radix (at most MAX_GROUPS per column, so a
    // u128 holds up to 12 columns; more columns are refused by the caller's check)
    let radix: Vec<u128> = sorted_values
        .iter()
        .map(|v| v.len().max(1) as u128)
        .collect();
    let key_of = |i: usize| -> u128 {
        let mut k = 0u128;
        for (c, col) in codes.iter().enumerate() {
            k = k * radix[c] + ranks[c][col[i] as usize] as u128;
        }
        k
    };
    let mut keys: Vec<u128> = Vec::new();
    let mut seen: HashMap<u128, ()> = HashMap::new();
    let single = codes.len() == 1;
    if single {
        keys = (0..sorted_values[0].len() as u128).collect();
    } else {
        for i in 0..n {
            let k = key_of(i);
            if seen.insert(k, ()).is_none() {
                keys.push(k);
                if keys.len() > MAX_GROUPS {
                    return Err(too_many(&columns, keys.len()));
                }
            }
        }
        keys.sort_unstable();
    }
    let position: HashMap<u128, u32> = keys
        .iter()
        .enumerate()
        .map(|(g, &k)| (k, g as u32))
        .collect();
    let out_codes: Vec<u32> = if single {
        codes[0].iter().map(|&c| ranks[0][c as usize]).collect()
    } else {
        (0..n).map(|i| position[&key_of(i)]).collect()
    };
    let mut values = Vec::with_capacity(keys.len());
    for &k in &keys {
        let mut rest = k;
        let mut cell = vec![String::new(); radix.len()];
        for c in (0..radix.len()).rev() {
            cell[c] = sorted_values[c][(rest % radix[c]) as usize].clone();
            rest /= radix[c];
        }
        values.push(cell);
    }
    Ok(Groups {
        names: values.iter().map(|v| v.join(" · ")).collect(),
        values,
        columns,
        codes: out_codes,
    })
}

fn too_many(columns: &[String], count: usize) -> String {
    format!(
        "the grouping {} has more than {MAX_GROUPS} groups ({count} so far); a grouping column holds a few categories (a subject, a site, a binarised feature), not an identifier or a continuous value: bin the value into a new column first",
        columns
            .iter()
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(" × ")
    )
}

/// At most this many grouping columns (their intersection is keyed in 128 bits).
pub const MAX_GROUP_COLUMNS: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    fn dict(vals: &[&str]) -> (Dict, Vec<u32>) {
        let mut d = Dict::default();
        let codes = vals.iter().map(|v| d.code(v.as_bytes())).collect();
        (d, codes)
    }

    #[test]
    fn one_column_is_ordered_by_value() {
        let (d, c) = dict(&["10", "2", " 2 ", "-1"]);
        let g = assemble(vec!["site".into()], vec![d], vec![c]).unwrap();
        assert_eq!(g.names, ["-1", "2", "10"]);
        assert_eq!(g.codes, [2, 1, 1, 0]);
        assert_eq!(g.rows(), vec![vec![3], vec![1, 2], vec![0]]);
    }

    #[test]
    fn intersections_hold_present_cells_only() {
        let (a, ca) = dict(&["b", "a", "b", "a"]);
        let (b, cb) = dict(&["true", "true", "false", "true"]);
        let g = assemble(vec!["x".into(), "y".into()], vec![a, b], vec![ca, cb]).unwrap();
        assert_eq!(g.names, ["a · true", "b · false", "b · true"]);
        assert_eq!(g.codes, [2, 0, 1, 0]);
        assert_eq!(g.values[1], ["b", "false"]);
    }

    #[test]
    fn too_many_groups_are_refused() {
        let vals: Vec<String> = (0..=MAX_GROUPS).map(|i| format!("v{i}")).collect();
        let refs: Vec<&str> = vals.iter().map(String::as_str).collect();
        let (d, c) = dict(&refs);
        let e = assemble(vec!["id".into()], vec![d], vec![c]).unwrap_err();
        assert!(e.contains("more than 1000 groups"), "{e}");
    }
}
