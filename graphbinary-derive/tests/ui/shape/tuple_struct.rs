use graphbinary_derive::GraphBinary;

#[derive(GraphBinary)]
#[graphbinary(type_code = 0x23)]
struct BigInteger(Vec<u8>);

fn main() {}
