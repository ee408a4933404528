//! Compile-fail tests: one mistake per file in `tests/ui/<topic>/`, each with the exact
//! compiler output in its `.stderr`. To accept changed output after reviewing it:
//! `TRYBUILD=overwrite cargo test -p graphbinary-derive --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
