//! The house's import rules, checked on the source itself (docs/architecture.md):
//! - a module imports only from its own layer or the layers below it, in the order
//!   error, rng, log_sum_exp → model → dynamics → exact → estimate → learn → app → web;
//! - the modules (files) of the library form no import loop.
//!
//! The check reads `crate::…` and `super::…` paths in code (comments are skipped) and
//! resolves each to the file that defines the module it names. A `mod.rs` and the files
//! below it are one family: a file may use what its parent re-exports, and a parent
//! declares and re-exports its children, so edges between a file and its own ancestors
//! or descendants are not loops. Deterministic: it cannot fail by chance.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom first. Every top-level module of the library must be listed.
const LAYERS: &[&[&str]] = &[
    // linalg (the dense f32 products) imports nothing of the crate: a leaf.
    &["error", "rng", "log_sum_exp", "linalg"],
    &["model"],
    &["dynamics"],
    &["exact"],
    &["estimate"],
    &["learn"],
    &["app"],
    &["web"],
];

fn layer_of(top: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&top))
}

/// Every `.rs` file of the library (not the CLI binary, which is its own crate and sits
/// above everything), with its module path: src/a/b.rs → [a, b], src/a/mod.rs → [a].
fn library_files() -> Vec<(Vec<String>, PathBuf)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).expect("src/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n == "bin") {
                    continue;
                }
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n != "lib.rs"))
        .map(|p| {
            let relative = p.strip_prefix(&root).expect("under src/");
            let mut segments: Vec<String> = relative
                .iter()
                .map(|s| s.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if segments.last().is_some_and(|s| s == "mod") {
                segments.pop();
            }
            (segments, p)
        })
        .collect()
}

/// The code of a file without its comments (line comments, doc comments and block
/// comments), so that a doc link such as [`crate::x::Y`] is not read as an import.
fn code_of(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        if in_string {
            if bytes[i] == b'\\' {
                i += 2;
                continue;
            }
            if bytes[i] == b'"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        if bytes[i] == b'"' {
            in_string = true;
            i += 1;
        } else if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
        } else if bytes[i..].starts_with(b"/*") {
            i = bytes[i + 2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(bytes.len(), |e| i + 2 + e + 2);
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The module paths named after `prefix::` at `start` in `code`: `a::b::C` gives [a, b]
/// (lower-case segments are modules), and a brace group `{a::X, b::{c, d}}` gives each.
fn paths_at(code: &str, start: usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let rest = &code[start..];
    if let Some(inner) = rest.strip_prefix('{') {
        let mut depth = 0usize;
        let mut item_start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    paths_at(&inner[..k], item_start, prefix, out);
                    return;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    paths_at(&inner[..k], item_start, prefix, out);
                    item_start = k + 1;
                }
                _ => {}
            }
        }
        return;
    }
    let trimmed = rest.trim_start();
    let offset = start + (rest.len() - trimmed.len());
    let mut path = prefix.to_vec();
    let mut at = offset;
    loop {
        let segment: String = code[at..].chars().take_while(|&c| is_ident(c)).collect();
        if segment.is_empty() || !segment.starts_with(|c: char| c.is_ascii_lowercase()) {
            break;
        }
        let after = at + segment.len();
        if segment == "self" {
            break;
        }
        path.push(segment);
        if code[after..].starts_with("::") {
            at = after + 2;
            if code[at..].starts_with('{') {
                paths_at(code, at, &path, out);
                return;
            }
        } else {
            // The last lower-case segment may be a function or a module: keep it, the
            // resolver drops what is not a module file.
            break;
        }
    }
    out.push(path);
}

/// Every module path a file's code names through `crate::` or `super::`.
fn references(module: &[String], is_mod_rs: bool, code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && code[..at].ends_with(|c: char| is_ident(c) || c == ':') {
            continue;
        }
        paths_at(code, at + "crate::".len(), &[], &mut out);
    }
    // `super` is the parent of the file's module (for mod.rs, of the directory's).
    let parent: Vec<String> = {
        let mut p = module.to_vec();
        p.pop();
        p
    };
    let _ = is_mod_rs;
    for (at, _) in code.match_indices("super::") {
        if at > 0 && code[..at].ends_with(|c: char| is_ident(c) || c == ':') {
            continue;
        }
        paths_at(code, at + "super::".len(), &parent, &mut out);
    }
    out
}

/// The longest prefix of `path` that is a module file.
fn resolve(path: &[String], modules: &BTreeSet<Vec<String>>) -> Option<Vec<String>> {
    (1..=path.len())
        .rev()
        .map(|k| path[..k].to_vec())
        .find(|p| modules.contains(p))
}

fn related(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

struct Graph {
    edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
    upward: Vec<String>,
    unlayered: BTreeSet<String>,
}

fn graph() -> Graph {
    let files = library_files();
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(m, _)| m.clone()).collect();
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    let mut upward = Vec::new();
    let mut unlayered = BTreeSet::new();
    for (module, path) in &files {
        let text = fs::read_to_string(path).expect("a source file is readable");
        let is_mod_rs = path.file_name().is_some_and(|n| n == "mod.rs");
        let Some(from_layer) = layer_of(&module[0]) else {
            unlayered.insert(module[0].clone());
            continue;
        };
        let out = edges.entry(module.clone()).or_default();
        for reference in references(module, is_mod_rs, &code_of(&text)) {
            let Some(target) = resolve(&reference, &modules) else {
                continue;
            };
            if let Some(to_layer) = layer_of(&target[0])
                && to_layer > from_layer
            {
                upward.push(format!(
                    "{} (layer {from_layer}) imports {} (layer {to_layer})",
                    module.join("::"),
                    reference.join("::")
                ));
            }
            if !related(module, &target) {
                out.insert(target);
            }
        }
    }
    Graph {
        edges,
        upward,
        unlayered,
    }
}

/// One import loop among the files, if there is one (depth-first search).
fn find_loop(edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>) -> Option<Vec<String>> {
    fn visit(
        node: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
    ) -> Option<Vec<String>> {
        state.insert(node.clone(), 1);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            match state.get(next).copied().unwrap_or(0) {
                1 => {
                    let start = stack.iter().position(|n| n == next).expect("on the stack");
                    let mut cycle: Vec<String> =
                        stack[start..].iter().map(|n| n.join("::")).collect();
                    cycle.push(next.join("::"));
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, edges, state, stack) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in edges.keys() {
        if state.get(node).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(cycle) = visit(node, edges, &mut state, &mut stack) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn every_top_level_module_has_a_layer() {
    let g = graph();
    assert!(
        g.unlayered.is_empty(),
        "modules with no layer in tests/architecture.rs (add them there and to docs/architecture.md): {:?}",
        g.unlayered
    );
}

#[test]
fn no_module_imports_from_a_layer_above_its_own() {
    let g = graph();
    assert!(
        g.upward.is_empty(),
        "upward imports:\n{}",
        g.upward.join("\n")
    );
}

#[test]
fn the_module_files_form_no_import_loop() {
    let g = graph();
    if let Some(cycle) = find_loop(&g.edges) {
        panic!("import loop: {}", cycle.join(" → "));
    }
}

#[test]
fn the_checker_sees_an_upward_import_and_a_loop() {
    // The parser itself: a grouped use, a nested group and a `super` path.
    let module = vec!["model".to_string(), "lattice".to_string()];
    let code = code_of(
        "use crate::{dynamics::{rules::heat_bath, SpinRng}, error::ParamError};\n\
         // use crate::learn::Ignored;\n\
         fn f() { super::network::pair_count(3); }",
    );
    let refs = references(&module, false, &code);
    let joined: Vec<String> = refs.iter().map(|r| r.join("::")).collect();
    assert!(
        joined.contains(&"dynamics::rules::heat_bath".to_string()),
        "{joined:?}"
    );
    assert!(joined.contains(&"dynamics".to_string()), "{joined:?}");
    assert!(joined.contains(&"error".to_string()), "{joined:?}");
    assert!(
        joined.contains(&"model::network::pair_count".to_string()),
        "{joined:?}"
    );
    assert!(
        !joined.iter().any(|j| j.starts_with("learn")),
        "comments are skipped: {joined:?}"
    );
    // A two-file loop is found.
    let a = vec!["x".to_string(), "a".to_string()];
    let b = vec!["x".to_string(), "b".to_string()];
    let edges = BTreeMap::from([
        (a.clone(), BTreeSet::from([b.clone()])),
        (b.clone(), BTreeSet::from([a.clone()])),
    ]);
    assert!(find_loop(&edges).is_some());
}

/// Every `.js` file of the page (www/, without the benchmark page www/bench/), with its text.
fn page_scripts() -> Vec<(String, String)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).expect("www/ is readable") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "bench") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "js") {
                out.push(path);
            }
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("www");
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(&root)
                .expect("under www/")
                .display()
                .to_string();
            (name, fs::read_to_string(&p).expect("a script is readable"))
        })
        .collect()
}

/// The page's modes share one frame loop: only www/app.js asks for animation frames.
#[test]
fn the_page_has_one_frame_loop() {
    let scripts = page_scripts();
    assert!(
        scripts.iter().any(|(name, _)| name == "app.js"),
        "www/app.js exists"
    );
    let others: Vec<&String> = scripts
        .iter()
        .filter(|(name, text)| name != "app.js" && code_of(text).contains("requestAnimationFrame"))
        .map(|(name, _)| name)
        .collect();
    assert!(
        others.is_empty(),
        "frame loops outside www/app.js: {others:?}"
    );
}

/// `window.boltzlab…` is for tests and the console: www/app.js defines those hooks, and
/// www/fault.js defines the one channel the engine's panic hook calls
/// (`boltzlabReportPanic`, src/web/mod.rs). No other page code names them.
#[test]
fn the_page_code_reads_no_test_hooks() {
    let offenders: Vec<String> = page_scripts()
        .into_iter()
        .filter(|(name, _)| name != "app.js" && name != "fault.js")
        .filter(|(_, text)| {
            code_of(text).contains("boltzlab") && code_of(text).contains("window.boltzlab")
        })
        .map(|(name, _)| name)
        .collect();
    assert!(
        offenders.is_empty(),
        "page code that reads window.boltzlab…: {offenders:?}"
    );
}
