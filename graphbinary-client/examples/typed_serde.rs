//! Results as your own types, with serde: no `Value`s in between, each struct built straight
//! from the response bytes (feature `serde`, on by default; your crate needs `serde` with its
//! `derive` feature).
//!
//! ```text
//! cargo xtask server                    # a Gremlin Server 4.0 with the modern graph, port 8182
//! cargo run -p graphbinary-client --example typed_serde -- [URL]
//! ```
//!
//! URL: the first argument, else env `GREMLIN_URL`, else `http://127.0.0.1:8182/gremlin`.

use std::error::Error as _;

use futures::TryStreamExt;
use graphbinary_client::Client;
use serde::Deserialize;

/// One row of `elementMap()`: its `T.id` and `T.label` keys are `id` and `label`.
#[derive(Debug, Deserialize)]
struct Person {
    id: i64,
    name: String,
    age: i32,
}

/// A row of `project('name','lang')`; `Option` for what may be missing.
#[derive(Deserialize)]
struct Software {
    name: String,
    lang: Option<String>,
}

/// Enums are read from Strings, by variant name.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Label {
    Person,
    Software,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The server: the first argument, else env GREMLIN_URL, else http://127.0.0.1:8182/gremlin.
    let url = std::env::var("GREMLIN_URL").ok();
    let url = std::env::args().nth(1).or(url);
    let client = Client::new(url.as_deref().unwrap_or("http://127.0.0.1:8182/gremlin"))?;

    // `typed::<T>()`: a stream of `T`s.
    let people: Vec<Person> = client
        .submit("g.V().hasLabel('person').elementMap('name','age').order().by('age')")
        .await?
        .typed::<Person>()
        .try_collect()
        .await?;
    for p in &people {
        println!("person {} {} ({})", p.id, p.name, p.age);
    }

    let software: Vec<Software> = client
        .submit("g.V().hasLabel('software').project('name','lang').by('name').by('lang')")
        .await?
        .typed()
        .try_collect()
        .await?;
    for s in &software {
        println!(
            "software {} in {}",
            s.name,
            s.lang.as_deref().unwrap_or("?")
        );
    }

    // `for_each_as`: the fastest way through many results; each is handed over and dropped.
    let mut labels = (0, 0);
    client
        .submit("g.V().label()")
        .await?
        .for_each_as(|label: Label| match label {
            Label::Person => labels.0 += 1,
            Label::Software => labels.1 += 1,
        })
        .await?;
    println!("{} people, {} software", labels.0, labels.1);

    // A result that does not fit the type is an error naming the field and the byte offset.
    let wrong = client
        .submit("g.V().hasLabel('software').elementMap('name','age')")
        .await?
        .typed::<Person>()
        .try_next()
        .await;
    match wrong {
        // The error says what failed; its `source()` says where and why.
        Err(e) => match e.source() {
            Some(why) => println!("does not fit: {why}"),
            None => println!("does not fit: {e}"),
        },
        Ok(p) => return Err(format!("software read as a person: {p:?}").into()),
    }
    Ok(())
}
