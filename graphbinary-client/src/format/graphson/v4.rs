//! GraphSON 4 output: TinkerPop's typed JSON (`{"@type":"g:Int32","@value":1}`) for any
//! [`Value`], as Gremlin Server 4 writes it.
//!
//! Strings, Booleans and nulls are untyped; a bulked List is written expanded (up to
//! [`MAX_BULK_EXPANSION`](crate::format::text::MAX_BULK_EXPANSION) items; past it as GraphSON 3's
//! `g:BulkSet`); numbers, dates and durations are rendered as Java renders them.
//!
//! ```
//! use graphbinary_client::format::graphson::to_graphson;
//! use graphbinary_client::value::Value;
//!
//! let v = Value::List(vec![Value::Int(1), Value::from("a"), Value::Null(0xfe)]);
//! assert_eq!(
//!     to_graphson(&v),
//!     r#"{"@type":"g:List","@value":[{"@type":"g:Int32","@value":1},"a",null]}"#
//! );
//! ```

use std::fmt::Write;
use std::sync::Arc;

use crate::format::java::{base64, java_double, java_float};
use crate::format::text::{expand_bulk, expanded_len};
use crate::value::{Edge, Property, Value, Vertex, VertexProperty};

/// Appends a bulked result: the value alone when `bulk` is 1, else GraphSON 3's
/// `{"@type":"g:Traverser","@value":{"bulk":...,"value":...}}`.
pub fn write_graphson_traverser(out: &mut String, v: &Value, bulk: i64) {
    if bulk == 1 {
        return write_graphson(out, v);
    }
    let mut w = Writer { out };
    w.open("g:Traverser");
    w.out.push('{');
    w.key("bulk");
    w.typed_raw("g:Int64", &bulk.to_string());
    w.out.push(',');
    w.key("value");
    w.value(v);
    w.out.push('}');
    w.close();
}

/// The GraphSON 4 document for `v`, on one line.
pub fn to_graphson(v: &Value) -> String {
    let mut s = String::new();
    write_graphson(&mut s, v);
    s
}

/// Appends the GraphSON 4 document for `v` to `out`.
pub fn write_graphson(out: &mut String, v: &Value) {
    Writer { out }.value(v);
}

/// The JSON primitives both GraphSON writers share (this one and GraphSON 3's,
/// [`crate::format::graphson::to_graphson3`]).
pub(crate) struct Writer<'a> {
    pub(crate) out: &'a mut String,
}

impl Writer<'_> {
    pub(crate) fn string(&mut self, s: &str) {
        let out = &mut *self.out;
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if (c as u32) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", c as u32);
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }

    pub(crate) fn open(&mut self, ty: &str) {
        self.out.push_str("{\"@type\":\"");
        self.out.push_str(ty);
        self.out.push_str("\",\"@value\":");
    }

    pub(crate) fn close(&mut self) {
        self.out.push('}');
    }

    /// `{"@type":ty,"@value":raw}` with `raw` written verbatim (a JSON number).
    pub(crate) fn typed_raw(&mut self, ty: &str, raw: &str) {
        self.open(ty);
        self.out.push_str(raw);
        self.close();
    }

    pub(crate) fn typed_str(&mut self, ty: &str, s: &str) {
        self.open(ty);
        self.string(s);
        self.close();
    }

    pub(crate) fn float(&mut self, ty: &str, rendered: String, finite: bool) {
        if finite {
            self.typed_raw(ty, &rendered)
        } else {
            self.typed_str(ty, &rendered)
        }
    }

    fn array<'v>(&mut self, items: impl Iterator<Item = &'v Value>) {
        self.out.push('[');
        for (i, v) in items.enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.value(v);
        }
        self.out.push(']');
    }

    fn typed_array<'v>(&mut self, ty: &str, items: impl Iterator<Item = &'v Value>) {
        self.open(ty);
        self.array(items);
        self.close();
    }

    fn map(&mut self, entries: &[(Value, Value)]) {
        self.open("g:Map");
        self.out.push('[');
        for (i, (k, v)) in entries.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.value(k);
            self.out.push(',');
            self.value(v);
        }
        self.out.push(']');
        self.close();
    }

    pub(crate) fn key(&mut self, k: &str) {
        self.string(k);
        self.out.push(':');
    }

    fn labels(&mut self, labels: &[Arc<str>]) {
        self.out.push('[');
        for (i, l) in labels.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.string(l);
        }
        self.out.push(']');
    }

    /// `"properties":{key:[item,...],...}` grouped by key in first-seen order; nothing when
    /// there are none.
    fn grouped<T>(&mut self, items: &[T], key: impl Fn(&T) -> &str, item: impl Fn(&mut Self, &T)) {
        if items.is_empty() {
            return;
        }
        let mut keys: Vec<&str> = Vec::new();
        for it in items {
            let k = key(it);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        self.out.push_str(",\"properties\":{");
        for (i, k) in keys.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.key(k);
            self.out.push('[');
            let mut first = true;
            for it in items.iter().filter(|it| key(it) == *k) {
                if !first {
                    self.out.push(',');
                }
                first = false;
                item(self, it);
            }
            self.out.push(']');
        }
        self.out.push('}');
    }

    fn vertex(&mut self, v: &Vertex) {
        self.open("g:Vertex");
        self.out.push('{');
        self.key("id");
        self.value(&v.id);
        self.out.push(',');
        self.key("label");
        self.labels(&v.label);
        self.grouped(
            v.properties.as_deref().unwrap_or(&[]),
            |vp| vp.label.first().map_or("", |l| l),
            |w, vp| w.vertex_property(vp),
        );
        self.out.push('}');
        self.close();
    }

    fn vertex_property(&mut self, vp: &VertexProperty) {
        self.open("g:VertexProperty");
        self.out.push('{');
        self.key("id");
        self.value(&vp.id);
        self.out.push(',');
        self.key("value");
        self.value(&vp.value);
        self.out.push(',');
        self.key("label");
        self.labels(&vp.label);
        let props = vp.properties.as_deref().unwrap_or(&[]);
        if !props.is_empty() {
            self.out.push_str(",\"properties\":{");
            for (i, p) in props.iter().enumerate() {
                if i > 0 {
                    self.out.push(',');
                }
                self.key(&p.key);
                self.value(&p.value);
            }
            self.out.push('}');
        }
        self.out.push('}');
        self.close();
    }

    fn property(&mut self, p: &Property) {
        self.open("g:Property");
        self.out.push('{');
        self.key("key");
        self.string(&p.key);
        self.out.push(',');
        self.key("value");
        self.value(&p.value);
        self.out.push('}');
        self.close();
    }

    fn edge(&mut self, e: &Edge) {
        self.open("g:Edge");
        self.out.push('{');
        self.key("id");
        self.value(&e.id);
        self.out.push(',');
        self.key("label");
        self.labels(&e.label);
        for (name, id, label) in [
            ("inV", &e.in_v_id, &e.in_v_label),
            ("outV", &e.out_v_id, &e.out_v_label),
        ] {
            self.out.push(',');
            self.key(name);
            self.out.push('{');
            self.key("id");
            self.value(id);
            self.out.push(',');
            self.key("label");
            self.labels(label);
            self.out.push('}');
        }
        self.grouped(
            e.properties.as_deref().unwrap_or(&[]),
            |p| &p.key,
            |w, p| w.property(p),
        );
        self.out.push('}');
        self.close();
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Null(_) => self.out.push_str("null"),
            Value::Int(n) => self.typed_raw("g:Int32", &n.to_string()),
            Value::Long(n) => self.typed_raw("g:Int64", &n.to_string()),
            Value::String(s) => self.string(s),
            Value::DateTime(d) => self.typed_str("g:DateTime", &d.to_string()),
            Value::Double(x) => self.float("g:Double", java_double(*x), x.is_finite()),
            Value::Float(x) => self.float("g:Float", java_float(*x), x.is_finite()),
            Value::List(items) => self.typed_array("g:List", items.iter()),
            Value::BulkList(items) if expanded_len(items).is_some() => {
                self.typed_array("g:List", expand_bulk(items))
            }
            Value::BulkList(items) => {
                // Too large to expand: GraphSON 3's lossless form, item then bulk.
                self.open("g:BulkSet");
                self.out.push('[');
                for (i, (item, n)) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.value(item);
                    self.out.push(',');
                    self.typed_raw("g:Int64", &n.to_string());
                }
                self.out.push(']');
                self.close();
            }
            Value::Map(e) | Value::OrderedMap(e) => self.map(e),
            Value::Set(items) => self.typed_array("g:Set", items.iter()),
            Value::Uuid(u) => self.typed_str("g:UUID", &u.to_string()),
            Value::Edge(e) => self.edge(e),
            Value::Path(p) => {
                self.open("g:Path");
                self.out.push('{');
                self.key("labels");
                self.open("g:List");
                self.out.push('[');
                for (i, set) in p.labels.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.open("g:Set");
                    self.labels(&set.0);
                    self.close();
                }
                self.out.push(']');
                self.close();
                self.out.push(',');
                self.key("objects");
                self.typed_array("g:List", p.objects.iter());
                self.out.push('}');
                self.close();
            }
            Value::Property(p) => self.property(p),
            Value::Graph(g) => {
                self.open("g:graph");
                self.out.push('{');
                self.key("vertices");
                self.out.push('[');
                for (i, v) in g.vertices.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.vertex(v);
                }
                self.out.push_str("],");
                self.key("edges");
                self.out.push('[');
                for (i, e) in g.edges.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.edge(e);
                }
                self.out.push_str("]}");
                self.close();
            }
            Value::Vertex(v) => self.vertex(v),
            Value::VertexProperty(vp) => self.vertex_property(vp),
            Value::Direction(d) => self.typed_str("g:Direction", d.as_str()),
            Value::T(t) => self.typed_str("g:T", t.as_str()),
            Value::BigDecimal(d) => self.typed_raw("g:BigDecimal", &d.to_java_string()),
            Value::BigInteger(i) => self.typed_raw("g:BigInteger", &i.to_string()),
            Value::Byte(n) => self.typed_raw("g:Byte", &n.to_string()),
            Value::Binary(b) => self.typed_str("g:Binary", &base64(b)),
            Value::Short(n) => self.typed_raw("g:Int16", &n.to_string()),
            Value::Boolean(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Tree(t) => self.tree(t),
            Value::Merge(m) => self.typed_str("g:Merge", m.as_str()),
            Value::CompositePdt(p) => {
                self.open("g:CompositePdt");
                self.out.push('{');
                self.key("type");
                self.string(&p.type_name);
                self.out.push(',');
                self.key("fields");
                self.map(&p.fields);
                self.out.push('}');
                self.close();
            }
            Value::PrimitivePdt(p) => {
                self.open("g:PrimitivePdt");
                self.out.push('{');
                self.key("type");
                self.string(&p.type_name);
                self.out.push(',');
                self.key("value");
                self.string(&p.value);
                self.out.push('}');
                self.close();
            }
            Value::Marker => self.typed_raw("g:Marker", "0"),
            Value::Char(c) => self.typed_str("g:Char", c.encode_utf8(&mut [0; 4])),
            Value::Duration(d) => self.typed_str("g:Duration", &d.to_string()),
        }
    }

    fn tree(&mut self, t: &crate::value::Tree) {
        self.open("g:Tree");
        self.out.push('[');
        for (i, (k, child)) in t.0.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push('{');
            self.key("key");
            self.value(k);
            self.out.push(',');
            self.key("value");
            self.tree(child);
            self.out.push('}');
        }
        self.out.push(']');
        self.close();
    }
}
