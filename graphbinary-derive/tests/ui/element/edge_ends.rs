use graphbinary_derive::Edge;

#[derive(Edge)]
#[edge(label = "knows")]
struct Knows {
    #[edge(out)]
    a: i64,
    #[edge(out)]
    b: i64,
    #[edge(rename = "w")]
    weight: f64,
    #[edge(rename = "w")]
    other: f64,
}

fn main() {}
