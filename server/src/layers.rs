//! The layers of lib.rs's doc block, checked against the sources: every `crate::X` a file
//! names (outside its tests) is a module of its own layer or one below, and no two modules
//! name each other, directly or around a circle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level modules by layer, top first (lib.rs and main.rs compose them all).
const LAYERS: &[&[&str]] = &[
    &["services", "node_port", "web_page"],
    &["node"],
    &["ladder", "tournament", "accounts", "connections"],
    &["server_tables"],
    &["status"],
    &["table"],
    &["address", "limits", "budget", "bot_cpu", "stopping", "tls", "refusal", "convert"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The crate's modules that `source` names: `crate::X` and `use crate::{X, ...}`.
fn named(source: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (at, _) in source.match_indices("crate::") {
        let rest = &source[at + "crate::".len()..];
        if let Some(list) = rest.strip_prefix('{') {
            // Names at the list's first level only: `{a::b, c}` names a and c.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in list.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && (c.is_alphanumeric() || c == '_') => {
                        names.insert(ident(&list[i..]));
                        start = false;
                    }
                    _ => {}
                }
            }
        } else if !ident(rest).is_empty() {
            names.insert(ident(rest));
        }
    }
    names
}

/// Each top-level module, and the modules its files name.
fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut arrows: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut dirs = vec![src.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "tests") {
                    dirs.push(path);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let Ok(relative) = path.strip_prefix(&src) else { continue };
            let top = relative.iter().next().and_then(|c| c.to_str()).unwrap_or_default();
            let top = top.trim_end_matches(".rs").to_string();
            // What composes everything, and this test's own examples.
            if top == "lib" || top == "main" || top == "layers" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            // A file's tests may reach anything.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            let to = arrows.entry(top.clone()).or_default();
            to.extend(named(code).into_iter().filter(|m| *m != top));
        }
    }
    arrows
}

#[test]
fn every_module_names_only_its_own_layer_and_those_below() {
    let arrows = arrows();
    assert!(arrows.len() > 10, "the sources were not found: {arrows:?}");
    let mut wrong = Vec::new();
    for (from, to) in &arrows {
        let Some(layer) = layer_of(from) else {
            wrong.push(format!("{from} is in no layer: add it to LAYERS and lib.rs's doc block"));
            continue;
        };
        for m in to {
            match layer_of(m) {
                Some(l) if l >= layer => {}
                Some(_) => wrong.push(format!("{from} names {m}, a layer above it")),
                None => wrong.push(format!("{from} names {m}, which is in no layer")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_modules_name_each_other() {
    let arrows = arrows();
    // Depth first from each module: reaching it again is a circle.
    for start in arrows.keys() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<Vec<&String>> = vec![vec![start]];
        while let Some(path) = stack.pop() {
            let Some(&last) = path.last() else { continue };
            for next in arrows.get(last).into_iter().flatten() {
                assert!(
                    next != start,
                    "a circle: {} -> {start}",
                    path.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(" -> ")
                );
                if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push(longer);
                }
            }
        }
    }
}

#[test]
fn the_names_a_file_uses_are_read_as_written() {
    let text =
        "use crate::{node::Dudo, table::{self, Command}, status};\nlet x = crate::budget::Budget::new(1);";
    let names: Vec<String> = named(text).into_iter().collect();
    assert_eq!(names, ["budget", "node", "status", "table"]);
}

/// The node's parts refuse in the server's own terms (`refusal::Refusal`, `AccountError`):
/// none of them names gRPC's status, nor the module that maps refusals onto it.
#[test]
fn the_parts_refuse_without_grpc() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("accounts.rs"), src.join("server_tables.rs")];
    for part in ["ladder", "tournament"] {
        for entry in std::fs::read_dir(src.join(part)).unwrap().flatten() {
            files.push(entry.path());
        }
    }
    let mut wrong = Vec::new();
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "rs")) {
        let text = std::fs::read_to_string(file).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (n, line) in code.lines().enumerate() {
            let line = line.trim_start();
            if line.starts_with("//") {
                continue;
            }
            // The update streams a part watches are the services' own type (`UpdateStream`).
            let wire =
                line.contains("Status::") || line.contains("use tonic") || line.contains("crate::status");
            if wire && !line.starts_with("pub(crate) type UpdateStream") {
                wrong.push(format!("{}:{}: {line}", file.display(), n + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "a part names gRPC's status:\n{}", wrong.join("\n"));
}
