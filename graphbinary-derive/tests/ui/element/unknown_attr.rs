use graphbinary_derive::Vertex;

#[derive(Vertex)]
#[vertex(label = "person", colour = "red")]
struct Person {
    #[vertex(key, out)]
    name: String,
}

fn main() {}
