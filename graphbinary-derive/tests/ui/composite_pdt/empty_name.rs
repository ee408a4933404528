use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(composite_pdt = "")]
struct Point {
    x: i32,
}

fn main() {}
