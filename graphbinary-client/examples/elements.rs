//! Your own structs as vertices and edges: `#[derive(Vertex)]`, `#[derive(Edge)]`, typed
//! upserts, reading back as the struct, and the batch writer.
//!
//! ```text
//! cargo xtask server                    # a Gremlin Server 4.0 with the modern graph, port 8182
//! cargo run -p graphbinary-client --example elements -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_URL`, else `http://127.0.0.1:8182/gremlin`
//! (a `ws://` URL of a TinkerPop 3 server works the same). Everything written is dropped at
//! the end.

use std::time::Instant;

use graphbinary_client::element::{Edge, Vertex};
use graphbinary_client::process::BatchOptions;
use graphbinary_client::process::GraphTraversalSource;
use graphbinary_client::Client;

/// A vertex: its label, the key that identifies it for an upsert, its properties.
#[derive(Vertex, Debug, Clone, PartialEq)]
#[vertex(label = "example_city")]
struct City {
    #[vertex(key)]
    name: String,
    population: i64,
    /// Absent when `None`.
    motto: Option<String>,
    /// List cardinality: one property per value.
    #[vertex(rename = "language")]
    languages: Vec<String>,
}

/// An edge whose ends are found by `City`'s key.
#[derive(Edge, Debug, Clone, PartialEq)]
#[edge(label = "example_road")]
struct Road {
    #[edge(out = City)]
    from: String,
    #[edge(in = City)]
    to: String,
    km: f64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::var("GREMLIN_URL").ok();
    let url = std::env::args().nth(1).or(url);
    let client = Client::new(url.as_deref().unwrap_or("http://127.0.0.1:8182/gremlin"))?;
    let g = GraphTraversalSource::new(client.clone());

    let outcome = run(&client, &g).await;
    // Drop what the example wrote, whatever happened.
    g.v(()).has_label("example_city").drop().iterate().await?;
    outcome
}

async fn run(client: &Client, g: &GraphTraversalSource) -> Result<(), Box<dyn std::error::Error>> {
    // Typed upserts: mergeV on the key; upserting twice changes nothing.
    let paris = City {
        name: "Paris".into(),
        population: 2_100_000,
        motto: Some("Fluctuat nec mergitur".into()),
        languages: vec!["fr".into()],
    };
    let lyon = City {
        name: "Lyon".into(),
        population: 520_000,
        motto: None,
        languages: vec!["fr".into(), "frp".into()],
    };
    for c in [&paris, &lyon, &paris] {
        g.upsert(c).iterate().await?;
    }
    g.upsert_edge(&Road {
        from: "Paris".into(),
        to: "Lyon".into(),
        km: 465.0,
    })
    .iterate()
    .await?;

    // Read back as the structs; the traversal can be extended before it is sent.
    let cities = g
        .all::<City>()
        .filter(|t| t.order(()).by("name"))
        .to_list()
        .await?;
    assert_eq!(cities, [lyon.clone(), paris.clone()]);
    println!("cities: {cities:?}");
    let roads = g.all::<Road>().to_list().await?;
    println!("roads: {roads:?}");

    // Many at once: the batch writer (100 per request, 4 requests in flight).
    let t = Instant::now();
    let mut w = client.batch_writer(BatchOptions::default());
    for i in 0..2_000 {
        w.upsert(&City {
            name: format!("town {i}"),
            population: i,
            motto: None,
            languages: vec![],
        })
        .await?;
    }
    let report = w.finish().await;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "batch: {report} in {secs:.2} s ({:.0} vertices/s)",
        report.written as f64 / secs
    );
    if !report.failed.is_empty() {
        return Err(format!("{} items not written", report.failed.len()).into());
    }
    Ok(())
}
