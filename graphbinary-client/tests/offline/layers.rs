//! The client crate's modules form layers: each top-level module of `src/` names only modules
//! below it (`crate::x` paths), so no import circle spans two of them, and the two transports
//! under `transport/` do not name each other. ARCHITECTURE.md draws these layers; this test
//! reads the sources and fails on the first path that points up or sideways.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, lowest first. A module may name any module of a lower layer; the modules of one
/// layer are siblings that never name each other. `format/` and `protocol/` hold one module per
/// format and per protocol generation, each a layer of its own (`format/x` is `src/format/x.rs`
/// or `src/format/x/`).
const LAYERS: &[&[&str]] = &[
    &["value"],
    &["format/java"],
    &["format/graphbinary4", "format/text"],
    &["format/graphbinary1"],
    &["format/graphson"],
    &["lang"],
    &["format/de"],
    &["protocol/http4", "protocol/ws3"],
    &["transport"],
    &["client"],
    // Your types as elements: their errors are the client's `Error`; only `process` uses them.
    &["element"],
    &["process"],
    // Entry points for the fuzz targets (feature `test-util`, doc(hidden)): above everything.
    &["fuzzing"],
];

/// The folders whose children are layers of their own.
const SPLIT: &[&str] = &["format", "protocol"];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The layer name of a `crate::` path's segments: `format::graphson::Writer` is
/// `format/graphson`, `value::Value` is `value`.
fn module_of(path: &str) -> String {
    let mut segs = path.split("::").map(str::trim);
    let first = segs.next().unwrap_or("").to_owned();
    match segs.next() {
        Some(second) if SPLIT.contains(&first.as_str()) => format!("{first}/{second}"),
        _ => first,
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code of a file without its comments (line comments, doc comments and `/* */`), string
/// literals kept as they are.
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let (mut i, mut in_str) = (0, false);
    while i < b.len() {
        let c = b[i];
        if in_str {
            out.push(c as char);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            in_str = c != b'"';
            i += 1;
        } else if c == b'"' {
            in_str = true;
            out.push('"');
            i += 1;
        } else if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i = text[i..].find("*/").map_or(b.len(), |e| i + e + 2);
        } else if c == b'\'' && b.get(i + 2) == Some(&b'\'') {
            // A char literal such as '"': copied whole so that it opens no string.
            out.push_str(&text[i..i + 3]);
            i += 3;
        } else {
            out.push(c as char);
            i += 1;
        }
    }
    out
}

/// The first segment of every `crate::…` path in `code` (each name of a `crate::{a, b::c}`
/// group).
fn crate_paths(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // e.g. `graphbinary_core::…` is not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let first = module_of(item.trim());
                if !first.is_empty() {
                    names.push(first);
                }
            }
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            names.push(module_of(rest[..end].trim_end_matches(':')));
        }
    }
    names
}

/// What `lib.rs` re-exports at the root (`crate::Value`, `crate::ws`, ...): name → module.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let code = code(lib);
    for stmt in code.split(';') {
        let Some(at) = stmt.find("pub use ") else {
            continue;
        };
        let path = stmt[at + "pub use ".len()..].trim();
        // `a::b::{x, y::z}` or `a::b::x`: the module path before the group or the last name.
        let (module, items) = match path.find("::{") {
            Some(g) => (&path[..g], &path[g + 3..]),
            None => match path.rsplit_once("::") {
                Some(split) => split,
                None => continue,
            },
        };
        let items = items.trim_end_matches('}');
        for item in items.split(',') {
            let item = item.trim();
            let name = item.rsplit("::").next().unwrap_or(item).trim();
            if !name.is_empty() {
                map.insert(name.to_owned(), module.to_owned());
            }
        }
    }
    map
}

#[test]
fn each_module_names_only_the_layers_below_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let roots = root_reexports(&fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut seen = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let mut parts = rel.components().map(|c| c.as_os_str().to_str().unwrap());
        let first = parts.next().unwrap().trim_end_matches(".rs");
        if first == "lib" || first == "bin" {
            continue; // the crate root and the command-line tool (which uses the public API)
        }
        let module = match parts.next() {
            Some("mod.rs") if SPLIT.contains(&first) => continue, // an index: `mod` lines only
            Some(second) if SPLIT.contains(&first) => {
                format!("{first}/{}", second.trim_end_matches(".rs"))
            }
            _ => first.to_owned(),
        };
        let module = module.as_str();
        let own = layer_of(module).unwrap_or_else(|| {
            panic!(
                "src/{} is in no layer: add `{module}` to LAYERS (and ARCHITECTURE.md)",
                rel.display()
            )
        });
        seen += 1;
        let text = fs::read_to_string(file).unwrap();
        for name in crate_paths(&code(&text)) {
            // A root re-export (`crate::ReadOptions`) stands for the module it comes from,
            // followed through re-exported modules (`response` is `protocol::http4::response`).
            let mut target = name.replace('/', "::");
            for _ in 0..4 {
                let head = target.split("::").next().unwrap_or("").to_owned();
                match roots.get(&head) {
                    Some(from) => target = format!("{from}::{target}"),
                    None => break,
                }
            }
            let target = module_of(&target);
            if target == module || target == "graphbinary_core" {
                continue;
            }
            match layer_of(&target) {
                Some(l) if l < own => {}
                _ => wrong.push(format!(
                    "src/{} ({module}) names crate::{name} ({target}), which is not below it",
                    rel.display()
                )),
            }
        }
    }
    assert!(
        seen > 50,
        "only {seen} source files read: is src/ where it was?"
    );
    assert!(wrong.is_empty(), "paths pointing up:\n{}", wrong.join("\n"));
}

#[test]
fn the_transports_do_not_name_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/transport");
    let siblings = ["http", "ws"];
    let mut checked = 0;
    for sib in siblings {
        let mut files = Vec::new();
        rust_files(&src.join(sib), &mut files);
        assert!(!files.is_empty(), "no src/transport/{sib}/");
        for file in files {
            let text = code(&fs::read_to_string(&file).unwrap());
            for other in siblings.iter().filter(|o| **o != sib) {
                for needle in [
                    format!("crate::transport::{other}"),
                    format!("crate::{other}::"),
                    format!("super::super::{other}"),
                ] {
                    assert!(
                        !text.contains(&needle),
                        "{} names {needle}: the transports share only what is in transport/mod.rs",
                        file.display()
                    );
                }
            }
            // Nothing above the transports either.
            for above in ["crate::client", "crate::Client", "crate::process"] {
                assert!(!text.contains(above), "{} names {above}", file.display());
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked} transport files");
}

#[test]
fn the_reader_sees_paths_and_skips_comments() {
    let c = code("use crate::value::Value; // crate::client\n/* crate::process */ let s = \"//\"; crate::{de::x, v1};");
    assert_eq!(crate_paths(&c), ["value", "de", "v1"]);
    let c =
        code("use crate::format::graphson::Writer; crate::{format::de::x, protocol::ws3, value};");
    assert_eq!(
        crate_paths(&c),
        ["format/graphson", "format/de", "protocol/ws3", "value"]
    );
    assert_eq!(
        crate_paths("graphbinary_core::x; my_crate::y"),
        Vec::<String>::new()
    );
}
