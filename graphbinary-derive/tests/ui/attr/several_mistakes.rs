use graphbinary_derive::GraphBinary;

// Every mistake is reported in one compilation.
#[derive(GraphBinary)]
#[graphbinary(type_code = 300, colour)]
struct Vertex {
    #[graphbinary(nullable)]
    id: i32,
    #[graphbinary(rename = "l")]
    label: String,
}

fn main() {}
