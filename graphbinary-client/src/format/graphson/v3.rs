//! GraphSON 3 output, TinkerPop 3.x's typed JSON, for the values GraphBinary 1 decodes into.
//!
//! Each value is written as the GraphSON 3 type of the GraphBinary 1 type it stands for: a
//! `DateTime` by its [`kind`](crate::value::DateTimeKind) (`g:Date`, `g:Timestamp`,
//! `gx:Instant`, `gx:OffsetDateTime`, `gx:ZonedDateTime`), a `BulkList` as a `g:BulkSet`, a
//! `g:Traverser` PDT as a `g:Traverser`. The tokens and
//! java.time values are PDTs named by their GraphSON 3 type and are written as that type
//! (`gx:LocalDate` as `"2016-01-01"`, `g:P` as `{"predicate":..,"value":..}`, ...); a PDT of
//! another name (a custom type) is written as `{"@type":name,"@value":{field:value,...}}`.
//!
//! GraphSON 3 has one label per element: an element with several labels is written with the
//! first. A `Metrics`' durations (nanoseconds in GraphBinary 1) are written in milliseconds as
//! a Double, as TinkerPop's GraphSON serializer does.
//!
//! ```
//! use graphbinary_client::value::Value;
//! use graphbinary_client::format::graphson::to_graphson3;
//!
//! let v = Value::List(vec![Value::Short(1), Value::from("a"), Value::Null(0xfe)]);
//! assert_eq!(
//!     to_graphson3(&v),
//!     r#"{"@type":"g:List","@value":[{"@type":"gx:Int16","@value":1},"a",null]}"#
//! );
//! ```

use crate::format::graphbinary1::date_time_from_millis;
use crate::format::graphson::Writer;
use crate::format::java::{
    base64, java_double, java_float, push_date, push_local_date_time, push_offset, push_time,
    push_year,
};
use crate::value::{
    epoch, CompositePdt, DateTime, DateTimeKind, Edge, Labels, Value, Vertex, VertexProperty,
};

/// The GraphSON 3 document for `v`, on one line.
///
/// ```
/// use graphbinary_client::format::graphbinary1 as v1;
/// use graphbinary_core::Limits;
///
/// // A Date (0x04) of 1000 ms: a DateTime of kind Date in the model, a g:Date again here.
/// let bytes = [0x04, 0x00, 0, 0, 0, 0, 0, 0, 0x03, 0xe8];
/// let v = v1::decode_slice(&bytes, &Limits::default()).unwrap();
/// assert_eq!(graphbinary_client::format::graphson::to_graphson3(&v), r#"{"@type":"g:Date","@value":1000}"#);
/// ```
pub fn to_graphson3(v: &Value) -> String {
    let mut s = String::new();
    write_graphson3(&mut s, v);
    s
}

/// Appends the GraphSON 3 document for `v` to `out` (as [`to_graphson3`]).
pub fn write_graphson3(out: &mut String, v: &Value) {
    G3 { w: Writer { out } }.value(v);
}

fn first(labels: &Labels) -> &str {
    labels.first().map_or("", |l| l)
}

/// A field of a PDT the reader built, as an integer (0 if absent or of another type).
fn int_field(p: &CompositePdt, name: &str) -> i64 {
    match p.get(name) {
        Some(Value::Int(n)) => i64::from(*n),
        Some(Value::Long(n)) => *n,
        Some(Value::Short(n)) => i64::from(*n),
        Some(Value::Byte(n)) => i64::from(*n),
        _ => 0,
    }
}

struct G3<'a> {
    w: Writer<'a>,
}

impl G3<'_> {
    fn push(&mut self, s: &str) {
        self.w.out.push_str(s);
    }

    fn array<'v>(&mut self, items: impl Iterator<Item = &'v Value>) {
        self.push("[");
        for (i, v) in items.enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.value(v);
        }
        self.push("]");
    }

    fn typed_array<'v>(&mut self, ty: &str, items: impl Iterator<Item = &'v Value>) {
        self.w.open(ty);
        self.array(items);
        self.w.close();
    }

    fn map<'v>(&mut self, entries: impl Iterator<Item = (&'v Value, &'v Value)>) {
        self.w.open("g:Map");
        self.push("[");
        for (i, (k, v)) in entries.enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.value(k);
            self.push(",");
            self.value(v);
        }
        self.push("]");
        self.w.close();
    }

    /// `{"k":v,...}` of a PDT's fields (keys as text).
    fn object(&mut self, fields: &[(Value, Value)]) {
        self.push("{");
        for (i, (k, v)) in fields.iter().enumerate() {
            if i > 0 {
                self.push(",");
            }
            match k {
                Value::String(s) => self.w.key(s),
                other => self.w.key(&to_graphson3(other)),
            }
            self.value(v);
        }
        self.push("}");
    }

    fn vertex(&mut self, v: &Vertex) {
        self.w.open("g:Vertex");
        self.push("{");
        self.w.key("id");
        self.value(&v.id);
        self.push(",");
        self.w.key("label");
        self.w.string(first(&v.label));
        let props = v.properties.as_deref().unwrap_or(&[]);
        if !props.is_empty() {
            // Grouped by key, in first-seen order.
            let mut keys: Vec<&str> = Vec::new();
            for vp in props {
                if !keys.contains(&first(&vp.label)) {
                    keys.push(first(&vp.label));
                }
            }
            self.push(",\"properties\":{");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    self.push(",");
                }
                self.w.key(k);
                self.push("[");
                for (j, vp) in props.iter().filter(|vp| first(&vp.label) == *k).enumerate() {
                    if j > 0 {
                        self.push(",");
                    }
                    self.vertex_property(vp);
                }
                self.push("]");
            }
            self.push("}");
        }
        self.push("}");
        self.w.close();
    }

    fn vertex_property(&mut self, vp: &VertexProperty) {
        self.w.open("g:VertexProperty");
        self.push("{");
        self.w.key("id");
        self.value(&vp.id);
        self.push(",");
        self.w.key("value");
        self.value(&vp.value);
        self.push(",");
        self.w.key("label");
        self.w.string(first(&vp.label));
        let props = vp.properties.as_deref().unwrap_or(&[]);
        if !props.is_empty() {
            self.push(",\"properties\":{");
            for (i, p) in props.iter().enumerate() {
                if i > 0 {
                    self.push(",");
                }
                self.w.key(&p.key);
                self.value(&p.value);
            }
            self.push("}");
        }
        self.push("}");
        self.w.close();
    }

    fn property(&mut self, key: &str, value: &Value) {
        self.w.open("g:Property");
        self.push("{");
        self.w.key("key");
        self.w.string(key);
        self.push(",");
        self.w.key("value");
        self.value(value);
        self.push("}");
        self.w.close();
    }

    /// GraphSON 3's Edge: labels as single Strings, the vertices' ids bare, one Property per
    /// key (a later one of the same key wins, as in a Java map).
    fn edge(&mut self, e: &Edge) {
        self.w.open("g:Edge");
        self.push("{");
        self.w.key("id");
        self.value(&e.id);
        for (k, l) in [
            ("label", &e.label),
            ("inVLabel", &e.in_v_label),
            ("outVLabel", &e.out_v_label),
        ] {
            self.push(",");
            self.w.key(k);
            self.w.string(first(l));
        }
        self.push(",");
        self.w.key("inV");
        self.value(&e.in_v_id);
        self.push(",");
        self.w.key("outV");
        self.value(&e.out_v_id);
        let props = e.properties.as_deref().unwrap_or(&[]);
        if !props.is_empty() {
            let mut keys: Vec<&str> = Vec::new();
            for p in props {
                if !keys.contains(&&*p.key) {
                    keys.push(&p.key);
                }
            }
            self.push(",\"properties\":{");
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    self.push(",");
                }
                self.w.key(k);
                let p = props
                    .iter()
                    .rev()
                    .find(|p| &*p.key == *k)
                    .unwrap_or(&props[0]);
                self.property(&p.key, &p.value);
            }
            self.push("}");
        }
        self.push("}");
        self.w.close();
    }

    fn date_time(&mut self, d: &DateTime) {
        match d.kind {
            DateTimeKind::Date | DateTimeKind::Timestamp => {
                // Milliseconds since the epoch (a finer DateTime is cut to its millisecond).
                let (secs, nanos) = epoch(d);
                let ms = i128::from(secs) * 1000 + i128::from(nanos / 1_000_000);
                let ty = if d.kind == DateTimeKind::Date {
                    "g:Date"
                } else {
                    "g:Timestamp"
                };
                self.w.typed_raw(ty, &ms.to_string());
            }
            DateTimeKind::Instant => {
                // At UTC, seconds always written, as Java's `Instant.toString()`.
                let (secs, nanos) = epoch(d);
                let days = secs.div_euclid(86_400);
                let day = date_time_from_millis(days.saturating_mul(86_400_000));
                let mut s = String::with_capacity(32);
                let date = [day.year, day.month.into(), day.day.into()].map(i64::from);
                let time = secs.rem_euclid(86_400) * 1_000_000_000 + nanos;
                push_local_date_time(&mut s, date, time, true);
                s.push('Z');
                self.w.typed_str("gx:Instant", &s);
            }
            DateTimeKind::ZonedDateTime => self.w.typed_str("gx:ZonedDateTime", &d.to_string()),
            DateTimeKind::OffsetDateTime => self.w.typed_str("gx:OffsetDateTime", &d.to_string()),
        }
    }

    fn bulk_list(&mut self, items: &[(Value, i64)]) {
        self.w.open("g:BulkSet");
        self.push("[");
        for (i, (item, n)) in items.iter().enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.value(item);
            self.push(",");
            self.w.typed_raw("g:Int64", &n.to_string());
        }
        self.push("]");
        self.w.close();
    }

    /// A java.time value, P, Bytecode, ... as GraphSON 3 writes the type the PDT names.
    fn composite(&mut self, p: &CompositePdt) {
        let ty = p.type_name.as_str();
        let mut s = String::new();
        match ty {
            "gx:LocalDate" => push_date(
                &mut s,
                int_field(p, "year"),
                int_field(p, "month"),
                int_field(p, "day"),
            ),
            "gx:LocalDateTime" => {
                let date = ["year", "month", "day"].map(|f| int_field(p, f));
                push_local_date_time(&mut s, date, int_field(p, "nanos"), false);
            }
            "gx:LocalTime" => push_time(&mut s, int_field(p, "nanos"), false),
            "gx:OffsetTime" => {
                push_time(&mut s, int_field(p, "nanos"), false);
                push_offset(&mut s, int_field(p, "offset"));
            }
            "gx:MonthDay" => {
                let _ = std::fmt::Write::write_fmt(
                    &mut s,
                    format_args!("--{:02}-{:02}", int_field(p, "month"), int_field(p, "day")),
                );
            }
            "gx:Year" => s = int_field(p, "year").to_string(),
            "gx:YearMonth" => {
                push_year(&mut s, int_field(p, "year"));
                let _ = std::fmt::Write::write_fmt(
                    &mut s,
                    format_args!("-{:02}", int_field(p, "month")),
                );
            }
            "gx:ZoneOffset" => push_offset(&mut s, int_field(p, "seconds")),
            "gx:Period" => {
                // As Java's `Period.toString()`: `P0D`, `P1Y6M15D`.
                let (y, m, d) = (
                    int_field(p, "years"),
                    int_field(p, "months"),
                    int_field(p, "days"),
                );
                s.push('P');
                if (y, m, d) == (0, 0, 0) {
                    s.push_str("0D");
                }
                for (n, unit) in [(y, 'Y'), (m, 'M'), (d, 'D')] {
                    if n != 0 {
                        s.push_str(&n.to_string());
                        s.push(unit);
                    }
                }
            }
            "g:P" | "g:TextP" => return self.predicate(p),
            "g:Traverser" => return self.traverser(p),
            "g:Bytecode" => return self.bytecode(p),
            "g:Lambda" => return self.lambda(p),
            "g:Metrics" | "g:TraversalMetrics" => return self.metrics(p),
            "g:TraversalStrategy" => return self.strategy(p),
            _ => {
                // g:Binding and any other PDT: its fields as an object.
                self.w.open(ty);
                self.object(&p.fields);
                return self.w.close();
            }
        }
        self.w.typed_str(ty, &s);
    }

    /// `{"predicate":..,"value":..}`: an `and`/`or` has its Ps in an untyped array, a
    /// `within`/`without` its values in a `g:List`, any other its one value bare (or a
    /// `g:List` of several, as `between`).
    fn predicate(&mut self, p: &CompositePdt) {
        self.w.open(&p.type_name);
        self.push("{");
        let predicate = match p.get("predicate") {
            Some(Value::String(s)) => s.as_str(),
            _ => "",
        };
        self.w.key("predicate");
        self.w.string(predicate);
        self.push(",");
        self.w.key("value");
        let values: &[Value] = match p.get("value") {
            Some(Value::List(items)) => items,
            Some(other) => std::slice::from_ref(other),
            None => &[],
        };
        match (predicate, values) {
            ("and" | "or", _) => self.array(values.iter()),
            ("within" | "without", _) => self.typed_array("g:List", values.iter()),
            (_, [one]) => self.value(one),
            _ => self.typed_array("g:List", values.iter()),
        }
        self.push("}");
        self.w.close();
    }

    /// `{"source":[[name,args...]...],"step":[...]}`, each omitted when empty.
    fn bytecode(&mut self, p: &CompositePdt) {
        self.w.open("g:Bytecode");
        self.push("{");
        let mut first = true;
        for name in ["source", "step"] {
            let Some(Value::List(instructions)) = p.get(name) else {
                continue;
            };
            if instructions.is_empty() {
                continue;
            }
            if !first {
                self.push(",");
            }
            first = false;
            self.w.key(name);
            self.push("[");
            for (i, ins) in instructions.iter().enumerate() {
                if i > 0 {
                    self.push(",");
                }
                match ins {
                    Value::List(parts) => self.array(parts.iter()),
                    other => self.value(other),
                }
            }
            self.push("]");
        }
        self.push("}");
        self.w.close();
    }

    /// `{"bulk":Int64,"value":..}`.
    fn traverser(&mut self, p: &CompositePdt) {
        self.w.open("g:Traverser");
        self.push("{");
        self.w.key("bulk");
        match p.get("bulk") {
            Some(Value::Long(n)) => self.w.typed_raw("g:Int64", &n.to_string()),
            Some(other) => self.value(other),
            None => self.push("null"),
        }
        self.push(",");
        self.w.key("value");
        match p.get("value") {
            Some(v) => self.value(v),
            None => self.push("null"),
        }
        self.push("}");
        self.w.close();
    }

    /// `{"script":..,"language":..,"arguments":n}` with the count an untyped number.
    fn lambda(&mut self, p: &CompositePdt) {
        self.w.open("g:Lambda");
        self.push("{");
        for (i, name) in ["script", "language"].iter().enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.w.key(name);
            match p.get(name) {
                Some(Value::String(s)) => self.w.string(s),
                Some(other) => self.value(other),
                None => self.push("null"),
            }
        }
        self.push(",");
        self.w.key("arguments");
        self.push(&int_field(p, "arguments").to_string());
        self.push("}");
        self.w.close();
    }

    /// A `g:Map` of `dur` (milliseconds, a Double), `counts`, `name`, `annotations`, `id`,
    /// `metrics` (when there are nested ones), the order TinkerPop writes them in.
    fn metrics(&mut self, p: &CompositePdt) {
        self.w.open(&p.type_name);
        let ms = Value::Double(int_field(p, "dur") as f64 / 1_000_000.0);
        let mut entries: Vec<(Value, &Value)> = Vec::new();
        for name in ["dur", "counts", "name", "annotations", "id", "metrics"] {
            let v = if name == "dur" {
                Some(&ms)
            } else {
                p.get(name)
            };
            match v {
                Some(Value::List(l)) if l.is_empty() => {}
                Some(v) => entries.push((Value::String(name.to_owned()), v)),
                None => {}
            }
        }
        self.map(entries.iter().map(|(k, v)| (k, *v)));
        self.w.close();
    }

    /// `{"@type":"g:<strategy's simple name>","@value":{configuration...}}`.
    fn strategy(&mut self, p: &CompositePdt) {
        let class = match p.get("class") {
            Some(Value::PrimitivePdt(c)) => c.value.as_str(),
            Some(Value::String(s)) => s.as_str(),
            _ => "",
        };
        let simple = class.rsplit('.').next().unwrap_or(class);
        self.w.open(&format!("g:{simple}"));
        match p.get("configuration") {
            Some(Value::Map(entries)) => self.object(entries),
            _ => self.push("{}"),
        }
        self.w.close();
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Null(_) => self.push("null"),
            Value::Int(n) => self.w.typed_raw("g:Int32", &n.to_string()),
            Value::Long(n) => self.w.typed_raw("g:Int64", &n.to_string()),
            Value::String(s) => self.w.string(s),
            Value::DateTime(d) => self.date_time(d),
            Value::Double(x) => self.w.float("g:Double", java_double(*x), x.is_finite()),
            Value::Float(x) => self.w.float("g:Float", java_float(*x), x.is_finite()),
            Value::List(items) => self.typed_array("g:List", items.iter()),
            Value::BulkList(items) => self.bulk_list(items),
            Value::Map(e) | Value::OrderedMap(e) => self.map(e.iter().map(|(k, v)| (k, v))),
            Value::Set(items) => self.typed_array("g:Set", items.iter()),
            Value::Uuid(u) => self.w.typed_str("g:UUID", &u.to_string()),
            Value::Edge(e) => self.edge(e),
            Value::Path(p) => {
                self.w.open("g:Path");
                self.push("{");
                self.w.key("labels");
                self.w.open("g:List");
                self.push("[");
                for (i, set) in p.labels.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.w.open("g:Set");
                    self.push("[");
                    for (j, l) in set.0.iter().enumerate() {
                        if j > 0 {
                            self.push(",");
                        }
                        self.w.string(l);
                    }
                    self.push("]");
                    self.w.close();
                }
                self.push("]");
                self.w.close();
                self.push(",");
                self.w.key("objects");
                self.typed_array("g:List", p.objects.iter());
                self.push("}");
                self.w.close();
            }
            Value::Property(p) => self.property(&p.key, &p.value),
            Value::Graph(g) => {
                self.w.open("tinker:graph");
                self.push("{");
                self.w.key("vertices");
                self.push("[");
                for (i, vx) in g.vertices.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.vertex(vx);
                }
                self.push("],");
                self.w.key("edges");
                self.push("[");
                for (i, e) in g.edges.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.edge(e);
                }
                self.push("]}");
                self.w.close();
            }
            Value::Vertex(vx) => self.vertex(vx),
            Value::VertexProperty(vp) => self.vertex_property(vp),
            Value::Direction(d) => self.w.typed_str("g:Direction", d.as_str()),
            Value::T(t) => self.w.typed_str("g:T", t.as_str()),
            Value::BigDecimal(d) => self.w.typed_raw("gx:BigDecimal", &d.to_java_string()),
            Value::BigInteger(i) => self.w.typed_raw("gx:BigInteger", &i.to_string()),
            Value::Byte(n) => self.w.typed_raw("gx:Byte", &n.to_string()),
            Value::Binary(b) => self.w.typed_str("gx:ByteBuffer", &base64(b)),
            Value::Short(n) => self.w.typed_raw("gx:Int16", &n.to_string()),
            Value::Boolean(b) => self.push(if *b { "true" } else { "false" }),
            Value::Tree(t) => self.tree(t),
            Value::Merge(m) => self.w.typed_str("g:Merge", m.as_str()),
            Value::CompositePdt(p) => self.composite(p),
            Value::PrimitivePdt(p) => self.w.typed_str(&p.type_name, &p.value),
            // No GraphSON 3 type; written as GraphSON 4 does.
            Value::Marker => self.w.typed_raw("g:Marker", "0"),
            Value::Char(c) => self.w.typed_str("gx:Char", c.encode_utf8(&mut [0; 4])),
            Value::Duration(d) => self.w.typed_str("gx:Duration", &d.to_string()),
        }
    }

    fn tree(&mut self, t: &crate::value::Tree) {
        self.w.open("g:Tree");
        self.push("[");
        for (i, (k, child)) in t.0.iter().enumerate() {
            if i > 0 {
                self.push(",");
            }
            self.push("{");
            self.w.key("key");
            self.value(k);
            self.push(",");
            self.w.key("value");
            self.tree(child);
            self.push("}");
        }
        self.push("]");
        self.w.close();
    }
}
