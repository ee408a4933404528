//! Project automation: `cargo xtask <command>`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        _ => {
            eprintln!("usage: cargo xtask <regen|server|demo|ci|bench>");
            std::process::exit(2);
        }
    }
}
