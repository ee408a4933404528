//! Secrets kept out of every output: [`Secret`], a string whose `Debug` prints `REDACTED`, and
//! the helpers that take credentials out of a URL's userinfo and redact a URL for messages.
//!
//! The invariant (ARCHITECTURE.md, tested by `tests/secrets.rs`): no password, key, token or
//! URL userinfo password appears in a `Debug`, `Display`, error or log of this crate.

use std::borrow::Cow;
use std::fmt;

use url::Url;

/// What a redacted secret prints as.
pub(crate) const REDACTED: &str = "REDACTED";

/// A secret string (a password): its `Debug` prints `REDACTED`, and it has no `Display`, so
/// that a struct holding one can derive `Debug` without leaking it. [`Secret::expose`] gives
/// the text to the code that must send it.
///
/// ```
/// use graphbinary_client::client::Secret;
///
/// let pw = Secret::new("hunter2");
/// assert_eq!(format!("{pw:?}"), "REDACTED");
/// assert_eq!(pw.expose(), "hunter2");
/// ```
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps `secret`.
    pub fn new(secret: impl Into<String>) -> Self {
        Secret(secret.into())
    }

    /// The secret text, for the code that sends it. Never format it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(REDACTED)
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Secret(s)
    }
}

impl From<&str> for Secret {
    fn from(s: &str) -> Self {
        Secret(s.to_owned())
    }
}

/// `url` (any text meant to be a URL, valid or not) with the password of its userinfo
/// replaced by `REDACTED`, for messages and logs. A URL without a password is returned as is;
/// a text without `://` has everything before its last `@` redacted. The userinfo is taken to
/// end at the last `@` of the text, so that a password with an unescaped `/`, `?` or `#` is
/// still redacted (a path with an `@` after a `:` is over-redacted, never under-redacted).
///
/// Every `Debug`, `Display` and error message of this crate that shows a URL goes through it.
///
/// ```
/// use graphbinary_client::client::redact_url;
///
/// assert_eq!(redact_url("http://stephen:pw@127.0.0.1:8182/gremlin"), "http://stephen:REDACTED@127.0.0.1:8182/gremlin");
/// assert_eq!(redact_url("ws://127.0.0.1:8182/gremlin"), "ws://127.0.0.1:8182/gremlin");
/// ```
pub fn redact_url(url: &str) -> Cow<'_, str> {
    let Some(at) = url.rfind('@') else {
        return Cow::Borrowed(url);
    };
    let Some(start) = url.find("://").map(|i| i + 3).filter(|&s| s <= at) else {
        return Cow::Owned(format!("{REDACTED}{}", &url[at..]));
    };
    let userinfo = &url[start..at];
    match userinfo.find(':') {
        Some(colon) => Cow::Owned(format!(
            "{}{REDACTED}{}",
            &url[..start + colon + 1],
            &url[at..]
        )),
        None => Cow::Borrowed(url),
    }
}

/// A URL as the user gave it (it may hold a password): its `Debug` is [`redact_url`]'s.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct UrlText(pub(crate) String);

impl fmt::Debug for UrlText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&redact_url(&self.0), f)
    }
}

/// The user name and password of a URL's userinfo (percent-decoded).
pub(crate) type Credentials = (String, Secret);

/// Takes the userinfo out of `url`: its user name and password (percent-decoded; an absent
/// password is empty), and `url` left without them. `None` when the URL has no userinfo.
/// The error names the part that is not UTF-8 once decoded, never its text.
pub(crate) fn take_userinfo(url: &mut Url) -> Result<Option<Credentials>, String> {
    if url.username().is_empty() && url.password().is_none() {
        return Ok(None);
    }
    let user = percent_decode(url.username())
        .ok_or("the user name in the URL is not UTF-8 once percent-decoded")?;
    let password = percent_decode(url.password().unwrap_or(""))
        .ok_or("the password in the URL is not UTF-8 once percent-decoded")?;
    // A URL that has a userinfo has a host (cannot-be-a-base URLs have none), so both succeed.
    let _ = url.set_password(None);
    let _ = url.set_username("");
    Ok(Some((user, Secret(password))))
}

/// `%XX` sequences decoded (an invalid one is kept as is), then UTF-8; `None` when not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_debugs_as_redacted() {
        let s = Secret::from("pw");
        assert_eq!(format!("{s:?} {s:#?}"), "REDACTED REDACTED");
        assert_eq!(format!("{:?}", Some(("u", s))), r#"Some(("u", REDACTED))"#);
    }

    #[test]
    fn redact_url_hides_the_password_only() {
        for (url, want) in [
            ("http://u:pw@h:8182/g", "http://u:REDACTED@h:8182/g"),
            ("ws://u:@h/g", "ws://u:REDACTED@h/g"),
            ("http://u:p/w?x#y@h/g", "http://u:REDACTED@h/g"),
            ("http://u:p@w@h/g", "http://u:REDACTED@h/g"),
            ("http://user@h/g", "http://user@h/g"),
            ("http://h:8182/g", "http://h:8182/g"),
            ("u:pw@h:8182", "REDACTED@h:8182"),
            ("not a url", "not a url"),
            ("", ""),
        ] {
            assert_eq!(redact_url(url), want, "{url}");
        }
    }

    #[test]
    fn take_userinfo_decodes_and_strips() {
        let mut url = Url::parse("http://st%65phen:p%40ss%3Aw@127.0.0.1:8182/gremlin").unwrap();
        let (user, pw) = take_userinfo(&mut url).unwrap().unwrap();
        assert_eq!((user.as_str(), pw.expose()), ("stephen", "p@ss:w"));
        assert_eq!(url.as_str(), "http://127.0.0.1:8182/gremlin");
        let mut url = Url::parse("ws://only@h/g").unwrap();
        let (user, pw) = take_userinfo(&mut url).unwrap().unwrap();
        assert_eq!((user.as_str(), pw.expose()), ("only", ""));
        assert_eq!(url.as_str(), "ws://h/g");
        let mut url = Url::parse("http://h/g").unwrap();
        assert!(take_userinfo(&mut url).unwrap().is_none());
        let mut url = Url::parse("http://u:%ff@h/g").unwrap();
        let e = take_userinfo(&mut url).unwrap_err();
        assert!(e.contains("password") && !e.contains("ff"), "{e}");
    }
}
