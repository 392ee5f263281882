//! The tree's shape, checked: module circles inside each server crate.
//!
//! A module's edges are the other modules of its crate it names (`crate::…` and `super::…` paths,
//! `use` or inline), each to the deepest module the path reaches. An edge between a module and
//! its own ancestor or descendant is not counted: a parent declares its children and children
//! use their parent's items, which is how Rust nests modules. A circle is a set of modules that
//! reach each other (a strongly connected component of two or more).
//!
//! `tests/layout/circles.txt` lists the circles that exist today, one per line
//! (`crate: module module …`). The check fails on a circle that is not there (a new one, or one
//! that grew) and on a line that no longer matches (a circle broken or shrunk: write the smaller
//! set, or delete the line). The list only ever shrinks.

#![allow(clippy::unwrap_used)] // test code: a panic is the failure report

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One module per file: its path in the crate ("" for the root, `runs::tools` for
/// `runs/tools/mod.rs` or `runs/tools.rs`) and its source with comments removed.
fn modules(src: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let has_lib = src.join("lib.rs").exists();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            match parts.last().map(String::as_str) {
                Some("mod") => {
                    parts.pop();
                }
                Some("lib") if parts.len() == 1 => parts.clear(),
                Some("main") if parts.len() == 1 => {
                    if has_lib {
                        continue; // a binary beside the library: its `crate::` is another crate
                    }
                    parts.clear();
                }
                _ => {}
            }
            let text: String = std::fs::read_to_string(&path)
                .unwrap()
                .lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .collect::<Vec<_>>()
                .join("\n");
            out.insert(parts.join("::"), text);
        }
    }
    out
}

/// The identifier paths that follow `at` in `text`: `a::b::C`, or each item of a `{…}` group.
fn paths_after(text: &str, at: usize) -> Vec<Vec<String>> {
    let rest = &text[at..];
    let mut segments = Vec::new();
    let mut i = 0;
    let bytes = rest.as_bytes();
    loop {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
            i += 1;
        }
        if i > start {
            segments.push(rest[start..i].to_owned());
        }
        if rest[i..].starts_with("::{") {
            // A group: each top-level item is a path below what came before it.
            let open = i + 3;
            let mut depth = 1;
            let mut j = open;
            while j < bytes.len() && depth > 0 {
                match bytes[j] {
                    b'{' => depth += 1,
                    b'}' => depth -= 1,
                    _ => {}
                }
                j += 1;
            }
            let inner = &rest[open..j.saturating_sub(1)];
            let mut items = Vec::new();
            let (mut d, mut from) = (0, 0);
            for (k, c) in inner.char_indices() {
                match c {
                    '{' => d += 1,
                    '}' => d -= 1,
                    ',' if d == 0 => {
                        items.push(&inner[from..k]);
                        from = k + 1;
                    }
                    _ => {}
                }
            }
            items.push(&inner[from..]);
            return items
                .iter()
                .flat_map(|item| {
                    let item = item.trim();
                    paths_after(item, 0).into_iter().map(|p| segments.iter().cloned().chain(p).collect())
                })
                .collect();
        }
        if rest[i..].starts_with("::") {
            i += 2;
            continue;
        }
        return vec![segments];
    }
}

/// The modules `module` names, each the deepest module its path reaches.
fn edges(module: &str, text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let here: Vec<&str> = if module.is_empty() { Vec::new() } else { module.split("::").collect() };
    let mut out = BTreeSet::new();
    let mut reach = |base: Vec<String>, tail: Vec<String>| {
        let full: Vec<String> = base.into_iter().chain(tail).collect();
        let target = (1..=full.len()).rev().map(|n| full[..n].join("::")).find(|p| known.contains(p));
        if let Some(t) = target {
            out.insert(t);
        }
    };
    for (at, _) in text.match_indices("crate::") {
        if at > 0 && text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            continue; // `aware_crate::` and the like
        }
        for p in paths_after(text, at + "crate::".len()) {
            reach(Vec::new(), p);
        }
    }
    for (at, _) in text.match_indices("super::") {
        if at > 0 && text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue; // counted from its first `super::`
        }
        let mut ups = 1;
        let mut from = at + "super::".len();
        while text[from..].starts_with("super::") {
            ups += 1;
            from += "super::".len();
        }
        let base: Vec<String> = here[..here.len().saturating_sub(ups)].iter().map(|s| (*s).to_owned()).collect();
        for p in paths_after(text, from) {
            reach(base.clone(), p);
        }
    }
    let related = |other: &str| {
        let within = |a: &str, b: &str| a.is_empty() || b == a || b.starts_with(&format!("{a}::"));
        within(module, other) || within(other, module)
    };
    out.retain(|t| !related(t));
    out
}

/// The circles among `graph`'s modules (Tarjan's strongly connected components of two or more).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(lw));
            } else if s.on.contains(w) {
                let iw = s.index[w];
                let lv = s.low[v];
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                component.insert(w.to_owned());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

/// The circles inside the crate whose sources are in `src`.
fn crate_circles(src: &Path) -> Vec<BTreeSet<String>> {
    let modules = modules(src);
    let known: BTreeSet<String> = modules.keys().filter(|m| !m.is_empty()).cloned().collect();
    let graph = modules.iter().map(|(m, text)| (m.clone(), edges(m, text, &known))).collect();
    circles(&graph)
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn line(name: &str, circle: &BTreeSet<String>) -> String {
    format!("{name}: {}", circle.iter().cloned().collect::<Vec<_>>().join(" "))
}

#[test]
fn no_new_module_circle_in_any_server_crate() {
    let listed_path = root().join("tests/layout/circles.txt");
    let listed: BTreeSet<String> = std::fs::read_to_string(&listed_path)
        .unwrap()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect();
    let mut found = BTreeSet::new();
    let mut crates: Vec<PathBuf> =
        std::fs::read_dir(root().join("server")).unwrap().map(|e| e.unwrap().path().join("src")).collect();
    crates.sort();
    for src in crates.iter().filter(|s| s.is_dir()) {
        let name = src.parent().unwrap().file_name().unwrap().to_string_lossy().into_owned();
        for circle in crate_circles(src) {
            found.insert(line(&name, &circle));
        }
    }
    let new: Vec<&String> = found.difference(&listed).collect();
    let gone: Vec<&String> = listed.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "module circles differ from {}:\nnew or grown (break them — modules that name each other belong in one \
         module, or the shared part in a third):\n{}\nno longer there (write what is left, or delete the line):\n{}",
        listed_path.display(),
        new.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"),
        gone.iter().map(|l| format!("  {l}")).collect::<Vec<_>>().join("\n"),
    );
}

/// The check finds a circle planted in a crate, through `crate::` and `super::` paths and
/// groups, and none where modules only use their parent or a sibling one way.
#[test]
fn a_planted_circle_is_found_and_a_tree_without_one_passes() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("a/mod.rs", "mod inner;\nuse crate::b::Thing;\n");
    write("a/inner.rs", "use super::super::c::X; // the parent is not a circle\nuse super::Y;\n");
    write("b.rs", "use crate::{c::{X, Z}, c};\n// crate::a::inner in a comment is not an edge\n");
    write("c.rs", "pub struct X;\n");
    assert!(crate_circles(src).is_empty(), "a → b → c and a::inner → c, one way each: no circle");
    write("c.rs", "pub struct X;\nfn f() { crate::a::inner::g(); }\n");
    let found = crate_circles(src);
    assert_eq!(found.len(), 1, "{found:?}");
    let names: Vec<&str> = found[0].iter().map(String::as_str).collect();
    assert_eq!(names, ["a::inner", "c"], "c → a::inner → c (a reaches them, but nothing reaches a)");
}
