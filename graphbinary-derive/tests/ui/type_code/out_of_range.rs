use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = 256)]
struct Vertex {
    id: i32,
}

fn main() {}
