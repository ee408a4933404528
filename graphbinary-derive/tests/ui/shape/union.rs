use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
union IntOrFloat {
    i: i32,
    f: f32,
}

fn main() {}
