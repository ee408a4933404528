use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(composite_pdt = "Point")]
struct Point {
    #[graphbinary(fq)]
    x: i32,
    y: i32,
}

fn main() {}
