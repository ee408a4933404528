use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0xf0, composite_pdt = "Point")]
struct Point {
    x: i32,
    y: i32,
}

fn main() {}
