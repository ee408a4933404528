//! Our own test vectors, `spec/vectors/*.toml`: parse and validate them.
//!
//! Every vector's hex must parse, and its bytes must walk as exactly one well-formed value of
//! the file's type (or one whole response message), using an independent structural walker
//! that knows the GraphBinary 4 layouts and checks type codes and value flags against
//! `spec/types.toml`. GraphSON strings must be JSON.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::model::{Spec, SpecError, SpecErrors};
use super::{read, Error};

/// Directory of the vector files, relative to the root.
pub const VECTORS_DIR: &str = "spec/vectors";
/// The response-message vectors file.
pub const RESPONSES_FILE: &str = "responses.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueFile {
    /// The type every vector of the file is a fully-qualified value of (GraphBinary or Rust name).
    #[serde(rename = "type")]
    pub type_name: String,
    #[serde(rename = "vector", default)]
    pub vectors: Vec<ValueVector>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueVector {
    pub name: String,
    pub hex: String,
    #[serde(default)]
    pub graphson: Option<String>,
    pub note: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResponseFile {
    #[serde(rename = "response", default)]
    pub responses: Vec<ResponseVector>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResponseVector {
    pub name: String,
    pub hex: String,
    pub bulked: bool,
    /// Number of result items (not counting bulks).
    pub items: usize,
    /// Bulk of each item (bulked responses only).
    #[serde(default)]
    pub bulks: Option<Vec<i64>>,
    pub status_code: i32,
    /// Absent: null.
    #[serde(default)]
    pub status_message: Option<String>,
    /// Absent: null.
    #[serde(default)]
    pub exception: Option<String>,
    /// GraphSON 4 of each item, in order (optional).
    #[serde(default)]
    pub items_graphson: Option<Vec<String>>,
    pub note: String,
}

/// A validated value vector.
#[derive(Debug, Clone)]
pub struct LoadedValue {
    /// The file it came from, relative to the root.
    pub file: String,
    /// The GraphBinary name of the file's type.
    pub type_name: String,
    pub type_code: u8,
    pub vector: ValueVector,
    pub bytes: Vec<u8>,
}

/// A validated response vector.
#[derive(Debug, Clone)]
pub struct LoadedResponse {
    pub vector: ResponseVector,
    pub bytes: Vec<u8>,
}

/// Every validated vector, value files in file-name order then file order.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    pub values: Vec<LoadedValue>,
    pub responses: Vec<LoadedResponse>,
}

/// Parse hex with optional whitespace between bytes.
pub fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    if digits.len() & 1 == 1 {
        return Err(format!("odd number of hex digits ({})", digits.len()));
    }
    digits
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            let txt: String = pair.iter().collect();
            u8::from_str_radix(&txt, 16).map_err(|_| format!("byte {i}: {txt:?} is not hex"))
        })
        .collect()
}

/// Structural walker over GraphBinary 4 bytes.
pub struct Walker<'a> {
    spec: &'a Spec,
    bytes: &'a [u8],
    pos: usize,
}

type WalkResult<T> = Result<T, String>;

const LONG: u8 = 0x02;
const STRING: u8 = 0x03;
const LIST: u8 = 0x09;
const MAP: u8 = 0x0a;
const PROPERTY: u8 = 0x0f;
const MARKER: u8 = 0xfd;
const NULL: u8 = 0xfe;

impl<'a> Walker<'a> {
    pub fn new(spec: &'a Spec, bytes: &'a [u8]) -> Self {
        Walker {
            spec,
            bytes,
            pos: 0,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos == self.bytes.len()
    }

    fn take(&mut self, n: usize, what: &str) -> WalkResult<&'a [u8]> {
        if self.bytes.len() - self.pos < n {
            return Err(format!(
                "offset {}: {what} needs {n} bytes, only {} left",
                self.pos,
                self.bytes.len() - self.pos
            ));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn u8(&mut self, what: &str) -> WalkResult<u8> {
        Ok(self.take(1, what)?[0])
    }

    fn int(&mut self, what: &str) -> WalkResult<i32> {
        let b = self.take(4, what)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn long(&mut self, what: &str) -> WalkResult<i64> {
        let b = self.take(8, what)?;
        Ok(i64::from_be_bytes(b.try_into().expect("8 bytes")))
    }

    fn len(&mut self, what: &str) -> WalkResult<usize> {
        let at = self.pos;
        let n = self.int(what)?;
        usize::try_from(n).map_err(|_| format!("offset {at}: negative {what} {n}"))
    }

    /// A bare String value.
    pub fn string(&mut self) -> WalkResult<String> {
        let n = self.len("String length")?;
        let at = self.pos;
        let b = self.take(n, "String bytes")?;
        String::from_utf8(b.to_vec()).map_err(|_| format!("offset {at}: String is not UTF-8"))
    }

    /// A bare nullable String: `{flag}{String value}`.
    pub fn nullable_string(&mut self) -> WalkResult<Option<String>> {
        let at = self.pos;
        match self.u8("value flag")? {
            0x00 => Ok(Some(self.string()?)),
            0x01 => Ok(None),
            f => Err(format!(
                "offset {at}: value flag 0x{f:02x} of a nullable String"
            )),
        }
    }

    /// A fully-qualified value; returns its type code and value flag.
    pub fn fq(&mut self) -> WalkResult<(u8, u8)> {
        let at = self.pos;
        let code = self.u8("type code")?;
        let ty = self
            .spec
            .by_code_map()
            .get(&code)
            .map(|t| (*t).clone())
            .ok_or_else(|| format!("offset {at}: unknown type code 0x{code:02x}"))?;
        let flag = self.u8("value flag")?;
        if !ty.flags.contains(&flag) {
            return Err(format!(
                "offset {}: value flag 0x{flag:02x} not allowed for {}",
                at + 1,
                ty.name
            ));
        }
        if flag != 0x01 {
            self.value(code, flag)?;
        }
        Ok((code, flag))
    }

    /// A fully-qualified value that must be of one of `codes` (or a null of them, or `FE 01`).
    fn fq_of(&mut self, codes: &[u8], what: &str) -> WalkResult<(u8, u8)> {
        let at = self.pos;
        let (code, flag) = self.fq()?;
        if code != NULL && !codes.contains(&code) {
            return Err(format!(
                "offset {at}: {what}: type code 0x{code:02x}, expected one of {codes:02x?}"
            ));
        }
        Ok((code, flag))
    }

    /// A bare `List {value}` of fully-qualified items (of `codes`, if not empty).
    fn list_value(&mut self, codes: &[u8], what: &str) -> WalkResult<usize> {
        let n = self.len("List length")?;
        for _ in 0..n {
            if codes.is_empty() {
                self.fq()?;
            } else {
                self.fq_of(codes, what)?;
            }
        }
        Ok(n)
    }

    fn tree_value(&mut self) -> WalkResult<()> {
        let n = self.len("Tree length")?;
        for _ in 0..n {
            self.fq()?;
            self.tree_value()?;
        }
        Ok(())
    }

    fn enum_string(&mut self, code: u8) -> WalkResult<()> {
        let at = self.pos;
        let c = self.u8("type code")?;
        let f = self.u8("value flag")?;
        if (c, f) != (STRING, 0x00) {
            return Err(format!(
                "offset {at}: enum value must be a non-null fully-qualified String"
            ));
        }
        let s = self.string()?;
        let ty = self.spec.by_code_map()[&code].clone();
        if !ty.values.iter().any(|v| v.name == s) {
            return Err(format!("offset {at}: {s:?} is not a value of {}", ty.name));
        }
        Ok(())
    }

    /// The `{value}` of type `code` with value flag `flag` (not null).
    pub fn value(&mut self, code: u8, flag: u8) -> WalkResult<()> {
        let at = self.pos;
        match code {
            0x01 => drop(self.take(4, "Int")?),
            0x02 => drop(self.take(8, "Long")?),
            0x03 => drop(self.string()?),
            0x04 => {
                self.int("DateTime year")?;
                let month = self.u8("DateTime month")?;
                let day = self.u8("DateTime day")?;
                let nanos = self.long("DateTime time")?;
                let offset = self.int("DateTime offset")?;
                if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
                    return Err(format!(
                        "offset {at}: DateTime month {month} / day {day} out of range"
                    ));
                }
                if !(0..86_400_000_000_000).contains(&nanos)
                    || !(-64_800..=64_800).contains(&offset)
                {
                    return Err(format!(
                        "offset {at}: DateTime time {nanos} / offset {offset} out of range"
                    ));
                }
            }
            0x07 => drop(self.take(8, "Double")?),
            0x08 => drop(self.take(4, "Float")?),
            0x09 => {
                let n = self.len("List length")?;
                for _ in 0..n {
                    self.fq()?;
                    if flag == 0x02 {
                        self.long("List bulk")?;
                    }
                }
            }
            0x0a => {
                let n = self.len("Map length")?;
                for _ in 0..n {
                    self.fq()?;
                    self.fq()?;
                }
            }
            0x0b => drop(self.list_value(&[], "Set item")?),
            0x0c => drop(self.take(16, "UUID")?),
            0x0d => {
                self.fq()?;
                self.list_value(&[STRING], "Edge label")?;
                self.fq()?;
                self.list_value(&[STRING], "Edge inVLabel")?;
                self.fq()?;
                self.list_value(&[STRING], "Edge outVLabel")?;
                self.fq()?;
                self.fq_of(&[LIST], "Edge properties")?;
            }
            0x0e => {
                self.fq_of(&[LIST], "Path labels")?;
                self.fq_of(&[LIST], "Path objects")?;
            }
            0x0f => {
                self.string()?;
                self.fq()?;
                self.fq()?;
            }
            0x10 => {
                let nv = self.len("Graph vertex count")?;
                for _ in 0..nv {
                    self.fq()?;
                    self.list_value(&[STRING], "Graph vertex label")?;
                    let np = self.len("Graph vertex property count")?;
                    for _ in 0..np {
                        self.fq()?;
                        self.list_value(&[STRING], "Graph vertex property label")?;
                        self.fq()?;
                        self.fq()?;
                        self.list_value(&[PROPERTY], "Graph vertex property properties")?;
                    }
                }
                let ne = self.len("Graph edge count")?;
                for _ in 0..ne {
                    self.fq()?;
                    self.list_value(&[STRING], "Graph edge label")?;
                    self.fq()?;
                    self.fq()?;
                    self.fq()?;
                    self.fq()?;
                    self.fq()?;
                    self.list_value(&[PROPERTY], "Graph edge properties")?;
                }
            }
            0x11 => {
                self.fq()?;
                self.list_value(&[STRING], "Vertex label")?;
                self.fq_of(&[LIST], "Vertex properties")?;
            }
            0x12 => {
                self.fq()?;
                self.list_value(&[STRING], "VertexProperty label")?;
                self.fq()?;
                self.fq()?;
                self.fq_of(&[LIST], "VertexProperty properties")?;
            }
            0x18 | 0x20 | 0x2e => self.enum_string(code)?,
            0x22 => {
                self.int("BigDecimal scale")?;
                self.value(0x23, 0x00)?;
            }
            0x23 => {
                let n = self.len("BigInteger length")?;
                if n == 0 {
                    return Err(format!("offset {at}: BigInteger of length 0"));
                }
                self.take(n, "BigInteger bytes")?;
            }
            0x24 => drop(self.take(1, "Byte")?),
            0x25 => {
                let n = self.len("Binary length")?;
                self.take(n, "Binary bytes")?;
            }
            0x26 => drop(self.take(2, "Short")?),
            0x27 => {
                let b = self.u8("Boolean")?;
                if b > 1 {
                    return Err(format!("offset {at}: Boolean byte 0x{b:02x}"));
                }
            }
            0x2b => self.tree_value()?,
            0xf0 => {
                self.fq_of(&[STRING], "CompositePDT type")?;
                self.fq_of(&[MAP], "CompositePDT fields")?;
            }
            0xf1 => {
                self.fq_of(&[STRING], "PrimitivePDT type")?;
                self.fq_of(&[STRING], "PrimitivePDT value")?;
            }
            0x80 => {
                let first = self
                    .bytes
                    .get(self.pos)
                    .copied()
                    .ok_or(format!("offset {at}: Char needs a byte"))?;
                let width = match first {
                    0x00..=0x7f => 1,
                    0xc0..=0xdf => 2,
                    0xe0..=0xef => 3,
                    0xf0..=0xf7 => 4,
                    _ => {
                        return Err(format!(
                            "offset {at}: 0x{first:02x} does not start a UTF-8 char"
                        ))
                    }
                };
                let b = self.take(width, "Char")?;
                if std::str::from_utf8(b).is_err() {
                    return Err(format!("offset {at}: Char is not UTF-8"));
                }
            }
            0x81 => {
                self.long("Duration seconds")?;
                let n = self.int("Duration nanos")?;
                if !(0..1_000_000_000).contains(&n) {
                    return Err(format!("offset {at}: Duration nanos {n} out of range"));
                }
            }
            MARKER => {
                let b = self.u8("Marker")?;
                if b != 0 {
                    return Err(format!(
                        "offset {at}: Marker value 0x{b:02x}, expected 0x00"
                    ));
                }
            }
            NULL => {
                return Err(format!(
                    "offset {at}: unspecified null with a non-null flag"
                ))
            }
            other => {
                return Err(format!(
                    "offset {at}: no layout for type code 0x{other:02x}"
                ))
            }
        }
        Ok(())
    }
}

/// What a response message held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseSummary {
    pub bulked: bool,
    pub items: usize,
    pub bulks: Vec<i64>,
    pub status_code: i32,
    pub status_message: Option<String>,
    pub exception: Option<String>,
}

/// Walk a whole response message.
pub fn walk_response(spec: &Spec, bytes: &[u8]) -> WalkResult<ResponseSummary> {
    let mut w = Walker::new(spec, bytes);
    let version = w.u8("version")?;
    if version != 0x84 {
        return Err(format!("offset 0: version 0x{version:02x}, expected 0x84"));
    }
    let bulked = match w.u8("bulked flag")? {
        0 => false,
        1 => true,
        b => return Err(format!("offset 1: bulked flag 0x{b:02x}")),
    };
    let mut items = 0;
    let mut bulks = Vec::new();
    loop {
        let at = w.pos();
        let (code, _) = w.fq()?;
        if code == MARKER {
            break;
        }
        items += 1;
        if bulked {
            let (c, f) = w.fq_of(&[LONG], "bulk")?;
            if (c, f) != (LONG, 0x00) {
                return Err(format!("offset {at}: bulk must be a non-null Long"));
            }
            let b = &bytes[w.pos() - 8..w.pos()];
            bulks.push(i64::from_be_bytes(b.try_into().expect("8 bytes")));
        }
    }
    let status_code = w.int("status code")?;
    let status_message = w.nullable_string()?;
    let exception = w.nullable_string()?;
    if !w.at_end() {
        return Err(format!(
            "offset {}: {} bytes after the footer",
            w.pos(),
            bytes.len() - w.pos()
        ));
    }
    Ok(ResponseSummary {
        bulked,
        items,
        bulks,
        status_code,
        status_message,
        exception,
    })
}

fn check_graphson(file: &str, entry: &str, json: &str, errs: &mut Vec<SpecError>) {
    if let Err(e) = serde_json::from_str::<serde_json::Value>(json) {
        errs.push(SpecError::new(
            file,
            entry,
            format!("graphson is not JSON: {e}"),
        ));
    }
}

/// `text` (of `file`) as TOML, or `None` with the error in `errs`.
fn parse_toml<T: serde::de::DeserializeOwned>(
    file: &str,
    text: &str,
    errs: &mut Vec<SpecError>,
) -> Option<T> {
    toml::from_str(text)
        .map_err(|e| errs.push(SpecError::new(file, "", format!("invalid TOML: {e}"))))
        .ok()
}

/// What every vector of every file must have: a name no other vector has (`names`: each
/// name seen with its file), a note.
fn check_name_and_note(
    file: &str,
    entry: &str,
    (name, note): (&str, &str),
    names: &mut BTreeMap<String, String>,
    errs: &mut Vec<SpecError>,
) {
    if let Some(prev) = names.insert(name.to_owned(), file.to_owned()) {
        errs.push(SpecError::new(
            file,
            entry,
            format!("duplicate vector name (also in {prev})"),
        ));
    }
    if note.trim().is_empty() {
        errs.push(SpecError::new(file, entry, "missing note"));
    }
}

/// Validate one value-vector file's text; returns its valid vectors.
pub fn check_value_file(
    spec: &Spec,
    file: &str,
    text: &str,
    names: &mut BTreeMap<String, String>,
    errs: &mut Vec<SpecError>,
) -> Vec<LoadedValue> {
    let Some(parsed) = parse_toml::<ValueFile>(file, text, errs) else {
        return Vec::new();
    };
    let Some(ty) = spec.find(&parsed.type_name) else {
        errs.push(SpecError::new(
            file,
            "",
            format!("type {:?} is not in spec/types.toml", parsed.type_name),
        ));
        return Vec::new();
    };
    if parsed.vectors.is_empty() {
        errs.push(SpecError::new(file, "", "no [[vector]] entries"));
    }
    let mut loaded = Vec::new();
    for v in &parsed.vectors {
        let errs_before = errs.len();
        let entry = format!("vector {:?}", v.name);
        check_name_and_note(file, &entry, (&v.name, &v.note), names, errs);
        if let Some(g) = &v.graphson {
            check_graphson(file, &entry, g, errs);
        }
        let bytes = match parse_hex(&v.hex) {
            Ok(b) => b,
            Err(e) => {
                errs.push(SpecError::new(
                    file,
                    &entry,
                    format!("hex does not parse: {e}"),
                ));
                continue;
            }
        };
        // Every vector, typed nulls (`{code} 01`) included, starts with the file type's code.
        let first = bytes.first().copied();
        if first != Some(ty.code) {
            errs.push(SpecError::new(
                file,
                &entry,
                format!(
                    "first byte {first:02x?} is not the type code 0x{:02x} of {}",
                    ty.code, ty.name
                ),
            ));
            continue;
        }
        let mut w = Walker::new(spec, &bytes);
        match w.fq() {
            Err(e) => errs.push(SpecError::new(
                file,
                &entry,
                format!("malformed value: {e}"),
            )),
            Ok(_) if !w.at_end() => errs.push(SpecError::new(
                file,
                &entry,
                format!(
                    "{} trailing bytes after the value (at offset {})",
                    bytes.len() - w.pos(),
                    w.pos()
                ),
            )),
            Ok(_) => {}
        }
        // GraphSON has no Marker, and only a bare `null` (the unspecified null's) for nulls.
        let typed_null = ty.code != NULL && bytes.get(1) == Some(&0x01);
        if v.graphson.is_some() && (ty.code == MARKER || typed_null) {
            errs.push(SpecError::new(
                file,
                &entry,
                "GraphSON cannot represent a Marker or a typed null; omit `graphson`",
            ));
        }
        if errs.len() == errs_before {
            loaded.push(LoadedValue {
                file: file.to_owned(),
                type_name: ty.name.clone(),
                type_code: ty.code,
                vector: v.clone(),
                bytes,
            });
        }
    }
    loaded
}

/// Validate the responses file's text; returns its valid vectors.
pub fn check_response_file(
    spec: &Spec,
    file: &str,
    text: &str,
    names: &mut BTreeMap<String, String>,
    errs: &mut Vec<SpecError>,
) -> Vec<LoadedResponse> {
    let Some(parsed) = parse_toml::<ResponseFile>(file, text, errs) else {
        return Vec::new();
    };
    let mut loaded = Vec::new();
    for r in &parsed.responses {
        let errs_before = errs.len();
        let entry = format!("response {:?}", r.name);
        check_name_and_note(file, &entry, (&r.name, &r.note), names, errs);
        let mut err = |m: String| errs.push(SpecError::new(file, entry.clone(), m));
        if r.bulked != r.bulks.is_some() {
            err("`bulks` must be given exactly when `bulked = true`".into());
        }
        if let Some(g) = &r.items_graphson {
            if g.len() != r.items {
                err(format!(
                    "{} items_graphson entries for {} items",
                    g.len(),
                    r.items
                ));
            }
        }
        let bytes = match parse_hex(&r.hex) {
            Ok(b) => b,
            Err(e) => {
                err(format!("hex does not parse: {e}"));
                continue;
            }
        };
        let got = match walk_response(spec, &bytes) {
            Ok(s) => s,
            Err(e) => {
                err(format!("malformed response: {e}"));
                continue;
            }
        };
        let expected = ResponseSummary {
            bulked: r.bulked,
            items: r.items,
            bulks: r.bulks.clone().unwrap_or_default(),
            status_code: r.status_code,
            status_message: r.status_message.clone(),
            exception: r.exception.clone(),
        };
        if got != expected {
            err(format!(
                "the bytes say {got:?}, the entry says {expected:?}"
            ));
        }
        for g in r.items_graphson.iter().flatten() {
            check_graphson(file, &format!("response {:?}", r.name), g, errs);
        }
        if errs.len() == errs_before {
            loaded.push(LoadedResponse {
                vector: r.clone(),
                bytes,
            });
        }
    }
    loaded
}

/// The vector files under `root` (paths relative to it), sorted.
pub fn vector_files(root: &Path) -> Result<Vec<String>, Error> {
    let dir = root.join(VECTORS_DIR);
    let rd = std::fs::read_dir(&dir).map_err(|source| Error::Io {
        path: dir.clone(),
        source,
    })?;
    let mut files = Vec::new();
    for e in rd {
        let e = e.map_err(|source| Error::Io {
            path: dir.clone(),
            source,
        })?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".toml") {
            files.push(format!("{VECTORS_DIR}/{name}"));
        }
    }
    files.sort();
    Ok(files)
}

/// Validate every vector file under `root`.
pub fn load_all(root: &Path, spec: &Spec) -> Result<Loaded, Error> {
    let mut errs = Vec::new();
    let mut names = BTreeMap::new();
    let mut loaded = Loaded::default();
    for file in vector_files(root)? {
        let text = read(root, &file)?;
        if file.ends_with(&format!("/{RESPONSES_FILE}")) {
            let r = check_response_file(spec, &file, &text, &mut names, &mut errs);
            loaded.responses.extend(r);
        } else {
            let v = check_value_file(spec, &file, &text, &mut names, &mut errs);
            loaded.values.extend(v);
        }
    }
    if errs.is_empty() {
        Ok(loaded)
    } else {
        Err(Error::Spec(SpecErrors(errs)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{load_spec, project_root};

    fn spec() -> Spec {
        load_spec(&project_root()).unwrap()
    }

    fn value_errors(text: &str) -> Vec<String> {
        let mut errs = Vec::new();
        check_value_file(
            &spec(),
            "spec/vectors/x.toml",
            text,
            &mut BTreeMap::new(),
            &mut errs,
        );
        errs.iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn hex_parsing() {
        assert_eq!(parse_hex("01 00\n 0a ff").unwrap(), [1, 0, 10, 255]);
        assert!(parse_hex("0").unwrap_err().contains("odd"));
        assert!(parse_hex("0g").unwrap_err().contains("not hex"));
    }

    #[test]
    fn all_spec_vectors_are_valid() {
        let loaded = load_all(&project_root(), &spec()).unwrap_or_else(|e| panic!("{e}"));
        assert!(loaded.values.len() >= 150, "{}", loaded.values.len());
        assert!(loaded.responses.len() >= 10, "{}", loaded.responses.len());
    }

    /// Every type code has a vector, and every non-special type has a non-null one and a
    /// typed null one.
    #[test]
    fn every_type_code_is_covered() {
        let spec = spec();
        let root = project_root();
        let mut seen: BTreeMap<(u8, u8), usize> = BTreeMap::new();
        for file in vector_files(&root).unwrap() {
            if file.ends_with(RESPONSES_FILE) {
                continue;
            }
            let parsed: ValueFile = toml::from_str(&read(&root, &file).unwrap()).unwrap();
            for v in parsed.vectors {
                let b = parse_hex(&v.hex).unwrap();
                *seen.entry((b[0], b[1])).or_default() += 1;
            }
        }
        for t in &spec.types {
            for &flag in &t.flags {
                assert!(
                    seen.contains_key(&(t.code, flag)),
                    "no vector of {} (0x{:02x}) with value flag 0x{flag:02x}",
                    t.name,
                    t.code
                );
            }
        }
    }

    /// The examples of the GraphBinary 4 spec are all among our vectors.
    #[test]
    fn spec_examples_are_present() {
        let root = project_root();
        let mut all = BTreeMap::new();
        for file in vector_files(&root).unwrap() {
            let text = read(&root, &file).unwrap();
            if file.ends_with(RESPONSES_FILE) {
                let parsed: ResponseFile = toml::from_str(&text).unwrap();
                for r in parsed.responses {
                    all.insert(r.name, parse_hex(&r.hex).unwrap());
                }
            } else {
                let parsed: ValueFile = toml::from_str(&text).unwrap();
                for v in parsed.vectors {
                    all.insert(v.name, parse_hex(&v.hex).unwrap());
                }
            }
        }
        // (vector name, its bytes as printed in the spec text, fully qualified here)
        let examples = [
            ("int-1", "01 00 00 00 00 01"),
            ("int-255", "01 00 00 00 00 ff"),
            ("int-257", "01 00 00 00 01 01"),
            ("int-neg-1", "01 00 ff ff ff ff"),
            ("int-neg-2", "01 00 ff ff ff fe"),
            ("int-null", "01 01"),
            ("long-1", "02 00 00 00 00 00 00 00 00 01"),
            ("long-neg-2", "02 00 ff ff ff ff ff ff ff fe"),
            ("string-abc", "03 00 00 00 00 03 61 62 63"),
            ("string-abcd", "03 00 00 00 00 04 61 62 63 64"),
            ("string-empty", "03 00 00 00 00 00"),
            ("double-1", "07 00 3f f0 00 00 00 00 00 00"),
            ("double-0.00390625", "07 00 3f 70 00 00 00 00 00 00"),
            ("double-0.1", "07 00 3f b9 99 99 99 99 99 9a"),
            ("float-1", "08 00 3f 80 00 00"),
            ("float-0.375", "08 00 3e c0 00 00"),
            (
                "uuid-spec-example",
                "0c 00 00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff",
            ),
            ("direction-out", "18 00 03 00 00 00 00 03 4F 55 54"),
            ("direction-in", "18 00 03 00 00 00 00 02 49 4E"),
            ("t-label", "20 00 03 00 00 00 00 05 6C 61 62 65 6C"),
            ("t-id", "20 00 03 00 00 00 00 02 69 64"),
            (
                "merge-oncreate",
                "2e 00 03 00 00 00 00 08 6F 6E 43 72 65 61 74 65",
            ),
            (
                "merge-onmatch",
                "2e 00 03 00 00 00 00 07 6F 6E 4D 61 74 63 68",
            ),
            ("merge-outv", "2e 00 03 00 00 00 00 04 6F 75 74 56"),
            ("merge-inv", "2e 00 03 00 00 00 00 03 69 6E 56"),
            ("biginteger-0", "23 00 00 00 00 01 00"),
            ("biginteger-1", "23 00 00 00 00 01 01"),
            ("biginteger-127", "23 00 00 00 00 01 7f"),
            ("biginteger-128", "23 00 00 00 00 02 00 80"),
            ("biginteger-neg-1", "23 00 00 00 00 01 ff"),
            ("biginteger-neg-128", "23 00 00 00 00 01 80"),
            ("biginteger-neg-129", "23 00 00 00 00 02 ff 7f"),
            ("byte-1", "24 00 01"),
            ("byte-neg-1", "24 00 ff"),
            ("short-1", "26 00 00 01"),
            ("short-258", "26 00 01 02"),
            ("char-a", "80 00 61"),
            ("char-cent", "80 00 c2 a2"),
            ("char-euro", "80 00 e2 82 ac"),
            ("unspecified-null", "fe 01"),
            ("marker-end-of-stream", "fd 00 00"),
            (
                "compositepdt-point",
                "f0 00 03 00 00 00 00 05 50 6F 69 6E 74 0A 00 00 00 00 02
                 03 00 00 00 00 01 78 01 00 00 00 00 01 03 00 00 00 00 01 79 01 00 00 00 00 02",
            ),
            (
                "primitivepdt-uint8",
                "f1 00 03 00 00 00 00 05 55 69 6E 74 38 03 00 00 00 00 02 31 30",
            ),
            (
                "vertexproperty-spec-example",
                "12 00 02 00 00 00 00 00 00 00 00 00 00 00 00 01 03 00 00 00 00 04 6e 61 6d 65
                 03 00 00 00 00 05 6d 61 72 6b 6f fe 01 09 00 00 00 00 00",
            ),
            (
                "edge-spec-example",
                "0d 00 01 00 00 00 00 0d 00 00 00 01 03 00 00 00 00 08 64 65 76 65 6c 6f 70 73
                 01 00 00 00 00 0a 00 00 00 01 03 00 00 00 00 08 73 6f 66 74 77 61 72 65
                 01 00 00 00 00 01 00 00 00 01 03 00 00 00 00 06 70 65 72 73 6f 6e fe 01
                 09 00 00 00 00 01 0f 00 00 00 00 05 73 69 6e 63 65 01 00 00 00 07 d9 fe 01",
            ),
            (
                "vertex-spec-example",
                "11 00 01 00 00 00 00 01 00 00 00 01 03 00 00 00 00 06 70 65 72 73 6f 6e
                 09 00 00 00 00 01 12 00 02 00 00 00 00 00 00 00 00 09
                 00 00 00 01 03 00 00 00 00 08 6c 6f 63 61 74 69 6f 6e
                 03 00 00 00 00 08 73 61 6e 74 61 20 66 65 fe 01 09 00 00 00 00 01
                 0f 00 00 00 00 09 73 74 61 72 74 54 69 6d 65 01 00 00 00 07 d5 fe 01",
            ),
            (
                "response-g-v-count",
                "84 00 02 00 00 00 00 00 00 00 00 06 fd 00 00 00 00 00 c8 01 01",
            ),
        ];
        for (name, hex) in examples {
            let got = all
                .get(name)
                .unwrap_or_else(|| panic!("no vector named {name:?}"));
            assert_eq!(got, &parse_hex(hex).unwrap(), "{name}");
        }
        assert_eq!(all["response-g-v-count"].len(), 21);
    }

    #[test]
    fn bad_vectors_are_reported_with_file_and_entry() {
        let errs = value_errors(
            r#"
type = "Int"
[[vector]]
name = "short"
hex = "01 00 00 00 01"
note = "n"
[[vector]]
name = "bad-hex"
hex = "01 00 zz"
note = "n"
[[vector]]
name = "trailing"
hex = "01 00 00 00 00 01 00"
note = "n"
[[vector]]
name = "wrong-type"
hex = "02 00 00 00 00 00 00 00 00 01"
note = "n"
[[vector]]
name = "short"
hex = "01 01"
note = "n"
graphson = "{"
[[vector]]
name = "typed-null-with-graphson"
hex = "01 01"
note = "n"
graphson = "null"
"#,
        );
        let expect = [
            "spec/vectors/x.toml: vector \"short\": malformed value: offset 2: Int needs 4 bytes, only 3 left",
            "spec/vectors/x.toml: vector \"bad-hex\": hex does not parse: byte 2: \"zz\" is not hex",
            "spec/vectors/x.toml: vector \"trailing\": 1 trailing bytes after the value (at offset 6)",
            "spec/vectors/x.toml: vector \"wrong-type\": first byte Some(02) is not the type code 0x01 of Int",
            "spec/vectors/x.toml: vector \"short\": duplicate vector name (also in spec/vectors/x.toml)",
        ];
        for e in expect {
            assert!(errs.iter().any(|g| g == e), "missing {e:?} in {errs:#?}");
        }
        assert!(
            errs.iter().any(|g| g.contains("graphson is not JSON")),
            "{errs:#?}"
        );
        assert!(
            errs.iter().any(|g| g.contains(
                "vector \"typed-null-with-graphson\": GraphSON cannot represent a Marker or a typed null"
            )),
            "{errs:#?}"
        );
    }

    #[test]
    fn walker_checks_flags_and_enum_values() {
        let errs = value_errors(
            "type = \"Set\"\n[[vector]]\nname = \"s\"\nhex = \"0b 02 00 00 00 00\"\nnote = \"n\"\n",
        );
        assert!(
            errs[0].contains("value flag 0x02 not allowed for Set"),
            "{errs:?}"
        );
        let errs = value_errors(
            "type = \"Direction\"\n[[vector]]\nname = \"d\"\nhex = \"18 00 03 00 00 00 00 02 55 50\"\nnote = \"n\"\n",
        );
        assert!(
            errs[0].contains("\"UP\" is not a value of Direction"),
            "{errs:?}"
        );
    }

    #[test]
    fn response_walker() {
        let s = spec();
        let ok =
            parse_hex("84 00 02 00 00 00 00 00 00 00 00 06 fd 00 00 00 00 00 c8 01 01").unwrap();
        let sum = walk_response(&s, &ok).unwrap();
        assert_eq!(
            (sum.items, sum.status_code, sum.status_message),
            (1, 200, None)
        );
        let no_marker = parse_hex("84 00 02 00 00 00 00 00 00 00 00 06").unwrap();
        assert!(walk_response(&s, &no_marker)
            .unwrap_err()
            .contains("offset 12: type code needs 1 bytes"));
    }
}
