//! [`GraphTraversalSource`], [`GraphTraversal`] and their GremlinLang text; terminal steps.

use super::arg::{describe, match_forms, Arg, IntoArgs, Slot};
use super::generated::STEPS;
use super::predicate::{PNode, P};
use crate::client::{Client, Error, MaterializeProperties, RequestBuilder, ResultStream};
use crate::lang::{write_string, Lit, ServerVersion, MAX_DEPTH};
use crate::value::Value;

/// Where a Gremlin name of [`STEPS`] belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StepOn {
    /// A [`GraphTraversalSource`] method returning a new source.
    Source,
    /// A [`GraphTraversalSource`] method starting a [`GraphTraversal`].
    Spawn,
    /// A [`GraphTraversal`] step, also a function of [`__`](super::__).
    Step,
    /// A function of [`P`] or [`TextP`](super::TextP).
    Predicate,
}

/// A Gremlin name and the Rust name of its method (the entries of [`STEPS`]).
#[derive(Debug, Clone, Copy)]
pub struct StepInfo {
    /// The gremlin-lang name, e.g. `hasLabel`.
    pub gremlin: &'static str,
    /// The Rust method name, e.g. `has_label`.
    pub rust: &'static str,
    /// Where it belongs.
    pub on: StepOn,
    /// Its grammar forms.
    #[doc(hidden)]
    pub def: &'static StepDef,
}

/// What the generated code knows of one step: its gremlin name and its grammar forms.
#[doc(hidden)]
#[derive(Debug)]
pub struct StepDef {
    /// The gremlin-lang name, e.g. `hasLabel`.
    pub gremlin: &'static str,
    pub(crate) forms: &'static [&'static [Slot]],
    /// The forms as text, for error messages: `has(str?) | has(str?, gen$) | ...`.
    pub(crate) signature: &'static str,
    /// The first TinkerPop version that has it, where that is newer than 3.7 (`since` in
    /// `spec/steps.toml`).
    pub(crate) since: Option<ServerVersion>,
}

/// A traversal as GremlinLang: the script and its named parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct GremlinLang {
    /// The script, e.g. `g.V().has("name",n).out("knows")`.
    pub gremlin: String,
    /// The parameters the script names, in order of first use (empty in literal-only mode).
    pub parameters: Vec<(String, Lit)>,
}

impl GremlinLang {
    /// The parameters as the gremlin-lang map literal of the request's `parameters` field,
    /// e.g. `[n:"marko",k:1L]`; `[:]` when there are none.
    pub fn parameters_text(&self) -> Result<String, Error> {
        if self.parameters.is_empty() {
            return Ok("[:]".to_owned());
        }
        let mut s = String::from("[");
        for (i, (k, v)) in self.parameters.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            s.push_str(k);
            s.push(':');
            v.write(&mut s).map_err(Error::Build)?;
        }
        s.push(']');
        Ok(s)
    }
}

/// One step of a traversal (or source method): its name and arguments, each with whether it
/// is written as a parameter name.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    name: &'static str,
    args: Vec<(Arg, bool)>,
    /// Its definition's `since`.
    since: Option<ServerVersion>,
}

/// The options of [`GraphTraversalSource::with`] sent as request fields, not in the script.
const REQUEST_FIELDS: &[&str] = &[
    "batchSize",
    "evaluationTimeout",
    "timeoutMs",
    "timeoutMillis",
    "materializeProperties",
    "bulkResults",
];

/// Request options set with [`GraphTraversalSource::with`].
#[derive(Debug, Clone, Default)]
struct Options {
    entries: Vec<(String, Lit)>,
}

impl Options {
    fn set(&mut self, key: String, value: Lit) {
        match self.entries.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.entries.push((key, value)),
        }
    }
}

/// The start of every traversal, `g`: source methods (`with_strategies`, `with_side_effect`,
/// ...) return a new source, spawn methods (`v`, `e`, `inject`, `add_v`, `merge_v`, ...) start
/// a [`GraphTraversal`]. Cheap to clone; reusable.
///
/// ```no_run
/// # async fn demo() -> Result<(), graphbinary_client::client::Error> {
/// use graphbinary_client::process::{GraphTraversalSource, __};
/// use graphbinary_client::Client;
///
/// let g = GraphTraversalSource::new(Client::new("http://127.0.0.1:8182/gremlin")?);
/// let names = g
///     .v(())
///     .has(("person", "name", "marko"))
///     .out("knows")
///     .values("name")
///     .to_list_as::<String>()
///     .await?;
/// # drop(names); Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct GraphTraversalSource {
    client: Option<Client>,
    alias: String,
    literal_only: bool,
    idempotent_reads: bool,
    steps: Vec<Step>,
    options: Options,
    error: Option<String>,
}

/// The steps that change the graph (or may: `call` runs a service, `io` may write): a
/// traversal holding one, also in a child traversal, is never sent as idempotent.
const WRITE_STEPS: &[&str] = &[
    "addV", "addE", "mergeV", "mergeE", "property", "drop", "io", "call",
];

impl GraphTraversalSource {
    /// A source that submits through `client`, to the server's traversal source `g`.
    pub fn new(client: Client) -> GraphTraversalSource {
        GraphTraversalSource {
            client: Some(client),
            ..GraphTraversalSource::detached()
        }
    }

    /// A source with no client: its traversals can be written as GremlinLang
    /// ([`GraphTraversal::gremlin_lang`]) but not submitted.
    pub fn detached() -> GraphTraversalSource {
        GraphTraversalSource {
            client: None,
            alias: "g".to_owned(),
            literal_only: false,
            idempotent_reads: false,
            steps: Vec::new(),
            options: Options::default(),
            error: None,
        }
    }

    /// The server-side traversal source to run against (the request's `g` field; default
    /// `g`). The script itself always starts with `g`.
    pub fn alias(mut self, name: impl Into<String>) -> GraphTraversalSource {
        self.alias = name.into();
        self
    }

    /// The client this source submits through (none when detached), and its traversal source
    /// name: for requests a traversal does not write, such as the batch writer's one-binding
    /// form.
    pub(crate) fn client_and_alias(&self) -> (Option<&Client>, &str) {
        (self.client.as_ref(), &self.alias)
    }

    /// Literal-only mode, for servers that take no parameters: every [`GValue`](super::GValue)
    /// is written into the script as its literal and no `parameters` field is sent.
    pub fn literal_only(mut self, on: bool) -> GraphTraversalSource {
        self.literal_only = on;
        self
    }

    /// Sends the traversals of this source that only read as
    /// [`idempotent`](crate::client::RequestBuilder::idempotent) requests, so that the client
    /// retries them after a failure before their first result (another host, a reset, a
    /// 429 / 503 / 596; see [`RetryPolicy`](crate::client::RetryPolicy)). A traversal with a
    /// step that changes the graph (`addV`, `addE`, `mergeV`, `mergeE`, `property`, `drop`,
    /// and `io` and `call`, which may), in it or in any child traversal, is sent as not
    /// idempotent whatever this says. Default off: say so only when reads of this source may
    /// run twice (a read inside a transaction, or with side effects of its own, should not).
    ///
    /// ```
    /// # fn demo() -> Result<(), graphbinary_client::client::Error> {
    /// use graphbinary_client::process::{GraphTraversalSource, __};
    ///
    /// let client = graphbinary_client::Client::new("http://127.0.0.1:8182/gremlin")?;
    /// let g = GraphTraversalSource::new(client).idempotent_reads(true);
    /// assert!(g.v(()).out("knows").values("name").request()?.is_idempotent());
    /// assert!(!g.v(()).coalesce((__::out("x"), __::add_v("x"))).request()?.is_idempotent());
    /// assert!(!g.add_v("person").request()?.is_idempotent());
    /// # Ok(()) }
    /// ```
    pub fn idempotent_reads(mut self, on: bool) -> GraphTraversalSource {
        self.idempotent_reads = on;
        self
    }

    /// A request option, as the official drivers' `with(key, value)`: not written into the
    /// script but sent as a field of the request. Known keys: `batchSize` (integer),
    /// `evaluationTimeout` / `timeoutMs` (integer, milliseconds), `materializeProperties`
    /// (`"all"` or `"tokens"`), `bulkResults` (boolean; the default here is `true`, as in the
    /// drivers, and results are expanded). Other keys (`singlelabel`, a strategy's option, ...)
    /// are not request fields: they are written into the script as the grammar's source step
    /// `with("key",value)`, so that they reach the traversal. A known key with a value of the
    /// wrong type makes submitting fail.
    pub fn with(&self, key: impl Into<String>, value: impl Into<Lit>) -> GraphTraversalSource {
        let mut s = self.clone();
        s.options.set(key.into(), value.into());
        s
    }

    /// The options set with [`GraphTraversalSource::with`] (or an `OptionsStrategy`).
    pub fn options(&self) -> &[(String, Lit)] {
        &self.options.entries
    }

    /// The client, if any.
    pub fn client(&self) -> Option<&Client> {
        self.client.as_ref()
    }

    /// Adds a source method (called by the generated methods).
    pub(crate) fn add_source(&self, def: &'static StepDef, args: Vec<Arg>) -> GraphTraversalSource {
        let mut s = self.clone();
        let mut args = args;
        if def.gremlin == "withStrategies" {
            // OptionsStrategy becomes request options, as in the drivers.
            let mut kept = Vec::with_capacity(args.len());
            for a in args {
                match a {
                    Arg::Strategy(st) if st.name == "OptionsStrategy" => {
                        for (k, v) in st.config {
                            match v {
                                Arg::Lit(l) => s.options.set(k, l),
                                Arg::Param(g) => s.options.set(k, g.value().clone()),
                                _ => {
                                    s.error.get_or_insert(format!(
                                        "OptionsStrategy option {k:?} must be a literal"
                                    ));
                                }
                            }
                        }
                    }
                    other => kept.push(other),
                }
            }
            if kept.is_empty() {
                return s;
            }
            args = kept;
        }
        match check(def, args) {
            Ok(step) => s.steps.push(step),
            Err(e) => {
                s.error.get_or_insert(e);
            }
        }
        s
    }

    /// Calls the source method named `gremlin` (`withSideEffect`, ...) with `args`, for
    /// code that has Gremlin names at run time (e.g. a Gherkin runner); the same as the
    /// generated method. An unknown name makes the traversal fail to build.
    pub fn source_step(&self, gremlin: &str, args: impl IntoArgs) -> GraphTraversalSource {
        match find_def(StepOn::Source, gremlin) {
            Ok(def) => self.add_source(def, args.into_args()),
            Err(e) => {
                let mut s = self.clone();
                s.error.get_or_insert(e);
                s
            }
        }
    }

    /// Starts a traversal with the spawn method named `gremlin` (`V`, `inject`, ...), as
    /// [`GraphTraversalSource::source_step`] does for source methods.
    ///
    /// ```
    /// use graphbinary_client::process::GraphTraversalSource;
    ///
    /// let g = GraphTraversalSource::detached();
    /// let t = g.spawn_step("V", ()).step("hasLabel", "person").step("outE", ());
    /// assert_eq!(t.gremlin_lang().unwrap().gremlin, r#"g.V().hasLabel("person").outE()"#);
    /// ```
    pub fn spawn_step(&self, gremlin: &str, args: impl IntoArgs) -> GraphTraversal {
        match find_def(StepOn::Spawn, gremlin) {
            Ok(def) => self.spawn(def, args.into_args()),
            Err(e) => GraphTraversal {
                source: Some(Box::new(self.clone())),
                steps: Vec::new(),
                error: Some(e),
            },
        }
    }

    /// Starts a traversal with a spawn method (called by the generated methods).
    pub(crate) fn spawn(&self, def: &'static StepDef, args: Vec<Arg>) -> GraphTraversal {
        GraphTraversal {
            source: Some(Box::new(self.clone())),
            steps: Vec::new(),
            error: None,
        }
        .add_step(def, args)
    }
}

/// The definition of the `on` method named `gremlin`, or an error naming it.
pub(crate) fn find_def(on: StepOn, gremlin: &str) -> Result<&'static StepDef, String> {
    STEPS
        .iter()
        .find(|s| s.on == on && s.gremlin == gremlin)
        .map(|s| s.def)
        .ok_or_else(|| format!("the grammar has no {on:?} method named {gremlin:?}"))
}

fn check(def: &'static StepDef, args: Vec<Arg>) -> Result<Step, String> {
    match match_forms(def.forms, &args) {
        Some(flags) => Ok(Step {
            name: def.gremlin,
            args: args.into_iter().zip(flags).collect(),
            since: def.since,
        }),
        None => Err(format!(
            "{}({}) matches no form of the grammar ({})",
            def.gremlin,
            args.iter().map(describe).collect::<Vec<_>>().join(", "),
            def.signature
        )),
    }
}

/// A traversal: spawned from a [`GraphTraversalSource`] (then it can be submitted with a
/// terminal step), or anonymous, from [`__`](super::__), to pass as an argument.
///
/// Steps are methods named as in Gremlin in snake case (`has_label`, `out_e`, `value_map`),
/// with `_` after a Rust keyword (`as_`, `in_`, `where_`, `match_`); their arguments are one
/// [`IntoArgs`](super::IntoArgs) (`()`, a value, a tuple, an array), or plain parameters for
/// steps whose every form has the same fixed arity. Arguments are checked against the
/// grammar's forms of the step; a mismatch is kept and reported by
/// [`GraphTraversal::gremlin_lang`] and the terminal steps, never a panic.
#[derive(Debug, Clone)]
pub struct GraphTraversal {
    source: Option<Box<GraphTraversalSource>>,
    steps: Vec<Step>,
    error: Option<String>,
}

impl GraphTraversal {
    /// An anonymous traversal with no steps yet (what `__` starts).
    pub fn anonymous() -> GraphTraversal {
        GraphTraversal {
            source: None,
            steps: Vec::new(),
            error: None,
        }
    }

    /// The traversal with `e` as its build error (kept if it already has one): for the
    /// typed operations ([`super::typed`]), whose input may have no literal.
    pub(crate) fn with_error(mut self, e: String) -> GraphTraversal {
        self.error.get_or_insert(e);
        self
    }

    /// Whether it was started by [`__`](super::__) rather than by a source.
    pub fn is_anonymous(&self) -> bool {
        self.source.is_none()
    }

    /// Adds a step (called by the generated methods).
    pub(crate) fn add_step(mut self, def: &'static StepDef, args: Vec<Arg>) -> GraphTraversal {
        if self.error.is_none() {
            match check(def, args) {
                Ok(step) => self.steps.push(step),
                Err(e) => self.error = Some(e),
            }
        }
        self
    }

    /// Adds the step named `gremlin` (`hasLabel`, `outE`, ...) with `args`, for code that has
    /// Gremlin names at run time (e.g. a Gherkin runner); the same as the generated method.
    /// An unknown name makes the traversal fail to build.
    pub fn step(self, gremlin: &str, args: impl IntoArgs) -> GraphTraversal {
        match find_def(StepOn::Step, gremlin) {
            Ok(def) => self.add_step(def, args.into_args()),
            Err(e) => GraphTraversal {
                error: self.error.or(Some(e)),
                ..self
            },
        }
    }

    /// The traversal as GremlinLang: its script and parameters (none in literal-only mode).
    ///
    /// ```
    /// use graphbinary_client::process::{GraphTraversalSource, Order, __};
    ///
    /// let g = GraphTraversalSource::detached();
    /// let t = g.v(()).has_label("person").order(()).by(("age", Order::Desc)).limit(2).values("name");
    /// assert_eq!(
    ///     t.gremlin_lang().unwrap().gremlin,
    ///     r#"g.V().hasLabel("person").order().by("age",Order.desc).limit(2).values("name")"#
    /// );
    /// ```
    pub fn gremlin_lang(&self) -> Result<GremlinLang, Error> {
        self.gremlin_lang_for(false)
    }

    /// [`gremlin_lang`](Self::gremlin_lang); with `groovy`, for a TinkerPop 3 server that
    /// evaluates the text as Groovy: a literal that has no Groovy form (a Byte `1B`, Short `2S`,
    /// UUID `UUID("...")`, Set `{...}`, BigInteger `3N`, BigDecimal `1.5M`, Char, Duration
    /// `Duration(s,n)`, Binary `Binary("...")` or a provider's PDT such as a JanusGraph
    /// Geoshape, also inside a List or Map) is sent as a generated parameter `_gb3_N` (a
    /// binding; Groovy takes a variable wherever an expression goes), unless the source is
    /// literal-only; so is a JanusGraph predicate ([`super::janusgraph`]), which a
    /// literal-only source refuses.
    pub(crate) fn gremlin_lang_for(&self, groovy: bool) -> Result<GremlinLang, Error> {
        let literal_only = self.source.as_ref().is_some_and(|s| s.literal_only);
        let mut w = Writer {
            out: String::new(),
            params: Vec::new(),
            literal_only,
            depth: 0,
            groovy,
        };
        w.traversal(self, true).map_err(Error::Build)?;
        Ok(GremlinLang {
            gremlin: w.out,
            parameters: w.params,
        })
    }

    /// The client's request for this traversal: script, parameters and the source's options.
    /// The hook for anything the terminal steps do not cover (send it with
    /// [`RequestBuilder::send`]).
    pub fn request(&self) -> Result<RequestBuilder, Error> {
        let source = self.source.as_ref().ok_or_else(|| {
            Error::InvalidRequest("an anonymous traversal cannot be submitted".into())
        })?;
        let client = source.client.as_ref().ok_or_else(|| {
            Error::InvalidRequest("the traversal source has no client (detached)".into())
        })?;
        if client.is_cosmos() {
            if let Some(what) = cosmos_refuses(&self.steps) {
                return Err(crate::client::cosmos::unsupported(what));
            }
        }
        if let Some(server) = client.server_version() {
            if let Some((what, needs)) = self.lacking(server, client.is_tinkerpop3()) {
                return Err(Error::NeedsVersion {
                    what,
                    needs,
                    server,
                });
            }
        }
        let lang = self.gremlin_lang_for(client.is_tinkerpop3())?;
        let mut req = client.request(lang.gremlin).g(source.alias.clone());
        for (name, value) in &lang.parameters {
            if client.is_tinkerpop3() {
                // A GraphBinary 1 binding of the literal's own type.
                let v = crate::value::Value::try_from(value)
                    .map_err(|e| Error::Build(format!("parameter {name:?}: {e}")))?;
                req = req.param(name.clone(), v);
            } else {
                let mut text = String::new();
                value.write(&mut text).map_err(Error::Build)?;
                req = req.param_literal(name.clone(), text);
            }
        }
        let mut bulk = true;
        for (key, value) in &source.options.entries {
            let bad =
                || Error::InvalidRequest(format!("option {key:?} cannot take the value {value:?}"));
            let int = || match value {
                Lit::Byte(n) => Some(i64::from(*n)),
                Lit::Short(n) => Some(i64::from(*n)),
                Lit::Int(n) => Some(i64::from(*n)),
                Lit::Long(n) => Some(*n),
                _ => None,
            };
            match key.as_str() {
                "batchSize" => {
                    let n = int().and_then(|n| u32::try_from(n).ok()).ok_or_else(bad)?;
                    req = req.batch_size(n);
                }
                "evaluationTimeout" | "timeoutMs" | "timeoutMillis" => {
                    let n = int().and_then(|n| u64::try_from(n).ok()).ok_or_else(bad)?;
                    req = req.timeout_millis(n);
                }
                "materializeProperties" => {
                    let m = match value {
                        Lit::String(s) if s == "all" => MaterializeProperties::All,
                        Lit::String(s) if s == "tokens" => MaterializeProperties::Tokens,
                        _ => return Err(bad()),
                    };
                    req = req.materialize_properties(m);
                }
                "bulkResults" => match value {
                    Lit::Bool(b) => bulk = *b,
                    _ => return Err(bad()),
                },
                _ => {}
            }
        }
        let idempotent = source.idempotent_reads && !self.writes();
        Ok(req.bulk_results(bulk).idempotent(idempotent))
    }

    /// The first step, predicate or token of this traversal (its source's, its child
    /// traversals', its literals') that `server` lacks, as Gremlin writes it, and the version
    /// that has it. With `groovy`, a root traversal's last `discard()` is not one: it is
    /// written as Groovy's `iterate()` (see [`Writer`]).
    fn lacking(&self, server: ServerVersion, groovy: bool) -> Option<(String, ServerVersion)> {
        fn lit(l: &Lit, server: ServerVersion) -> Option<(String, ServerVersion)> {
            match l {
                Lit::Token(t) => t
                    .since()
                    .filter(|v| *v > server)
                    .map(|v| (t.to_string(), v)),
                Lit::List(items) | Lit::Set(items) => items.iter().find_map(|i| lit(i, server)),
                Lit::Map(entries) => entries
                    .iter()
                    .find_map(|(k, v)| lit(k, server).or_else(|| lit(v, server))),
                Lit::CardinalityValue(_, v) => lit(v, server),
                _ => None,
            }
        }
        fn arg(a: &Arg, server: ServerVersion) -> Option<(String, ServerVersion)> {
            match a {
                Arg::Lit(l) => lit(l, server),
                Arg::Param(g) => lit(g.value(), server),
                Arg::Traversal(t) => t.lacking(server, false),
                Arg::P(p) => pred(p, server),
                Arg::Strategy(s) => s.config.iter().find_map(|(_, a)| arg(a, server)),
                Arg::Invalid(_) => None,
            }
        }
        fn pred(p: &P, server: ServerVersion) -> Option<(String, ServerVersion)> {
            match &p.node {
                PNode::Op { name, args, since } => since
                    .filter(|v| *v > server)
                    .map(|v| (format!("P.{name}()"), v))
                    .or_else(|| args.iter().find_map(|(a, _)| arg(a, server))),
                PNode::And(a, b) | PNode::Or(a, b) => pred(a, server).or_else(|| pred(b, server)),
                PNode::Negate(a) => pred(a, server),
                PNode::Provider { .. } | PNode::Invalid(_) => None,
            }
        }
        fn step(s: &Step, server: ServerVersion) -> Option<(String, ServerVersion)> {
            s.since
                .filter(|v| *v > server)
                .map(|v| (format!("{}()", s.name), v))
                .or_else(|| s.args.iter().find_map(|(a, _)| arg(a, server)))
        }
        let root = self.source.as_ref();
        let source = root.and_then(|src| {
            src.steps
                .iter()
                .find_map(|s| step(s, server))
                .or_else(|| src.options.entries.iter().find_map(|(_, v)| lit(v, server)))
        });
        source.or_else(|| {
            let n = self.steps.len();
            self.steps.iter().enumerate().find_map(|(i, s)| {
                let iterate = groovy
                    && root.is_some()
                    && i + 1 == n
                    && s.name == "discard"
                    && s.args.is_empty();
                if iterate {
                    None
                } else {
                    step(s, server)
                }
            })
        })
    }

    /// Whether a step of this traversal or of a child traversal changes (or may change) the
    /// graph (see [`WRITE_STEPS`]).
    fn writes(&self) -> bool {
        fn any(steps: &[Step]) -> bool {
            steps.iter().any(|s| {
                WRITE_STEPS.contains(&s.name)
                    || s.args.iter().any(|(a, _)| match a {
                        Arg::Traversal(t) => t.writes(),
                        _ => false,
                    })
            })
        }
        any(&self.steps) || self.source.as_ref().is_some_and(|s| any(&s.steps))
    }

    /// Submits the traversal; the results stream as they arrive (the client's
    /// [`ResultStream`]).
    pub async fn stream(self) -> Result<ResultStream, Error> {
        self.request()?.send().await
    }

    /// All results (Gremlin's `toList()`).
    pub async fn to_list(self) -> Result<Vec<Value>, Error> {
        self.stream().await?.all().await
    }

    /// All results, each deserialized into `T` as
    /// [`ResultStream::typed`](crate::client::ResultStream::typed) does: `String`, `i64`,
    /// `f64`, `bool`, `Vertex`, `DateTime`, `Value`, `Option<T>`, a `#[derive(Deserialize)]`
    /// struct for an `element_map()` or `project(..)`, ... (the [`de`](crate::format::de) module's
    /// table says what each GraphBinary type becomes).
    ///
    /// ```no_run
    /// # async fn f(g: graphbinary_client::process::GraphTraversalSource) -> Result<(), graphbinary_client::client::Error> {
    /// #[derive(serde::Deserialize)]
    /// struct Person { name: String, age: i32 }
    /// let people: Vec<Person> = g
    ///     .v(())
    ///     .has_label("person")
    ///     .project(("name", "age"))
    ///     .by("name")
    ///     .by("age")
    ///     .to_list_as()
    ///     .await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "serde")]
    pub async fn to_list_as<T: serde::de::DeserializeOwned>(self) -> Result<Vec<T>, Error> {
        use futures::TryStreamExt;
        self.stream().await?.typed::<T>().try_collect().await
    }

    /// All results, each converted to `T` (`String`, `i64`, `f64`, `bool`, `Vertex`, ... any
    /// `TryFrom<Value>`).
    #[cfg(not(feature = "serde"))]
    pub async fn to_list_as<T>(self) -> Result<Vec<T>, Error>
    where
        T: TryFrom<Value>,
        T::Error: fmt::Display + 'static,
    {
        self.to_list()
            .await?
            .into_iter()
            .map(|v| convert(v))
            .collect()
    }

    /// The first result, or `None` when there is none (Gremlin's `next()` / `tryNext()`).
    /// Reading stops after it: the rest of the response is not read.
    #[allow(clippy::should_implement_trait)]
    pub async fn next(self) -> Result<Option<Value>, Error> {
        use futures::TryStreamExt;
        let mut s = self.stream().await?;
        s.try_next().await
    }

    /// The first `n` results, or all when there are fewer (Gremlin's `next(n)`). Reading
    /// stops after them.
    pub async fn next_n(self, n: usize) -> Result<Vec<Value>, Error> {
        use futures::TryStreamExt;
        let mut out = Vec::new();
        if n == 0 {
            return Ok(out);
        }
        let mut s = self.stream().await?;
        while let Some(v) = s.try_next().await? {
            out.push(v);
            if out.len() == n {
                break;
            }
        }
        Ok(out)
    }

    /// The first result deserialized into `T` (as [`to_list_as`](Self::to_list_as)), or
    /// `None` when there is none. Reading stops after it.
    #[cfg(feature = "serde")]
    pub async fn next_as<T: serde::de::DeserializeOwned>(self) -> Result<Option<T>, Error> {
        use futures::TryStreamExt;
        let mut s = self.stream().await?.typed::<T>();
        s.try_next().await
    }

    /// The first result converted to `T`, or `None` when there is none.
    #[cfg(not(feature = "serde"))]
    pub async fn next_as<T>(self) -> Result<Option<T>, Error>
    where
        T: TryFrom<Value>,
        T::Error: fmt::Display + 'static,
    {
        self.next().await?.map(convert).transpose()
    }

    /// Whether there is at least one result (Gremlin's `hasNext()`).
    pub async fn has_next(self) -> Result<bool, Error> {
        Ok(self.next().await?.is_some())
    }

    /// Runs the traversal for its side effects, discarding results (Gremlin's `iterate()`,
    /// which the drivers send with a final `discard()` step).
    pub async fn iterate(self) -> Result<(), Error> {
        let t = self.discard();
        let s = t.stream().await?;
        s.count().await.map(|_| ())
    }
}

/// What Azure Cosmos DB is documented to refuse among `steps` and those of their child
/// traversals, as [`Error::Unsupported`]'s text: the `match()` step, `property(set, ...)`
/// and a null, List, Set or Map as a property value (Cosmos takes primitive values only).
/// Lambdas cannot be written with this API (gremlin-lang has none); a script's are refused
/// by the client (`client::cosmos::check_script`).
fn cosmos_refuses(steps: &[Step]) -> Option<String> {
    use crate::lang::tokens::{Cardinality, Token};
    fn lit(a: &Arg) -> Option<&Lit> {
        match a {
            Arg::Lit(l) => Some(l),
            Arg::Param(g) => Some(g.value()),
            _ => None,
        }
    }
    fn not_primitive(l: &Lit) -> Option<String> {
        let what = match l {
            Lit::Null => "a null",
            Lit::List(_) => "a List",
            Lit::Set(_) => "a Set",
            Lit::Map(_) => "a Map",
            Lit::CardinalityValue(_, v) => return not_primitive(v),
            _ => return None,
        };
        Some(format!(
            "{what} as a property value (Cosmos DB takes primitive values)"
        ))
    }
    for step in steps {
        if step.name == "match" {
            return Some("the match() step".into());
        }
        if step.name == "property" {
            let args: Vec<Option<&Lit>> = step.args.iter().map(|(a, _)| lit(a)).collect();
            let set = |l: &Lit| {
                matches!(
                    l,
                    Lit::Token(Token::Cardinality(Cardinality::Set))
                        | Lit::CardinalityValue(Cardinality::Set, _)
                )
            };
            if args.iter().flatten().any(|l| set(l)) {
                return Some("property(set, ...) (Cardinality.set)".into());
            }
            let value = match args.as_slice() {
                [Some(Lit::Token(Token::Cardinality(_))), _, v, ..] => *v,
                [Some(Lit::Map(entries))] => {
                    if let Some(w) = entries.iter().find_map(|(_, v)| not_primitive(v)) {
                        return Some(w);
                    }
                    None
                }
                [_, v, ..] => *v,
                _ => None,
            };
            if let Some(w) = value.and_then(not_primitive) {
                return Some(w);
            }
        }
        for (a, _) in &step.args {
            if let Arg::Traversal(t) = a {
                if let Some(w) = cosmos_refuses(&t.steps) {
                    return Some(w);
                }
            }
        }
    }
    None
}

#[cfg(not(feature = "serde"))]
fn convert<T>(v: Value) -> Result<T, Error>
where
    T: TryFrom<Value>,
    T::Error: fmt::Display + 'static,
{
    T::try_from(v).map_err(Error::conversion::<T, _>)
}

/// Writes traversals, collecting parameters.
struct Writer {
    out: String,
    params: Vec<(String, Lit)>,
    literal_only: bool,
    /// Nesting of child traversals and predicates.
    depth: usize,
    /// Bind the literals Groovy cannot read (see [`GraphTraversal::gremlin_lang_for`]).
    groovy: bool,
}

/// Whether `l` holds a literal with no Groovy form that a binding can carry.
fn needs_binding(l: &Lit) -> bool {
    match l {
        Lit::Byte(_)
        | Lit::Short(_)
        | Lit::Uuid(_)
        | Lit::Set(_)
        | Lit::BigInt(_)
        | Lit::BigDecimal(_)
        | Lit::Char(_)
        | Lit::Duration(_)
        | Lit::Binary(_)
        // A provider's type (a JanusGraph Geoshape): the binding carries its custom type.
        | Lit::PrimitivePdt(_)
        | Lit::CompositePdt(_) => true,
        Lit::List(items) => items.iter().any(needs_binding),
        Lit::Map(entries) => entries
            .iter()
            .any(|(k, v)| needs_binding(k) || needs_binding(v)),
        _ => false,
    }
}

impl Writer {
    /// A literal in place: gremlin-lang, or for Groovy a Groovy expression of the same value.
    fn lit(&mut self, l: &Lit) -> Result<(), String> {
        if self.groovy {
            l.write_groovy(&mut self.out)
        } else {
            l.write(&mut self.out)
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "traversals and predicates nested deeper than {MAX_DEPTH} levels"
            ));
        }
        Ok(())
    }

    fn traversal(&mut self, t: &GraphTraversal, root: bool) -> Result<(), String> {
        self.enter()?;
        let r = self.traversal_inner(t, root);
        self.depth -= 1;
        r
    }

    fn traversal_inner(&mut self, t: &GraphTraversal, root: bool) -> Result<(), String> {
        if let Some(e) = &t.error {
            return Err(e.clone());
        }
        match (&t.source, root) {
            (Some(source), true) => {
                if let Some(e) = &source.error {
                    return Err(e.clone());
                }
                self.out.push('g');
                for s in &source.steps {
                    self.step(s)?;
                }
                for (k, v) in &source.options.entries {
                    if !REQUEST_FIELDS.contains(&k.as_str()) {
                        self.out.push_str(".with(");
                        if self.groovy {
                            crate::lang::write_groovy_string(&mut self.out, k);
                        } else {
                            write_string(&mut self.out, k);
                        }
                        self.out.push(',');
                        self.lit(v)?;
                        self.out.push(')');
                    }
                }
            }
            (None, false) => {
                if t.steps.is_empty() {
                    return Err("an anonymous traversal needs at least one step".into());
                }
                self.out.push_str("__");
            }
            (None, true) => {
                return Err("an anonymous traversal cannot be written as a script; start it from a GraphTraversalSource".into())
            }
            (Some(_), false) => {
                return Err("a child traversal must be anonymous: start it with __, not with a GraphTraversalSource".into())
            }
        }
        for (i, s) in t.steps.iter().enumerate() {
            // A root traversal's last `discard()` (what `iterate` adds) is Groovy's
            // `.iterate()` for a TinkerPop 3 server: `discard()` is a step of 3.8 only (3.7 and
            // JanusGraph 1.1 call it `none()`, which 3.8 made a filter); `iterate()` discards
            // the results alike on every 3.x.
            if self.groovy
                && root
                && i + 1 == t.steps.len()
                && s.name == "discard"
                && s.args.is_empty()
            {
                self.out.push_str(".iterate()");
                continue;
            }
            self.step(s)?;
        }
        Ok(())
    }

    fn step(&mut self, s: &Step) -> Result<(), String> {
        self.out.push('.');
        self.out.push_str(s.name);
        self.out.push('(');
        self.args(&s.args)?;
        self.out.push(')');
        Ok(())
    }

    fn args(&mut self, args: &[(Arg, bool)]) -> Result<(), String> {
        for (i, (a, param)) in args.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.arg(a, *param)?;
        }
        Ok(())
    }

    fn arg(&mut self, a: &Arg, as_param: bool) -> Result<(), String> {
        match a {
            // Groovy takes a variable wherever an expression goes, whatever gremlin-lang allows.
            Arg::Lit(l) if self.groovy && !self.literal_only && needs_binding(l) => {
                let name = format!("_gb3_{}", self.params.len());
                self.params.push((name.clone(), l.clone()));
                self.out.push_str(&name);
                Ok(())
            }
            Arg::Lit(l) => self.lit(l),
            Arg::Param(g) => {
                if let Some(e) = g.name_error() {
                    return Err(e);
                }
                // gremlin-lang takes a parameter in some places only; Groovy takes a variable
                // wherever an expression goes.
                if (!as_param && !self.groovy) || self.literal_only {
                    return self.lit(g.value());
                }
                match self.params.iter().find(|(k, _)| k == g.name()) {
                    Some((_, v)) if v != g.value() => {
                        return Err(format!(
                            "parameter {:?} is bound to two different values",
                            g.name()
                        ))
                    }
                    Some(_) => {}
                    None => self.params.push((g.name().to_owned(), g.value().clone())),
                }
                self.out.push_str(g.name());
                Ok(())
            }
            Arg::Traversal(t) => self.traversal(t, false),
            Arg::P(p) => self.predicate(p),
            Arg::Strategy(s) => {
                if let Some(e) = s.error() {
                    return Err(e);
                }
                if s.config.is_empty() {
                    self.out.push_str(&s.name);
                    return Ok(());
                }
                self.out.push_str("new ");
                self.out.push_str(&s.name);
                self.out.push('(');
                for (i, (k, v)) in s.config.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.out.push_str(k);
                    self.out.push(':');
                    match v {
                        Arg::Lit(_) | Arg::Param(_) | Arg::Traversal(_) => self.arg(v, true)?,
                        other => {
                            return Err(format!(
                                "strategy configuration {k:?} cannot be a {}",
                                describe(other)
                            ))
                        }
                    }
                }
                self.out.push(')');
                Ok(())
            }
            Arg::Invalid(e) => Err(e.clone()),
        }
    }

    fn predicate(&mut self, p: &P) -> Result<(), String> {
        self.enter()?;
        let r = self.predicate_inner(p);
        self.depth -= 1;
        r
    }

    fn predicate_inner(&mut self, p: &P) -> Result<(), String> {
        match &p.node {
            PNode::Op { name, args, .. } => {
                self.out.push_str(name);
                self.out.push('(');
                let collection = matches!(*name, "within" | "without");
                let any_param = !self.literal_only
                    && args.iter().any(|(a, p)| *p && matches!(a, Arg::Param(_)));
                let single_list_or_traversal = args.len() == 1
                    && matches!(&args[0].0, Arg::Lit(Lit::List(_)) | Arg::Traversal(_));
                if collection && !any_param && !single_list_or_traversal {
                    // As the GLVs write it: within(["a","b"]).
                    self.out.push('[');
                    self.args(args)?;
                    self.out.push(']');
                } else {
                    self.args(args)?;
                }
                self.out.push(')');
                Ok(())
            }
            PNode::And(a, b) | PNode::Or(a, b) => {
                self.predicate(a)?;
                self.out.push_str(if matches!(p.node, PNode::And(..)) {
                    ".and("
                } else {
                    ".or("
                });
                self.predicate(b)?;
                self.out.push(')');
                Ok(())
            }
            PNode::Negate(a) => {
                self.predicate(a)?;
                self.out.push_str(".negate()");
                Ok(())
            }
            PNode::Provider { lit, shown } => {
                if !self.groovy {
                    return Err(format!(
                        "{shown} is a JanusGraph predicate: it has no gremlin-lang form and is \
                         sent only to a TinkerPop 3 server (ws://), as a janusgraph.P binding"
                    ));
                }
                if self.literal_only {
                    return Err(format!(
                        "{shown} is a JanusGraph predicate, sent as a janusgraph.P binding: a \
                         literal-only source cannot send it"
                    ));
                }
                let name = format!("_gb3_{}", self.params.len());
                self.params.push((name.clone(), lit.clone()));
                self.out.push_str(&name);
                Ok(())
            }
            PNode::Invalid(e) => Err(e.clone()),
        }
    }
}

/// Quotes `s` as a gremlin-lang string literal (for tests and generators).
pub fn string_literal(s: &str) -> String {
    let mut out = String::new();
    write_string(&mut out, s);
    out
}

/// Quotes `s` in single quotes, a string literal of gremlin-lang and a plain (not
/// interpolated) Groovy string alike: `'it\'s'`.
pub fn single_quoted_literal(s: &str) -> String {
    let mut out = String::new();
    crate::lang::write_groovy_string(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::GraphTraversalSource;
    use crate::value::Duration;

    #[test]
    fn lacking_finds_what_is_newer_than_the_server_anywhere() {
        use crate::process::{GType, Pick, __};
        let g = GraphTraversalSource::detached();
        let v373 = ServerVersion::new(3, 7, 3);
        let lacking =
            |t: &GraphTraversal, groovy| t.lacking(v373, groovy).map(|(w, v)| (w, v.to_string()));
        let v380 = |w: &str| Some((w.to_owned(), "3.8.0".to_owned()));
        // A root traversal's last discard() is Groovy's iterate(): not lacking there only.
        assert_eq!(lacking(&g.v(()).discard(), true), None);
        assert_eq!(lacking(&g.v(()).discard(), false), v380("discard()"));
        assert_eq!(
            lacking(&g.v(()).discard().count(()), true),
            v380("discard()")
        );
        assert_eq!(
            lacking(&g.v(()).local(__::discard()), true),
            v380("discard()")
        );
        // Tokens inside literals, in parameters, in a predicate's arguments.
        let list = Lit::List(vec![
            Lit::from(1),
            Lit::map([(Lit::from("k"), Lit::from(GType::Int))]),
        ]);
        assert_eq!(lacking(&g.inject(list), true), v380("GType.INT"));
        let param = crate::process::GValue::new("p", Lit::from(Pick::Unproductive));
        assert_eq!(lacking(&g.inject(param), true), v380("Pick.unproductive"));
        let p = P::gt(1).and(P::within([Lit::from(GType::Long)]));
        assert_eq!(lacking(&g.v(()).has(("age", p)), true), v380("GType.LONG"));
        assert_eq!(
            lacking(&g.v(()).has(("age", P::type_of(GType::Int))), true),
            v380("P.typeOf()")
        );
        // A source step; a 4.0 step against 3.8.1.
        let t = g.with_side_effect(("x", Lit::from(GType::Int))).v(());
        assert_eq!(lacking(&t, true), v380("GType.INT"));
        let t = g.v(()).add_label("x");
        assert_eq!(
            t.lacking(ServerVersion::new(3, 8, 1), true),
            Some(("addLabel()".to_owned(), ServerVersion::V4_0_0))
        );
        assert_eq!(t.lacking(ServerVersion::V4_0_0, false), None);
        assert_eq!(lacking(&g.v(()).out("knows").values("name"), true), None);
    }

    #[test]
    fn for_groovy_a_last_discard_is_iterate() {
        let g = GraphTraversalSource::detached();
        let t = g.v(()).discard();
        assert_eq!(t.gremlin_lang_for(true).unwrap().gremlin, "g.V().iterate()");
        assert_eq!(
            t.gremlin_lang_for(false).unwrap().gremlin,
            "g.V().discard()"
        );
        // Only the root traversal's last step.
        let t = g.v(()).discard().count(());
        assert_eq!(
            t.gremlin_lang_for(true).unwrap().gremlin,
            "g.V().discard().count()"
        );
    }

    #[test]
    fn for_groovy_a_cardinality_is_bare() {
        use crate::lang::tokens::Cardinality;
        // JanusGraph's script engine reads `Cardinality` as its own class.
        let g = GraphTraversalSource::detached();
        let t = g
            .v(1i64)
            .property((Cardinality::List, "k", 1i64))
            .property((Cardinality::Single, "s", 2i64));
        assert_eq!(
            t.gremlin_lang_for(true).unwrap().gremlin,
            r#"g.V(1L).property(list,'k',1L).property(single,'s',2L)"#
        );
        assert_eq!(
            t.gremlin_lang_for(false).unwrap().gremlin,
            r#"g.V(1L).property(Cardinality.list,"k",1L).property(Cardinality.single,"s",2L)"#
        );
    }

    #[test]
    fn for_groovy_durations_and_binaries_become_bindings() {
        let g = GraphTraversalSource::detached();
        let d = Duration {
            seconds: -2,
            nanos: 500_000_000,
        };
        let t = g.inject((d, Lit::binary(*b"foo"), vec![Lit::binary(*b"f")], 1i64));
        let text = t.gremlin_lang().unwrap();
        assert_eq!(
            text.gremlin,
            r#"g.inject(Duration(1,500000000,false),Binary("Zm9v"),[Binary("Zg==")],1L)"#
        );
        assert!(text.parameters.is_empty());
        let groovy = t.gremlin_lang_for(true).unwrap();
        assert_eq!(groovy.gremlin, "g.inject(_gb3_0,_gb3_1,_gb3_2,1L)");
        assert_eq!(
            groovy.parameters,
            vec![
                ("_gb3_0".to_owned(), Lit::Duration(d)),
                ("_gb3_1".to_owned(), Lit::binary(*b"foo")),
                ("_gb3_2".to_owned(), Lit::List(vec![Lit::binary(*b"f")])),
            ]
        );
    }
}
