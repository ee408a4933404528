//! The line editor's helper: completion of steps, predicates, tokens and `:commands` (from
//! the generated tables of `spec/steps.toml`), and multi-line input while a bracket or a
//! quote is open.

use std::borrow::Cow;

use graphbinary_client::process::{StepOn, Token, STEPS};
use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::{ValidationContext, ValidationResult, Validator};
use rustyline::{Context, Helper};

/// The console's commands, with their help lines.
pub const COMMANDS: &[(&str, &str)] = &[
    (
        ":remote",
        ":remote URL            connect to another server (http(s):// or ws(s)://)",
    ),
    (
        ":source",
        ":source NAME           bind g to the traversal source NAME",
    ),
    (
        ":limit",
        ":limit NAME SIZE        raise a limit of the client's, e.g. :limit max-message-size 64MiB",
    ),
    (":format", ":format text|table|json|graphson|count"),
    (":bulk", ":bulk on|off            ask for bulked results"),
    (
        ":timing",
        ":timing on|off          print how long each query took",
    ),
    (
        ":param",
        ":param name = literal   bind a typed parameter (:param alone lists them, :param clear)",
    ),
    (
        ":begin",
        ":begin                  start a transaction (a session on TinkerPop 3)",
    ),
    (":commit", ":commit                 commit it"),
    (":rollback", ":rollback               roll it back"),
    (":help", ":help                   this text"),
    (":quit", ":quit                   leave (Ctrl-D too)"),
];

/// Completion words: every step and source method, predicates, token values as
/// `Class.value`, and the token classes.
pub struct Words {
    /// Steps and source methods (`out`, `hasLabel`, `withSideEffect`...).
    steps: Vec<&'static str>,
    /// Predicates (`gt`, `within`, `containing`...).
    predicates: Vec<&'static str>,
    /// `T.id`, `Order.desc`...
    tokens: Vec<String>,
}

impl Words {
    /// The words of the generated tables.
    pub fn new() -> Words {
        let mut steps = Vec::new();
        let mut predicates = Vec::new();
        for s in STEPS.iter() {
            let list = if matches!(s.on, StepOn::Predicate) {
                &mut predicates
            } else {
                &mut steps
            };
            if !list.contains(&s.gremlin) {
                list.push(s.gremlin);
            }
        }
        let tokens = Token::all().map(|t| t.to_string()).collect();
        Words {
            steps,
            predicates,
            tokens,
        }
    }

    /// Candidates for the word before `pos` in `line`: where it starts, and the completions.
    pub fn complete(&self, line: &str, pos: usize) -> (usize, Vec<Pair>) {
        let head = &line[..pos];
        let start = head
            .char_indices()
            .rev()
            .find(|(_, c)| !(c.is_alphanumeric() || *c == '_' || *c == '.' || *c == ':'))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let mut word = &head[start..];
        let mut start = start;
        let pair = |s: &str, open: bool| Pair {
            display: s.to_owned(),
            replacement: if open { format!("{s}(") } else { s.to_owned() },
        };
        if word.starts_with(':') {
            if start != head.len() - word.len() || !head[..start].trim().is_empty() {
                return (start, Vec::new());
            }
            let found = COMMANDS
                .iter()
                .filter(|(c, _)| c.starts_with(word))
                .map(|(c, _)| Pair {
                    display: c.to_string(),
                    replacement: format!("{c} "),
                })
                .collect();
            return (start, found);
        }
        // `Class.va` completes token values; `g.V().ou` a step after the last dot.
        let class_dot = word
            .find('.')
            .filter(|_| word.starts_with(|c: char| c.is_ascii_uppercase()));
        if class_dot.is_some() {
            let found = self
                .tokens
                .iter()
                .filter(|t| t.starts_with(word))
                .map(|t| pair(t, false))
                .collect();
            return (start, found);
        }
        let after_dot = match word.rfind('.') {
            Some(i) => {
                start += i + 1;
                word = &word[i + 1..];
                true
            }
            None => false,
        };
        let mut found: Vec<Pair> = self
            .steps
            .iter()
            .filter(|s| s.starts_with(word))
            .map(|s| pair(s, true))
            .collect();
        if !after_dot {
            found.extend(
                self.predicates
                    .iter()
                    .filter(|p| p.starts_with(word) && !self.steps.contains(p))
                    .map(|p| pair(p, true)),
            );
            let mut classes: Vec<&str> = self
                .tokens
                .iter()
                .filter_map(|t| t.split_once('.').map(|(c, _)| c))
                .filter(|c| c.starts_with(word))
                .collect();
            classes.dedup();
            found.extend(classes.into_iter().map(|c| pair(c, false)));
            for value in self.tokens.iter().filter_map(|t| t.split_once('.')) {
                // A bare token value (`desc`, `id`) completes to its qualified form too.
                if !word.is_empty() && value.1.starts_with(word) {
                    found.push(pair(&format!("{}.{}", value.0, value.1), false));
                }
            }
        }
        (start, found)
    }
}

/// Whether `text` has a bracket or a quote still open, or ends with a `.` before the next step
/// (so the input goes on on the next line).
pub fn is_open(text: &str) -> bool {
    let mut depth: i64 = 0;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
    }
    quote.is_some() || depth > 0 || text.trim_end().ends_with('.')
}

/// The helper given to the editor.
pub struct ConsoleHelper {
    /// The completion words.
    pub words: Words,
}

impl Completer for ConsoleHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        Ok(self.words.complete(line, pos))
    }
}

impl Validator for ConsoleHelper {
    fn validate(&self, ctx: &mut ValidationContext) -> rustyline::Result<ValidationResult> {
        let input = ctx.input();
        if !input.trim_start().starts_with(':') && is_open(input) {
            Ok(ValidationResult::Incomplete)
        } else {
            Ok(ValidationResult::Valid(None))
        }
    }
}

impl Hinter for ConsoleHelper {
    type Hint = String;
}

impl Highlighter for ConsoleHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        Cow::Borrowed(line)
    }
}

impl Helper for ConsoleHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(line: &str) -> (usize, Vec<String>) {
        let (start, found) = Words::new().complete(line, line.len());
        (start, found.into_iter().map(|p| p.replacement).collect())
    }

    #[test]
    fn completes_steps_predicates_tokens_and_commands() {
        let (start, found) = names("g.V().hasL");
        assert_eq!(start, 6);
        assert_eq!(found, ["hasLabel("]);
        let (_, found) = names("g.V().has('age', gt");
        assert!(found.contains(&"gt(".to_owned()), "{found:?}");
        let (_, found) = names("g.V().order().by('age', Order.d");
        assert_eq!(found, ["Order.desc"]);
        let (_, found) = names(":ro");
        assert_eq!(found, [":rollback "]);
        let (_, found) = names(":");
        assert_eq!(found.len(), COMMANDS.len());
        // After a dot only steps: no predicate, no token class.
        let (_, found) = names("g.V().withi");
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn open_brackets_and_quotes_continue_the_input() {
        assert!(is_open("g.V().has('name',"));
        assert!(is_open("g.V().has('na"));
        assert!(is_open("g.inject([1,"));
        assert!(!is_open("g.V().has('name', 'a)b')"));
        assert!(!is_open(r#"g.inject("a\"(")"#));
        assert!(is_open("g.V().\n"));
        assert!(!is_open("g.V()"));
    }
}
