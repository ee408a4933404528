//! Every `graphbinary` command of the guide (`docs/guide/src/*.md`) and of README.md, run
//! against the live Gremlin Server 4.0 with the modern graph (env `GREMLIN_URL`).
//!
//! What is run (the convention is in CONTRIBUTING.md, "Examples in the docs"):
//!
//! * in a ```` ```sh ```` block, each line starting `graphbinary ` (a trailing `# comment` is
//!   dropped): its exit status must be 0;
//! * in a ```` ```console ```` block, each `$ graphbinary ...` line; the lines after it, up to
//!   the next `$ `, are its output: each must appear in what it printed on stdout. After
//!   `$ graphbinary console`, a session: `gremlin> ` lines and the indented lines after them
//!   are typed on its stdin, the others must appear on its stdout or stderr.
//!
//! HTML comments on the lines before the fence change that: `<!-- cli-exit: N -->` expects
//! exit status N; `<!-- cli-server: NAME [URL] -->` (one line per server; several for one
//! block) runs the block in CI's TinkerPop 3 step against the server NAME instead, `URL` as
//! the block writes it (default `ws://127.0.0.1:8182/gremlin` for `tinkerpop3` and
//! `janusgraph`, `http://127.0.0.1:8182/gremlin` for `load`) replaced by that server's URL
//! (see [`Server`]): TinkerPop 3.7.3 (env `GREMLIN_WS_URL_373`), JanusGraph 1.1.0 (env
//! `GREMLIN_WS_JANUSGRAPH_URL`) or the 4.0 server whose graph the tests may clear (env
//! `GREMLIN_LOAD_URL`). A block that names `load` and one other server is a copy: it starts on
//! the load graph emptied and must leave there as many vertices and edges as the other server
//! has. `http://127.0.0.1:8182/gremlin` in an unmarked block is replaced by `GREMLIN_URL`,
//! which is also the environment of each command (of a marked block: its first server's URL),
//! so `--url` may be left out. Each command runs with dummy static AWS credentials in its
//! environment (so that `--sigv4`'s default credential chain stops at them and never asks the
//! network) and must not print their secret key or session token. Each block runs in a fresh
//! temporary directory; pipes, redirections and `$(...)` are refused, so that an example is
//! one command that can be pasted as it is.

use graphbinary_client::Client;
use graphbinary_testkit::results::Sent;
use graphbinary_testkit::{gremlin_server, servers3};

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The URL the pages write for the 4.0 server, replaced by `GREMLIN_URL` in an unmarked
/// block; the default URL of `cli-server: load`.
const PAGE_URL: &str = "http://127.0.0.1:8182/gremlin";

/// The default URL of `cli-server: tinkerpop3` / `janusgraph`.
const PAGE_WS_URL: &str = "ws://127.0.0.1:8182/gremlin";

/// The dummy AWS credentials of every command's environment (env provider, the first of the
/// default chain): the secret and the token must never be printed.
const AWS_ACCESS_KEY_ID: &str = "AKIDGUIDECLIEXAMPLE";
const AWS_SECRET_ACCESS_KEY: &str = "guide-cli-secret-Xk3Jq8Vw2Rt5Ly7Nz0";
const AWS_SESSION_TOKEN: &str = "guide-cli-session-token-Pf4Hs9Dm1Qc6Bw2Ez8";

/// A server a block marked `cli-server: NAME` runs against (CI's TinkerPop 3 step starts
/// them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Server {
    /// Gremlin Server 3.7.3 with the modern graph (env `GREMLIN_WS_URL_373`): read only, the
    /// graph is shared.
    TinkerPop3,
    /// JanusGraph 1.1.0 in memory with the modern graph (env `GREMLIN_WS_JANUSGRAPH_URL`).
    JanusGraph,
    /// A Gremlin Server 4.0 whose graph `g` the tests may clear (env `GREMLIN_LOAD_URL`, the
    /// e2e tests' load server).
    Load,
}

impl Server {
    const ALL: [Server; 3] = [Server::TinkerPop3, Server::JanusGraph, Server::Load];

    fn parse(name: &str) -> Option<Server> {
        match name {
            "tinkerpop3" => Some(Server::TinkerPop3),
            "janusgraph" => Some(Server::JanusGraph),
            "load" => Some(Server::Load),
            _ => None,
        }
    }

    fn var(self) -> &'static str {
        match self {
            Server::TinkerPop3 => "GREMLIN_WS_URL_373",
            Server::JanusGraph => "GREMLIN_WS_JANUSGRAPH_URL",
            Server::Load => "GREMLIN_LOAD_URL",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Server::TinkerPop3 => "TinkerPop 3.7.3 with the modern graph",
            Server::JanusGraph => "JanusGraph 1.1.0 with the modern graph",
            Server::Load => "a 4.0 server whose graph the test may clear",
        }
    }

    /// The URL a block stands for this server with when its marker gives none.
    fn page_url(self) -> &'static str {
        match self {
            Server::TinkerPop3 | Server::JanusGraph => PAGE_WS_URL,
            Server::Load => PAGE_URL,
        }
    }
}

/// The value of a `cli-server:` marker, `NAME [URL]`, or why it is malformed.
fn server_marker(value: &str) -> Result<(Server, String), String> {
    let mut words = value.split_whitespace();
    let name = words.next().unwrap_or("");
    let server = Server::parse(name).ok_or_else(|| {
        format!("cli-server is tinkerpop3, janusgraph or load (then a URL), not {name:?}")
    })?;
    let url = words.next().unwrap_or(server.page_url());
    if !["ws://", "wss://", "http://", "https://"]
        .iter()
        .any(|s| url.starts_with(s))
    {
        return Err(format!("cli-server {name}: {url:?} is not a URL"));
    }
    if let Some(extra) = words.next() {
        return Err(format!("cli-server {name} {url}: unexpected {extra:?}"));
    }
    Ok((server, url.to_owned()))
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
    /// `file:line` of its block's fence: the commands of a block run in one directory.
    block: String,
    /// The servers its block names (`cli-server`), each with the URL that stands for it;
    /// empty for the 4.0 server of `GREMLIN_URL`.
    servers: Vec<(Server, String)>,
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
                "exit" => {
                    value
                        .parse::<i32>()
                        .unwrap_or_else(|_| panic!("{file}:{}: cli-exit needs a number", i + 1));
                }
                "server" => {
                    server_marker(value).unwrap_or_else(|e| panic!("{file}:{}: {e}", i + 1));
                }
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
        let (mut exit, mut servers) = (0, Vec::new());
        for above in lines[..i].iter().rev().map_while(|l| marker(l)) {
            match above {
                ("exit", n) => exit = n.parse().unwrap(),
                ("server", value) => servers.insert(0, server_marker(value).unwrap()),
                _ => {}
            }
        }
        let block = format!("{file}:{}", i + 1);
        for (n, (s, url)) in servers.iter().enumerate() {
            assert!(
                servers[..n].iter().all(|(t, u)| t != s && u != url),
                "{block}: two cli-server markers name {s:?} or {url}"
            );
        }
        assert!(
            !servers.iter().any(|(s, _)| *s == Server::Load) || servers.len() == 2,
            "{block}: a block that names `load` is a copy: it names one other server, the source"
        );
        let first = out.len();
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
                        block: block.clone(),
                        servers: servers.clone(),
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
        // A URL a marker names must be in the block (a default one may be left out).
        for (s, url) in &servers {
            assert!(
                url == s.page_url()
                    || out[first..]
                        .iter()
                        .any(|e| e.args.iter().any(|a| a.contains(url.as_str()))),
                "{block}: cli-server {s:?} names {url}, which no command of the block writes"
            );
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
    let ours = all.iter().filter(|e| e.servers.is_empty()).count();
    // The guide's own: connecting, errors, results, timeouts (README's and cli.md's too).
    assert!(
        ours >= 4,
        "only {ours} examples for the 4.0 server found: {all:#?}"
    );
    assert!(
        all.iter().any(|e| !e.output.is_empty()),
        "no example shows its output"
    );
    assert!(all.iter().any(|e| e.exit != 0), "no cli-exit example");
    for s in Server::ALL {
        assert!(
            all.iter().any(|e| e.servers.iter().any(|(t, _)| *t == s)),
            "no block marked `cli-server` for {s:?}: the guide shows one of each"
        );
    }
    // The Neptune page's `--sigv4`, mapped from its cluster's wss:// URL.
    assert!(
        all.iter().any(|e| e.args.iter().any(|a| a == "--sigv4")
            && e.servers.iter().any(|(_, u)| u.starts_with("wss://"))),
        "no `--sigv4` example with a wss:// URL of its own"
    );
    assert_eq!(
        server_marker("load http://new-server:8182/gremlin").unwrap(),
        (Server::Load, "http://new-server:8182/gremlin".to_owned())
    );
    assert_eq!(
        server_marker("janusgraph").unwrap(),
        (Server::JanusGraph, PAGE_WS_URL.to_owned())
    );
    for bad in [
        "neptune",
        "load new-server",
        "tinkerpop3 ws://a:1/g extra",
        "",
    ] {
        assert!(server_marker(bad).is_err(), "{bad:?}");
    }
}

/// Runs `graphbinary args` in `dir` with `GREMLIN_URL` set to `url`, the dummy AWS
/// credentials as the only ones the default chain can find, `input` on stdin: (exit status,
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
    // The default chain: env first, which these answer; nothing else of the machine's (a
    // profile, a role, a container's or an instance's credentials) is looked at or asked.
    for var in [
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_ROLE_ARN",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("AWS_ACCESS_KEY_ID", AWS_ACCESS_KEY_ID)
        .env("AWS_SECRET_ACCESS_KEY", AWS_SECRET_ACCESS_KEY)
        .env("AWS_SESSION_TOKEN", AWS_SESSION_TOKEN)
        .env("AWS_CONFIG_FILE", dir.join("no-aws-config"))
        .env(
            "AWS_SHARED_CREDENTIALS_FILE",
            dir.join("no-aws-credentials"),
        )
        .env("AWS_EC2_METADATA_DISABLED", "true");
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

/// The examples in runs of one block each, in page order.
fn blocks<'a>(examples: impl Iterator<Item = &'a Example>) -> Vec<Vec<&'a Example>> {
    let mut out: Vec<Vec<&Example>> = Vec::new();
    for e in examples {
        match out.last_mut() {
            Some(b) if b[0].block == e.block => b.push(e),
            _ => out.push(vec![e]),
        }
    }
    out
}

/// Runs the commands of one block in a fresh temporary directory, each URL of `urls` (as the
/// page writes it, the server's) replaced in their arguments and expected output, `GREMLIN_URL`
/// the first server's. Returns how many ran and a message for each that exited otherwise than
/// its page says, did not print a line it shows, or printed the dummy AWS secret or token.
fn run_block(block: &[&Example], urls: &[(String, String)]) -> (usize, Vec<String>) {
    let name: String = block[0]
        .block
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let dir = std::env::temp_dir().join(format!(
        "graphbinary-guide-cli-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let replace = |text: &str| {
        urls.iter()
            .fold(text.to_owned(), |t, (page, url)| t.replace(page, url))
    };
    let (mut ran, mut failures) = (0, Vec::new());
    for e in block {
        let args: Vec<String> = e.args.iter().map(|a| replace(a)).collect();
        if args.iter().any(|a| a == "--sigv4") && !cfg!(feature = "sigv4-aws-config") {
            failures.push(format!(
                "{}: `graphbinary {}` needs graphbinary-client's feature `sigv4-aws-config` \
                 (its `--sigv4`), and this test binary was built without it: cargo test -p \
                 graphbinary-client --features graphbinary-client/sigv4-aws-config --test cli \
                 -- guide_cli::",
                e.at,
                e.args.join(" ")
            ));
            continue;
        }
        let (code, stdout, stderr) = run(&e.at, &args, &e.input, &urls[0].1, &dir);
        ran += 1;
        for secret in [AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN] {
            if stdout.contains(secret) || stderr.contains(secret) {
                failures.push(format!(
                    "{}: graphbinary {args:?} printed an AWS secret of its environment",
                    e.at
                ));
            }
        }
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
            let want = &replace(want);
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
    (ran, failures)
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
    let urls = [(PAGE_URL.to_owned(), gremlin_server::url())];
    let (mut ran, mut failures) = (0, Vec::new());
    for block in blocks(all.iter().filter(|e| e.servers.is_empty())) {
        let (n, f) = run_block(&block, &urls);
        ran += n;
        failures.extend(f);
    }
    eprintln!(
        "guide_cli tinkerpop4: {ran} examples run, {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(ran > 0, "no example ran");
}

/// A client of `url` for the copy's counts.
fn count_client(url: &str) -> Client {
    Client::builder(url)
        .connect_timeout(Duration::from_secs(5))
        .read_timeout(Duration::from_secs(60))
        .build()
        .expect("a client")
}

/// How many vertices and edges the graph `g` of `c` has.
async fn counts(c: &Client) -> (i64, i64) {
    (
        c.submit("g.V().count()").expect_one::<i64>().await,
        c.submit("g.E().count()").expect_one::<i64>().await,
    )
}

/// Empties the graph `g` of the load server.
async fn clear(c: &Client) {
    c.submit("g.E().drop()").expect_all().await;
    c.submit("g.V().drop()").expect_all().await;
    assert_eq!(counts(c).await, (0, 0), "the load graph did not empty");
}

/// The blocks marked `cli-server`, against their servers (CI's TinkerPop 3 step sets their env
/// vars; the plain test step reports a skip for each unset one). A copy (`load` and a source)
/// starts on the load graph emptied and must leave the source's vertex and edge counts there;
/// the graph is emptied again after. What guards that graph: this is the only test of the
/// `cli` binary that writes to it, and the `e2e` binary's tests, which clear it too (under
/// their `LOAD_GRAPH` lock), run in another process, never at once: cargo runs test binaries
/// one after another.
#[tokio::test]
async fn ws3_examples_run_against_their_servers() {
    let all = all_examples();
    let urls: Vec<(Server, Option<String>)> = Server::ALL
        .iter()
        .map(|&s| {
            let test = format!("guide_cli ws3_examples ({s:?})");
            (s, servers3::one(&test, s.var(), s.what()))
        })
        .collect();
    let url_of = |s: Server| {
        urls.iter()
            .find(|(t, _)| *t == s)
            .and_then(|(_, u)| u.clone())
    };
    let (mut ran, mut failures, mut not_run) = (0, Vec::new(), 0);
    for block in blocks(all.iter().filter(|e| !e.servers.is_empty())) {
        let servers = &block[0].servers;
        let map: Option<Vec<(String, String)>> = servers
            .iter()
            .map(|(s, page)| url_of(*s).map(|u| (page.clone(), u)))
            .collect();
        // A server unset: its notice is given above.
        let Some(map) = map else {
            not_run += block.len();
            continue;
        };
        let copy = servers.iter().any(|(s, _)| *s == Server::Load).then(|| {
            let source = servers.iter().find(|(s, _)| *s != Server::Load).unwrap().0;
            (
                count_client(&url_of(source).unwrap()),
                count_client(&url_of(Server::Load).unwrap()),
            )
        });
        if let Some((_, load)) = &copy {
            clear(load).await;
        }
        let (n, f) = run_block(&block, &map);
        ran += n;
        failures.extend(f);
        if let Some((source, load)) = &copy {
            let want = counts(source).await;
            assert!(
                want.0 > 0 && want.1 > 0,
                "{}: the source graph is empty",
                block[0].block
            );
            let got = counts(load).await;
            if got != want {
                failures.push(format!(
                    "{}: the copy holds {} vertices and {} edges, its source {} and {}",
                    block[0].block, got.0, got.1, want.0, want.1
                ));
            }
            eprintln!(
                "guide_cli {}: copied {} vertices, {} edges",
                block[0].block, got.0, got.1
            );
            clear(load).await;
        }
    }
    eprintln!(
        "guide_cli ws3_examples: {ran} examples run, {not_run} not run (a server unset), {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        ran > 0 || urls.iter().any(|(_, u)| u.is_none()),
        "every server is set and no example ran"
    );
}
