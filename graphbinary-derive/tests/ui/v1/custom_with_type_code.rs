use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0x11, v1_custom = "janusgraph.RelationIdentifier", v1_custom_info = 0x1001)]
struct RelationIdentifier {
    type_id: i64,
}

fn main() {}
