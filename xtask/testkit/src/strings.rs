//! Strings that stress a Gremlin literal's escaping (quotes, backslashes, `$`, line breaks,
//! control characters, `\u` look-alikes, characters beyond the BMP), for the property tests of
//! the traversal API's gremlin-lang text.

#![allow(dead_code)]

use proptest::prelude::{any, prop_oneof, Just, Strategy};

/// Strings of up to `max_len - 1` characters, each often one an escaper gets wrong.
pub fn hostile_string(max_len: usize) -> impl Strategy<Value = String> {
    let ch = prop_oneof![
        Just('"'),
        Just('\\'),
        Just('\''),
        Just('$'),
        Just('\n'),
        Just('\r'),
        Just('\t'),
        Just('\u{0}'),
        Just('\u{8}'),
        Just('\u{7f}'),
        Just('\u{2028}'),
        Just('u'),
        Just(')'),
        Just('{'),
        any::<char>(),
        proptest::char::range('\u{10000}', '\u{10ffff}'),
    ];
    proptest::collection::vec(ch, 0..max_len).prop_map(|v| v.into_iter().collect())
}
