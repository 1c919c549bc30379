//! The page's house rules, checked on its source: no page module holds a
//! `thread_local!` (a view's state is created in `App` and provided as context), and
//! the page's modules import no cycle (a module that needs another's values receives
//! them, it does not reach back to whoever uses it).
//!
//! A module's imports are the paths it names through `super::`, `crate::` and, in a
//! module with children, the children's names: each resolves to the deepest module
//! file it names (`super::flips_state::FlipsState` → `app::flips_state`;
//! `super::open_example` → the parent).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The folders of the page's modules, relative to the crate root.
const PAGE: &[&str] = &["src"];

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`src/app/mod.rs` → `app`).
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("a file under src/");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of a file without its comments (line comments; the page has no block
/// comments around code) and without its unit tests (`#[cfg(test)]` to the end: a
/// test module's `super::` is the file's own module).
fn code(text: &str) -> String {
    text.lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .map(|l| match l.find("//") {
            // keep `//` inside a string literal (a URL) when a quote precedes it
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths named after `start` in `text`: `a::b::c`, or each item of a group
/// `{a, b::{c, d}}`, as segment lists.
fn paths_after(text: &str, start: usize) -> Vec<Vec<String>> {
    let rest = &text[start..];
    if let Some(group) = rest.strip_prefix('{') {
        let mut depth = 1;
        let mut end = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        let inner = &group[..end];
        let mut items = Vec::new();
        let (mut depth, mut from) = (0, 0);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&inner[from..i]);
                    from = i + 1;
                }
                _ => {}
            }
        }
        items.push(&inner[from..]);
        return items
            .into_iter()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .flat_map(|item| paths_after(item, 0))
            .collect();
    }
    let mut segs = Vec::new();
    let mut at = 0;
    loop {
        let ident: String = rest[at..].chars().take_while(|&c| is_ident(c)).collect();
        if ident.is_empty() {
            if rest[at..].starts_with('{') && !segs.is_empty() {
                return paths_after(&rest[at..], 0)
                    .into_iter()
                    .map(|tail| segs.iter().cloned().chain(tail).collect())
                    .collect();
            }
            break;
        }
        at += ident.len();
        segs.push(ident);
        if rest[at..].starts_with("::") {
            at += 2;
        } else {
            break;
        }
    }
    vec![segs]
}

/// The modules `module` (its code `text`) imports, among `known`.
fn imports(module: &[String], text: &str, known: &BTreeSet<Vec<String>>) -> BTreeSet<Vec<String>> {
    let mut named: Vec<Vec<String>> = Vec::new();
    let bytes = text.as_bytes();
    let boundary = |i: usize| i == 0 || !is_ident(bytes[i - 1] as char) && bytes[i - 1] != b':';
    for (i, _) in text.match_indices("super::") {
        if !boundary(i) {
            continue;
        }
        let mut base = module.to_vec();
        let mut at = i;
        while text[at..].starts_with("super::") {
            base.pop();
            at += "super::".len();
        }
        for tail in paths_after(text, at) {
            named.push(base.iter().cloned().chain(tail).collect());
        }
    }
    for (i, _) in text.match_indices("crate::") {
        if boundary(i) {
            named.extend(paths_after(text, i + "crate::".len()));
        }
    }
    // a parent's paths through its children's names (`client::Client`)
    let children: Vec<&Vec<String>> = known
        .iter()
        .filter(|k| k.len() == module.len() + 1 && k.starts_with(module))
        .collect();
    for child in children {
        let name = child.last().expect("a child's name");
        let needle = format!("{name}::");
        for (i, _) in text.match_indices(&needle) {
            if boundary(i) {
                for tail in paths_after(text, i) {
                    named.push(module.iter().cloned().chain(tail).collect());
                }
            }
        }
        // `use name;`-free references such as `<name::View/>` are covered above
    }
    named
        .into_iter()
        .filter_map(|path| {
            (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| known.contains(p))
        })
        .filter(|target| target.as_slice() != module)
        .collect()
}

/// A cycle of `graph`, if it has one (depth-first search).
fn find_cycle(graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<Vec<String>>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        node: &Vec<String>,
        graph: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        marks: &mut BTreeMap<Vec<String>, Mark>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<Vec<String>>> {
        marks.insert(node.clone(), Mark::Open);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            match marks.get(next).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let from = stack.iter().position(|n| n == next).expect("on the stack");
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(c) = visit(next, graph, marks, stack) {
                        return Some(c);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        marks.insert(node.clone(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if marks.get(node).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(c) = visit(node, graph, &mut marks, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

/// The page's module files and their code.
fn page() -> (PathBuf, Vec<(PathBuf, Vec<String>, String)>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let mut files = Vec::new();
    for dir in PAGE {
        rust_files(&root.join(dir), &mut files);
    }
    files.sort();
    assert!(!files.is_empty(), "no page module found under {PAGE:?}");
    let modules = files
        .into_iter()
        .map(|f| {
            let text =
                std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            let module = module_of(&src, &f);
            (f, module, code(&text))
        })
        .collect();
    (src, modules)
}

#[test]
fn no_page_module_holds_a_thread_local() {
    let (_, modules) = page();
    let holders: Vec<String> = modules
        .iter()
        .filter(|(_, _, code)| code.contains("thread_local!"))
        .map(|(f, ..)| f.display().to_string())
        .collect();
    assert!(
        holders.is_empty(),
        "page modules hold a thread_local! (create the state in App and provide it as context): {holders:?}"
    );
}

#[test]
fn page_modules_import_no_cycle() {
    let (_, modules) = page();
    let known: BTreeSet<Vec<String>> = modules.iter().map(|(_, m, _)| m.clone()).collect();
    let graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = modules
        .iter()
        .map(|(_, m, code)| (m.clone(), imports(m, code, &known)))
        .collect();
    if let Some(cycle) = find_cycle(&graph) {
        let names: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
        panic!(
            "page modules import each other in a cycle: {}",
            names.join(" -> ")
        );
    }
}

#[test]
fn the_checker_finds_a_cycle_and_resolves_groups() {
    let m = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    let known: BTreeSet<Vec<String>> = ["app", "app::a", "app::b", "app::c"].map(m).into();
    let a = imports(
        &m("app::a"),
        "use super::{b::{X, Y}, c};\nfn f() { super::top(); }",
        &known,
    );
    assert_eq!(a, [m("app::b"), m("app::c"), m("app")].into());
    let parent = imports(&m("app"), "use a::X; let v = view! { <b::B/> };", &known);
    assert_eq!(parent, [m("app::a"), m("app::b")].into());
    let graph: BTreeMap<_, _> = [
        (m("app"), [m("app::a")].into()),
        (m("app::a"), [m("app::b")].into()),
        (m("app::b"), [m("app")].into()),
        (m("app::c"), BTreeSet::new()),
    ]
    .into();
    let cycle = find_cycle(&graph).expect("a cycle");
    assert_eq!(cycle.first(), cycle.last());
    assert_eq!(cycle.len(), 4);
}
