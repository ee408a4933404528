//! Amazon Neptune with IAM database authentication: every request signed with AWS Signature
//! Version 4 (feature `sigv4`), as the official drivers sign it.
//!
//! ```text
//! export AWS_ACCESS_KEY_ID=... AWS_SECRET_ACCESS_KEY=... [AWS_SESSION_TOKEN=...]
//! cargo run -p graphbinary-client --features sigv4 --example neptune_iam -- URL [REGION]
//! ```
//!
//! URL: the first argument, else env `NEPTUNE_URL`, else a placeholder cluster endpoint.
//! REGION: the second argument, else env `AWS_REGION`, else `us-east-1`.
//!
//! With feature `sigv4-aws-config`, `SigV4::from_env(region).await?` takes the credentials
//! from the whole default AWS chain instead (profiles, web identity, instance metadata),
//! refreshed as they expire. Neptune engines of today speak TinkerPop 3.7: give a `wss://`
//! URL and the same signer signs the WebSocket upgrade (see the `tinkerpop3` example). Neptune
//! takes no parameters: build traversals with `literal_only(true)`.

use aws_credential_types::Credentials;
use graphbinary_client::client::{Client, SigV4};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args = std::env::args().skip(1);
    let url = args
        .next()
        .or_else(|| std::env::var("NEPTUNE_URL").ok())
        .unwrap_or_else(|| {
            "https://my-cluster.cluster-abc.us-east-1.neptune.amazonaws.com:8182/gremlin".to_owned()
        });
    let region = args
        .next()
        .or_else(|| std::env::var("AWS_REGION").ok())
        .unwrap_or_else(|| "us-east-1".to_owned());

    // Static credentials from the environment. (Secrets never appear in Debug or errors.)
    let var = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
    let credentials = Credentials::new(
        var("AWS_ACCESS_KEY_ID")?,
        var("AWS_SECRET_ACCESS_KEY")?,
        std::env::var("AWS_SESSION_TOKEN").ok(),
        None,
        "environment",
    );

    // `auth` puts the signer last, after any other interceptor, so that it signs the request
    // exactly as it is sent.
    let client = Client::builder(url.as_str())
        .auth(SigV4::new(region, credentials))
        .build()?;
    let n: i64 = client.submit("g.V().count()").await?.one().await?;
    println!("Neptune at {url}: {n} vertices");
    Ok(())
}
