//! Quality evaluation on the labelled corpus (see `contact_benches::eval` for the rules).
//!
//! `cargo run --release -p contact-benches --bin eval -- ../shared/corpus [--check] [--verbose]`
//!
//! Prints per-field precision/recall and company-name accuracy. With `--check` the exit status
//! is 1 when a field is below the floors of the quality issue; 2 for bad arguments or an
//! unreadable corpus.

use std::path::PathBuf;
use std::process::ExitCode;

use contact_benches::eval;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = args.iter().any(|a| a == "--check");
    let verbose = args.iter().any(|a| a == "--verbose");
    let Some(dir) = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
    else {
        eprintln!("usage: eval CORPUS_DIR [--check] [--verbose]");
        return ExitCode::from(2);
    };
    let report = match eval::evaluate(&dir) {
        Ok(report) => report,
        Err(message) => {
            eprintln!("eval: {message}");
            return ExitCode::from(2);
        }
    };
    if verbose {
        for difference in &report.differences {
            println!("{difference}");
        }
    }
    print!("{}", report.table());
    if check {
        if !report.meets_floors() {
            eprintln!("eval: below the quality floors");
            return ExitCode::FAILURE;
        }
        println!("eval: all quality floors met");
    }
    ExitCode::SUCCESS
}
