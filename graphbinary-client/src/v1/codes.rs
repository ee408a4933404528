//! GraphBinary 1 type codes, as in `spec/graphbinary-v1.toml` (a test checks they agree).

/// Custom: read as error.
pub const CUSTOM: u8 = 0x00;
/// Int: read as Value::Int.
pub const INT: u8 = 0x01;
/// Long: read as Value::Long.
pub const LONG: u8 = 0x02;
/// String: read as Value::String.
pub const STRING: u8 = 0x03;
/// Date: read as Value::DateTime.
pub const DATE: u8 = 0x04;
/// Timestamp: read as Value::DateTime.
pub const TIMESTAMP: u8 = 0x05;
/// Class: read as pdt g:Class.
pub const CLASS: u8 = 0x06;
/// Double: read as Value::Double.
pub const DOUBLE: u8 = 0x07;
/// Float: read as Value::Float.
pub const FLOAT: u8 = 0x08;
/// List: read as Value::List.
pub const LIST: u8 = 0x09;
/// Map: read as Value::Map.
pub const MAP: u8 = 0x0a;
/// Set: read as Value::Set.
pub const SET: u8 = 0x0b;
/// UUID: read as Value::Uuid.
pub const UUID: u8 = 0x0c;
/// Edge: read as Value::Edge.
pub const EDGE: u8 = 0x0d;
/// Path: read as Value::Path.
pub const PATH: u8 = 0x0e;
/// Property: read as Value::Property.
pub const PROPERTY: u8 = 0x0f;
/// TinkerGraph: read as Value::Graph.
pub const TINKER_GRAPH: u8 = 0x10;
/// Vertex: read as Value::Vertex.
pub const VERTEX: u8 = 0x11;
/// VertexProperty: read as Value::VertexProperty.
pub const VERTEX_PROPERTY: u8 = 0x12;
/// Barrier: read as pdt g:Barrier.
pub const BARRIER: u8 = 0x13;
/// Binding: read as composite g:Binding.
pub const BINDING: u8 = 0x14;
/// Bytecode: read as composite g:Bytecode.
pub const BYTECODE: u8 = 0x15;
/// Cardinality: read as pdt g:Cardinality.
pub const CARDINALITY: u8 = 0x16;
/// Column: read as pdt g:Column.
pub const COLUMN: u8 = 0x17;
/// Direction: read as Value::Direction.
pub const DIRECTION: u8 = 0x18;
/// Operator: read as pdt g:Operator.
pub const OPERATOR: u8 = 0x19;
/// Order: read as pdt g:Order.
pub const ORDER: u8 = 0x1a;
/// Pick: read as pdt g:Pick.
pub const PICK: u8 = 0x1b;
/// Pop: read as pdt g:Pop.
pub const POP: u8 = 0x1c;
/// Lambda: read as composite g:Lambda.
pub const LAMBDA: u8 = 0x1d;
/// P: read as composite g:P.
pub const P: u8 = 0x1e;
/// Scope: read as pdt g:Scope.
pub const SCOPE: u8 = 0x1f;
/// T: read as Value::T.
pub const T: u8 = 0x20;
/// Traverser: read as Value::BulkList.
pub const TRAVERSER: u8 = 0x21;
/// BigDecimal: read as Value::BigDecimal.
pub const BIG_DECIMAL: u8 = 0x22;
/// BigInteger: read as Value::BigInteger.
pub const BIG_INTEGER: u8 = 0x23;
/// Byte: read as Value::Byte.
pub const BYTE: u8 = 0x24;
/// ByteBuffer: read as Value::Binary.
pub const BYTE_BUFFER: u8 = 0x25;
/// Short: read as Value::Short.
pub const SHORT: u8 = 0x26;
/// Boolean: read as Value::Boolean.
pub const BOOLEAN: u8 = 0x27;
/// TextP: read as composite g:TextP.
pub const TEXT_P: u8 = 0x28;
/// TraversalStrategy: read as composite g:TraversalStrategy.
pub const TRAVERSAL_STRATEGY: u8 = 0x29;
/// BulkSet: read as Value::BulkList.
pub const BULK_SET: u8 = 0x2a;
/// Tree: read as Value::Tree.
pub const TREE: u8 = 0x2b;
/// Metrics: read as composite g:Metrics.
pub const METRICS: u8 = 0x2c;
/// TraversalMetrics: read as composite g:TraversalMetrics.
pub const TRAVERSAL_METRICS: u8 = 0x2d;
/// Merge: read as Value::Merge.
pub const MERGE: u8 = 0x2e;
/// DT: read as pdt g:DT.
pub const DT: u8 = 0x2f;
/// GType: read as pdt g:GType.
pub const GTYPE: u8 = 0x30;
/// Char: read as Value::Char.
pub const CHAR: u8 = 0x80;
/// Duration: read as Value::Duration.
pub const DURATION: u8 = 0x81;
/// InetAddress: read as pdt gx:InetAddress.
pub const INET_ADDRESS: u8 = 0x82;
/// Instant: read as Value::DateTime.
pub const INSTANT: u8 = 0x83;
/// LocalDate: read as composite gx:LocalDate.
pub const LOCAL_DATE: u8 = 0x84;
/// LocalDateTime: read as composite gx:LocalDateTime.
pub const LOCAL_DATE_TIME: u8 = 0x85;
/// LocalTime: read as composite gx:LocalTime.
pub const LOCAL_TIME: u8 = 0x86;
/// MonthDay: read as composite gx:MonthDay.
pub const MONTH_DAY: u8 = 0x87;
/// OffsetDateTime: read as Value::DateTime.
pub const OFFSET_DATE_TIME: u8 = 0x88;
/// OffsetTime: read as composite gx:OffsetTime.
pub const OFFSET_TIME: u8 = 0x89;
/// Period: read as composite gx:Period.
pub const PERIOD: u8 = 0x8a;
/// Year: read as composite gx:Year.
pub const YEAR: u8 = 0x8b;
/// YearMonth: read as composite gx:YearMonth.
pub const YEAR_MONTH: u8 = 0x8c;
/// ZonedDateTime: read as Value::DateTime.
pub const ZONED_DATE_TIME: u8 = 0x8d;
/// ZoneOffset: read as composite gx:ZoneOffset.
pub const ZONE_OFFSET: u8 = 0x8e;
/// Unspecified null object: read as Value::Null.
pub const UNSPECIFIED_NULL: u8 = 0xfe;

/// Every GraphBinary 1 type code with its spec name, in code order.
pub const ALL: &[(u8, &str)] = &[
    (CUSTOM, "Custom"),
    (INT, "Int"),
    (LONG, "Long"),
    (STRING, "String"),
    (DATE, "Date"),
    (TIMESTAMP, "Timestamp"),
    (CLASS, "Class"),
    (DOUBLE, "Double"),
    (FLOAT, "Float"),
    (LIST, "List"),
    (MAP, "Map"),
    (SET, "Set"),
    (UUID, "UUID"),
    (EDGE, "Edge"),
    (PATH, "Path"),
    (PROPERTY, "Property"),
    (TINKER_GRAPH, "TinkerGraph"),
    (VERTEX, "Vertex"),
    (VERTEX_PROPERTY, "VertexProperty"),
    (BARRIER, "Barrier"),
    (BINDING, "Binding"),
    (BYTECODE, "Bytecode"),
    (CARDINALITY, "Cardinality"),
    (COLUMN, "Column"),
    (DIRECTION, "Direction"),
    (OPERATOR, "Operator"),
    (ORDER, "Order"),
    (PICK, "Pick"),
    (POP, "Pop"),
    (LAMBDA, "Lambda"),
    (P, "P"),
    (SCOPE, "Scope"),
    (T, "T"),
    (TRAVERSER, "Traverser"),
    (BIG_DECIMAL, "BigDecimal"),
    (BIG_INTEGER, "BigInteger"),
    (BYTE, "Byte"),
    (BYTE_BUFFER, "ByteBuffer"),
    (SHORT, "Short"),
    (BOOLEAN, "Boolean"),
    (TEXT_P, "TextP"),
    (TRAVERSAL_STRATEGY, "TraversalStrategy"),
    (BULK_SET, "BulkSet"),
    (TREE, "Tree"),
    (METRICS, "Metrics"),
    (TRAVERSAL_METRICS, "TraversalMetrics"),
    (MERGE, "Merge"),
    (DT, "DT"),
    (GTYPE, "GType"),
    (CHAR, "Char"),
    (DURATION, "Duration"),
    (INET_ADDRESS, "InetAddress"),
    (INSTANT, "Instant"),
    (LOCAL_DATE, "LocalDate"),
    (LOCAL_DATE_TIME, "LocalDateTime"),
    (LOCAL_TIME, "LocalTime"),
    (MONTH_DAY, "MonthDay"),
    (OFFSET_DATE_TIME, "OffsetDateTime"),
    (OFFSET_TIME, "OffsetTime"),
    (PERIOD, "Period"),
    (YEAR, "Year"),
    (YEAR_MONTH, "YearMonth"),
    (ZONED_DATE_TIME, "ZonedDateTime"),
    (ZONE_OFFSET, "ZoneOffset"),
    (UNSPECIFIED_NULL, "Unspecified null object"),
];

/// The GraphBinary 1 name of a type code, `None` for a code GraphBinary 1 does not define.
pub fn name(code: u8) -> Option<&'static str> {
    ALL.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// The PDT type name a GraphBinary-1-only type is mapped onto (its GraphSON 3 type name).
pub fn graphson_name(code: u8) -> Option<&'static str> {
    Some(match code {
        CLASS => "g:Class",
        BARRIER => "g:Barrier",
        BINDING => "g:Binding",
        BYTECODE => "g:Bytecode",
        CARDINALITY => "g:Cardinality",
        COLUMN => "g:Column",
        OPERATOR => "g:Operator",
        ORDER => "g:Order",
        PICK => "g:Pick",
        POP => "g:Pop",
        LAMBDA => "g:Lambda",
        P => "g:P",
        SCOPE => "g:Scope",
        TEXT_P => "g:TextP",
        TRAVERSAL_STRATEGY => "g:TraversalStrategy",
        METRICS => "g:Metrics",
        TRAVERSAL_METRICS => "g:TraversalMetrics",
        DT => "g:DT",
        GTYPE => "g:GType",
        INET_ADDRESS => "gx:InetAddress",
        LOCAL_DATE => "gx:LocalDate",
        LOCAL_DATE_TIME => "gx:LocalDateTime",
        LOCAL_TIME => "gx:LocalTime",
        MONTH_DAY => "gx:MonthDay",
        OFFSET_TIME => "gx:OffsetTime",
        PERIOD => "gx:Period",
        YEAR => "gx:Year",
        YEAR_MONTH => "gx:YearMonth",
        ZONE_OFFSET => "gx:ZoneOffset",
        _ => return None,
    })
}
