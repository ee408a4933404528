//! JanusGraph's other GraphBinary 1 custom types: `janusgraph.Geoshape` (custom type info
//! `0x1000`, [`Geoshape`]) and `janusgraph.P` (`0x1002`, [`JanusGraphP`], the text and geo
//! predicates), beside `janusgraph.RelationIdentifier` (`0x1001`, in `custom.rs`). All three are
//! registered by [`CustomTypes::janusgraph`](super::CustomTypes::janusgraph).
//!
//! Both layouts are JanusGraph 1.1's (`GeoshapeGraphBinarySerializer`,
//! `JanusGraphPBinarySerializer`), after the custom type's name:
//!
//! * Geoshape: `{Int 0x1000}{value_flag}{version Byte = 2}{shape code Int}{body}`; the bodies:
//!   point `{lat Double}{lon Double}`; circle `{lat}{lon}{radius km}`; box
//!   `{min lat}{min lon}{max lat}{max lon}`; line, polygon, multipoint `{n Int}` then n
//!   `{lat}{lon}`; multiline, multipolygon `{n Int}` then n such point lists; collection
//!   `{n Int}` then n members `{value_flag}{version}{shape code}{body}`.
//! * JanusGraphP: `{Int 0x1002}{value_flag}{predicate name String}{argument, fully qualified}`.
//!
//! Hostile input: a version other than 2, an unknown shape code, a bad value flag, a negative
//! count or one beyond [`Limits::max_collection_len`](graphbinary_core::Limits), and a
//! truncation are errors naming the byte offset; a count is checked against the bytes it needs
//! (16 per point) before anything is allocated, and nested collections count against
//! `max_depth`.

use bytes::BufMut;
use graphbinary_core::{write, Cursor, EncodeError, ErrorKind, FastResult};

use super::codes;
use super::custom::CustomType;
use crate::value::{CompositePdt, Value};

const GEOSHAPE_NAME: &str = "janusgraph.Geoshape";
const GEOSHAPE_INFO: i32 = 0x1000;
const GEOSHAPE_VERSION: u8 = 2;
const P_NAME: &str = "janusgraph.P";
const P_INFO: i32 = 0x1002;
const GEOSHAPE: &str = "janusgraph.Geoshape";

/// A point on the globe in degrees: latitude (-90 to 90) and longitude (-180 to 180).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoPoint {
    /// Degrees north (negative: south).
    pub lat: f64,
    /// Degrees east (negative: west).
    pub lon: f64,
}

impl From<(f64, f64)> for GeoPoint {
    /// `(lat, lon)`.
    fn from((lat, lon): (f64, f64)) -> Self {
        GeoPoint { lat, lon }
    }
}

/// A JanusGraph geographic shape (`org.janusgraph.core.attribute.Geoshape`), the value of a
/// `Geoshape` property and the argument of the geo predicates
/// ([`crate::process::janusgraph::Geo`]). Coordinates are `(latitude, longitude)` in degrees,
/// in that order (JanusGraph's `Geoshape.point(lat, lon)`), a circle's radius in kilometres.
///
/// Read from and written to GraphBinary 1 as the custom type `janusgraph.Geoshape`; as a
/// [`Value`] it is a `CompositePdt` of that name ([`Geoshape::to_value`],
/// [`Geoshape::from_value`]), fields `type` (`"Point"`, `"Circle"`, `"Box"`, `"Line"`,
/// `"Polygon"`, `"MultiPoint"`, `"MultiLine"`, `"MultiPolygon"`, `"Collection"`) and
/// `coordinates` (nested Lists of `[lat, lon]` Doubles; a box's two corners), plus `radius` for
/// a circle and `geometries` (the members) for a collection.
///
/// ```
/// use graphbinary_client::graphbinary_core::Limits;
/// use graphbinary_client::format::graphbinary1::{decode_slice_with, encode_value_with, CustomTypes, Geoshape};
///
/// let athens = Geoshape::circle(37.97, 23.72, 50.0);
/// let shapes = Geoshape::collection([
///     Geoshape::point(37.97, 23.72),
///     Geoshape::polygon([(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)]),
/// ]);
/// let janus = CustomTypes::janusgraph();
/// for shape in [athens, shapes] {
///     let mut bytes = Vec::new();
///     encode_value_with(&shape.to_value(), &mut bytes, &janus).unwrap();
///     let back = decode_slice_with(&bytes, &Limits::default(), &janus).unwrap();
///     assert_eq!(Geoshape::from_value(&back), Some(shape));
/// }
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Geoshape {
    /// A point (shape code 0).
    Point(GeoPoint),
    /// A circle (1): its centre and radius in kilometres.
    Circle {
        /// The centre.
        center: GeoPoint,
        /// The radius in kilometres.
        radius_km: f64,
    },
    /// A box (2): its south-west and north-east corners.
    Box {
        /// The corner of least latitude and longitude.
        south_west: GeoPoint,
        /// The corner of greatest latitude and longitude.
        north_east: GeoPoint,
    },
    /// A line string (3).
    Line(Vec<GeoPoint>),
    /// A polygon (4): its ring, the last point equal to the first.
    Polygon(Vec<GeoPoint>),
    /// Several points (5).
    MultiPoint(Vec<GeoPoint>),
    /// Several line strings (6).
    MultiLine(Vec<Vec<GeoPoint>>),
    /// Several polygons (7).
    MultiPolygon(Vec<Vec<GeoPoint>>),
    /// A geometry collection (8).
    Collection(Vec<Geoshape>),
}

fn points<P: Into<GeoPoint>>(ps: impl IntoIterator<Item = P>) -> Vec<GeoPoint> {
    ps.into_iter().map(Into::into).collect()
}

impl Geoshape {
    /// The custom type's name, `janusgraph.Geoshape`.
    pub const NAME: &'static str = GEOSHAPE_NAME;
    /// Its custom type info, `0x1000`.
    pub const TYPE_INFO: i32 = GEOSHAPE_INFO;

    /// A point at `lat`, `lon` (degrees).
    pub fn point(lat: f64, lon: f64) -> Geoshape {
        Geoshape::Point(GeoPoint { lat, lon })
    }

    /// A circle around `lat`, `lon` of `radius_km` kilometres.
    pub fn circle(lat: f64, lon: f64, radius_km: f64) -> Geoshape {
        Geoshape::Circle {
            center: GeoPoint { lat, lon },
            radius_km,
        }
    }

    /// A box from its south-west corner (`south_lat`, `west_lon`) to its north-east corner
    /// (JanusGraph's `Geoshape.box`; `box` is a Rust keyword).
    pub fn box_(south_lat: f64, west_lon: f64, north_lat: f64, east_lon: f64) -> Geoshape {
        Geoshape::Box {
            south_west: GeoPoint {
                lat: south_lat,
                lon: west_lon,
            },
            north_east: GeoPoint {
                lat: north_lat,
                lon: east_lon,
            },
        }
    }

    /// A line through `(lat, lon)` points.
    pub fn line<P: Into<GeoPoint>>(ps: impl IntoIterator<Item = P>) -> Geoshape {
        Geoshape::Line(points(ps))
    }

    /// A polygon whose ring is the `(lat, lon)` points (close it: the last equal to the first).
    pub fn polygon<P: Into<GeoPoint>>(ps: impl IntoIterator<Item = P>) -> Geoshape {
        Geoshape::Polygon(points(ps))
    }

    /// Several `(lat, lon)` points.
    pub fn multi_point<P: Into<GeoPoint>>(ps: impl IntoIterator<Item = P>) -> Geoshape {
        Geoshape::MultiPoint(points(ps))
    }

    /// Several lines, each its `(lat, lon)` points.
    pub fn multi_line<P: Into<GeoPoint>, L: IntoIterator<Item = P>>(
        lines: impl IntoIterator<Item = L>,
    ) -> Geoshape {
        Geoshape::MultiLine(lines.into_iter().map(points).collect())
    }

    /// Several polygons, each its closed ring of `(lat, lon)` points.
    pub fn multi_polygon<P: Into<GeoPoint>, L: IntoIterator<Item = P>>(
        polygons: impl IntoIterator<Item = L>,
    ) -> Geoshape {
        Geoshape::MultiPolygon(polygons.into_iter().map(points).collect())
    }

    /// A geometry collection of `shapes`.
    pub fn collection(shapes: impl IntoIterator<Item = Geoshape>) -> Geoshape {
        Geoshape::Collection(shapes.into_iter().collect())
    }

    /// The shape code on the wire (0 point ... 8 collection).
    pub fn shape_code(&self) -> i32 {
        match self {
            Geoshape::Point(_) => 0,
            Geoshape::Circle { .. } => 1,
            Geoshape::Box { .. } => 2,
            Geoshape::Line(_) => 3,
            Geoshape::Polygon(_) => 4,
            Geoshape::MultiPoint(_) => 5,
            Geoshape::MultiLine(_) => 6,
            Geoshape::MultiPolygon(_) => 7,
            Geoshape::Collection(_) => 8,
        }
    }

    /// The name in the `type` field of its [`Value`].
    pub fn type_name(&self) -> &'static str {
        SHAPE_NAMES[self.shape_code() as usize]
    }

    /// As the `CompositePdt` the reader produces.
    pub fn to_value(&self) -> Value {
        let mut fields = vec![field("type", Value::String(self.type_name().into()))];
        match self {
            Geoshape::Point(p) => fields.push(field("coordinates", point_value(p))),
            Geoshape::Circle { center, radius_km } => {
                fields.push(field("coordinates", point_value(center)));
                fields.push(field("radius", Value::Double(*radius_km)));
            }
            Geoshape::Box {
                south_west,
                north_east,
            } => fields.push(field(
                "coordinates",
                Value::List(vec![point_value(south_west), point_value(north_east)]),
            )),
            Geoshape::Line(ps) | Geoshape::Polygon(ps) | Geoshape::MultiPoint(ps) => {
                fields.push(field("coordinates", points_value(ps)))
            }
            Geoshape::MultiLine(ls) | Geoshape::MultiPolygon(ls) => fields.push(field(
                "coordinates",
                Value::List(ls.iter().map(|ps| points_value(ps)).collect()),
            )),
            Geoshape::Collection(shapes) => fields.push(field(
                "geometries",
                Value::List(shapes.iter().map(Geoshape::to_value).collect()),
            )),
        }
        composite(GEOSHAPE_NAME, fields)
    }

    /// From the `CompositePdt` the reader produces; `None` for any other value.
    pub fn from_value(v: &Value) -> Option<Geoshape> {
        let p = composite_named(v, GEOSHAPE_NAME)?;
        let kind = p.get("type")?.as_str()?;
        let coords = || p.get("coordinates");
        Some(match kind {
            "Point" => Geoshape::Point(point_of(coords()?)?),
            "Circle" => Geoshape::Circle {
                center: point_of(coords()?)?,
                radius_km: match p.get("radius")? {
                    Value::Double(r) => *r,
                    _ => return None,
                },
            },
            "Box" => {
                let corners = points_of(coords()?)?;
                let [south_west, north_east] = corners[..] else {
                    return None;
                };
                Geoshape::Box {
                    south_west,
                    north_east,
                }
            }
            "Line" => Geoshape::Line(points_of(coords()?)?),
            "Polygon" => Geoshape::Polygon(points_of(coords()?)?),
            "MultiPoint" => Geoshape::MultiPoint(points_of(coords()?)?),
            "MultiLine" => Geoshape::MultiLine(point_lists_of(coords()?)?),
            "MultiPolygon" => Geoshape::MultiPolygon(point_lists_of(coords()?)?),
            "Collection" => match p.get("geometries")? {
                Value::List(items) => Geoshape::Collection(
                    items
                        .iter()
                        .map(Geoshape::from_value)
                        .collect::<Option<_>>()?,
                ),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// Reads `{version}{shape code}{body}` (what follows a value flag).
    fn decode_body(cur: &mut Cursor<'_>) -> FastResult<Geoshape> {
        let at = cur.offset();
        let version = cur.read_u8()?;
        if version != GEOSHAPE_VERSION {
            return Err(invalid(
                cur,
                at,
                format!("format version {version}, expected {GEOSHAPE_VERSION}"),
            ));
        }
        let code_at = cur.offset();
        let code = cur.read_i32()?;
        Ok(match code {
            0 => Geoshape::Point(read_point(cur)?),
            1 => {
                let center = read_point(cur)?;
                Geoshape::Circle {
                    center,
                    radius_km: cur.read_f64()?,
                }
            }
            2 => Geoshape::Box {
                south_west: read_point(cur)?,
                north_east: read_point(cur)?,
            },
            3 => Geoshape::Line(read_points(cur)?),
            4 => Geoshape::Polygon(read_points(cur)?),
            5 => Geoshape::MultiPoint(read_points(cur)?),
            6 => Geoshape::MultiLine(read_point_lists(cur)?),
            7 => Geoshape::MultiPolygon(read_point_lists(cur)?),
            8 => {
                let n = cur.read_count("Geoshape collection")?;
                // The smallest member: flag, version, shape code and an empty point list.
                cur.require(n.saturating_mul(10))?;
                let mut shapes = Vec::with_capacity(n);
                cur.enter()?;
                for _ in 0..n {
                    let flag_at = cur.offset();
                    if !cur.read_nullable_flag(GEOSHAPE)? {
                        cur.leave();
                        return Err(invalid(
                            cur,
                            flag_at,
                            "a null member in a collection".into(),
                        ));
                    }
                    match Geoshape::decode_body(cur) {
                        Ok(s) => shapes.push(s),
                        Err(e) => {
                            cur.leave();
                            return Err(e);
                        }
                    }
                }
                cur.leave();
                Geoshape::Collection(shapes)
            }
            other => {
                return Err(invalid(
                    cur,
                    code_at,
                    format!("shape code {other}, expected 0 (point) to 8 (collection)"),
                ))
            }
        })
    }

    /// Writes `{version}{shape code}{body}`.
    fn encode_body(&self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        out.put_u8(GEOSHAPE_VERSION);
        out.put_i32(self.shape_code());
        match self {
            Geoshape::Point(p) => put_point(out, p),
            Geoshape::Circle { center, radius_km } => {
                put_point(out, center);
                out.put_f64(*radius_km);
            }
            Geoshape::Box {
                south_west,
                north_east,
            } => {
                put_point(out, south_west);
                put_point(out, north_east);
            }
            Geoshape::Line(ps) | Geoshape::Polygon(ps) | Geoshape::MultiPoint(ps) => {
                put_points(out, ps)?
            }
            Geoshape::MultiLine(ls) | Geoshape::MultiPolygon(ls) => {
                put_count(out, ls.len())?;
                for ps in ls {
                    put_points(out, ps)?;
                }
            }
            Geoshape::Collection(shapes) => {
                put_count(out, shapes.len())?;
                for s in shapes {
                    out.put_u8(0x00);
                    s.encode_body(out)?;
                }
            }
        }
        Ok(())
    }
}

impl From<Geoshape> for Value {
    fn from(g: Geoshape) -> Value {
        g.to_value()
    }
}

impl TryFrom<Value> for Geoshape {
    type Error = String;
    fn try_from(v: Value) -> Result<Geoshape, String> {
        Geoshape::from_value(&v).ok_or_else(|| format!("{} is no {GEOSHAPE_NAME}", v.type_name()))
    }
}

const SHAPE_NAMES: [&str; 9] = [
    "Point",
    "Circle",
    "Box",
    "Line",
    "Polygon",
    "MultiPoint",
    "MultiLine",
    "MultiPolygon",
    "Collection",
];

/// The `CompositePdt` value of type `name` with `fields` (unordered), as the reader produces it.
fn composite(name: &str, fields: Vec<(Value, Value)>) -> Value {
    Value::CompositePdt(Box::new(CompositePdt {
        type_name: name.to_owned(),
        fields,
        ordered: false,
    }))
}

/// `v` if it is a `CompositePdt` of type `name`.
fn composite_named<'a>(v: &'a Value, name: &str) -> Option<&'a CompositePdt> {
    match v {
        Value::CompositePdt(p) if p.type_name == name => Some(p),
        _ => None,
    }
}

fn field(k: &str, v: Value) -> (Value, Value) {
    (Value::String(k.to_owned()), v)
}

fn point_value(p: &GeoPoint) -> Value {
    Value::List(vec![Value::Double(p.lat), Value::Double(p.lon)])
}

fn points_value(ps: &[GeoPoint]) -> Value {
    Value::List(ps.iter().map(point_value).collect())
}

fn point_of(v: &Value) -> Option<GeoPoint> {
    match v {
        Value::List(l) => match l[..] {
            [Value::Double(lat), Value::Double(lon)] => Some(GeoPoint { lat, lon }),
            _ => None,
        },
        _ => None,
    }
}

fn points_of(v: &Value) -> Option<Vec<GeoPoint>> {
    match v {
        Value::List(l) => l.iter().map(point_of).collect(),
        _ => None,
    }
}

fn point_lists_of(v: &Value) -> Option<Vec<Vec<GeoPoint>>> {
    match v {
        Value::List(l) => l.iter().map(points_of).collect(),
        _ => None,
    }
}

#[cold]
fn invalid(cur: &Cursor<'_>, at: u64, detail: String) -> graphbinary_core::FastError {
    cur.error_at(
        at,
        ErrorKind::Invalid {
            what: GEOSHAPE,
            detail,
        },
    )
}

fn read_point(cur: &mut Cursor<'_>) -> FastResult<GeoPoint> {
    let lat = cur.read_f64()?;
    let lon = cur.read_f64()?;
    Ok(GeoPoint { lat, lon })
}

/// `{n Int}` then n points: the count is checked against the 16 bytes each needs first.
fn read_points(cur: &mut Cursor<'_>) -> FastResult<Vec<GeoPoint>> {
    cur.read_counted("Geoshape points", 16, read_point)
}

fn read_point_lists(cur: &mut Cursor<'_>) -> FastResult<Vec<Vec<GeoPoint>>> {
    // Each list is at least its count.
    cur.read_counted("Geoshape point lists", 4, read_points)
}

fn put_count(out: &mut Vec<u8>, n: usize) -> Result<(), EncodeError> {
    let n = i32::try_from(n).map_err(|_| EncodeError::Unrepresentable {
        what: GEOSHAPE,
        detail: format!("{n} items: more than an Int counts"),
    })?;
    out.put_i32(n);
    Ok(())
}

fn put_point(out: &mut Vec<u8>, p: &GeoPoint) {
    out.put_f64(p.lat);
    out.put_f64(p.lon);
}

fn put_points(out: &mut Vec<u8>, ps: &[GeoPoint]) -> Result<(), EncodeError> {
    put_count(out, ps.len())?;
    for p in ps {
        put_point(out, p);
    }
    Ok(())
}

/// `{Int info}{value_flag}`: `Ok(false)` for a null (flag 0x01).
fn read_custom_header(cur: &mut Cursor<'_>, info: i32, what: &'static str) -> FastResult<bool> {
    let at = cur.offset();
    let found = cur.read_i32()?;
    if found != info {
        return Err(cur.error_at(
            at,
            ErrorKind::Invalid {
                what,
                detail: format!("custom type info {found:#x}, expected {info:#x}"),
            },
        ));
    }
    cur.read_nullable_flag(what)
}

/// The reader and writer of [`Geoshape`] (`janusgraph.Geoshape`, registered by
/// [`CustomTypes::janusgraph`](super::CustomTypes::janusgraph)).
#[derive(Debug, Clone, Copy, Default)]
pub struct GeoshapeType;

impl CustomType for GeoshapeType {
    fn name(&self) -> &'static str {
        GEOSHAPE_NAME
    }

    fn decode(&self, cur: &mut Cursor<'_>) -> FastResult<Value> {
        if !read_custom_header(cur, GEOSHAPE_INFO, GEOSHAPE)? {
            return Ok(Value::Null(codes::CUSTOM));
        }
        cur.enter()?;
        let r = Geoshape::decode_body(cur);
        cur.leave();
        Ok(r?.to_value())
    }

    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let g = Geoshape::from_value(value).ok_or_else(|| EncodeError::Unrepresentable {
            what: GEOSHAPE,
            detail: "a CompositePdt named janusgraph.Geoshape without the fields of a shape".into(),
        })?;
        out.put_i32(GEOSHAPE_INFO);
        out.put_u8(0x00);
        g.encode_body(out)
    }
}

// ---------------------------------------------------------------------------------------------
// JanusGraphP.

/// A JanusGraph predicate (`janusgraph.P`, custom type info `0x1002`): a text or geo
/// predicate's name and its argument, as JanusGraph's `JanusGraphPBinarySerializer` writes
/// it. The traversal API builds these ([`crate::process::janusgraph`]); as a [`Value`] it is a
/// `CompositePdt` named `janusgraph.P` with the fields `predicate` (String) and `value`.
///
/// ```
/// use graphbinary_client::graphbinary_core::Limits;
/// use graphbinary_client::format::graphbinary1::{decode_slice_with, encode_value_with, CustomTypes, Geoshape, JanusGraphP};
///
/// let p = JanusGraphP::new("geoWithin", Geoshape::circle(37.97, 23.72, 50.0)).unwrap();
/// let janus = CustomTypes::janusgraph();
/// let mut bytes = Vec::new();
/// encode_value_with(&p.to_value(), &mut bytes, &janus).unwrap();
/// let back = decode_slice_with(&bytes, &Limits::default(), &janus).unwrap();
/// assert_eq!(JanusGraphP::from_value(&back), Some(p));
/// assert!(JanusGraphP::new("textLooksLike", "x").is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct JanusGraphP {
    /// The predicate's name, one of [`JanusGraphP::PREDICATES`].
    pub predicate: String,
    /// Its argument: a String for the text predicates, a [`Geoshape`]'s value for the geo
    /// predicates.
    pub value: Value,
}

impl JanusGraphP {
    /// The custom type's name, `janusgraph.P`.
    pub const NAME: &'static str = P_NAME;
    /// Its custom type info, `0x1002`.
    pub const TYPE_INFO: i32 = P_INFO;
    /// The predicates JanusGraph 1.1 knows by these names.
    pub const PREDICATES: &'static [&'static str] = &[
        "geoIntersect",
        "geoDisjoint",
        "geoWithin",
        "geoContains",
        "textContains",
        "textNotContains",
        "textContainsFuzzy",
        "textNotContainsFuzzy",
        "textContainsPrefix",
        "textNotContainsPrefix",
        "textContainsRegex",
        "textNotContainsRegex",
        "textContainsPhrase",
        "textNotContainsPhrase",
        "textFuzzy",
        "textNotFuzzy",
        "textPrefix",
        "textNotPrefix",
        "textRegex",
        "textNotRegex",
    ];

    /// The predicate `predicate` (one of [`Self::PREDICATES`]) with `value`; an unknown name
    /// is an error naming it.
    pub fn new(predicate: &str, value: impl Into<Value>) -> Result<JanusGraphP, String> {
        if !Self::PREDICATES.contains(&predicate) {
            return Err(format!(
                "{predicate:?} is no JanusGraph predicate (known: {})",
                Self::PREDICATES.join(", ")
            ));
        }
        Ok(JanusGraphP {
            predicate: predicate.to_owned(),
            value: value.into(),
        })
    }

    /// As the `CompositePdt` the reader produces.
    pub fn to_value(&self) -> Value {
        composite(
            P_NAME,
            vec![
                field("predicate", Value::String(self.predicate.clone())),
                field("value", self.value.clone()),
            ],
        )
    }

    /// From the `CompositePdt` the reader produces; `None` for any other value.
    pub fn from_value(v: &Value) -> Option<JanusGraphP> {
        let p = composite_named(v, P_NAME)?;
        Some(JanusGraphP {
            predicate: p.get("predicate")?.as_str()?.to_owned(),
            value: p.get("value")?.clone(),
        })
    }
}

/// The reader and writer of [`JanusGraphP`] (`janusgraph.P`, registered by
/// [`CustomTypes::janusgraph`](super::CustomTypes::janusgraph)). Its argument is read and
/// written fully qualified, with the custom types of the same context (a Geoshape).
#[derive(Debug, Clone, Copy, Default)]
pub struct JanusGraphPType;

impl CustomType for JanusGraphPType {
    fn name(&self) -> &'static str {
        P_NAME
    }

    fn decode(&self, cur: &mut Cursor<'_>) -> FastResult<Value> {
        if !read_custom_header(cur, P_INFO, "janusgraph.P")? {
            return Ok(Value::Null(codes::CUSTOM));
        }
        let predicate = cur.read_str()?.to_owned();
        cur.enter()?;
        let value = super::reader::decode_value(cur);
        cur.leave();
        Ok(JanusGraphP {
            predicate,
            value: value?,
        }
        .to_value())
    }

    fn encode(&self, value: &Value, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        let p = JanusGraphP::from_value(value).ok_or_else(|| EncodeError::Unrepresentable {
            what: "janusgraph.P",
            detail: "a CompositePdt named janusgraph.P without a predicate and a value".into(),
        })?;
        if !JanusGraphP::PREDICATES.contains(&p.predicate.as_str()) {
            return Err(EncodeError::Unrepresentable {
                what: "janusgraph.P",
                detail: format!("{:?} is no JanusGraph predicate", p.predicate),
            });
        }
        out.put_i32(P_INFO);
        out.put_u8(0x00);
        write::put_str(out, &p.predicate)?;
        super::writer::encode_value(&p.value, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::graphbinary1::{decode_slice_with, encode_value_with, CustomTypes};
    use graphbinary_core::{DecodeError, Limits};

    fn header(name: &str, info: i32) -> Vec<u8> {
        let mut b = vec![0x00];
        b.extend_from_slice(&(name.len() as i32).to_be_bytes());
        b.extend_from_slice(name.as_bytes());
        b.extend_from_slice(&info.to_be_bytes());
        b.push(0x00);
        b
    }

    fn decode(bytes: &[u8]) -> Result<Value, DecodeError> {
        decode_slice_with(bytes, &Limits::default(), &CustomTypes::janusgraph())
    }

    fn all_shapes() -> Vec<Geoshape> {
        let ring = [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0), (0.0, 0.0)];
        vec![
            Geoshape::point(37.97, 23.72),
            Geoshape::circle(37.97, 23.72, 50.0),
            Geoshape::box_(37.0, 23.0, 38.5, 24.5),
            Geoshape::line([(37.0, 23.0), (38.0, 24.0)]),
            Geoshape::polygon(ring),
            Geoshape::multi_point([(1.0, 2.0), (3.0, 4.0)]),
            Geoshape::multi_line([vec![(1.0, 2.0), (3.0, 4.0)], vec![(5.0, 6.0), (7.0, 8.0)]]),
            Geoshape::multi_polygon([ring.to_vec(), ring.to_vec()]),
            Geoshape::collection([
                Geoshape::point(1.0, 2.0),
                Geoshape::collection([Geoshape::line([(1.0, 2.0), (3.0, 4.0)])]),
            ]),
        ]
    }

    #[test]
    fn every_shape_round_trips_through_its_bytes_and_value() {
        let janus = CustomTypes::janusgraph();
        for (code, shape) in all_shapes().into_iter().enumerate() {
            assert_eq!(shape.shape_code(), code as i32);
            let mut bytes = Vec::new();
            encode_value_with(&shape.to_value(), &mut bytes, &janus).unwrap();
            let head = header(GEOSHAPE_NAME, GEOSHAPE_INFO);
            assert_eq!(&bytes[..head.len()], &head[..], "{shape:?}");
            assert_eq!(bytes[head.len()], 2, "version byte");
            assert_eq!(
                &bytes[head.len() + 1..head.len() + 5],
                &(code as i32).to_be_bytes()
            );
            let back = decode(&bytes).unwrap();
            assert_eq!(Geoshape::from_value(&back).as_ref(), Some(&shape));
        }
    }

    #[test]
    fn a_point_is_lat_then_lon_and_a_box_its_two_corners() {
        let mut bytes = Vec::new();
        Geoshape::point(1.5, -2.5).encode_body(&mut bytes).unwrap();
        let mut want = vec![2, 0, 0, 0, 0];
        want.extend_from_slice(&1.5f64.to_be_bytes());
        want.extend_from_slice(&(-2.5f64).to_be_bytes());
        assert_eq!(bytes, want);
        let mut bytes = Vec::new();
        Geoshape::box_(1.0, 2.0, 3.0, 4.0)
            .encode_body(&mut bytes)
            .unwrap();
        let doubles: Vec<f64> = bytes[5..]
            .chunks(8)
            .map(|c| f64::from_be_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(doubles, [1.0, 2.0, 3.0, 4.0]);
    }

    fn geoshape_bytes(body: &[u8]) -> Vec<u8> {
        let mut b = header(GEOSHAPE_NAME, GEOSHAPE_INFO);
        b.extend_from_slice(body);
        b
    }

    #[test]
    fn a_bad_version_byte_is_an_error_at_its_offset() {
        let mut bytes = geoshape_bytes(&[3, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0; 16]);
        let at = header(GEOSHAPE_NAME, GEOSHAPE_INFO).len() as u64;
        let e = decode(&bytes).unwrap_err();
        assert_eq!(e.offset(), at);
        assert!(
            e.to_string().contains("format version 3, expected 2"),
            "{e}"
        );
    }

    #[test]
    fn an_unknown_shape_code_is_an_error_at_its_offset() {
        let mut bytes = geoshape_bytes(&[2, 0, 0, 0, 9]);
        bytes.extend_from_slice(&[0; 16]);
        let at = header(GEOSHAPE_NAME, GEOSHAPE_INFO).len() as u64 + 1;
        let e = decode(&bytes).unwrap_err();
        assert_eq!(e.offset(), at);
        assert!(e.to_string().contains("shape code 9"), "{e}");
    }

    #[test]
    fn a_wrong_type_info_or_value_flag_is_an_error() {
        let mut bytes = header(GEOSHAPE_NAME, 0x1001);
        bytes.extend_from_slice(&[2, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0; 16]);
        let e = decode(&bytes).unwrap_err();
        assert!(e.to_string().contains("custom type info 0x1001"), "{e}");
        let mut bytes = header(GEOSHAPE_NAME, GEOSHAPE_INFO);
        *bytes.last_mut().unwrap() = 0x07;
        let e = decode(&bytes).unwrap_err();
        assert_eq!(e.offset(), bytes.len() as u64 - 1);
        // A null Geoshape (flag 0x01) is a null.
        let mut bytes = header(GEOSHAPE_NAME, GEOSHAPE_INFO);
        *bytes.last_mut().unwrap() = 0x01;
        assert_eq!(decode(&bytes).unwrap(), Value::Null(codes::CUSTOM));
    }

    #[test]
    fn every_truncation_is_an_error_at_the_end() {
        let janus = CustomTypes::janusgraph();
        for shape in all_shapes() {
            let mut bytes = Vec::new();
            encode_value_with(&shape.to_value(), &mut bytes, &janus).unwrap();
            for cut in 0..bytes.len() {
                let e = decode(&bytes[..cut]).unwrap_err();
                assert!(e.offset() <= cut as u64, "{shape:?} cut at {cut}: {e}");
            }
        }
    }

    #[test]
    fn a_claimed_count_beyond_the_bytes_is_refused_before_allocating() {
        for code in [3u8, 4, 5, 6, 7, 8] {
            // A count of 2^31-1 (or the limit's) with nothing behind it.
            let mut bytes = geoshape_bytes(&[2, 0, 0, 0, code]);
            bytes.extend_from_slice(&0x7fff_ffffi32.to_be_bytes());
            let e = decode(&bytes).unwrap_err();
            assert_eq!(e.offset(), bytes.len() as u64 - 4, "code {code}: {e}");
            // Within the limit but beyond the bytes: end of input, nothing allocated.
            let mut bytes = geoshape_bytes(&[2, 0, 0, 0, code]);
            bytes.extend_from_slice(&1_000_000i32.to_be_bytes());
            bytes.extend_from_slice(&[0; 32]);
            let e = decode(&bytes).unwrap_err();
            assert_eq!(e.offset(), bytes.len() as u64, "code {code}: {e}");
            // A negative count.
            let mut bytes = geoshape_bytes(&[2, 0, 0, 0, code]);
            bytes.extend_from_slice(&(-1i32).to_be_bytes());
            let e = decode(&bytes).unwrap_err();
            assert_eq!(e.offset(), bytes.len() as u64 - 4, "code {code}: {e}");
        }
    }

    #[test]
    fn a_null_collection_member_and_deep_nesting_are_errors() {
        let mut bytes = geoshape_bytes(&[2, 0, 0, 0, 8, 0, 0, 0, 1, 0x01]);
        bytes.extend_from_slice(&[0; 16]);
        let e = decode(&bytes).unwrap_err();
        assert!(e.to_string().contains("null member"), "{e}");
        // Collections nested 10 000 deep: the depth limit, not a stack overflow.
        let mut bytes = geoshape_bytes(&[]);
        for _ in 0..10_000 {
            bytes.extend_from_slice(&[2, 0, 0, 0, 8, 0, 0, 0, 1, 0x00]);
        }
        bytes.extend_from_slice(&[2, 0, 0, 0, 0]);
        bytes.extend_from_slice(&[0; 16]);
        let e = decode(&bytes).unwrap_err();
        assert!(e.to_string().contains("depth"), "{e}");
    }

    #[test]
    fn a_janusgraph_p_is_its_name_then_its_argument_fully_qualified() {
        let p = JanusGraphP::new("textContains", "marko").unwrap();
        let mut bytes = Vec::new();
        encode_value_with(&p.to_value(), &mut bytes, &CustomTypes::janusgraph()).unwrap();
        let mut want = header(P_NAME, P_INFO);
        want.extend_from_slice(&12i32.to_be_bytes());
        want.extend_from_slice(b"textContains");
        want.extend_from_slice(&[0x03, 0x00, 0, 0, 0, 5]);
        want.extend_from_slice(b"marko");
        assert_eq!(bytes, want);
        assert_eq!(JanusGraphP::from_value(&decode(&bytes).unwrap()), Some(p));
        // Truncated anywhere: an error.
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut]).is_err());
        }
        // An unknown predicate is not written.
        let bad = JanusGraphP {
            predicate: "textLooksLike".into(),
            value: Value::String("x".into()),
        };
        let e = encode_value_with(&bad.to_value(), &mut Vec::new(), &CustomTypes::janusgraph())
            .unwrap_err();
        assert!(e.to_string().contains("textLooksLike"), "{e}");
    }
}
