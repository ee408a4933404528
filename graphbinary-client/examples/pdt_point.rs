//! Mapping a provider-defined type onto a Rust type of your own.
//!
//! A graph provider may send values of its own types as CompositePDT (a type name and a Map of
//! fields). They always decode generically, as `Value::CompositePdt`; derive `GraphBinary`
//! with `composite_pdt = "..."` to read and write them as your own struct.
//!
//! Run: `cargo run -p graphbinary-client --example pdt_point`

use futures::StreamExt;
use graphbinary_client::model::{CompositePdt, PdtRegistry, Value};
use graphbinary_client::response::{read_response, ReadOptions};
use graphbinary_client::GraphBinary;
use graphbinary_core::Fq;

/// A point, sent by the provider as CompositePDT "Point" with Int fields `x` and `y`.
#[derive(Debug, Clone, PartialEq, GraphBinary)]
#[graphbinary(composite_pdt = "Point")]
pub struct Point {
    pub x: i32,
    pub y: i32,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Write two points (fully-qualified, as a server would) into a response body.
    let mut body = vec![0x84, 0x00];
    for p in [Point { x: 1, y: 2 }, Point { x: -3, y: 40 }] {
        graphbinary_core::Encode::encode(&Fq(p), &mut body)?;
    }
    body.extend([0xfd, 0x00, 0x00, 0, 0, 0, 200, 0x01, 0x01]);

    let mut registry = PdtRegistry::new();
    registry.register::<Point>(Point::TYPE_NAME);

    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    rt.block_on(async {
        let mut results = read_response(std::io::Cursor::new(body), ReadOptions::default());
        while let Some(r) = results.next().await {
            let value = r?.value;
            println!("generic: {value}");
            if let Value::CompositePdt(pdt) = &value {
                // Either by type, ...
                let p: Point = pdt.to_typed()?;
                // ... or by the name the registry knows.
                let any = registry.convert(pdt).expect("registered")?;
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
