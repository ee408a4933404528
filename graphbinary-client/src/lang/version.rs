//! [`ServerVersion`]: the TinkerPop version a server speaks, which says which steps, tokens
//! and predicates of the gremlin-lang grammar it has (`since` in `spec/steps.toml`).

use std::fmt;
use std::str::FromStr;

/// A TinkerPop version, `major.minor.patch` (`3.7.3`, `3.8.1`, `4.0.0`): the version of the
/// Gremlin Server (or of the TinkerPop a provider runs: JanusGraph 1.1.0 runs 3.7.3, Amazon
/// Neptune 1.4.7 runs 3.7.1). Ordered by its numbers; a pre-release suffix (`4.0.0-beta.3`)
/// is read and dropped.
///
/// ```
/// use graphbinary_client::client::ServerVersion;
///
/// let v: ServerVersion = "3.7.3".parse().unwrap();
/// assert_eq!(v, ServerVersion::new(3, 7, 3));
/// assert!(v < ServerVersion::new(3, 8, 0));
/// assert_eq!("4.0.0-beta.3".parse::<ServerVersion>().unwrap().to_string(), "4.0.0");
/// assert!("3.8".parse::<ServerVersion>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ServerVersion {
    major: u16,
    minor: u16,
    patch: u16,
}

impl ServerVersion {
    /// TinkerPop 4.0.0: what an `http://` client speaks.
    pub const V4_0_0: ServerVersion = ServerVersion::new(4, 0, 0);

    /// `major.minor.patch`.
    pub const fn new(major: u16, minor: u16, patch: u16) -> ServerVersion {
        ServerVersion {
            major,
            minor,
            patch,
        }
    }

    /// The major version (3 or 4).
    pub const fn major(self) -> u16 {
        self.major
    }

    /// The minor version.
    pub const fn minor(self) -> u16 {
        self.minor
    }

    /// The patch version.
    pub const fn patch(self) -> u16 {
        self.patch
    }
}

impl fmt::Display for ServerVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for ServerVersion {
    type Err = String;

    /// `3.8.1`, or `4.0.0-beta.3` (the suffix dropped); anything else is an error naming the
    /// text.
    fn from_str(s: &str) -> Result<ServerVersion, String> {
        let bad = || format!("{s:?} is not a version major.minor.patch (e.g. 3.8.1)");
        let core = s.split_once('-').map_or(s, |(c, _)| c);
        let mut parts = core.split('.').map(|p| {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            p.parse::<u16>().map_err(|_| bad())
        });
        let (Some(major), Some(minor), Some(patch), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(bad());
        };
        Ok(ServerVersion::new(major?, minor?, patch?))
    }
}
