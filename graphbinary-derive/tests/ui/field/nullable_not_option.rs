use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
struct Message {
    #[graphbinary(fq, nullable)]
    code: i32,
}

fn main() {}
