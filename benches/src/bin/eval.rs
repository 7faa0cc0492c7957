//! Quality evaluation of the extractor on `shared/corpus` (hand-labelled real pages).
//!
//! `cargo run --release -p contact-benches --bin eval -- ../shared/corpus [--check] [--verbose]`
//!
//! Each labelled page is extracted as a one-page site at its `page_url` and compared with
//! `truth.json` (format in the corpus README and SOURCES.md "Conventions"):
//! - per-field precision/recall, micro-averaged over pages;
//! - emails compared lower-case; phones by E.164, where fax numbers are neither required nor
//!   penalised; socials after the same canonicalisation on both sides; addresses matched by
//!   postcode (upper-case, no spaces), or by street when the page shows no postcode;
//! - company name accuracy: equal to the name or an accepted alternative, ignoring case,
//!   punctuation and white space.
//!
//! With `--check` the exit status is 1 when a field is below the floors of the quality issue
//! (emails P≥0.97 R≥0.95; phones P≥0.93 R≥0.85; socials P≥0.95 R≥0.93; addresses P≥0.80
//! R≥0.70; company name ≥0.80).

use std::path::PathBuf;
use std::process::ExitCode;

use contact_core::extract::{self, socials};
use serde::Deserialize;
use url::Url;

#[derive(Deserialize)]
struct Truth {
    file: String,
    page_url: String,
    emails: Vec<String>,
    phones: Vec<TruthPhone>,
    socials: std::collections::BTreeMap<String, Vec<String>>,
    addresses: Vec<TruthAddress>,
    #[serde(rename = "companyName")]
    company_name: Option<String>,
    #[serde(rename = "companyNameAlternatives", default)]
    company_name_alternatives: Vec<String>,
}

#[derive(Deserialize)]
struct TruthPhone {
    e164: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct TruthAddress {
    #[serde(rename = "streetAddress")]
    street_address: Option<String>,
    #[serde(rename = "postalCode")]
    postal_code: Option<String>,
}

#[derive(Default, Clone, Copy)]
struct Counts {
    tp: usize,
    fp: usize,
    fn_: usize,
}

impl Counts {
    fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }
    fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fn_) as f64
        }
    }
}

/// Multiset comparison; `ignored` predictions count neither way. Returns the misses for the
/// verbose report.
fn compare(
    counts: &mut Counts,
    predicted: &[String],
    expected: &[String],
    ignored: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut remaining: Vec<&String> = expected.iter().collect();
    let mut false_positives = Vec::new();
    for p in predicted {
        if let Some(i) = remaining.iter().position(|e| *e == p) {
            remaining.remove(i);
            counts.tp += 1;
        } else if !ignored.contains(p) {
            counts.fp += 1;
            false_positives.push(p.clone());
        }
    }
    counts.fn_ += remaining.len();
    (false_positives, remaining.into_iter().cloned().collect())
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn canonical_social(href: &str) -> String {
    socials::classify(href).map_or_else(|| href.trim().to_lowercase(), |(_, u)| u.to_lowercase())
}

fn postcode_key(postcode: Option<&str>, street: Option<&str>) -> String {
    match postcode {
        Some(p) => p
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_uppercase)
            .collect(),
        None => format!("street:{}", squash(street.unwrap_or(""))),
    }
}

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
    let truth: Vec<Truth> = match std::fs::read(dir.join("truth.json"))
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
    {
        Ok(t) => t,
        Err(e) => {
            eprintln!("eval: cannot load {}/truth.json: {e}", dir.display());
            return ExitCode::from(2);
        }
    };
    let (mut emails, mut phones, mut social, mut addresses) = (
        Counts::default(),
        Counts::default(),
        Counts::default(),
        Counts::default(),
    );
    let mut names_right = 0usize;
    for page in &truth {
        let bytes = match std::fs::read(dir.join("pages").join(&page.file)) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("eval: cannot read {}: {e}", page.file);
                return ExitCode::from(2);
            }
        };
        let Ok(url) = Url::parse(&page.page_url) else {
            eprintln!("eval: bad page_url in truth for {}", page.file);
            return ExitCode::from(2);
        };
        let got = extract::extract_page(&url, None, &bytes);
        let mut report: Vec<String> = Vec::new();
        let mut note = |field: &str, (fp, missed): (Vec<String>, Vec<String>)| {
            if !fp.is_empty() || !missed.is_empty() {
                report.push(format!("  {field}: extra {fp:?} missed {missed:?}"));
            }
        };
        note(
            "emails",
            compare(&mut emails, &got.emails, &page.emails, &[]),
        );
        let voice: Vec<String> = page
            .phones
            .iter()
            .filter(|p| p.kind != "fax")
            .map(|p| p.e164.clone())
            .collect();
        let fax: Vec<String> = page
            .phones
            .iter()
            .filter(|p| p.kind == "fax")
            .map(|p| p.e164.clone())
            .collect();
        note("phones", compare(&mut phones, &got.phones, &voice, &fax));
        let mut expected_socials: Vec<String> = page
            .socials
            .values()
            .flatten()
            .map(|s| canonical_social(s))
            .collect();
        expected_socials.sort();
        expected_socials.dedup();
        let got_socials: Vec<String> = got.socials.iter().map(|(_, u)| u.to_lowercase()).collect();
        note(
            "socials",
            compare(&mut social, &got_socials, &expected_socials, &[]),
        );
        let expected_addresses: Vec<String> = page
            .addresses
            .iter()
            .map(|a| postcode_key(a.postal_code.as_deref(), a.street_address.as_deref()))
            .collect();
        let got_addresses: Vec<String> = got
            .addresses
            .iter()
            .map(|a| postcode_key(a.postal_code.as_deref(), a.street.as_deref()))
            .collect();
        note(
            "addresses",
            compare(&mut addresses, &got_addresses, &expected_addresses, &[]),
        );
        let accepted: Vec<String> = page
            .company_name
            .iter()
            .chain(&page.company_name_alternatives)
            .map(|n| squash(n))
            .collect();
        let name_ok = match &got.company_name {
            Some(name) => accepted.contains(&squash(name)),
            None => accepted.is_empty(),
        };
        names_right += usize::from(name_ok);
        if !name_ok {
            report.push(format!(
                "  companyName: got {:?}, want {:?}",
                got.company_name, page.company_name
            ));
        }
        if verbose && !report.is_empty() {
            println!("{}\n{}", page.file, report.join("\n"));
        }
    }
    let name_accuracy = names_right as f64 / truth.len().max(1) as f64;
    println!("pages: {}", truth.len());
    println!(
        "{:<10} {:>9} {:>9} {:>5} {:>5} {:>5}",
        "field", "precision", "recall", "tp", "fp", "fn"
    );
    let rows = [
        ("emails", emails, 0.97, 0.95),
        ("phones", phones, 0.93, 0.85),
        ("socials", social, 0.95, 0.93),
        ("addresses", addresses, 0.80, 0.70),
    ];
    let mut ok = true;
    for (name, c, p_floor, r_floor) in rows {
        println!(
            "{name:<10} {:>9.3} {:>9.3} {:>5} {:>5} {:>5}",
            c.precision(),
            c.recall(),
            c.tp,
            c.fp,
            c.fn_
        );
        ok &= c.precision() >= p_floor && c.recall() >= r_floor;
    }
    println!(
        "{:<10} {:>9.3} (accuracy, {names_right}/{})",
        "company",
        name_accuracy,
        truth.len()
    );
    ok &= name_accuracy >= 0.80;
    if check && !ok {
        eprintln!("eval: below the quality floors");
        return ExitCode::FAILURE;
    }
    if check {
        println!("eval: all quality floors met");
    }
    ExitCode::SUCCESS
}
