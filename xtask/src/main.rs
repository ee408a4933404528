//! Project automation: `cargo xtask <command>`.

mod fuzz;
mod regen;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("regen") => {
            if let Err(e) = regen::run(&args[1..]) {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        Some("fuzz") => {
            if let Err(e) = fuzz::main(&args[1..]) {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        _ => {
            eprintln!("usage: cargo xtask <regen|server|demo|ci|bench|fuzz>");
            std::process::exit(2);
        }
    }
}
