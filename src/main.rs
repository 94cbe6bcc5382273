//! Thin entry point: parse the command line, run it, exit with its code.
#![forbid(unsafe_code)]

fn main() {
    std::process::exit(limette::cli::main(std::env::args().skip(1).collect()));
}
