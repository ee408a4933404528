//! No bootstrapping: the generator restores every generated file from `spec/` alone.
//!
//! A copy of `spec/`, graphbinary-core and graphbinary-client (sources only) goes to a temp dir;
//! every generated file there is deleted (whole generated directories) or corrupted (so the
//! crates would not compile); the `graphbinary-regen` binary runs on the copy; each file must
//! come back byte for byte, and `--check` must then pass. This test binary links no graphbinary
//! crate, and the last test checks the manifest keeps it that way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo_root() -> PathBuf {
    graphbinary_regen::project_root()
}

/// Copy `from` to `to` recursively, skipping `target/` directories.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let ty = entry.file_type().unwrap();
        if ty.is_dir() {
            if name != "target" {
                copy_tree(&entry.path(), &to.join(&name));
            }
        } else if ty.is_file() {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// Files directly in `dir` ending in `.rs`, relative to `root`.
fn rs_files(root: &Path, dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root.join(dir))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".rs"))
        .map(|n| format!("{dir}/{n}"))
        .collect();
    out.sort();
    out
}

struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn regen(root: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_graphbinary-regen"))
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn deleted_and_corrupted_generated_files_are_restored_byte_for_byte() {
    let repo = repo_root();
    let tmp = TempDir(std::env::temp_dir().join(format!(
        "graphbinary-regen-bootstrap-{}",
        std::process::id()
    )));
    let _ = std::fs::remove_dir_all(&tmp.0);
    for dir in ["spec", "graphbinary-core", "graphbinary-client"] {
        copy_tree(&repo.join(dir), &tmp.0.join(dir));
    }
    let root = &tmp.0;

    // The generated files, named here independently of the generator...
    let whole_dirs = [
        "graphbinary-client/src/value/generated",
        "graphbinary-client/tests/offline/generated",
    ];
    let mut generated: Vec<String> = whole_dirs.iter().flat_map(|d| rs_files(root, d)).collect();
    let corrupted = [
        "graphbinary-core/src/codes/generated.rs",
        "graphbinary-client/src/format/graphbinary1/codes.rs",
        "graphbinary-client/src/process/generated.rs",
        "graphbinary-client/src/lang/tokens.rs",
    ];
    generated.extend(corrupted.iter().map(|s| s.to_string()));
    // ...and the generator's own list must be the same set (a new output is not missed).
    let mut listed: Vec<String> = graphbinary_regen::all_files(&repo)
        .unwrap()
        .into_iter()
        .map(|(p, _)| p)
        .collect();
    listed.sort();
    let mut named = generated.clone();
    named.sort();
    assert_eq!(
        named, listed,
        "the generated files this test knows vs regen's list"
    );

    let originals: BTreeMap<String, Vec<u8>> = generated
        .iter()
        .map(|rel| (rel.clone(), std::fs::read(root.join(rel)).unwrap()))
        .collect();
    for dir in whole_dirs {
        std::fs::remove_dir_all(root.join(dir)).unwrap();
    }
    for rel in corrupted {
        std::fs::write(root.join(rel), "pub const BROKEN: u8 = ;\n").unwrap();
    }
    for rel in &generated {
        let now = std::fs::read(root.join(rel)).ok();
        assert_ne!(now.as_ref(), originals.get(rel), "{rel} was not damaged");
    }

    // `--check` sees the damage and names a stale file.
    let out = regen(root, &["--check"]);
    assert!(!out.status.success(), "--check passed on damaged files");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("out of date with spec/"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = regen(root, &[]);
    assert!(
        out.status.success(),
        "regen failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (rel, before) in &originals {
        let after = std::fs::read(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(after == *before, "{rel} differs after regen");
    }
    let out = regen(root, &["--check"]);
    assert!(
        out.status.success(),
        "--check after regen: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The point of this crate: it links nothing it writes into.
#[test]
fn depends_on_no_graphbinary_crate() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml")).unwrap();
    let table: toml::Table = manifest.parse().unwrap();
    for section in ["dependencies", "dev-dependencies", "build-dependencies"] {
        if let Some(deps) = table.get(section).and_then(|d| d.as_table()) {
            for name in deps.keys() {
                assert!(
                    !name.starts_with("graphbinary-"),
                    "graphbinary-regen's [{section}] names {name}"
                );
            }
        }
    }
}
