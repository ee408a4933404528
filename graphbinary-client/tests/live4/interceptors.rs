//! Request interceptors: order, authentication last, changing headers, URL and body, and
//! failures. Captured by a loopback responder; the body and URL rewrites also against the
//! real Gremlin Server (`GREMLIN_URL`).

use graphbinary_testkit::capture;
use graphbinary_testkit::gremlin_server;
use graphbinary_testkit::results;

use std::sync::{Arc, Mutex};

use graphbinary_client::client::{interceptor_fn, Client, Error};

use capture::Responder;
use results::one_as;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn append(
    name: &'static str,
) -> impl Fn(&mut graphbinary_client::client::HttpRequest) -> Result<(), BoxError> {
    move |req| {
        let before = req
            .headers
            .get("x-order")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let after = if before.is_empty() {
            name.to_owned()
        } else {
            format!("{before},{name}")
        };
        req.headers.insert("x-order", after.parse()?);
        Ok(())
    }
}

#[tokio::test]
async fn interceptors_run_in_order_and_auth_runs_last() {
    let r = Responder::start().await;
    let saw_auth = Arc::new(Mutex::new(Vec::new()));
    let s = saw_auth.clone();
    let client = Client::builder(&r.url)
        // Set before the other interceptors, it must still run after them.
        .basic_auth("user", "pass")
        .interceptor(interceptor_fn("a", append("a")))
        .interceptor(interceptor_fn("b", append("b")))
        .interceptor(interceptor_fn("probe", move |req| {
            s.lock()
                .unwrap()
                .push(req.headers.contains_key("authorization"));
            Ok(())
        }))
        .build()
        .unwrap();
    let n: i64 = one_as(client.submit("g.V().count()")).await;
    assert_eq!(n, 6);
    let got = r.captured();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].header("x-order"), Some("a,b"));
    assert_eq!(got[0].header("authorization"), Some("Basic dXNlcjpwYXNz"));
    assert_eq!(
        *saw_auth.lock().unwrap(),
        [false],
        "auth ran before the others"
    );
}

#[tokio::test]
async fn interceptors_see_the_serialized_body_and_the_default_headers() {
    let r = Responder::start().await;
    let seen = Arc::new(Mutex::new(None));
    let s = seen.clone();
    let client = Client::builder(&r.url)
        .interceptor(interceptor_fn("look", move |req| {
            *s.lock().unwrap() = Some((
                req.method.clone(),
                req.url.to_string(),
                req.headers.clone(),
                req.body.clone(),
            ));
            req.headers.remove("user-agent");
            Ok(())
        }))
        .build()
        .unwrap();
    let rb = client.request("g.V().count()").batch_size(7);
    let expected_body = rb.body_json();
    rb.send().await.unwrap().count().await.unwrap();
    let (method, url, headers, body) = seen.lock().unwrap().take().unwrap();
    assert_eq!(method, graphbinary_client::client::Method::POST);
    assert_eq!(url, r.url);
    assert_eq!(&body[..], expected_body.as_bytes());
    assert_eq!(headers["accept"], "application/vnd.graphbinary-v4.0");
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["accept-encoding"], "deflate");
    assert!(headers.contains_key("user-agent"));
    let got = r.captured();
    assert_eq!(got[0].body, expected_body.as_bytes());
    assert_eq!(
        got[0].header("user-agent"),
        None,
        "removed by the interceptor"
    );
}

#[tokio::test]
async fn a_failing_interceptor_is_a_typed_error_and_nothing_is_sent() {
    let r = Responder::start().await;
    let client = Client::builder(&r.url)
        .interceptor(interceptor_fn("refuser", |_| Err("no token today".into())))
        .build()
        .unwrap();
    let e = client.submit("g.V().count()").await.unwrap_err();
    match &e {
        Error::Interceptor { name, source } => {
            assert_eq!(name, "refuser");
            assert_eq!(source.to_string(), "no token today");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::error::Error::source(&e)
            .map(|s| s.to_string())
            .as_deref(),
        Some("no token today")
    );
    assert!(r.captured().is_empty());
}

#[tokio::test]
async fn an_interceptor_can_rewrite_url_and_body_for_the_real_server() {
    if !gremlin_server::server_available(
        "an_interceptor_can_rewrite_url_and_body_for_the_real_server",
    )
    .await
    {
        return;
    }
    let real = graphbinary_client::client::Url::parse(&gremlin_server::url()).unwrap();
    // The configured URL has nothing listening; the interceptor sends the request to the real
    // server instead, with another script.
    let client = Client::builder("http://127.0.0.1:9/nowhere")
        .interceptor(interceptor_fn("redirect", move |req| {
            req.url = real.clone();
            req.body = bytes::Bytes::from_static(br#"{"gremlin":"g.inject(42)"}"#);
            Ok(())
        }))
        .build()
        .unwrap();
    let v: i32 = one_as(client.submit("g.inject(1)")).await;
    assert_eq!(v, 42);
}
