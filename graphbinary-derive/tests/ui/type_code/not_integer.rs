use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = "0x11")]
struct Vertex {
    id: i32,
}

fn main() {}
