//! See what the client does: every `tracing` span and event it emits, printed one line each
//! to stderr by a small subscriber layer, while a few requests run (one that succeeds, one
//! that streams several batches, one the server refuses), and then `Client::close`.
//!
//! ```text
//! cargo xtask server                    # a Gremlin Server 4.0 with the modern graph, port 8182
//! cargo run -p graphbinary-client --example tracing -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_URL`, else `http://127.0.0.1:8182/gremlin`; a
//! `ws://` URL shows the TinkerPop 3 transport. A service would install
//! `tracing_subscriber::fmt()` or an OpenTelemetry layer instead of this one; the script and
//! parameters appear in the span only with `ClientBuilder::trace_query_text(true)`.

use std::time::Duration;

use graphbinary_client::Client;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// A span's or event's fields, in the order first seen; a field recorded again (a span's
/// `status` once the response came) keeps its place with the new value.
#[derive(Default)]
struct Line(Vec<(&'static str, String)>);

impl Line {
    fn set(&mut self, name: &'static str, value: String) {
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => self.0.push((name, value)),
        }
    }
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|(n, v)| write!(f, " {n}={v}"))
    }
}

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.set(field.name(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.set(field.name(), value.to_owned());
    }
}

/// Prints each event of the client (target `graphbinary_client`; hyper's own are left out)
/// as it happens and each span when it closes, with all its fields.
struct Print;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Print {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut line = Line::default();
        attrs.record(&mut line);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(line);
        }
    }
    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(line) = span.extensions_mut().get_mut::<Line>() {
                values.record(line);
            }
        }
    }
    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let m = event.metadata();
        if !m.target().starts_with("graphbinary_client") {
            return;
        }
        let mut line = Line::default();
        event.record(&mut line);
        eprintln!("event {} {}:{line}", m.level(), m.target());
    }
    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id) {
            if span.metadata().target().starts_with("graphbinary_client") {
                let line = span.extensions_mut().remove::<Line>().unwrap_or_default();
                eprintln!("span  {}:{line}", span.name());
            }
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Print))?;
    let url = std::env::var("GREMLIN_URL").ok();
    let url = std::env::args().nth(1).or(url);
    let client = Client::builder(url.as_deref().unwrap_or("http://127.0.0.1:8182/gremlin"))
        .pool_size(2)
        .build()?;

    let n: i64 = client.submit("g.V().count()").await?.one().await?;
    println!("{n} vertices");
    // Several batches over WebSocket (64 results a message), one chunked body over HTTP.
    let many = client
        .submit("g.V().repeat(both()).times(4)")
        .await?
        .all()
        .await?;
    println!("{} results", many.len());
    // Refused by the server: the span's outcome is the error's kind.
    match client.submit("g.V().fold(").await {
        Ok(stream) => match stream.all().await {
            Ok(_) => println!("not refused?"),
            Err(e) => println!("refused: {e}"),
        },
        Err(e) => println!("refused: {e}"),
    }

    client.close(Duration::from_secs(5)).await;
    let s = client.stats();
    let open: u64 = s.connections.values().filter_map(|c| c.open()).sum();
    println!(
        "{} requests, errors {:?}, connections open after close: {open}",
        s.requests, s.errors
    );
    Ok(())
}
