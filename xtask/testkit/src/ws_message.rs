//! TinkerPop 3 messages as a test server writes and reads them.

#![allow(dead_code)]

/// `{0x81}{00 id}{status}{message}{attributes}{meta}{data}`; data is a List of Ints, or `FE 01`.
pub fn response(id: &[u8], status: i32, message: &str, items: Option<&[i32]>) -> Vec<u8> {
    let mut out = vec![0x81, 0x00];
    out.extend_from_slice(id);
    out.extend_from_slice(&status.to_be_bytes());
    out.push(0x00);
    out.extend_from_slice(&(message.len() as i32).to_be_bytes());
    out.extend_from_slice(message.as_bytes());
    out.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]);
    match items {
        None => out.extend_from_slice(&[0xfe, 0x01]),
        Some(items) => {
            out.extend_from_slice(&[0x09, 0x00]);
            out.extend_from_slice(&(items.len() as i32).to_be_bytes());
            for i in items {
                out.extend_from_slice(&[0x01, 0x00]);
                out.extend_from_slice(&i.to_be_bytes());
            }
        }
    }
    out
}

/// The request id and op of a request message (after the 33-byte mime prefix).
pub fn parse_request(bytes: &[u8]) -> (Vec<u8>, String) {
    assert_eq!(&bytes[..33], b"\x20application/vnd.graphbinary-v1.0");
    assert_eq!(bytes[33], 0x81);
    let id = bytes[34..50].to_vec();
    let n = i32::from_be_bytes(bytes[50..54].try_into().unwrap()) as usize;
    (id, String::from_utf8(bytes[54..54 + n].to_vec()).unwrap())
}
