//! Errors on one line, for stderr.

use std::error::Error;

/// Renders `err` and its chain of sources on one line, joined by `": "`, with line breaks
/// inside a message turned into spaces. The crate's errors print each cause once: a message
/// never repeats its source, so the chain is joined as it is.
pub fn one_line(err: &(dyn Error + 'static)) -> String {
    let mut line = err.to_string();
    let mut src = err.source();
    while let Some(s) = src {
        let msg = s.to_string();
        if !msg.is_empty() {
            line.push_str(": ");
            line.push_str(&msg);
        }
        src = s.source();
    }
    line.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::one_line;
    use graphbinary_client::model::Value;

    #[test]
    fn a_decode_error_prints_its_offset_and_rule_once() {
        let e = Value::from_bytes(&[0x99, 0x00]).unwrap_err();
        assert_eq!(one_line(&e), "at byte 0: unknown type code 0x99");
    }
}
