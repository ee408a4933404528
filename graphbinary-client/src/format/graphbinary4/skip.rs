//! Walking values without building them: [`skip_value`] checks and steps over one
//! fully-qualified value on the fast path, allocating nothing for the common types.
//!
//! It accepts exactly what [`Value`](crate::value::Value)'s reader accepts (the same layouts, the
//! same UTF-8, flag, limit and depth checks, at the same offsets), so counting results or
//! ignoring a field never lets through a value that decoding would reject.

use graphbinary_core::{Cursor, Decode, ErrorKind, FastResult};

use crate::value::codes;
use crate::value::graphbinary4::{decode_marker_value, read_fq_str, read_header, Header};
use crate::value::{CompositePdt, DateTime, Direction, Duration, Graph, Merge, T};

/// Fast path: steps over one whole fully-qualified value, checking it as the
/// [`Value`](crate::value::Value) reader would, without building it.
///
/// Nothing is allocated for the primitives, Strings (UTF-8 is still checked), Binary,
/// BigInteger/BigDecimal, Lists, Sets, Maps, Vertices, Edges, VertexProperties, Properties,
/// Paths, Trees and the enums; a Graph or a CompositePDT is decoded and dropped. On
/// [`FastError::NeedMore`](graphbinary_core::FastError::NeedMore) or an error the caller
/// discards the cursor, as for any fast-path read.
///
/// ```
/// use graphbinary_client::format::graphbinary4::skip_value;
/// use graphbinary_core::{Cursor, Limits};
///
/// // A List [Int 1, String "ab"], then one more byte.
/// let bytes = [0x09, 0x00, 0, 0, 0, 2, 0x01, 0x00, 0, 0, 0, 1, 0x03, 0x00, 0, 0, 0, 2, b'a', b'b', 0xff];
/// let limits = Limits::DEFAULT;
/// let mut cur = Cursor::new(&bytes, 0, &limits);
/// skip_value(&mut cur).unwrap();
/// assert_eq!(cur.position(), bytes.len() - 1);
/// ```
#[inline]
pub fn skip_value(cur: &mut Cursor<'_>) -> FastResult<()> {
    let (code, flag) = match read_header(cur)? {
        Header::Null(_) => return Ok(()),
        Header::Value(code, flag) => (code, flag),
    };
    match code {
        codes::INT | codes::FLOAT => cur.read_bytes(4).map(drop),
        codes::LONG | codes::DOUBLE => cur.read_bytes(8).map(drop),
        codes::STRING => cur.read_str().map(drop),
        codes::UUID => cur.read_bytes(16).map(drop),
        codes::BYTE => cur.read_bytes(1).map(drop),
        codes::SHORT => cur.read_bytes(2).map(drop),
        codes::BOOLEAN => cur.read_bool().map(drop),
        codes::CHAR => cur.read_char().map(drop),
        _ => skip_structured(cur, code, flag),
    }
}

/// The stack kept free below each structured value, as in the `Value` reader.
const RED_ZONE: usize = 128 * 1024;
const STACK_SEGMENT: usize = 2 * 1024 * 1024;

#[inline(never)]
fn skip_structured(cur: &mut Cursor<'_>, code: u8, flag: u8) -> FastResult<()> {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
        skip_structured_here(cur, code, flag)
    })
}

fn skip_structured_here(cur: &mut Cursor<'_>, code: u8, flag: u8) -> FastResult<()> {
    match code {
        codes::DATE_TIME => DateTime::decode(cur).map(drop),
        // A bulked List: each value with its Long bulk.
        codes::LIST if flag == 0x02 => skip_pairs(cur, "List", 10, |c| c.read_i64().map(drop)),
        codes::LIST => skip_values(cur, "List"),
        codes::SET => skip_values(cur, "Set"),
        codes::MAP => skip_pairs(cur, "Map", 4, skip_value),
        codes::EDGE => nested(cur, skip_edge),
        codes::PATH => nested(cur, skip_path),
        codes::PROPERTY => nested(cur, skip_property),
        codes::GRAPH => Graph::decode(cur).map(drop),
        codes::VERTEX => nested(cur, skip_vertex),
        codes::VERTEX_PROPERTY => nested(cur, skip_vertex_property),
        codes::DIRECTION => Direction::decode(cur).map(drop),
        codes::T => T::decode(cur).map(drop),
        codes::BIG_DECIMAL => {
            cur.read_i32()?;
            cur.read_len_prefixed("BigInteger").map(drop)
        }
        codes::BIG_INTEGER => cur.read_len_prefixed("BigInteger").map(drop),
        codes::BINARY => cur.read_len_prefixed("Binary").map(drop),
        codes::TREE => skip_tree(cur),
        codes::MERGE => Merge::decode(cur).map(drop),
        codes::COMPOSITE_PDT => CompositePdt::decode(cur).map(drop),
        codes::PRIMITIVE_PDT => {
            read_fq_str(cur, "PrimitivePDT type")?;
            read_fq_str(cur, "PrimitivePDT value").map(drop)
        }
        codes::MARKER => decode_marker_value(cur),
        codes::DURATION => Duration::decode(cur).map(drop),
        other => Err(cur.error(ErrorKind::UnknownTypeCode { code: other })),
    }
}

#[inline]
fn nested(cur: &mut Cursor<'_>, f: fn(&mut Cursor<'_>) -> FastResult<()>) -> FastResult<()> {
    cur.enter()?;
    f(cur)?;
    cur.leave();
    Ok(())
}

/// A count, then that many pairs of a value and what `second` steps over (each pair at
/// least `min_bytes` long), one nesting level down.
#[inline]
fn skip_pairs(
    cur: &mut Cursor<'_>,
    what: &'static str,
    min_bytes: usize,
    mut second: impl FnMut(&mut Cursor<'_>) -> FastResult<()>,
) -> FastResult<()> {
    cur.enter()?;
    let n = cur.read_count(what)?;
    cur.require(n.saturating_mul(min_bytes))?;
    for _ in 0..n {
        skip_value(cur)?;
        second(cur)?;
    }
    cur.leave();
    Ok(())
}

fn skip_values(cur: &mut Cursor<'_>, what: &'static str) -> FastResult<()> {
    cur.enter()?;
    let n = cur.read_count(what)?;
    cur.require(n.saturating_mul(2))?;
    for _ in 0..n {
        skip_value(cur)?;
    }
    cur.leave();
    Ok(())
}

fn skip_tree(cur: &mut Cursor<'_>) -> FastResult<()> {
    stacker::maybe_grow(RED_ZONE, STACK_SEGMENT, || {
        skip_pairs(cur, "Tree", 6, skip_tree)
    })
}

/// `{type_code}{0x00}`: the header of a fully-qualified, non-null item of a typed list.
#[inline]
pub(crate) fn fq_typed_header(
    cur: &mut Cursor<'_>,
    code: u8,
    what: &'static str,
) -> FastResult<()> {
    cur.expect_type_code(code, what)?;
    let at = cur.offset();
    if !cur.read_nullable_flag(what)? {
        return Err(cur.error_at(at, ErrorKind::UnexpectedNull { what }));
    }
    Ok(())
}

/// A fully-qualified, non-null String.
#[inline]
fn skip_fq_str(cur: &mut Cursor<'_>) -> FastResult<()> {
    fq_typed_header(cur, codes::STRING, "String")?;
    cur.read_str().map(drop)
}

/// An element's labels: a bare List of fully-qualified Strings.
pub(crate) fn skip_labels(cur: &mut Cursor<'_>) -> FastResult<()> {
    let n = cur.read_count("List")?;
    cur.require(n.saturating_mul(2))?;
    cur.enter()?;
    for _ in 0..n {
        skip_fq_str(cur)?;
    }
    cur.leave();
    Ok(())
}

/// A bare List of fully-qualified items of type `code`, each stepped over by `item`.
fn skip_typed_items(
    cur: &mut Cursor<'_>,
    what: &'static str,
    code: u8,
    item_what: &'static str,
    item: fn(&mut Cursor<'_>) -> FastResult<()>,
) -> FastResult<()> {
    cur.enter()?;
    let n = cur.read_count(what)?;
    cur.require(n.saturating_mul(2))?;
    for _ in 0..n {
        fq_typed_header(cur, code, item_what)?;
        item(cur)?;
    }
    cur.leave();
    Ok(())
}

/// A fully-qualified nullable List of Properties (an edge's or a vertex property's).
fn skip_opt_properties(cur: &mut Cursor<'_>) -> FastResult<()> {
    if fq_opt_list_header(cur)? {
        skip_typed_items(cur, "List", codes::PROPERTY, "Property", skip_property)?;
    }
    Ok(())
}

pub(crate) fn skip_property(cur: &mut Cursor<'_>) -> FastResult<()> {
    cur.read_str()?;
    skip_value(cur)?;
    skip_value(cur)
}

pub(crate) fn skip_vertex_property(cur: &mut Cursor<'_>) -> FastResult<()> {
    skip_value(cur)?;
    skip_labels(cur)?;
    skip_value(cur)?;
    skip_value(cur)?;
    skip_opt_properties(cur)
}

fn skip_vertex(cur: &mut Cursor<'_>) -> FastResult<()> {
    skip_value(cur)?;
    skip_labels(cur)?;
    if fq_opt_list_header(cur)? {
        skip_typed_items(
            cur,
            "List",
            codes::VERTEX_PROPERTY,
            "VertexProperty",
            skip_vertex_property,
        )?;
    }
    Ok(())
}

fn skip_edge(cur: &mut Cursor<'_>) -> FastResult<()> {
    skip_value(cur)?;
    skip_labels(cur)?;
    skip_value(cur)?;
    skip_labels(cur)?;
    skip_value(cur)?;
    skip_labels(cur)?;
    skip_value(cur)?;
    skip_opt_properties(cur)
}

fn skip_label_set(cur: &mut Cursor<'_>) -> FastResult<()> {
    skip_typed_items(cur, "Set", codes::STRING, "String", |c| {
        c.read_str().map(drop)
    })
}

fn skip_path(cur: &mut Cursor<'_>) -> FastResult<()> {
    fq_typed_header(cur, codes::LIST, "List")?;
    skip_typed_items(cur, "List", codes::SET, "Set", skip_label_set)?;
    fq_typed_header(cur, codes::LIST, "List")?;
    skip_values(cur, "List")
}

/// The header of a fully-qualified, nullable List (`09 00`, `09 01` or `FE 01`): whether a
/// List follows.
pub(crate) fn fq_opt_list_header(cur: &mut Cursor<'_>) -> FastResult<bool> {
    cur.read_fq_opt_header(codes::LIST, "List")
}
