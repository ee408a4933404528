//! Target `steps`: `spec/steps.toml` (the gremlin-lang step table) →
//! `graphbinary-client/src/process/generated.rs` (the traversal API's methods, tokens,
//! predicates and keyword table).
//!
//! Parse into raw serde shapes, validate (every problem reported, each naming its entry),
//! emit with `quote!` + `prettyplease`.

#[cfg(test)]
use std::collections::BTreeMap;
use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde::Deserialize;

use super::model::{SpecError, SpecErrors};

/// Path of the step table, relative to the root.
pub const STEPS_SPEC: &str = "spec/steps.toml";
/// Where the generated traversal API goes, relative to the root.
pub const STEPS_RS: &str = "graphbinary-client/src/process/generated.rs";
/// The gremlin-lang tokens (below the client, beside the literals), relative to the root.
pub const TOKENS_RS: &str = "graphbinary-client/src/lang/tokens.rs";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    source: Vec<RawStep>,
    #[serde(default)]
    spawn: Vec<RawStep>,
    #[serde(default)]
    step: Vec<RawStep>,
    #[serde(default)]
    predicate: Vec<RawStep>,
    #[serde(default)]
    token: Vec<RawToken>,
    keywords: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    gremlin: String,
    rust: String,
    #[serde(default)]
    class: Option<String>,
    forms: Vec<String>,
    /// The first TinkerPop version that has it, where that is newer than 3.7.
    #[serde(default)]
    since: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToken {
    class: String,
    generic: bool,
    #[serde(default)]
    model: bool,
    #[serde(default)]
    since: Option<String>,
    values: Vec<RawTokenValue>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTokenValue {
    gremlin: String,
    rust: String,
    #[serde(default)]
    with_key: bool,
    #[serde(default)]
    with_value: bool,
    #[serde(default)]
    since: Option<String>,
}

/// Where a step belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// A source method returning a new source.
    Source,
    /// A source method starting a traversal.
    Spawn,
    /// A traversal step (and a function of `__`).
    Step,
    /// A predicate of `P` or `TextP`.
    Predicate,
}

impl On {
    /// Its table in `spec/steps.toml` (`[[source]]`, `[[spawn]]`, `[[step]]`, `[[predicate]]`).
    pub fn table(self) -> &'static str {
        match self {
            On::Source => "source",
            On::Spawn => "spawn",
            On::Step => "step",
            On::Predicate => "predicate",
        }
    }
}

/// One argument position of a form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// `Kind` variant (or token class) name.
    pub kind: String,
    pub null: bool,
    pub var: bool,
    pub many: bool,
}

/// A validated step.
#[derive(Debug, Clone)]
pub struct Step {
    pub gremlin: String,
    pub rust: String,
    pub on: On,
    /// `P` or `TextP` for predicates.
    pub class: Option<String>,
    pub forms: Vec<Vec<Slot>>,
    /// The forms as written in the spec.
    pub form_text: Vec<String>,
    /// The first TinkerPop version that has it (absent: every version from 3.7).
    pub since: Option<Version>,
}

/// A TinkerPop version `major.minor.patch` (a `since` of the spec).
pub type Version = (u16, u16, u16);

/// The oldest version `since` is written for: a step every 3.7 has needs none.
const SINCE_ABOVE: Version = (3, 7, u16::MAX);

/// A `since`: `major.minor.patch`, newer than 3.7.
fn parse_since(text: &str) -> Result<Version, String> {
    let bad = || format!("since {text:?} is not a version major.minor.patch (e.g. \"3.8.0\")");
    let parts: Vec<&str> = text.split('.').collect();
    let [a, b, c] = parts.as_slice() else {
        return Err(bad());
    };
    let num = |p: &str| {
        if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        p.parse::<u16>().map_err(|_| bad())
    };
    let v = (num(a)?, num(b)?, num(c)?);
    if v <= SINCE_ABOVE {
        return Err(format!(
            "since {text:?}: every 3.7 server has it, write no since (the table starts at 3.7)"
        ));
    }
    Ok(v)
}

/// `since` checked, its error pushed.
fn since_of(
    file: &str,
    entry: &str,
    text: &Option<String>,
    errs: &mut Vec<SpecError>,
) -> Option<Version> {
    let text = text.as_ref()?;
    match parse_since(text) {
        Ok(v) => Some(v),
        Err(m) => {
            errs.push(SpecError::new(file, entry, m));
            None
        }
    }
}

/// A validated token class.
#[derive(Debug, Clone)]
pub struct TokenDef {
    pub class: String,
    pub generic: bool,
    /// The class is the value model's own enum (`crate::value::<class>`, a GraphBinary type)
    /// with the same variants and names: results and traversals share one type.
    pub model: bool,
    /// (gremlin, rust, with_key, with_value)
    pub values: Vec<(String, String, bool, bool)>,
    /// Each value's first TinkerPop version (its own `since`, else the class's), in the
    /// order of `values`.
    pub since: Vec<Option<Version>>,
}

/// The validated step table.
#[derive(Debug, Clone)]
pub struct StepsSpec {
    pub steps: Vec<Step>,
    pub tokens: Vec<TokenDef>,
    pub keywords: Vec<String>,
}

const BASE_KINDS: &[(&str, &str)] = &[
    ("str", "Str"),
    ("int", "Int"),
    ("num", "Num"),
    ("bool", "Bool"),
    ("date", "Date"),
    ("gen", "Gen"),
    ("map", "Map"),
    ("P", "P"),
    ("trav", "Trav"),
    ("strategy", "Strategy"),
    ("class", "Class"),
    ("with_key", "WithKey"),
    ("with_value", "WithValue"),
    ("Function", "Function"),
];

const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv",
    "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// The Rust name the spec must give a Gremlin name: snake case, `_` after a Rust keyword.
pub fn rust_name(gremlin: &str) -> String {
    let chars: Vec<char> = gremlin.chars().collect();
    let mut s = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            let prev_lower =
                i > 0 && (chars[i - 1].is_ascii_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let prev_upper = i > 0 && chars[i - 1].is_ascii_uppercase();
            if prev_lower || (prev_upper && next_lower) {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    if RUST_KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// Parse and validate the step table.
pub fn parse(file: &str, text: &str) -> Result<StepsSpec, SpecErrors> {
    let raw: RawFile = toml::from_str(text)
        .map_err(|e| SpecErrors(vec![SpecError::new(file, "", format!("invalid TOML: {e}"))]))?;
    let mut errs = Vec::new();
    let keywords: BTreeSet<String> = raw.keywords.iter().cloned().collect();
    if keywords.len() != raw.keywords.len() {
        errs.push(SpecError::new(file, "keywords", "duplicate keyword"));
    }

    let mut tokens = Vec::new();
    let mut classes = BTreeSet::new();
    for t in &raw.token {
        let entry = format!("token {:?}", t.class);
        if !classes.insert(t.class.clone()) {
            errs.push(SpecError::new(file, &entry, "duplicate token class"));
        }
        if !keywords.contains(&t.class) {
            errs.push(SpecError::new(
                file,
                &entry,
                "the class is not a keyword of the grammar",
            ));
        }
        if !is_upper_camel(&t.class) && !t.class.chars().all(|c| c.is_ascii_uppercase()) {
            errs.push(SpecError::new(
                file,
                &entry,
                "class must be an UpperCamelCase identifier",
            ));
        }
        let class_since = since_of(file, &entry, &t.since, &mut errs);
        let mut seen = BTreeSet::new();
        let mut values = Vec::new();
        let mut since = Vec::new();
        for v in &t.values {
            let ventry = format!("{entry} value {:?}", v.gremlin);
            if !keywords.contains(&v.gremlin) {
                errs.push(SpecError::new(
                    file,
                    &ventry,
                    "not a keyword of the grammar",
                ));
            }
            if !is_upper_camel(&v.rust) {
                errs.push(SpecError::new(
                    file,
                    &ventry,
                    format!("rust {:?} is not UpperCamelCase", v.rust),
                ));
            }
            if !seen.insert(v.rust.clone()) {
                errs.push(SpecError::new(file, &ventry, "duplicate rust variant"));
            }
            values.push((v.gremlin.clone(), v.rust.clone(), v.with_key, v.with_value));
            since.push(since_of(file, &ventry, &v.since, &mut errs).or(class_since));
        }
        if values.is_empty() {
            errs.push(SpecError::new(file, &entry, "no values"));
        }
        tokens.push(TokenDef {
            class: t.class.clone(),
            generic: t.generic,
            model: t.model,
            values,
            since,
        });
    }

    let mut steps = Vec::new();
    for (on, list) in [
        (On::Source, &raw.source),
        (On::Spawn, &raw.spawn),
        (On::Step, &raw.step),
        (On::Predicate, &raw.predicate),
    ] {
        let what = on.table();
        let mut gremlins = BTreeSet::new();
        let mut rusts = BTreeSet::new();
        for s in list.iter() {
            let entry = format!("{what} {:?}", s.gremlin);
            if !keywords.contains(&s.gremlin) {
                errs.push(SpecError::new(file, &entry, "not a keyword of the grammar"));
            }
            let want = rust_name(&s.gremlin);
            if s.rust != want {
                errs.push(SpecError::new(
                    file,
                    &entry,
                    format!(
                        "rust is {:?}; the one-to-one mapping gives {want:?}",
                        s.rust
                    ),
                ));
            }
            if !gremlins.insert(s.gremlin.clone()) {
                errs.push(SpecError::new(file, &entry, format!("duplicate {what}")));
            }
            if !rusts.insert(s.rust.clone()) {
                errs.push(SpecError::new(file, &entry, "duplicate rust name"));
            }
            match (on, s.class.as_deref()) {
                (On::Predicate, Some("P" | "TextP"))
                | (On::Source | On::Spawn | On::Step, None) => {}
                (On::Predicate, _) => errs.push(SpecError::new(
                    file,
                    &entry,
                    "class must be \"P\" or \"TextP\"",
                )),
                _ => errs.push(SpecError::new(file, &entry, "only a predicate has a class")),
            }
            if s.forms.is_empty() {
                errs.push(SpecError::new(file, &entry, "no forms"));
            }
            let mut forms = Vec::new();
            let mut form_set = BTreeSet::new();
            for f in &s.forms {
                if !form_set.insert(f.clone()) {
                    errs.push(SpecError::new(
                        file,
                        &entry,
                        format!("duplicate form {f:?}"),
                    ));
                }
                match parse_form(f, &classes) {
                    Ok(slots) => forms.push(slots),
                    Err(m) => errs.push(SpecError::new(file, &entry, format!("form {f:?}: {m}"))),
                }
            }
            steps.push(Step {
                gremlin: s.gremlin.clone(),
                rust: s.rust.clone(),
                on,
                class: s.class.clone(),
                forms,
                form_text: s.forms.clone(),
                since: since_of(file, &entry, &s.since, &mut errs),
            });
        }
    }
    if errs.is_empty() {
        Ok(StepsSpec {
            steps,
            tokens,
            keywords: keywords.into_iter().collect(),
        })
    } else {
        Err(SpecErrors(errs))
    }
}

fn is_upper_camel(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric())
}

fn parse_form(f: &str, classes: &BTreeSet<String>) -> Result<Vec<Slot>, String> {
    let words: Vec<&str> = f.split_whitespace().collect();
    let mut slots = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let mut base = *w;
        let many = base.ends_with('*');
        base = base.trim_end_matches('*');
        let var = base.ends_with('$');
        base = base.trim_end_matches('$');
        let null = base.ends_with('?');
        base = base.trim_end_matches('?');
        if base.contains(['*', '$', '?']) {
            return Err(format!("{w:?}: suffixes go in the order ?, $, *"));
        }
        if many && i + 1 != words.len() {
            return Err(format!("{w:?}: only the last argument can repeat"));
        }
        let kind = if let Some((_, k)) = BASE_KINDS.iter().find(|(b, _)| *b == base) {
            (*k).to_owned()
        } else if classes.contains(base) {
            format!("Token:{base}")
        } else {
            return Err(format!("unknown kind {base:?}"));
        };
        slots.push(Slot {
            kind,
            null,
            var,
            many,
        });
    }
    Ok(slots)
}

/// `Option<ServerVersion>` as Rust.
fn since_tokens(since: Option<Version>) -> TokenStream {
    match since {
        None => quote!(None),
        Some((a, b, c)) => {
            let (a, b, c) = (
                proc_macro2::Literal::u16_unsuffixed(a),
                proc_macro2::Literal::u16_unsuffixed(b),
                proc_macro2::Literal::u16_unsuffixed(c),
            );
            quote!(Some(crate::lang::ServerVersion::new(#a, #b, #c)))
        }
    }
}

fn docs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| format!(" {l}"));
    quote! { #( #[doc = #lines] )* }
}

fn slot_tokens(s: &Slot) -> TokenStream {
    let kind = match s.kind.strip_prefix("Token:") {
        Some(class) => {
            let c = format_ident!("{class}");
            quote! { Kind::Token(TokenClass::#c) }
        }
        None => {
            let k = format_ident!("{}", s.kind);
            quote! { Kind::#k }
        }
    };
    let (n, v, m) = (s.null, s.var, s.many);
    quote! { Slot::new(#kind, #n, #v, #m) }
}

/// How a step's generated method takes its arguments.
pub enum Params {
    None,
    Fixed(usize),
    Args,
}

/// The parameters of step `s`'s generated method (the conformance runner calls them alike).
pub fn params_of(s: &Step) -> Params {
    let fixed = s.forms.iter().all(|f| f.iter().all(|x| !x.many));
    let len = s.forms[0].len();
    if fixed && s.forms.iter().all(|f| f.len() == len) {
        if len == 0 {
            Params::None
        } else {
            Params::Fixed(len)
        }
    } else {
        Params::Args
    }
}

/// The generated file's tokens.
/// The two generated files: the gremlin-lang tokens ([`TOKENS_RS`], in the `lang` module
/// that the client and the traversal API both use) and the traversal API's steps
/// ([`STEPS_RS`], in `process`, above the client).
pub fn emit(spec: &StepsSpec) -> (TokenStream, TokenStream) {
    let mut items = Vec::new();
    let mut token_args = Vec::new();

    // Tokens.
    let class_idents: Vec<_> = spec
        .tokens
        .iter()
        .map(|t| format_ident!("{}", t.class))
        .collect();
    for t in &spec.tokens {
        let ident = format_ident!("{}", t.class);
        let class = &t.class;
        let variants: Vec<_> = t
            .values
            .iter()
            .map(|(_, r, _, _)| format_ident!("{r}"))
            .collect();
        let names: Vec<_> = t.values.iter().map(|(g, _, _, _)| g.clone()).collect();
        let vdocs = t
            .values
            .iter()
            .map(|(g, _, _, _)| docs(&format!("`{class}.{g}`")));
        let count = t.values.len();
        let doc = docs(&format!(
            "The gremlin-lang token class `{class}`, written `{class}.{}`.",
            names[0]
        ));
        let conversions = quote! {
            impl From<#ident> for Token {
                fn from(v: #ident) -> Token {
                    Token::#ident(v)
                }
            }

            impl From<#ident> for Lit {
                fn from(v: #ident) -> Lit {
                    Lit::Token(Token::#ident(v))
                }
            }
        };
        if t.model {
            // The value model's enum: one type for results and traversals. Its names are
            // checked against the spec's by a generated test.
            let test = format_ident!("model_token_{}_names", class.to_lowercase());
            items.push(quote! {
                #[doc(inline)]
                pub use crate::value::#ident;

                #conversions

                #[cfg(test)]
                #[test]
                fn #test() {
                    #( assert_eq!(#ident::#variants.as_str(), #names); )*
                    assert_eq!(#ident::ALL.len(), #count);
                }
            });
        } else {
            items.push(quote! {
                #doc
                #[allow(clippy::upper_case_acronyms)]
                #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
                pub enum #ident {
                    #( #vdocs #variants, )*
                }

                impl #ident {
                    /// Every value, in the order of the spec.
                    pub const ALL: [#ident; #count] = [#( #ident::#variants ),*];
                    /// The class name as gremlin-lang writes it.
                    pub const CLASS: &'static str = #class;

                    /// The value's name as gremlin-lang writes it after the class.
                    pub const fn as_str(self) -> &'static str {
                        match self {
                            #( #ident::#variants => #names, )*
                        }
                    }
                }

                impl ::core::fmt::Display for #ident {
                    /// `Class.value`.
                    fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        f.write_str(Self::CLASS)?;
                        f.write_str(".")?;
                        f.write_str(self.as_str())
                    }
                }

                #conversions
            });
        }
        token_args.push(quote! {
            impl IntoArgs for #ident {
                fn into_args(self) -> Vec<Arg> {
                    vec![Arg::Lit(Lit::from(self))]
                }
            }
        });
    }
    let class_names: Vec<&str> = spec.tokens.iter().map(|t| t.class.as_str()).collect();
    let first_values: Vec<_> = spec
        .tokens
        .iter()
        .map(|t| format_ident!("{}", t.values[0].1))
        .collect();
    let generic_classes: Vec<_> = spec
        .tokens
        .iter()
        .filter(|t| t.generic)
        .map(|t| format_ident!("{}", t.class))
        .collect();
    let mut with_key_arms = Vec::new();
    let mut with_value_arms = Vec::new();
    for t in &spec.tokens {
        let c = format_ident!("{}", t.class);
        for (_, r, k, v) in &t.values {
            let r = format_ident!("{r}");
            if *k {
                with_key_arms.push(quote! { Token::#c(#c::#r) });
            }
            if *v {
                with_value_arms.push(quote! { Token::#c(#c::#r) });
            }
        }
    }
    let with_key = if with_key_arms.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(self, #(#with_key_arms)|*))
    };
    // One arm per version: a class whose every value has it as `Token::C(_)`.
    let mut by_version: std::collections::BTreeMap<Version, Vec<TokenStream>> = Default::default();
    for t in &spec.tokens {
        let c = format_ident!("{}", t.class);
        if t.since.iter().all(|v| v.is_some() && *v == t.since[0]) {
            if let Some(v) = t.since[0] {
                by_version
                    .entry(v)
                    .or_default()
                    .push(quote! { Token::#c(_) });
            }
            continue;
        }
        for ((_, r, _, _), since) in t.values.iter().zip(&t.since) {
            if let Some(v) = since {
                let r = format_ident!("{r}");
                by_version
                    .entry(*v)
                    .or_default()
                    .push(quote! { Token::#c(#c::#r) });
            }
        }
    }
    let since_arms: Vec<TokenStream> = by_version
        .into_iter()
        .map(|(v, pats)| {
            let v = since_tokens(Some(v));
            quote! { #(#pats)|* => #v, }
        })
        .collect();
    let since = if since_arms.is_empty() {
        quote!({
            let _ = self;
            None
        })
    } else {
        quote!(match self {
            #(#since_arms)*
            _ => None,
        })
    };
    let with_value = if with_value_arms.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(self, #(#with_value_arms)|*))
    };
    items.push(quote! {
        /// The class of a token.
        #[allow(clippy::upper_case_acronyms)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum TokenClass {
            #( #class_idents, )*
        }

        #[cfg(test)]
        impl TokenClass {
            /// The class's first value (for tests that build every form).
            pub(crate) fn example(self) -> Token {
                match self {
                    #( TokenClass::#class_idents => Token::#class_idents(#class_idents::#first_values), )*
                }
            }
        }

        /// A token of any class: what a step argument such as `T.id` or `Order.desc` is.
        #[allow(clippy::upper_case_acronyms)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Token {
            #( #[doc = concat!(" A `", stringify!(#class_idents), "` token.")] #class_idents(#class_idents), )*
        }

        impl Token {
            /// The token's class.
            pub(crate) fn class(&self) -> TokenClass {
                match self {
                    #( Token::#class_idents(_) => TokenClass::#class_idents, )*
                }
            }

            /// Whether the grammar's `genericLiteral` includes it.
            pub(crate) fn is_generic(&self) -> bool {
                matches!(self, #( Token::#generic_classes(_) )|*)
            }

            /// Whether the `with` step takes it as its key.
            pub(crate) fn is_with_key(&self) -> bool {
                #with_key
            }

            /// Whether the `with` step takes it as its value.
            pub(crate) fn is_with_value(&self) -> bool {
                #with_value
            }

            /// The first TinkerPop version that has it, where that is newer than 3.7.
            pub(crate) fn since(&self) -> Option<crate::lang::ServerVersion> {
                #since
            }

            /// Every token, class by class in the grammar's order, each class's values as in
            /// its `ALL`.
            ///
            /// ```
            /// use graphbinary_client::process::{Order, Token};
            /// assert!(Token::all().any(|t| t == Token::Order(Order::Desc)));
            /// assert_eq!(Token::all().filter(|t| t.to_string() == "T.id").count(), 1);
            /// ```
            pub fn all() -> impl Iterator<Item = Token> {
                ::core::iter::empty()
                    #( .chain(#class_idents::ALL.into_iter().map(Token::#class_idents)) )*
            }

            /// The class's name as gremlin-lang writes it (`T`, `Order`).
            pub fn class_name(&self) -> &'static str {
                match self {
                    #( Token::#class_idents(_) => #class_names, )*
                }
            }

            /// The value's name as gremlin-lang writes it after the class (`id`, `desc`).
            pub fn value_name(&self) -> &'static str {
                match self {
                    #( Token::#class_idents(v) => v.as_str(), )*
                }
            }
        }
    });

    let tokens = quote! {
        //! The gremlin-lang tokens (`T.id`, `Order.desc`, ...), one class per `[[tokens]]` entry
        //! of `spec/steps.toml`.

        use super::lit::Lit;

        #(#items)*
    };
    let mut items = token_args;

    // Step definitions.
    let mut defs = Vec::new();
    let mut trav_methods = Vec::new();
    let mut anon_fns = Vec::new();
    let mut source_methods = Vec::new();
    let mut p_fns = Vec::new();
    let mut textp_fns = Vec::new();
    let mut infos = Vec::new();
    for s in &spec.steps {
        let prefix = match s.on {
            On::Source => "SOURCE",
            On::Spawn => "SPAWN",
            On::Step => "STEP",
            On::Predicate => "PRED",
        };
        let def = format_ident!("{prefix}_{}", s.rust.trim_end_matches('_').to_uppercase());
        let gremlin = &s.gremlin;
        let forms = s.forms.iter().map(|f| {
            let slots = f.iter().map(slot_tokens);
            quote! { &[#(#slots),*] }
        });
        // A form as a call: `has(str?, gen$)`.
        let call = |f: &String| {
            let args = f.split_whitespace().collect::<Vec<_>>().join(", ");
            format!("{}({args})", s.gremlin)
        };
        let signature = s.form_text.iter().map(call).collect::<Vec<_>>().join(" | ");
        let since = since_tokens(s.since);
        defs.push(quote! {
            static #def: StepDef = StepDef {
                gremlin: #gremlin,
                forms: &[#(#forms),*],
                signature: #signature,
                since: #since,
            };
        });
        let on = match s.on {
            On::Source => quote!(StepOn::Source),
            On::Spawn => quote!(StepOn::Spawn),
            On::Step => quote!(StepOn::Step),
            On::Predicate => quote!(StepOn::Predicate),
        };
        let rust = &s.rust;
        infos.push(quote! { StepInfo { gremlin: #gremlin, rust: #rust, on: #on, def: &#def }, });

        let name = format_ident!("{}", s.rust);
        let forms_doc = s
            .form_text
            .iter()
            .map(|f| format!("* `{}`", call(f)))
            .collect::<Vec<_>>()
            .join("\n");
        let what = match s.on {
            On::Source => "source method",
            On::Spawn => "start step",
            On::Step => "step",
            On::Predicate => "predicate",
        };
        let call = match params_of(s) {
            Params::None => String::new(),
            Params::Fixed(_) => {
                "\n\nEach argument is anything that converts into an [`Arg`].".to_owned()
            }
            Params::Args => {
                "\n\nArguments: `()` for none, one value, a tuple of several, or an array or `Vec` \
                of one type (see [`IntoArgs`])."
                    .to_owned()
            }
        };
        let needs = match s.since {
            Some((a, b, c)) => format!("\n\nNeeds TinkerPop {a}.{b}.{c} or later."),
            None => String::new(),
        };
        let doc = docs(&format!(
            "Gremlin's `{}` {what}. Its forms in the grammar (kinds as in `spec/steps.toml`):\n\n{forms_doc}{call}{needs}",
            s.gremlin
        ));
        let (params, args) = match params_of(s) {
            Params::None => (quote!(), quote!(Vec::new())),
            Params::Fixed(n) => {
                let names: Vec<_> = (1..=n).map(|i| format_ident!("arg{i}")).collect();
                (
                    quote!(#( #names: impl Into<Arg> ),*),
                    quote!(vec![#( #names.into() ),*]),
                )
            }
            Params::Args => (quote!(args: impl IntoArgs), quote!(args.into_args())),
        };
        match s.on {
            On::Step => {
                trav_methods.push(quote! {
                    #doc
                    pub fn #name(self, #params) -> GraphTraversal {
                        self.add_step(&#def, #args)
                    }
                });
                let call = match params_of(s) {
                    Params::None => quote!(GraphTraversal::anonymous().#name()),
                    Params::Fixed(n) => {
                        let names: Vec<_> = (1..=n).map(|i| format_ident!("arg{i}")).collect();
                        quote!(GraphTraversal::anonymous().#name(#(#names),*))
                    }
                    Params::Args => quote!(GraphTraversal::anonymous().#name(args)),
                };
                anon_fns.push(quote! {
                    #doc
                    pub fn #name(#params) -> GraphTraversal {
                        #call
                    }
                });
            }
            On::Spawn => source_methods.push(quote! {
                #doc
                pub fn #name(&self, #params) -> GraphTraversal {
                    self.spawn(&#def, #args)
                }
            }),
            On::Source => source_methods.push(quote! {
                #doc
                pub fn #name(&self, #params) -> GraphTraversalSource {
                    self.add_source(&#def, #args)
                }
            }),
            On::Predicate => {
                let f = quote! {
                    #doc
                    pub fn #name(#params) -> P {
                        P::op(&#def, #args)
                    }
                };
                if s.class.as_deref() == Some("TextP") {
                    textp_fns.push(f);
                } else {
                    p_fns.push(f);
                }
            }
        }
    }
    let kw = &spec.keywords;
    let n_steps = spec.steps.len();
    items.push(quote! {
        #(#defs)*

        /// Every source method, step and predicate of the grammar with its Rust name, in the
        /// order of `spec/steps.toml` (for code generators, e.g. a Gherkin translator).
        pub static STEPS: [StepInfo; #n_steps] = [#(#infos)*];

        /// Every keyword of the gremlin-lang lexer, sorted: none can name a parameter.
        pub(crate) static KEYWORDS: &[&str] = &[#(#kw),*];

        #[allow(clippy::should_implement_trait, clippy::wrong_self_convention)]
        impl GraphTraversal {
            #(#trav_methods)*
        }

        /// The anonymous traversal: `__::out("knows")` is Gremlin's `__.out("knows")`, a child
        /// traversal to pass as an argument.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy)]
        pub struct __;

        #[allow(clippy::should_implement_trait, clippy::wrong_self_convention)]
        impl __ {
            #(#anon_fns)*
        }

        #[allow(clippy::should_implement_trait, clippy::wrong_self_convention)]
        impl GraphTraversalSource {
            #(#source_methods)*
        }

        #[allow(clippy::should_implement_trait)]
        impl P {
            #(#p_fns)*
        }

        impl TextP {
            #(#textp_fns)*
        }
    });

    let steps = quote! {
        //! The traversal API's steps and predicates, one per entry of `spec/steps.toml`, and
        //! the tokens as step arguments.

        use super::arg::{Arg, IntoArgs, Kind, Slot};
        use super::predicate::{TextP, P};
        use super::traversal::{GraphTraversal, GraphTraversalSource, StepDef, StepInfo, StepOn};
        use crate::lang::tokens::*;
        use crate::lang::Lit;

        #(#items)*
    };
    (tokens, steps)
}

/// Entries per target (for tests).
#[cfg(test)]
pub fn counts(spec: &StepsSpec) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for s in &spec.steps {
        *m.entry(s.on.table()).or_insert(0) += 1;
    }
    m.insert("token", spec.tokens.len());
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_names_are_snake_case_with_keyword_escapes() {
        for (gremlin, rust) in [
            ("hasLabel", "has_label"),
            ("outE", "out_e"),
            ("V", "v"),
            ("as", "as_"),
            ("in", "in_"),
            ("where", "where_"),
            ("lTrim", "l_trim"),
            ("withoutStrategies", "without_strategies"),
            ("mergeV", "merge_v"),
            ("typeOf", "type_of"),
        ] {
            assert_eq!(rust_name(gremlin), rust, "{gremlin}");
        }
    }

    #[test]
    fn the_spec_covers_the_grammar() {
        let root = super::super::project_root();
        let text = std::fs::read_to_string(root.join(STEPS_SPEC)).unwrap();
        let spec = parse(STEPS_SPEC, &text).unwrap_or_else(|e| panic!("{e}"));
        let c = counts(&spec);
        // traversalMethod has 139 alternatives, traversalSourceSpawnMethod 11,
        // traversalSourceSelfMethod 7 (`with` is hand-written: it sets request options),
        // traversalPredicate 21 named predicates.
        assert_eq!(c["step"], 139);
        assert_eq!(c["spawn"], 11);
        assert_eq!(c["source"], 6);
        assert_eq!(c["predicate"], 21);
        assert!(spec.keywords.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn errors_name_the_entry() {
        let text = r#"
keywords = ["has", "T", "id"]
[[step]]
gremlin = "has"
rust = "Has"
forms = ["str? bogus", "str* str"]
[[token]]
class = "T"
generic = true
values = [{ gremlin = "id", rust = "id" }]
"#;
        let e = parse("spec/steps.toml", text).unwrap_err().to_string();
        assert!(
            e.contains(r#"step "has": rust is "Has"; the one-to-one mapping gives "has""#),
            "{e}"
        );
        assert!(
            e.contains(r#"form "str? bogus": unknown kind "bogus""#),
            "{e}"
        );
        assert!(e.contains("only the last argument can repeat"), "{e}");
        assert!(e.contains(r#"rust "id" is not UpperCamelCase"#), "{e}");
    }

    #[test]
    fn since_is_a_version_newer_than_3_7() {
        let text = r#"
keywords = ["has", "out", "in", "T", "id", "key"]
step = [
  { gremlin = "has", rust = "has", forms = [""], since = "3.8" },
  { gremlin = "out", rust = "out", forms = [""], since = "3.7.5" },
  { gremlin = "in", rust = "in_", forms = [""], since = "3.8.0" },
]
[[token]]
class = "T"
generic = true
since = "4.0.0"
values = [{ gremlin = "id", rust = "Id" }, { gremlin = "key", rust = "Key", since = "x.1.0" }]
"#;
        let e = parse("spec/steps.toml", text).unwrap_err().to_string();
        assert!(
            e.contains(r#"step "has": since "3.8" is not a version major.minor.patch"#),
            "{e}"
        );
        assert!(
            e.contains(r#"step "out": since "3.7.5": every 3.7 server has it"#),
            "{e}"
        );
        assert!(
            e.contains(r#"token "T" value "key": since "x.1.0" is not a version"#),
            "{e}"
        );
        assert!(!e.contains(r#"step "in""#), "{e}");
        let ok = text
            .replace(r#", since = "3.8" }"#, " }")
            .replace(r#", since = "3.7.5" }"#, " }")
            .replace(r#", since = "x.1.0""#, "");
        let spec = parse("spec/steps.toml", &ok).unwrap_or_else(|e| panic!("{e}"));
        let since: Vec<_> = spec.steps.iter().map(|s| s.since).collect();
        assert_eq!(since, [None, None, Some((3, 8, 0))]);
        assert_eq!(spec.tokens[0].since, [Some((4, 0, 0)), Some((4, 0, 0))]);
    }

    /// What 3.7.3 lacks of the grammar (its GraphTraversal, GraphTraversalSource, P and token
    /// enums read with javap, against 3.8.1's), as `since` says.
    #[test]
    fn the_spec_says_what_3_7_and_3_8_lack() {
        let root = super::super::project_root();
        let text = std::fs::read_to_string(root.join(STEPS_SPEC)).unwrap();
        let spec = parse(STEPS_SPEC, &text).unwrap_or_else(|e| panic!("{e}"));
        let mut steps: Vec<String> = spec
            .steps
            .iter()
            .filter_map(|s| {
                s.since
                    .map(|v| format!("{} {} {v:?}", s.on.table(), s.gremlin))
            })
            .collect();
        steps.sort();
        assert_eq!(
            steps,
            [
                "predicate typeOf (3, 8, 0)",
                "spawn match (4, 0, 0)",
                "step addLabel (4, 0, 0)",
                "step asBool (3, 8, 0)",
                "step asNumber (3, 8, 0)",
                "step discard (3, 8, 0)",
                "step dropLabel (4, 0, 0)",
                "step dropLabels (4, 0, 0)",
                "step labels (4, 0, 0)",
                "step none (3, 8, 0)",
            ]
        );
        let tokens: Vec<String> = spec
            .tokens
            .iter()
            .flat_map(|t| {
                t.values
                    .iter()
                    .zip(&t.since)
                    .filter_map(move |((g, ..), v)| v.map(|v| format!("{}.{g} {v:?}", t.class)))
            })
            .filter(|s| !s.starts_with("GType."))
            .collect();
        assert_eq!(tokens, ["Pick.unproductive (3, 8, 0)"]);
        let gtype = spec.tokens.iter().find(|t| t.class == "GType").unwrap();
        assert!(gtype.since.iter().all(|v| *v == Some((3, 8, 0))));
    }
}
