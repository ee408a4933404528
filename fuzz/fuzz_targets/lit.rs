//! The gremlin-lang literal parser over arbitrary text: never panics; what parses and can be
//! written parses back to a literal written the same; read as a comma-separated argument
//! list with `parse_prefix`, every literal ends on a char boundary inside the text.
#![no_main]

use graphbinary_client::fuzzing::lang::{parse, parse_prefix};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(lit) = parse(text) {
        if let Ok(written) = lit.to_gremlin() {
            let again = parse(&written)
                .unwrap_or_else(|e| panic!("{written:?} (from {text:?}) does not parse: {e}"));
            let written2 = again
                .to_gremlin()
                .unwrap_or_else(|e| panic!("{written:?} parses to what cannot be written: {e}"));
            assert_eq!(written, written2, "from {text:?}");
        }
    }
    // An argument list, as a traversal's parser reads it.
    let mut rest = text;
    while !rest.is_empty() {
        let Ok((_, used)) = parse_prefix(rest) else {
            break;
        };
        assert!(used > 0 && used <= rest.len() && rest.is_char_boundary(used));
        rest = rest[used..].trim_start();
        match rest.strip_prefix(',') {
            Some(r) => rest = r,
            None => break,
        }
    }
});
