//! What the page's permalinks need beyond `calibscope-share`, free of browser types
//! so it is tested natively: the bundled examples by id, the "drop the file to
//! reproduce" text and the comparison of dropped files with a link's fingerprints.

use calibscope_share::FileRef;

/// The bundled examples: `(id, path under the app's root)`. A link names an example
/// by its id, so it reproduces completely.
pub const EXAMPLES: &[(&str, &str)] = &[
    ("digits_zoo_probs", "assets/examples/digits_zoo_probs.csv"),
    (
        "digits_logreg_C1_logits",
        "assets/examples/digits_logreg_C1_logits.csv",
    ),
];

/// The example opened at start.
pub const DEFAULT_EXAMPLE: &str = "digits_zoo_probs";

/// The path of example `id`, if there is one.
pub fn example_path(id: &str) -> Option<&'static str> {
    EXAMPLES.iter().find(|(i, _)| *i == id).map(|(_, p)| *p)
}

/// A size as people read it: `812 bytes`, `12.4 KB`, `12.4 MB`, `1.2 GB`.
pub fn size_text(bytes: u64) -> String {
    let b = bytes as f64;
    if bytes < 1000 {
        format!("{bytes} bytes")
    } else if b < 1e6 {
        format!("{:.1} KB", b / 1e3)
    } else if b < 1e9 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} GB", b / 1e9)
    }
}

/// One file as the notice names it: `preds.csv (12.4 MB, sha256 3fa2…)`.
pub fn file_text(f: &FileRef) -> String {
    let short: String = f.sha256.chars().take(8).collect();
    format!("{} ({}, sha256 {short}…)", f.name, size_text(f.size))
}

/// The notice of a link to files the reader must drop.
pub fn reproduce_text(files: &[FileRef]) -> String {
    let names: Vec<String> = files.iter().map(file_text).collect();
    format!(
        "Drop {} to reproduce this link's view.",
        names.join(" and ")
    )
}

/// The files that do not match the link's fingerprints, as sentences (empty when
/// every file matches). Files are matched by name, then by position.
pub fn mismatches(expected: &[FileRef], got: &[FileRef]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, want) in expected.iter().enumerate() {
        let found = got
            .iter()
            .find(|g| g.name == want.name)
            .or_else(|| got.get(i));
        match found {
            None => out.push(format!("{} was not dropped", want.name)),
            Some(g) if g.sha256 != want.sha256 || g.size != want.size => out.push(format!(
                "{} differs from the link's file: sha256 {}… ({}) instead of {}… ({})",
                g.name,
                g.sha256.chars().take(8).collect::<String>(),
                size_text(g.size),
                want.sha256.chars().take(8).collect::<String>(),
                size_text(want.size),
            )),
            Some(_) => {}
        }
    }
    if got.len() > expected.len() {
        out.push(format!(
            "{} files were dropped, the link names {}",
            got.len(),
            expected.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use calibscope_share::file_ref;

    #[test]
    fn examples_exist_on_disk() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for (id, path) in EXAMPLES {
            assert!(root.join(path).is_file(), "{id}: {path}");
            assert_eq!(example_path(id), Some(*path));
        }
        assert!(example_path(DEFAULT_EXAMPLE).is_some());
        assert_eq!(example_path("nope"), None);
    }

    #[test]
    fn the_notice_names_size_and_hash() {
        let f = FileRef {
            name: "preds.csv".into(),
            size: 12_400_000,
            sha256: "3fa2b7c1d0".into(),
        };
        assert_eq!(
            reproduce_text(&[f]),
            "Drop preds.csv (12.4 MB, sha256 3fa2b7c1…) to reproduce this link's view."
        );
        assert_eq!(size_text(999), "999 bytes");
        assert_eq!(size_text(1500), "1.5 KB");
    }

    #[test]
    fn mismatches_are_found_by_name_and_content() {
        let a = file_ref("a.csv", b"1,2\n");
        let b = file_ref("b.csv", b"3,4\n");
        assert!(mismatches(&[a.clone(), b.clone()], &[b.clone(), a.clone()]).is_empty());
        let other = file_ref("a.csv", b"1,3\n");
        let m = mismatches(std::slice::from_ref(&a), &[other]);
        assert_eq!(m.len(), 1);
        assert!(m[0].starts_with("a.csv differs"), "{m:?}");
        assert_eq!(
            mismatches(&[a.clone(), b], std::slice::from_ref(&a)).len(),
            1
        );
        assert_eq!(
            mismatches(std::slice::from_ref(&a), &[a.clone(), a.clone()]).len(),
            1
        );
    }
}
