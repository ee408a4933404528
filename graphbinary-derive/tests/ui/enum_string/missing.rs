use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0x18)]
enum Direction {
    Out,
    In,
}

fn main() {}
