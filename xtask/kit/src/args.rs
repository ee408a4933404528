//! The one argument parser of xtask and its tool crates: flags (`--quick`), options with a
//! value (`--port 8182` or `--port=8182`), positionals, and `-h`/`--help`. Each error names the
//! flag and what it takes; an unknown argument shows the tool's usage.
//!
//! ```
//! # fn main() -> anyhow::Result<()> {
//! use graphbinary_kit::args::Args;
//! const HELP: &str = "usage: tool [--port N] [--detach]";
//! let argv = ["--port".to_string(), "8190".to_string(), "--detach".to_string()];
//! let (mut port, mut detach) = (8182u16, false);
//! let mut a = Args::new(&argv, HELP);
//! while let Some(arg) = a.next() {
//!     match arg {
//!         "--port" => port = a.parse(arg)?,
//!         "--detach" => detach = true,
//!         other => return Err(a.unknown(other)),
//!     }
//! }
//! if a.helped() {
//!     return Ok(()); // the usage is printed
//! }
//! assert_eq!((port, detach), (8190, true));
//! # Ok(()) }
//! ```

use std::fmt::Display;
use std::io::Write;
use std::str::FromStr;

use anyhow::{anyhow, Result};

/// A command line being read, one argument at a time (see the module doc).
pub struct Args<'a> {
    args: &'a [String],
    next: usize,
    help: &'a str,
    /// The value of the argument just returned when it was written `--flag=value`.
    inline: Option<&'a str>,
    helped: bool,
}

impl<'a> Args<'a> {
    /// `args` (without the program and command names); `help` is printed for `-h`/`--help`
    /// and shown after an unknown argument.
    pub fn new(args: &'a [String], help: &'a str) -> Self {
        Args {
            args,
            next: 0,
            help,
            inline: None,
            helped: false,
        }
    }

    /// The next flag (`--port` of `--port=1` too) or positional; `None` at the end, and after
    /// `-h`/`--help`, which prints the usage (see [`Args::helped`]).
    #[allow(clippy::should_implement_trait)] // the values borrow the parser's input, not it
    pub fn next(&mut self) -> Option<&'a str> {
        if self.helped {
            return None;
        }
        let arg = self.args.get(self.next)?.as_str();
        self.next += 1;
        self.inline = None;
        if arg == "-h" || arg == "--help" {
            // Not println!: a closed pipe (`| head`) is no reason to panic.
            let _ = writeln!(std::io::stdout(), "{}", self.help);
            self.helped = true;
            return None;
        }
        match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => {
                self.inline = Some(value);
                Some(flag)
            }
            _ => Some(arg),
        }
    }

    /// Whether `-h`/`--help` was met: the caller has nothing more to do.
    pub fn helped(&self) -> bool {
        self.helped
    }

    /// The value of `flag` (the argument [`Args::next`] just returned).
    pub fn value(&mut self, flag: &str) -> Result<&'a str> {
        if let Some(v) = self.inline.take() {
            return Ok(v);
        }
        let v = self
            .args
            .get(self.next)
            .ok_or_else(|| anyhow!("{flag} needs a value"))?;
        self.next += 1;
        Ok(v)
    }

    /// The value of `flag`, parsed: `--port x` is "--port "x": invalid digit found in string".
    pub fn parse<T>(&mut self, flag: &str) -> Result<T>
    where
        T: FromStr,
        T::Err: Display,
    {
        let v = self.value(flag)?;
        v.parse().map_err(|e| anyhow!("{flag} {v:?}: {e}"))
    }

    /// The value of `flag`, one of `choices`: anything else is "FLAG needs a, b or c, not "x"".
    pub fn choice(&mut self, flag: &str, choices: &[&str]) -> Result<&'a str> {
        let v = self.value(flag).map_err(|_| needs(flag, choices, None))?;
        if choices.contains(&v) {
            Ok(v)
        } else {
            Err(needs(flag, choices, Some(v)))
        }
    }

    /// The error for an argument the tool does not take, with its usage.
    pub fn unknown(&self, arg: &str) -> anyhow::Error {
        anyhow!("unknown argument {arg:?}\n\n{}", self.help)
    }
}

fn needs(flag: &str, choices: &[&str], got: Option<&str>) -> anyhow::Error {
    let list = match choices {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    };
    match got {
        Some(v) => anyhow!("{flag} needs {list}, not {v:?}"),
        None => anyhow!("{flag} needs {list}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn flags_values_inline_values_and_positionals() {
        let v = argv("--port 8190 --mode=bulked --quick file.txt");
        let mut a = Args::new(&v, "usage");
        let mut seen = Vec::new();
        while let Some(arg) = a.next() {
            match arg {
                "--port" => seen.push(format!("port {}", a.parse::<u16>(arg).unwrap())),
                "--mode" => seen.push(format!(
                    "mode {}",
                    a.choice(arg, &["plain", "bulked"]).unwrap()
                )),
                "--quick" => seen.push("quick".into()),
                other => seen.push(format!("positional {other}")),
            }
        }
        assert!(!a.helped());
        assert_eq!(
            seen,
            ["port 8190", "mode bulked", "quick", "positional file.txt"]
        );
    }

    #[test]
    fn errors_name_the_flag_and_what_it_takes() {
        let v = argv("--port x --mode fast --seconds");
        let mut a = Args::new(&v, "usage: t");
        assert_eq!(a.next(), Some("--port"));
        let e = a.parse::<u16>("--port").unwrap_err().to_string();
        assert_eq!(e, "--port \"x\": invalid digit found in string");
        assert_eq!(a.next(), Some("--mode"));
        let e = a.choice("--mode", &["plain", "bulked", "all"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--mode needs plain, bulked or all, not \"fast\""
        );
        assert_eq!(a.next(), Some("--seconds"));
        let e = a.parse::<u64>("--seconds").unwrap_err().to_string();
        assert_eq!(e, "--seconds needs a value");
        let e = a.unknown("--nope").to_string();
        assert_eq!(e, "unknown argument \"--nope\"\n\nusage: t");
    }

    #[test]
    fn help_stops_the_walk() {
        let v = argv("--quick --help --port 1");
        let mut a = Args::new(&v, "usage");
        assert_eq!(a.next(), Some("--quick"));
        assert_eq!(a.next(), None);
        assert!(a.helped());
        assert_eq!(a.next(), None);
    }
}
