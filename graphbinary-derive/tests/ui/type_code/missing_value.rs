use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code)]
struct Vertex {
    id: i32,
}

fn main() {}
