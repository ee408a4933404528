use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0x11, colour = "red")]
struct Vertex {
    id: i32,
}

// The placeholder impls keep this from adding "trait not implemented" errors.
fn uses(v: &Vertex) -> &'static str {
    let _ = graphbinary_core::Encode::encode(v, &mut Vec::new());
    <Vec<Vertex> as graphbinary_core::Decode>::EXPECTED
}

fn main() {
    let _ = uses;
}
