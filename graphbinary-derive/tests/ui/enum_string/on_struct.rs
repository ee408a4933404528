use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(enum_string)]
struct Direction {
    name: String,
}

fn main() {}
