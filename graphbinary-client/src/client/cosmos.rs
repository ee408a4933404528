//! The Azure Cosmos DB profile of a client ([`ClientBuilder::cosmos`](super::ClientBuilder::cosmos)):
//! the SASL user name Cosmos expects, the checks of the names it is built from, and the check
//! of every script such a client sends for what Cosmos refuses and can be seen in the text
//! (lambdas). The traversal API checks its steps too (`process::traversal`, `cosmos_refuses`).

use super::Error;

/// The server named in [`Error::Unsupported`].
pub(crate) const SERVER: &str = "Azure Cosmos DB";

/// The SASL PLAIN user of a Cosmos DB graph: `/dbs/<database>/colls/<collection>`; a
/// [`Error::Config`] for a name Cosmos cannot have (empty, or holding `/`, `\`, `?` or `#`,
/// which Cosmos refuses in resource ids, or a control character).
pub(crate) fn user(database: &str, collection: &str) -> Result<String, Error> {
    for (what, name) in [("database", database), ("collection", collection)] {
        if name.is_empty() {
            return Err(Error::Config(format!(
                "the Azure Cosmos DB {what} name is empty"
            )));
        }
        if let Some(c) = name
            .chars()
            .find(|c| matches!(c, '/' | '\\' | '?' | '#') || c.is_control())
        {
            return Err(Error::Config(format!(
                "the Azure Cosmos DB {what} name {name:?} holds {c:?}, which Cosmos does not \
                 allow in a resource id"
            )));
        }
    }
    Ok(format!("/dbs/{database}/colls/{collection}"))
}

/// [`Error::Unsupported`] for `what`.
pub(crate) fn unsupported(what: impl Into<String>) -> Error {
    Error::Unsupported {
        server: SERVER,
        what: what.into(),
    }
}

/// Checks a script for what Cosmos DB refuses that shows in its text: a lambda, that is a
/// Groovy closure (`{` outside a string literal: neither gremlin-lang as the traversal API
/// writes it for TinkerPop 3 nor Cosmos's Gremlin has any other use for a brace), a Java
/// style arrow `->`, or TinkerPop's `Lambda` class. Strings (single, double and triple
/// quoted, with backslash escapes) are skipped, so a `{` inside one is data.
pub(crate) fn check_script(script: &str) -> Result<(), Error> {
    let b = script.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => {
                let triple = b[i..].starts_with(&[q, q, q]);
                i += if triple { 3 } else { 1 };
                loop {
                    match b.get(i) {
                        // An unterminated string: the server reports it.
                        None => return Ok(()),
                        Some(b'\\') => i += 2,
                        Some(&c) if c == q && (!triple || b[i..].starts_with(&[q, q, q])) => {
                            i += if triple { 3 } else { 1 };
                            break;
                        }
                        Some(_) => i += 1,
                    }
                }
                continue;
            }
            b'{' => {
                return Err(unsupported(format!(
                    "lambdas (a Groovy closure, `{{` at byte {i} of the script)"
                )))
            }
            b'-' if b.get(i + 1) == Some(&b'>') => {
                return Err(unsupported(format!(
                    "lambdas (`->` at byte {i} of the script)"
                )))
            }
            b'L' if b[i..].starts_with(b"Lambda")
                && (i == 0 || !is_ident(b[i - 1]))
                && !b.get(i + 6).copied().is_some_and(is_ident) =>
            {
                return Err(unsupported(format!(
                    "lambdas (`Lambda` at byte {i} of the script)"
                )))
            }
            _ => i += 1,
        }
    }
    Ok(())
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lambdas_are_refused_and_strings_are_data() {
        for script in [
            "g.V().map{it.get().value('name')}",
            "g.V().filter { it.get().label() == 'person' }",
            "g.V().map(Lambda.function('it.get()'))",
            "g.V().sideEffect(x -> x)",
            "g.V().has('name','x').map{ 'a{' }",
            r#"g.V().has("a\"b").map{1}"#,
            "g.V().has('''x''').map{1}",
            "{",
        ] {
            let e = check_script(script).unwrap_err();
            assert!(
                matches!(&e, Error::Unsupported { server: SERVER, what } if what.starts_with("lambdas")),
                "{script}: {e:?}"
            );
            assert!(e.to_string().contains("not sent"), "{e}");
        }
        for script in [
            "g.V().has('name', 'a{b}').values('name')",
            r#"g.V().has("name", "x -> y {")"#,
            r#"g.V().has("it's")"#,
            "g.V().has('a\\'{')",
            "g.V().has('''a { ' b''')",
            "g.V().has('name', 'Lambda').out('LambdaX').as('myLambda')",
            "g.V().has('age', gt(-1)).limit(2)",
            "g.addV('person').property('name', 'unterminated {",
            "",
        ] {
            assert!(check_script(script).is_ok(), "{script}");
        }
    }

    #[test]
    fn the_user_is_the_resource_path_and_bad_names_are_config_errors() {
        assert_eq!(
            user("graphdb", "people").unwrap(),
            "/dbs/graphdb/colls/people"
        );
        for (d, c) in [
            ("", "c"),
            ("d", ""),
            ("a/b", "c"),
            ("d", "c?"),
            ("d#", "c"),
            ("d", "c\n"),
        ] {
            let e = user(d, c).unwrap_err();
            assert!(matches!(e, Error::Config(_)), "{d:?} {c:?}: {e:?}");
        }
    }

    /// A hand-built Cosmos answer (the shape of Microsoft's vertex sample, with the status
    /// attributes its headers page lists), read by our GraphSON 2 reader as the profile reads it.
    #[test]
    fn a_cosmos_shaped_answer_reads_as_maps_with_its_charges() {
        use crate::protocol::http4::response::StatusAttributes;
        use crate::protocol::ws3::graphson::{decode_response, Serializer};
        use crate::value::Value;
        let json = r#"{"requestId":"4d5fa0b4-0000-4000-8000-0000000000aa","status":{"message":"","code":200,"attributes":{"x-ms-status-code":200,"x-ms-request-charge":2.29,"x-ms-total-request-charge":5.79,"x-ms-server-time-ms":0.4522,"x-ms-total-server-time-ms":1.2,"x-ms-activity-id":"a0ab1c2d-0000-4000-8000-0000000000bb"}},"result":{"data":[{"id":"marko","label":"person","type":"vertex","properties":{"name":[{"id":"3f1b","value":"marko"}],"age":[{"id":"9c2d","value":29}]}}],"meta":{}}}"#;
        let msg = decode_response(
            json.as_bytes(),
            Serializer::GraphSon2,
            &graphbinary_core::Limits::default(),
        )
        .unwrap();
        assert_eq!(msg.status, 200);
        let attrs = StatusAttributes::from(msg.attributes.clone());
        assert_eq!(attrs.status_code(), Some(200));
        assert_eq!(attrs.request_charge(), Some(2.29));
        assert_eq!(attrs.total_request_charge(), Some(5.79));
        assert_eq!(attrs.server_time_ms(), Some(0.4522));
        assert_eq!(attrs.total_server_time_ms(), Some(1.2));
        assert_eq!(attrs.retry_after(), None);
        let results = msg.results();
        assert_eq!(results.len(), 1);
        let Value::Map(vertex) = &results[0].0 else {
            panic!("an untyped vertex is a Map: {:?}", results[0]);
        };
        let field = |k: &str| {
            vertex
                .iter()
                .find(|(key, _)| key.as_str() == Some(k))
                .map(|(_, v)| v.clone())
        };
        assert_eq!(field("label"), Some(Value::from("person")));
        assert_eq!(field("type"), Some(Value::from("vertex")));
        assert!(matches!(field("properties"), Some(Value::Map(_))));
    }
}
