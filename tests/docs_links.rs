//! Every relative link in README.md and docs/*.md leads somewhere: the file exists, and a
//! `#fragment` names a heading (GitHub's anchor for it) or an `<a id="…">` in that file.
//!
//! Links are the Markdown forms `[text](target)`, `![alt](target)` and `[label]: target`,
//! outside fenced code blocks and inline code. Targets with a scheme (`https:`, `mailto:`)
//! are not checked.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md.
fn markdown_files() -> Vec<PathBuf> {
    let mut files = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|entry| entry.expect("docs/ is readable").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// The lines of `text` that are prose, with their line numbers: outside ``` fences, with
/// inline code removed.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            lines.push((index + 1, without_inline_code(line)));
        }
    }
    lines
}

/// `line` with every code span (a run of n backticks up to the next run of n) removed.
fn without_inline_code(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let run = |at: usize| chars[at..].iter().take_while(|&&c| c == '`').count();
    let (mut out, mut i) = (String::new(), 0);
    while i < chars.len() {
        if chars[i] != '`' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let n = run(i);
        let mut j = i + n;
        let mut closed = None;
        while j < chars.len() {
            if chars[j] == '`' {
                let m = run(j);
                if m == n {
                    closed = Some(j + m);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => i = end,
            None => {
                out.extend(&chars[i..i + n]);
                i += n;
            }
        }
    }
    out
}

/// The link targets on one prose line: `](target)` with balanced parentheses, and
/// reference definitions `[label]: target`. A title after the target is dropped.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let mut depth = 0usize;
        let mut end = after.len();
        for (k, c) in after.char_indices() {
            match c {
                '(' => depth += 1,
                ')' if depth == 0 => {
                    end = k;
                    break;
                }
                ')' => depth -= 1,
                _ => {}
            }
        }
        targets.push(after[..end].to_string());
        rest = &after[end.min(after.len())..];
    }
    let trimmed = line.trim_start();
    if trimmed.starts_with('[')
        && let Some(close) = trimmed.find("]:")
    {
        targets.push(trimmed[close + 2..].to_string());
    }
    targets
        .into_iter()
        .map(|t| {
            let t = t.trim();
            let t = t
                .strip_prefix('<')
                .and_then(|t| t.strip_suffix('>'))
                .unwrap_or(t);
            t.split_whitespace().next().unwrap_or("").to_string()
        })
        .filter(|t| !t.is_empty())
        .collect()
}

/// GitHub's anchor for a heading: lower case, characters other than letters, digits,
/// spaces, '-' and '_' dropped, spaces turned into '-'.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors a Markdown file offers: its headings' slugs (repeats get -1, -2, …) and
/// the ids of `<a id="…">` elements.
fn anchors(text: &str) -> HashSet<String> {
    let mut found = HashSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..]);
            let mut name = base.clone();
            let mut repeat = 0;
            while found.contains(&name) {
                repeat += 1;
                name = format!("{base}-{repeat}");
            }
            found.insert(name);
        }
        let mut rest = line;
        while let Some(at) = rest.find("<a id=\"") {
            let after = &rest[at + 7..];
            let end = after.find('"').unwrap_or(after.len());
            found.insert(after[..end].to_string());
            rest = &after[end..];
        }
    }
    found
}

/// Why the link `target` in the file `from` leads nowhere, if it does.
fn broken(from: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return None;
    }
    let (path, fragment) = match target.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else {
        from.parent().expect("a file has a folder").join(path)
    };
    let relative = file.strip_prefix(root()).unwrap_or(&file).to_path_buf();
    if !file.exists() {
        return Some(format!("{} does not exist", relative.display()));
    }
    let fragment = fragment.filter(|f| !f.is_empty())?;
    if file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = std::fs::read_to_string(&file).expect("a linked Markdown file is readable");
    (!anchors(&text).contains(fragment))
        .then(|| format!("{} has no heading or id '#{fragment}'", relative.display()))
}

#[test]
fn every_relative_link_in_readme_and_docs_leads_to_a_file_and_heading_that_exist() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in markdown_files() {
        let text = std::fs::read_to_string(&file).expect("a Markdown file is readable");
        for (number, line) in prose_lines(&text) {
            for target in link_targets(&line) {
                checked += 1;
                if let Some(why) = broken(&file, &target) {
                    let name = file.strip_prefix(root()).unwrap_or(&file).display();
                    problems.push(format!("{name}:{number}: ({target}): {why}"));
                }
            }
        }
    }
    assert!(checked > 0, "no links found: is the scan broken?");
    assert!(
        problems.is_empty(),
        "broken links:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_link_scanner_reads_links_images_references_and_skips_code() {
    assert_eq!(
        link_targets(r#"see [a](docs/a.md#x) and ![b](b.png "title"), [c]: <c.md>"#),
        ["docs/a.md#x", "b.png"]
    );
    assert_eq!(link_targets("[c]: c.md"), ["c.md"]);
    assert_eq!(
        link_targets("[w](https://example.org/(x))"),
        ["https://example.org/(x)"]
    );
    assert_eq!(without_inline_code("a `[x](y)` b ``c ` d`` e"), "a  b  e");
    let prose = prose_lines("x\n```\n[a](gone.md)\n```\ny");
    assert_eq!(prose, [(1, "x".to_string()), (5, "y".to_string())]);
    assert_eq!(slug("What `make test` runs"), "what-make-test-runs");
    assert_eq!(
        slug("2. Ackley, Hinton & Sejnowski"),
        "2-ackley-hinton--sejnowski"
    );
    let found = anchors("# A\n## A\n<a id=\"x\"></a>\n```\n# not\n```\n");
    assert_eq!(found, HashSet::from(["a".into(), "a-1".into(), "x".into()]));
}
