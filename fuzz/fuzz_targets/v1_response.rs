//! The GraphBinary 1 response message reader (TinkerPop 3.x over WebSocket) over arbitrary
//! bytes: never panics; the whole-message reader and the connection's queueing reader agree
//! (same results, same validity); a decoded message re-encodes and decodes to equal bytes.
#![no_main]

use graphbinary_client::fuzzing::graphbinary1 as gb1;
use graphbinary_client::fuzzing::Message;
use graphbinary_fuzz::LIMITS;
use libfuzzer_sys::fuzz_target;

fn results_bytes(results: &[(graphbinary_client::Value, i64)], janus: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for (v, bulk) in results {
        out.extend(gb1::encode(v, janus).expect("a decoded value re-encodes"));
        out.extend(bulk.to_be_bytes());
    }
    out
}

fn message_bytes(m: &Message, janus: bool) -> Vec<u8> {
    gb1::encode_response(m, janus).expect("a decoded message re-encodes")
}

fuzz_target!(|data: &[u8]| {
    // First byte: JanusGraph's custom types on (low bit).
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let janus = sel & 1 != 0;
    let whole = gb1::decode_response(bytes, &LIMITS, janus);
    let queued = gb1::decode_response_queued(bytes, &LIMITS, janus);
    match (&whole, &queued) {
        (Ok(m), Ok((results, status))) => {
            assert_eq!(m.status, *status);
            assert_eq!(
                results_bytes(&m.results, janus),
                results_bytes(results, janus),
                "the queueing reader's results differ"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!(
            "validity differs: whole {:?}, queued {:?}",
            whole.as_ref().map(|_| ()),
            queued.as_ref().map(|_| ())
        ),
    }
    if let Ok(m) = &whole {
        let b = message_bytes(m, janus);
        let again = gb1::decode_response(&b, &LIMITS, janus)
            .unwrap_or_else(|e| panic!("a re-encoded message decodes: {e}\n{m:?}"));
        assert_eq!(b, message_bytes(&again, janus), "{m:?} vs {again:?}");
    }
});
