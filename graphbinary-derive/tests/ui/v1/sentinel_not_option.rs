use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(v1_custom = "janusgraph.RelationIdentifier", v1_custom_info = 0x1001)]
struct RelationIdentifier {
    #[graphbinary(v1 = "sentinel")]
    in_vertex_id: i64,
}

fn main() {}
