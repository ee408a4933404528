use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
struct Message {
    #[graphbinary(rename = "msg")]
    message: String,
}

fn main() {}
