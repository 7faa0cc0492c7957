//! `pathological-page NAME`: writes one of the crafted ~2 MiB pages of
//! `contact_benches::pathological` (emails, phones, links, nested, addresses, socials) to
//! stdout, for the load scripts' fixture site (`benches/load/heavy.sh`).

use std::io::Write as _;
use std::process::ExitCode;

fn main() -> ExitCode {
    let name = std::env::args().nth(1).unwrap_or_default();
    let Some(page) = contact_benches::pathological::page(&name) else {
        let names: Vec<&str> = contact_benches::pathological::PAGES
            .iter()
            .map(|(n, _)| *n)
            .collect();
        eprintln!(
            "usage: pathological-page NAME   (one of {})",
            names.join(", ")
        );
        return ExitCode::from(2);
    };
    match std::io::stdout().lock().write_all(&page) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}
