//! docs/cli.md shows the command line's usage exactly as `boltzlab --help` prints it.
//!
//! The usage is the fenced `text` block right after the marker comment [`MARKER`] in
//! docs/cli.md. After changing the usage text in `src/bin/boltzlab/main.rs`, regenerate the
//! block with `UPDATE_CLI_DOCS=1 cargo test --release --test cli_docs` (it rewrites that
//! block only, then passes).

mod common;

use common::boltzlab;
use std::ops::Range;
use std::path::PathBuf;

/// The line just above the usage block in docs/cli.md.
const MARKER: &str =
    "<!-- usage: generated from `boltzlab --help`; checked by tests/cli_docs.rs -->";
const REGENERATE: &str = "UPDATE_CLI_DOCS=1 cargo test --release --test cli_docs";

fn cli_md() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/cli.md")
}

/// The byte range of the usage text in `doc`: from the line after the "```text" fence that
/// follows the marker line up to (and including the newline before) the closing fence.
fn usage_range(doc: &str) -> Range<usize> {
    let marker = doc
        .find(MARKER)
        .unwrap_or_else(|| panic!("docs/cli.md lacks the marker line {MARKER}"));
    let open = "\n```text\n";
    let after_marker = marker + MARKER.len();
    assert!(
        doc[after_marker..].starts_with(open),
        "docs/cli.md: the line after the marker must open a ```text fence"
    );
    let start = after_marker + open.len();
    let close = doc[start - 1..]
        .find("\n```")
        .expect("docs/cli.md: the usage block has a closing fence");
    start..start + close
}

/// `boltzlab` run with `args`: its stdout, after checking it succeeded quietly.
fn usage_printed_by(args: &[&str]) -> String {
    let (code, stdout, stderr) = boltzlab(args);
    assert_eq!(code, 0, "boltzlab {args:?} failed: {stderr}");
    assert!(
        stderr.is_empty(),
        "boltzlab {args:?} wrote to stderr: {stderr}"
    );
    stdout
}

/// A line diff of `docs` against `help` (longest common subsequence of lines): ' ' both,
/// '-' only in docs/cli.md, '+' only in `boltzlab --help`.
fn line_diff(docs: &str, help: &str) -> String {
    let a: Vec<&str> = docs.lines().collect();
    let b: Vec<&str> = help.lines().collect();
    // common[i][j] = length of the longest common subsequence of a[i..] and b[j..].
    let mut common = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            common[i][j] = if a[i] == b[j] {
                common[i + 1][j + 1] + 1
            } else {
                common[i + 1][j].max(common[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            out += &format!("  {}\n", a[i]);
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || common[i + 1][j] >= common[i][j + 1]) {
            out += &format!("- {}\n", a[i]);
            i += 1;
        } else {
            out += &format!("+ {}\n", b[j]);
            j += 1;
        }
    }
    out
}

#[test]
fn cli_md_usage_is_exactly_what_boltzlab_help_prints() {
    let help = usage_printed_by(&["--help"]);
    let path = cli_md();
    let doc = std::fs::read_to_string(&path).expect("docs/cli.md is readable");
    let range = usage_range(&doc);
    let shown = &doc[range.clone()];
    if shown == help {
        return;
    }
    if std::env::var("UPDATE_CLI_DOCS").as_deref() == Ok("1") {
        let mut updated = doc.clone();
        updated.replace_range(range, &help);
        std::fs::write(&path, updated).expect("docs/cli.md is writable");
        eprintln!("docs/cli.md: usage block regenerated from boltzlab --help");
        return;
    }
    panic!(
        "docs/cli.md's usage block differs from `boltzlab --help` \
         ('-' only in docs/cli.md, '+' only in --help):\n\n{}\n\
         Regenerate the block with: {REGENERATE}",
        line_diff(shown, &help)
    );
}

#[test]
fn help_h_and_no_arguments_print_the_same_usage_as_dash_dash_help() {
    // docs/cli.md says so; the usage block there is checked against --help alone.
    let help = usage_printed_by(&["--help"]);
    for args in [&["help"][..], &["-h"], &[]] {
        assert_eq!(usage_printed_by(args), help, "boltzlab {args:?}");
    }
}

#[test]
fn line_diff_marks_lines_only_in_the_docs_and_only_in_help() {
    let diff = line_diff("a\nb\nc\n", "a\nc\nd\n");
    assert_eq!(diff, "  a\n- b\n  c\n+ d\n");
    assert_eq!(line_diff("a\nx\n", "a\ny\n"), "  a\n- x\n+ y\n");
}
