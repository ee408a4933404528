//! A loopback TLS server for the tests of the `https://` and `wss://` transports: a fresh
//! self-signed certificate for `localhost` (rcgen), rustls with the aws_lc_rs provider, a
//! listener on `127.0.0.1:0`. Used by the integration tests and by the unit tests of
//! `src/transport/ws/conn.rs`.

#![allow(dead_code)]

use std::future::Future;
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::server::TlsStream;

/// A running TLS server: the port it listens on and the PEM of its certificate.
pub struct TlsServer {
    pub port: u16,
    pub pem: String,
}

impl TlsServer {
    /// `{scheme}://localhost:{port}/gremlin`, e.g. `url("wss")`.
    pub fn url(&self, scheme: &str) -> String {
        format!("{scheme}://localhost:{}/gremlin", self.port)
    }
}

/// The PEM of a fresh self-signed certificate for `localhost` that no server uses (a root that
/// does not sign the server's certificate, though it has the same name).
pub fn unrelated_localhost_pem() -> String {
    rcgen::generate_simple_self_signed(vec!["localhost".to_owned()])
        .unwrap()
        .cert
        .pem()
}

/// Starts a TLS server on `127.0.0.1:0` with a fresh self-signed certificate for `localhost`.
/// It accepts connections until the test ends and runs `handle` on a task of its own for each,
/// with the result of the server side of the TLS handshake (an error where the client rejected
/// the certificate or spoke no TLS).
pub async fn serve_tls<F, Fut>(handle: F) -> TlsServer
where
    F: Fn(std::io::Result<TlsStream<TcpStream>>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let cert = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let pem = cert.cert.pem();
    let key = rustls::pki_types::PrivateKeyDer::try_from(cert.signing_key.serialize_der()).unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(vec![cert.cert.der().clone()], key)
    .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = Arc::new(handle);
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let (acceptor, handle) = (acceptor.clone(), handle.clone());
            tokio::spawn(async move { handle(acceptor.accept(sock).await).await });
        }
    });
    TlsServer { port, pem }
}
