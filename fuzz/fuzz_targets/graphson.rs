//! The GraphSON 2/3 response reader (TinkerPop 3.x over WebSocket; typed and untyped) over
//! arbitrary bytes: never panics; accepts only JSON (what it reads, serde_json reads); the
//! header reader a connection routes by agrees with the whole message; the data of a message,
//! written back in the same GraphSON (where the writer can), reads back and writes the same.
#![no_main]

use graphbinary_client::fuzzing::graphson;
use graphbinary_core::Limits;
use graphbinary_fuzz::LIMITS;
use libfuzzer_sys::fuzz_target;

/// Writing typed GraphSON nests deeper and holds more array items than the untyped JSON it was
/// read from (`{"a":1}` becomes a `g:Map` of a `g:Int32`): the second read has room for that.
const ROOMY: Limits = Limits {
    max_depth: LIMITS.max_depth * 4,
    max_collection_len: LIMITS.max_collection_len * 4,
    ..LIMITS
};

fuzz_target!(|data: &[u8]| {
    // First byte: GraphSON 2 or 3 (low bit), typed or not (bit 1).
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let version = if sel & 1 == 0 { 3 } else { 2 };
    let typed = sel & 2 == 0;
    let msg = graphson::decode_response(bytes, version, typed, &LIMITS);
    let header = graphson::header(bytes, version, typed, &LIMITS);
    let Ok(m) = msg else {
        return;
    };
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        panic!("read what is no JSON: {e}");
    }
    match header {
        Ok(h) => assert_eq!(
            h,
            m.request_id.map(|id| (id, m.status)),
            "the header reader differs from the message's"
        ),
        Err(e) => panic!("the message reads but its header does not: {e}"),
    }
    let Ok(json) = graphson::write(&m.data, version, typed) else {
        return;
    };
    let wrapped =
        format!(r#"{{"requestId":null,"status":{{"code":200}},"result":{{"data":{json}}}}}"#);
    let again = graphson::decode_response(wrapped.as_bytes(), version, typed, &ROOMY)
        .unwrap_or_else(|e| panic!("written data reads back: {e}\n{json}"));
    let json2 = graphson::write(&again.data, version, typed)
        .unwrap_or_else(|e| panic!("data read back writes: {e}\n{json}"));
    assert_eq!(json, json2, "{:?} vs {:?}", m.data, again.data);
});
