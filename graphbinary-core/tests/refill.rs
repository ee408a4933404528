//! Values across refills: a mixed-width record at every capacity 1..=32 and every chunking,
//! short reads inside String/Binary/Char payloads, payloads far larger than the buffer
//! streaming through without growing it, wakeups, and liveness (a read completes as soon as its
//! bytes are there, without waiting for bytes it does not need).

mod common;

use std::future::Future;
use std::pin::pin;
use std::task::Poll;

use bytes::{BufMut, Bytes};
use common::*;
use graphbinary_core::{
    Cursor, Decode, DecodeError, Encode, EncodeError, FastResult, Fq, FqOpt, Nullable, ReadBuffer,
    MAX_PRIMITIVE_WIDTH,
};
use tokio::io::AsyncRead;

/// A hand-written record type with the same shape of code `#[derive(GraphBinary)]` generates:
/// a fast `decode` over a cursor and a field-by-field `decode_slow`.
#[derive(Debug, Clone, PartialEq)]
struct Rec {
    a: i8,
    b: i32,
    s: String,
    l: i64,
    u: uuid::Uuid,
    d: f64,
    c: char,
    bin: Bytes,
    t: bool,
    h: i16,
    f: f32,
    o: Option<i32>,
}

impl Decode for Rec {
    const EXPECTED: &'static str = "Rec";
    fn decode(cur: &mut Cursor<'_>) -> FastResult<Self> {
        Ok(Rec {
            a: i8::decode(cur)?,
            b: i32::decode(cur)?,
            s: String::decode(cur)?,
            l: i64::decode(cur)?,
            u: uuid::Uuid::decode(cur)?,
            d: f64::decode(cur)?,
            c: char::decode(cur)?,
            bin: Bytes::decode(cur)?,
            t: bool::decode(cur)?,
            h: i16::decode(cur)?,
            f: f32::decode(cur)?,
            o: FqOpt::<i32>::decode(cur)?.0,
        })
    }
    #[allow(clippy::manual_async_fn)] // the trait's `impl Future + Send` form, as derived code
    fn decode_slow<R: AsyncRead + Unpin + Send>(
        buf: &mut ReadBuffer<R>,
    ) -> impl Future<Output = Result<Self, DecodeError>> + Send {
        async move {
            Ok(Rec {
                a: buf.read().await?,
                b: buf.read().await?,
                s: buf.read().await?,
                l: buf.read().await?,
                u: buf.read().await?,
                d: buf.read().await?,
                c: buf.read().await?,
                bin: buf.read().await?,
                t: buf.read().await?,
                h: buf.read().await?,
                f: buf.read().await?,
                o: buf.read::<FqOpt<i32>>().await?.0,
            })
        }
    }
}

impl Encode for Rec {
    fn encode<B: BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
        self.a.encode(out)?;
        self.b.encode(out)?;
        self.s.encode(out)?;
        self.l.encode(out)?;
        self.u.encode(out)?;
        self.d.encode(out)?;
        self.c.encode(out)?;
        self.bin.encode(out)?;
        self.t.encode(out)?;
        self.h.encode(out)?;
        self.f.encode(out)?;
        FqOpt(self.o).encode(out)
    }
}

fn rec(i: u8) -> Rec {
    Rec {
        a: -(i as i8),
        b: 0x0102_0304 + i as i32,
        s: ["", "x", "héllo😀"][i as usize % 3].to_string(),
        l: i64::MIN + i as i64,
        u: uuid::Uuid::from_u128(0x0011_2233_4455_6677_8899_aabb_ccdd_ee00 + i as u128),
        d: [f64::NAN, -0.0, 1e300][i as usize % 3],
        c: ['a', 'é', '€', '😀'][i as usize % 4],
        bin: Bytes::from(vec![i; i as usize % 5]),
        t: i % 2 == 0,
        h: -300 - i as i16,
        f: [f32::NEG_INFINITY, 0.5][i as usize % 2],
        o: (i % 2 == 1).then_some(i as i32),
    }
}

fn same_rec(a: &Rec, b: &Rec) -> bool {
    a.d.to_bits() == b.d.to_bits()
        && a.f.to_bits() == b.f.to_bits()
        && Rec {
            d: 0.0,
            f: 0.0,
            ..a.clone()
        } == Rec {
            d: 0.0,
            f: 0.0,
            ..b.clone()
        }
}

/// The ways a record is read.
#[derive(Debug, Clone, Copy)]
enum How {
    /// `read::<Rec>()`: fast path when it fits, the record's slow path when it does not.
    Whole,
    /// `read::<Rec>()` with the fast path off.
    WholeSlow,
    /// Field by field with `read::<T>()`.
    Fields,
    /// Field by field with the dedicated methods.
    Direct,
}

async fn read_fields<R: AsyncRead + Unpin + Send>(
    buf: &mut ReadBuffer<R>,
    direct: bool,
) -> Result<Rec, DecodeError> {
    if !direct {
        return Rec::decode_slow(buf).await;
    }
    Ok(Rec {
        a: buf.read_i8().await?,
        b: buf.read_i32().await?,
        s: buf.read_string().await?,
        l: buf.read_i64().await?,
        u: buf.read_uuid().await?,
        d: buf.read_f64().await?,
        c: buf.read_char().await?,
        bin: Bytes::from(buf.read_len_prefixed("Binary").await?),
        t: buf.read_bool().await?,
        h: buf.read_i16().await?,
        f: buf.read_f32().await?,
        o: buf.read::<FqOpt<i32>>().await?.0,
    })
}

#[test]
fn mixed_width_record_at_every_capacity_and_chunking() {
    let recs: Vec<Rec> = (0..2).map(rec).collect();
    let mut data = Vec::new();
    let mut ends = Vec::new();
    for r in &recs {
        r.encode(&mut data).unwrap();
        ends.push(data.len() as u64);
    }
    let mut runs = 0;
    for cap in 1..=32 {
        for sizes in chunkings(data.len(), false) {
            for mode in MODES {
                for how in [How::Whole, How::WholeSlow, How::Fields, How::Direct] {
                    let ctx = format!("cap={cap} sizes={sizes:?} {mode:?} {how:?}");
                    let r = reader(&data, &sizes, mode);
                    let mut buf = ReadBuffer::with_capacity(cap, r)
                        .with_fast_path(!matches!(how, How::WholeSlow));
                    block_on(async {
                        for (want, end) in recs.iter().zip(&ends) {
                            let got = match how {
                                How::Whole | How::WholeSlow => buf.read::<Rec>().await,
                                How::Fields => read_fields(&mut buf, false).await,
                                How::Direct => read_fields(&mut buf, true).await,
                            }
                            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
                            assert!(same_rec(&got, want), "{ctx}: {got:?} != {want:?}");
                            assert_eq!(buf.offset(), *end, "{ctx}");
                        }
                        assert!(buf.is_at_end().await.unwrap(), "{ctx}");
                    });
                    assert!(buf.capacity() <= cap.max(MAX_PRIMITIVE_WIDTH), "{ctx}");
                    runs += 1;
                }
            }
        }
    }
    assert!(runs > 20_000, "{runs}");
}

#[test]
fn many_records_in_a_list_at_odd_capacities() {
    // 50 records as the items of a bare List through Vec<Fq<..>>-like reads of Rec, each via
    // the whole-record fast path: records regularly straddle the end of the buffer.
    let recs: Vec<Rec> = (0..50).map(rec).collect();
    let mut data = Vec::new();
    for r in &recs {
        r.encode(&mut data).unwrap();
    }
    for cap in [17, 31, 53, 64, 100, 127, 4096] {
        for sizes in [vec![], vec![1], vec![7], vec![13, 1, 64]] {
            for mode in MODES {
                let mut buf = ReadBuffer::with_capacity(cap, reader(&data, &sizes, mode));
                block_on(async {
                    for want in &recs {
                        let got = buf.read::<Rec>().await.unwrap();
                        assert!(same_rec(&got, want));
                    }
                    assert!(buf.is_at_end().await.unwrap());
                });
                assert_eq!(buf.capacity(), cap);
            }
        }
    }
}

#[test]
fn short_reads_inside_string_binary_and_char_payloads() {
    let s = "añ€😀".repeat(40); // mixed widths, 400 bytes
    let bin: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
    let mut data = Vec::new();
    s.clone().encode(&mut data).unwrap();
    Bytes::from(bin.clone()).encode(&mut data).unwrap();
    for c in ['a', 'ñ', '€', '😀'] {
        c.encode(&mut data).unwrap();
    }
    for cap in [1, 2, 3, 4, 5, 8, 16, 64, 399, 400, 404, 1000, 1004, 8192] {
        for per_read in [1, 2, 3, 5, 7, 64] {
            for pending in [false, true] {
                for fast in [true, false] {
                    let mut r = ScriptReader::new(vec![data.clone()]).max_per_read(per_read);
                    if pending {
                        r = r.pending_each();
                    }
                    let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
                    block_on(async {
                        assert_eq!(buf.read::<String>().await.unwrap(), s);
                        assert_eq!(&buf.read::<Bytes>().await.unwrap()[..], &bin[..]);
                        for c in ['a', 'ñ', '€', '😀'] {
                            assert_eq!(buf.read::<char>().await.unwrap(), c);
                        }
                        assert_eq!(buf.offset(), data.len() as u64);
                        assert!(buf.is_at_end().await.unwrap());
                    });
                    assert!(buf.capacity() <= cap.max(MAX_PRIMITIVE_WIDTH));
                }
            }
        }
    }
}

#[test]
fn one_mib_binary_streams_through_a_64_byte_buffer_without_growing_it() {
    let payload: Vec<u8> = (0..1 << 20)
        .map(|i: u32| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let mut data = Vec::new();
    Fq(Bytes::from(payload.clone())).encode(&mut data).unwrap();
    Fq(String::from("after")).encode(&mut data).unwrap();
    for (sizes, per_read) in [
        (vec![], usize::MAX),
        (vec![4096], usize::MAX),
        (vec![], 1000),
        (vec![3, 61, 1], 7777),
    ] {
        for fast in [true, false] {
            let r = ScriptReader::split(&data, &sizes).max_per_read(per_read);
            let mut buf = ReadBuffer::with_capacity(64, r).with_fast_path(fast);
            block_on(async {
                let got = buf.read::<Fq<Bytes>>().await.unwrap().0;
                assert_eq!(got.len(), payload.len());
                assert!(got[..] == payload[..], "payload differs");
                assert_eq!(buf.capacity(), 64);
                assert_eq!(buf.offset(), 2 + 4 + (1 << 20));
                assert_eq!(buf.read::<Fq<String>>().await.unwrap().0, "after");
                assert!(buf.is_at_end().await.unwrap());
            });
            assert_eq!(buf.capacity(), 64);
        }
    }
}

#[test]
fn large_string_streams_through_a_small_buffer() {
    let s: String = "GraphBinary ✓ 😀 ".repeat(5000);
    let data = enc(&Fq(s.clone()));
    for cap in [16, 64, 1000] {
        for per_read in [1 << 20, 100, 33] {
            let r = ScriptReader::new(vec![data.clone()])
                .max_per_read(per_read)
                .pending_each();
            let mut buf = ReadBuffer::with_capacity(cap, r);
            let got = block_on(buf.read::<Fq<String>>()).unwrap().0;
            assert_eq!(got, s);
            assert_eq!(buf.capacity(), cap);
        }
    }
}

#[test]
fn large_payload_is_read_in_large_reads_not_byte_by_byte() {
    // The payload bypasses the 64-byte buffer: the reader is offered more than 64 bytes at a
    // time, and the number of reads stays far below payload / 64.
    let payload = vec![7u8; 1 << 20];
    let data = enc(&Bytes::from(payload));
    let mut r = ScriptReader::new(vec![data]);
    {
        let mut buf = ReadBuffer::with_capacity(64, &mut r);
        let got = block_on(buf.read::<Bytes>()).unwrap();
        assert_eq!(got.len(), 1 << 20);
        assert_eq!(buf.capacity(), 64);
    }
    assert!(r.largest_request > 64 * 1024, "{}", r.largest_request);
    assert!(r.reads < 200, "{} reads", r.reads);
}

#[test]
fn reads_wake_and_complete_with_pending_before_every_read() {
    let (ps, data) = samples_fq();
    for cap in [1, 5, 16, 100] {
        let mut r = ScriptReader::new(split(&data, &[3, 1, 8])).pending_each();
        {
            let mut buf = ReadBuffer::with_capacity(cap, &mut r);
            block_on(async {
                for p in &ps {
                    assert_eq!(p.read_fq(&mut buf).await.unwrap(), *p);
                }
                assert!(buf.is_at_end().await.unwrap());
            });
        }
        assert!(r.pendings >= r.reads, "{} {}", r.pendings, r.reads);
    }
}

/// Polls `fut` with a no-op waker until it is ready, failing if it stays pending: the readers
/// used with it never need an outside wakeup except when they stall for good.
fn poll_to_completion<F: Future>(fut: F, ctx: &str) -> F::Output {
    let mut fut = pin!(fut);
    for _ in 0..100_000 {
        if let Poll::Ready(v) = poll_once(fut.as_mut()) {
            return v;
        }
    }
    panic!("{ctx}: still pending although every byte of the value has arrived");
}

#[test]
fn read_completes_once_its_bytes_arrived_without_waiting_for_more() {
    // A String whose first chunk holds the length and part of the payload, the rest arriving
    // later, after which the peer sends nothing (e.g. the next result is not ready yet).
    let r = ScriptReader::new(vec![vec![0, 0, 0, 5, b'a', b'b'], b"cde".to_vec()]).end(End::Stall);
    let mut buf = ReadBuffer::with_capacity(64, r);
    let got = poll_to_completion(buf.read::<String>(), "String");
    assert_eq!(got.unwrap(), "abcde");

    // A Long: 5 bytes, then 3.
    let r = ScriptReader::new(vec![vec![0; 5], vec![0, 1, 2]]).end(End::Stall);
    let mut buf = ReadBuffer::with_capacity(64, r);
    assert_eq!(
        poll_to_completion(buf.read::<i64>(), "Long").unwrap(),
        0x0102
    );
}

#[test]
fn every_value_split_anywhere_then_stalled_is_delivered() {
    let mut values: Vec<(String, Vec<u8>)> = Vec::new();
    for p in one_per_type() {
        let mut v = Vec::new();
        p.encode_fq(&mut v);
        values.push((format!("{p:?}"), v));
    }
    values.push(("list".into(), enc(&vec![vec!["a".to_string()], vec![]])));
    values.push(("nullable".into(), enc(&Nullable(Some(String::from("xyz"))))));
    values.push(("rec".into(), enc(&rec(2))));
    for (name, data) in &values {
        for cap in 1..=48 {
            for sizes in chunkings(data.len(), data.len() <= 12) {
                for per_read in [usize::MAX, 1, 3] {
                    let r = ScriptReader::split(data, &sizes)
                        .max_per_read(per_read)
                        .end(End::Stall);
                    let mut buf = ReadBuffer::with_capacity(cap, r);
                    let ctx = format!("{name} cap={cap} sizes={sizes:?} per_read={per_read}");
                    let ok = match name.as_str() {
                        "list" => {
                            poll_to_completion(buf.read::<Vec<Vec<String>>>(), &ctx).map(|_| ())
                        }
                        "nullable" => {
                            poll_to_completion(buf.read::<Nullable<String>>(), &ctx).map(|_| ())
                        }
                        "rec" => poll_to_completion(buf.read::<Rec>(), &ctx).map(|_| ()),
                        _ => {
                            let p = one_per_type()
                                .into_iter()
                                .find(|p| format!("{p:?}") == *name)
                                .unwrap();
                            let got = poll_to_completion(p.read_fq(&mut buf), &ctx);
                            assert_eq!(got.as_ref().unwrap(), &p, "{ctx}");
                            got.map(|_| ())
                        }
                    };
                    ok.unwrap_or_else(|e| panic!("{ctx}: {e}"));
                    assert_eq!(buf.offset(), data.len() as u64, "{ctx}");
                }
            }
        }
    }
}

#[test]
fn fill_reports_bytes_and_keeps_order_when_compacting() {
    // Consume part of the buffer, then fill: the unconsumed bytes move to the front and keep
    // their order and offsets.
    let data: Vec<u8> = (0..40).collect();
    let mut buf = ReadBuffer::with_capacity(16, ScriptReader::split(&data, &[10, 30]));
    assert_eq!(block_on(buf.fill()).unwrap(), 10);
    assert_eq!(
        block_on(buf.read_array::<8>("x")).unwrap(),
        [0, 1, 2, 3, 4, 5, 6, 7]
    );
    // Half the storage is consumed: the 2 bytes left move to the front and the read fills
    // the other 14.
    assert_eq!(block_on(buf.fill()).unwrap(), 14);
    assert_eq!(buf.buffered(), &(8..24).collect::<Vec<u8>>()[..]);
    assert_eq!(buf.offset(), 8);
    // A full buffer reads nothing (and is not at its end).
    assert_eq!(block_on(buf.fill()).unwrap(), 0);
    assert!(!block_on(buf.is_at_end()).unwrap());
    let mut rest = Vec::new();
    while !block_on(buf.is_at_end()).unwrap() {
        rest.push(block_on(buf.read_u8()).unwrap());
    }
    assert_eq!(rest, (8..40).collect::<Vec<u8>>());
    assert_eq!(buf.offset(), 40);
}

#[test]
fn into_parts_returns_the_unconsumed_bytes() {
    let data: Vec<u8> = (0..10).collect();
    let mut buf = ReadBuffer::with_capacity(8, &data[..]);
    assert_eq!(block_on(buf.read::<i16>()).unwrap(), 0x0001);
    let (rest_reader, buffered) = buf.into_parts();
    assert_eq!(buffered, vec![2, 3, 4, 5, 6, 7]);
    assert_eq!(rest_reader, &[8, 9]);
}

#[test]
fn read_bytes_into_appends_after_existing_bytes_across_refills() {
    let data: Vec<u8> = (0..=255u8).cycle().take(3000).collect();
    for cap in [1, 2, 16, 17, 64, 1000, 4096] {
        for n in [0usize, 1, 15, 16, 17, 63, 64, 65, 999, 2990] {
            for per_read in [1usize, 7, usize::MAX] {
                let r = ScriptReader::new(vec![data.clone()]).max_per_read(per_read);
                let mut buf = ReadBuffer::with_capacity(cap, r);
                // Some bytes consumed first, some buffered, so the copy starts mid-buffer.
                assert_eq!(block_on(buf.read_array::<3>("x")).unwrap(), [0, 1, 2]);
                let mut dst = vec![0xaa, 0xbb];
                block_on(buf.read_bytes_into(n, &mut dst, "payload")).unwrap();
                assert_eq!(dst[..2], [0xaa, 0xbb]);
                assert!(
                    dst[2..] == data[3..3 + n],
                    "cap={cap} n={n} per_read={per_read}"
                );
                assert_eq!(buf.offset(), 3 + n as u64);
                assert_eq!(block_on(buf.read_u8()).unwrap(), data[3 + n]);
                assert!(buf.capacity() <= cap.max(MAX_PRIMITIVE_WIDTH));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Runs of values (`try_read_each`) and reading ahead (`fill_ahead`)
// ---------------------------------------------------------------------------------------------

/// Three Ints and half of a fourth, buffered.
fn three_and_a_half_ints() -> ReadBuffer<ScriptReader> {
    let mut bytes = Vec::new();
    for i in [1i32, 2, 3, 4] {
        bytes.extend(i.to_be_bytes());
    }
    bytes.truncate(14);
    let mut buf = ReadBuffer::new(ScriptReader::new(vec![bytes]));
    block_on(buf.fill_to(14, "test bytes")).unwrap();
    buf
}

#[test]
fn a_run_consumes_every_complete_value_and_reports_need_more_from_the_first_unconsumed_byte() {
    let mut buf = three_and_a_half_ints();
    let mut seen = Vec::new();
    let r = buf.try_read_each(|cur| {
        seen.push(cur.read_i32()?);
        Ok(true)
    });
    assert_eq!(seen, [1, 2, 3]);
    assert!(
        matches!(r, Err(graphbinary_core::FastError::NeedMore(4))),
        "{r:?}"
    );
    assert_eq!(buf.offset(), 12);
    assert_eq!(buf.buffered(), &[0, 0]);
}

#[test]
fn a_run_stops_at_ok_false_consuming_what_that_call_read() {
    let mut buf = three_and_a_half_ints();
    let mut seen = Vec::new();
    buf.try_read_each(|cur| {
        let v = cur.read_i32()?;
        seen.push(v);
        Ok(v < 2)
    })
    .unwrap();
    assert_eq!(seen, [1, 2]);
    assert_eq!(buf.offset(), 8);
}

#[test]
fn a_failed_call_consumes_nothing_of_its_own_and_names_its_absolute_offset() {
    let mut buf = three_and_a_half_ints();
    let r = buf.try_read_each(|cur| {
        let v = cur.read_i32()?;
        if v == 3 {
            return Err(cur.error_at(
                cur.offset() - 4,
                graphbinary_core::ErrorKind::Invalid {
                    what: "test",
                    detail: "three".into(),
                },
            ));
        }
        Ok(true)
    });
    match r {
        Err(graphbinary_core::FastError::Invalid(e)) => assert_eq!(e.offset(), 8),
        other => panic!("{other:?}"),
    }
    assert_eq!(
        buf.offset(),
        8,
        "the two values before the bad one stay consumed"
    );
    assert_eq!(buf.buffered().len(), 6);
}

#[test]
fn fill_ahead_reads_what_is_ready_but_never_waits_beyond_min() {
    // Four 3-byte chunks are ready, then the reader stalls (Pending, nobody wakes it).
    let chunks = (0..4).map(|i| vec![i; 3]).collect();
    let mut buf = ReadBuffer::with_capacity(64, ScriptReader::new(chunks).end(End::Stall));
    {
        let mut fut = pin!(buf.fill_ahead(2, "two bytes"));
        assert!(
            matches!(poll_once(fut.as_mut()), Poll::Ready(Ok(()))),
            "completes although the reader then stalls"
        );
    }
    assert_eq!(buf.buffered().len(), 12, "every ready chunk was read");
    assert_eq!(buf.get_ref().reads, 4);
}

#[test]
fn fill_ahead_stops_at_the_capacity() {
    let chunks = (0..10).map(|i| vec![i; 3]).collect();
    let mut buf = ReadBuffer::with_capacity(8, ScriptReader::new(chunks));
    block_on(buf.fill_ahead(1, "one byte")).unwrap();
    assert_eq!(buf.buffered().len(), 8);
    assert_eq!(buf.get_ref().remaining(), 30 - 8);
}
