//! The simulated WAN link (issue 43): a TCP proxy in user space (this kernel has no netem) in
//! front of a real server, modelling
//!
//! * a one-way **delay** on every byte, each direction: a byte read at `t` is written on at
//!   `t + delay` (a timed queue, so the delay costs no throughput);
//! * a **bandwidth** cap per direction: each chunk is serialized after the one before it, at
//!   `bits / rate` (what a queue in front of a slower wire does), then delayed;
//! * the **handshake**: a new connection's first byte leaves one round trip (`2 x delay`) late,
//!   the TCP handshake; one more when [`Spec::tls`] is set, for a plaintext target standing in
//!   for a TLS one (a real TLS server behind the link pays its handshake through the link).
//!
//! Written `--link 30ms,200mbit` ([`Spec::parse`]). Flow control is a bound on the bytes in the
//! link per direction (twice the bandwidth-delay product, at least 4 MiB), like a TCP window: a
//! sender faster than the cap is held back, not buffered without end.
//!
//! Timers: tokio's wheel rounds to whole milliseconds, too coarse for a 1 ms link, so the
//! deadlines are kept by one thread of the link's own that sleeps to the earliest ([`Clock`]),
//! spinning the last 300 us on links under 5 ms. On those the proxy's own hop (~50-100 us one
//! way here) is measured at start and counted as part of the delay ([`Running::own_cost`]).
//!
//! `cargo xtask link --listen ADDR --to ADDR --link SPEC` runs one standalone ([`cli`]);
//! [`spawn`] runs one inside a process (the bench's `wan` part), [`fidelity`] measures one.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, Semaphore};

/// One link's settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// One-way delay, each direction.
    pub delay: Duration,
    /// Bandwidth cap per direction, bits per second; `None`: no cap.
    pub bits_per_sec: Option<u64>,
    /// One more round trip before a new connection's first byte (a TLS handshake).
    pub tls: bool,
}

impl Spec {
    /// Parses `DELAY[,RATE][,tls]`: DELAY as `30ms`, `1ms`, `250us`, `0.5ms`, `1s` or `0`;
    /// RATE as `200mbit`, `1gbit`, `500kbit`, `1000000bit` or `none` (no cap, the default).
    pub fn parse(s: &str) -> Result<Spec> {
        let mut parts = s.split(',').map(str::trim);
        let first = parts.next().unwrap_or("");
        if first.is_empty() {
            bail!("a link is DELAY[,RATE][,tls], e.g. 30ms,200mbit or 1ms,none; got {s:?}");
        }
        let delay = parse_delay(first)?;
        let mut spec = Spec {
            delay,
            bits_per_sec: None,
            tls: false,
        };
        let mut rate_seen = false;
        for p in parts {
            if p == "tls" {
                if spec.tls {
                    bail!("`tls` given twice in link {s:?}");
                }
                spec.tls = true;
            } else if rate_seen || spec.tls {
                bail!("unexpected {p:?} in link {s:?}: DELAY[,RATE][,tls]");
            } else {
                spec.bits_per_sec = parse_rate(p)?;
                rate_seen = true;
            }
        }
        Ok(spec)
    }

    /// One round trip: twice the one-way delay.
    pub fn rtt(&self) -> Duration {
        self.delay * 2
    }

    /// How long `bytes` take through the cap (zero without one).
    pub fn serialization(&self, bytes: u64) -> Duration {
        match self.bits_per_sec {
            Some(r) => Duration::from_secs_f64(bytes as f64 * 8.0 / r as f64),
            None => Duration::ZERO,
        }
    }

    /// What the link alone costs: `round_trips` round trips plus `bytes` through the cap.
    pub fn floor(&self, round_trips: f64, bytes: u64) -> Duration {
        self.rtt().mul_f64(round_trips) + self.serialization(bytes)
    }

    /// The round trips before a new connection's first byte reaches the server's side.
    fn handshake(&self) -> Duration {
        self.rtt() * if self.tls { 2 } else { 1 }
    }

    /// The bytes allowed in the link per direction (its window).
    fn window(&self) -> usize {
        // Without a cap, a bandwidth-delay product at 10 Gbit/s.
        let rate = self.bits_per_sec.unwrap_or(10_000_000_000) as f64;
        let bdp = rate / 8.0 * self.delay.as_secs_f64();
        ((2.0 * bdp) as usize).clamp(4 << 20, 256 << 20)
    }

    /// The largest chunk read at once: about 1 ms of the cap (so that a chunk does not wait
    /// for a large one before it to be serialized whole), at most 64 KiB.
    fn chunk(&self) -> usize {
        match self.bits_per_sec {
            Some(r) => ((r / 8 / 1000) as usize).clamp(1500, 64 << 10),
            None => 64 << 10,
        }
    }
}

impl fmt::Display for Spec {
    /// The form [`Spec::parse`] reads, e.g. `30ms,200mbit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.delay.as_micros();
        if us.is_multiple_of(1000) {
            write!(f, "{}ms", us / 1000)?;
        } else {
            write!(f, "{us}us")?;
        }
        match self.bits_per_sec {
            None => write!(f, ",none")?,
            Some(r) if r.is_multiple_of(1_000_000_000) => write!(f, ",{}gbit", r / 1_000_000_000)?,
            Some(r) if r.is_multiple_of(1_000_000) => write!(f, ",{}mbit", r / 1_000_000)?,
            Some(r) if r.is_multiple_of(1_000) => write!(f, ",{}kbit", r / 1_000)?,
            Some(r) => write!(f, ",{r}bit")?,
        }
        if self.tls {
            write!(f, ",tls")?;
        }
        Ok(())
    }
}

fn parse_delay(s: &str) -> Result<Duration> {
    if s == "0" {
        return Ok(Duration::ZERO);
    }
    let (num, scale) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = s.strip_suffix("us") {
        (n, 1e-6)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1.0)
    } else {
        bail!("a delay needs a unit (us, ms or s), e.g. 30ms; got {s:?}");
    };
    let v: f64 = num
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0 && !num.starts_with('+'))
        .with_context(|| format!("a delay is a non-negative number and a unit, not {s:?}"))?;
    let secs = v * scale;
    if secs > 60.0 {
        bail!("a delay of {s:?} is more than 60 s");
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse_rate(s: &str) -> Result<Option<u64>> {
    if s == "none" {
        return Ok(None);
    }
    let lower = s.to_ascii_lowercase();
    let (num, scale) = [("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0)]
        .iter()
        .find_map(|(unit, scale)| lower.strip_suffix(unit).map(|n| (n, *scale)))
        .with_context(|| {
            format!("a bandwidth is a number and bit, kbit, mbit or gbit (per second), or none; got {s:?}")
        })?;
    let v: f64 = num
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0 && !num.starts_with('+'))
        .with_context(|| format!("a bandwidth is a positive number and a unit, not {s:?}"))?;
    let bits = v * scale;
    if !(1000.0..=1e12).contains(&bits) {
        bail!("a bandwidth of {s:?} is outside 1kbit..1000gbit");
    }
    Ok(Some(bits as u64))
}

// ---------------------------------------------------------------------------------------------
// The clock

/// How long before a deadline the clock of a short link stops sleeping and spins.
const SPIN: Duration = Duration::from_micros(300);

/// Links with a one-way delay under this spin ([`SPIN`]); for longer ones a timed wait's
/// ~100 us of lateness is under 1% and spinning would only take CPU from the server and the
/// clients.
const SPIN_BELOW: Duration = Duration::from_millis(5);

/// Deadlines kept to the microsecond by one thread: tokio's timer wheel rounds up to whole
/// milliseconds, which would make a 1 ms link a 1-2 ms one. On a short link it sleeps to
/// [`SPIN`] before a deadline and spins (yielding) the rest.
#[derive(Clone)]
struct Clock {
    inner: Arc<(Mutex<ClockState>, Condvar)>,
    /// How long before a deadline it spins (zero: it only sleeps).
    spin: Duration,
}

#[derive(Default)]
struct ClockState {
    heap: BinaryHeap<Reverse<Due>>,
    seq: u64,
    stopped: bool,
}

struct Due {
    at: Instant,
    seq: u64,
    tx: oneshot::Sender<()>,
}

impl PartialEq for Due {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Due {}
impl PartialOrd for Due {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Due {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

impl Clock {
    fn start(spin: Duration) -> Clock {
        let clock = Clock {
            inner: Arc::new((Mutex::new(ClockState::default()), Condvar::new())),
            spin,
        };
        let c = clock.clone();
        std::thread::Builder::new()
            .name("link-clock".into())
            .spawn(move || c.run())
            .expect("a thread for the link's clock");
        clock
    }

    fn run(&self) {
        let (lock, cv) = &*self.inner;
        let mut st = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if st.stopped {
                return;
            }
            let now = Instant::now();
            while st.heap.peek().is_some_and(|d| d.0.at <= now) {
                if let Some(Reverse(d)) = st.heap.pop() {
                    let _ = d.tx.send(());
                }
            }
            st = match st.heap.peek().map(|d| d.0.at) {
                None => cv.wait(st).unwrap_or_else(|e| e.into_inner()),
                // Far off: sleep to just before it (a timed wait wakes up to ~100 us late on a
                // busy machine, 20% of a 1 ms link's round trip)...
                Some(at) if at.saturating_duration_since(now) > self.spin => {
                    cv.wait_timeout(st, at.saturating_duration_since(now) - self.spin)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                // ...then spin the rest, yielding the core, the lock released so that a nearer
                // deadline can still come in.
                Some(_) => {
                    drop(st);
                    std::thread::yield_now();
                    lock.lock().unwrap_or_else(|e| e.into_inner())
                }
            };
        }
    }

    /// Waits until `at` (at once if it is past).
    async fn until(&self, at: Instant) {
        if at <= Instant::now() {
            return;
        }
        let (tx, rx) = oneshot::channel();
        {
            let (lock, cv) = &*self.inner;
            let mut st = lock.lock().unwrap_or_else(|e| e.into_inner());
            st.seq += 1;
            let seq = st.seq;
            let earliest = st.heap.peek().is_none_or(|d| at < d.0.at);
            st.heap.push(Reverse(Due { at, seq, tx }));
            if earliest {
                cv.notify_one();
            }
        }
        let _ = rx.await;
    }

    fn stop(&self) {
        let (lock, cv) = &*self.inner;
        lock.lock().unwrap_or_else(|e| e.into_inner()).stopped = true;
        cv.notify_one();
    }
}

// ---------------------------------------------------------------------------------------------
// The proxy

/// What went through a link, counted as it is read.
#[derive(Debug, Default)]
pub struct Counters {
    /// Bytes from the clients towards the server.
    pub up: AtomicU64,
    /// Bytes from the server towards the clients.
    pub down: AtomicU64,
    /// Connections accepted.
    pub connections: AtomicU64,
}

impl Counters {
    /// `(up, down, connections)` now.
    pub fn snapshot(&self) -> (u64, u64, u64) {
        (
            self.up.load(Ordering::Relaxed),
            self.down.load(Ordering::Relaxed),
            self.connections.load(Ordering::Relaxed),
        )
    }
}

/// Accepts on `listener` forever, each connection relayed to `to` through the link `spec`.
async fn serve(
    listener: TcpListener,
    to: SocketAddr,
    spec: Spec,
    counters: Arc<Counters>,
    clock: Clock,
    lead: Duration,
) {
    // The proxy's own hop is part of the delay (see `own_cost`).
    let hold = spec.delay.saturating_sub(lead);
    let handshake = spec.handshake().saturating_sub(2 * lead);
    loop {
        let (client, _) = match listener.accept().await {
            Ok(c) => c,
            Err(e) => {
                // Out of descriptors and the like: wait and go on.
                eprintln!("link: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        counters.connections.fetch_add(1, Ordering::Relaxed);
        let (counters, clock) = (counters.clone(), clock.clone());
        tokio::spawn(async move {
            let opened = Instant::now();
            let _ = client.set_nodelay(true);
            let server = match tokio::net::TcpStream::connect(to).await {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("link: cannot reach {to}: {e}");
                    return;
                }
            };
            let _ = server.set_nodelay(true);
            let (cr, cw) = client.into_split();
            let (sr, sw) = server.into_split();
            // The handshake: the client's first byte leaves a round trip (two with TLS) late.
            let up = pipe(
                cr,
                sw,
                (spec, hold),
                opened + handshake,
                &counters.up,
                clock.clone(),
            );
            let down = pipe(sr, cw, (spec, hold), opened, &counters.down, clock);
            tokio::join!(up, down);
        });
    }
}

enum Chunk {
    Data(Vec<u8>, Instant),
    Eof(Instant),
}

/// One direction: reads `r`, writes each chunk to `w` at its time (`hold` after it is read
/// and serialized), until either side ends.
async fn pipe(
    mut r: tokio::net::tcp::OwnedReadHalf,
    mut w: tokio::net::tcp::OwnedWriteHalf,
    (spec, hold): (Spec, Duration),
    not_before: Instant,
    count: &AtomicU64,
    clock: Clock,
) {
    let window = spec.window();
    let credit = Arc::new(Semaphore::new(window));
    let (tx, mut rx) = mpsc::unbounded_channel::<(Chunk, usize)>();
    let writer = {
        let (credit, clock) = (credit.clone(), clock.clone());
        async move {
            while let Some((chunk, n)) = rx.recv().await {
                match chunk {
                    Chunk::Data(buf, at) => {
                        clock.until(at).await;
                        let ok = w.write_all(&buf).await.is_ok();
                        credit.add_permits(n);
                        if !ok {
                            break;
                        }
                    }
                    Chunk::Eof(at) => {
                        clock.until(at).await;
                        let _ = w.shutdown().await;
                        break;
                    }
                }
            }
            // A writer that failed makes the reader's sends fail: it ends too.
            drop(rx);
            credit.close();
        }
    };
    let reader = async move {
        let chunk = spec.chunk();
        // When the wire is next free (the cap serializes chunks one after another).
        let mut free = not_before;
        loop {
            let Ok(permit) = credit.acquire_many(chunk as u32).await else {
                return;
            };
            let mut buf = vec![0u8; chunk];
            let n = match r.read(&mut buf).await {
                Ok(0) | Err(_) => {
                    drop(permit);
                    let at = Instant::now().max(free) + hold;
                    let _ = tx.send((Chunk::Eof(at), 0));
                    return;
                }
                Ok(n) => n,
            };
            // Keep the credit of the bytes read until they are written; give back the rest.
            permit.forget();
            credit.add_permits(chunk - n);
            buf.truncate(n);
            count.fetch_add(n as u64, Ordering::Relaxed);
            let start = Instant::now().max(free);
            free = start + spec.serialization(n as u64);
            if tx.send((Chunk::Data(buf, free + hold), n)).is_err() {
                return;
            }
        }
    };
    tokio::join!(writer, reader);
}

/// A link running on threads of its own; stopped when dropped.
pub struct Running {
    addr: SocketAddr,
    spec: Spec,
    counters: Arc<Counters>,
    clock: Clock,
    lead: Duration,
    runtime: Option<tokio::runtime::Runtime>,
}

impl Running {
    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its settings.
    pub fn spec(&self) -> Spec {
        self.spec
    }

    /// What the proxy's own hop was measured to cost one way at start, held back from the
    /// delay so that a byte's whole trip takes the delay (zero on links of 5 ms and more).
    pub fn own_cost(&self) -> Duration {
        self.lead
    }

    /// What went through it so far.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
        self.clock.stop();
    }
}

/// Starts a link listening on `listen` (port 0: any free one) relaying to `to`.
pub fn spawn(listen: &str, to: &str, spec: Spec) -> Result<Running> {
    let to = resolve(to)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("link")
        .enable_all()
        .build()
        .context("starting the link's runtime")?;
    let listener = runtime
        .block_on(TcpListener::bind(listen))
        .with_context(|| format!("the link cannot listen on {listen}"))?;
    let addr = listener.local_addr()?;
    let counters = Arc::new(Counters::default());
    let clock = Clock::start(if spec.delay < SPIN_BELOW {
        SPIN
    } else {
        Duration::ZERO
    });
    // On a short link the proxy's own hop is a measurable part of the delay: held back from it.
    let lead = if spec.delay < SPIN_BELOW {
        own_cost(&runtime, &clock, spec.delay)?.min(spec.delay / 2)
    } else {
        Duration::ZERO
    };
    runtime.spawn(serve(
        listener,
        to,
        spec,
        counters.clone(),
        clock.clone(),
        lead,
    ));
    Ok(Running {
        addr,
        spec,
        counters,
        clock,
        lead,
        runtime: Some(runtime),
    })
}

/// What relaying through this proxy costs one way on this machine beyond the direct path and
/// the `delay` (its extra socket hop, the clock's and the runtime's wake-ups: ~100 us on a busy
/// 2-core VM, 10% of a 1 ms link): half of what the median round trip of one byte through a
/// link of `delay` (nothing held back) takes beyond two delays and the round trip straight to
/// an echo server; measured once, in ~60 round trips.
fn own_cost(runtime: &tokio::runtime::Runtime, clock: &Clock, delay: Duration) -> Result<Duration> {
    const PINGS: usize = 60;
    let echo = std::net::TcpListener::bind("127.0.0.1:0")?;
    let echo_addr = echo.local_addr()?;
    // Two connections (straight, then through the link), each echoed until it closes.
    std::thread::spawn(move || {
        for conn in echo.incoming().take(2) {
            let Ok(mut conn) = conn else { return };
            let _ = conn.set_nodelay(true);
            let mut b = [0u8; 1];
            while conn.read_exact(&mut b).is_ok() && conn.write_all(&b).is_ok() {}
        }
    });
    let median_rtt = |addr: SocketAddr| -> Result<Duration> {
        let mut c = TcpStream::connect(addr)?;
        c.set_nodelay(true)?;
        let mut b = [b'e'];
        let mut rtts = Vec::with_capacity(PINGS);
        for i in 0..=PINGS {
            let t = Instant::now();
            c.write_all(&b)?;
            c.read_exact(&mut b)?;
            if i > 0 {
                rtts.push(t.elapsed());
            }
        }
        rtts.sort();
        Ok(rtts[PINGS / 2])
    };
    let direct = median_rtt(echo_addr)?;
    let listener = runtime.block_on(TcpListener::bind("127.0.0.1:0"))?;
    let via = listener.local_addr()?;
    let plain = Spec {
        delay,
        bits_per_sec: None,
        tls: false,
    };
    let task = runtime.spawn(serve(
        listener,
        echo_addr,
        plain,
        Arc::default(),
        clock.clone(),
        Duration::ZERO,
    ));
    let through = median_rtt(via);
    task.abort();
    Ok(through?.saturating_sub(2 * delay + direct) / 2)
}

fn resolve(to: &str) -> Result<SocketAddr> {
    to.to_socket_addrs()
        .with_context(|| format!("{to:?} is no HOST:PORT"))?
        .next()
        .with_context(|| format!("{to:?} resolves to no address"))
}

// ---------------------------------------------------------------------------------------------
// Fidelity

/// A link measured against its own settings, through an echo server of its own.
#[derive(Clone, Copy, Debug)]
pub struct Fidelity {
    pub spec: Spec,
    /// Median of the round trips of one byte on an open connection.
    pub rtt: Duration,
    /// A new connection: connect, then one byte there and back (expected: 2 round trips).
    pub first_byte: Duration,
    /// `bulk_bytes` asked for with one byte: from the ask to the last byte received.
    pub bulk: Duration,
    pub bulk_bytes: u64,
}

impl Fidelity {
    /// The expected round trip.
    pub fn expected_rtt(&self) -> Duration {
        self.spec.rtt()
    }

    /// The expected first byte on a new connection.
    pub fn expected_first_byte(&self) -> Duration {
        self.spec.rtt() + self.spec.handshake()
    }

    /// The expected bulk transfer: one round trip and the bytes through the cap.
    pub fn expected_bulk(&self) -> Duration {
        self.spec.floor(1.0, self.bulk_bytes)
    }

    /// Each measured figure within `tolerance` (0.1: 10%) of its expected one. Without a cap
    /// the bulk transfer is left out: it measures how fast this machine copies, not the link.
    pub fn within(&self, tolerance: f64) -> bool {
        let near = |m: Duration, e: Duration| {
            (m.as_secs_f64() - e.as_secs_f64()).abs() <= tolerance * e.as_secs_f64()
        };
        near(self.rtt, self.expected_rtt())
            && near(self.first_byte, self.expected_first_byte())
            && (self.spec.bits_per_sec.is_none() || near(self.bulk, self.expected_bulk()))
    }
}

impl fmt::Display for Fidelity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        write!(
            f,
            "link {}: round trip {:.2} ms (expected {:.2}), new connection's first byte back \
             {:.2} ms (expected {:.2}), {:.1} MB in {:.1} ms (expected {:.1})",
            self.spec,
            ms(self.rtt),
            ms(self.expected_rtt()),
            ms(self.first_byte),
            ms(self.expected_first_byte()),
            self.bulk_bytes as f64 / 1e6,
            ms(self.bulk),
            ms(self.expected_bulk()),
        )
    }
}

/// The libtest filter of this crate's fidelity tests: `cargo xtask ci` skips them in its test
/// steps and runs them alone afterwards, when no server or build competes for the cores.
pub const FIDELITY_TESTS: &str = "link::tests::fidelity::";

/// Measures a link of `spec` in front of an echo server of this function's own (threads and
/// blocking sockets): the round trip of one byte (median of `pings`), a new connection's first
/// byte, and `bulk_bytes` sent back for one byte asked.
pub fn fidelity(spec: Spec, pings: usize, bulk_bytes: u64) -> Result<Fidelity> {
    // The echo server: a byte `b'e'` is echoed; `b'b'` is answered by `bulk_bytes` bytes.
    let server = std::net::TcpListener::bind("127.0.0.1:0")?;
    let server_addr = server.local_addr()?;
    std::thread::spawn(move || {
        for conn in server.incoming() {
            let Ok(mut conn) = conn else { return };
            std::thread::spawn(move || {
                let _ = conn.set_nodelay(true);
                let mut b = [0u8; 1];
                let block = vec![0x5a_u8; 64 << 10];
                while conn.read_exact(&mut b).is_ok() {
                    let ok = match b[0] {
                        b'b' => {
                            let mut left = bulk_bytes;
                            let mut ok = true;
                            while left > 0 && ok {
                                let n = left.min(block.len() as u64) as usize;
                                ok = conn.write_all(&block[..n]).is_ok();
                                left -= n as u64;
                            }
                            ok
                        }
                        _ => conn.write_all(&b).is_ok(),
                    };
                    if !ok {
                        return;
                    }
                }
            });
        }
    });
    let link = spawn("127.0.0.1:0", &server_addr.to_string(), spec)?;

    // A new connection's first byte back, median of 3 connections.
    let mut firsts = Vec::new();
    let mut b = [b'e'];
    for _ in 0..3 {
        let started = Instant::now();
        let mut c = TcpStream::connect(link.addr())?;
        c.set_nodelay(true)?;
        c.write_all(&b)?;
        c.read_exact(&mut b)?;
        firsts.push(started.elapsed());
    }
    firsts.sort();
    let first_byte = firsts[1];

    let mut c = TcpStream::connect(link.addr())?;
    c.set_nodelay(true)?;

    let mut rtts = Vec::with_capacity(pings);
    for _ in 0..pings.max(1) {
        let t = Instant::now();
        c.write_all(b"e")?;
        c.read_exact(&mut b)?;
        rtts.push(t.elapsed());
    }
    rtts.sort();
    let rtt = rtts[rtts.len() / 2];

    let t = Instant::now();
    c.write_all(b"b")?;
    let mut left = bulk_bytes;
    let mut buf = vec![0u8; 256 << 10];
    while left > 0 {
        let n = c.read(&mut buf[..left.min(256 << 10) as usize])?;
        if n == 0 {
            bail!("the link closed with {left} bytes of the bulk transfer to come");
        }
        left -= n as u64;
    }
    let bulk = t.elapsed();
    Ok(Fidelity {
        spec,
        rtt,
        first_byte,
        bulk,
        bulk_bytes,
    })
}

// ---------------------------------------------------------------------------------------------
// The command

const HELP: &str =
    "usage: cargo xtask link --listen HOST:PORT --to HOST:PORT --link DELAY[,RATE][,tls]
                        [--check]

A TCP proxy simulating a WAN link in user space: every byte delayed by DELAY each way, at most
RATE each way, and a new connection's first byte one round trip late (two with `tls`, for a
plaintext target standing in for a TLS one).

  --link 30ms,200mbit   cross-region; `1ms,none`: same region. DELAY: 250us, 1ms, 0.5ms, 1s;
                        RATE: 500kbit, 200mbit, 1gbit, or none (no cap)
  --check               measure the link against its settings first (an echo server of its
                        own: round trip, a new connection, 20 MB) and say whether it is within 10%";

/// `cargo xtask link ...`: runs a link until interrupted.
pub fn cli(args: &[String]) -> Result<()> {
    let (mut listen, mut to, mut spec, mut check) = (None, None, None, false);
    let mut a = crate::args::Args::new(args, HELP);
    while let Some(arg) = a.next() {
        match arg {
            "--listen" => listen = Some(a.value(arg)?.to_string()),
            "--to" => to = Some(a.value(arg)?.to_string()),
            "--link" => spec = Some(Spec::parse(a.value(arg)?)?),
            "--check" => check = true,
            other => return Err(a.unknown(other)),
        }
    }
    if a.helped() {
        return Ok(());
    }
    let (Some(listen), Some(to), Some(spec)) = (listen, to, spec) else {
        bail!("--listen, --to and --link are all needed\n\n{HELP}");
    };
    if check {
        let f = fidelity(spec, 20, 20_000_000)?;
        println!(
            "{f}: {}",
            if f.within(0.1) {
                "within 10%"
            } else {
                "NOT within 10%"
            }
        );
    }
    let link = spawn(&listen, &to, spec)?;
    println!("link {spec}: {} -> {to} (Ctrl-C stops it)", link.addr());
    let (tx, rx) = std::sync::mpsc::channel();
    ctrlc::set_handler(move || {
        let _ = tx.send(());
    })
    .context("setting the Ctrl-C handler")?;
    let _ = rx.recv();
    let (up, down, conns) = link.counters().snapshot();
    println!("link: {conns} connection(s), {up} bytes up, {down} bytes down");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_print_back() {
        let s = Spec::parse("30ms,200mbit").unwrap();
        assert_eq!(s.delay, Duration::from_millis(30));
        assert_eq!(s.bits_per_sec, Some(200_000_000));
        assert!(!s.tls);
        assert_eq!(s.to_string(), "30ms,200mbit");
        for (text, delay_us, rate) in [
            ("1ms,none", 1000, None),
            ("1ms", 1000, None),
            ("250us,1gbit", 250, Some(1_000_000_000)),
            ("0.5ms,500kbit", 500, Some(500_000)),
            ("0,10Mbit", 0, Some(10_000_000)),
            ("1s,1000000bit", 1_000_000, Some(1_000_000)),
        ] {
            let s = Spec::parse(text).unwrap();
            assert_eq!(
                (s.delay.as_micros() as u64, s.bits_per_sec),
                (delay_us, rate),
                "{text}"
            );
            assert_eq!(Spec::parse(&s.to_string()).unwrap(), s, "{text}");
        }
        let t = Spec::parse("30ms,200mbit,tls").unwrap();
        assert!(t.tls);
        assert_eq!(t.to_string(), "30ms,200mbit,tls");
        assert!(Spec::parse("30ms,tls").unwrap().tls);
    }

    #[test]
    fn bad_specs_are_clear_errors() {
        for (text, says) in [
            ("", "DELAY[,RATE]"),
            ("30", "needs a unit"),
            ("30xs", "non-negative number"),
            ("-1ms", "non-negative number"),
            ("NaNms", "non-negative number"),
            ("61s", "more than 60 s"),
            ("30ms,200", "kbit, mbit or gbit"),
            ("30ms,0mbit", "positive number"),
            ("30ms,2tbit", "positive number"),
            ("30ms,-5mbit", "positive number"),
            ("30ms,1bit", "outside"),
            ("30ms,200mbit,1gbit", "unexpected"),
            ("30ms,tls,tls", "twice"),
            ("30ms,tls,200mbit", "unexpected"),
        ] {
            let e = format!("{:#}", Spec::parse(text).unwrap_err());
            assert!(e.contains(says), "{text:?}: {e}");
        }
    }

    #[test]
    fn the_floor_is_round_trips_and_bytes_over_the_cap() {
        let s = Spec::parse("30ms,200mbit").unwrap();
        // 25 MB at 200 Mbit/s: 1 s, plus 2 round trips of 60 ms.
        assert_eq!(s.floor(2.0, 25_000_000), Duration::from_millis(1120));
        assert_eq!(
            Spec::parse("1ms,none").unwrap().floor(1.0, 1 << 30),
            Duration::from_millis(2)
        );
    }

    /// The link's fidelity (issue 43), measured by `cargo xtask ci` in a step of its own on an
    /// otherwise idle machine (its test steps skip this module, [`FIDELITY_TESTS`]): the
    /// link's threads keep to their delays only when a core is free for them (a 1 ms link's
    /// round trip measured 3.0-4.4 ms while CI's test step ran beside jar downloads, 2.02 ms
    /// in the quiet bench run).
    mod fidelity {
        use super::super::*;

        /// One measurement at a time: a link moving 20 MB keeps both cores busy.
        static ONE_LINK: std::sync::Mutex<()> = std::sync::Mutex::new(());

        /// `spec`'s fidelity within 10%, at best of 3 measurements.
        fn keeps_to(spec: &str, pings: usize) {
            let _one = ONE_LINK.lock().unwrap_or_else(|e| e.into_inner());
            let mut seen = Vec::new();
            for _ in 0..3 {
                let f = fidelity(Spec::parse(spec).unwrap(), pings, 20_000_000).unwrap();
                eprintln!("{f}");
                if f.within(0.1) {
                    return;
                }
                seen.push(f.to_string());
            }
            panic!("not within 10% in 3 measurements: {seen:?}");
        }

        /// At the cross-region setting a round trip, a new connection and 20 MB are each
        /// within 10% of what the settings say.
        #[test]
        fn a_cross_region_link_keeps_to_its_settings_within_10_percent() {
            keeps_to("30ms,200mbit", 10);
        }

        /// The same at the same-region setting (1 ms, no cap: only the delays; a round trip
        /// is 2 ms, 10% of it is 200 us, finer than tokio's timer), and with a TLS handshake.
        #[test]
        fn a_same_region_link_and_a_tls_handshake_keep_to_their_settings() {
            keeps_to("1ms,none", 20);
            keeps_to("20ms,1gbit,tls", 5);
        }
    }
}
