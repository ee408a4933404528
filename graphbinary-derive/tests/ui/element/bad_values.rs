use graphbinary_derive::{Edge, Vertex};

#[derive(Vertex)]
#[vertex(label = "")]
struct Person {
    #[vertex(skip, rename = "x")]
    cache: u8,
    #[vertex(key = true)]
    name: String,
}

#[derive(Edge)]
struct Knows {
    #[edge(out = 5)]
    a: i64,
    #[edge(in)]
    b: i64,
}

#[derive(Vertex)]
struct Tuple(i64);

fn main() {}
