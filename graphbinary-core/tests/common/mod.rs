//! Shared test doubles and helpers for the integration tests: scripted readers (chunked, short
//! reads, pending before each read, erroring, stalling, gated), chunkings of a byte string, a
//! tiny executor helper, and `Prim`, a sample of every primitive with its expected encoding.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use bytes::{BufMut, Bytes};
use graphbinary_core::{
    Cursor, Decode, DecodeError, Encode, ErrorKind, FastError, FastResult, Fq, Limits, ReadBuffer,
};
use tokio::io::{AsyncRead, ReadBuf};

// ---------------------------------------------------------------------------------------------
// Executors
// ---------------------------------------------------------------------------------------------

/// Runs a future to completion on the current thread (real wakeups: a reader that returns
/// `Pending` must wake the task or this never returns).
pub fn block_on<F: Future>(f: F) -> F::Output {
    futures::executor::block_on(f)
}

/// Polls `fut` once with a waker that does nothing.
pub fn poll_once<F: Future + ?Sized>(fut: Pin<&mut F>) -> Poll<F::Output> {
    let mut cx = Context::from_waker(Waker::noop());
    fut.poll(&mut cx)
}

/// Polls `fut` once, asserts that it is pending, and drops it: a cancellation at its first
/// suspension point.
pub fn cancel_when_pending<F: Future>(fut: F) {
    let mut fut = std::pin::pin!(fut);
    assert!(poll_once(fut.as_mut()).is_pending());
}

// ---------------------------------------------------------------------------------------------
// Scripted reader
// ---------------------------------------------------------------------------------------------

/// What a [`ScriptReader`] does once its chunks are exhausted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Returns `Ok` with no bytes: end of stream.
    Eof,
    /// Returns this error.
    Error(io::ErrorKind),
    /// Returns `Pending` forever without waking anyone. Only for tests that poll by hand.
    Stall,
}

/// A reader that delivers a list of chunks, one read never spanning two chunks.
///
/// * `max_per_read` caps every read (short reads inside a chunk);
/// * `pending_each` makes every read that would deliver bytes first return `Pending` once,
///   waking the task (so a correct caller is polled again);
/// * `end` decides what happens after the last chunk.
#[derive(Debug)]
pub struct ScriptReader {
    chunks: VecDeque<Vec<u8>>,
    max_per_read: usize,
    pending_each: bool,
    primed: bool,
    end: End,
    /// Reads that delivered at least one byte.
    pub reads: usize,
    /// Times `Pending` was returned.
    pub pendings: usize,
    /// Largest destination space offered by a caller.
    pub largest_request: usize,
}

impl ScriptReader {
    /// Delivers `chunks`, then end of stream.
    pub fn new(chunks: Vec<Vec<u8>>) -> Self {
        ScriptReader {
            chunks: chunks.into_iter().filter(|c| !c.is_empty()).collect(),
            max_per_read: usize::MAX,
            pending_each: false,
            primed: false,
            end: End::Eof,
            reads: 0,
            pendings: 0,
            largest_request: 0,
        }
    }

    /// Delivers `data` as chunks of the given sizes (see [`split`]).
    pub fn split(data: &[u8], sizes: &[usize]) -> Self {
        Self::new(split(data, sizes))
    }

    /// Delivers `data` one byte per read.
    pub fn drip(data: &[u8]) -> Self {
        Self::new(vec![data.to_vec()]).max_per_read(1)
    }

    /// Caps each read at `n` bytes.
    pub fn max_per_read(mut self, n: usize) -> Self {
        assert!(n > 0);
        self.max_per_read = n;
        self
    }

    /// Returns `Pending` (and wakes) once before every read that delivers bytes.
    pub fn pending_each(mut self) -> Self {
        self.pending_each = true;
        self
    }

    /// Sets what happens after the last chunk.
    pub fn end(mut self, end: End) -> Self {
        self.end = end;
        self
    }

    /// Bytes not delivered yet.
    pub fn remaining(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }
}

impl AsyncRead for ScriptReader {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        this.largest_request = this.largest_request.max(buf.remaining());
        if buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        let Some(front) = this.chunks.front_mut() else {
            return match this.end {
                End::Eof => Poll::Ready(Ok(())),
                End::Error(kind) => Poll::Ready(Err(io::Error::new(kind, "scripted failure"))),
                End::Stall => {
                    this.pendings += 1;
                    Poll::Pending
                }
            };
        };
        if this.pending_each && !this.primed {
            this.primed = true;
            this.pendings += 1;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        this.primed = false;
        let n = front.len().min(buf.remaining()).min(this.max_per_read);
        buf.put_slice(&front[..n]);
        front.drain(..n);
        if front.is_empty() {
            this.chunks.pop_front();
        }
        this.reads += 1;
        Poll::Ready(Ok(()))
    }
}

/// Splits `data` into consecutive chunks of `sizes` (the last size repeats; the last chunk may
/// be shorter). `sizes` empty means one chunk.
pub fn split(data: &[u8], sizes: &[usize]) -> Vec<Vec<u8>> {
    if sizes.is_empty() {
        return vec![data.to_vec()];
    }
    let mut out = Vec::new();
    let mut at = 0;
    let mut i = 0;
    while at < data.len() {
        let n = sizes[i.min(sizes.len() - 1)].max(1);
        let end = (at + n).min(data.len());
        out.push(data[at..end].to_vec());
        at = end;
        i += 1;
    }
    out
}

/// A representative set of ways to cut `len` bytes into reads: all at once; every fixed chunk
/// size 1..len (above 24 only the powers of two); every cut into two pieces at byte `i` (for `len` above 64: near both ends and every 13th byte); and, when `all_triples`, every cut into
/// three pieces.
pub fn chunkings(len: usize, all_triples: bool) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![vec![]];
    for k in (1..len).filter(|&k| k <= 24 || k.is_power_of_two()) {
        out.push(vec![k]);
    }
    for i in (1..len).filter(|&i| len <= 64 || i <= 20 || i + 20 >= len || i % 13 == 0) {
        out.push(vec![i, len - i]);
    }
    if all_triples {
        for i in 1..len {
            for j in 1..len - i {
                out.push(vec![i, j, len - i - j]);
            }
        }
    }
    out
}

/// The three delivery modes every chunking is tried with.
#[derive(Debug, Clone, Copy)]
pub enum Mode {
    /// Chunks as given.
    Plain,
    /// Chunks as given, `Pending` (with a wakeup) before each read.
    Pending,
    /// Chunks as given, at most 3 bytes per read.
    Short,
}

/// Every mode.
pub const MODES: [Mode; 3] = [Mode::Plain, Mode::Pending, Mode::Short];

/// A reader delivering `data` in `sizes` chunks in `mode`.
/// Calls `check` with a read buffer over `data` at every capacity 1..=`max_cap`, every
/// chunking ([`chunkings`], not all triples) and mode, fast path on and off, and a text that
/// names the combination.
pub fn for_each_way(
    data: &[u8],
    max_cap: usize,
    mut check: impl FnMut(&str, ReadBuffer<ScriptReader>),
) {
    for cap in 1..=max_cap {
        for sizes in chunkings(data.len(), false) {
            for mode in MODES {
                for fast in [true, false] {
                    let ctx = format!("cap={cap} {sizes:?} {mode:?} fast={fast}");
                    let buf = ReadBuffer::with_capacity(cap, reader(data, &sizes, mode))
                        .with_fast_path(fast);
                    check(&ctx, buf);
                }
            }
        }
    }
}

pub fn reader(data: &[u8], sizes: &[usize], mode: Mode) -> ScriptReader {
    let r = ScriptReader::split(data, sizes);
    match mode {
        Mode::Plain => r,
        Mode::Pending => r.pending_each(),
        Mode::Short => r.max_per_read(3),
    }
}

// ---------------------------------------------------------------------------------------------
// Gated reader (for cancellation)
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Default)]
struct GateState {
    data: VecDeque<u8>,
    closed: bool,
    waker: Option<Waker>,
}

/// A reader fed by a [`Feeder`]: `Pending` while nothing is fed, end of stream once closed.
#[derive(Debug)]
pub struct Gate(Arc<Mutex<GateState>>);

/// Feeds bytes to a [`Gate`].
#[derive(Debug, Clone)]
pub struct Feeder(Arc<Mutex<GateState>>);

/// A gated reader and its feeder.
pub fn gate() -> (Gate, Feeder) {
    let s = Arc::new(Mutex::new(GateState::default()));
    (Gate(s.clone()), Feeder(s))
}

impl Feeder {
    /// Makes `bytes` available to the reader.
    pub fn feed(&self, bytes: &[u8]) {
        let mut s = self.0.lock().unwrap();
        s.data.extend(bytes);
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    }

    /// Ends the stream after what was fed.
    pub fn close(&self) {
        let mut s = self.0.lock().unwrap();
        s.closed = true;
        if let Some(w) = s.waker.take() {
            w.wake();
        }
    }

    /// Bytes fed but not read yet.
    pub fn unread(&self) -> usize {
        self.0.lock().unwrap().data.len()
    }
}

impl AsyncRead for Gate {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut s = self.0.lock().unwrap();
        if s.data.is_empty() {
            if s.closed {
                return Poll::Ready(Ok(()));
            }
            s.waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        let n = s.data.len().min(buf.remaining());
        for _ in 0..n {
            let b = s.data.pop_front().unwrap();
            buf.put_slice(&[b]);
        }
        Poll::Ready(Ok(()))
    }
}

// ---------------------------------------------------------------------------------------------
// Primitive samples
// ---------------------------------------------------------------------------------------------

/// One value of a primitive type. Equality compares floats by bit pattern.
#[derive(Debug, Clone)]
pub enum Prim {
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bool(bool),
    Uuid(uuid::Uuid),
    Char(char),
    Str(String),
    Bin(Bytes),
}

/// The reads tried on a primitive.
#[derive(Debug, Clone, Copy)]
pub enum How {
    /// `ReadBuffer::read::<T>()`.
    Read,
    /// `ReadBuffer::read::<T>()` with the fast path off.
    ReadSlow,
    /// `read_i32()`, `read_string()`, ...
    Direct,
    /// `ReadBuffer::read::<Fq<T>>()` over the fully-qualified form.
    Fq,
}

impl How {
    /// Every read.
    pub const ALL: [How; 4] = [How::Read, How::ReadSlow, How::Direct, How::Fq];

    /// Whether the buffer's fast path is on for this read.
    pub fn fast_path(self) -> bool {
        !matches!(self, How::ReadSlow)
    }
}

impl PartialEq for Prim {
    fn eq(&self, other: &Self) -> bool {
        use Prim::*;
        match (self, other) {
            (I8(a), I8(b)) => a == b,
            (I16(a), I16(b)) => a == b,
            (I32(a), I32(b)) => a == b,
            (I64(a), I64(b)) => a == b,
            (F32(a), F32(b)) => a.to_bits() == b.to_bits(),
            (F64(a), F64(b)) => a.to_bits() == b.to_bits(),
            (Bool(a), Bool(b)) => a == b,
            (Uuid(a), Uuid(b)) => a == b,
            (Char(a), Char(b)) => a == b,
            (Str(a), Str(b)) => a == b,
            (Bin(a), Bin(b)) => a == b,
            _ => false,
        }
    }
}

/// Dispatches `$body` with `$t` bound to the Rust type of `$p` and `$v` to its value.
macro_rules! with_prim {
    ($p:expr, |$v:ident : $t:ident| $body:expr) => {
        match $p {
            Prim::I8($v) => {
                type $t = i8;
                $body
            }
            Prim::I16($v) => {
                type $t = i16;
                $body
            }
            Prim::I32($v) => {
                type $t = i32;
                $body
            }
            Prim::I64($v) => {
                type $t = i64;
                $body
            }
            Prim::F32($v) => {
                type $t = f32;
                $body
            }
            Prim::F64($v) => {
                type $t = f64;
                $body
            }
            Prim::Bool($v) => {
                type $t = bool;
                $body
            }
            Prim::Uuid($v) => {
                type $t = uuid::Uuid;
                $body
            }
            Prim::Char($v) => {
                type $t = char;
                $body
            }
            Prim::Str($v) => {
                type $t = String;
                $body
            }
            Prim::Bin($v) => {
                type $t = Bytes;
                $body
            }
        }
    };
}

/// Wraps a decoded value back into the same variant as `like`.
trait IntoPrim {
    fn into_prim(self) -> Prim;
}
macro_rules! into_prim {
    ($($t:ty => $v:ident),*) => {$(
        impl IntoPrim for $t {
            fn into_prim(self) -> Prim {
                Prim::$v(self)
            }
        }
    )*};
}
into_prim!(i8 => I8, i16 => I16, i32 => I32, i64 => I64, f32 => F32, f64 => F64, bool => Bool,
    uuid::Uuid => Uuid, char => Char, String => Str, Bytes => Bin);

impl Prim {
    /// The bare encoding, written by hand (independently of `Encode`).
    pub fn expected_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Prim::I8(v) => out.push(*v as u8),
            Prim::I16(v) => out.extend_from_slice(&v.to_be_bytes()),
            Prim::I32(v) => out.extend_from_slice(&v.to_be_bytes()),
            Prim::I64(v) => out.extend_from_slice(&v.to_be_bytes()),
            Prim::F32(v) => out.extend_from_slice(&v.to_bits().to_be_bytes()),
            Prim::F64(v) => out.extend_from_slice(&v.to_bits().to_be_bytes()),
            Prim::Bool(v) => out.push(*v as u8),
            Prim::Uuid(v) => out.extend_from_slice(v.as_bytes()),
            Prim::Char(c) => {
                let mut tmp = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            }
            Prim::Str(s) => {
                out.extend_from_slice(&(s.len() as u32).to_be_bytes());
                out.extend_from_slice(s.as_bytes());
            }
            Prim::Bin(b) => {
                out.extend_from_slice(&(b.len() as u32).to_be_bytes());
                out.extend_from_slice(b);
            }
        }
        out
    }

    /// The bare encoding through `Encode`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        with_prim!(self, |v: T| Encode::encode(v, out).unwrap())
    }

    /// The fully-qualified encoding through `Fq<T>: Encode`.
    #[allow(clippy::clone_on_copy)] // generic over Copy and non-Copy types
    pub fn encode_fq(&self, out: &mut Vec<u8>) {
        with_prim!(self, |v: T| Fq(v.clone()).encode(out).unwrap())
    }

    /// Decodes a value of the same type from a cursor.
    pub fn decode(&self, cur: &mut Cursor<'_>) -> FastResult<Prim> {
        with_prim!(self, |_v: T| <T as Decode>::decode(cur)
            .map(IntoPrim::into_prim))
    }

    /// Decodes a fully-qualified value of the same type from a cursor.
    pub fn decode_fq(&self, cur: &mut Cursor<'_>) -> FastResult<Prim> {
        with_prim!(self, |_v: T| <Fq<T> as Decode>::decode(cur)
            .map(|f| f.0.into_prim()))
    }

    /// The fast path of the buffer (`try_decode`) for a value of the same type.
    pub fn try_decode<R>(&self, buf: &mut ReadBuffer<R>) -> FastResult<Prim> {
        with_prim!(self, |_v: T| buf.try_decode::<T>().map(IntoPrim::into_prim))
    }

    /// Reads a value of the same type with `ReadBuffer::read`.
    pub async fn read<R: AsyncRead + Unpin + Send>(
        &self,
        buf: &mut ReadBuffer<R>,
    ) -> Result<Prim, DecodeError> {
        with_prim!(self, |_v: T| buf.read::<T>().await.map(IntoPrim::into_prim))
    }

    /// Reads a fully-qualified value of the same type with `ReadBuffer::read::<Fq<T>>`.
    pub async fn read_fq<R: AsyncRead + Unpin + Send>(
        &self,
        buf: &mut ReadBuffer<R>,
    ) -> Result<Prim, DecodeError> {
        with_prim!(self, |_v: T| buf
            .read::<Fq<T>>()
            .await
            .map(|f| f.0.into_prim()))
    }

    /// The bytes `how` reads: the fully-qualified encoding for [`How::Fq`], else the bare one.
    pub fn encoded_for(&self, how: How) -> Vec<u8> {
        let mut out = Vec::new();
        match how {
            How::Fq => self.encode_fq(&mut out),
            _ => self.encode(&mut out),
        }
        out
    }

    /// Reads a value of the same type the way `how` says (the buffer's fast path set apart,
    /// see [`How::fast_path`]).
    pub async fn read_how<R: AsyncRead + Unpin + Send>(
        &self,
        how: How,
        buf: &mut ReadBuffer<R>,
    ) -> Result<Prim, DecodeError> {
        match how {
            How::Read | How::ReadSlow => self.read(buf).await,
            How::Direct => self.read_direct(buf).await,
            How::Fq => self.read_fq(buf).await,
        }
    }

    /// Reads the value back the way `how` says and checks that it is this one (`ctx` in the
    /// message of a failure).
    pub async fn read_back<R: AsyncRead + Unpin + Send>(
        &self,
        how: How,
        buf: &mut ReadBuffer<R>,
        ctx: &str,
    ) {
        let got = self
            .read_how(how, buf)
            .await
            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(got, *self, "{ctx}");
    }

    /// Reads a value of the same type with the buffer's dedicated async method (`read_i32`,
    /// `read_string`, ...).
    pub async fn read_direct<R: AsyncRead + Unpin + Send>(
        &self,
        buf: &mut ReadBuffer<R>,
    ) -> Result<Prim, DecodeError> {
        Ok(match self {
            Prim::I8(_) => Prim::I8(buf.read_i8().await?),
            Prim::I16(_) => Prim::I16(buf.read_i16().await?),
            Prim::I32(_) => Prim::I32(buf.read_i32().await?),
            Prim::I64(_) => Prim::I64(buf.read_i64().await?),
            Prim::F32(_) => Prim::F32(buf.read_f32().await?),
            Prim::F64(_) => Prim::F64(buf.read_f64().await?),
            Prim::Bool(_) => Prim::Bool(buf.read_bool().await?),
            Prim::Uuid(_) => Prim::Uuid(buf.read_uuid().await?),
            Prim::Char(_) => Prim::Char(buf.read_char().await?),
            Prim::Str(_) => Prim::Str(buf.read_string().await?),
            Prim::Bin(_) => Prim::Bin(Bytes::from(buf.read_len_prefixed("Binary").await?)),
        })
    }

    /// Whether a read of this value is cancel safe through its dedicated method (fixed widths).
    pub fn fixed_width(&self) -> bool {
        !matches!(self, Prim::Str(_) | Prim::Bin(_))
    }
}

/// Asserts that `e` stands at `offset` and that its kind passes `kind`.
pub fn assert_error_at(e: &DecodeError, offset: u64, kind: impl FnOnce(&ErrorKind) -> bool) {
    assert!(kind(e.kind()), "{e:?}");
    assert_eq!(e.offset(), offset, "{e}");
}

/// [`samples`] and their fully-qualified encodings one after the other.
pub fn samples_fq() -> (Vec<Prim>, Vec<u8>) {
    let ps = samples();
    let mut data = Vec::new();
    for p in &ps {
        p.encode_fq(&mut data);
    }
    (ps, data)
}

/// Every sample primitive in every way of reading it, with the bytes that read writes.
pub fn every_encoding() -> impl Iterator<Item = (Prim, How, Vec<u8>)> {
    samples().into_iter().flat_map(|p| {
        How::ALL.into_iter().map(move |how| {
            let bytes = p.encoded_for(how);
            (p.clone(), how, bytes)
        })
    })
}

/// Every primitive, with minimum, maximum and special values.
pub fn samples() -> Vec<Prim> {
    let mut v = vec![
        Prim::I8(0),
        Prim::I8(-1),
        Prim::I8(i8::MIN),
        Prim::I8(i8::MAX),
        Prim::I16(0),
        Prim::I16(-1),
        Prim::I16(i16::MIN),
        Prim::I16(i16::MAX),
        Prim::I16(0x0102),
        Prim::I32(0),
        Prim::I32(-1),
        Prim::I32(42),
        Prim::I32(i32::MIN),
        Prim::I32(i32::MAX),
        Prim::I32(0x0102_0304),
        Prim::I64(0),
        Prim::I64(-1),
        Prim::I64(i64::MIN),
        Prim::I64(i64::MAX),
        Prim::I64(0x0102_0304_0506_0708),
        Prim::Bool(false),
        Prim::Bool(true),
        Prim::Uuid(uuid::Uuid::nil()),
        Prim::Uuid(uuid::Uuid::max()),
        Prim::Uuid(uuid::Uuid::from_u128(
            0x4142_4344_4546_4748_494a_4b4c_4d4e_4f50,
        )),
        Prim::Str(String::new()),
        Prim::Str("a".into()),
        Prim::Str("marko".into()),
        Prim::Str("héllo wörld € 😀 \u{0}".into()),
        Prim::Str("x".repeat(300)),
        Prim::Bin(Bytes::new()),
        Prim::Bin(Bytes::from_static(&[0xff])),
        Prim::Bin(Bytes::from((0..=255u8).collect::<Vec<_>>())),
    ];
    for f in [
        0.0f32,
        -0.0,
        1.5,
        -2.25,
        f32::MIN,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::EPSILON,
        f32::from_bits(1), // smallest subnormal
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(0xffc0_0001), // a negative NaN with a payload
    ] {
        v.push(Prim::F32(f));
    }
    for f in [
        0.0f64,
        -0.0,
        1.5,
        -2.25,
        f64::MIN,
        f64::MAX,
        f64::MIN_POSITIVE,
        f64::EPSILON,
        f64::from_bits(1),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::from_bits(0xfff8_0000_0000_0001),
    ] {
        v.push(Prim::F64(f));
    }
    for c in [
        '\0',
        'a',
        '\u{7f}',
        '\u{80}',
        'é',
        '\u{7ff}',
        '\u{800}',
        '€',
        '\u{d7ff}',
        '\u{e000}',
        '\u{fffd}',
        '\u{ffff}',
        '\u{10000}',
        '😀',
        '\u{10ffff}',
    ] {
        v.push(Prim::Char(c));
    }
    v
}

/// One sample of each distinct width class (for the most expensive loops).
pub fn one_per_type() -> Vec<Prim> {
    vec![
        Prim::I8(-2),
        Prim::I16(-2),
        Prim::I32(0x0102_0304),
        Prim::I64(i64::MIN + 7),
        Prim::F32(-0.0),
        Prim::F64(f64::NAN),
        Prim::Bool(true),
        Prim::Uuid(uuid::Uuid::from_u128(
            0x0011_2233_4455_6677_8899_aabb_ccdd_eeff,
        )),
        Prim::Char('a'),
        Prim::Char('é'),
        Prim::Char('€'),
        Prim::Char('😀'),
        Prim::Str("héllo".into()),
        Prim::Bin(Bytes::from_static(&[1, 2, 3, 0, 255])),
    ]
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/// A cursor over `data` at offset 0 with default limits.
pub fn decode_all<T: Decode>(data: &[u8]) -> FastResult<T> {
    let limits = Limits::DEFAULT;
    let mut cur = Cursor::new(data, 0, &limits);
    let v = T::decode(&mut cur)?;
    assert_eq!(cur.position(), data.len(), "decode left bytes unread");
    Ok(v)
}

/// Encodes `v` into a fresh vector.
pub fn enc<T: Encode + ?Sized>(v: &T) -> Vec<u8> {
    let mut out = Vec::new();
    v.encode(&mut out).unwrap();
    out
}

/// Writes `v` as a 4-byte big-endian length.
pub fn len_bytes(v: i32) -> [u8; 4] {
    v.to_be_bytes()
}

/// The `DecodeError` inside a `FastError::Invalid`, panicking on `NeedMore`.
pub fn invalid(e: FastError) -> DecodeError {
    match e {
        FastError::Invalid(e) => e,
        FastError::NeedMore(n) => panic!("expected an error, got NeedMore({n})"),
    }
}

/// Asserts that `e` is an end of stream at `offset`.
#[track_caller]
pub fn assert_eof(e: &DecodeError, offset: u64) {
    assert!(
        matches!(e.kind(), ErrorKind::UnexpectedEof { .. }),
        "expected UnexpectedEof, got {e:?}"
    );
    assert_eq!(e.offset(), offset, "wrong offset in {e}");
}

/// `ErrorKind` is not `PartialEq` (it holds an `io::Error`): compare errors by their debug form.
pub fn same_error(a: &DecodeError, b: &DecodeError) -> bool {
    a.offset() == b.offset() && format!("{:?}", a.kind()) == format!("{:?}", b.kind())
}

/// Appends to a `Vec<u8>` via `BufMut` (keeps the `bytes` import used in every test crate).
pub fn put(out: &mut Vec<u8>, bytes: &[u8]) {
    out.put_slice(bytes);
}
