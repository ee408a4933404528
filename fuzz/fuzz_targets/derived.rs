//! The derived readers (the element structs written by `#[derive(GraphBinary)]`) over
//! arbitrary bytes: never panic; a decoded value round-trips; the fast and slow paths agree.
#![no_main]

use graphbinary_client::value::{
    BigDecimal, DateTime, Direction, Duration, Edge, Merge, Path, Property, Vertex, VertexProperty,
    T,
};
use graphbinary_core::{Decode, Encode};
use graphbinary_fuzz::{assert_round_trip, decode_all, decode_slow};
use libfuzzer_sys::fuzz_target;

fn check<X: Decode + Encode + std::fmt::Debug>(bytes: &[u8], cap: u8) {
    let fast = decode_all::<X>(bytes);
    if let Some(v) = &fast {
        assert_round_trip(v);
    }
    let slow = decode_slow::<X>(bytes, usize::from(cap).max(1), &[cap % 5 + 1, 17]);
    let enc = |v: &Option<X>| {
        v.as_ref().map(|v| {
            let mut b = Vec::new();
            v.encode(&mut b).unwrap();
            b
        })
    };
    assert_eq!(
        enc(&fast),
        enc(&slow),
        "paths disagree: {fast:?} vs {slow:?}"
    );
}

fuzz_target!(|data: &[u8]| {
    // First byte: which type (low 4 bits) and the slow path's buffer capacity (high 4 bits).
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let cap = (sel >> 4) * 4 + 1;
    match sel & 0x0f {
        0 => check::<Vertex>(bytes, cap),
        1 => check::<Edge>(bytes, cap),
        2 => check::<VertexProperty>(bytes, cap),
        3 => check::<Property>(bytes, cap),
        4 => check::<Path>(bytes, cap),
        5 => check::<DateTime>(bytes, cap),
        6 => check::<Duration>(bytes, cap),
        7 => check::<BigDecimal>(bytes, cap),
        8 => check::<Direction>(bytes, cap),
        9 => check::<T>(bytes, cap),
        10 => check::<Merge>(bytes, cap),
        _ => {}
    }
});
