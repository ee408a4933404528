use graphbinary_derive::Vertex;

#[derive(Vertex)]
struct Person {
    #[vertex(id)]
    id: i64,
    #[vertex(id)]
    other: i64,
    #[vertex(id, key)]
    name: String,
}

fn main() {}
