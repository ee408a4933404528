//! SigV4 signing checked against an independent implementation: a loopback responder captures
//! the signed request, and botocore (AWS's Python signer, installed into a venv under
//! `target/botocore-venv` at test time) recomputes the signature from the same credentials,
//! time, method, URL, signed headers and body. They must match; a wrong secret must not.
//! Without python3 or botocore the test is skipped with a notice, a failure when env `CI` is
//! set.

#![cfg(feature = "sigv4")]

use graphbinary_testkit::capture;
use graphbinary_testkit::process;
use graphbinary_testkit::results;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, UNIX_EPOCH};

use aws_credential_types::Credentials;
use graphbinary_client::client::{interceptor_fn, Client, SigV4};

use capture::{Captured, Responder};
use process::output_with_stdin;
use results::one_as;

/// 2026-01-02T03:04:05Z.
const EPOCH: u64 = 1_767_323_045;

const BOTOCORE_SIGN: &str = r#"
import datetime, hashlib, json, sys
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
d = json.load(sys.stdin)
body = bytes.fromhex(d["body_hex"])
signed = d["signed"]
headers = {k: v for k, v in d["headers"] if k in signed and k not in ("x-amz-date", "x-amz-security-token")}
req = AWSRequest(method=d["method"], url=d["url"], data=body, headers=headers)
auth = SigV4Auth(Credentials(d["access_key"], d["secret_key"], d["token"]), d["service"], d["region"])
ts = datetime.datetime.fromtimestamp(d["epoch"], datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
req.context["timestamp"] = ts
auth._modify_request_before_signing(req)
canonical = auth.canonical_request(req)
signature = auth.signature(auth.string_to_sign(req, canonical), req)
print(json.dumps({
    "signature": signature,
    "signed_headers": auth.signed_headers(auth.headers_to_sign(req)),
    "timestamp": ts,
    "body_sha256": hashlib.sha256(body).hexdigest(),
}))
"#;

/// The venv's python with botocore, created on first use; `None` (after a notice) when it
/// cannot be had outside CI.
/// The Python with botocore, installed into a venv once per test binary: the tests run in
/// parallel, and two concurrent `pip install`s into one venv trip over each other's files.
fn botocore_python() -> Option<PathBuf> {
    static PYTHON: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);
    let mut cached = PYTHON.lock().unwrap_or_else(|e| e.into_inner());
    if cached.is_none() {
        *cached = install_botocore();
    }
    cached.clone()
}

fn install_botocore() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/botocore-venv");
    let python = venv.join("bin/python");
    let has_botocore = |py: &Path| {
        Command::new(py)
            .args(["-c", "import botocore"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if !has_botocore(&python) {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .is_ok_and(|s| s.success())
            && Command::new(venv.join("bin/pip"))
                .args(["install", "--quiet", "botocore"])
                .status()
                .is_ok_and(|s| s.success());
        if !made || !has_botocore(&python) {
            let why = format!("could not install botocore into {}", venv.display());
            if std::env::var_os("CI").is_some() {
                panic!("{why} and CI is set");
            }
            use std::io::Write as _;
            let _ = writeln!(std::io::stderr(), "NOTICE: sigv4 test SKIPPED: {why}");
            return None;
        }
    }
    Some(python)
}

struct Expected {
    signature: String,
    signed_headers: String,
    timestamp: String,
    body_sha256: String,
}

fn botocore_sign(
    python: &Path,
    req: &Captured,
    signed: &[&str],
    secret: &str,
    token: Option<&str>,
) -> Expected {
    let path = req.request_line.split(' ').nth(1).unwrap();
    let url = format!("http://{}{path}", req.header("host").unwrap());
    let input = serde_json::json!({
        "method": req.request_line.split(' ').next().unwrap(),
        "url": url,
        "headers": req.headers,
        "signed": signed,
        "body_hex": req.body.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        "access_key": "AKIDEXAMPLE",
        "secret_key": secret,
        "token": token,
        "region": "us-west-2",
        "service": "neptune-db",
        "epoch": EPOCH,
    });
    let out = output_with_stdin(
        Command::new(python).args(["-c", BOTOCORE_SIGN]),
        input.to_string().as_bytes(),
    );
    assert!(
        out.status.success(),
        "botocore failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let s = |k: &str| v[k].as_str().unwrap().to_owned();
    Expected {
        signature: s("signature"),
        signed_headers: s("signed_headers"),
        timestamp: s("timestamp"),
        body_sha256: s("body_sha256"),
    }
}

/// (credential scope, signed headers, signature) of an `Authorization` header.
fn parse_authorization(v: &str) -> (String, Vec<String>, String) {
    let rest = v.strip_prefix("AWS4-HMAC-SHA256 ").expect(v);
    let mut scope = String::new();
    let mut signed = Vec::new();
    let mut sig = String::new();
    for part in rest.split(", ") {
        let (k, val) = part.split_once('=').expect(part);
        match k {
            "Credential" => scope = val.to_owned(),
            "SignedHeaders" => signed = val.split(';').map(str::to_owned).collect(),
            "Signature" => sig = val.to_owned(),
            other => panic!("unexpected {other}"),
        }
    }
    (scope, signed, sig)
}

async fn capture_signed(token: Option<&str>) -> Captured {
    let r = Responder::start().await;
    let credentials = Credentials::new(
        "AKIDEXAMPLE",
        "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        token.map(str::to_owned),
        None,
        "test",
    );
    let client = Client::builder(&r.url)
        // Set first, SigV4 still runs after the other interceptors.
        .auth(
            SigV4::new("us-west-2", credentials).clock(|| UNIX_EPOCH + Duration::from_secs(EPOCH)),
        )
        .interceptor(interceptor_fn("tenant", |req| {
            req.headers.insert("x-tenant", "blue".parse()?);
            Ok(())
        }))
        .build()
        .unwrap();
    let n: i64 = one_as(
        client
            .request("g.V().has('name', n).count()")
            .param("n", "marko"),
    )
    .await;
    assert_eq!(n, 6);
    let mut got = r.captured();
    assert_eq!(got.len(), 1);
    got.remove(0)
}

#[tokio::test]
async fn sigv4_signatures_match_botocore_and_a_wrong_secret_does_not() {
    let Some(python) = botocore_python() else {
        return;
    };
    let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    for token in [Some("FQoGZXIvYXdzEXAMPLETOKEN//+="), None] {
        let req = capture_signed(token).await;
        let (scope, signed, sig) = parse_authorization(req.header("authorization").unwrap());
        assert_eq!(
            scope,
            "AKIDEXAMPLE/20260102/us-west-2/neptune-db/aws4_request"
        );
        let mut want = vec!["host", "x-amz-content-sha256", "x-amz-date"];
        if token.is_some() {
            want.push("x-amz-security-token");
        }
        assert_eq!(signed, want, "only these headers are signed");
        assert_eq!(req.header("x-amz-security-token"), token);
        assert_eq!(
            req.header("x-tenant"),
            Some("blue"),
            "other interceptors ran"
        );
        let expected = botocore_sign(&python, &req, &want, secret, token);
        assert_eq!(req.header("x-amz-date"), Some(expected.timestamp.as_str()));
        assert_eq!(
            req.header("x-amz-content-sha256"),
            Some(expected.body_sha256.as_str()),
            "x-amz-content-sha256 is the body's SHA-256"
        );
        assert_eq!(expected.signed_headers, want.join(";"));
        assert_eq!(
            sig, expected.signature,
            "botocore computes another signature"
        );
        let wrong = botocore_sign(&python, &req, &want, "not-the-secret", token);
        assert_ne!(sig, wrong.signature, "a wrong secret must not match");
    }
}

/// `SigV4::from_env` takes the credentials from the default chain: here the environment
/// variables (instance metadata and profile files turned off), checked against botocore too.
#[cfg(feature = "sigv4-aws-config")]
#[tokio::test]
async fn from_env_signs_with_the_default_chain_credentials() {
    use results::Sent as _;
    let Some(python) = botocore_python() else {
        return;
    };
    let secret = "envSECRETenvSECRETenvSECRETenvSECRET0000";
    // The only test in this binary that reads these variables.
    for (k, v) in [
        ("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE"),
        ("AWS_SECRET_ACCESS_KEY", secret),
        ("AWS_SESSION_TOKEN", "envTOKEN"),
        ("AWS_EC2_METADATA_DISABLED", "true"),
        ("AWS_CONFIG_FILE", "/nonexistent/aws-config"),
        (
            "AWS_SHARED_CREDENTIALS_FILE",
            "/nonexistent/aws-credentials",
        ),
    ] {
        std::env::set_var(k, v);
    }
    let r = Responder::start().await;
    let signer = SigV4::from_env("us-west-2")
        .await
        .unwrap()
        .clock(|| UNIX_EPOCH + Duration::from_secs(EPOCH));
    let client = Client::builder(&r.url).auth(signer).build().unwrap();
    client.submit("g.V().count()").expect_count().await;
    let req = r.captured().remove(0);
    let (scope, signed, sig) = parse_authorization(req.header("authorization").unwrap());
    assert_eq!(
        scope,
        "AKIDEXAMPLE/20260102/us-west-2/neptune-db/aws4_request"
    );
    assert_eq!(req.header("x-amz-security-token"), Some("envTOKEN"));
    let signed: Vec<&str> = signed.iter().map(String::as_str).collect();
    let expected = botocore_sign(&python, &req, &signed, secret, Some("envTOKEN"));
    assert_eq!(sig, expected.signature);
}

/// The WebSocket upgrade of a `ws://` client (TinkerPop 3, e.g. Neptune engines today) is
/// signed by the same interceptor: the `GET /gremlin` with its empty body, checked against
/// botocore.
#[tokio::test]
async fn sigv4_signs_the_websocket_upgrade_as_botocore_does() {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
    use tokio_tungstenite::tungstenite::Message;

    let Some(python) = botocore_python() else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<Captured>();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut tx = Some(tx);
        // The callback's signature is tungstenite's (its error is an HTTP response).
        #[allow(clippy::result_large_err)]
        let callback = |req: &Request, resp: Response| {
            let headers = req
                .headers()
                .iter()
                .map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap().to_owned()))
                .collect();
            let captured = Captured {
                request_line: format!("{} {} HTTP/1.1", req.method(), req.uri()),
                headers,
                body: Vec::new(),
            };
            let _ = tx.take().unwrap().send(captured);
            Ok(resp)
        };
        let mut ws = tokio_tungstenite::accept_hdr_async(tcp, callback)
            .await
            .unwrap();
        // Answer the one eval with [6L].
        while let Some(Ok(m)) = ws.next().await {
            let Message::Binary(b) = m else { continue };
            let mut out = vec![0x81, 0x00];
            out.extend_from_slice(&b[34..50]);
            out.extend_from_slice(&[0, 0, 0, 0xc8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            out.extend_from_slice(&[0x09, 0x00, 0, 0, 0, 1, 0x02, 0x00, 0, 0, 0, 0, 0, 0, 0, 6]);
            ws.send(Message::Binary(out.into())).await.unwrap();
        }
    });
    let secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
    let token = "FQoGZXIvYXdzEXAMPLETOKEN//+=";
    let credentials = Credentials::new("AKIDEXAMPLE", secret, Some(token.to_owned()), None, "test");
    let client = Client::builder(format!("ws://{addr}/gremlin"))
        .auth(
            SigV4::new("us-west-2", credentials).clock(|| UNIX_EPOCH + Duration::from_secs(EPOCH)),
        )
        .build()
        .unwrap();
    let n: i64 = one_as(client.submit("g.V().count()")).await;
    assert_eq!(n, 6);
    let req = rx.await.unwrap();
    assert!(
        req.request_line.starts_with("GET /gremlin"),
        "{}",
        req.request_line
    );
    assert!(req.header("sec-websocket-key").is_some(), "a real upgrade");
    let (scope, signed, sig) = parse_authorization(req.header("authorization").unwrap());
    assert_eq!(
        scope,
        "AKIDEXAMPLE/20260102/us-west-2/neptune-db/aws4_request"
    );
    let want = [
        "host",
        "x-amz-content-sha256",
        "x-amz-date",
        "x-amz-security-token",
    ];
    assert_eq!(signed, want);
    assert_eq!(req.header("x-amz-security-token"), Some(token));
    let expected = botocore_sign(&python, &req, &want, secret, Some(token));
    assert_eq!(req.header("x-amz-date"), Some(expected.timestamp.as_str()));
    assert_eq!(
        req.header("x-amz-content-sha256"),
        Some(expected.body_sha256.as_str()),
        "the SHA-256 of the empty body"
    );
    assert_eq!(
        sig, expected.signature,
        "botocore computes another signature"
    );
    let wrong = botocore_sign(&python, &req, &want, "not-the-secret", Some(token));
    assert_ne!(sig, wrong.signature);
}
