//! The size limits of a parse ([`crate::Options::max_file_bytes`],
//! [`crate::Options::max_cells`]) and their messages.

/// `bytes` as a person reads it: `412.3 MB`, `1.2 GB` (decimal units, like file
/// managers and browsers).
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.1} kB", b / 1e3)
    } else {
        format!("{bytes} bytes")
    }
}

/// Parses a size as a person writes it: bytes (`1048576`) or a number with a
/// decimal or binary unit (`500MB`, `2 GB`, `1.5GiB`, `64k`), case-insensitive.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| format!("'{text}' is not a size (e.g. 500MB, 2GB or a number of bytes)"))?;
    let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => 1024.0,
        "mib" => 1024.0 * 1024.0,
        "gib" => 1024.0 * 1024.0 * 1024.0,
        u => {
            return Err(format!(
                "'{u}' is not a size unit (B, kB, MB, GB, TB, KiB, MiB, GiB)"
            ))
        }
    };
    let bytes = value * scale;
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
        return Err(format!("'{text}' is not a size"));
    }
    Ok(bytes.round() as u64)
}

/// The message of a file over the size limit.
pub fn file_too_large(size: u64, limit: u64) -> String {
    format!(
        "the file is {}, more than the limit of {}",
        human_bytes(size),
        human_bytes(limit)
    )
}

/// The message of a data set over the cell limit: `cells` values (rows × score
/// columns), `estimated` when counted from the file size before the rows were read.
pub fn too_many_cells(cells: u64, limit: u64, estimated: bool) -> String {
    format!(
        "the data holds {}{} values (rows × score columns), more than the limit of {}",
        if estimated { "about " } else { "" },
        cells,
        limit
    )
}

/// The cells of `rows` rows of `columns` score columns (at least one), saturating.
pub fn cells(rows: u64, columns: u64) -> u64 {
    rows.saturating_mul(columns.max(1))
}

/// Whether `rows × columns` passes `limit`.
pub fn over(rows: u64, columns: u64, limit: u64) -> bool {
    cells(rows, columns) > limit
}

/// The most rows of `columns` score columns that `limit` allows: the largest
/// `rows` for which [`over`] is false.
pub fn rows_within(columns: u64, limit: u64) -> u64 {
    limit / columns.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_within_is_the_last_row_not_over() {
        for (columns, limit) in [(1, 10), (3, 10), (10_000, 65_536), (0, 7), (7, u64::MAX)] {
            let r = rows_within(columns, limit);
            assert!(!over(r, columns, limit), "{columns} {limit}");
            // (no count of rows is over the largest limit: the cells saturate)
            assert!(
                limit == u64::MAX || over(r + 1, columns, limit),
                "{columns} {limit}"
            );
        }
    }

    #[test]
    fn sizes_read_well() {
        assert_eq!(human_bytes(999), "999 bytes");
        assert_eq!(human_bytes(12_400_000), "12.4 MB");
        assert_eq!(human_bytes(2_000_000_000), "2.0 GB");
        assert!(over(1_000_001, 100, 100_000_000));
        assert!(!over(1_000_000, 100, 100_000_000));
        assert!(over(u64::MAX, 2, u64::MAX - 1));
        assert_eq!(parse_size("1048576"), Ok(1_048_576));
        assert_eq!(parse_size("500MB"), Ok(500_000_000));
        assert_eq!(parse_size(" 2 gb"), Ok(2_000_000_000));
        assert_eq!(parse_size("1.5GiB"), Ok(1_610_612_736));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("5 parsecs").unwrap_err().contains("unit"));
    }
}
