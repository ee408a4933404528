use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(composite_pdt = "Point", v1)]
struct Point {
    x: i32,
}

fn main() {}
