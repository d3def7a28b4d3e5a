//! A read never changes an engine: every worker answers `{type: 'read', name}` through
//! `readGetter` (www/worker_host.js), which refuses the names in its `CHANGING` list, so a
//! change reaches an engine only as a command. This checks that list against the engines'
//! wasm exports (src/web/): every export that takes `&mut self` (but `dispatch`, refused by
//! name) is in it, and every name in it is such an export. A new changing export that is
//! not added to the list fails here, and so does a stale name.

use std::collections::BTreeSet;

/// The facades whose classes the workers host behind `readGetter`: the lattice's IsingLab
/// (mod.rs), MachineLab, RbmLab and the pattern memory.
const HOSTED: &[&str] = &[
    "src/web/mod.rs",
    "src/web/machine.rs",
    "src/web/rbm.rs",
    "src/web/memory.rs",
];

/// The names of the `pub fn`s in `source` whose first parameter is `&mut self`, `dispatch`
/// aside. A signature may break its line after `(`.
fn changing_exports(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = source;
    while let Some(at) = rest.find("pub fn ") {
        rest = &rest[at + "pub fn ".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let Some(open) = rest.find('(') else { break };
        let first = rest[open + 1..].trim_start();
        if first.starts_with("&mut self") && name != "dispatch" {
            names.insert(name);
        }
    }
    names
}

/// The quoted names of `export const CHANGING = Object.freeze([ … ]);` in worker_host.js.
fn changing_list(js: &str) -> BTreeSet<String> {
    let start = js
        .find("export const CHANGING = Object.freeze([")
        .expect("worker_host.js exports CHANGING");
    let body = &js[start..];
    let body = &body[body.find('[').unwrap() + 1..body.find("]);").expect("the list ends")];
    body.split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            item.strip_prefix('\'')
                .and_then(|i| i.strip_suffix('\''))
                .unwrap_or_else(|| panic!("{item} is not a quoted name"))
                .to_string()
        })
        .collect()
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn reads_refuse_exactly_the_engines_changing_exports() {
    let mut exports = BTreeSet::new();
    for path in HOSTED {
        // (The memory's only changing export is `dispatch`.)
        exports.extend(changing_exports(&read(path)));
    }
    assert!(exports.len() > 20, "{exports:?}");
    let host = read("www/worker_host.js");
    let listed = changing_list(&host);
    let missing: Vec<_> = exports.difference(&listed).collect();
    let stale: Vec<_> = listed.difference(&exports).collect();
    assert!(
        missing.is_empty(),
        "changing exports a read would call (add them to CHANGING): {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "names in CHANGING that no engine exports as changing: {stale:?}"
    );
    // readGetter uses the list, and every worker that answers reads goes through readGetter.
    assert!(
        host.contains("CHANGING.includes(name)"),
        "readGetter refuses CHANGING"
    );
    for worker in [
        "www/lattice/worker.js",
        "www/machine/machine_worker.js",
        "www/machine/rbm_worker.js",
        "www/memory/worker.js",
    ] {
        assert!(
            read(worker).contains("readGetter(lab, name, args"),
            "{worker}"
        );
    }
}

#[test]
fn the_check_sees_a_new_changing_export_and_a_stale_name() {
    // The parser the test above relies on: a changing export written over two lines is
    // found, a reading and a constructor are not, and the list parser reads what it lists.
    let source = "impl X {\n    pub fn new() -> X { X }\n    pub fn count(&self) -> f64 { 0.0 }\n    \
                  pub fn set_rate(&mut self, r: f64) {}\n    pub fn jump(\n        &mut self,\n        \
                  by: f64,\n    ) {}\n    pub fn dispatch(&mut self, c: JsValue) {}\n}";
    let found = changing_exports(source);
    assert_eq!(
        found,
        BTreeSet::from(["jump".to_string(), "set_rate".to_string()])
    );
    let js = "export const CHANGING = Object.freeze([\n  'jump', 'set_rate',\n]);\n";
    assert_eq!(changing_list(js), found);
    let short = "export const CHANGING = Object.freeze(['jump']);";
    assert_ne!(changing_list(short), found, "a missing name is seen");
}
