use graphbinary_derive::GraphBinary;
use std::sync::Arc;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0x11)]
struct Vertex {
    #[graphbinary(v1 = "string")]
    label: Arc<str>,
}

fn main() {}
