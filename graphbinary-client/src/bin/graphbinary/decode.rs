//! `graphbinary decode`: decode GraphBinary 4 (or 1) from a file or stdin.
//!
//! ```text
//! graphbinary decode [--value] [--graphbinary-version 1|4]
//!                    [--format text|graphson|graphbinary|count|count-values]
//!                    [--chunk-size N] [FILE|-]
//! ```
//!
//! Input is a whole GraphBinary 4 response, or with `--value` a single fully-qualified value.
//! With `--graphbinary-version 1` (TinkerPop 3.x) it is one GraphBinary 1 response message (one
//! WebSocket message's payload: `{0x81}{request id}{status}...{result data}`; its results are
//! the items of the result List, a Traverser giving its bulk), or with `--value` one value; the
//! custom types of `CustomTypes::janusgraph()` are read, and `--format graphbinary` writes
//! GraphBinary 1. A GraphBinary 1 status other than 200, 204 and 206 exits with 2 as below.
//! Output, one result per line (a bulked result once per bulk; a bulk above
//! `MAX_BULK_EXPANSION` is printed once with its bulk instead):
//! `text` in the Gremlin Console's style, `graphson` one GraphSON 4 document per line (GraphSON 3
//! with `--graphbinary-version 1`: with `--value` each merged type as the type it was read from,
//! `g:Date`, `g:Traverser`, ...; a response's results with `graphbinary_client::format::graphson::to_graphson3`'s defaults),
//! `graphbinary` each result re-encoded fully-qualified (raw bytes), `count` the number of
//! results (stepping over each without building it), `count-values` the same number with each
//! result decoded into a `Value` first (the route `text` and `graphson` take, without their
//! printing: for measuring the decoder).
//!
//! Input is read by plain blocking reads on the decoding thread (the decoder has nothing else
//! to wait for), so a whole-process timing of `decode --format count FILE` measures the
//! decoder, not a runtime's file I/O. `--chunk-size N` reads the input in 256 KiB blocks and
//! feeds the decoder at most N bytes per read, each ready at once (so timing it measures the
//! decoder's refill path; memory stays bounded whatever the input's size).
//!
//! Exit status: 0 success; 1 malformed input (one line on stderr naming the byte offset and
//! what was expected) or an I/O error; 2 the response's status is not 200 (results printed
//! first, then code, message and exception on stderr).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::ValueEnum;
use futures::StreamExt;
use graphbinary_client::client::{decode_graphbinary1_response, Error};
use graphbinary_client::format::graphbinary1::{self as v1, CustomTypes};
use graphbinary_client::format::graphson::{write_graphson, write_graphson_traverser};
use graphbinary_client::format::text::one_line;
use graphbinary_client::format::text::MAX_BULK_EXPANSION;
use graphbinary_client::response::{read_response, ReadOptions, ResponseError};
use graphbinary_client::value::Value;
use graphbinary_core::{Encode, Fq, FqEncode, ReadBuffer};
use tokio::io::AsyncRead;

/// Arguments of `graphbinary decode`.
#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    /// The input is one fully-qualified value, not a whole response.
    #[arg(long)]
    value: bool,
    /// The GraphBinary version: 4 (TinkerPop 4, the default) or 1 (TinkerPop 3.x).
    #[arg(long, value_name = "1|4", default_value_t = 4, value_parser = parse_version)]
    graphbinary_version: u8,
    /// How to print each result.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Feed the decoder at most N bytes per read (the input is read in 256 KiB blocks).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    chunk_size: Option<u32>,
    /// Input file; `-` or nothing for stdin.
    file: Option<PathBuf>,
}

fn parse_version(s: &str) -> Result<u8, String> {
    match s {
        "1" => Ok(1),
        "4" => Ok(4),
        other => Err(format!("{other:?}: expected 1 or 4")),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// One line per result, as the Gremlin Console prints it.
    Text,
    /// One GraphSON 4 document per line (GraphSON 3 with `--graphbinary-version 1`).
    Graphson,
    /// Each result re-encoded as fully-qualified GraphBinary, back to back.
    Graphbinary,
    /// The number of results, stepping over each without building it.
    Count,
    /// The number of results, each decoded into a `Value` first (for measuring the decoder).
    CountValues,
}

/// What went wrong, mapped to the exit status.
enum Failure {
    /// Malformed input or I/O: exit 1.
    Input(String),
    /// The server's status was not 200: exit 2.
    Status(graphbinary_client::response::ServerError),
    /// A GraphBinary 1 response's status was an error: exit 2.
    Status1 { code: i32, message: Option<String> },
}

type Input = Box<dyn AsyncRead + Unpin + Send>;

struct Printer<W: Write> {
    out: W,
    format: Format,
    /// GraphBinary 1: `--format graphbinary` writes version 1 with these custom types.
    v1: Option<CustomTypes>,
    count: u128,
    line: String,
    bytes: Vec<u8>,
}

impl<W: Write> Printer<W> {
    /// Prints a result `bulk` times, or once with its bulk when the bulk is above
    /// [`MAX_BULK_EXPANSION`].
    fn print(&mut self, v: &Value, bulk: i64) -> std::io::Result<()> {
        let times = bulk.max(0) as u64;
        let expand = times <= MAX_BULK_EXPANSION;
        self.line.clear();
        self.bytes.clear();
        match self.format {
            Format::Count | Format::CountValues => {
                self.count += u128::from(times);
                return Ok(());
            }
            Format::Text => {
                use std::fmt::Write as _;
                let _ = write!(self.line, "{v}");
                if !expand {
                    let _ = write!(self.line, " (bulk {bulk})");
                }
                self.line.push('\n');
            }
            Format::Graphson if expand => {
                if self.v1.is_some() {
                    graphbinary_client::format::graphson::write_graphson3(&mut self.line, v);
                } else {
                    write_graphson(&mut self.line, v);
                }
                self.line.push('\n');
            }
            Format::Graphson if self.v1.is_some() => {
                // GraphSON 3's g:Traverser, as for a Traverser read from the wire.
                let traverser = v1::traverser(bulk, v.clone());
                graphbinary_client::format::graphson::write_graphson3(&mut self.line, &traverser);
                self.line.push('\n');
            }
            Format::Graphson => {
                write_graphson_traverser(&mut self.line, v, bulk);
                self.line.push('\n');
            }
            Format::Graphbinary => {
                match &self.v1 {
                    Some(custom) => v1::encode_value_with(v, &mut self.bytes, custom),
                    None => v.encode_fq(&mut self.bytes),
                }
                .map_err(|e| std::io::Error::other(e.to_string()))?;
                if !expand {
                    // The value once, then its bulk as a fully-qualified Long (the wire form).
                    Fq(bulk)
                        .encode(&mut self.bytes)
                        .map_err(|e| std::io::Error::other(e.to_string()))?;
                }
            }
        }
        let data = if self.format == Format::Graphbinary {
            &self.bytes[..]
        } else {
            self.line.as_bytes()
        };
        for _ in 0..if expand { times } else { 1 } {
            self.out.write_all(data)?;
        }
        Ok(())
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if matches!(self.format, Format::Count | Format::CountValues) {
            writeln!(self.out, "{}", self.count)?;
        }
        self.out.flush()
    }
}

fn open(args: &DecodeArgs) -> Result<Input, Failure> {
    let source: Box<dyn std::io::Read + Send> = match &args.file {
        Some(p) if p.as_os_str() != "-" => Box::new(
            std::fs::File::open(p)
                .map_err(|e| Failure::Input(format!("cannot open {}: {e}", p.display())))?,
        ),
        _ => Box::new(std::io::stdin()),
    };
    Ok(match args.chunk_size {
        // Read in large blocks, handed to the decoder N bytes at a time: what is measured is
        // the decoder's refill path, not the file system's reads.
        Some(n) => Box::new(Pieces {
            inner: source,
            block: vec![0; STAGING].into_boxed_slice(),
            at: 0,
            end: 0,
            n: n as usize,
        }),
        None => Box::new(Blocking(source)),
    })
}

/// A blocking reader as an [`AsyncRead`]: each read is one plain `read(2)` on the decoding
/// thread, straight into the read buffer, ready at once. The decoder has nothing else to do
/// while it waits, so the round trip to tokio's blocking thread pool that every read of a
/// `tokio::fs::File` or `tokio::io::stdin()` costs buys nothing here.
struct Blocking<R>(R);

/// Blocking reads, retried when interrupted by a signal.
fn read_blocking(r: &mut impl std::io::Read, into: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match r.read(into) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

impl<R: std::io::Read + Unpin> tokio::io::AsyncRead for Blocking<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let n = read_blocking(&mut self.0, buf.initialize_unfilled());
        std::task::Poll::Ready(n.map(|n| buf.advance(n)))
    }
}

/// The block `--chunk-size` reads the input in.
const STAGING: usize = 256 << 10;

/// `--chunk-size N`: the input read by blocking reads in blocks of [`STAGING`] bytes, and
/// handed to the decoder at most `n` bytes per read, each read ready at once.
struct Pieces<R> {
    inner: R,
    block: Box<[u8]>,
    at: usize,
    end: usize,
    n: usize,
}

impl<R: std::io::Read + Unpin> tokio::io::AsyncRead for Pieces<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = &mut *self;
        if this.at == this.end {
            match read_blocking(&mut this.inner, &mut this.block) {
                Ok(n) => (this.at, this.end) = (0, n),
                Err(e) => return std::task::Poll::Ready(Err(e)),
            }
        }
        let len = (this.end - this.at).min(this.n).min(buf.remaining());
        buf.put_slice(&this.block[this.at..this.at + len]);
        this.at += len;
        std::task::Poll::Ready(Ok(()))
    }
}

fn io_failure(e: std::io::Error) -> Failure {
    Failure::Input(format!("cannot write output: {e}"))
}

async fn decode(args: DecodeArgs) -> Result<(), Failure> {
    let input = open(&args)?;
    let stdout = std::io::stdout();
    let mut printer = Printer {
        out: std::io::BufWriter::new(stdout.lock()),
        format: args.format,
        v1: (args.graphbinary_version == 1).then(CustomTypes::janusgraph),
        count: 0,
        line: String::new(),
        bytes: Vec::new(),
    };
    let opts = ReadOptions::default();
    let result = if args.graphbinary_version == 1 {
        decode_v1(&args, input, &opts, &mut printer).await
    } else if args.value {
        let mut buf = ReadBuffer::with_capacity(opts.capacity, input).with_limits(opts.limits);
        let v = graphbinary_client::response::read_value(&mut buf)
            .await
            .map_err(|e| {
                Failure::Input(format!("malformed GraphBinary value: {}", one_line(&e)))
            })?;
        expect_end(&mut buf, "GraphBinary").await?;
        printer.print(&v, 1).map_err(io_failure)?;
        Ok(())
    } else if args.format == Format::Count {
        // Counting steps over each result without building it.
        let mut results = read_response(input, opts);
        let count = &mut printer.count;
        let r = results
            .for_each_skipped(|bulk| *count += u128::from(bulk.max(0) as u64))
            .await;
        response_failure(r)
    } else if args.format == Format::CountValues {
        // Every result built as a `Value` (and dropped), in one synchronous loop per refill.
        let mut results = read_response(input, opts);
        let count = &mut printer.count;
        let r = results
            .for_each_result(|t| {
                *count += u128::from(t.bulk.max(0) as u64);
                drop(t.value);
            })
            .await;
        response_failure(r)
    } else {
        let mut results = read_response(input, opts);
        let mut outcome = Ok(());
        while let Some(r) = results.next().await {
            match r {
                Ok(t) => printer.print(&t.value, t.bulk).map_err(io_failure)?,
                Err(ResponseError::Server(se)) => outcome = Err(Failure::Status(*se)),
                Err(e @ ResponseError::Decode(_)) => outcome = Err(Failure::Input(one_line(&e))),
            }
        }
        outcome
    };
    // Print what was decoded before reporting a failure.
    printer.finish().map_err(io_failure)?;
    result
}

/// What a whole response's outcome means for the command: a server error is its status, a
/// decoding error malformed input.
fn response_failure(r: Result<(), ResponseError>) -> Result<(), Failure> {
    match r {
        Ok(()) => Ok(()),
        Err(ResponseError::Server(se)) => Err(Failure::Status(*se)),
        Err(e @ ResponseError::Decode(_)) => Err(Failure::Input(one_line(&e))),
    }
}

/// After `--value`'s one value: the input must end there (`what`: the format, for the error).
async fn expect_end(buf: &mut ReadBuffer<Input>, what: &str) -> Result<(), Failure> {
    match buf.is_at_end().await {
        Ok(true) => Ok(()),
        Ok(false) => Err(Failure::Input(format!(
            "malformed {what} value: at byte {}: expected the end of input after the value",
            buf.offset()
        ))),
        Err(e) => Err(Failure::Input(format!(
            "malformed {what} value: {}",
            one_line(&e)
        ))),
    }
}

/// `--graphbinary-version 1`: one value (refilling, with the slow path for values larger than
/// the buffer), or one whole response message.
async fn decode_v1<W: Write>(
    args: &DecodeArgs,
    mut input: Input,
    opts: &ReadOptions,
    printer: &mut Printer<W>,
) -> Result<(), Failure> {
    let custom = CustomTypes::janusgraph();
    if args.value {
        let mut buf = ReadBuffer::with_capacity(opts.capacity, input).with_limits(opts.limits);
        let v = v1::read_value_with(&mut buf, &custom).await.map_err(|e| {
            Failure::Input(format!("malformed GraphBinary 1 value: {}", one_line(&e)))
        })?;
        expect_end(&mut buf, "GraphBinary 1").await?;
        return printer.print(&v, 1).map_err(io_failure);
    }
    // A response message is one WebSocket message: whole in memory, as the transport has it.
    let mut bytes = Vec::new();
    tokio::io::AsyncReadExt::read_to_end(&mut input, &mut bytes)
        .await
        .map_err(|e| Failure::Input(format!("cannot read input: {e}")))?;
    let results =
        decode_graphbinary1_response(&bytes, &opts.limits, &custom).map_err(|e| match e {
            Error::Server(se) => Failure::Status1 {
                code: se.code,
                message: se.message,
            },
            // The decoder's error (with its offset), not the client's wording around it.
            Error::Decode(d) => Failure::Input(format!(
                "malformed GraphBinary 1 response: {}",
                one_line(&d)
            )),
            other => Failure::Input(format!(
                "malformed GraphBinary 1 response: {}",
                one_line(&other)
            )),
        })?;
    for (v, bulk) in results {
        printer.print(&v, bulk).map_err(io_failure)?;
    }
    Ok(())
}

pub fn run(args: DecodeArgs) -> ExitCode {
    // Input needs no I/O or time driver (see `Blocking`): a bare current-thread runtime.
    let rt = match tokio::runtime::Builder::new_current_thread().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("graphbinary: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(decode(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(msg)) => {
            // Broken pipe on stdout (e.g. `| head`) is not an error of ours.
            if msg.contains("Broken pipe") {
                return ExitCode::SUCCESS;
            }
            eprintln!("graphbinary: {}", msg.replace('\n', " "));
            ExitCode::from(1)
        }
        Err(Failure::Status(se)) => {
            eprintln!("status: {}", se.code);
            eprintln!("message: {}", se.message.as_deref().unwrap_or("null"));
            eprintln!("exception: {}", se.exception.as_deref().unwrap_or("null"));
            ExitCode::from(2)
        }
        Err(Failure::Status1 { code, message }) => {
            eprintln!("status: {code}");
            eprintln!("message: {}", message.as_deref().unwrap_or("null"));
            ExitCode::from(2)
        }
    }
}
