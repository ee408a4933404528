//! Randomized (seeded, reproducible) streams of mixed values: read back at random capacities,
//! chunkings and delivery modes, truncated at random points (end of stream at exactly the cut),
//! and read with random cancellations when every value fits in the buffer.

mod common;

use std::pin::pin;

use bytes::Bytes;
use common::*;
use graphbinary_core::{DecodeError, Encode, Fq, FqOpt, Nullable, ReadBuffer};
use tokio::io::AsyncRead;

/// xorshift64*: small, deterministic, good enough to pick test cases.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn string(&mut self, max: usize) -> String {
        const ALPHABET: [char; 8] = ['a', 'Z', '0', ' ', 'é', '€', '😀', '\u{0}'];
        (0..self.below(max + 1))
            .map(|_| ALPHABET[self.below(ALPHABET.len())])
            .collect()
    }
    fn prim(&mut self) -> Prim {
        match self.below(11) {
            0 => Prim::I8(self.next() as i8),
            1 => Prim::I16(self.next() as i16),
            2 => Prim::I32(self.next() as i32),
            3 => Prim::I64(self.next() as i64),
            4 => Prim::F32(f32::from_bits(self.next() as u32)),
            5 => Prim::F64(f64::from_bits(self.next())),
            6 => Prim::Bool(self.chance(50)),
            7 => Prim::Uuid(uuid::Uuid::from_u128(
                (self.next() as u128) << 64 | self.next() as u128,
            )),
            8 => Prim::Char(self.string(1).chars().next().unwrap_or('q')),
            9 => Prim::Str(self.string(40)),
            _ => Prim::Bin(Bytes::from(
                (0..self.below(60))
                    .map(|_| self.next() as u8)
                    .collect::<Vec<_>>(),
            )),
        }
    }
    fn item(&mut self) -> Item {
        match self.below(8) {
            0 | 1 => Item::Bare(self.prim()),
            2 | 3 => Item::Fq(self.prim()),
            4 => Item::OptInt(self.chance(50).then(|| self.next() as i32)),
            5 => Item::Strings((0..self.below(5)).map(|_| self.string(8)).collect()),
            6 => Item::Nested(
                (0..self.below(4))
                    .map(|_| (0..self.below(4)).map(|_| self.next() as i64).collect())
                    .collect(),
            ),
            _ => Item::Message(self.chance(70).then(|| self.string(20))),
        }
    }
}

#[derive(Debug, Clone)]
enum Item {
    Bare(Prim),
    Fq(Prim),
    OptInt(Option<i32>),
    Strings(Vec<String>),
    Nested(Vec<Vec<i64>>),
    Message(Option<String>),
}

impl Item {
    fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Item::Bare(p) => p.encode(out),
            Item::Fq(p) => p.encode_fq(out),
            Item::OptInt(v) => FqOpt(*v).encode(out).unwrap(),
            Item::Strings(v) => Fq(v.clone()).encode(out).unwrap(),
            Item::Nested(v) => v.encode(out).unwrap(),
            Item::Message(v) => Nullable(v.clone()).encode(out).unwrap(),
        }
    }

    /// Reads an item of the same kind and checks it.
    async fn read_check<R: AsyncRead + Unpin + Send>(
        &self,
        buf: &mut ReadBuffer<R>,
    ) -> Result<(), DecodeError> {
        match self {
            Item::Bare(p) => assert_eq!(p.read(buf).await?, *p),
            Item::Fq(p) => assert_eq!(p.read_fq(buf).await?, *p),
            Item::OptInt(v) => assert_eq!(buf.read::<FqOpt<i32>>().await?.0, *v),
            Item::Strings(v) => assert_eq!(buf.read::<Fq<Vec<String>>>().await?.0, *v),
            Item::Nested(v) => assert_eq!(buf.read::<Vec<Vec<i64>>>().await?, *v),
            Item::Message(v) => assert_eq!(buf.read::<Nullable<String>>().await?.0, *v),
        }
        Ok(())
    }
}

fn stream(rng: &mut Rng, n: usize) -> (Vec<Item>, Vec<u8>, Vec<u64>) {
    let items: Vec<Item> = (0..n).map(|_| rng.item()).collect();
    let mut data = Vec::new();
    let mut ends = Vec::new();
    for it in &items {
        it.encode(&mut data);
        ends.push(data.len() as u64);
    }
    (items, data, ends)
}

/// Random streams for seeds 1 to `seeds`: each generator seeded from `seed * mul`, its stream
/// of 1 to `max_items` items; `check` gets the seed, the generator (for its own choices) and
/// the stream's items, bytes and item ends.
fn for_each_stream(
    seeds: u64,
    mul: u64,
    max_items: usize,
    mut check: impl FnMut(u64, &mut Rng, Vec<Item>, Vec<u8>, Vec<u64>),
) {
    for seed in 1..=seeds {
        let mut rng = Rng(seed.wrapping_mul(mul));
        let count = 1 + rng.below(max_items);
        let (items, data, ends) = stream(&mut rng, count);
        check(seed, &mut rng, items, data, ends);
    }
}

fn random_reader(rng: &mut Rng, data: &[u8]) -> ScriptReader {
    let sizes: Vec<usize> = (0..rng.below(6) + 1).map(|_| rng.below(40) + 1).collect();
    let mut r = ScriptReader::split(data, &sizes);
    if rng.chance(30) {
        r = r.max_per_read(rng.below(5) + 1);
    }
    if rng.chance(30) {
        r = r.pending_each();
    }
    r
}

#[test]
fn random_streams_read_back_exactly() {
    for_each_stream(
        400,
        0x9e37_79b9_7f4a_7c15,
        30,
        |seed, rng, items, data, ends| {
            let cap = [1, 2, 3, 5, 8, 13, 16, 17, 31, 64, 100, 4096][rng.below(12)];
            let fast = rng.chance(70);
            let r = random_reader(rng, &data);
            let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
            block_on(async {
                for (it, end) in items.iter().zip(&ends) {
                    it.read_check(&mut buf)
                        .await
                        .unwrap_or_else(|e| panic!("seed {seed}: {it:?}: {e}"));
                    assert_eq!(buf.offset(), *end, "seed {seed}");
                }
                assert!(buf.is_at_end().await.unwrap(), "seed {seed}");
            });
        },
    );
}

#[test]
fn random_truncations_end_in_eof_at_the_cut() {
    for_each_stream(
        400,
        0xd1b5_4a32_d192_ed03,
        12,
        |_, rng, items, data, ends| {
            let cut = rng.below(data.len() + 1);
            let cap = [1, 2, 4, 7, 16, 33, 64, 4096][rng.below(8)];
            let fast = rng.chance(60);
            let r = random_reader(rng, &data[..cut]);
            let mut buf = ReadBuffer::with_capacity(cap, r).with_fast_path(fast);
            block_on(async {
                for (it, end) in items.iter().zip(&ends) {
                    if *end <= cut as u64 {
                        it.read_check(&mut buf).await.unwrap();
                    } else {
                        let e = it.read_check(&mut buf).await.unwrap_err();
                        assert_eof(&e, cut as u64);
                        return;
                    }
                }
                assert_eq!(cut, data.len());
                assert!(buf.is_at_end().await.unwrap());
            });
        },
    );
}

#[test]
fn random_cancellations_when_everything_fits() {
    for_each_stream(
        300,
        0x94d0_49bb_1331_11eb,
        20,
        |seed, rng, items, data, ends| {
            let (g, feeder) = gate();
            // Everything fits: every read through the fast path is cancel safe.
            let mut buf = ReadBuffer::with_capacity(4096, g);
            let mut fed = 0;
            for (it, end) in items.iter().zip(&ends) {
                loop {
                    if rng.chance(50) && fed < data.len() {
                        let n = (rng.below(7) + 1).min(data.len() - fed);
                        feeder.feed(&data[fed..fed + n]);
                        fed += n;
                    }
                    let before = (buf.offset(), buf.buffered().len());
                    let done = {
                        let mut fut = pin!(it.read_check(&mut buf));
                        match poll_once(fut.as_mut()) {
                            std::task::Poll::Ready(r) => {
                                r.unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                                true
                            }
                            std::task::Poll::Pending => false,
                        }
                    };
                    if done {
                        break;
                    }
                    // Dropped while pending: nothing consumed, nothing lost.
                    assert_eq!(buf.offset(), before.0, "seed {seed}");
                    assert!(buf.buffered().len() >= before.1, "seed {seed}");
                }
                assert_eq!(buf.offset(), *end, "seed {seed}");
            }
            feeder.close();
            assert!(block_on(buf.is_at_end()).unwrap());
        },
    );
}

impl Item {
    /// Reads an item of the same kind, returning its debug form.
    async fn read_any<R: AsyncRead + Unpin + Send>(
        &self,
        buf: &mut ReadBuffer<R>,
    ) -> Result<String, DecodeError> {
        Ok(match self {
            Item::Bare(p) => format!("{:?}", p.read(buf).await?),
            Item::Fq(p) => format!("{:?}", p.read_fq(buf).await?),
            Item::OptInt(_) => format!("{:?}", buf.read::<FqOpt<i32>>().await?),
            Item::Strings(_) => format!("{:?}", buf.read::<Fq<Vec<String>>>().await?),
            Item::Nested(_) => format!("{:?}", buf.read::<Vec<Vec<i64>>>().await?),
            Item::Message(_) => format!("{:?}", buf.read::<Nullable<String>>().await?),
        })
    }
}

/// What reading `items`' kinds over (corrupted) `data` produced: the values read (debug form)
/// and how it ended.
fn read_corrupted(
    items: &[Item],
    data: &[u8],
    cap: usize,
    fast: bool,
    sizes: &[usize],
) -> (Vec<String>, String) {
    let mut buf = ReadBuffer::with_capacity(cap, ScriptReader::split(data, sizes))
        .with_fast_path(fast)
        .with_limits(graphbinary_core::Limits {
            max_depth: 8,
            max_collection_len: 1000,
            max_bytes_len: 1000,
            ..graphbinary_core::Limits::DEFAULT
        });
    let mut seen = Vec::new();
    let end = block_on(async {
        for it in items {
            match it.read_any(&mut buf).await {
                Ok(v) => seen.push(v),
                Err(e) => {
                    if let graphbinary_core::ErrorKind::UnexpectedEof { .. } = e.kind() {
                        // The end of stream is only ever reported where the stream ended.
                        assert_eq!(e.offset(), data.len() as u64, "{e}");
                        return "EOF".to_string();
                    }
                    assert!(e.offset() < data.len() as u64, "offset past the data: {e}");
                    return format!("{:?} at {}", e.kind(), e.offset());
                }
            }
        }
        "done".to_string()
    });
    (seen, end)
}

#[test]
fn corrupted_streams_never_panic_or_hang_and_both_paths_agree() {
    let mut agreed = 0;
    for_each_stream(
        2000,
        0xa076_1d64_78bd_642f,
        10,
        |seed, rng, items, mut data, _| {
            for _ in 0..1 + rng.below(3) {
                if data.is_empty() {
                    break;
                }
                let at = rng.below(data.len());
                match rng.below(5) {
                    0 => data[at] ^= 1 << rng.below(8),
                    1 => data[at] = 0,
                    2 => data[at] = 0xff,
                    3 => {
                        data.remove(at);
                    }
                    _ => data.insert(at, rng.next() as u8),
                }
            }
            let cap = [1, 3, 16, 64, 4096][rng.below(5)];
            let sizes = [vec![], vec![1], vec![5, 2]][rng.below(3)].clone();
            let (fast_vals, fast_end) = read_corrupted(&items, &data, cap, true, &sizes);
            let (slow_vals, slow_end) = read_corrupted(&items, &data, cap, false, &sizes);
            let ctx = format!("seed {seed}: {fast_end} / {slow_end}");
            // The values both paths read agree. Where they stop may differ only when the input is
            // both invalid and truncated: a lower bound the fast path derives from a claimed count
            // can reach the end of stream before the slow path reaches the bad byte.
            let n = fast_vals.len().min(slow_vals.len());
            assert_eq!(fast_vals[..n], slow_vals[..n], "{ctx}");
            if fast_end == slow_end {
                assert_eq!(fast_vals, slow_vals, "{ctx}");
                agreed += 1;
            } else {
                // Only the fast path may stop early at the end of stream, waiting for a claimed
                // count's lower bound, where the slow path reaches the corrupted byte first.
                assert_eq!(fast_end, "EOF", "{ctx}");
                assert!(slow_end != "done", "{ctx}");
            }
        },
    );
    assert!(agreed > 1500, "{agreed}");
}
