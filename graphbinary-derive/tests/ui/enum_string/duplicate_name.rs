use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(enum_string)]
enum Direction {
    #[graphbinary(rename = "OUT")]
    Out,
    #[graphbinary(rename = "OUT")]
    Outward,
}

fn main() {}
