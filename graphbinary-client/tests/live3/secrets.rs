//! No secret in any output (the invariant of ARCHITECTURE.md): every public type that can hold
//! a password, a SigV4 secret key or session token, a SASL token or a URL's userinfo is built
//! with distinctive secrets (all containing `S3CRET`), and none of them, nor their Basic or SASL
//! encodings, may appear in its `{:?}` or `{:#?}`, in the `Display` and `Debug` of the errors
//! made with them (the whole source chain), or in what the `graphbinary` CLI prints. And
//! credentials in a URL are used: Basic authentication over HTTP (seen by a loopback capture),
//! SASL PLAIN over WebSocket (against a real TinkerPop 3.7.3 with `--auth`).
//!
//! To cover a new type or error: add a line to [`debug_cases`] or [`offline_errors`].
//!
//! Servers, each by env var; a test whose server is unset returns with a `SKIPPED` notice:
//!
//! ```sh
//! cargo xtask server --tinkerpop 3.7.3 --auth --port 8252 --detach
//! cargo xtask server --dataset tx --port 8183 --detach
//! GREMLIN_WS_AUTH_URL_373=ws://127.0.0.1:8252/gremlin GREMLIN_TX_URL=http://127.0.0.1:8183/gremlin \
//!   cargo test -p graphbinary-client --features sigv4 --test secrets
//! ```

use graphbinary_testkit::capture;
use graphbinary_testkit::results;
use graphbinary_testkit::servers3;
use graphbinary_testkit::skip;
use results::Sent;

use std::error::Error as StdError;
use std::fmt::Debug;
use std::time::Duration;

use graphbinary_client::client::{
    interceptor_fn, BasicAuth, Client, ClientBuilder, HeaderMap, HttpRequest, Interceptor, Method,
    Secret, Url,
};

use capture::Responder;

/// The user of every credential (not a secret).
const USER: &str = "stephen";
/// The password given to `basic_auth` and `BasicAuth`.
const PASSWORD: &str = "pw-S3CRET-1";
/// The password in URLs' userinfo, percent-encoded as a URL carries it ...
const URL_PASSWORD: &str = "pw-S3CRET-2%21";
/// ... and as it is sent.
const URL_PASSWORD_DECODED: &str = "pw-S3CRET-2!";
/// The password of the proxy's URL.
const PROXY_PASSWORD: &str = "pw-S3CRET-3";
/// The SigV4 secret access key.
#[cfg(feature = "sigv4")]
const SECRET_KEY: &str = "sk-S3CRET-4";
/// The SigV4 session token.
#[cfg(feature = "sigv4")]
const SESSION_TOKEN: &str = "tok-S3CRET-5";
/// In every secret above.
const MARK: &str = "S3CRET";
/// The password of the `--auth` test server (user `stephen`).
const SERVER_PASSWORD: &str = "password";

/// Standard base64 with padding, as Basic authentication and SASL PLAIN encode.
fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (c[0] as u32) << 16
            | (*c.get(1).unwrap_or(&0) as u32) << 8
            | *c.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= c.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The SASL user of the Azure Cosmos DB profile built with `cosmos(COSMOS_DB, COSMOS_COLL, PASSWORD)`.
const COSMOS_USER: &str = "/dbs/db/colls/coll";

/// What must appear nowhere: the secrets (by their mark) and their Basic and SASL encodings.
fn forbidden() -> Vec<String> {
    let mut v = vec![MARK.to_owned(), URL_PASSWORD.to_owned()];
    for pw in [PASSWORD, URL_PASSWORD_DECODED, PROXY_PASSWORD] {
        for user in [USER, COSMOS_USER] {
            v.push(base64(format!("{user}:{pw}").as_bytes()));
            v.push(base64(format!("\0{user}\0{pw}").as_bytes()));
        }
    }
    v
}

fn assert_clean(what: &str, text: &str) {
    for f in forbidden() {
        assert!(!text.contains(&f), "{what} shows a secret ({f:?}):\n{text}");
    }
}

fn check_debug(what: &str, v: &dyn Debug) {
    assert_clean(what, &format!("{v:?}"));
    assert_clean(what, &format!("{v:#?}"));
}

/// The `Display` and `Debug` of `e` and of every error in its source chain.
fn check_error(what: &str, e: &(dyn StdError + 'static)) {
    let mut cur = Some(e);
    let mut depth = 0;
    while let Some(err) = cur {
        let what = format!("{what} (source {depth})");
        assert_clean(&what, &err.to_string());
        check_debug(&what, &err);
        cur = err.source();
        depth += 1;
    }
}

/// `url` with `user:password@` put before its host.
fn with_userinfo(url: &str, user: &str, password: &str) -> String {
    url.replacen("://", &format!("://{user}:{password}@"), 1)
}

/// A loopback port nothing listens on (bound, then released).
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Static AWS credentials with the secret key and session token.
#[cfg(feature = "sigv4")]
fn aws_credentials() -> aws_credential_types::Credentials {
    aws_credential_types::Credentials::new(
        "AKIDEXAMPLE",
        SECRET_KEY,
        Some(SESSION_TOKEN.to_owned()),
        None,
        "static",
    )
}

#[cfg(feature = "sigv4")]
fn sigv4() -> graphbinary_client::client::SigV4 {
    graphbinary_client::client::SigV4::new("us-east-1", aws_credentials())
}

/// Every way of building a builder with a secret in it, by name.
fn builders() -> Vec<(String, ClientBuilder)> {
    let http = "http://127.0.0.1:8182/gremlin";
    let ws = "ws://127.0.0.1:8182/gremlin";
    let proxy = format!("http://{USER}:{PROXY_PASSWORD}@127.0.0.1:3128");
    #[cfg_attr(not(feature = "sigv4"), allow(unused_mut))]
    let mut b = vec![
        (
            "http basic_auth".to_owned(),
            Client::builder(http).basic_auth(USER, PASSWORD),
        ),
        (
            "ws basic_auth".to_owned(),
            Client::builder(ws).basic_auth(USER, PASSWORD),
        ),
        (
            "ws basic_auth and a BasicAuth interceptor".to_owned(),
            Client::builder(ws)
                .basic_auth(USER, PASSWORD)
                .interceptor(BasicAuth::new(USER, PASSWORD)),
        ),
        (
            "http URL userinfo, hosts, proxy".to_owned(),
            Client::builder(with_userinfo(http, USER, URL_PASSWORD))
                .add_host(with_userinfo(
                    "http://127.0.0.1:8183/gremlin",
                    USER,
                    URL_PASSWORD,
                ))
                .add_host("http://127.0.0.1:8184/gremlin")
                .proxy(proxy.clone()),
        ),
        (
            "https URL userinfo".to_owned(),
            Client::builder(with_userinfo(
                "https://127.0.0.1:8182/gremlin",
                USER,
                URL_PASSWORD,
            )),
        ),
        (
            "ws URL userinfo".to_owned(),
            Client::builder(with_userinfo(ws, USER, URL_PASSWORD)),
        ),
        (
            "wss URL userinfo".to_owned(),
            Client::builder(with_userinfo(
                "wss://127.0.0.1:8182/gremlin",
                USER,
                URL_PASSWORD,
            )),
        ),
        (
            "wss cosmos".to_owned(),
            Client::builder("wss://127.0.0.1:8182/").cosmos("db", "coll", PASSWORD),
        ),
        (
            "http basic_auth, proxy".to_owned(),
            Client::builder(http)
                .basic_auth(USER, PASSWORD)
                .proxy(proxy),
        ),
    ];
    #[cfg(feature = "sigv4")]
    {
        b.push(("http sigv4".to_owned(), Client::builder(http).auth(sigv4())));
        b.push(("ws sigv4".to_owned(), Client::builder(ws).auth(sigv4())));
    }
    b
}

/// Every public type that can hold a secret, built with the secrets set (no server needed).
/// One line per type; a client adds its builder, itself, a request, its hosts and its URL.
fn debug_cases() -> Vec<(String, Box<dyn Debug>)> {
    let mut cases: Vec<(String, Box<dyn Debug>)> = vec![
        ("Secret".into(), Box::new(Secret::new(PASSWORD))),
        ("BasicAuth".into(), Box::new(BasicAuth::new(USER, PASSWORD))),
        (
            "FnInterceptor".into(),
            Box::new(interceptor_fn("fn", |_| Ok(()))),
        ),
        (
            "HttpRequest with URL userinfo".into(),
            Box::new(HttpRequest::new(
                Method::POST,
                Url::parse(&with_userinfo(
                    "http://127.0.0.1:8182/gremlin",
                    USER,
                    URL_PASSWORD,
                ))
                .unwrap(),
                HeaderMap::new(),
                "{}",
            )),
        ),
    ];
    #[cfg(feature = "sigv4")]
    {
        cases.push(("SigV4".into(), Box::new(sigv4())));
        cases.push(("aws Credentials".into(), Box::new(aws_credentials())));
    }
    for (name, b) in builders() {
        cases.push((format!("ClientBuilder ({name})"), Box::new(b)));
    }
    for (name, b) in builders() {
        let client = b.build().unwrap_or_else(|e| panic!("{name}: {e:?}"));
        cases.push((
            format!("Client::url ({name})"),
            Box::new(client.url().to_owned()),
        ));
        cases.push((format!("Client::hosts ({name})"), Box::new(client.hosts())));
        cases.push((
            format!("RequestBuilder ({name})"),
            Box::new(client.request("g.V()")),
        ));
        cases.push((
            format!("Exporter ({name})"),
            Box::new(graphbinary_client::process::Exporter::new(&client)),
        ));
        cases.push((format!("Client ({name})"), Box::new(client)));
    }
    cases
}

#[test]
fn no_debug_shows_a_secret() {
    let cases = debug_cases();
    assert!(cases.len() > 20, "{}", cases.len());
    for (what, v) in &cases {
        check_debug(what, v.as_ref());
    }
    // The issue's example, spelled out: the password was in the builder's Debug.
    let b = Client::builder("http://127.0.0.1:8182/gremlin").basic_auth(USER, PASSWORD);
    let text = format!("{b:?}");
    assert!(text.contains(USER) && !text.contains(PASSWORD), "{text}");
}

#[test]
fn a_url_is_shown_with_its_password_redacted() {
    let c = Client::new(with_userinfo(
        "http://127.0.0.1:8182/gremlin",
        USER,
        URL_PASSWORD,
    ))
    .unwrap();
    assert_eq!(c.url(), "http://127.0.0.1:8182/gremlin");
    assert_eq!(c.hosts()[0].url, "http://127.0.0.1:8182/gremlin");
    let b = Client::builder(with_userinfo("ws://h:8182/gremlin", USER, URL_PASSWORD));
    let text = format!("{b:?}");
    assert!(
        text.contains("ws://stephen:REDACTED@h:8182/gremlin"),
        "{text}"
    );
}

/// Errors made with secrets without a server: bad URLs, conflicting credentials, bad proxy.
fn offline_errors() -> Vec<(String, graphbinary_client::Error)> {
    let bad = |name: &str, b: ClientBuilder| {
        let e = b.build().err().unwrap_or_else(|| panic!("{name}: built"));
        (name.to_owned(), e)
    };
    let http = with_userinfo("http://127.0.0.1:8182/gremlin", USER, URL_PASSWORD);
    vec![
        bad(
            "unparsable http URL",
            Client::builder(with_userinfo("http://[::1/gremlin", USER, URL_PASSWORD)),
        ),
        bad(
            "unparsable ws URL",
            Client::builder(with_userinfo("ws://bad host/gremlin", USER, URL_PASSWORD)),
        ),
        bad(
            "no scheme",
            Client::builder(format!("{USER}:{URL_PASSWORD}@127.0.0.1:8182")),
        ),
        bad(
            "unparsable added host",
            Client::builder("http://127.0.0.1:8182/gremlin").add_host(with_userinfo(
                "http://[::1/gremlin",
                USER,
                URL_PASSWORD,
            )),
        ),
        bad(
            "URL userinfo and basic_auth",
            Client::builder(http.as_str()).basic_auth(USER, PASSWORD),
        ),
        bad(
            "ws URL userinfo and basic_auth",
            Client::builder(with_userinfo("ws://h/gremlin", USER, URL_PASSWORD))
                .basic_auth(USER, PASSWORD),
        ),
        bad(
            "hosts with different credentials",
            Client::builder(http.as_str()).add_host(with_userinfo(
                "http://127.0.0.1:8183/gremlin",
                USER,
                PASSWORD,
            )),
        ),
        bad(
            "password not UTF-8",
            Client::builder(with_userinfo(
                "http://127.0.0.1:8182/gremlin",
                USER,
                "S3CRET%ff",
            )),
        ),
        bad(
            "cosmos over https",
            Client::builder("https://127.0.0.1:8182/").cosmos("db", "coll", PASSWORD),
        ),
        bad(
            "cosmos and URL userinfo",
            Client::builder(with_userinfo("wss://h/", USER, URL_PASSWORD))
                .cosmos("db", "coll", PASSWORD),
        ),
        bad(
            "cosmos then GraphSON 3",
            Client::builder("wss://h/")
                .cosmos("db", "coll", PASSWORD)
                .serializer(graphbinary_client::Serializer::GraphSon3),
        ),
        bad(
            "unparsable proxy URL",
            Client::builder("http://127.0.0.1:8182/gremlin")
                .proxy(format!("http://{USER}:{PROXY_PASSWORD}@[::1")),
        ),
    ]
}

#[test]
fn no_configuration_error_shows_a_secret() {
    let errors = offline_errors();
    for (what, e) in &errors {
        assert!(
            matches!(e, graphbinary_client::Error::Config(_)),
            "{what}: {e:?}"
        );
        check_error(what, e);
    }
    // The message still says which URL: its host, without the password.
    let text = errors[0].1.to_string();
    assert!(text.contains("stephen:REDACTED@[::1"), "{text}");
}

#[tokio::test]
async fn no_connection_error_shows_a_secret() {
    let port = closed_port();
    let http = with_userinfo(
        &format!("http://127.0.0.1:{port}/gremlin"),
        USER,
        URL_PASSWORD,
    );
    let ws = with_userinfo(
        &format!("ws://127.0.0.1:{port}/gremlin"),
        USER,
        URL_PASSWORD,
    );
    for url in [&http, &ws] {
        let c = Client::builder(url.as_str())
            .connect_timeout(Duration::from_secs(5))
            .build()
            .unwrap();
        let e = c.submit("g.V().count()").await.unwrap_err();
        assert_eq!(
            e.transport_kind(),
            Some(graphbinary_client::client::TransportKind::Connect),
            "{e:?}"
        );
        check_error(&format!("refused {url}"), &e);
        let c = Client::builder("http://127.0.0.1:8182/gremlin")
            .basic_auth(USER, PASSWORD)
            .url(url.as_str().replace(&format!("{USER}:{URL_PASSWORD}@"), ""))
            .build()
            .unwrap();
        let e = c.submit("g.V().count()").await.unwrap_err();
        check_error(&format!("refused with basic_auth {url}"), &e);
    }
    // Credentials in a ws:// URL and given to basic_auth: offline_errors.
}

#[tokio::test]
async fn no_timeout_error_shows_a_secret() {
    // Accepts connections (the kernel's backlog) and never answers: the WebSocket handshake
    // and the HTTP response time out, naming the URL.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    // The URL of `scheme` with credentials in it, built by `set`; the error of one request.
    let timed_out = |scheme: &str, set: fn(ClientBuilder) -> ClientBuilder| {
        let url = with_userinfo(
            &format!("{scheme}://127.0.0.1:{port}/gremlin"),
            USER,
            URL_PASSWORD,
        );
        let c = set(Client::builder(url)).build().unwrap();
        async move {
            let e = c.submit("g.V().count()").await.unwrap_err();
            assert!(e.is_timeout(), "{e:?}");
            e
        }
    };
    let e = timed_out("ws", |b| b.connect_timeout(Duration::from_millis(300))).await;
    let text = graphbinary_client::format::text::one_line(&e);
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    check_error("ws handshake timeout", &e);
    let e = timed_out("http", |b| b.request_timeout(Duration::from_millis(300))).await;
    check_error("HTTP timeout", &e);
    drop(silent);
}

#[tokio::test]
async fn interceptors_leave_no_secret_in_the_request_debug() {
    let mut req = HttpRequest::new(
        Method::POST,
        Url::parse("http://127.0.0.1:8182/gremlin").unwrap(),
        HeaderMap::new(),
        "{}",
    );
    BasicAuth::new(USER, PASSWORD)
        .intercept(&mut req)
        .await
        .unwrap();
    assert_eq!(
        req.headers["authorization"],
        format!("Basic {}", base64(format!("{USER}:{PASSWORD}").as_bytes()))
    );
    check_debug("HttpRequest after BasicAuth", &req);
    #[cfg(feature = "sigv4")]
    {
        sigv4().intercept(&mut req).await.unwrap();
        assert_eq!(req.headers["x-amz-security-token"], SESSION_TOKEN);
        check_debug("HttpRequest after SigV4", &req);
    }
}

/// The URL's credentials are sent as Basic authentication, to every host, and the URL on the
/// wire has no userinfo (a loopback capture of what the client sends).
#[tokio::test]
async fn http_userinfo_is_sent_as_basic_auth_to_every_host() {
    let (a, b) = (Responder::start().await, Responder::start().await);
    let client = Client::builder(&a.url)
        .add_host(with_userinfo(&b.url, USER, URL_PASSWORD))
        .build()
        .unwrap();
    assert_eq!(
        client
            .hosts()
            .iter()
            .map(|h| h.url.as_str())
            .collect::<Vec<_>>(),
        [a.url.as_str(), b.url.as_str()]
    );
    for _ in 0..2 {
        let n: i64 = client.submit("g.V().count()").expect_one().await;
        assert_eq!(n, 6);
    }
    let basic = format!(
        "Basic {}",
        base64(format!("{USER}:{URL_PASSWORD_DECODED}").as_bytes())
    );
    for (r, got) in [(&a, a.captured()), (&b, b.captured())] {
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].header("authorization"), Some(basic.as_str()));
        assert_eq!(got[0].request_line, "POST /gremlin HTTP/1.1");
        let host = format!("127.0.0.1:{}", r.port);
        assert_eq!(got[0].header("host"), Some(host.as_str()));
    }
    check_debug("Client with a host's userinfo", &client);
}

/// What the CLI prints, for a URL with a password: on a refused connection (nothing printed
/// holds it) and against the capture (the password is sent).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_prints_no_secret_and_sends_the_url_credentials() {
    let port = closed_port();
    for scheme in ["http", "ws"] {
        let url = with_userinfo(
            &format!("{scheme}://127.0.0.1:{port}/gremlin"),
            USER,
            URL_PASSWORD,
        );
        let out = cli(&["query", "--url", &url, "g.V().count()"]).await;
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("connect"), "{stderr}");
        assert_clean(&format!("CLI stderr ({scheme})"), &stderr);
        assert_clean(
            &format!("CLI stdout ({scheme})"),
            &String::from_utf8_lossy(&out.stdout),
        );
    }
    let r = Responder::start().await;
    let url = with_userinfo(&r.url, USER, URL_PASSWORD);
    let out = cli(&["query", "--url", &url, "g.V().count()"]).await;
    assert_eq!(String::from_utf8_lossy(&out.stdout), "6\n", "{out:?}");
    assert_clean("CLI stderr", &String::from_utf8_lossy(&out.stderr));
    let basic = format!(
        "Basic {}",
        base64(format!("{USER}:{URL_PASSWORD_DECODED}").as_bytes())
    );
    assert_eq!(
        r.captured()[0].header("authorization"),
        Some(basic.as_str())
    );
}

/// Runs the CLI off the runtime's threads, so that a capture in this runtime can answer it.
async fn cli(args: &[&str]) -> std::process::Output {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    tokio::task::spawn_blocking(move || {
        std::process::Command::new(env!("CARGO_BIN_EXE_graphbinary"))
            .args(&args)
            .env_remove("GREMLIN_URL")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("spawn graphbinary")
    })
    .await
    .unwrap()
}

/// A ws:// URL with userinfo authenticates with SASL PLAIN against a real `--auth` server;
/// with a wrong password the 401 shows no secret.
#[tokio::test]
async fn ws_userinfo_authenticates_and_a_refusal_shows_no_secret() {
    let Some(url) =
        servers3::auth_server("ws_userinfo_authenticates_and_a_refusal_shows_no_secret")
    else {
        return;
    };
    let good = with_userinfo(&url, USER, SERVER_PASSWORD);
    let client = Client::new(good.as_str()).unwrap();
    let n: i64 = client.submit("g.V().count()").expect_one().await;
    assert_eq!(n, 6);
    assert_eq!(client.url(), url);
    // A session through the one API authenticates on its own connection.
    let session = client.session().await.unwrap();
    let two: i32 = session.submit("1 + 1").await.unwrap().one().await.unwrap();
    assert_eq!(two, 2);
    for (what, text) in [
        ("Client", format!("{client:?}")),
        ("Transaction (session)", format!("{session:?}")),
    ] {
        assert!(!text.contains(SERVER_PASSWORD), "{what}: {text}");
    }
    session.close().await.unwrap();
    assert!(!format!("{session:?}").contains(SERVER_PASSWORD));

    let wrong = with_userinfo(&url, USER, URL_PASSWORD);
    let client = Client::new(wrong.as_str()).unwrap();
    check_debug("Client (ws, wrong password)", &client);
    let e = failure(&client).await;
    assert_eq!(e.server_error().map(|s| s.code), Some(401), "{e:?}");
    check_error("401 through Client", &e);
    let client = Client::builder(url.as_str())
        .basic_auth(USER, PASSWORD)
        .build()
        .unwrap();
    let e = failure(&client).await;
    assert_eq!(e.server_error().map(|s| s.code), Some(401), "{e:?}");
    check_error("401 with basic_auth", &e);
}

/// The error of `g.V().count()`, at sending or in the results (TinkerPop 3 reports a refused
/// authentication in the results).
async fn failure(client: &Client) -> graphbinary_client::Error {
    match client.submit("g.V().count()").await {
        Err(e) => e,
        Ok(results) => results.count().await.unwrap_err(),
    }
}

/// A transaction of a client whose URL has a password (a real transactional Gremlin Server 4,
/// which accepts and ignores the `Authorization` header): its `Debug` and its errors show none.
#[tokio::test]
async fn a_transaction_shows_no_secret() {
    let Ok(url) = std::env::var("GREMLIN_TX_URL") else {
        skip::skipped(
            "a_transaction_shows_no_secret",
            "GREMLIN_TX_URL unset (Gremlin Server 4 with `--dataset tx`)",
        );
        return;
    };
    let client = Client::new(with_userinfo(&url, USER, URL_PASSWORD)).unwrap();
    let tx = client
        .transaction()
        .await
        .unwrap_or_else(|e| panic!("no transactional server at {url}: {e:?}"));
    check_debug("Transaction", &tx);
    let n: i64 = tx.submit("g.V().count()").expect_one().await;
    assert!(n >= 0);
    tx.commit().await.unwrap();
    check_debug("Transaction (committed)", &tx);
    let e = tx.commit().await.unwrap_err();
    assert!(
        e.kind() == graphbinary_client::client::ErrorKind::Transaction,
        "{e:?}"
    );
    check_error("commit twice", &e);
}
