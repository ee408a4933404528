use graphbinary_derive::GraphBinary;
use std::sync::Arc;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0x11, v1)]
struct Vertex {
    #[graphbinary(fq, v1 = "string")]
    label: Arc<str>,
}

fn main() {}
