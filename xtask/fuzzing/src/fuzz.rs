//! `cargo xtask fuzz [--seconds N] [TARGET...]`: seed the corpora from the spec vectors and run
//! each cargo-fuzz target (`fuzz/`) for N seconds (default 30), one a core at a time.
//!
//! Seeds are written at run time into `fuzz/corpus/<target>/` (gitignored):
//! - GraphBinary 4: every value vector of `spec/vectors/` (and of the shared canonical vectors
//!   when present) for `value` and `serde`, each one wrapped in a response and every response
//!   vector for `response`, and the element vectors in their bare form behind a type selector
//!   byte for `derived`;
//! - GraphBinary 1: TinkerPop's vectors (`../shared/vectors/graphbinary-v1/`) for `v1_value`,
//!   each also wrapped in a response message for `v1_response`, with our JanusGraph captures
//!   (`spec/vectors-v1/`);
//! - GraphSON: TinkerPop's GraphSON 3 vectors (`../shared/vectors/graphson-v3/`) wrapped in a
//!   response message (the message files as they are), and the same data written by the
//!   library as GraphSON 2 and as untyped GraphSON 2 and 3, for `graphson`;
//! - gremlin-lang literals for `lit`: a list of every literal form, and the arguments of the
//!   traversals of TinkerPop's Gherkin suite (when its gremlin-test jar is in `../shared`).
//!
//! Needs cargo-fuzz and the nightly toolchain; [`installed`] tells whether they are there
//! (`cargo xtask ci` runs [`run`] only then).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use graphbinary_conformance::features;
use graphbinary_regen as regen;

use crate::util::{cargo_fuzz_installed as installed, FUZZ_SECONDS as DEFAULT_SECONDS};

/// The fuzz targets, in the order they run.
pub const TARGETS: [&str; 8] = [
    "response",
    "value",
    "derived",
    "serde",
    "v1_value",
    "v1_response",
    "graphson",
    "lit",
];

/// Entry point of `cargo xtask fuzz`.
pub fn main(args: &[String]) -> Result<(), String> {
    let mut seconds = DEFAULT_SECONDS;
    let mut targets = Vec::new();
    let usage = format!(
        "usage: cargo xtask fuzz [--seconds N] [{}]",
        TARGETS.join("|")
    );
    let mut a = graphbinary_kit::args::Args::new(args, &usage);
    while let Some(arg) = a.next() {
        match arg {
            "--seconds" => seconds = a.parse(arg).map_err(|e| e.to_string())?,
            t if TARGETS.contains(&t) => targets.push(t.to_string()),
            other => return Err(a.unknown(other).to_string()),
        }
    }
    if a.helped() {
        return Ok(());
    }
    if !installed() {
        return Err("cargo-fuzz is not installed: `cargo install cargo-fuzz` (and `rustup toolchain install nightly`)".into());
    }
    if targets.is_empty() {
        return run_all(seconds);
    }
    run(&targets, seconds)
}

/// Seeds the corpora and runs every target for `seconds`: the step `cargo xtask ci` runs when
/// [`installed`] ([`DEFAULT_SECONDS`] a target).
pub fn run_all(seconds: u64) -> Result<(), String> {
    let targets: Vec<String> = TARGETS.iter().map(|t| t.to_string()).collect();
    run(&targets, seconds)
}

/// Seeds the corpora and runs each target for `seconds`, as many at once as there are cores
/// (libFuzzer runs one thread: on 2 cores two targets take the time of one); fails when a
/// target finds a crash (its input is in `fuzz/artifacts/<target>/`), after the others ran.
pub fn run(targets: &[String], seconds: u64) -> Result<(), String> {
    let root = regen::project_root();
    let n = seed(&root)?;
    eprintln!("fuzz: seeded {n} inputs from the spec vectors");
    if targets.len() > 1 {
        // Every target in one cargo build (the same options as `cargo fuzz run`'s, which then
        // finds them built): their crates compile and link side by side instead of one
        // target's build before each run (36 s of 8 sequential builds here after the first).
        let status = Command::new("cargo")
            .current_dir(root.join("fuzz"))
            .args(["+nightly", "fuzz", "build"])
            .status()
            .map_err(|e| format!("cargo fuzz build: {e}"))?;
        if !status.success() {
            return Err(format!("cargo fuzz build failed ({status})"));
        }
    }
    let jobs = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(targets.len());
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                while let Some(t) = targets.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if let Err(e) = run_one(&root, t, seconds, jobs > 1) {
                        failed.lock().unwrap_or_else(|e| e.into_inner()).push(e);
                    }
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// `cargo fuzz run TARGET` for `seconds`. With `quiet`, its output is kept and printed in one
/// piece at the end (targets running side by side would interleave their lines).
fn run_one(root: &Path, target: &str, seconds: u64, quiet: bool) -> Result<(), String> {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(root.join("fuzz"))
        .args(["+nightly", "fuzz", "run", target, "--"])
        .arg(format!("-max_total_time={seconds}"))
        .args([
            "-max_len=65536",
            "-timeout=10",
            "-rss_limit_mb=2048",
            "-print_final_stats=1",
        ]);
    let status = if quiet {
        eprintln!("fuzz: {target} for {seconds} s (output when it ends)");
        let out = cmd.output().map_err(|e| format!("cargo fuzz: {e}"))?;
        // One target's output as a whole, under stderr's lock.
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "fuzz: {target}, its output:");
        let _ = err.write_all(&out.stdout);
        let _ = err.write_all(&out.stderr);
        out.status
    } else {
        eprintln!("fuzz: {target} for {seconds} s");
        cmd.status().map_err(|e| format!("cargo fuzz: {e}"))?
    };
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "fuzz target {target} failed (crash input in fuzz/artifacts/{target}/)"
        ))
    }
}

/// Writes the seed corpora; returns how many files were written.
pub fn seed(root: &Path) -> Result<usize, String> {
    let spec = regen::load_spec(root).map_err(|e| e.to_string())?;
    let loaded = regen::vectors::load_all(root, &spec).map_err(|e| e.to_string())?;
    let mut values: Vec<(String, Vec<u8>)> = loaded
        .values
        .iter()
        .map(|v| (v.vector.name.clone(), v.bytes.clone()))
        .collect();
    let shared = std::env::var_os("GRAPHBINARY_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared"));
    if let Ok(dir) = std::fs::read_dir(shared.join("vectors/graphbinary-v4")) {
        for e in dir.flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "gbin") {
                if let Ok(b) = std::fs::read(&p) {
                    let name = p.file_stem().unwrap().to_string_lossy();
                    values.push((format!("shared-{name}"), b));
                }
            }
        }
    }
    let corpus = root.join("fuzz/corpus");
    let mut n = 0;
    let mut put = |target: &str, name: &str, bytes: &[u8]| -> Result<(), String> {
        let dir = corpus.join(target);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        std::fs::write(dir.join(name), bytes).map_err(|e| format!("{name}: {e}"))?;
        n += 1;
        Ok(())
    };
    // Selector bytes of the `derived` target, by type code.
    let derived: [(u8, u8); 11] = [
        (0x11, 0),
        (0x0d, 1),
        (0x12, 2),
        (0x0f, 3),
        (0x0e, 4),
        (0x04, 5),
        (0x81, 6),
        (0x22, 7),
        (0x18, 8),
        (0x20, 9),
        (0x2e, 10),
    ];
    for (name, bytes) in &values {
        // value: {capacity byte}{value}
        put("value", name, &[&[16u8][..], bytes].concat())?;
        // serde: {capacity byte}{value}
        put("serde", name, &[&[16u8][..], bytes].concat())?;
        // response: {capacity byte}{header}{value}{marker}{status 200}
        let resp = [
            &[16u8, 0x84, 0x00][..],
            bytes,
            &[0xfd, 0x00, 0x00, 0x00, 0x00, 0x00, 0xc8, 0x01, 0x01],
        ]
        .concat();
        put("response", name, &resp)?;
        if bytes.len() >= 2 && bytes[1] == 0x00 {
            if let Some((_, sel)) = derived.iter().find(|(c, _)| *c == bytes[0]) {
                put("derived", name, &[&[0x30 | sel][..], &bytes[2..]].concat())?;
            }
        }
    }
    for r in &loaded.responses {
        put("response", &r.vector.name, &[&[8u8][..], &r.bytes].concat())?;
    }
    for (target, name, bytes) in v1_seeds(root, &shared)
        .into_iter()
        .chain(graphson_seeds(&shared))
        .chain(lit_seeds())
    {
        put(target, &name, &bytes)?;
    }
    Ok(n)
}

/// A seed: its target, its file name, its bytes.
type Seed = (&'static str, String, Vec<u8>);

/// The `.EXT` files of `dir` by name (none when it is not there), sorted.
fn files(dir: &Path, ext: &str) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .filter_map(|p| {
            let name = p.file_stem()?.to_string_lossy().into_owned();
            Some((name, std::fs::read(&p).ok()?))
        })
        .collect();
    out.sort();
    out
}

/// A GraphBinary 1 response message of one value, as a 3.x server writes a batch:
/// `{0x81}{request id}{200}{""}{no attributes}{no meta}{List of the value}`.
fn v1_message(value: &[u8]) -> Vec<u8> {
    let mut m = vec![0x81, 0x00];
    m.extend_from_slice(&[0x41; 16]);
    m.extend_from_slice(&200i32.to_be_bytes());
    m.extend_from_slice(&[0x00, 0, 0, 0, 0]);
    m.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
    m.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 1]);
    m.extend_from_slice(value);
    m
}

/// `v1_value` (`{selector}{value}`: roomy buffer, or a 17-byte one) and `v1_response`
/// (`{selector}{message}`; selector bit 0 turns JanusGraph's custom types on).
fn v1_seeds(root: &Path, shared: &Path) -> Vec<Seed> {
    let mut out = Vec::new();
    for (name, bytes) in files(&shared.join("vectors/graphbinary-v1"), "gbin") {
        out.push(("v1_value", name.clone(), [&[0x50][..], &bytes].concat()));
        out.push((
            "v1_value",
            format!("{name}-small"),
            [&[0x10][..], &bytes].concat(),
        ));
        out.push((
            "v1_response",
            name,
            [&[0x00][..], &v1_message(&bytes)].concat(),
        ));
    }
    // Our JanusGraph captures: whole messages with custom types.
    let captures = std::fs::read_to_string(root.join("spec/vectors-v1/janusgraph-1.1.0.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok());
    let responses = captures
        .as_ref()
        .and_then(|t| t.get("response"))
        .and_then(|r| r.as_array());
    for r in responses.into_iter().flatten() {
        let (Some(name), Some(hex)) = (
            r.get("name").and_then(|v| v.as_str()),
            r.get("hex").and_then(|v| v.as_str()),
        ) else {
            continue;
        };
        let digits: String = hex.split_whitespace().collect();
        let Some(bytes) = (0..digits.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(digits.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()
        else {
            continue;
        };
        out.push((
            "v1_response",
            format!("janusgraph-{name}"),
            [&[0x01][..], &bytes].concat(),
        ));
    }
    out
}

/// A GraphSON response message of `data` (`typed`: GraphSON 3's typed attributes).
fn graphson_message(data: &str, typed3: bool) -> String {
    let empty = if typed3 {
        r#"{"@type":"g:Map","@value":[]}"#
    } else {
        "{}"
    };
    format!(
        r#"{{"requestId":"41d2e28a-20a4-4ab0-b379-d810dede3786","status":{{"message":"","code":200,"attributes":{empty}}},"result":{{"data":{data},"meta":{empty}}}}}"#
    )
}

/// `graphson` (`{selector}{message}`; selector bit 0: GraphSON 2, bit 1: untyped): TinkerPop's
/// GraphSON 3 vectors, and their data written as GraphSON 2 and untyped JSON by the library.
fn graphson_seeds(shared: &Path) -> Vec<Seed> {
    use graphbinary_client::fuzzing::graphson;
    let mut out = Vec::new();
    for (name, bytes) in files(&shared.join("vectors/graphson-v3"), "json") {
        let Ok(text) = String::from_utf8(bytes) else {
            continue;
        };
        let message = if text.contains("\"requestId\"") {
            text.clone()
        } else {
            graphson_message(&format!(r#"{{"@type":"g:List","@value":[{text}]}}"#), true)
        };
        out.push((
            "graphson",
            name.clone(),
            [b"\x00", message.as_bytes()].concat(),
        ));
        let Ok(m) = graphson::decode_response(message.as_bytes(), 3, true, &Default::default())
        else {
            continue;
        };
        for (sel, version, typed) in [(1u8, 2, true), (2, 3, false), (3, 2, false)] {
            if let Ok(data) = graphson::write(&m.data, version, typed) {
                let msg = graphson_message(&data, false);
                out.push((
                    "graphson",
                    format!("{name}-{sel}"),
                    [&[sel][..], msg.as_bytes()].concat(),
                ));
            }
        }
    }
    out
}

/// Every literal form of gremlin-lang, one seed each.
const LITERALS: &[&str] = &[
    "29",
    "-7i",
    "1L",
    "2147483648",
    "3b",
    "-3S",
    "0x1F",
    "017",
    "1_000",
    "99999999999999999999",
    "12N",
    "1.5",
    "1.5f",
    "1.5d",
    "1e3",
    "-12e-3m",
    "1.50M",
    "NaN",
    "Infinity",
    "-Infinity",
    "+Infinity",
    "true",
    "false",
    "null",
    "'marko'",
    r#""a\"b\n\t\u00e9\ud83d\ude00""#,
    r"'it\'s'",
    r#""x"c"#,
    "'y'c",
    "datetime('2020-01-02T03:04:05.5+01:30')",
    r#"DateTime("2023-08-08T00:00:30Z")"#,
    r#"UUID("f47af10b-58cc-4372-a567-0f02b2f3d479")"#,
    "UUID()",
    "Duration(1,500000000,false)",
    "Duration(5, 0)",
    r#"Binary("AQID")"#,
    "[]",
    "[:]",
    "{}",
    "{1, 1}",
    "[1, 2L, 3.0]",
    "[a:1, 'b c':[true,null]]",
    "[name:'marko', ages:[1:126]]",
    "[(1):'x', (T.id):2, ([1]):3, ({2}):4, ([a:1]):5]",
    "[1:2, -1.5:3, NaN:4]",
    "'a', 1, [x:{2}]",
];

/// `lit`: [`LITERALS`], and the argument lists of the Gherkin suite's traversals that start
/// with a literal (`inject(1, [a:2])` gives `1, [a:2]`).
fn lit_seeds() -> Vec<Seed> {
    let mut texts: Vec<String> = LITERALS.iter().map(|s| s.to_string()).collect();
    match features::default_features_dir().and_then(|d| features::load(&d)) {
        Ok(scenarios) => {
            let mut seen = std::collections::HashSet::new();
            for sc in &scenarios {
                for step in &sc.steps {
                    for args in step
                        .docstring
                        .as_deref()
                        .map(call_args)
                        .into_iter()
                        .flatten()
                    {
                        if seen.insert(args.clone()) {
                            texts.push(args);
                        }
                    }
                }
            }
        }
        Err(e) => eprintln!("fuzz: no Gherkin literals ({e:#}); the listed ones only"),
    }
    texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| ("lit", format!("lit-{i}"), t.into_bytes()))
        .collect()
}

/// The argument lists in `text` (what is between each `(` and its `)`) that start with a
/// literal.
fn call_args(text: &str) -> Vec<String> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    for (open, _) in text.match_indices('(') {
        let mut depth = 0usize;
        let mut quote = None;
        let mut end = None;
        let mut i = open;
        while i < b.len() {
            let c = b[i];
            match quote {
                Some(_) if c == b'\\' => i += 1,
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    b'\'' | b'"' => quote = Some(c),
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(i);
                            break;
                        }
                    }
                    _ => {}
                },
            }
            i += 1;
        }
        let Some(end) = end else { continue };
        let args = text[open + 1..end].trim();
        let literal_start = args
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || b"[{'\"-+".contains(&c))
            || [
                "datetime(",
                "UUID(",
                "Duration(",
                "Binary(",
                "NaN",
                "Infinity",
                "true",
                "false",
                "null",
            ]
            .iter()
            .any(|p| args.starts_with(p));
        if literal_start {
            out.push(args.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use graphbinary_client::fuzzing::lang::Lit;

    #[test]
    fn call_args_takes_the_argument_lists_that_start_with_a_literal() {
        let t = r#"g.inject(1, [a:2]).has('x(', 3).out().V(__.in()).is(datetime("2020-01-01"))"#;
        assert_eq!(
            call_args(t),
            vec![
                "1, [a:2]",
                "'x(', 3",
                r#"datetime("2020-01-01")"#,
                r#""2020-01-01""#
            ]
        );
    }

    /// Each listed literal reads as an argument list, so every seed starts inside the format.
    #[test]
    fn every_listed_literal_parses() {
        for text in LITERALS {
            let mut rest = *text;
            loop {
                let (_, used) = Lit::parse_prefix(rest).unwrap_or_else(|e| panic!("{text:?}: {e}"));
                rest = rest[used..].trim_start();
                match rest.strip_prefix(',') {
                    Some(r) => rest = r,
                    None => break,
                }
            }
            assert!(rest.is_empty(), "{text:?} leaves {rest:?}");
        }
    }
}
