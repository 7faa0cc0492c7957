//! Quality evaluation on the labelled corpora (see `contact_benches::eval` for the rules).
//!
//! `cargo run --release -p contact-benches --bin eval -- [CORPUS_DIR…] [--check] [--verbose]
//! [--write-baseline]`
//!
//! Without a folder it evaluates `corpus`, `corpus-2026`, `corpus-frameworks`, `corpus-world`
//! and `corpus-world-check` of the shared folder beside the checkout. Per corpus it prints
//! per-field precision/recall (the four result fields, then the street and locality parts of
//! the addresses whose postcode matched) and company-name accuracy. `--check` also prints every
//! floor of the corpus (`eval::floors_for`) and every page worse than the corpus's per-page
//! baseline (`benches/baseline/<corpus>.json`), and exits with status 1 when a floor is not met
//! or a page got worse. `--write-baseline` writes the baseline from this run (a commit that
//! changes it says why); it cannot be combined with `--check` (a check that rewrites what it
//! checks against always passes). `--verbose` prints each page's differences from the truth.
//! A held-out corpus (`eval::totals_only`: `corpus-world-check`) shows its totals only: it has
//! no baseline, and `--verbose` and `--write-baseline` are refused for it. Status 2: bad
//! arguments, an unreadable corpus or baseline.
//!
//! `--sites` evaluates each corpus site by site instead (`contact_benches::sites`): every site
//! crawled from its home page as a paid request crawls it, in the core's network simulation,
//! reporting contact-page recall, pages fetched, requests answered 404 and the merged result's
//! fields; `--verbose` adds each site's fetches and differences (refused for a held-out corpus),
//! `--check` the corpus's contact-page recall floor (`eval::site_recall_floor`), which the
//! page-level `--check` checks too.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use contact_benches::{eval, shared_dir, sites};

const USAGE: &str =
    "usage: eval [CORPUS_DIR...] [--check] [--verbose] [--write-baseline] | eval --sites [CORPUS_DIR...] [--check] [--verbose]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut check = false;
    let mut verbose = false;
    let mut write = false;
    let mut sites = false;
    let mut dirs: Vec<PathBuf> = Vec::new();
    for arg in &args {
        match arg.as_str() {
            "--check" => check = true,
            "--verbose" => verbose = true,
            "--write-baseline" => write = true,
            "--sites" => sites = true,
            flag if flag.starts_with("--") => {
                eprintln!("eval: unknown option {flag}\n{USAGE}");
                return ExitCode::from(2);
            }
            dir => dirs.push(PathBuf::from(dir)),
        }
    }
    if check && write {
        eprintln!(
            "eval: --check and --write-baseline together would check against the baseline \
             this run writes; write it, review the diff, then check\n{USAGE}"
        );
        return ExitCode::from(2);
    }
    if dirs.is_empty() {
        dirs = [
            "corpus",
            "corpus-2026",
            "corpus-frameworks",
            "corpus-world",
            "corpus-world-check",
        ]
        .iter()
        .map(|c| shared_dir().join(c))
        .collect();
    }
    if sites && write {
        eprintln!("eval: --sites has no baseline to write\n{USAGE}");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for dir in &dirs {
        let outcome = if sites {
            run_sites(dir, check, verbose)
        } else {
            run(dir, check, verbose, write)
        };
        match outcome {
            Ok(passed) => failed |= !passed,
            Err(message) => {
                eprintln!("eval: {message}");
                return ExitCode::from(2);
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Evaluates one corpus; `Ok(false)` when `--check` found a floor not met or a page worse.
fn run(dir: &Path, check: bool, verbose: bool, write: bool) -> Result<bool, String> {
    let name = corpus_name(dir)?;
    let held_out = eval::totals_only(&name);
    if held_out && (verbose || write) {
        return Err(format!(
            "{name} is held out: only its totals are shown (no --verbose, no --write-baseline)"
        ));
    }
    let report = eval::evaluate(dir)?;
    println!("== {name} ({})", dir.display());
    if verbose {
        for difference in report.differences() {
            println!("{difference}");
        }
    }
    print!("{}", report.table());
    let path = eval::baseline_path(&name);
    if write {
        std::fs::write(&path, eval::Baseline::of(&report).to_text())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        println!("baseline written: {}", path.display());
    }
    if !check {
        return Ok(true);
    }
    let mut passed = true;
    match eval::floors_for(&name) {
        Some(floors) => {
            for (line, met) in report.floor_lines(&floors) {
                println!("floor {line}: {}", if met { "met" } else { "NOT MET" });
                passed &= met;
            }
        }
        None => println!("floors: none for {name}"),
    }
    if let Some(floor) = eval::site_recall_floor(&name) {
        passed &= site_recall_met(&sites::evaluate_sites(dir)?, floor);
    }
    if held_out {
        println!(
            "eval {name}: {}",
            if passed {
                "all floors met (held out: totals only, no per-page baseline)"
            } else {
                "FAILED"
            }
        );
        return Ok(passed);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read the baseline {}: {e}", path.display()))?;
    let baseline = eval::Baseline::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let regressions = baseline.regressions(&report);
    for line in &regressions {
        println!("worse than the baseline: {line}");
    }
    passed &= regressions.is_empty();
    let changed = baseline.changed_not_worse(&report);
    if !changed.is_empty() {
        println!(
            "better than or different from the baseline (write it again with --write-baseline \
             and say why in the commit): {}",
            changed.join(", ")
        );
    }
    println!(
        "eval {name}: {}",
        if passed {
            "all floors met, no page worse than the baseline"
        } else {
            "FAILED"
        }
    );
    Ok(passed)
}

/// Evaluates one corpus site by site; `Ok(false)` when `--check` found its contact-page
/// recall under the floor.
fn run_sites(dir: &Path, check: bool, verbose: bool) -> Result<bool, String> {
    let name = corpus_name(dir)?;
    if eval::totals_only(&name) && verbose {
        return Err(format!(
            "{name} is held out: only its totals are shown (no --verbose)"
        ));
    }
    let report = sites::evaluate_sites(dir)?;
    println!("== {name} sites ({})", dir.display());
    if verbose {
        for difference in report.differences() {
            println!("{difference}");
        }
    }
    print!("{}", report.table());
    if !check {
        return Ok(true);
    }
    let Some(floor) = eval::site_recall_floor(&name) else {
        println!("site floor: none for {name}");
        return Ok(true);
    };
    Ok(site_recall_met(&report, floor))
}

/// Prints the contact-page recall floor line; whether it is met.
fn site_recall_met(report: &sites::SitesReport, floor: f64) -> bool {
    let recall = report.contact_page_recall();
    let met = recall >= floor;
    println!(
        "floor contact-page recall (site by site) {recall:.3} >= {floor:.3}: {}",
        if met { "met" } else { "NOT MET" }
    );
    met
}

/// The corpus's folder name (`corpus-2026`), which names its floors and its baseline.
fn corpus_name(dir: &Path) -> Result<String, String> {
    let canonical = dir
        .canonicalize()
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{} names no corpus folder", dir.display()))
}
