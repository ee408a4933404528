use graphbinary_derive::GraphBinary;

// A generic type with a mistake: one error, not a cascade from the placeholder impls.
#[derive(GraphBinary)]
#[graphbinary(type_code = 0x2a)]
struct Pair<A, B> {
    first: A,
    #[graphbinary(nullable)]
    second: B,
}

fn main() {}
