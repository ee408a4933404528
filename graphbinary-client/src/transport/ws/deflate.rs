//! permessage-deflate (RFC 7692) for what the server sends: a layer between the socket and
//! tungstenite (which speaks no extension) that turns each compressed message into the same
//! message uncompressed, passed on as fragments of at most [`FRAGMENT`] bytes as its bytes
//! arrive, so that memory stays bounded whatever the compressed bytes inflate to
//! (tungstenite's `max_message_size` then bounds the whole message, as for any message).
//!
//! The client compresses nothing it sends (the extension allows a sender to choose per
//! message), so writes pass through, as does every byte before [`Inflate::enable`] (the
//! handshake) and every byte of a connection whose server did not agree. Frames this layer
//! does not rewrite (control frames, uncompressed messages, anything malformed) pass through
//! unchanged for tungstenite to read or refuse.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf, BufMut, BytesMut};
use flate2::{Decompress, FlushDecompress, Status};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The upgrade request's `Sec-WebSocket-Extensions` when compression is on.
pub(crate) const OFFER: &str = "permessage-deflate";

/// The largest fragment of an inflated message passed to tungstenite.
const FRAGMENT: usize = 64 * 1024;

/// Bytes read from the socket at most per call.
const READ: usize = 32 * 1024;

/// What a sender strips from the end of each compressed message, and the receiver appends
/// (RFC 7692 section 7.2.2).
const TAIL: [u8; 4] = [0, 0, 0xff, 0xff];

/// What the server's handshake answer agreed to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Agreed {
    /// The server starts each message with an empty window: the inflater is reset after each.
    pub(crate) server_no_context_takeover: bool,
}

/// Reads the answer's `Sec-WebSocket-Extensions` values: `Some` when the server agreed to
/// permessage-deflate, `None` when it named no extension; an error for an extension or a
/// parameter that was not offered or is not valid (the client must then fail the
/// connection, RFC 6455 section 4.1).
pub(crate) fn agreed<'a>(
    values: impl IntoIterator<Item = &'a str>,
    offered: bool,
) -> Result<Option<Agreed>, String> {
    let mut found = None;
    for extension in values.into_iter().flat_map(|v| v.split(',')) {
        let mut params = extension.split(';').map(str::trim);
        let name = params.next().unwrap_or_default();
        if name.is_empty() {
            continue;
        }
        if !name.eq_ignore_ascii_case(OFFER) || !offered || found.is_some() {
            return Err(format!(
                "the server answered with the WebSocket extension {name:?}, which was not offered"
            ));
        }
        let mut agreed = Agreed {
            server_no_context_takeover: false,
        };
        for param in params {
            let (key, value) = match param.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim().trim_matches('"'))),
                None => (param, None),
            };
            let bits_ok = |v: Option<&str>| {
                v.and_then(|v| v.parse::<u8>().ok())
                    .is_some_and(|b| (8..=15).contains(&b))
            };
            match key.to_ascii_lowercase().as_str() {
                "server_no_context_takeover" if value.is_none() => {
                    agreed.server_no_context_takeover = true
                }
                // What the client may send: it compresses nothing.
                "client_no_context_takeover" if value.is_none() => {}
                // Any window up to 15 bits inflates with the 15-bit window used here.
                "server_max_window_bits" | "client_max_window_bits" if bits_ok(value) => {}
                _ => {
                    return Err(format!(
                        "the server's permessage-deflate answer has the parameter {param:?}, \
                         which RFC 7692 does not allow there"
                    ))
                }
            }
        }
        found = Some(agreed);
    }
    Ok(found)
}

/// The socket under tungstenite: passes bytes through until [`Inflate::enable`], then inflates
/// compressed messages.
pub(crate) struct Inflate<S> {
    inner: S,
    state: Option<Box<State>>,
}

impl<S> Inflate<S> {
    pub(crate) fn new(inner: S) -> Self {
        Inflate { inner, state: None }
    }

    /// The socket under this layer.
    #[cfg(test)]
    pub(crate) fn get_ref(&self) -> &S {
        &self.inner
    }

    /// From now on, compressed messages are inflated (the handshake agreed to `agreed`).
    pub(crate) fn enable(&mut self, agreed: Agreed) {
        self.state = Some(Box::new(State::new(agreed)));
    }

    /// The bytes the oldest data message not yet asked about took on the wire (its frames'
    /// headers and payloads), in the order tungstenite hands the messages on; `None` when
    /// nothing is inflated (a message's length is then what it took).
    pub(crate) fn wire_size(&mut self) -> Option<u64> {
        self.state.as_mut()?.sizes.pop_front()
    }
}

impl<S: std::fmt::Debug> std::fmt::Debug for Inflate<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inflate")
            .field("inner", &self.inner)
            .field("agreed", &self.state.as_ref().map(|s| s.agreed))
            .finish()
    }
}

/// Where the reader is in the server's stream of frames.
#[derive(Debug, Clone, Copy)]
enum Frame {
    /// At a frame header.
    Header,
    /// In a frame passed on as it is: `left` payload bytes to go.
    Pass { left: u64 },
    /// In a frame of a compressed message: `left` compressed bytes to go, and whether it is
    /// the message's last frame.
    Compressed { left: u64, fin: bool },
}

/// The message the frames belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Message {
    /// Between messages.
    None,
    /// An uncompressed fragmented message: its continuations pass through.
    Plain,
    /// A compressed message of `opcode`; `started` once its first fragment was passed on.
    Compressed { opcode: u8, started: bool },
}

struct State {
    agreed: Agreed,
    inflater: Decompress,
    /// The inflater reached the end of a deflate stream (a block with BFINAL set) in this
    /// message: what follows in it is ignored and the inflater is reset at its end.
    stream_ended: bool,
    /// Bytes read from the socket and not yet handled.
    raw: BytesMut,
    /// Bytes for tungstenite: frames passed through, and the header of each inflated
    /// fragment, whose payload follows from `plain`.
    out: BytesMut,
    /// The payload of the last inflated fragment, handed on from `plain_at` once `out` is;
    /// allocated at the first compressed message, then reused.
    plain: Vec<u8>,
    plain_at: usize,
    frame: Frame,
    message: Message,
    /// Bytes of [`TAIL`] fed at the end of the current compressed message.
    tail_fed: usize,
    /// Wire bytes of the data message being read, and of each one read whole
    /// ([`Inflate::wire_size`]).
    current: u64,
    sizes: std::collections::VecDeque<u64>,
    eof: bool,
}

/// Whether [`State::step`] changed anything.
enum Step {
    Progress,
    NeedMore,
}

fn invalid(what: String) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("permessage-deflate: {what}"),
    )
}

impl State {
    fn new(agreed: Agreed) -> Self {
        State {
            agreed,
            inflater: Decompress::new(false),
            stream_ended: false,
            raw: BytesMut::new(),
            out: BytesMut::new(),
            plain: Vec::new(),
            plain_at: 0,
            frame: Frame::Header,
            message: Message::None,
            tail_fed: 0,
            current: 0,
            sizes: Default::default(),
            eof: false,
        }
    }

    fn step(&mut self) -> io::Result<Step> {
        match self.frame {
            Frame::Header => self.header(),
            Frame::Pass { left } => {
                let n = left.min(self.raw.len() as u64) as usize;
                if n == 0 && left > 0 {
                    return Ok(Step::NeedMore);
                }
                self.pass(n);
                self.frame = match left - n as u64 {
                    0 => Frame::Header,
                    left => Frame::Pass { left },
                };
                Ok(Step::Progress)
            }
            Frame::Compressed { left, fin } => self.inflate(left, fin),
        }
    }

    /// Moves `n` bytes of `raw` to `out` unchanged.
    fn pass(&mut self, n: usize) {
        let bytes = self.raw.split_to(n);
        if self.out.is_empty() {
            self.out = bytes;
        } else {
            self.out.extend_from_slice(&bytes);
        }
    }

    fn header(&mut self) -> io::Result<Step> {
        let Some(&[b0, b1]) = self.raw.get(..2).map(|h| <&[u8; 2]>::try_from(h).unwrap()) else {
            return Ok(Step::NeedMore);
        };
        let masked = b1 & 0x80 != 0;
        let ext = match b1 & 0x7f {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        let header_len = 2 + ext + if masked { 4 } else { 0 };
        if self.raw.len() < header_len {
            return Ok(Step::NeedMore);
        }
        let length = match ext {
            2 => u64::from(u16::from_be_bytes([self.raw[2], self.raw[3]])),
            8 => u64::from_be_bytes(self.raw[2..10].try_into().unwrap()),
            _ => u64::from(b1 & 0x7f),
        };
        let (fin, rsv1, rsv23, opcode) = (b0 & 0x80 != 0, b0 & 0x40 != 0, b0 & 0x30, b0 & 0x0f);
        let data = opcode == 1 || opcode == 2;
        // A server's frames are never masked, and only RSV1 has a meaning here: anything else
        // passes through for tungstenite to refuse.
        let well_formed = !masked && rsv23 == 0;
        let compressed = match (self.message, opcode) {
            (Message::None, _) if data && rsv1 && well_formed => {
                self.message = Message::Compressed {
                    opcode,
                    started: false,
                };
                true
            }
            (Message::Compressed { .. }, 0) if !rsv1 && well_formed => true,
            _ => false,
        };
        let wire = header_len as u64 + length;
        if compressed {
            self.current += wire;
            self.raw.advance(header_len);
            self.frame = Frame::Compressed { left: length, fin };
            return Ok(Step::Progress);
        }
        let of_message = match (self.message, opcode) {
            (Message::None, _) if data => {
                if !fin {
                    self.message = Message::Plain;
                }
                true
            }
            (Message::Plain, 0) => {
                if fin {
                    self.message = Message::None;
                }
                true
            }
            _ => false,
        };
        if of_message {
            self.current += wire;
            if fin {
                self.sizes.push_back(std::mem::take(&mut self.current));
            }
        }
        self.pass(header_len);
        self.frame = Frame::Pass { left: length };
        Ok(Step::Progress)
    }

    /// Inflates what has come of a compressed frame with `left` bytes to go (`fin`: the
    /// message's last frame), passing on at most one fragment. Runs once `out` and `plain`
    /// were handed on.
    fn inflate(&mut self, left: u64, fin: bool) -> io::Result<Step> {
        // The output of one step: `plain`'s buffer, allocated at the first inflate.
        let mut plain = std::mem::take(&mut self.plain);
        plain.clear();
        self.plain_at = 0;
        let step = self.inflate_into(&mut plain, left, fin);
        self.plain = plain;
        step
    }

    fn inflate_into(&mut self, plain: &mut Vec<u8>, left: u64, fin: bool) -> io::Result<Step> {
        if left > 0 {
            let n = left.min(self.raw.len() as u64) as usize;
            if n == 0 {
                return Ok(Step::NeedMore);
            }
            let consumed = if self.stream_ended {
                n
            } else {
                plain.reserve_exact(FRAGMENT);
                let before = self.inflater.total_in();
                let status = self.decompress(n, plain)?;
                if status == Status::StreamEnd {
                    // The rest of this message follows a final block: skipped.
                    self.stream_ended = true;
                    n
                } else {
                    (self.inflater.total_in() - before) as usize
                }
            };
            if consumed == 0 && plain.is_empty() {
                return Err(invalid("the inflater took nothing and gave nothing".into()));
            }
            self.raw.advance(consumed);
            if !plain.is_empty() {
                self.fragment(plain.len(), false);
            }
            let left = left - consumed as u64;
            self.frame = match (left, fin) {
                (0, false) => Frame::Header,
                (left, fin) => Frame::Compressed { left, fin },
            };
            return Ok(Step::Progress);
        }
        if !fin {
            self.frame = Frame::Header;
            return Ok(Step::Progress);
        }
        // The message's end: the tail fed, then what the inflater still holds. Drained when a
        // call with all input fed leaves room in the output.
        if !self.stream_ended {
            plain.reserve_exact(FRAGMENT);
            let before = self.inflater.total_in();
            let status = self
                .inflater
                .decompress_vec(&TAIL[self.tail_fed..], plain, FlushDecompress::Sync)
                .map_err(|e| invalid(format!("a compressed message does not inflate: {e}")))?;
            self.tail_fed += (self.inflater.total_in() - before) as usize;
            self.stream_ended = status == Status::StreamEnd;
            if plain.len() == plain.capacity() || (self.tail_fed < TAIL.len() && !self.stream_ended)
            {
                if !plain.is_empty() {
                    self.fragment(plain.len(), false);
                }
                return Ok(Step::Progress);
            }
        }
        self.fragment(plain.len(), true);
        self.sizes.push_back(std::mem::take(&mut self.current));
        self.message = Message::None;
        self.frame = Frame::Header;
        self.tail_fed = 0;
        if self.agreed.server_no_context_takeover || self.stream_ended {
            self.inflater.reset(false);
            self.stream_ended = false;
        }
        Ok(Step::Progress)
    }

    /// Inflates up to `n` bytes of `raw` into `plain` (at most its spare capacity).
    fn decompress(&mut self, n: usize, plain: &mut Vec<u8>) -> io::Result<Status> {
        self.inflater
            .decompress_vec(&self.raw[..n], plain, FlushDecompress::Sync)
            .map_err(|e| invalid(format!("a compressed message does not inflate: {e}")))
    }

    /// Passes on the header of a fragment of the current compressed message whose `len`
    /// payload bytes are the step's `plain`.
    fn fragment(&mut self, len: usize, fin: bool) {
        let Message::Compressed { opcode, started } = &mut self.message else {
            unreachable!("a fragment outside a compressed message");
        };
        let op = if *started { 0 } else { *opcode };
        *started = true;
        self.out.reserve(10);
        self.out.put_u8(if fin { 0x80 } else { 0 } | op);
        match len {
            n @ 0..=125 => self.out.put_u8(n as u8),
            n @ 126..=0xffff => {
                self.out.put_u8(126);
                self.out.put_u16(n as u16);
            }
            n => {
                self.out.put_u8(127);
                self.out.put_u64(n as u64);
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Inflate<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let Some(state) = this.state.as_deref_mut() else {
            return Pin::new(&mut this.inner).poll_read(cx, buf);
        };
        loop {
            if !state.out.is_empty() {
                let n = state.out.len().min(buf.remaining());
                buf.put_slice(&state.out[..n]);
                state.out.advance(n);
                return Poll::Ready(Ok(()));
            }
            if let Some(plain) = state.plain.get(state.plain_at..).filter(|p| !p.is_empty()) {
                let n = plain.len().min(buf.remaining());
                buf.put_slice(&plain[..n]);
                state.plain_at += n;
                return Poll::Ready(Ok(()));
            }
            if let Step::Progress = state.step()? {
                continue;
            }
            if state.eof {
                // What is left is a truncated frame: passed on for tungstenite to report.
                let n = state.raw.len();
                if n == 0 {
                    return Poll::Ready(Ok(()));
                }
                state.pass(n);
                continue;
            }
            state.raw.reserve(READ);
            let spare = state.raw.spare_capacity_mut();
            let room = READ.min(spare.len());
            let mut read = ReadBuf::uninit(&mut spare[..room]);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {
                    let n = read.filled().len();
                    if n == 0 {
                        state.eof = true;
                    }
                    // SAFETY: `read` filled (initialised) the first `n` bytes of the spare
                    // capacity.
                    unsafe { state.raw.set_len(state.raw.len() + n) };
                }
            }
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Inflate<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::{Compress, Compression, FlushCompress};
    use futures::StreamExt;
    use tokio::io::AsyncWriteExt;
    use tokio_tungstenite::tungstenite::protocol::{Role, WebSocketConfig};
    use tokio_tungstenite::tungstenite::Message as Ws;
    use tokio_tungstenite::WebSocketStream;

    /// A server frame (never masked).
    fn frame(fin: bool, rsv1: bool, opcode: u8, payload: &[u8]) -> Vec<u8> {
        let first = u8::from(fin) << 7 | u8::from(rsv1) << 6 | opcode;
        graphbinary_testkit::fault_proxy::ws_frame_with(first, payload)
    }

    /// `data` compressed as a sender of permessage-deflate does: raw deflate, a sync flush,
    /// the tail stripped.
    fn compress(c: &mut Compress, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len() + 1024);
        let mut input = data;
        loop {
            let before = c.total_in();
            c.compress_vec(input, &mut out, FlushCompress::Sync)
                .unwrap();
            input = &input[(c.total_in() - before) as usize..];
            if input.is_empty() && out.len() < out.capacity() {
                break;
            }
            out.reserve(64 * 1024);
        }
        assert!(out.ends_with(&TAIL));
        out.truncate(out.len() - TAIL.len());
        out
    }

    /// Bytes that compress, but not to nothing: a counter's text.
    fn text(n: usize) -> Vec<u8> {
        (0..)
            .flat_map(|i: u32| format!("{i},").into_bytes())
            .take(n)
            .collect()
    }

    /// Reads the messages of `wire` (written in pieces of `piece` bytes) through an enabled
    /// [`Inflate`] and tungstenite.
    async fn read_all(
        wire: &[u8],
        piece: usize,
        agreed: Agreed,
        max: usize,
    ) -> Vec<Result<Ws, String>> {
        let (client, mut server) = tokio::io::duplex(4 << 20);
        let mut inflate = Inflate::new(client);
        inflate.enable(agreed);
        let mut config = WebSocketConfig::default();
        config.max_message_size = Some(max);
        let mut ws = WebSocketStream::from_raw_socket(inflate, Role::Client, Some(config)).await;
        let wire = wire.to_vec();
        let writer = tokio::spawn(async move {
            for chunk in wire.chunks(piece) {
                server.write_all(chunk).await.unwrap();
            }
            // Keeps the socket open until the reader has seen every message.
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        });
        let mut seen = Vec::new();
        while let Ok(Some(m)) =
            tokio::time::timeout(std::time::Duration::from_millis(500), ws.next()).await
        {
            let failed = m.is_err();
            seen.push(m.map_err(|e| e.to_string()));
            if failed {
                break;
            }
        }
        writer.abort();
        seen
    }

    const TAKEOVER: Agreed = Agreed {
        server_no_context_takeover: false,
    };

    #[tokio::test]
    async fn compressed_messages_come_out_whole_from_any_split_of_the_bytes() {
        let big = text(300_000);
        let small = b"{\"requestId\":1}".to_vec();
        let mut c = Compress::new(Compression::new(6), false);
        let mut wire = Vec::new();
        // A big message over three frames, a ping between two of them.
        let z = compress(&mut c, &big);
        let (a, rest) = z.split_at(z.len() / 3);
        let (b, d) = rest.split_at(rest.len() / 2);
        wire.extend(frame(false, true, 2, a));
        wire.extend(frame(true, false, 9, b"ping"));
        wire.extend(frame(false, false, 0, b));
        wire.extend(frame(true, false, 0, d));
        // An uncompressed message, then a fragmented uncompressed one, between compressed
        // ones (the window carries over: context takeover).
        wire.extend(frame(true, false, 2, b"plain"));
        wire.extend(frame(true, true, 1, &compress(&mut c, &small)));
        wire.extend(frame(false, false, 2, b"pl"));
        wire.extend(frame(true, false, 0, b"ain"));
        wire.extend(frame(true, true, 2, &compress(&mut c, &big)));
        wire.extend(frame(true, true, 2, &compress(&mut c, b"")));
        let expected = vec![
            Ws::Ping(b"ping".to_vec().into()),
            Ws::Binary(big.clone().into()),
            Ws::Binary(b"plain".to_vec().into()),
            Ws::Text(String::from_utf8(small.clone()).unwrap().into()),
            Ws::Binary(b"plain".to_vec().into()),
            Ws::Binary(big.clone().into()),
            Ws::Binary(Vec::new().into()),
        ];
        for piece in [1, 7, 4096, wire.len()] {
            let seen = read_all(&wire, piece, TAKEOVER, 64 << 20).await;
            let seen: Vec<Ws> = seen.into_iter().map(Result::unwrap).collect();
            assert_eq!(seen, expected, "in pieces of {piece}");
        }
    }

    #[tokio::test]
    async fn each_message_is_counted_at_its_size_on_the_wire() {
        let mut c = Compress::new(Compression::new(6), false);
        let z = compress(&mut c, &text(200_000));
        let (a, b) = z.split_at(z.len() / 2);
        let frames = [
            frame(false, true, 2, a),
            frame(true, false, 9, b"ping"),
            frame(true, false, 0, b),
            frame(true, false, 2, b"plain"),
            frame(false, false, 2, b"pl"),
            frame(true, false, 0, b"ain"),
        ];
        let expected = [
            frames[0].len() + frames[2].len(),
            frames[3].len(),
            frames[4].len() + frames[5].len(),
        ];
        let (client, mut server) = tokio::io::duplex(1 << 20);
        let mut inflate = Inflate::new(client);
        inflate.enable(TAKEOVER);
        let mut ws = WebSocketStream::from_raw_socket(inflate, Role::Client, None).await;
        server.write_all(&frames.concat()).await.unwrap();
        let mut sizes = Vec::new();
        while sizes.len() < expected.len() {
            if let Ws::Binary(_) = ws.next().await.unwrap().unwrap() {
                sizes.push(ws.get_mut().wire_size().unwrap() as usize);
            }
        }
        assert_eq!(sizes, expected);
        assert_eq!(ws.get_mut().wire_size(), None);
        assert!(expected[0] < 200_000 / 2, "{expected:?}");
    }

    #[tokio::test]
    async fn without_context_takeover_each_message_starts_afresh() {
        let agreed = Agreed {
            server_no_context_takeover: true,
        };
        let m = text(5_000);
        let mut wire = Vec::new();
        for _ in 0..3 {
            let mut c = Compress::new(Compression::new(6), false);
            wire.extend(frame(true, true, 2, &compress(&mut c, &m)));
        }
        let expected = vec![Ok(Ws::Binary(m.clone().into())); 3];
        assert!(read_all(&wire, 100, agreed, 1 << 20).await == expected);
        // Messages that refer back to the one before do not inflate where the window is
        // reset: the reset is real.
        let mut c = Compress::new(Compression::new(6), false);
        let kept: Vec<u8> = (0..3)
            .flat_map(|_| frame(true, true, 2, &compress(&mut c, &m)))
            .collect();
        assert!(read_all(&kept, 100, TAKEOVER, 1 << 20).await == expected);
        assert!(read_all(&kept, 100, agreed, 1 << 20).await != expected);
    }

    #[tokio::test]
    async fn a_final_block_ends_the_stream_and_the_next_message_starts_afresh() {
        let mut wire = Vec::new();
        for m in [&b"first"[..], b"second"] {
            let mut c = Compress::new(Compression::new(6), false);
            let mut z = Vec::with_capacity(64);
            c.compress_vec(m, &mut z, FlushCompress::Finish).unwrap();
            wire.extend(frame(true, true, 2, &z));
        }
        let seen = read_all(&wire, 3, TAKEOVER, 1 << 20).await;
        assert_eq!(
            seen,
            vec![
                Ok(Ws::Binary(b"first".to_vec().into())),
                Ok(Ws::Binary(b"second".to_vec().into()))
            ]
        );
    }

    #[tokio::test]
    async fn a_message_that_inflates_past_the_limit_is_refused_not_held() {
        // 64 MB of zeros compress to ~64 KB; the limit is 1 MB.
        let mut c = Compress::new(Compression::new(6), false);
        let wire = frame(true, true, 2, &compress(&mut c, &vec![0; 64 << 20]));
        assert!(wire.len() < 200_000, "{}", wire.len());
        let seen = read_all(&wire, 8192, TAKEOVER, 1 << 20).await;
        let last = seen.last().expect("an answer");
        let e = last.as_ref().expect_err("refused");
        assert!(
            e.contains("too long") || e.contains("Message too long"),
            "{e}"
        );
    }

    #[tokio::test]
    async fn bytes_that_do_not_inflate_are_an_error_naming_the_extension() {
        let wire = frame(true, true, 2, &[0xff; 40]);
        let seen = read_all(&wire, 40, TAKEOVER, 1 << 20).await;
        let e = seen
            .last()
            .expect("an answer")
            .as_ref()
            .expect_err("refused");
        assert!(e.contains("permessage-deflate"), "{e}");
    }

    #[test]
    fn the_answer_is_read_as_rfc_7692_says() {
        let yes = |server_no_context_takeover| {
            Ok(Some(Agreed {
                server_no_context_takeover,
            }))
        };
        assert_eq!(agreed([], true), Ok(None));
        assert_eq!(agreed(["permessage-deflate"], true), yes(false));
        assert_eq!(
            agreed(
                ["Permessage-Deflate; server_no_context_takeover; server_max_window_bits=10"],
                true
            ),
            yes(true)
        );
        assert_eq!(
            agreed(["permessage-deflate; client_max_window_bits=\"15\""], true),
            yes(false)
        );
        for (answer, offered, says) in [
            ("permessage-deflate", false, "not offered"),
            ("x-webkit-deflate-frame", true, "not offered"),
            (
                "permessage-deflate, permessage-deflate",
                true,
                "not offered",
            ),
            (
                "permessage-deflate; server_max_window_bits=16",
                true,
                "parameter",
            ),
            (
                "permessage-deflate; server_max_window_bits",
                true,
                "parameter",
            ),
            (
                "permessage-deflate; server_no_context_takeover=1",
                true,
                "parameter",
            ),
            ("permessage-deflate; mystery", true, "parameter"),
        ] {
            let e = agreed([answer], offered).unwrap_err();
            assert!(e.contains(says), "{answer}: {e}");
        }
    }
}
