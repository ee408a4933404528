//! Step arguments ([`Arg`], [`IntoArgs`], [`GValue`]) and the check of arguments against the
//! grammar's forms of a step.

use super::generated::KEYWORDS;
use super::predicate::P;
use super::strategy::Strategy;
use super::traversal::GraphTraversal;
use crate::lang::tokens::{Token, TokenClass};
use crate::lang::{IntoLit, Lit};
use crate::value::Value;

/// A named parameter: written into the script as its name, with its value sent in the
/// request's `parameters` field (or written in place as a literal when the source is in
/// literal-only mode, or where the grammar allows no variable).
///
/// The name must be an ASCII Java identifier that does not start with `_` and is not a
/// gremlin-lang keyword (`id`, `label`, `values`, ...); a bad name makes the traversal fail to
/// build. Two parameters of one traversal with the same name must have the same value.
/// Gremlin Server 4.0.0-beta.3 answers a request with more than 16 parameters with HTTP 400;
/// beyond that, use [`GraphTraversalSource::literal_only`](super::GraphTraversalSource::literal_only).
///
/// ```
/// use graphbinary_client::process::{GValue, GraphTraversalSource};
///
/// let g = GraphTraversalSource::detached();
/// let script = g.v(()).has(("person", "name", GValue::new("who", "marko"))).gremlin_lang().unwrap();
/// assert_eq!(script.gremlin, r#"g.V().has("person","name",who)"#);
/// assert_eq!(script.parameters_text().unwrap(), r#"[who:"marko"]"#);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct GValue {
    name: String,
    value: Lit,
    /// Why the value given has no literal (the traversal fails to build).
    invalid: Option<String>,
}

impl GValue {
    /// A parameter `name` bound to `value`: anything a literal is made from, or a decoded
    /// [`Value`] (a value just read, sent back unchanged; an element stands for its id).
    ///
    /// ```
    /// use graphbinary_client::value::{DateTime, DateTimeKind, Value};
    /// use graphbinary_client::process::{GValue, GraphTraversalSource};
    ///
    /// let read = Value::DateTime(DateTime::from_epoch_millis(86_400_000));
    /// let g = GraphTraversalSource::detached();
    /// let t = g.v(()).has(("born", GValue::new("d", read))).gremlin_lang().unwrap();
    /// assert_eq!(t.parameters_text().unwrap(), r#"[d:datetime("1970-01-02T00:00Z")]"#);
    /// ```
    pub fn new(name: impl Into<String>, value: impl IntoLit) -> GValue {
        let (value, invalid) = match value.into_lit() {
            Ok(l) => (l, None),
            Err(e) => (Lit::Null, Some(e)),
        };
        GValue {
            name: name.into(),
            value,
            invalid,
        }
    }

    /// A parameter `name` bound to any [`serde::Serialize`] value, as
    /// [`de::to_value`](crate::format::de::to_value) makes a [`Value`] of it (a struct or map is a Map,
    /// a sequence a List; see there for every serde shape).
    ///
    /// ```
    /// use graphbinary_client::process::{GValue, GraphTraversalSource};
    ///
    /// #[derive(serde::Serialize)]
    /// struct Person<'a> { name: &'a str, age: i32 }
    /// let g = GraphTraversalSource::detached();
    /// let p = GValue::serialized("p", &Person { name: "marko", age: 29 });
    /// let t = g.merge_v(p).gremlin_lang().unwrap();
    /// assert_eq!(t.parameters_text().unwrap(), r#"[p:["name":"marko","age":29]]"#);
    /// ```
    #[cfg(feature = "serde")]
    pub fn serialized<T: serde::Serialize + ?Sized>(name: impl Into<String>, value: &T) -> GValue {
        match crate::format::de::to_value(value) {
            Ok(v) => GValue::new(name, v),
            Err(e) => GValue {
                name: name.into(),
                value: Lit::Null,
                invalid: Some(format!("the value does not serialize: {e}")),
            },
        }
    }

    /// The parameter name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The value.
    pub fn value(&self) -> &Lit {
        &self.value
    }

    /// Why the name cannot be a parameter name, or the value has no literal, if so.
    pub(crate) fn name_error(&self) -> Option<String> {
        let n = &self.name;
        if let Some(e) = &self.invalid {
            return Some(format!("parameter {n:?}: {e}"));
        }
        let mut chars = n.chars();
        let ident = match chars.next() {
            Some(c) if c.is_ascii_alphabetic() || c == '$' => {
                chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            }
            _ => false,
        };
        if !ident {
            return Some(format!(
                "parameter name {n:?} is not an ASCII identifier that starts with a letter or `$`"
            ));
        }
        if is_keyword(n) {
            return Some(format!(
                "parameter name {n:?} is a gremlin-lang keyword and cannot name a variable"
            ));
        }
        None
    }
}

/// Whether `word` is a keyword of the gremlin-lang lexer (or `g` / `__`).
pub fn is_keyword(word: &str) -> bool {
    KEYWORDS.binary_search(&word).is_ok()
}

/// One argument of a step: a literal, a parameter, an anonymous traversal, a predicate, a
/// strategy, or a value that cannot be an argument (kept to report it when the traversal is
/// built, never a panic).
#[derive(Debug, Clone)]
pub enum Arg {
    /// A literal.
    Lit(Lit),
    /// A named parameter.
    Param(GValue),
    /// An anonymous (child) traversal, from [`__`](super::__).
    Traversal(GraphTraversal),
    /// A predicate.
    P(P),
    /// A traversal strategy (`withStrategies`, `withoutStrategies`).
    Strategy(Strategy),
    /// A value that has no gremlin-lang form, with the reason.
    Invalid(String),
}

impl<L: Into<Lit>> From<L> for Arg {
    fn from(v: L) -> Arg {
        Arg::Lit(v.into())
    }
}

from_variants!(Arg: GValue => Param, GraphTraversal => Traversal, P => P, Strategy => Strategy);

impl From<&GraphTraversal> for Arg {
    fn from(v: &GraphTraversal) -> Arg {
        Arg::Traversal(v.clone())
    }
}

/// The argument of a decoded value: its literal (an element stands for its id), or
/// [`Arg::Invalid`] when it has none. Same as `Arg::from(value)`.
pub fn value_arg(v: Value) -> Arg {
    match Lit::try_from(v) {
        Ok(l) => Arg::Lit(l),
        Err(e) => Arg::Invalid(e),
    }
}

impl From<Value> for Arg {
    /// A result used as an argument: `g.v(vertex)` is `g.V(id)`.
    fn from(v: Value) -> Arg {
        value_arg(v)
    }
}

/// The arguments of a step call.
///
/// * `()`: no arguments: `g.v(())`, `.count(())`;
/// * one argument: `.out("knows")`, `.has_label(P::within(["a", "b"]))`, `.local(__::out(()))`;
/// * a tuple for several: `.has(("person", "name", "marko"))`, `.limit((Scope::Local, 2))`;
/// * an array, `Vec` or slice for varargs of one type: `.values(["name", "age"])`, `g.v([1, 2])`.
///
/// A list *literal* as a single argument is a [`Lit`]: `.inject((Lit::list([1, 2]),))` or
/// `.inject((vec![1, 2],))`.
pub trait IntoArgs {
    /// The arguments, in order.
    fn into_args(self) -> Vec<Arg>;
}

impl IntoArgs for () {
    fn into_args(self) -> Vec<Arg> {
        Vec::new()
    }
}

macro_rules! single_args {
    ($($t:ty),* $(,)?) => {$(
        impl IntoArgs for $t {
            fn into_args(self) -> Vec<Arg> {
                vec![Arg::from(self)]
            }
        }
    )*};
}
single_args!(
    Arg,
    Lit,
    GValue,
    GraphTraversal,
    &GraphTraversal,
    P,
    Strategy,
    bool,
    i8,
    i16,
    i32,
    i64,
    u16,
    u32,
    u64,
    f32,
    f64,
    &str,
    String,
    &String,
    char,
    uuid::Uuid,
    crate::value::DateTime,
    crate::value::Duration,
    crate::value::BigDecimal,
    crate::value::BigInteger,
    bytes::Bytes,
    Token,
    Value,
);

impl<L: Into<Lit>> IntoArgs for Option<L> {
    fn into_args(self) -> Vec<Arg> {
        vec![Arg::Lit(self.into())]
    }
}

impl<A: Into<Arg>, const N: usize> IntoArgs for [A; N] {
    fn into_args(self) -> Vec<Arg> {
        self.into_iter().map(Into::into).collect()
    }
}

impl<A: Into<Arg>> IntoArgs for Vec<A> {
    fn into_args(self) -> Vec<Arg> {
        self.into_iter().map(Into::into).collect()
    }
}

impl<A: Into<Arg> + Clone> IntoArgs for &[A] {
    fn into_args(self) -> Vec<Arg> {
        self.iter().cloned().map(Into::into).collect()
    }
}

macro_rules! tuple_args {
    ($(($($n:ident),+)),* $(,)?) => {$(
        impl<$($n: Into<Arg>),+> IntoArgs for ($($n,)+) {
            #[allow(non_snake_case)]
            fn into_args(self) -> Vec<Arg> {
                let ($($n,)+) = self;
                vec![$($n.into()),+]
            }
        }
    )*};
}
tuple_args!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F),
    (A, B, C, D, E, F, G),
    (A, B, C, D, E, F, G, H),
);

/// What one argument position of a grammar form accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// stringLiteral
    Str,
    /// integerLiteral
    Int,
    /// numericLiteral
    Num,
    /// booleanLiteral
    Bool,
    /// dateLiteral
    Date,
    /// genericLiteral
    Gen,
    /// genericMapLiteral
    Map,
    /// traversalPredicate
    P,
    /// nestedTraversal
    Trav,
    /// traversalStrategy
    Strategy,
    /// classType
    Class,
    /// the key of the `with` step
    WithKey,
    /// the value of the `with` step
    WithValue,
    /// traversalFunction: T or Column
    Function,
    /// a token of one class
    Token(TokenClass),
}

/// One argument position of a form: its kind and the suffixes `?` (null allowed), `$` (a
/// parameter allowed) and `*` (zero or more, last position only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub kind: Kind,
    pub null: bool,
    pub var: bool,
    pub many: bool,
}

impl Slot {
    pub(crate) const fn new(kind: Kind, null: bool, var: bool, many: bool) -> Slot {
        Slot {
            kind,
            null,
            var,
            many,
        }
    }

    /// Whether `arg` fits; `Some(true)` when it fits and is a parameter to write as its
    /// name, `Some(false)` when it fits as a value written in place.
    fn accepts(&self, arg: &Arg) -> Option<bool> {
        match arg {
            Arg::Param(g) => {
                if self.accepts_lit(&g.value) {
                    Some(self.var)
                } else {
                    None
                }
            }
            Arg::Lit(l) => self.accepts_lit(l).then_some(false),
            Arg::Traversal(_) => {
                matches!(self.kind, Kind::Trav | Kind::Gen | Kind::WithValue).then_some(false)
            }
            Arg::P(_) => (self.kind == Kind::P).then_some(false),
            Arg::Strategy(s) => match self.kind {
                Kind::Strategy => Some(false),
                Kind::Class => s.is_bare().then_some(false),
                _ => None,
            },
            // Fits anywhere: the error is reported when the traversal is built.
            Arg::Invalid(_) => Some(false),
        }
    }

    fn accepts_lit(&self, l: &Lit) -> bool {
        if matches!(l, Lit::Null) {
            return self.null || matches!(self.kind, Kind::Gen | Kind::WithValue);
        }
        match self.kind {
            Kind::Str => matches!(l, Lit::String(_)),
            Kind::Int => l.is_integer(),
            Kind::Num => l.is_numeric(),
            Kind::Bool => matches!(l, Lit::Bool(_)),
            Kind::Date => matches!(l, Lit::DateTime(_)),
            Kind::Gen => !matches!(l, Lit::Token(t) if !t.is_generic()),
            Kind::Map => matches!(l, Lit::Map(_)),
            Kind::WithKey => {
                matches!(l, Lit::String(_)) || matches!(l, Lit::Token(t) if t.is_with_key())
            }
            Kind::WithValue => !matches!(l, Lit::Token(t) if !t.is_generic() && !t.is_with_value()),
            Kind::Function => matches!(l, Lit::Token(Token::T(_) | Token::Column(_))),
            Kind::Token(TokenClass::Cardinality) => matches!(
                l,
                Lit::Token(Token::Cardinality(_)) | Lit::CardinalityValue(..)
            ),
            Kind::Token(c) => matches!(l, Lit::Token(t) if t.class() == c),
            Kind::P | Kind::Trav | Kind::Strategy | Kind::Class => false,
        }
    }
}

/// Matches `args` against the forms; on success, for each argument whether it is written as a
/// parameter name (`true`) or in place.
pub(crate) fn match_forms(forms: &[&[Slot]], args: &[Arg]) -> Option<Vec<bool>> {
    'forms: for form in forms {
        let mut out = Vec::with_capacity(args.len());
        let mut i = 0;
        for slot in form.iter() {
            if slot.many {
                while i < args.len() {
                    match slot.accepts(&args[i]) {
                        Some(p) => out.push(p),
                        None => continue 'forms,
                    }
                    i += 1;
                }
            } else {
                match args.get(i).and_then(|a| slot.accepts(a)) {
                    Some(p) => out.push(p),
                    None => continue 'forms,
                }
                i += 1;
            }
        }
        if i == args.len() {
            return Some(out);
        }
    }
    None
}

/// A short description of an argument for error messages.
pub(crate) fn describe(arg: &Arg) -> String {
    match arg {
        Arg::Lit(l) => match l {
            Lit::Null => "null".into(),
            Lit::Token(t) => t.to_string(),
            Lit::CardinalityValue(c, _) => format!("{c}(..)"),
            other => {
                let s = format!("{other:?}");
                s.split(['(', ' ']).next().unwrap_or("literal").to_owned()
            }
        },
        Arg::Param(g) => format!("parameter {}", g.name),
        Arg::Traversal(_) => "traversal".into(),
        Arg::P(_) => "predicate".into(),
        Arg::Strategy(_) => "strategy".into(),
        Arg::Invalid(_) => "invalid value".into(),
    }
}
