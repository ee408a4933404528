use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
struct Vertex {
    #[graphbinary(fully_qualified)]
    id: i32,
}

fn main() {}
