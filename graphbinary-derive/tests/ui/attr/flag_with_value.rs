use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
struct Message {
    #[graphbinary(nullable = true)]
    text: Option<String>,
}

fn main() {}
