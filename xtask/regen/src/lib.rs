//! `graphbinary-regen`: the code generator behind `cargo xtask regen [TARGET] [--check]`.
//!
//! It reads `spec/` and writes Rust into graphbinary-core and graphbinary-client, and depends on
//! neither (no bootstrapping: a spec change that breaks the generated code cannot break the tool
//! that regenerates it; `tests/bootstrap.rs` checks this on a copy with every generated file
//! deleted).
//!
//! Three stages per generator: parse the spec into a typed model ([`model`]), validate it
//! (errors name the spec file and entry), emit Rust with `quote!` + `prettyplease` ([`emit`]).
//! [`ensure_file`] is the one helper that writes: it compares with what is on disk and, in
//! check mode, fails naming the stale file and the command to run.
//!
//! Targets: `types` (`type_code.rs`, `elements.rs`, `mod.rs` in `graphbinary-client/src/value/generated/`
//! and `graphbinary-core/src/codes/generated.rs`, from `spec/types.toml`) and `vectors` (validates `spec/vectors/*.toml` against the types and
//! writes them as Rust data to `graphbinary-client/tests/offline/generated/spec_vectors.rs`, which only
//! the integration tests include), `v1` (`graphbinary-client/src/format/graphbinary1/codes.rs` from
//! `spec/graphbinary-v1.toml`, GraphBinary 1) and `steps` (the traversal API).

// A tool crate: its docs link its private modules (read with --document-private-items).
#![allow(rustdoc::private_intra_doc_links)]

pub mod emit;
pub mod model;
pub mod steps;
pub mod v1;
pub mod vectors;

use std::fmt;
use std::path::{Path, PathBuf};

/// A regen failure.
#[derive(Debug)]
pub enum Error {
    /// The spec is invalid.
    Spec(model::SpecErrors),
    /// A generated file differs from what is on disk (check mode).
    Stale {
        path: String,
        /// The regen target that writes it.
        target: &'static str,
    },
    /// Emitted tokens did not parse as a file (a bug in an emitter).
    Emit { path: String, source: syn::Error },
    /// Reading or writing a file failed.
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Bad command line.
    Usage(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Spec(e) => write!(f, "{e}"),
            Error::Stale { path, target } => write!(
                f,
                "{path} is out of date with spec/; run `cargo xtask regen {target}` and commit the result"
            ),
            Error::Emit { path, source } => write!(f, "generated code for {path} does not parse: {source}"),
            Error::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Error::Usage(m) => write!(f, "{m}\nusage: cargo xtask regen [types|vectors|v1|steps] [--check]"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Spec(e) => Some(e),
            Error::Emit { source, .. } => Some(source),
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<model::SpecErrors> for Error {
    fn from(e: model::SpecErrors) -> Self {
        Error::Spec(e)
    }
}

/// What a generator did to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Unchanged,
    Updated,
}

/// The repository root this crate was built from (`xtask/regen/`'s grandparent).
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("graphbinary-regen lives in xtask/regen/ of the repository")
        .to_path_buf()
}

/// Read a file relative to `root`.
pub fn read(root: &Path, rel: &str) -> Result<String, Error> {
    let path = root.join(rel);
    std::fs::read_to_string(&path).map_err(|source| Error::Io { path, source })
}

/// The one helper that writes generated files. Compares `contents` with the file at `rel`
/// (relative to `root`), line endings normalized (a checkout with CRLF endings is not stale);
/// in check mode a difference is an [`Error::Stale`] naming the regen `target`, otherwise the
/// file is (re)written.
pub fn ensure_file(
    root: &Path,
    rel: &str,
    contents: &str,
    check: bool,
    target: &'static str,
) -> Result<Outcome, Error> {
    let path = root.join(rel);
    let old = match std::fs::read_to_string(&path) {
        Ok(s) => Some(s),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => return Err(Error::Io { path, source }),
    };
    let normalize = |s: &str| s.replace("\r\n", "\n");
    if old.as_deref().map(normalize) == Some(normalize(contents)) {
        return Ok(Outcome::Unchanged);
    }
    if check {
        return Err(Error::Stale {
            path: rel.to_owned(),
            target,
        });
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(&path, contents).map_err(|source| Error::Io {
        path: path.clone(),
        source,
    })?;
    eprintln!("updated {rel}");
    Ok(Outcome::Updated)
}

/// Path of the types spec, relative to the root.
pub const TYPES_SPEC: &str = "spec/types.toml";
/// Where generated client code goes, relative to the root.
pub const GENERATED_DIR: &str = "graphbinary-client/src/value/generated";
/// The generated type code constants of core, relative to the root.
pub const CORE_CODES_RS: &str = "graphbinary-core/src/codes/generated.rs";

/// Parse and validate `spec/types.toml` under `root`.
pub fn load_spec(root: &Path) -> Result<model::Spec, Error> {
    let text = read(root, TYPES_SPEC)?;
    Ok(model::parse_types(TYPES_SPEC, &text)?)
}

/// Parse and validate `spec/graphbinary-v1.toml` under `root` against the GraphBinary 4 table.
pub fn load_v1(root: &Path, spec: &model::Spec) -> Result<Vec<v1::V1Type>, Error> {
    let text = read(root, v1::V1_SPEC)?;
    Ok(v1::parse(v1::V1_SPEC, &text, spec)?)
}

/// The files of the `types` target: (path relative to root, contents). The element structs
/// carry the GraphBinary 1 dialect of the types `spec/graphbinary-v1.toml` maps onto them.
pub fn types_files(root: &Path, spec: &model::Spec) -> Result<Vec<(String, String)>, Error> {
    let dialects = v1::dialects(&load_v1(root, spec)?, spec);
    let header = emit::header("types", TYPES_SPEC);
    let outputs = [
        (
            format!("{GENERATED_DIR}/type_code.rs"),
            emit::type_code(spec),
        ),
        (
            format!("{GENERATED_DIR}/elements.rs"),
            emit::elements(spec, &dialects),
        ),
        (format!("{GENERATED_DIR}/mod.rs"), emit::module()),
        (CORE_CODES_RS.to_owned(), emit::core_codes(spec)),
    ];
    outputs
        .into_iter()
        .map(|(path, tokens)| rendered(&header, path, tokens))
        .collect()
}

/// `(path, text)`: `tokens` formatted as the file `path` under `header`.
fn rendered(
    header: &str,
    path: String,
    tokens: proc_macro2::TokenStream,
) -> Result<(String, String), Error> {
    match emit::render(header, tokens) {
        Ok(text) => Ok((path, text)),
        Err(source) => Err(Error::Emit { path, source }),
    }
}

/// Generator of the `types` target.
pub fn generate_types(root: &Path, check: bool) -> Result<(), Error> {
    let spec = load_spec(root)?;
    for (path, text) in types_files(root, &spec)? {
        ensure_file(root, &path, &text, check, "types")?;
    }
    Ok(())
}

/// Path of the generated vector table, relative to the root.
pub const SPEC_VECTORS_RS: &str = "graphbinary-client/tests/offline/generated/spec_vectors.rs";

/// The file of the `vectors` target: (path relative to root, contents).
pub fn vectors_file(root: &Path, spec: &model::Spec) -> Result<(String, String), Error> {
    let loaded = vectors::load_all(root, spec)?;
    let header = emit::header("vectors", "spec/vectors/*.toml");
    rendered(
        &header,
        SPEC_VECTORS_RS.to_owned(),
        emit::spec_vectors(&loaded),
    )
}

/// Generator of the `vectors` target: validates `spec/vectors/` and writes the vector table.
pub fn generate_vectors(root: &Path, check: bool) -> Result<(), Error> {
    let spec = load_spec(root)?;
    let (path, text) = vectors_file(root, &spec)?;
    ensure_file(root, &path, &text, check, "vectors")?;
    Ok(())
}

/// The files of the `steps` target (the gremlin-lang tokens and the traversal API, from
/// `spec/steps.toml`): (path relative to root, contents).
pub fn steps_files(root: &Path) -> Result<Vec<(String, String)>, Error> {
    let text = read(root, steps::STEPS_SPEC)?;
    let spec = steps::parse(steps::STEPS_SPEC, &text)?;
    let header = emit::header("steps", steps::STEPS_SPEC);
    let (tokens, steps_api) = steps::emit(&spec);
    [(steps::TOKENS_RS, tokens), (steps::STEPS_RS, steps_api)]
        .into_iter()
        .map(|(path, ts)| rendered(&header, path.to_owned(), ts))
        .collect()
}

/// Generator of the `steps` target.
pub fn generate_steps(root: &Path, check: bool) -> Result<(), Error> {
    for (path, text) in steps_files(root)? {
        ensure_file(root, &path, &text, check, "steps")?;
    }
    Ok(())
}

/// The file of the `v1` target (GraphBinary 1 codes, from `spec/graphbinary-v1.toml`).
pub fn v1_file(root: &Path, spec: &model::Spec) -> Result<(String, String), Error> {
    let types = load_v1(root, spec)?;
    let header = emit::header("v1", v1::V1_SPEC);
    rendered(&header, v1::V1_CODES_RS.to_owned(), v1::emit(&types))
}

/// Generator of the `v1` target.
pub fn generate_v1(root: &Path, check: bool) -> Result<(), Error> {
    let spec = load_spec(root)?;
    let (path, text) = v1_file(root, &spec)?;
    ensure_file(root, &path, &text, check, "v1")?;
    Ok(())
}

/// Run every generator (or one `target`).
pub fn generate(root: &Path, target: Option<&str>, check: bool) -> Result<(), Error> {
    match target {
        None => {
            generate_types(root, check)?;
            generate_vectors(root, check)?;
            generate_v1(root, check)?;
            generate_steps(root, check)
        }
        Some("v1") => generate_v1(root, check),
        Some("steps") => generate_steps(root, check),
        Some("types") => generate_types(root, check),
        Some("vectors") => generate_vectors(root, check),
        Some(other) => Err(Error::Usage(format!("unknown regen target `{other}`"))),
    }
}

/// Every generated file under `root` as the generators would write it: (path relative to
/// `root`, contents). Reads only `spec/`.
pub fn all_files(root: &Path) -> Result<Vec<(String, String)>, Error> {
    let spec = load_spec(root)?;
    let mut files = types_files(root, &spec)?;
    files.push(vectors_file(root, &spec)?);
    files.push(v1_file(root, &spec)?);
    files.extend(steps_files(root)?);
    Ok(files)
}

/// Entry point for `cargo xtask regen ARGS` (the repository this crate was built from).
pub fn run(args: &[String]) -> Result<(), Error> {
    run_in(&project_root(), args)
}

/// `run` on the repository at `root` (`--root DIR` of the `graphbinary-regen` binary).
pub fn run_in(root: &Path, args: &[String]) -> Result<(), Error> {
    let mut check = false;
    let mut target = None;
    for a in args {
        match a.as_str() {
            "--check" => check = true,
            s if s.starts_with('-') => return Err(Error::Usage(format!("unknown option `{s}`"))),
            s if target.is_none() => target = Some(s),
            s => return Err(Error::Usage(format!("unexpected argument `{s}`"))),
        }
    }
    generate(root, target, check)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stale output is caught here (and by the CI step `cargo xtask regen --check`).
    #[test]
    fn generated_files_are_fresh() {
        if let Err(e) = generate(&project_root(), None, true) {
            panic!("{e}");
        }
    }

    /// Every generated file: (path, contents).
    fn all_files() -> Vec<(String, String)> {
        super::all_files(&project_root()).unwrap()
    }

    #[test]
    fn generated_rust_parses_and_starts_with_header() {
        for (path, text) in all_files() {
            let first = text.lines().next().unwrap();
            assert!(
                first.starts_with("// @generated by `cargo xtask regen ")
                    && first.contains(" from spec/")
                    && first.ends_with(". Do not edit."),
                "{path}: {first}"
            );
            syn::parse_file(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
        }
    }

    /// `cargo fmt --check` must accept `mod.rs` unchanged; it declares the other generated
    /// files `#[rustfmt::skip]`, so rustfmt leaves their prettyplease formatting alone.
    #[test]
    fn generated_mod_rs_is_rustfmt_stable() {
        use std::io::Write;
        use std::process::{Command, Stdio};
        for (path, text) in all_files() {
            if !path.ends_with("/mod.rs") {
                continue;
            }
            let child = Command::new("rustfmt")
                .args(["--edition", "2021", "--emit", "stdout"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn();
            let mut child = match child {
                Ok(c) => c,
                Err(e) => {
                    assert!(
                        std::env::var_os("CI").is_none(),
                        "rustfmt not runnable: {e}"
                    );
                    let line = format!(
                        "NOTICE: generated_mod_rs_is_rustfmt_stable SKIPPED: rustfmt not runnable ({e}); formatting of {path} not checked"
                    );
                    eprintln!("{line}");
                    if let Some(log) = std::env::var_os("GRAPHBINARY_SKIP_LOG") {
                        use std::io::Write as _;
                        if let Ok(mut f) = std::fs::OpenOptions::new()
                            .create(true)
                            .append(true)
                            .open(log)
                        {
                            // One write, as tests/common/skip.rs does: a line of its own.
                            let _ = f.write_all(format!("{line}\n").as_bytes());
                        }
                    }
                    return;
                }
            };
            child
                .stdin
                .take()
                .unwrap()
                .write_all(text.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "rustfmt failed on {path}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let formatted = String::from_utf8(out.stdout).unwrap();
            assert_eq!(formatted, text, "rustfmt would change {path}");
        }
    }

    /// The text of the generated file of the `types` target whose path ends with `name`.
    fn types_file(name: &str) -> String {
        let spec = load_spec(&project_root()).unwrap();
        let files = types_files(&project_root(), &spec).unwrap();
        files
            .into_iter()
            .find(|(p, _)| p.ends_with(name))
            .unwrap()
            .1
    }

    #[test]
    fn type_code_covers_every_spec_code() {
        let type_code = &types_file("type_code.rs");
        let file = syn::parse_file(type_code).unwrap();
        let en = file
            .items
            .iter()
            .find_map(|i| match i {
                syn::Item::Enum(e) if e.ident == "TypeCode" => Some(e),
                _ => None,
            })
            .expect("enum TypeCode");
        let got: Vec<(String, String)> = en
            .variants
            .iter()
            .map(|v| {
                let (_, syn::Expr::Lit(lit)) = v.discriminant.as_ref().unwrap() else {
                    panic!()
                };
                let syn::Lit::Int(i) = &lit.lit else { panic!() };
                (v.ident.to_string(), i.to_string())
            })
            .collect();
        // The codes of the GraphBinary 4 spec, "Data Type Codes", written out independently.
        let expected = [
            ("Int", "0x01"),
            ("Long", "0x02"),
            ("String", "0x03"),
            ("DateTime", "0x04"),
            ("Double", "0x07"),
            ("Float", "0x08"),
            ("List", "0x09"),
            ("Map", "0x0a"),
            ("Set", "0x0b"),
            ("Uuid", "0x0c"),
            ("Edge", "0x0d"),
            ("Path", "0x0e"),
            ("Property", "0x0f"),
            ("Graph", "0x10"),
            ("Vertex", "0x11"),
            ("VertexProperty", "0x12"),
            ("Direction", "0x18"),
            ("T", "0x20"),
            ("BigDecimal", "0x22"),
            ("BigInteger", "0x23"),
            ("Byte", "0x24"),
            ("Binary", "0x25"),
            ("Short", "0x26"),
            ("Boolean", "0x27"),
            ("Tree", "0x2b"),
            ("Merge", "0x2e"),
            ("Char", "0x80"),
            ("Duration", "0x81"),
            ("CompositePdt", "0xf0"),
            ("PrimitivePdt", "0xf1"),
            ("Marker", "0xfd"),
            ("UnspecifiedNull", "0xfe"),
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(got, expected);
    }

    #[test]
    fn elements_carry_the_derive_attributes() {
        let elements = &types_file("elements.rs");
        for needle in [
            "#[graphbinary(type_code = 0x11, v1)]\npub struct Vertex {",
            "    #[graphbinary(v1 = \"string\")]\n    pub label: Labels,",
            "#[graphbinary(type_code = 0x04, v1_type_code = 0x88)]\npub struct DateTime {",
            "    #[graphbinary(fq, nullable)]\n    pub properties: Option<Vec<VertexProperty>>,",
            "    #[graphbinary(fq)]\n    pub labels: Vec<Set<Arc<str>>>,",
            "#[graphbinary(type_code = 0x18, v1, enum_string)]\npub enum Direction {",
            "    #[graphbinary(rename = \"onCreate\")]\n    OnCreate,",
            "pub struct BigDecimal {",
            "use crate::value::BigInteger;",
            "use crate::value::Value;",
            "use graphbinary_core::Set;",
            "use std::sync::Arc;",
        ] {
            assert!(
                elements.contains(needle),
                "elements.rs lacks {needle:?}:\n{elements}"
            );
        }
        // Special kinds are hand-written, not generated.
        assert!(!elements.contains("pub struct Graph"));
        assert!(!elements.contains("pub struct Tree"));
    }

    #[test]
    fn ensure_file_check_mode_names_stale_file() {
        let dir = std::env::temp_dir().join(format!("xtask-regen-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(
            ensure_file(&dir, "a/x.rs", "one\n", false, "types").unwrap(),
            Outcome::Updated
        );
        assert_eq!(
            ensure_file(&dir, "a/x.rs", "one\n", true, "types").unwrap(),
            Outcome::Unchanged
        );
        // A CRLF checkout of the same contents is not stale.
        std::fs::write(dir.join("a/x.rs"), "one\r\n").unwrap();
        assert_eq!(
            ensure_file(&dir, "a/x.rs", "one\n", true, "types").unwrap(),
            Outcome::Unchanged
        );
        std::fs::write(dir.join("a/x.rs"), "one\n").unwrap();
        let err = ensure_file(&dir, "a/x.rs", "two\n", true, "types").unwrap_err();
        assert_eq!(
            err.to_string(),
            "a/x.rs is out of date with spec/; run `cargo xtask regen types` and commit the result"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("a/x.rs")).unwrap(),
            "one\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
