//! Project automation: `cargo xtask <command>`.
//!
//! This file only dispatches; each command lives in its own module.

mod api;
mod ci;
mod demo;
mod failover;
mod fuzz_cmd;

// The kit's modules under their old names (`crate::server`, `crate::util`, ...).
use graphbinary_kit::{cluster, server, util};
// `crate::fuzz` as ci.rs names it.
use fuzz_cmd as fuzz;

const USAGE: &str =
    "usage: cargo xtask <regen|api|server|server3|demo|features|matrix|ci|bench|replay|link|fuzz|failover|cluster> [options]
  demo [--port N]    start a local server if none answers and run a few queries
  bench [--quick] [--only inproc|e2e|memory|process|tp3|wan] [--port N] [--port3 N]
                     run the benchmarks and write BENCHMARKS.md
  replay [--from URL] [--port N] [--deflate] QUERY...
                     record a server's responses to QUERY once, then serve them at full speed
  link --listen HOST:PORT --to HOST:PORT --link 30ms,200mbit [--check]
                     a simulated WAN link (delay, bandwidth, handshake) in front of a server
  regen [--check]    regenerate the Rust generated from spec/ (--check: fail if stale)
  api [--check]      write graphbinary-client/api.txt, the public API as sorted text from
                     nightly rustdoc JSON (--check: fail with the changed lines if stale)
  server [--dataset NAME] [--port N] [--detach] [--stop]
                     run a local Gremlin Server 4.0.0-beta.3 (see `cargo xtask server --help`)
  server --tinkerpop 3.7.3|3.8.1 [--auth] [--tls] | --janusgraph 1.1.0 [--port N] [--detach] [--stop]
                     a TinkerPop 3 server over WebSocket (the same launcher)
  server3 [--tinkerpop 3.7.3|3.8.1] [--dataset modern|integration] [--auth] [--tls] [--port N] [--detach] [--stop]
                     `server`, TinkerPop 3.7.3 unless told otherwise
  features [--mode plain|bulked|all] [--features DIR] [--only S] [--url URL] [--compare-go]
           [--tinkerpop 3.7.3]
                     run TinkerPop's Gherkin feature suite (see `cargo xtask features --help`)
  matrix [--port N] [--only S]
                     every server version on its own port: its suite and the value round trip,
                     into docs/guide/src/compatibility.md (see `cargo xtask matrix --help`)
  ci [--no-server] [--tinkerpop3-only]
                     run every check and test (see `cargo xtask ci --help`)
  failover [--ports A,B,C]
                     several hosts: 1000 queries over three servers, one stopped and restarted
  cluster up|down|chaos [--servers 2|3] [--secs N]
                     a JanusGraph cluster on Cassandra; chaos: writes and reads while servers
                     are killed, every acknowledged write checked (see `cargo xtask cluster --help`)
  fuzz [--seconds N] [TARGET...]
                     seed the fuzz corpora from spec/vectors and run each cargo-fuzz target N s";

/// Run a tool crate's binary with xtask's own arguments (`cargo xtask features ...` is
/// `graphbinary-conformance features ...`) and exit with its status: its output is the
/// command's, nothing added.
fn exec(package: &str, args: &[String]) -> anyhow::Result<()> {
    let status = util::tool_status(package, args)?;
    std::process::exit(status.code().unwrap_or(1));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    util::main_with(USAGE, |command, rest| {
        Some(match command {
            "regen" => graphbinary_regen::run(rest).map_err(|e| anyhow::anyhow!("{e}")),
            "api" => api::cli(rest),
            "server" => server::cli(rest),
            "server3" => server::cli3(rest),
            "ci" => ci::cli(rest),
            "failover" => failover::cli(rest),
            "cluster" => cluster::cli(rest, &|_, _, _| util::run_tool("graphbinary-chaos", rest)),
            "demo" => demo::cli(rest),
            "features" | "matrix" => exec("graphbinary-conformance", &args),
            "bench" | "replay" => exec("graphbinary-bench", &args),
            "link" => graphbinary_kit::link::cli(rest),
            "fuzz" => exec("graphbinary-fuzzing", &args),
            _ => return None,
        })
    });
}

#[cfg(test)]
mod tests {
    /// No bootstrapping: xtask (with the kit and the generator it links) builds when the crates
    /// `regen` writes into do not. The tools that need the client are crates of their own.
    #[test]
    fn xtask_links_neither_graphbinary_client_nor_core() {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = std::process::Command::new(cargo)
            .current_dir(crate::util::project_root())
            .args(["tree", "-p", "xtask", "-e", "normal", "--prefix", "none"])
            .output()
            .expect("cargo tree runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tree = String::from_utf8_lossy(&out.stdout);
        assert!(tree.contains("graphbinary-regen"), "{tree}");
        for name in ["graphbinary-client ", "graphbinary-core "] {
            assert!(!tree.contains(name), "xtask depends on {name}:\n{tree}");
        }
    }
}
