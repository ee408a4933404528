//! Errors on one line.
//!
//! Each layer has its own error type: [`DecodeError`](graphbinary_core::DecodeError) for the
//! format (with the byte offset), [`ServerError`](crate::response::ServerError) for the
//! server's status, and the transport's error for the connection; they chain their causes
//! through [`std::error::Error::source`]. [`one_line`] renders such a chain for a terminal
//! or a log line.

use std::error::Error;

/// Renders `err` and its chain of sources on one line, joined by `": "`.
///
/// A source whose message the line already ends with is skipped (an error that prints its
/// cause and also returns it as its source is not repeated), and line breaks inside a
/// message become spaces.
///
/// # Example
///
/// ```
/// use graphbinary_client::error::one_line;
/// use graphbinary_client::model::Value;
///
/// let e = Value::from_bytes(&[0x99, 0x00]).unwrap_err();
/// assert_eq!(one_line(&e), "at byte 0: unknown type code 0x99");
/// ```
pub fn one_line(err: &(dyn Error + 'static)) -> String {
    let mut line = err.to_string();
    let mut src = err.source();
    while let Some(s) = src {
        let msg = s.to_string();
        if !msg.is_empty() && !line.ends_with(&msg) {
            line.push_str(": ");
            line.push_str(&msg);
        }
        src = s.source();
    }
    line.replace(['\r', '\n'], " ")
}
