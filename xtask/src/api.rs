//! `cargo xtask api [--check]`: graphbinary-client's public API as normalised text, written
//! to `graphbinary-client/api.txt`, so that every change of the surface shows in review.
//!
//! The listing comes from rustdoc's JSON output on the nightly toolchain (`cargo +nightly
//! rustdoc -p graphbinary-client --lib --features sigv4,metrics -- -Z unstable-options
//! --output-format json`: the default features plus `sigv4` and `metrics`; not `cli`, not
//! `test-util`; rustdoc leaves `#[doc(hidden)]` items out). The JSON is read generically
//! (`serde_json::Value`, no typed model of one format version), and what a new nightly may
//! change without the API changing is normalised away: field names that were renamed between
//! format versions are read under either name, auto-trait impls are kept only for the stable
//! auto traits (`Send`, `Sync`, `Unpin`, `UnwindSafe`, `RefUnwindSafe`), and paths are
//! printed as the crate's public path (or, for other crates, rustdoc's canonical path), never
//! as written in the source.
//!
//! One line per item, `<path> <kind>[ <signature>]`, sorted and without duplicates:
//! modules, structs, enums, unions, traits, functions, constants, statics, type aliases and
//! macros under every public path they are reachable by (a re-export at another path is
//! listed as `= <primary path>`), and under the primary path (the shortest) their public
//! fields, variants, inherent methods and associated items, and their trait impls
//! (`impl ...`; blanket impls of other crates' traits left out). A trait lists its items and
//! its impls for types that are not this crate's (those are listed with the type).
//!
//! `--check` fails, printing the changed lines, when the checked-in file differs; it runs as a
//! step of `cargo xtask ci`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::process::Command;

use anyhow::{bail, Context, Result};
use serde_json::Value as J;

use crate::util::{project_root, run};

/// The snapshot, relative to the workspace root.
const API_FILE: &str = "graphbinary-client/api.txt";
/// Features documented besides the default ones.
const FEATURES: &str = "sigv4,metrics";
/// The rustdoc JSON format version this normaliser was last checked against (a different one
/// is read all the same, with a note).
const KNOWN_FORMAT_VERSION: u64 = 57;
/// The auto traits whose impls (rustdoc's synthetic ones) are part of the snapshot; nightly-only
/// ones (`Freeze`, `UnsafeUnpin`...) come and go with the toolchain and are left out.
const STABLE_AUTO_TRAITS: &[&str] = &["Send", "Sync", "Unpin", "UnwindSafe", "RefUnwindSafe"];

const HELP: &str = "usage: cargo xtask api [--check]

Writes graphbinary-client's public API (default features + sigv4,metrics; rustdoc JSON from the
nightly toolchain) as sorted text to graphbinary-client/api.txt.

  --check  write nothing; fail with the changed lines if graphbinary-client/api.txt is stale";

/// `cargo xtask api ...`
pub fn cli(args: &[String]) -> Result<()> {
    let mut check = false;
    let mut a = graphbinary_kit::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--check" => check = true,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    let json = rustdoc_json()?;
    let api = Api::from_json(&json)?;
    let text = api.text();
    let path = project_root().join(API_FILE);
    let summary = format!(
        "{} lines; {} public names at the root; {} public error types ({})",
        api.lines.len(),
        api.root_names().len(),
        api.error_types().len(),
        api.error_types().join(", ")
    );
    if check {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        if old != text {
            eprint!("{}", diff(&old, &text));
            bail!("{API_FILE} is stale: run `cargo xtask api` and commit it (the public API changed, or the snapshot was edited by hand)");
        }
        println!("{API_FILE} is up to date: {summary}");
    } else {
        std::fs::write(&path, &text).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {API_FILE}: {summary}");
    }
    Ok(())
}

/// The lines only in `old` (`-`) and only in `new` (`+`), in the order of the sorted files.
fn diff(old: &str, new: &str) -> String {
    let old_lines: BTreeSet<&str> = old.lines().collect();
    let new_lines: BTreeSet<&str> = new.lines().collect();
    let mut all: Vec<(&str, char)> = old_lines
        .difference(&new_lines)
        .map(|l| (*l, '-'))
        .chain(new_lines.difference(&old_lines).map(|l| (*l, '+')))
        .collect();
    all.sort();
    let mut out = String::new();
    for (line, sign) in all {
        out.push(sign);
        out.push(' ');
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// Runs nightly rustdoc with JSON output and reads what it wrote.
fn rustdoc_json() -> Result<J> {
    let root = project_root();
    let mut cmd = Command::new("cargo");
    cmd.current_dir(&root)
        // The outer `cargo run`'s toolchain must not override `+nightly`.
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("RUSTC")
        .env_remove("RUSTDOC")
        .env_remove("RUSTDOCFLAGS")
        .args([
            "+nightly",
            "rustdoc",
            "--quiet",
            "-p",
            "graphbinary-client",
            "--lib",
            "--features",
            FEATURES,
            "--",
            "-Z",
            "unstable-options",
            "--output-format",
            "json",
            // The snapshot needs the JSON, not a clean doc build (`cargo xtask ci`'s doc step
            // checks links).
            "-A",
            "warnings",
        ]);
    run(&mut cmd).context(
        "rustdoc JSON needs the nightly toolchain (`rustup toolchain install nightly --profile minimal`)",
    )?;
    let file = target_dir()?.join("doc/graphbinary_client.json");
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    serde_json::from_str(&text).with_context(|| format!("parsing {}", file.display()))
}

/// Cargo's target directory for this workspace (whatever `CARGO_TARGET_DIR` or a config says).
fn target_dir() -> Result<std::path::PathBuf> {
    let out = Command::new("cargo")
        .current_dir(project_root())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .context("running cargo metadata")?;
    if !out.status.success() {
        bail!(
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let meta: J = serde_json::from_slice(&out.stdout).context("parsing cargo metadata")?;
    let dir = meta["target_directory"]
        .as_str()
        .context("cargo metadata without target_directory")?;
    Ok(dir.into())
}

/// A JSON id (a number in recent formats, a string in older ones) as the key of `index`.
fn key(id: &J) -> Option<String> {
    match id {
        J::Number(n) => Some(n.to_string()),
        J::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// An externally tagged enum value: `{"tag": data}` or `"tag"` (unit variant).
fn tagged(v: &J) -> Option<(&str, &J)> {
    match v {
        J::String(s) => Some((s.as_str(), &J::Null)),
        J::Object(m) if m.len() == 1 => m.iter().next().map(|(k, v)| (k.as_str(), v)),
        _ => None,
    }
}

/// The first of `names` present (and not null) in `v`: a field renamed between format versions.
fn field<'a>(v: &'a J, names: &[&str]) -> &'a J {
    names
        .iter()
        .map(|n| &v[*n])
        .find(|f| !f.is_null())
        .unwrap_or(&J::Null)
}

fn str_of(v: &J) -> &str {
    v.as_str().unwrap_or("")
}

fn array(v: &J) -> &[J] {
    v.as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn flag(v: &J, names: &[&str]) -> bool {
    field(v, names).as_bool().unwrap_or(false)
}

/// An item's kind and its kind-specific data (`"inner": {"struct": {...}}` in recent formats,
/// `"kind": "struct", "inner": {...}` in old ones).
fn kind_of(item: &J) -> (&str, &J) {
    if let Some(kind) = item["kind"].as_str() {
        return (kind, &item["inner"]);
    }
    tagged(&item["inner"]).unwrap_or(("?", &J::Null))
}

fn attrs_text(item: &J) -> Vec<String> {
    array(&item["attrs"])
        .iter()
        .map(|a| match a {
            J::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect()
}

fn is_hidden(item: &J) -> bool {
    attrs_text(item)
        .iter()
        .any(|a| a.replace(' ', "").contains("doc(hidden)"))
}

/// ` #[non_exhaustive]` / ` #[deprecated]` when they apply.
fn marks(item: &J) -> String {
    let mut out = String::new();
    if attrs_text(item)
        .iter()
        .any(|a| a == "non_exhaustive" || a.trim() == "#[non_exhaustive]")
    {
        out.push_str(" #[non_exhaustive]");
    }
    if !item["deprecation"].is_null() {
        out.push_str(" #[deprecated]");
    }
    out
}

/// What a public path leads to.
enum Target {
    /// An item of this crate (its id).
    Local(String),
    /// A re-export of another crate's item: its canonical path and kind.
    External(String, String),
}

/// The normalised API: the lines, and what the counts need.
struct Api {
    lines: BTreeSet<String>,
    /// Every public path and what it leads to.
    entries: Vec<(String, Target)>,
    /// Names of local items that implement `std::error::Error`.
    error_impls: BTreeSet<String>,
}

struct Walker<'a> {
    index: &'a serde_json::Map<String, J>,
    paths: &'a serde_json::Map<String, J>,
    entries: Vec<(String, Target)>,
    /// Primary (shortest, then smallest) public path of each local item, by id.
    primary: HashMap<String, String>,
    lines: BTreeSet<String>,
    error_impls: BTreeSet<String>,
}

impl Api {
    fn from_json(json: &J) -> Result<Api> {
        let version = json["format_version"].as_u64().unwrap_or(0);
        if version != KNOWN_FORMAT_VERSION {
            eprintln!(
                "note: rustdoc JSON format version {version} (the normaliser was last checked against {KNOWN_FORMAT_VERSION}); a snapshot diff that is not an API change means xtask/src/api.rs needs a look"
            );
        }
        let index = json["index"]
            .as_object()
            .context("rustdoc JSON without an index")?;
        let paths = json["paths"]
            .as_object()
            .context("rustdoc JSON without paths")?;
        let root_id = key(&json["root"]).context("rustdoc JSON without a root")?;
        let root = index
            .get(&root_id)
            .context("the root module is not in the index")?;
        let crate_name = str_of(&root["name"]).to_string();
        let mut w = Walker {
            index,
            paths,
            entries: Vec::new(),
            primary: HashMap::new(),
            lines: BTreeSet::new(),
            error_impls: BTreeSet::new(),
        };
        let mut stack = vec![root_id.clone()];
        w.walk_module(root, &crate_name, &mut stack);
        w.entries.push((crate_name.clone(), Target::Local(root_id)));
        // The primary path of each local item: the shortest, then the smallest.
        let mut primary: HashMap<String, String> = HashMap::new();
        for (path, target) in &w.entries {
            if let Target::Local(id) = target {
                let better = match primary.get(id) {
                    None => true,
                    Some(old) => {
                        (path.matches("::").count(), path.as_str())
                            < (old.matches("::").count(), old.as_str())
                    }
                };
                if better {
                    primary.insert(id.clone(), path.clone());
                }
            }
        }
        w.primary = primary;
        let entries = std::mem::take(&mut w.entries);
        for (path, target) in &entries {
            w.render_entry(path, target);
        }
        Ok(Api {
            lines: w.lines,
            entries,
            error_impls: w.error_impls,
        })
    }

    fn text(&self) -> String {
        let mut out = String::new();
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }

    /// The distinct names directly at the crate root.
    fn root_names(&self) -> BTreeSet<&str> {
        self.entries
            .iter()
            .filter_map(|(path, _)| {
                let mut parts = path.split("::");
                let _crate = parts.next();
                let name = parts.next();
                if parts.next().is_some() {
                    None
                } else {
                    name
                }
            })
            .collect()
    }

    /// Public error types: local types whose name ends in `Error` or that implement
    /// `std::error::Error`, and re-exported ones whose name ends in `Error`; each once, by
    /// its primary path.
    fn error_types(&self) -> Vec<String> {
        let mut by_target: BTreeMap<String, String> = BTreeMap::new();
        for (path, target) in &self.entries {
            let name = path.rsplit("::").next().unwrap_or("");
            let (ident, is_type) = match target {
                Target::Local(id) => (id.clone(), !path.contains('!')),
                Target::External(p, kind) => (
                    format!("ext:{p}"),
                    matches!(kind.as_str(), "struct" | "enum" | "union" | "type_alias"),
                ),
            };
            let is_error = name.ends_with("Error") || self.error_impls.contains(&ident);
            if is_type && is_error {
                let entry = by_target.entry(ident).or_insert_with(|| path.clone());
                if (path.matches("::").count(), path.as_str())
                    < (entry.matches("::").count(), entry.as_str())
                {
                    *entry = path.clone();
                }
            }
        }
        let mut out: Vec<String> = by_target.into_values().collect();
        out.sort();
        out
    }
}

impl<'a> Walker<'a> {
    fn item(&self, id: &J) -> Option<&'a J> {
        self.index.get(&key(id)?)
    }

    /// Collects the public paths under `module` (named `prefix`).
    fn walk_module(&mut self, module: &J, prefix: &str, stack: &mut Vec<String>) {
        let (_, data) = kind_of(module);
        for child in array(&data["items"]) {
            let Some(item) = self.item(child) else {
                continue;
            };
            if is_hidden(item) || item["visibility"].as_str() != Some("public") {
                continue;
            }
            let (kind, data) = kind_of(item);
            match kind {
                "use" | "import" => {
                    let target = &data["id"];
                    let name = str_of(&data["name"]);
                    let glob = flag(data, &["is_glob", "glob"]);
                    let local = self.item(target).filter(|t| !is_hidden(t));
                    match (local, glob) {
                        (Some(t), true) => {
                            if kind_of(t).0 == "module" {
                                self.enter(t, target, prefix, stack);
                            }
                        }
                        (Some(t), false) => {
                            self.named(t, target, &format!("{prefix}::{name}"), stack);
                        }
                        (None, _) => {
                            let (source, ext_kind) = self.external_path(target, data);
                            let path = if glob {
                                format!("{prefix}::*")
                            } else {
                                format!("{prefix}::{name}")
                            };
                            self.entries
                                .push((path, Target::External(source, ext_kind)));
                        }
                    }
                }
                "impl" => {}
                _ => {
                    let name = str_of(&item["name"]).to_string();
                    let id = item["id"].clone();
                    self.named(item, &id, &format!("{prefix}::{name}"), stack);
                }
            }
        }
    }

    fn named(&mut self, item: &J, id: &J, path: &str, stack: &mut Vec<String>) {
        let Some(k) = key(id) else { return };
        self.entries
            .push((path.to_string(), Target::Local(k.clone())));
        if kind_of(item).0 == "module" {
            self.enter(item, id, path, stack);
        }
    }

    fn enter(&mut self, module: &J, id: &J, path: &str, stack: &mut Vec<String>) {
        let Some(k) = key(id) else { return };
        if stack.contains(&k) {
            return;
        }
        stack.push(k);
        self.walk_module(module, path, stack);
        stack.pop();
    }

    /// Another crate's item re-exported: its canonical path and kind, from `paths`.
    fn external_path(&self, id: &J, use_data: &J) -> (String, String) {
        match key(id).and_then(|k| self.paths.get(&k)) {
            Some(summary) => (
                array(&summary["path"])
                    .iter()
                    .map(str_of)
                    .collect::<Vec<_>>()
                    .join("::"),
                str_of(&summary["kind"]).to_string(),
            ),
            None => (str_of(&use_data["source"]).to_string(), "?".to_string()),
        }
    }

    fn push(&mut self, path: &str, kind: &str, sig: &str) {
        let sig = sig.trim();
        let line = if sig.is_empty() {
            format!("{path} {kind}")
        } else {
            format!("{path} {kind} {sig}")
        };
        self.lines.insert(line);
    }

    fn render_entry(&mut self, path: &str, target: &Target) {
        let id = match target {
            Target::External(source, kind) => {
                let kind = if kind.is_empty() { "?" } else { kind };
                self.push(path, "use", &format!("{kind} {source}"));
                return;
            }
            Target::Local(id) => id,
        };
        let Some(item) = self.index.get(id) else {
            return;
        };
        let primary = self.primary.get(id).cloned().unwrap_or_default();
        let (kind, data) = kind_of(item);
        let kind_word = match kind {
            "type_alias" | "typedef" => "type",
            "constant" => "const",
            "function" => "fn",
            "proc_macro" => "proc_macro",
            other => other,
        };
        if primary != path {
            self.push(path, kind_word, &format!("= {primary}"));
            return;
        }
        let sig = match kind {
            "module" => String::new(),
            "struct" | "union" | "enum" => format!(
                "{}{}",
                self.generics_decl(&data["generics"]),
                self.where_clause(&data["generics"])
            ),
            "trait" => {
                let bounds = self.bounds(&data["bounds"]);
                let mut s = String::new();
                if flag(data, &["is_unsafe"]) {
                    s.push_str("unsafe ");
                }
                s.push_str(&self.generics_decl(&data["generics"]));
                if !bounds.is_empty() {
                    s.push_str(": ");
                    s.push_str(&bounds);
                }
                s.push_str(&self.where_clause(&data["generics"]));
                s
            }
            "function" => self.fn_sig(data),
            "constant" => self.ty(field(data, &["type"])),
            "static" => format!(
                "{}{}",
                if flag(data, &["is_mutable", "mutable"]) {
                    "mut "
                } else {
                    ""
                },
                self.ty(&data["type"])
            ),
            "type_alias" | "typedef" => format!(
                "{} = {}",
                self.generics_decl(&data["generics"]),
                self.ty(&data["type"])
            ),
            _ => String::new(),
        };
        self.push(
            path,
            kind_word,
            &format!("{}{}", sig.trim_start(), marks(item)),
        );
        match kind {
            "struct" | "union" => {
                self.fields(path, data);
                self.impls(path, data);
            }
            "enum" => {
                for v in array(&data["variants"]) {
                    if let Some(variant) = self.item(v) {
                        self.variant(path, variant);
                    }
                }
                self.impls(path, data);
            }
            "trait" => self.trait_items(path, data),
            _ => {}
        }
    }

    fn fields(&mut self, path: &str, data: &J) {
        let (shape, shape_data) = tagged(&data["kind"]).unwrap_or(("?", &J::Null));
        let ids: Vec<J> = match shape {
            "plain" => array(&shape_data["fields"]).to_vec(),
            "tuple" => array(shape_data).to_vec(),
            _ => array(&data["fields"]).to_vec(),
        };
        for f in ids {
            let Some(fi) = self.item(&f) else { continue };
            if fi["visibility"].as_str() != Some("public") || is_hidden(fi) {
                continue;
            }
            let (_, fdata) = kind_of(fi);
            let ty = self.ty(fdata);
            let line_path = format!("{path}::{}", str_of(&fi["name"]));
            self.push(&line_path, "field", &format!("{ty}{}", marks(fi)));
        }
        if flag(shape_data, &["has_stripped_fields", "fields_stripped"])
            || flag(data, &["has_stripped_fields", "fields_stripped"])
        {
            self.push(path, "fields", "(some private)");
        }
    }

    fn variant(&mut self, path: &str, variant: &J) {
        if is_hidden(variant) {
            return;
        }
        let (_, data) = kind_of(variant);
        let vpath = format!("{path}::{}", str_of(&variant["name"]));
        let (shape, shape_data) = tagged(&data["kind"]).unwrap_or(("plain", &J::Null));
        let sig = match shape {
            "tuple" => {
                let tys: Vec<String> = array(shape_data)
                    .iter()
                    .map(|f| match self.item(f) {
                        Some(fi) => self.ty(kind_of(fi).1),
                        None => "_".to_string(),
                    })
                    .collect();
                format!("({})", tys.join(", "))
            }
            "struct" => {
                let mut parts = Vec::new();
                for f in array(&shape_data["fields"]) {
                    if let Some(fi) = self.item(f) {
                        parts.push(format!(
                            "{}: {}",
                            str_of(&fi["name"]),
                            self.ty(kind_of(fi).1)
                        ));
                    }
                }
                if flag(shape_data, &["has_stripped_fields", "fields_stripped"]) {
                    parts.push("..".to_string());
                }
                format!("{{ {} }}", parts.join(", "))
            }
            _ => String::new(),
        };
        self.push(&vpath, "variant", &format!("{sig}{}", marks(variant)));
    }

    /// A type's impls: inherent items as members, trait impls as `impl` lines.
    fn impls(&mut self, path: &str, data: &J) {
        for impl_id in array(&data["impls"]) {
            let Some(imp) = self.item(impl_id) else {
                continue;
            };
            if is_hidden(imp) {
                continue;
            }
            let (_, idata) = kind_of(imp);
            if !field(idata, &["blanket_impl"]).is_null() {
                continue;
            }
            let tr = &idata["trait"];
            if tr.is_null() {
                for member in array(&idata["items"]) {
                    let Some(mi) = self.item(member) else {
                        continue;
                    };
                    if mi["visibility"].as_str() != Some("public") || is_hidden(mi) {
                        continue;
                    }
                    self.assoc_item(path, mi);
                }
                continue;
            }
            let trait_name = self.path_name(tr);
            if flag(idata, &["is_synthetic", "synthetic"]) {
                let last = trait_name.rsplit("::").next().unwrap_or("");
                if !STABLE_AUTO_TRAITS.contains(&last) {
                    continue;
                }
            }
            if trait_name.ends_with("error::Error") {
                if let Some(k) = key(&data_id(&idata["for"])) {
                    self.error_impls.insert(k);
                }
            }
            let line = self.impl_header(idata);
            self.push(path, "impl", &line);
        }
    }

    /// `impl<..> Trait<..> for Type where .. { type A = ..; }`
    fn impl_header(&self, idata: &J) -> String {
        let mut s = String::new();
        if flag(idata, &["is_unsafe"]) {
            s.push_str("unsafe ");
        }
        s.push_str(&self.generics_decl(&idata["generics"]));
        if !s.is_empty() && !s.ends_with(' ') {
            s.push(' ');
        }
        if flag(idata, &["is_negative", "negative"]) {
            s.push('!');
        }
        s.push_str(&self.path(&idata["trait"]));
        s.push_str(" for ");
        s.push_str(&self.ty(&idata["for"]));
        s.push_str(&self.where_clause(&idata["generics"]));
        let mut assoc = Vec::new();
        for member in array(&idata["items"]) {
            let Some(mi) = self.item(member) else {
                continue;
            };
            let (kind, mdata) = kind_of(mi);
            if kind == "assoc_type" {
                let ty = field(mdata, &["type", "default"]);
                if !ty.is_null() {
                    assoc.push(format!("type {} = {};", str_of(&mi["name"]), self.ty(ty)));
                }
            }
        }
        if !assoc.is_empty() {
            s.push_str(&format!(" {{ {} }}", assoc.join(" ")));
        }
        s
    }

    /// An associated item (method, constant, type) of a type or trait.
    fn assoc_item(&mut self, path: &str, mi: &J) {
        let (kind, mdata) = kind_of(mi);
        let mpath = format!("{path}::{}", str_of(&mi["name"]));
        match kind {
            "function" | "method" => {
                let sig = self.fn_sig(mdata);
                self.push(&mpath, "fn", &format!("{sig}{}", marks(mi)));
            }
            "assoc_const" => {
                let ty = self.ty(&mdata["type"]);
                self.push(&mpath, "const", &format!("{ty}{}", marks(mi)));
            }
            "assoc_type" => {
                let bounds = self.bounds(&mdata["bounds"]);
                let mut sig = self.generics_decl(&mdata["generics"]);
                if !bounds.is_empty() {
                    sig.push_str(&format!(": {bounds}"));
                }
                let ty = field(mdata, &["type", "default"]);
                if !ty.is_null() {
                    sig.push_str(&format!(" = {}", self.ty(ty)));
                }
                self.push(
                    &mpath,
                    "type",
                    &format!("{}{}", sig.trim_start(), marks(mi)),
                );
            }
            other => self.push(&mpath, other, ""),
        }
    }

    fn trait_items(&mut self, path: &str, data: &J) {
        for member in array(&data["items"]) {
            if let Some(mi) = self.item(member) {
                if is_hidden(mi) {
                    continue;
                }
                let (kind, mdata) = kind_of(mi);
                let mpath = format!("{path}::{}", str_of(&mi["name"]));
                if kind == "function" || kind == "method" {
                    let mut sig = self.fn_sig(mdata);
                    if flag(mdata, &["has_body"]) {
                        sig.push_str(" (provided)");
                    }
                    self.push(&mpath, "fn", &format!("{sig}{}", marks(mi)));
                } else {
                    self.assoc_item(path, mi);
                }
            }
        }
        // Impls for other crates' types (or generic ones); this crate's types list theirs.
        for impl_id in array(field(data, &["implementations", "implementors"])) {
            let Some(imp) = self.item(impl_id) else {
                continue;
            };
            let (_, idata) = kind_of(imp);
            let for_id = key(&data_id(&idata["for"]));
            let listed_with_type = for_id
                .as_ref()
                .is_some_and(|k| self.primary.contains_key(k));
            if listed_with_type || is_hidden(imp) {
                continue;
            }
            let line = self.impl_header(idata);
            self.push(path, "impl", &line);
        }
    }

    // ---- signatures ------------------------------------------------------------------

    fn fn_sig(&self, data: &J) -> String {
        let header = &data["header"];
        let mut s = String::new();
        if flag(header, &["is_const", "const_"]) {
            s.push_str("const ");
        }
        if flag(header, &["is_async", "async_"]) {
            s.push_str("async ");
        }
        if flag(header, &["is_unsafe", "unsafe_"]) {
            s.push_str("unsafe ");
        }
        match tagged(&header["abi"]) {
            Some(("Rust", _)) | None => {}
            Some((abi, _)) => s.push_str(&format!("extern {abi:?} ")),
        }
        s.push_str(&self.generics_decl(&data["generics"]));
        let sig = field(data, &["sig", "decl"]);
        s.push('(');
        let args: Vec<String> = array(&sig["inputs"])
            .iter()
            .map(|pair| {
                let name = str_of(&pair[0]);
                let ty = &pair[1];
                if name == "self" {
                    self.self_arg(ty)
                } else {
                    format!("{name}: {}", self.ty(ty))
                }
            })
            .collect();
        s.push_str(&args.join(", "));
        if flag(sig, &["is_c_variadic", "c_variadic"]) {
            s.push_str(", ...");
        }
        s.push(')');
        let out = &sig["output"];
        if !out.is_null() {
            s.push_str(" -> ");
            s.push_str(&self.ty(out));
        }
        s.push_str(&self.where_clause(&data["generics"]));
        s
    }

    fn self_arg(&self, ty: &J) -> String {
        match tagged(ty) {
            Some(("generic", g)) if str_of(g) == "Self" => "self".to_string(),
            Some(("borrowed_ref", r)) if str_of(&r["type"]["generic"]) == "Self" => {
                let lifetime = str_of(&r["lifetime"]);
                let lt = if lifetime.is_empty() {
                    String::new()
                } else {
                    format!("{lifetime} ")
                };
                let m = if flag(r, &["is_mutable", "mutable"]) {
                    "mut "
                } else {
                    ""
                };
                format!("&{lt}{m}self")
            }
            _ => format!("self: {}", self.ty(ty)),
        }
    }

    /// `<'a, T: Bound = Default, const N: usize>` (synthetic `impl Trait` params left out).
    fn generics_decl(&self, generics: &J) -> String {
        let params: Vec<String> = array(&generics["params"])
            .iter()
            .filter_map(|p| self.generic_param(p))
            .collect();
        if params.is_empty() {
            String::new()
        } else {
            format!("<{}>", params.join(", "))
        }
    }

    fn generic_param(&self, p: &J) -> Option<String> {
        let name = str_of(&p["name"]);
        let (kind, data) = tagged(&p["kind"])?;
        Some(match kind {
            "lifetime" => {
                let outlives: Vec<&str> = array(&data["outlives"]).iter().map(str_of).collect();
                if outlives.is_empty() {
                    name.to_string()
                } else {
                    format!("{name}: {}", outlives.join(" + "))
                }
            }
            "type" => {
                if flag(data, &["is_synthetic", "synthetic"]) {
                    return None;
                }
                let mut s = name.to_string();
                let bounds = self.bounds(&data["bounds"]);
                if !bounds.is_empty() {
                    s.push_str(&format!(": {bounds}"));
                }
                if !data["default"].is_null() {
                    s.push_str(&format!(" = {}", self.ty(&data["default"])));
                }
                s
            }
            "const" => {
                let mut s = format!("const {name}: {}", self.ty(&data["type"]));
                if let Some(d) = data["default"].as_str() {
                    s.push_str(&format!(" = {d}"));
                }
                s
            }
            other => format!("{name} /* {other} */"),
        })
    }

    fn where_clause(&self, generics: &J) -> String {
        let preds: Vec<String> = array(&generics["where_predicates"])
            .iter()
            .map(|p| match tagged(p) {
                Some(("bound_predicate", b)) => {
                    let hrtb = self.for_lifetimes(field(b, &["generic_params"]));
                    format!(
                        "{hrtb}{}: {}",
                        self.ty(&b["type"]),
                        self.bounds(&b["bounds"])
                    )
                }
                Some(("lifetime_predicate", l)) => format!(
                    "{}: {}",
                    str_of(&l["lifetime"]),
                    array(&l["outlives"])
                        .iter()
                        .map(str_of)
                        .collect::<Vec<_>>()
                        .join(" + ")
                ),
                Some(("eq_predicate", e)) => {
                    format!("{} = {}", self.ty(&e["lhs"]), self.term(&e["rhs"]))
                }
                _ => p.to_string(),
            })
            .collect();
        if preds.is_empty() {
            String::new()
        } else {
            format!(" where {}", preds.join(", "))
        }
    }

    fn for_lifetimes(&self, params: &J) -> String {
        let names: Vec<String> = array(params)
            .iter()
            .filter_map(|p| self.generic_param(p))
            .collect();
        if names.is_empty() {
            String::new()
        } else {
            format!("for<{}> ", names.join(", "))
        }
    }

    fn bounds(&self, bounds: &J) -> String {
        array(bounds)
            .iter()
            .map(|b| match tagged(b) {
                Some(("trait_bound", t)) => {
                    let modifier = match str_of(&t["modifier"]) {
                        "maybe" => "?",
                        "maybe_const" => "~const ",
                        _ => "",
                    };
                    format!(
                        "{}{modifier}{}",
                        self.for_lifetimes(field(t, &["generic_params"])),
                        self.path(&t["trait"])
                    )
                }
                Some(("outlives", l)) => str_of(l).to_string(),
                Some(("use", args)) => format!(
                    "use<{}>",
                    array(args)
                        .iter()
                        .map(|a| match a {
                            J::String(s) => s.clone(),
                            other => tagged(other)
                                .map(|(_, v)| str_of(v).to_string())
                                .unwrap_or_default(),
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => b.to_string(),
            })
            .collect::<Vec<_>>()
            .join(" + ")
    }

    fn term(&self, t: &J) -> String {
        match tagged(t) {
            Some(("type", ty)) => self.ty(ty),
            Some(("constant", c)) => str_of(&c["expr"]).to_string(),
            _ => self.ty(t),
        }
    }

    /// A path's name: this crate's public path for its items, rustdoc's canonical path for
    /// other crates' items, as written in the source when neither is known.
    fn path_name(&self, p: &J) -> String {
        if let Some(k) = key(&p["id"]) {
            if let Some(primary) = self.primary.get(&k) {
                return primary.clone();
            }
            if let Some(summary) = self.paths.get(&k) {
                let parts: Vec<&str> = array(&summary["path"]).iter().map(str_of).collect();
                if !parts.is_empty() {
                    return parts.join("::");
                }
            }
        }
        str_of(field(p, &["path", "name"])).to_string()
    }

    /// A path with its generic arguments.
    fn path(&self, p: &J) -> String {
        format!("{}{}", self.path_name(p), self.generic_args(&p["args"]))
    }

    fn generic_args(&self, args: &J) -> String {
        match tagged(args) {
            Some(("angle_bracketed", a)) => {
                let mut parts: Vec<String> = array(&a["args"])
                    .iter()
                    .map(|arg| match tagged(arg) {
                        Some(("lifetime", l)) => str_of(l).to_string(),
                        Some(("type", t)) => self.ty(t),
                        Some(("const", c)) => str_of(&c["expr"]).to_string(),
                        Some(("infer", _)) => "_".to_string(),
                        _ => arg.to_string(),
                    })
                    .collect();
                for c in array(field(a, &["constraints", "bindings"])) {
                    let name = format!("{}{}", str_of(&c["name"]), self.generic_args(&c["args"]));
                    match tagged(&c["binding"]) {
                        Some(("equality", t)) => parts.push(format!("{name} = {}", self.term(t))),
                        Some(("constraint", b)) => {
                            parts.push(format!("{name}: {}", self.bounds(b)))
                        }
                        _ => parts.push(format!("{name} {}", c["binding"])),
                    }
                }
                if parts.is_empty() {
                    String::new()
                } else {
                    format!("<{}>", parts.join(", "))
                }
            }
            Some(("parenthesized", p)) => {
                let inputs: Vec<String> = array(&p["inputs"]).iter().map(|t| self.ty(t)).collect();
                let mut s = format!("({})", inputs.join(", "));
                if !p["output"].is_null() {
                    s.push_str(&format!(" -> {}", self.ty(&p["output"])));
                }
                s
            }
            Some(("return_type_notation", _)) => "(..)".to_string(),
            _ => String::new(),
        }
    }

    fn ty(&self, t: &J) -> String {
        let Some((kind, d)) = tagged(t) else {
            return t.to_string();
        };
        match kind {
            "resolved_path" => self.path(d),
            "generic" | "primitive" => str_of(d).to_string(),
            "borrowed_ref" => {
                let lifetime = str_of(&d["lifetime"]);
                let lt = if lifetime.is_empty() {
                    String::new()
                } else {
                    format!("{lifetime} ")
                };
                let m = if flag(d, &["is_mutable", "mutable"]) {
                    "mut "
                } else {
                    ""
                };
                format!("&{lt}{m}{}", self.ty(&d["type"]))
            }
            "raw_pointer" => format!(
                "*{} {}",
                if flag(d, &["is_mutable", "mutable"]) {
                    "mut"
                } else {
                    "const"
                },
                self.ty(&d["type"])
            ),
            "slice" => format!("[{}]", self.ty(d)),
            "array" => format!("[{}; {}]", self.ty(&d["type"]), str_of(&d["len"])),
            "tuple" => {
                let parts: Vec<String> = array(d).iter().map(|t| self.ty(t)).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            "impl_trait" => format!("impl {}", self.bounds(d)),
            "dyn_trait" => {
                let mut parts: Vec<String> = array(&d["traits"])
                    .iter()
                    .map(|pt| {
                        format!(
                            "{}{}",
                            self.for_lifetimes(field(pt, &["generic_params"])),
                            self.path(&pt["trait"])
                        )
                    })
                    .collect();
                if let Some(l) = d["lifetime"].as_str() {
                    parts.push(l.to_string());
                }
                format!("dyn {}", parts.join(" + "))
            }
            "function_pointer" => {
                let sig = field(d, &["sig", "decl"]);
                let inputs: Vec<String> = array(&sig["inputs"])
                    .iter()
                    .map(|pair| self.ty(&pair[1]))
                    .collect();
                let mut s = format!(
                    "{}fn({})",
                    self.for_lifetimes(field(d, &["generic_params"])),
                    inputs.join(", ")
                );
                if !sig["output"].is_null() {
                    s.push_str(&format!(" -> {}", self.ty(&sig["output"])));
                }
                s
            }
            "qualified_path" => {
                let self_ty = self.ty(&d["self_type"]);
                let name = str_of(&d["name"]);
                if d["trait"].is_null() {
                    format!("{self_ty}::{name}")
                } else {
                    format!("<{self_ty} as {}>::{name}", self.path(&d["trait"]))
                }
            }
            "infer" => "_".to_string(),
            "pat" => self.ty(&d["type"]),
            other => format!("{other}{d}"),
        }
    }
}

/// The id of a `resolved_path` type (the type an impl is for), or null.
fn data_id(ty: &J) -> J {
    match tagged(ty) {
        Some(("resolved_path", p)) => p["id"].clone(),
        _ => J::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A tiny crate in rustdoc's JSON shape: a struct at two paths with a method and an auto
    /// trait impl, a hidden item, an error enum.
    fn sample() -> J {
        json!({
            "root": 0,
            "format_version": KNOWN_FORMAT_VERSION,
            "paths": {"90": {"crate_id": 1, "path": ["core", "error", "Error"], "kind": "trait"},
                      "91": {"crate_id": 1, "path": ["core", "marker", "Send"], "kind": "trait"},
                      "92": {"crate_id": 1, "path": ["core", "marker", "Freeze"], "kind": "trait"}},
            "index": {
                "0": {"id": 0, "name": "krate", "visibility": "public", "attrs": [],
                      "inner": {"module": {"items": [1, 2, 3, 6, 10]}}},
                "1": {"id": 1, "name": "inner", "visibility": "public", "attrs": [],
                      "inner": {"module": {"items": [4]}}},
                "2": {"id": 2, "name": null, "visibility": "public", "attrs": [],
                      "inner": {"use": {"source": "inner::Thing", "name": "Thing", "id": 4, "is_glob": false}}},
                "3": {"id": 3, "name": "secret", "visibility": "public",
                      "attrs": [{"other": "#[doc(hidden)]"}], "inner": {"function": {}}},
                "4": {"id": 4, "name": "Thing", "visibility": "public", "attrs": ["non_exhaustive"],
                      "inner": {"struct": {"kind": {"plain": {"fields": [], "has_stripped_fields": true}},
                                "generics": {"params": [], "where_predicates": []},
                                "impls": [5, 7, 8]}}},
                "5": {"id": 5, "name": null, "visibility": "default", "attrs": [],
                      "inner": {"impl": {"trait": null, "for": {"resolved_path": {"path": "Thing", "id": 4, "args": null}},
                                "items": [9], "generics": {"params": [], "where_predicates": []}, "blanket_impl": null}}},
                "7": {"id": 7, "name": null, "visibility": "default", "attrs": [],
                      "inner": {"impl": {"trait": {"path": "Send", "id": 91, "args": null}, "is_synthetic": true,
                                "for": {"resolved_path": {"path": "Thing", "id": 4, "args": null}},
                                "items": [], "generics": {"params": [], "where_predicates": []}, "blanket_impl": null}}},
                "8": {"id": 8, "name": null, "visibility": "default", "attrs": [],
                      "inner": {"impl": {"trait": {"path": "Freeze", "id": 92, "args": null}, "is_synthetic": true,
                                "for": {"resolved_path": {"path": "Thing", "id": 4, "args": null}},
                                "items": [], "generics": {"params": [], "where_predicates": []}, "blanket_impl": null}}},
                "9": {"id": 9, "name": "get", "visibility": "public", "attrs": [],
                      "inner": {"function": {"sig": {"inputs": [["self", {"borrowed_ref": {"lifetime": null, "is_mutable": false, "type": {"generic": "Self"}}}],
                                                                 ["n", {"primitive": "u8"}]],
                                                      "output": {"resolved_path": {"path": "Option", "id": 99,
                                                          "args": {"angle_bracketed": {"args": [{"type": {"generic": "T"}}], "constraints": []}}}}},
                                                "generics": {"params": [{"name": "T", "kind": {"type": {"bounds": [], "default": null, "is_synthetic": false}}}],
                                                             "where_predicates": []},
                                                "header": {"is_const": false, "is_unsafe": false, "is_async": true, "abi": "Rust"}}}},
                "6": {"id": 6, "name": "BadError", "visibility": "public", "attrs": [],
                      "inner": {"enum": {"variants": [11], "generics": {"params": [], "where_predicates": []}, "impls": [12]}}},
                "11": {"id": 11, "name": "Io", "visibility": "default", "attrs": [],
                       "inner": {"variant": {"kind": {"tuple": [13]}}}},
                "13": {"id": 13, "name": "0", "visibility": "default", "attrs": [],
                       "inner": {"struct_field": {"primitive": "u32"}}},
                "12": {"id": 12, "name": null, "visibility": "default", "attrs": [],
                       "inner": {"impl": {"trait": {"path": "std::error::Error", "id": 90, "args": null},
                                 "for": {"resolved_path": {"path": "BadError", "id": 6, "args": null}},
                                 "items": [], "generics": {"params": [], "where_predicates": []}, "blanket_impl": null}}},
                "10": {"id": 10, "name": null, "visibility": "public", "attrs": [],
                       "inner": {"use": {"source": "other::Foo", "name": "Foo", "id": 95, "is_glob": false}}}
            }
        })
    }

    #[test]
    fn lists_items_sorted_with_primary_paths() {
        let api = Api::from_json(&sample()).unwrap();
        let text = api.text();
        let expected = "\
krate module
krate::BadError enum
krate::BadError impl core::error::Error for krate::BadError
krate::BadError::Io variant (u32)
krate::Foo use ? other::Foo
krate::Thing fields (some private)
krate::Thing impl core::marker::Send for krate::Thing
krate::Thing struct #[non_exhaustive]
krate::Thing::get fn async <T>(&self, n: u8) -> Option<T>
krate::inner module
krate::inner::Thing struct = krate::Thing
";
        assert_eq!(text, expected);
        assert!(!text.contains("secret"), "doc(hidden) left out");
        assert!(
            !text.contains("Freeze"),
            "nightly-only auto traits left out"
        );
        assert_eq!(
            api.root_names().into_iter().collect::<Vec<_>>(),
            ["BadError", "Foo", "Thing", "inner"]
        );
        assert_eq!(api.error_types(), ["krate::BadError"]);
    }

    #[test]
    fn diff_shows_only_changed_lines() {
        let d = diff("a\nb\nc\n", "a\nc\nd\n");
        assert_eq!(d, "- b\n+ d\n");
    }
}
