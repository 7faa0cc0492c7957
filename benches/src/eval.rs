//! Quality evaluation of the extractor on the hand-labelled corpora of real pages
//! (`shared/corpus`, `shared/corpus-2026`, `shared/corpus-frameworks`, `shared/corpus-world`,
//! `shared/corpus-world-check`).
//!
//! Each labelled page is extracted as a one-page site at its `page_url` and compared with
//! `truth.json` (format in the corpus README and SOURCES.md "Conventions"):
//! - per-field precision/recall, micro-averaged over pages;
//! - emails compared lower-case; phones by E.164, where fax numbers are neither required nor
//!   penalised; socials by a comparison key computed here on both sides ([`social_key`]), not
//!   by the extractor's own canonicalisation; addresses matched by postcode (upper-case, no
//!   spaces, no CEPT country prefix such as `D-`), or by street when the page shows no postcode;
//! - address parts: for each labelled address whose postcode a found address matched, its
//!   street (`street`) and its locality (`locality`) compared ignoring case, punctuation and
//!   white space — a right postcode with a wrong street is a street error (a false positive and
//!   a false negative), a missing street a false negative, a street the truth lacks a false
//!   positive;
//! - company name accuracy: equal to the name or an accepted alternative, ignoring case,
//!   punctuation and white space;
//! - `corpus-frameworks` also lists per page the values found only in framework state
//!   (`in_state_only`), counted as found when the extraction holds them.
//!
//! Every corpus has floors ([`floors_for`]), each within 0.02 of what was measured when they
//! were set. The development corpora (all but `corpus-world-check`) also have a per-page
//! [`Baseline`] (`benches/baseline/<corpus>.json`): a page whose fields get worse than it (more
//! false positives or negatives, a company name lost) is a regression, whatever the averages
//! say, and a baseline page missing from the evaluation is one too. `corpus-world-check` is the
//! held-out half of `corpus-world`: only its totals are ever shown ([`totals_only`]), so it can
//! tell whether a rule made on the other corpora generalises.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use contact_core::extract::{self, address::MarkedAddress};
use serde::{Deserialize, Serialize};
use url::Url;

/// The contact-page recall floor of a corpus's site-level evaluation ([`crate::sites`];
/// checked by `eval --check` and `eval --sites --check`), within 0.02 of what was measured
/// (the crawl runs in the core's deterministic simulation: the number does not vary from run
/// to run); `None` for a corpus without one.
pub fn site_recall_floor(corpus: &str) -> Option<f64> {
    match corpus {
        "corpus" => Some(0.915),
        "corpus-2026" => Some(0.946),
        "corpus-frameworks" => Some(0.48),
        "corpus-world" => Some(0.88),
        "corpus-world-check" => Some(0.769),
        _ => None,
    }
}

/// The quality floors of one corpus: per field (in the order of [`FIELDS`]) the minimum
/// precision and recall, and the minimum company-name accuracy.
#[derive(Debug, Clone, Copy)]
pub struct Floors {
    /// (field, minimum precision, minimum recall), in the order of [`FIELDS`].
    pub fields: [(&'static str, f64, f64); 6],
    /// Minimum company-name accuracy.
    pub company: f64,
}

/// The fields compared, in the order of [`Report::fields`] and [`Floors::fields`]: the four
/// result fields, then the street and the locality of each address whose postcode matched.
pub const FIELDS: [&str; 6] = [
    "emails",
    "phones",
    "socials",
    "addresses",
    "street",
    "locality",
];

/// Floors from (precision, recall) per field of [`FIELDS`] and the company accuracy.
const fn floors(fields: [(f64, f64); 6], company: f64) -> Floors {
    Floors {
        fields: [
            (FIELDS[0], fields[0].0, fields[0].1),
            (FIELDS[1], fields[1].0, fields[1].1),
            (FIELDS[2], fields[2].0, fields[2].1),
            (FIELDS[3], fields[3].0, fields[3].1),
            (FIELDS[4], fields[4].0, fields[4].1),
            (FIELDS[5], fields[5].0, fields[5].1),
        ],
        company,
    }
}

/// The floors of `shared/corpus` (older pages; a development corpus).
pub const CORPUS_FLOORS: Floors = floors(
    [
        (0.98, 0.98),
        (0.96, 0.95),
        (0.98, 0.98),
        (0.98, 0.97),
        (0.98, 0.967),
        (0.966, 0.953),
    ],
    0.97,
);

/// The floors of `shared/corpus-2026` (modern sites; a development corpus since the fourth
/// round of extraction rules was made on it).
pub const CORPUS_2026_FLOORS: Floors = floors(
    [
        (0.98, 0.98),
        (0.97, 0.98),
        (0.98, 0.98),
        (0.98, 0.96),
        (0.954, 0.954),
        (0.98, 0.98),
    ],
    0.95,
);

/// The floors of `shared/corpus-frameworks` (pages whose contact data sits in framework state).
pub const CORPUS_FRAMEWORKS_FLOORS: Floors = floors(
    [
        (0.98, 0.98),
        (0.98, 0.98),
        (0.98, 0.98),
        (0.903, 0.98),
        (0.98, 0.98),
        (0.98, 0.98),
    ],
    0.98,
);

/// The floors of `shared/corpus-world` (small businesses of four continents; a development
/// corpus).
pub const CORPUS_WORLD_FLOORS: Floors = floors(
    [
        (0.98, 0.98),
        (0.964, 0.98),
        (0.94, 0.94),
        (0.98, 0.98),
        (0.91, 0.91),
        (0.944, 0.944),
    ],
    0.98,
);

/// The floors of `shared/corpus-world-check` (the held-out half of the same collection, other
/// sites: only its totals are read).
pub const CORPUS_WORLD_CHECK_FLOORS: Floors = floors(
    [
        (0.98, 0.98),
        (0.94, 0.98),
        (0.98, 0.98),
        (0.944, 0.774),
        (0.78, 0.78),
        (0.875, 0.83),
    ],
    0.88,
);

/// The floors of a corpus by its folder name (`corpus`, `corpus-2026`, `corpus-frameworks`,
/// `corpus-world`, `corpus-world-check`); `None` for another folder.
pub fn floors_for(corpus: &str) -> Option<Floors> {
    match corpus {
        "corpus" => Some(CORPUS_FLOORS),
        "corpus-2026" => Some(CORPUS_2026_FLOORS),
        "corpus-frameworks" => Some(CORPUS_FRAMEWORKS_FLOORS),
        "corpus-world" => Some(CORPUS_WORLD_FLOORS),
        "corpus-world-check" => Some(CORPUS_WORLD_CHECK_FLOORS),
        _ => None,
    }
}

/// Whether only the totals of the corpus in folder `corpus` may be shown: the held-out
/// `corpus-world-check`, whose pages and per-page results nobody making rules reads. It has no
/// per-page baseline, and `eval` prints no per-page line for it.
pub fn totals_only(corpus: &str) -> bool {
    corpus == "corpus-world-check"
}

#[derive(Deserialize)]
pub(crate) struct Truth {
    pub(crate) file: String,
    pub(crate) page_url: String,
    /// `home`, `contact`, `about`, `legal notice`, `other`: the site-level evaluation
    /// ([`crate::sites`]) crawls from the `home` page and looks for the others.
    #[serde(rename = "pageType", default)]
    pub(crate) page_type: Option<String>,
    pub(crate) emails: Vec<String>,
    pub(crate) phones: Vec<TruthPhone>,
    pub(crate) socials: BTreeMap<String, Vec<String>>,
    pub(crate) addresses: Vec<TruthAddress>,
    #[serde(rename = "companyName")]
    pub(crate) company_name: Option<String>,
    #[serde(rename = "companyNameAlternatives", default)]
    pub(crate) company_name_alternatives: Vec<String>,
    /// `corpus-frameworks`: labelled values found only in framework state (emails, E.164
    /// phones, social URLs, street addresses).
    #[serde(default)]
    pub(crate) in_state_only: Vec<String>,
}

#[derive(Deserialize)]
pub(crate) struct TruthPhone {
    pub(crate) e164: String,
    #[serde(rename = "type")]
    pub(crate) kind: String,
}

#[derive(Deserialize)]
pub(crate) struct TruthAddress {
    #[serde(rename = "streetAddress")]
    pub(crate) street_address: Option<String>,
    #[serde(rename = "addressLocality", default)]
    pub(crate) address_locality: Option<String>,
    #[serde(rename = "postalCode")]
    pub(crate) postal_code: Option<String>,
}

/// True/false positives and false negatives of one field.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Predicted and expected.
    pub tp: usize,
    /// Predicted, not expected.
    pub fp: usize,
    /// Expected, not predicted.
    #[serde(rename = "fn")]
    pub fn_: usize,
}

impl Counts {
    /// One row of a results table: `name`, precision, recall, tp, fp, fn, and a line break.
    pub fn table_row(&self, name: &str) -> String {
        format!(
            "{name:<10} {:>9.3} {:>9.3} {:>5} {:>5} {:>5}\n",
            self.precision(),
            self.recall(),
            self.tp,
            self.fp,
            self.fn_
        )
    }

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

    pub(crate) fn add(&mut self, other: Counts) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
    }
}

/// One field of one page: the counts and the values behind the errors.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldResult {
    /// The counts.
    #[serde(flatten)]
    pub counts: Counts,
    /// Predicted values that are not expected (the false positives), as compared.
    pub extra: Vec<String>,
    /// Expected values not predicted (the false negatives), as compared.
    pub missed: Vec<String>,
}

/// The company name found on one page and whether it is accepted.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameResult {
    /// The name extracted, if any.
    pub got: Option<String>,
    /// Whether it equals the labelled name or an accepted alternative (or both are absent).
    pub ok: bool,
}

/// The result of one labelled page: per field in the order of [`FIELDS`], and the name.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageResult {
    /// Emails (lower-case).
    pub emails: FieldResult,
    /// Phones (E.164; fax numbers neither required nor penalised).
    pub phones: FieldResult,
    /// Social profile URLs (canonical, lower-case).
    pub socials: FieldResult,
    /// Addresses (postcode, or `street:` and the squashed street).
    pub addresses: FieldResult,
    /// The street of each address whose postcode matched (`<postcode>: <street>`).
    pub street: FieldResult,
    /// The locality of each address whose postcode matched (`<postcode>: <locality>`).
    pub locality: FieldResult,
    /// Company name.
    pub company: NameResult,
}

impl PageResult {
    /// The fields in the order of [`FIELDS`].
    pub fn fields(&self) -> [(&'static str, &FieldResult); 6] {
        [
            (FIELDS[0], &self.emails),
            (FIELDS[1], &self.phones),
            (FIELDS[2], &self.socials),
            (FIELDS[3], &self.addresses),
            (FIELDS[4], &self.street),
            (FIELDS[5], &self.locality),
        ]
    }
}

/// The evaluation's outcome.
#[derive(Debug, Default)]
pub struct Report {
    /// Pages evaluated.
    pub pages: usize,
    /// Per field, in the order of [`FIELDS`], summed over the pages.
    pub fields: Vec<(&'static str, Counts)>,
    /// Pages whose company name was accepted.
    pub names_right: usize,
    /// Per page (by file name), its result.
    pub per_page: BTreeMap<String, PageResult>,
    /// `corpus-frameworks`: the labelled values only in framework state that were found, and
    /// the labelled ones that were not (`(page, value)`).
    pub in_state_only_found: usize,
    /// See [`Report::in_state_only_found`].
    pub in_state_only_missed: Vec<(String, String)>,
}

impl Report {
    /// Company-name accuracy.
    pub fn name_accuracy(&self) -> f64 {
        self.names_right as f64 / self.pages.max(1) as f64
    }

    /// Every floor of `floors` with whether it is met: `("phones recall 0.810 >= 0.950",
    /// false)`.
    pub fn floor_lines(&self, floors: &Floors) -> Vec<(String, bool)> {
        let mut lines = Vec::new();
        for ((name, c), (_, p, r)) in self.fields.iter().zip(floors.fields) {
            lines.push((
                format!("{name} precision {:.3} >= {p:.3}", c.precision()),
                c.precision() >= p,
            ));
            lines.push((
                format!("{name} recall {:.3} >= {r:.3}", c.recall()),
                c.recall() >= r,
            ));
        }
        lines.push((
            format!(
                "company accuracy {:.3} >= {:.3}",
                self.name_accuracy(),
                floors.company
            ),
            self.name_accuracy() >= floors.company,
        ));
        lines
    }

    /// Whether every floor of `floors` is met.
    pub fn meets(&self, floors: &Floors) -> bool {
        self.floor_lines(floors).iter().all(|(_, met)| *met)
    }

    /// Per page, the differences from the truth (extra and missed values, a wrong name).
    pub fn differences(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (file, page) in &self.per_page {
            let mut notes: Vec<String> = Vec::new();
            for (field, r) in page.fields() {
                if !r.extra.is_empty() || !r.missed.is_empty() {
                    notes.push(format!(
                        "  {field}: extra {:?} missed {:?}",
                        r.extra, r.missed
                    ));
                }
            }
            if !page.company.ok {
                notes.push(format!("  companyName: got {:?}", page.company.got));
            }
            if !notes.is_empty() {
                out.push(format!("{file}\n{}", notes.join("\n")));
            }
        }
        out
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
            out.push_str(&c.table_row(name));
        }
        let _ = writeln!(
            out,
            "{:<10} {:>9.3} (accuracy, {}/{})",
            "company",
            self.name_accuracy(),
            self.names_right,
            self.pages
        );
        let state_total = self.in_state_only_found + self.in_state_only_missed.len();
        if state_total > 0 {
            let _ = writeln!(
                out,
                "in_state_only found {}/{state_total}{}",
                self.in_state_only_found,
                self.in_state_only_missed
                    .iter()
                    .map(|(page, value)| format!("\n  missed {value} ({page})"))
                    .collect::<String>()
            );
        }
        out
    }
}

/// Multiset comparison; `ignored` predictions count neither way.
pub(crate) fn compare(
    predicted: &[String],
    expected: &[String],
    ignored: &[String],
) -> FieldResult {
    let mut result = FieldResult::default();
    let mut remaining: Vec<&String> = expected.iter().collect();
    for p in predicted {
        if let Some(i) = remaining.iter().position(|e| *e == p) {
            remaining.remove(i);
            result.counts.tp += 1;
        } else if !ignored.contains(p) {
            result.counts.fp += 1;
            result.extra.push(p.clone());
        }
    }
    result.counts.fn_ = remaining.len();
    result.missed = remaining.into_iter().cloned().collect();
    result
}

pub(crate) fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The comparison key of a social profile URL, the same for the truth's URL and the
/// extractor's, computed without the extractor's `socials::classify` (so that its
/// canonicalisation is checked, not assumed): lower-case; no scheme; the host's last two labels
/// (`www.`, `m.`, country sub-domains dropped) with the networks' other hosts read as their
/// main one (`twitter.com` → `x.com`, `fb.com` → `facebook.com`, `instagr.am` →
/// `instagram.com`); the path percent-decoded, without a trailing slash, the old Twitter form
/// `/#!/name` read as `/name`; of the query only `id` and `gid` (Facebook's `profile.php?id=`;
/// LinkedIn's `groups?gid=N`, read as `groups/N`), no fragment. A text that is no URL is compared trimmed and lower-case.
pub fn social_key(href: &str) -> String {
    let trimmed = href.trim();
    let with_scheme = if trimmed.starts_with("//") {
        format!("https:{trimmed}")
    } else if trimmed.contains("://") {
        trimmed.to_string()
    } else {
        format!("https://{trimmed}")
    };
    let Ok(url) = Url::parse(&with_scheme) else {
        return trimmed.to_lowercase();
    };
    let Some(host) = url.host_str() else {
        return trimmed.to_lowercase();
    };
    let host = host.to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    let base = labels[labels.len().saturating_sub(2)..].join(".");
    let base = match base.as_str() {
        "twitter.com" => "x.com",
        "fb.com" => "facebook.com",
        "instagr.am" => "instagram.com",
        other => other,
    };
    let fragment = percent_decoded(url.fragment().unwrap_or(""));
    let path = match (url.path(), fragment.strip_prefix('!')) {
        ("/" | "", Some(handle)) => handle.to_string(),
        (path, _) => percent_decoded(path),
    };
    let mut key = format!("{base}/{}", path.trim_matches('/')).to_lowercase();
    let mut kept: Vec<String> = url
        .query_pairs()
        .filter(|(name, _)| name == "id" || name == "gid")
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    // LinkedIn's old group address `groups?gid=N` is its group `groups/N`.
    if key == "linkedin.com/groups" && kept.len() == 1 {
        if let Some(id) = kept[0].strip_prefix("gid=") {
            key = format!("linkedin.com/groups/{id}");
            kept.clear();
        }
    }
    if !kept.is_empty() {
        key.push('?');
        key.push_str(&kept.join("&"));
    }
    key
}

/// `%xx` escapes decoded (as UTF-8, lossily); other bytes kept.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Scores `part` of one address whose postcode matched into `result`: equal ignoring case,
/// punctuation and white space is a true positive; a different value a false positive and a
/// false negative; a missing one a false negative; one the truth lacks a false positive.
/// Values are noted as `<postcode>: <value>`.
fn score_part(result: &mut FieldResult, postcode: &str, got: Option<&str>, want: Option<&str>) {
    let got = got.map(str::trim).filter(|g| !squash(g).is_empty());
    let want = want.map(str::trim).filter(|w| !squash(w).is_empty());
    if let (Some(g), Some(w)) = (got, want) {
        if squash(g) == squash(w) {
            result.counts.tp += 1;
            return;
        }
    }
    if let Some(g) = got {
        result.counts.fp += 1;
        result.extra.push(format!("{postcode}: {g}"));
    }
    if let Some(w) = want {
        result.counts.fn_ += 1;
        result.missed.push(format!("{postcode}: {w}"));
    }
}

/// The street and locality results of the labelled addresses with a postcode that a found
/// address matched (each found address matched at most once, in order).
pub(crate) fn compare_parts<'a>(
    got: &[MarkedAddress],
    expected: impl IntoIterator<Item = &'a TruthAddress>,
) -> (FieldResult, FieldResult) {
    let mut street = FieldResult::default();
    let mut locality = FieldResult::default();
    let mut used = vec![false; got.len()];
    for want in expected {
        let Some(postcode) = want.postal_code.as_deref() else {
            continue;
        };
        let key = address_key(Some(postcode), None);
        let found = got.iter().enumerate().position(|(i, a)| {
            !used[i] && address_key(a.postal_code.as_deref(), a.street.as_deref()) == key
        });
        let Some(i) = found else {
            continue;
        };
        used[i] = true;
        let a = &got[i];
        score_part(
            &mut street,
            &key,
            a.street.as_deref(),
            want.street_address.as_deref(),
        );
        score_part(
            &mut locality,
            &key,
            a.locality.as_deref(),
            want.address_locality.as_deref(),
        );
    }
    (street, locality)
}

/// The key an address is matched by: its postcode upper-case with letters and digits only, or
/// `street:` and the squashed street when it has no postcode. A CEPT country prefix printed
/// before a postcode (`D-10115`, `I-39040`, `SE-123 45`: one to three letters and a hyphen
/// before a digit) is dropped on both sides, so a postcode printed with it and without it is
/// one postcode; letters that belong to the postcode (`SW1A 1AA`, `E21 C564`) have no hyphen
/// after them and stay.
pub(crate) fn address_key(postcode: Option<&str>, street: Option<&str>) -> String {
    match postcode {
        Some(p) => without_country_prefix(p.trim())
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_uppercase)
            .collect(),
        None => format!("street:{}", squash(street.unwrap_or(""))),
    }
}

/// `p` without a leading CEPT country prefix (`D-`, `CH-`, `LV-`): one to three ASCII letters
/// and a hyphen, followed by a digit.
fn without_country_prefix(p: &str) -> &str {
    let letters = p.bytes().take_while(u8::is_ascii_alphabetic).count();
    match p.as_bytes().get(letters..letters + 2) {
        Some([b'-', d]) if (1..=3).contains(&letters) && d.is_ascii_digit() => &p[letters + 1..],
        _ => p,
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
    let mut counts = [Counts::default(); 6];
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
        let emails = compare(&got.emails, &page.emails, &[]);
        let (fax, voice): (Vec<&TruthPhone>, Vec<&TruthPhone>) =
            page.phones.iter().partition(|p| p.kind == "fax");
        let voice: Vec<String> = voice.iter().map(|p| p.e164.clone()).collect();
        let fax: Vec<String> = fax.iter().map(|p| p.e164.clone()).collect();
        let phones = compare(&got.phones, &voice, &fax);
        let mut expected_socials: Vec<String> = page
            .socials
            .values()
            .flatten()
            .map(|s| social_key(s))
            .collect();
        expected_socials.sort();
        expected_socials.dedup();
        let got_socials: Vec<String> = got.socials.iter().map(|(_, u)| social_key(u)).collect();
        let social_results = compare(&got_socials, &expected_socials, &[]);
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
        let addresses = compare(&got_addresses, &expected_addresses, &[]);
        let (street, locality) = compare_parts(&got.addresses, &page.addresses);
        let accepted: Vec<String> = page
            .company_name
            .iter()
            .chain(&page.company_name_alternatives)
            .map(|n| squash(n))
            .collect();
        let ok = match &got.company_name {
            Some(name) => accepted.contains(&squash(name)),
            None => accepted.is_empty(),
        };
        report.names_right += usize::from(ok);
        for value in &page.in_state_only {
            let found = got.emails.iter().any(|e| e.eq_ignore_ascii_case(value))
                || got.phones.contains(value)
                || got_socials.contains(&social_key(value))
                || got.addresses.iter().any(|a| {
                    a.street
                        .as_deref()
                        .is_some_and(|s| squash(s) == squash(value))
                });
            if found {
                report.in_state_only_found += 1;
            } else {
                report
                    .in_state_only_missed
                    .push((page.file.clone(), value.clone()));
            }
        }
        let result = PageResult {
            emails,
            phones,
            socials: social_results,
            addresses,
            street,
            locality,
            company: NameResult {
                got: got.company_name.clone(),
                ok,
            },
        };
        for (i, (_, r)) in result.fields().iter().enumerate() {
            counts[i].add(r.counts);
        }
        report.per_page.insert(page.file.clone(), result);
    }
    report.fields = FIELDS.iter().copied().zip(counts).collect();
    Ok(report)
}

/// The per-page baseline of a corpus: the results it had when the baseline was written
/// (`eval --write-baseline`), kept in `benches/baseline/<corpus>.json` and reviewed like code.
#[derive(Debug, Default, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    /// Per page (by file name), its result.
    pub pages: BTreeMap<String, PageResult>,
}

/// Where the baseline of the corpus in folder `corpus` (`corpus-2026`) is kept:
/// `benches/baseline/corpus-2026.json`.
pub fn baseline_path(corpus: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("baseline")
        .join(format!("{corpus}.json"))
}

impl Baseline {
    /// The baseline of `report`'s results.
    pub fn of(report: &Report) -> Self {
        Self {
            pages: report.per_page.clone(),
        }
    }

    /// The baseline as JSON, one line per page and field, so that a change reads as a diff of
    /// the lines that changed.
    pub fn to_text(&self) -> String {
        let mut out = String::from("{\"pages\": {\n");
        let pages: Vec<String> = self
            .pages
            .iter()
            .map(|(file, page)| {
                let mut lines: Vec<String> = page
                    .fields()
                    .iter()
                    .map(|(field, r)| format!("    {}: {}", json(field), json(r)))
                    .collect();
                lines.push(format!("    \"company\": {}", json(&page.company)));
                format!("  {}: {{\n{}\n  }}", json(file), lines.join(",\n"))
            })
            .collect();
        out.push_str(&pages.join(",\n"));
        out.push_str("\n}}\n");
        out
    }

    /// Reads a baseline written by [`Baseline::to_text`].
    ///
    /// # Errors
    /// The text is not such a baseline.
    pub fn parse(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| format!("not a baseline: {e}"))
    }

    /// The pages of `report` worse than this baseline, one line per page naming its fields
    /// that got worse: more false positives or more false negatives on a field, a company name
    /// lost; a page with no baseline; and a page of the baseline that `report` lacks (a page
    /// left out of the evaluation is no page fixed). Empty when none got worse.
    pub fn regressions(&self, report: &Report) -> Vec<String> {
        let mut out: Vec<String> = self
            .pages
            .keys()
            .filter(|file| !report.per_page.contains_key(*file))
            .map(|file| format!("{file}: in the baseline, not in the evaluation"))
            .collect();
        for (file, page) in &report.per_page {
            match self.pages.get(file) {
                None => out.push(format!("{file}: not in the baseline")),
                Some(before) => {
                    let worse = worse(before, page);
                    if !worse.is_empty() {
                        out.push(format!("{file}: {}", worse.join("; ")));
                    }
                }
            }
        }
        out
    }

    /// The pages of `report` whose results differ from this baseline without being worse (a
    /// field with fewer errors, a name now right, other wrong values): the baseline is due to
    /// be written again.
    pub fn changed_not_worse(&self, report: &Report) -> Vec<String> {
        report
            .per_page
            .iter()
            .filter(|(file, page)| {
                self.pages
                    .get(*file)
                    .is_some_and(|before| before != *page && worse(before, page).is_empty())
            })
            .map(|(file, _)| file.clone())
            .collect()
    }
}

/// How `now` is worse than `before`: a field with more false positives or more false
/// negatives, a company name lost.
fn worse(before: &PageResult, now: &PageResult) -> Vec<String> {
    let mut worse: Vec<String> = Vec::new();
    for ((field, now), (_, then)) in now.fields().iter().zip(before.fields()) {
        if now.counts.fp > then.counts.fp {
            worse.push(format!(
                "{field} fp {} -> {} (extra {:?})",
                then.counts.fp, now.counts.fp, now.extra
            ));
        }
        if now.counts.fn_ > then.counts.fn_ {
            worse.push(format!(
                "{field} fn {} -> {} (missed {:?})",
                then.counts.fn_, now.counts.fn_, now.missed
            ));
        }
    }
    if before.company.ok && !now.company.ok {
        worse.push(format!(
            "company name lost: {:?} -> {:?}",
            before.company.got, now.company.got
        ));
    }
    worse
}

fn json<T: Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(tp: usize, extra: &[&str], missed: &[&str]) -> FieldResult {
        FieldResult {
            counts: Counts {
                tp,
                fp: extra.len(),
                fn_: missed.len(),
            },
            extra: extra.iter().map(|s| s.to_string()).collect(),
            missed: missed.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn page(phones: FieldResult, name_ok: bool) -> PageResult {
        PageResult {
            emails: field(1, &[], &[]),
            phones,
            socials: FieldResult::default(),
            addresses: field(1, &[], &["10115"]),
            street: field(1, &[], &[]),
            locality: FieldResult::default(),
            company: NameResult {
                got: Some(if name_ok { "Acme" } else { "Kontakt" }.into()),
                ok: name_ok,
            },
        }
    }

    fn report(pages: &[(&str, PageResult)]) -> Report {
        Report {
            pages: pages.len(),
            per_page: pages
                .iter()
                .map(|(f, p)| (f.to_string(), p.clone()))
                .collect(),
            ..Report::default()
        }
    }

    fn baseline() -> Baseline {
        Baseline::of(&report(&[
            ("a.html", page(field(2, &[], &["+4930123"]), true)),
            ("b.html", page(field(1, &["+4930999"], &[]), false)),
        ]))
    }

    #[test]
    fn the_baseline_text_reads_back_one_line_per_page_field() {
        let baseline = baseline();
        let text = baseline.to_text();
        assert_eq!(Baseline::parse(&text), Ok(baseline));
        assert!(
            text.contains(
                "    \"phones\": {\"tp\":2,\"fp\":0,\"fn\":1,\"extra\":[],\"missed\":[\"+4930123\"]},\n"
            ),
            "{text}"
        );
        assert!(text.contains("\"company\": {\"got\":\"Acme\",\"ok\":true}\n"));
    }

    #[test]
    fn equal_results_are_no_regression() {
        let now = report(&[
            ("a.html", page(field(2, &[], &["+4930123"]), true)),
            ("b.html", page(field(1, &["+4930999"], &[]), false)),
        ]);
        assert!(baseline().regressions(&now).is_empty());
        assert!(baseline().changed_not_worse(&now).is_empty());
    }

    #[test]
    fn every_worse_page_is_named_with_its_worse_fields() {
        let now = report(&[
            // A new false positive and a lost name.
            (
                "a.html",
                page(field(2, &["+4940111"], &["+4930123"]), false),
            ),
            // A new false negative.
            (
                "b.html",
                page(field(0, &["+4930999"], &["+4930555"]), false),
            ),
            ("c.html", page(field(1, &[], &[]), true)),
        ]);
        let regressions = baseline().regressions(&now);
        assert_eq!(regressions.len(), 3, "{regressions:#?}");
        assert!(regressions[0].starts_with("a.html: phones fp 0 -> 1"));
        assert!(regressions[0].contains("company name lost: Some(\"Acme\") -> Some(\"Kontakt\")"));
        assert!(regressions[1].starts_with("b.html: phones fn 0 -> 1"));
        assert!(regressions[1].contains("+4930555"));
        assert_eq!(regressions[2], "c.html: not in the baseline");
    }

    #[test]
    fn a_better_page_is_no_regression_but_is_named_as_changed() {
        let now = report(&[
            ("a.html", page(field(3, &[], &[]), true)),
            ("b.html", page(field(1, &[], &[]), true)),
        ]);
        assert!(baseline().regressions(&now).is_empty());
        assert_eq!(baseline().changed_not_worse(&now), ["a.html", "b.html"]);
    }

    #[test]
    fn floors_name_each_unmet_line() {
        let mut now = report(&[("a.html", page(field(1, &["x"], &[]), true))]);
        now.names_right = 1;
        now.fields = vec![
            (
                "emails",
                Counts {
                    tp: 1,
                    fp: 0,
                    fn_: 0,
                },
            ),
            (
                "phones",
                Counts {
                    tp: 1,
                    fp: 1,
                    fn_: 0,
                },
            ),
            ("socials", Counts::default()),
            (
                "addresses",
                Counts {
                    tp: 1,
                    fp: 0,
                    fn_: 0,
                },
            ),
            ("street", Counts::default()),
            ("locality", Counts::default()),
        ];
        let lines = now.floor_lines(&CORPUS_2026_FLOORS);
        let unmet: Vec<&str> = lines
            .iter()
            .filter(|(_, met)| !met)
            .map(|(l, _)| l.as_str())
            .collect();
        assert_eq!(
            unmet,
            [format!(
                "phones precision 0.500 >= {:.3}",
                CORPUS_2026_FLOORS.fields[1].1
            )]
        );
        assert!(!now.meets(&CORPUS_2026_FLOORS));
        assert_eq!(floors_for("corpus-elsewhere").map(|f| f.company), None);
        for corpus in [
            "corpus",
            "corpus-2026",
            "corpus-frameworks",
            "corpus-world",
            "corpus-world-check",
        ] {
            assert!(floors_for(corpus).is_some(), "{corpus} has floors");
            assert_eq!(totals_only(corpus), corpus == "corpus-world-check");
        }
    }

    #[test]
    fn a_baseline_page_missing_from_the_evaluation_is_a_regression() {
        let now = report(&[("a.html", page(field(2, &[], &["+4930123"]), true))]);
        assert_eq!(
            baseline().regressions(&now),
            ["b.html: in the baseline, not in the evaluation"]
        );
    }

    #[test]
    fn social_keys_are_computed_here_for_both_sides() {
        for (a, b) in [
            (
                "http://www.Facebook.com/ExampleBakery/",
                "https://facebook.com/examplebakery",
            ),
            (
                "https://m.facebook.com/examplebakery?ref=hl",
                "https://fb.com/ExampleBakery",
            ),
            (
                "http://twitter.com/#%21/ExampleBakery",
                "https://x.com/examplebakery",
            ),
            (
                "https://de.linkedin.com/company/example-bakery/",
                "linkedin.com/company/example-bakery",
            ),
            (
                "http://www.linkedin.com/groups?gid=123&trk=x",
                "https://www.linkedin.com/groups/123",
            ),
            (
                "https://instagr.am/example.bakery",
                "https://www.instagram.com/example.bakery/",
            ),
            (
                "https://www.facebook.com/pages/Example%20Bakery/123",
                "https://facebook.com/pages/Example Bakery/123",
            ),
            (
                "https://www.facebook.com/profile.php?id=42&ref=x",
                "facebook.com/profile.php?id=42",
            ),
        ] {
            assert_eq!(social_key(a), social_key(b), "{a} / {b}");
        }
        for (a, b) in [
            (
                "https://facebook.com/examplebakery",
                "https://instagram.com/examplebakery",
            ),
            (
                "https://facebook.com/profile.php?id=42",
                "https://facebook.com/profile.php?id=43",
            ),
            (
                "https://youtube.com/@examplebakery",
                "https://youtube.com/examplebakery",
            ),
            (
                "https://x.com/examplebakery",
                "https://x.com/examplebakery/status/1",
            ),
        ] {
            assert_ne!(social_key(a), social_key(b), "{a} / {b}");
        }
    }

    fn marked(street: Option<&str>, locality: Option<&str>, postcode: &str) -> MarkedAddress {
        MarkedAddress {
            street: street.map(str::to_string),
            locality: locality.map(str::to_string),
            postal_code: Some(postcode.to_string()),
            ..MarkedAddress::default()
        }
    }

    fn truth(street: Option<&str>, locality: Option<&str>, postcode: Option<&str>) -> TruthAddress {
        TruthAddress {
            street_address: street.map(str::to_string),
            address_locality: locality.map(str::to_string),
            postal_code: postcode.map(str::to_string),
        }
    }

    #[test]
    fn a_postcode_printed_with_a_country_prefix_is_the_same_postcode() {
        for (printed, bare) in [
            ("I-39040", "39040"),
            ("D-10115", "10115"),
            ("CH-8001", "8001"),
            ("SE-123 45", "12345"),
            ("LV-1010", "1010"),
        ] {
            assert_eq!(
                address_key(Some(printed), None),
                address_key(Some(bare), None),
                "{printed}"
            );
        }
        // Postcodes that begin with letters of their own keep them.
        assert_ne!(
            address_key(Some("SW1A 1AA"), None),
            address_key(Some("1AA"), None)
        );
        assert_ne!(
            address_key(Some("E21 C564"), None),
            address_key(Some("C564"), None)
        );
        assert_ne!(
            address_key(Some("K1A 0B1"), None),
            address_key(Some("0B1"), None)
        );
    }

    #[test]
    fn a_right_postcode_with_a_wrong_street_is_a_street_error() {
        let got = [
            marked(Some("Musterweg 5"), Some("Musterstadt"), "12345"),
            marked(Some("VAT 123, Rue Exemple 9"), Some("Villeneuve"), "75001"),
            marked(None, Some("Ejemplo"), "28001"),
            marked(Some("Elsewhere Road 1"), None, "99999"),
        ];
        let want = [
            truth(Some("Musterweg 5"), Some("musterstadt"), Some("12 345")),
            truth(Some("Rue Exemple 9"), Some("Villeneuve"), Some("75001")),
            truth(Some("Calle Ejemplo 3"), None, Some("28001")),
            truth(Some("Street Only 2"), Some("Nowhere"), None),
        ];
        let (street, locality) = compare_parts(&got, &want);
        assert_eq!(
            street,
            field(
                1,
                &["75001: VAT 123, Rue Exemple 9"],
                &["75001: Rue Exemple 9", "28001: Calle Ejemplo 3"]
            )
        );
        assert_eq!(locality, field(2, &["28001: Ejemplo"], &[]));
    }
}
