use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(v1_custom = "janusgraph.RelationIdentifier")]
struct RelationIdentifier {
    type_id: i64,
}

fn main() {}
