use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0x18, enum_string)]
enum Direction {
    Out,
    In(i32),
}

fn main() {}
