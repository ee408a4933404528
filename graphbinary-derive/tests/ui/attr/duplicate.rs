use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
struct Vertex {
    #[graphbinary(fq)]
    #[graphbinary(fq)]
    id: i32,
}

fn main() {}
