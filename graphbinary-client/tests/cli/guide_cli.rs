//! Every `graphbinary` command of the guide (`docs/guide/src/*.md`) and of README.md, run
//! against the live Gremlin Server 4.0 with the modern graph (env `GREMLIN_URL`).
//!
//! What is run (the convention is in CONTRIBUTING.md, "Shell examples in the docs"):
//!
//! * in a ```` ```sh ```` block, each line starting `graphbinary ` (a trailing `# comment` is
//!   dropped): its exit status must be 0;
//! * in a ```` ```console ```` block, each `$ graphbinary ...` line; the lines after it, up to
//!   the next `$ `, are its output: each must appear in what it printed on stdout. After
//!   `$ graphbinary console`, a session: `gremlin> ` lines and the indented lines after them
//!   are typed on its stdin, the others must appear on its stdout or stderr.
//!
//! HTML comments on the lines before the fence change that: `<!-- cli-skip: REASON -->`
//! skips the block (it needs a server CI does not run: Neptune, two servers of one's own...;
//! the reason is printed as the project's skip notice), `<!-- cli-exit: N -->` expects exit
//! status N, `<!-- cli-server: tinkerpop3 -->` (or `janusgraph`) runs the block against a
//! TinkerPop 3.7.3 server (env `GREMLIN_WS_URL_373`) or a JanusGraph 1.1.0 one (env
//! `GREMLIN_WS_JANUSGRAPH_URL`) instead, in CI's TinkerPop 3 step, with
//! `ws://127.0.0.1:8182/gremlin` replaced by that URL. `http://127.0.0.1:8182/gremlin` in a
//! command is replaced by `GREMLIN_URL`, which is also the environment of each command (so
//! `--url` may be left out). Commands run in a fresh temporary directory; pipes, redirections
//! and `$(...)` are refused, so that an example is one command that can be pasted as it is.

use graphbinary_testkit::{gremlin_server, servers3};

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The URL the pages write, replaced by `GREMLIN_URL`.
const PAGE_URL: &str = "http://127.0.0.1:8182/gremlin";

/// The URL the pages write for a TinkerPop 3 server, replaced by the URL of the block's
/// [`Ws3`] server.
const PAGE_WS_URL: &str = "ws://127.0.0.1:8182/gremlin";

/// The TinkerPop 3 server a block marked `cli-server: NAME` runs against.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ws3 {
    /// Gremlin Server 3.7.3 with the modern graph (env `GREMLIN_WS_URL_373`).
    TinkerPop3,
    /// JanusGraph 1.1.0 in memory with the modern graph (env `GREMLIN_WS_JANUSGRAPH_URL`).
    JanusGraph,
}

impl Ws3 {
    fn parse(name: &str) -> Option<Ws3> {
        match name {
            "tinkerpop3" => Some(Ws3::TinkerPop3),
            "janusgraph" => Some(Ws3::JanusGraph),
            _ => None,
        }
    }

    fn var(self) -> &'static str {
        match self {
            Ws3::TinkerPop3 => "GREMLIN_WS_URL_373",
            Ws3::JanusGraph => "GREMLIN_WS_JANUSGRAPH_URL",
        }
    }
}

/// How long one example may run.
const EXAMPLE_TIMEOUT: Duration = Duration::from_secs(120);

/// One `graphbinary` command found in a page.
#[derive(Debug)]
struct Example {
    /// `file:line`, for messages.
    at: String,
    /// The arguments after `graphbinary`.
    args: Vec<String>,
    /// Lines its stdout must contain (for a console session: its stdout or stderr).
    output: Vec<String>,
    /// What a console session types (`gremlin> ` lines and their continuations), as stdin.
    input: String,
    /// The exit status expected.
    exit: i32,
    /// Why it is not run, if it is not.
    skip: Option<String>,
    /// The TinkerPop 3 server it runs against, if not the 4.0 one.
    server: Option<Ws3>,
}

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// README.md and every page of the guide, sorted, as (name, text).
fn pages() -> Vec<(String, String)> {
    let root = repo_root();
    let mut files = vec![root.join("README.md")];
    let mut guide: Vec<PathBuf> = std::fs::read_dir(root.join("docs/guide/src"))
        .expect("read docs/guide/src")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    files.extend(guide);
    files
        .into_iter()
        .map(|p| {
            let name = p
                .strip_prefix(&root)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        })
        .collect()
}

/// The marker of an HTML comment line `<!-- cli-NAME: VALUE -->`, as (NAME, VALUE).
fn marker(line: &str) -> Option<(&str, &str)> {
    let inner = line
        .trim()
        .strip_prefix("<!--")?
        .strip_suffix("-->")?
        .trim();
    let rest = inner.strip_prefix("cli-")?;
    let (name, value) = rest.split_once(':')?;
    Some((name.trim(), value.trim()))
}

/// Every example of one page. Panics (naming the line) on a malformed marker or command.
fn examples(file: &str, text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some((name, value)) = marker(line) {
            let mut next = i + 1;
            while lines.get(next).is_some_and(|l| marker(l).is_some()) {
                next += 1;
            }
            let fence = lines.get(next).map(|l| l.trim_start()).unwrap_or("");
            assert!(
                fence.starts_with("```sh") || fence.starts_with("```console"),
                "{file}:{}: a cli- marker must stand right before a ```sh or ```console fence",
                i + 1
            );
            match name {
                "skip" => assert!(
                    !value.is_empty(),
                    "{file}:{}: cli-skip needs a reason",
                    i + 1
                ),
                "exit" => {
                    value
                        .parse::<i32>()
                        .unwrap_or_else(|_| panic!("{file}:{}: cli-exit needs a number", i + 1));
                }
                "server" => assert!(
                    Ws3::parse(value).is_some(),
                    "{file}:{}: cli-server is tinkerpop3 or janusgraph, not {value:?}",
                    i + 1
                ),
                other => panic!("{file}:{}: unknown marker cli-{other}", i + 1),
            }
        }
        let tag = line.trim_start().strip_prefix("```").map(str::trim);
        let console = match tag {
            Some("sh") => false,
            Some("console") => true,
            _ => {
                i += 1;
                continue;
            }
        };
        let (mut skip, mut exit, mut server) = (None, 0, None);
        for above in lines[..i].iter().rev().map_while(|l| marker(l)) {
            match above {
                ("skip", why) => skip = Some(why.to_owned()),
                ("exit", n) => exit = n.parse().unwrap(),
                ("server", name) => server = Ws3::parse(name),
                _ => {}
            }
        }
        i += 1;
        let mut typing = false;
        while i < lines.len() && !lines[i].trim_start().starts_with("```") {
            let at = format!("{file}:{}", i + 1);
            let l = lines[i].trim();
            let command = if console {
                l.strip_prefix("$ ")
            } else {
                Some(l)
            };
            match command {
                Some(c) if c.starts_with("graphbinary ") || c == "graphbinary" => {
                    let words = split(c).unwrap_or_else(|e| panic!("{at}: {e}"));
                    out.push(Example {
                        at,
                        args: words[1..].to_vec(),
                        output: Vec::new(),
                        input: String::new(),
                        exit,
                        skip: skip.clone(),
                        server,
                    });
                }
                // Output of the last command of a console block (not of another program's).
                None if console && !l.is_empty() => {
                    let last_is_ours = lines[..i]
                        .iter()
                        .rev()
                        .find_map(|p| p.trim().strip_prefix("$ "))
                        .is_some_and(|p| p.starts_with("graphbinary"));
                    let raw = lines[i];
                    match out.last_mut() {
                        Some(e)
                            if last_is_ours && e.args.first().is_some_and(|a| a == "console") =>
                        {
                            // Typed: a `gremlin> ` line, or an indented line right after
                            // typed input (a continuation).
                            let typed = raw
                                .strip_prefix("gremlin> ")
                                .or_else(|| (typing && raw.starts_with(' ')).then_some(raw));
                            typing = typed.is_some();
                            match typed {
                                Some(t) => {
                                    e.input.push_str(t);
                                    e.input.push('\n');
                                }
                                None => e.output.push(l.to_owned()),
                            }
                        }
                        Some(e) if last_is_ours => e.output.push(l.to_owned()),
                        _ => {}
                    }
                }
                _ => {}
            }
            i += 1;
        }
        i += 1;
    }
    out
}

/// Splits a command line as a POSIX shell would for the forms the pages use: words, '...',
/// "..." (with `\"`, `\\`, `\$`), a backslash outside quotes, and a `#` comment after a
/// space. Refuses what would need a shell (pipes, redirections, `;`, `&`, `$`, backquotes).
fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if let Some(w) = word.take() {
                    words.push(w);
                }
            }
            '#' if word.is_none() => break,
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("unclosed '".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => w.push(c),
                            Some(c) => {
                                w.push('\\');
                                w.push(c);
                            }
                            None => return Err("unclosed \"".into()),
                        },
                        Some(c @ ('$' | '`')) => {
                            return Err(format!("{c} inside \"...\" needs a shell"))
                        }
                        Some(c) => w.push(c),
                        None => return Err("unclosed \"".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a line continuation: write the command on one line".into()),
            },
            '|' | '>' | '<' | ';' | '&' | '$' | '`' | '(' | ')' => {
                return Err(format!("`{c}` needs a shell: write one plain command"))
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    if let Some(w) = word {
        words.push(w);
    }
    Ok(words)
}

/// Every example of README.md and the guide.
fn all_examples() -> Vec<Example> {
    pages()
        .iter()
        .flat_map(|(name, text)| examples(name, text))
        .collect()
}

#[test]
fn split_reads_quotes_and_refuses_shell_syntax() {
    assert_eq!(
        split(r#"graphbinary query --param who='marko' "g.V().has('name', \"x\")"  # note"#)
            .unwrap(),
        [
            "graphbinary",
            "query",
            "--param",
            "who=marko",
            "g.V().has('name', \"x\")"
        ]
    );
    assert_eq!(split("a b\\ c").unwrap(), ["a", "b c"]);
    for bad in [
        "graphbinary query x | head",
        "graphbinary query > out",
        "a $(b)",
        "a 'b",
    ] {
        assert!(split(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_pages_have_examples_and_markers_parse() {
    let all = all_examples();
    let run = all.iter().filter(|e| e.skip.is_none()).count();
    // The guide's own: connecting, errors, results, timeouts (README's and cli.md's too).
    assert!(run >= 4, "only {run} runnable examples found: {all:#?}");
    assert!(
        all.iter().any(|e| !e.output.is_empty()),
        "no example shows its output"
    );
    assert!(all.iter().any(|e| e.exit != 0), "no cli-exit example");
}

/// Runs `graphbinary args` in `dir` with `GREMLIN_URL` set, `input` on stdin: (exit status,
/// stdout, stderr). Fails after [`EXAMPLE_TIMEOUT`].
fn run(
    at: &str,
    args: &[String],
    input: &str,
    url: &str,
    dir: &Path,
) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_graphbinary"));
    cmd.args(args)
        .current_dir(dir)
        .env("GREMLIN_URL", url)
        .env("NO_COLOR", "1")
        .env_remove("GREMLIN_PASSWORD");
    let (mut child, writer) = crate::bin::spawn(&mut cmd, input.as_bytes().to_vec());
    let read = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = r.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = read(Box::new(child.stdout.take().unwrap()));
    let err = read(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > EXAMPLE_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{at}: still running after {EXAMPLE_TIMEOUT:?}: graphbinary {args:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    writer.join().unwrap();
    (status.code(), out.join().unwrap(), err.join().unwrap())
}

/// Runs `examples`, `page_url` in their arguments replaced by `url` (also their
/// `GREMLIN_URL`), skipping those marked `cli-skip`; fails listing every example that exited
/// otherwise than its page says or did not print a line it shows. Returns how many ran.
fn run_all(test: &str, examples: &[&Example], page_url: &str, url: &str) -> usize {
    let dir = std::env::temp_dir().join(format!(
        "graphbinary-guide-cli-{}-{test}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut ran, mut skipped, mut failures) = (0, 0, Vec::new());
    for e in examples {
        if let Some(why) = &e.skip {
            gremlin_server::skip::skipped(&format!("guide_cli {}", e.at), why);
            skipped += 1;
            continue;
        }
        let args: Vec<String> = e.args.iter().map(|a| a.replace(page_url, url)).collect();
        let (code, stdout, stderr) = run(&e.at, &args, &e.input, url, &dir);
        ran += 1;
        if code != Some(e.exit) {
            failures.push(format!(
                "{}: graphbinary {args:?} exited {code:?}, the page expects {}\nstdout: {stdout}\nstderr: {stderr}",
                e.at, e.exit
            ));
            continue;
        }
        let session = !e.input.is_empty();
        for want in &e.output {
            // The banner of a session names its URL.
            let want = &want.replace(page_url, url);
            let seen = |text: &str| text.lines().any(|l| l.trim() == want);
            if !(seen(&stdout) || session && seen(&stderr)) {
                failures.push(format!(
                    "{}: graphbinary {args:?} printed no line {want:?}\nstdout: {stdout}\nstderr: {stderr}",
                    e.at
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "guide_cli {test}: {ran} examples run, {skipped} skipped, {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    ran
}

#[tokio::test]
async fn every_cli_example_runs_against_the_server() {
    let all = all_examples();
    if !gremlin_server::MODERN
        .available("guide_cli every_cli_example_runs_against_the_server")
        .await
    {
        return;
    }
    let url = gremlin_server::url();
    let ours: Vec<&Example> = all.iter().filter(|e| e.server.is_none()).collect();
    let ran = run_all("tinkerpop4", &ours, PAGE_URL, &url);
    assert!(ran > 0, "no example ran");
}

/// The blocks marked `cli-server: tinkerpop3` / `janusgraph`, against those servers (CI's
/// TinkerPop 3 step sets their env vars; the plain test step reports a skip).
#[test]
fn ws3_examples_run_against_tinkerpop3_and_janusgraph() {
    let all = all_examples();
    for server in [Ws3::TinkerPop3, Ws3::JanusGraph] {
        let theirs: Vec<&Example> = all.iter().filter(|e| e.server == Some(server)).collect();
        assert!(
            !theirs.is_empty(),
            "no example marked for {server:?}: the guide shows one of each"
        );
        let test = format!("guide_cli ws3_examples ({server:?})");
        let Some(url) = servers3::one(&test, server.var(), "a TinkerPop 3 server") else {
            continue;
        };
        let ran = run_all(&format!("{server:?}"), &theirs, PAGE_WS_URL, &url);
        assert!(ran > 0, "no {server:?} example ran");
    }
}
