use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(v1_type_code = 0x04)]
struct Date {
    millis: i64,
}

fn main() {}
