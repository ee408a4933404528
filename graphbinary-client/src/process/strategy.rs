//! Traversal strategies for `with_strategies` / `without_strategies`.

use super::arg::{is_keyword, Arg};

/// A traversal strategy: a class name and its configuration, written `ReadOnlyStrategy` or
/// `new SubgraphStrategy(vertices:__.hasLabel("person"))`.
///
/// `OptionsStrategy` is special, as in the official drivers: its configuration becomes
/// request options (see [`GraphTraversalSource::with`](super::GraphTraversalSource::with)),
/// and it is not written into the script.
///
/// ```
/// use graphbinary_client::process::{GraphTraversalSource, Strategy, __};
///
/// let g = GraphTraversalSource::detached()
///     .with_strategies((Strategy::new("SubgraphStrategy").config("vertices", __::has_label("person")),))
///     .without_strategies(Strategy::new("FilterRankingStrategy"));
/// assert_eq!(
///     g.v(()).gremlin_lang().unwrap().gremlin,
///     r#"g.withStrategies(new SubgraphStrategy(vertices:__.hasLabel("person"))).withoutStrategies(FilterRankingStrategy).V()"#
/// );
/// ```
#[derive(Debug, Clone)]
pub struct Strategy {
    pub(crate) name: String,
    pub(crate) config: Vec<(String, Arg)>,
}

impl Strategy {
    /// The strategy of class `name` (its simple name, e.g. `"ReadOnlyStrategy"`).
    pub fn new(name: impl Into<String>) -> Strategy {
        Strategy {
            name: name.into(),
            config: Vec::new(),
        }
    }

    /// Adds configuration `key` = `value` (a literal, parameter or anonymous traversal).
    pub fn config(mut self, key: impl Into<String>, value: impl Into<Arg>) -> Strategy {
        self.config.push((key.into(), value.into()));
        self
    }

    /// The class name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether it has no configuration (then it can name a class to remove).
    pub(crate) fn is_bare(&self) -> bool {
        self.config.is_empty()
    }

    /// Why the class name or a key cannot be written, if so.
    pub(crate) fn error(&self) -> Option<String> {
        if !is_identifier(&self.name) || is_keyword(&self.name) {
            return Some(format!(
                "strategy name {:?} is not a class name (an ASCII identifier, not a keyword)",
                self.name
            ));
        }
        self.config
            .iter()
            .find(|(k, _)| !is_identifier(k) || k == "__")
            .map(|(k, _)| format!("strategy configuration key {k:?} is not an identifier"))
    }
}

pub(crate) fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {
            chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        }
        _ => false,
    }
}
