//! The connection options `graphbinary query` and `graphbinary console` share, and how they
//! become a [`Client`]: URL, user and password, SigV4, extra CA, traversal source, timeout.

use std::path::PathBuf;
use std::time::Duration;

use graphbinary_client::client::{redact_url, Client, ClientBuilder, DEFAULT_URL};
use graphbinary_client::process::Lit;
use graphbinary_client::value::Value;

/// A `--url` value: its `Debug` redacts the password of its userinfo.
#[derive(Clone)]
pub struct ServerUrl(pub String);

impl From<String> for ServerUrl {
    fn from(s: String) -> Self {
        ServerUrl(s)
    }
}

impl std::fmt::Debug for ServerUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&redact_url(&self.0), f)
    }
}

/// How to reach the server.
#[derive(Debug, Clone, clap::Args)]
pub struct ConnArgs {
    /// Server URL: http(s):// for TinkerPop 4, ws(s):// for a TinkerPop 3.x server (default:
    /// env GREMLIN_URL, else http://127.0.0.1:8182/gremlin). A user:password@ in it is sent
    /// as Basic authentication (http) or SASL PLAIN (ws), and never printed.
    #[arg(long)]
    pub url: Option<ServerUrl>,
    /// User name for Basic authentication (http) or SASL PLAIN (ws); the password comes from
    /// env GREMLIN_PASSWORD, else a prompt on the terminal (never from an argument).
    #[arg(long)]
    pub user: Option<String>,
    /// Sign requests with AWS Signature Version 4 for REGION (Amazon Neptune IAM), with the
    /// default AWS credential chain (env, profile, web identity, IMDS).
    #[cfg(feature = "sigv4-aws-config")]
    #[arg(long, value_name = "REGION")]
    pub sigv4: Option<String>,
    /// Also trust the root certificate(s) of this PEM file (a private CA), for https:// and
    /// wss://.
    #[arg(long, value_name = "PEM")]
    pub cacert: Option<PathBuf>,
    /// The traversal source the script's `g` is bound to (server default `g`).
    #[arg(short = 'g', long = "source", value_name = "NAME")]
    pub source: Option<String>,
    /// Client-side deadline for a whole query, e.g. 30s, 500ms, 2m (default: none).
    #[arg(long, value_parser = parse_duration, value_name = "DURATION")]
    pub timeout: Option<Duration>,
    /// Do not ask for compressed responses.
    #[arg(long)]
    pub no_compression: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// The client's own limits on what a response may hold (each error that one of them stops
/// names its flag). Sizes take a unit: 64MiB, 512KiB, 2GiB, or plain bytes.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LimitArgs {
    /// Largest WebSocket message (ws:// only; default 10MiB).
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    pub max_message_size: Option<u64>,
    /// Largest response in all (default: none).
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    pub max_response_size: Option<u64>,
    /// Deepest nesting of values (default 128).
    #[arg(long, value_name = "LEVELS")]
    pub max_depth: Option<u32>,
    /// Most elements of a List, Set, Map, Path (default 64Mi).
    #[arg(long, value_parser = parse_size, value_name = "N")]
    pub max_collection_len: Option<u64>,
    /// Largest String, Binary or BigInteger (default 256MiB).
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    pub max_bytes_len: Option<u64>,
}

impl LimitArgs {
    /// `b` with these limits set.
    pub fn apply(&self, mut b: ClientBuilder) -> ClientBuilder {
        let usize_of = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        if let Some(n) = self.max_message_size {
            b = b.max_message_size(usize_of(n));
        }
        if let Some(n) = self.max_response_size {
            b = b.max_response_size(n);
        }
        if let Some(n) = self.max_depth {
            b = b.max_depth(n);
        }
        if let Some(n) = self.max_collection_len {
            b = b.max_collection_len(usize_of(n));
        }
        if let Some(n) = self.max_bytes_len {
            b = b.max_bytes_len(usize_of(n));
        }
        b
    }

    /// Sets the limit of flag `name` (`max-message-size`, with or without its `--`) to
    /// `value` (as the flag takes it), for the console's `:limit`.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let name = name.trim_start_matches('-');
        match name {
            "max-message-size" => self.max_message_size = Some(parse_size(value)?),
            "max-response-size" => self.max_response_size = Some(parse_size(value)?),
            "max-depth" => {
                self.max_depth = Some(
                    value
                        .parse()
                        .map_err(|_| format!("{value:?} is not a number of levels"))?,
                )
            }
            "max-collection-len" => self.max_collection_len = Some(parse_size(value)?),
            "max-bytes-len" => self.max_bytes_len = Some(parse_size(value)?),
            _ => {
                return Err(format!(
                    "{name:?}: the limits are max-message-size, max-response-size, max-depth, \
                     max-collection-len, max-bytes-len"
                ))
            }
        }
        Ok(())
    }
}

/// A size: a number with an optional unit, `KiB`/`K`, `MiB`/`M`, `GiB`/`G` (powers of 1024),
/// `Ki`, `Mi`, `Gi` too (for counts).
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a size (e.g. 64MiB, 512KiB, 1000)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "ki" | "kib" | "kb" => 10,
        "m" | "mi" | "mib" | "mb" => 20,
        "g" | "gi" | "gib" | "gb" => 30,
        other => return Err(format!("{s:?}: unknown unit {other:?} (KiB, MiB, GiB)")),
    };
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s:?} is too large"))
}

impl ConnArgs {
    /// The URL to use: `--url`, else env GREMLIN_URL, else the default.
    pub fn url(&self) -> String {
        self.url
            .clone()
            .map(|u| u.0)
            .or_else(|| std::env::var("GREMLIN_URL").ok())
            .unwrap_or_else(|| DEFAULT_URL.to_owned())
    }

    /// A client for `url` with these options. The password of `--user` is asked for here.
    pub async fn connect(&self, url: &str) -> Result<Client, String> {
        let mut b = self
            .limits
            .apply(Client::builder(url).compression(!self.no_compression));
        if let Some(user) = &self.user {
            b = b.basic_auth(user.clone(), password(user)?);
        }
        if let Some(path) = &self.cacert {
            let pem = std::fs::read(path)
                .map_err(|e| format!("reading --cacert {}: {e}", path.display()))?;
            b = b.add_root_certificate_pem(pem);
        }
        #[cfg(feature = "sigv4-aws-config")]
        if let Some(region) = &self.sigv4 {
            let signer = graphbinary_client::client::SigV4::from_env(region.clone())
                .await
                .map_err(|e| format!("SigV4 credentials: {e}"))?;
            b = b.auth(signer);
        }
        b.build()
            .map_err(|e| graphbinary_client::format::text::one_line(&e).to_string())
    }
}

/// The password for `user`: env GREMLIN_PASSWORD, else asked on the terminal without echo.
fn password(user: &str) -> Result<String, String> {
    if let Ok(p) = std::env::var("GREMLIN_PASSWORD") {
        return Ok(p);
    }
    rpassword::prompt_password(format!("password for {user}: "))
        .map_err(|e| format!("--user {user}: no GREMLIN_PASSWORD and no terminal to ask: {e}"))
}

/// `30s`, `500ms`, `2m`, `1h`, or a number of seconds.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (e.g. 30s, 500ms, 2m)"))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "" | "s" => n,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("{s:?}: unknown unit {unit:?} (ms, s, m, h)")),
    };
    Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}"))
}

/// A `name=literal` parameter: the name and the value of its gremlin-lang literal.
pub fn parse_param(s: &str) -> Result<(String, Value), String> {
    let (name, lit) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: a parameter is name=<gremlin-lang literal>"))?;
    let name = name.trim();
    let lit = Lit::parse(lit).map_err(|e| format!("parameter {name}: {e}"))?;
    let value = Value::try_from(&lit).map_err(|e| format!("parameter {name}: {e}"))?;
    Ok((name.to_owned(), value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_params() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1.5"), Ok(Duration::from_millis(1500)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("5d").is_err());
        assert!(parse_duration("-1s").is_err());
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("512k"), Ok(512 << 10));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("5 parsecs").is_err());
        assert!(parse_size("99999999999999GiB").is_err());
        let mut l = LimitArgs::default();
        l.set("--max-message-size", "2MiB").unwrap();
        l.set("max-depth", "9").unwrap();
        assert_eq!((l.max_message_size, l.max_depth), (Some(2 << 20), Some(9)));
        assert!(l.set("max-speed", "1").unwrap_err().contains("max-depth"));
        let (n, v) = parse_param("age = 29L").unwrap();
        assert_eq!(n, "age");
        assert!(matches!(v, Value::Long(29)));
        assert!(matches!(parse_param("who='marko'").unwrap().1, Value::String(s) if s == "marko"));
        assert!(parse_param("noequals").is_err());
        assert!(parse_param("x=[1,").unwrap_err().contains("parameter x"));
    }
}
