// The types of the test vectors in `generated/spec_vectors.rs` (written by `cargo xtask regen
// vectors`), which includes this file.

/// One fully-qualified value of `spec/vectors/<type>.toml`.
#[derive(Debug, Clone, Copy)]
pub struct SpecVector {
    /// The file it comes from, relative to the repository root.
    pub file: &'static str,
    /// Unique name of the vector.
    pub name: &'static str,
    /// GraphBinary name of the file's type.
    pub type_name: &'static str,
    /// Type code of the file's type (the first byte).
    pub type_code: u8,
    /// The fully-qualified value.
    pub bytes: &'static [u8],
    /// The expected GraphSON 4 JSON, when GraphSON can represent the value.
    pub graphson: Option<&'static str>,
    /// Where the vector comes from.
    pub note: &'static str,
}

/// One whole response message of `spec/vectors/responses.toml`.
#[derive(Debug, Clone, Copy)]
pub struct SpecResponse {
    /// Unique name of the vector.
    pub name: &'static str,
    /// The whole response body.
    pub bytes: &'static [u8],
    /// The bulked flag (second byte).
    pub bulked: bool,
    /// Number of result items (bulks not counted).
    pub items: usize,
    /// Bulk of each item (empty unless bulked).
    pub bulks: &'static [i64],
    /// Footer status code.
    pub status_code: i32,
    /// Footer status message (`None`: null).
    pub status_message: Option<&'static str>,
    /// Footer exception (`None`: null).
    pub exception: Option<&'static str>,
    /// Expected GraphSON 4 of each item, when given.
    pub items_graphson: Option<&'static [&'static str]>,
    /// Where the vector comes from.
    pub note: &'static str,
}

impl SpecResponse {
    /// A response with no results and status 200, no message, no exception: each vector
    /// states what differs from it.
    pub const OK: SpecResponse = SpecResponse {
        name: "",
        bytes: &[],
        bulked: false,
        items: 0,
        bulks: &[],
        status_code: 200,
        status_message: None,
        exception: None,
        items_graphson: None,
        note: "",
    };
}
