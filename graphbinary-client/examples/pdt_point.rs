//! A graph provider's own type as a Rust type of yours: `#[derive(GraphBinary)]` with
//! `composite_pdt`.
//!
//! A provider may send values of its own types as a CompositePDT (a type name and a Map of
//! fields). They always decode, generically, as `Value::CompositePdt`; the derive reads and
//! writes them as your struct. No server needed: the example writes a response the way a
//! server would, then reads it back.
//!
//! ```text
//! cargo run -p graphbinary-client --example pdt_point
//! ```

use futures::TryStreamExt;
use graphbinary_client::graphbinary_core::{Encode, Fq};
use graphbinary_client::response::{read_response, ReadOptions};
use graphbinary_client::value::{CompositePdt, PdtRegistry, Value};
use graphbinary_client::GraphBinary;

/// A point, sent by the provider as CompositePDT "Point" with Int fields `x` and `y`.
/// (`crate = ...`: the derive's code names the core crate through this one, so that your
/// crate needs no dependency on `graphbinary-core`.)
#[derive(Debug, Clone, PartialEq, GraphBinary)]
#[graphbinary(
    composite_pdt = "Point",
    crate = "graphbinary_client::graphbinary_core"
)]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A GraphBinary 4 response body holding two points, fully qualified, as a server sends
    // them: version and flags, the values, then the status footer (200, no message).
    let mut body = vec![0x84, 0x00];
    for p in [Point { x: 1, y: 2 }, Point { x: -3, y: 40 }] {
        Fq(p).encode(&mut body)?;
    }
    body.extend([0xfd, 0x00, 0x00, 0, 0, 0, 200, 0x01, 0x01]);

    // A registry maps type names to your types, for code that meets PDTs of many kinds.
    let mut registry = PdtRegistry::new();
    registry.register::<Point>(Point::TYPE_NAME);

    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    rt.block_on(async {
        // Any `AsyncRead` holding a response: here the bytes above; over HTTP, the client's.
        let mut results = read_response(std::io::Cursor::new(body), ReadOptions::default());
        while let Some(traverser) = results.try_next().await? {
            let value = traverser.value;
            println!("generic: {value}");
            if let Value::CompositePdt(pdt) = &value {
                // By type, ...
                let p: Point = pdt.to_typed()?;
                // ... or by the name the registry knows.
                let any = registry.convert(pdt).ok_or("Point is not registered")??;
                assert_eq!(any.downcast_ref::<Point>(), Some(&p));
                println!("typed:   {p:?}");
                // And back: the typed value writes the same bytes as the generic one.
                assert_eq!(CompositePdt::from_typed(&p)?, **pdt);
            }
        }
        Ok::<_, Box<dyn std::error::Error>>(())
    })?;
    Ok(())
}
