//! Quality evaluation of the extractor on `shared/corpus` (hand-labelled real pages).
//!
//! Each labelled page is extracted as a one-page site at its `page_url` and compared with
//! `truth.json` (format in the corpus README and SOURCES.md "Conventions"):
//! - per-field precision/recall, micro-averaged over pages;
//! - emails compared lower-case; phones by E.164, where fax numbers are neither required nor
//!   penalised; socials after the same canonicalisation on both sides; addresses matched by
//!   postcode (upper-case, no spaces), or by street when the page shows no postcode;
//! - company name accuracy: equal to the name or an accepted alternative, ignoring case,
//!   punctuation and white space.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use contact_core::extract::{self, socials};
use serde::Deserialize;
use url::Url;

/// The quality floors: (field, minimum precision, minimum recall). Addresses at
/// P ≥ 0.97, R ≥ 0.95.
pub const FLOORS: [(&str, f64, f64); 4] = [
    ("emails", 0.97, 0.95),
    ("phones", 0.93, 0.85),
    ("socials", 0.95, 0.93),
    ("addresses", 0.97, 0.95),
];
/// Minimum company-name accuracy.
pub const COMPANY_FLOOR: f64 = 0.95;

#[derive(Deserialize)]
struct Truth {
    file: String,
    page_url: String,
    emails: Vec<String>,
    phones: Vec<TruthPhone>,
    socials: BTreeMap<String, Vec<String>>,
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

/// True/false positives and false negatives of one field.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    /// Predicted and expected.
    pub tp: usize,
    /// Predicted, not expected.
    pub fp: usize,
    /// Expected, not predicted.
    pub fn_: usize,
}

impl Counts {
    /// tp / (tp + fp); 1 when nothing was predicted.
    pub fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }

    /// tp / (tp + fn); 1 when nothing was expected.
    pub fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fn_) as f64
        }
    }
}

/// The evaluation's outcome.
#[derive(Debug, Default)]
pub struct Report {
    /// Pages evaluated.
    pub pages: usize,
    /// Per field, in the order of [`FLOORS`].
    pub fields: Vec<(&'static str, Counts)>,
    /// Pages whose company name was accepted.
    pub names_right: usize,
    /// Per page, the differences (extra and missed values), for `--verbose`.
    pub differences: Vec<String>,
}

impl Report {
    /// Company-name accuracy.
    pub fn name_accuracy(&self) -> f64 {
        self.names_right as f64 / self.pages.max(1) as f64
    }

    /// Whether every floor of [`FLOORS`] and [`COMPANY_FLOOR`] is met.
    pub fn meets_floors(&self) -> bool {
        self.fields
            .iter()
            .zip(FLOORS)
            .all(|((_, c), (_, p, r))| c.precision() >= p && c.recall() >= r)
            && self.name_accuracy() >= COMPANY_FLOOR
    }

    /// The results as a table.
    pub fn table(&self) -> String {
        let mut out = format!("pages: {}\n", self.pages);
        let _ = writeln!(
            out,
            "{:<10} {:>9} {:>9} {:>5} {:>5} {:>5}",
            "field", "precision", "recall", "tp", "fp", "fn"
        );
        for (name, c) in &self.fields {
            let _ = writeln!(
                out,
                "{name:<10} {:>9.3} {:>9.3} {:>5} {:>5} {:>5}",
                c.precision(),
                c.recall(),
                c.tp,
                c.fp,
                c.fn_
            );
        }
        let _ = writeln!(
            out,
            "{:<10} {:>9.3} (accuracy, {}/{})",
            "company",
            self.name_accuracy(),
            self.names_right,
            self.pages
        );
        out
    }
}

/// Multiset comparison; `ignored` predictions count neither way. Returns (extra, missed).
fn compare(
    counts: &mut Counts,
    predicted: &[String],
    expected: &[String],
    ignored: &[String],
) -> (Vec<String>, Vec<String>) {
    let mut remaining: Vec<&String> = expected.iter().collect();
    let mut extra = Vec::new();
    for p in predicted {
        if let Some(i) = remaining.iter().position(|e| *e == p) {
            remaining.remove(i);
            counts.tp += 1;
        } else if !ignored.contains(p) {
            counts.fp += 1;
            extra.push(p.clone());
        }
    }
    counts.fn_ += remaining.len();
    (extra, remaining.into_iter().cloned().collect())
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

fn address_key(postcode: Option<&str>, street: Option<&str>) -> String {
    match postcode {
        Some(p) => p
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_uppercase)
            .collect(),
        None => format!("street:{}", squash(street.unwrap_or(""))),
    }
}

/// Runs the evaluation over `corpus_dir` (`truth.json` and `pages/`).
///
/// # Errors
/// The truth file or a page cannot be read or parsed.
pub fn evaluate(corpus_dir: &Path) -> Result<Report, String> {
    let truth_path = corpus_dir.join("truth.json");
    let bytes = std::fs::read(&truth_path)
        .map_err(|e| format!("cannot read {}: {e}", truth_path.display()))?;
    let truth: Vec<Truth> = serde_json::from_slice(&bytes)
        .map_err(|e| format!("cannot parse {}: {e}", truth_path.display()))?;
    let mut counts = [Counts::default(); 4];
    let mut report = Report {
        pages: truth.len(),
        ..Report::default()
    };
    for page in &truth {
        let path = corpus_dir.join("pages").join(&page.file);
        let html =
            std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let url = Url::parse(&page.page_url)
            .map_err(|e| format!("bad page_url for {}: {e}", page.file))?;
        let got = extract::extract_page(&url, None, &html);
        let mut notes: Vec<String> = Vec::new();
        let mut note = |field: &str, (extra, missed): (Vec<String>, Vec<String>)| {
            if !extra.is_empty() || !missed.is_empty() {
                notes.push(format!("  {field}: extra {extra:?} missed {missed:?}"));
            }
        };
        note(
            "emails",
            compare(&mut counts[0], &got.emails, &page.emails, &[]),
        );
        let (fax, voice): (Vec<&TruthPhone>, Vec<&TruthPhone>) =
            page.phones.iter().partition(|p| p.kind == "fax");
        let voice: Vec<String> = voice.iter().map(|p| p.e164.clone()).collect();
        let fax: Vec<String> = fax.iter().map(|p| p.e164.clone()).collect();
        note("phones", compare(&mut counts[1], &got.phones, &voice, &fax));
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
            compare(&mut counts[2], &got_socials, &expected_socials, &[]),
        );
        let expected_addresses: Vec<String> = page
            .addresses
            .iter()
            .map(|a| address_key(a.postal_code.as_deref(), a.street_address.as_deref()))
            .collect();
        let got_addresses: Vec<String> = got
            .addresses
            .iter()
            .map(|a| address_key(a.postal_code.as_deref(), a.street.as_deref()))
            .collect();
        note(
            "addresses",
            compare(&mut counts[3], &got_addresses, &expected_addresses, &[]),
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
        report.names_right += usize::from(name_ok);
        if !name_ok {
            notes.push(format!(
                "  companyName: got {:?}, want {:?}",
                got.company_name, page.company_name
            ));
        }
        if !notes.is_empty() {
            report
                .differences
                .push(format!("{}\n{}", page.file, notes.join("\n")));
        }
    }
    report.fields = FLOORS
        .iter()
        .zip(counts)
        .map(|((name, _, _), c)| (*name, c))
        .collect();
    Ok(report)
}
