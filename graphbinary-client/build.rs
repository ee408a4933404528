//! Records the compiler version for the client's default User-Agent.

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    if let Ok(out) = std::process::Command::new(rustc).arg("--version").output() {
        if let Ok(v) = String::from_utf8(out.stdout) {
            // "rustc 1.95.0 (f2d3ce0bd 2026-03-21)" -> "1.95.0"
            if let Some(ver) = v.split_whitespace().nth(1) {
                println!("cargo:rustc-env=GRAPHBINARY_RUSTC_VERSION={ver}");
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
