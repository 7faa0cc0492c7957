//! Site-level evaluation (`eval --sites`): each site of a labelled corpus crawled from its
//! home page the way a paid request crawls it, and the merged result compared with the union
//! of the site's page truths (docs/testing.md, "Site-level evaluation").
//!
//! A site is the corpus's pages whose `page_url`s share a registrable domain; the page
//! labelled `home` is where the crawl starts (a site without one is counted and skipped).
//! The crawl is the core's own, run in its deterministic network simulation
//! ([`contact_core::testing::sim::Sim`]): [`Sim::unpaid_crawl`] takes the URL checks, SSRF
//! rules, caps, deadlines, crawl planner, fetches (redirects, decoding, limits) and result
//! build of a paid job, without the payment. Every host of the site's page URLs (and the home
//! host with and without `www.`) resolves to one public address, where a scripted server
//! answers on ports 443 and 80 with the corpus page at that host's path (`/x` and `/x/`, and
//! `/index.html` for its folder, are one page), `text/html` with no charset (as
//! [`crate::eval`] extracts pages), and 404 for any other path: a link to a page the corpus
//! did not keep costs a fetch, as it would on the real site, and is reported. The pages keep
//! their real URLs, so their absolute links are followed as written; nothing leaves the
//! process.
//!
//! Reported per corpus: contact-page recall (labelled non-home pages fetched / labelled
//! non-home pages), pages fetched per site (the result's `meta.pagesFetched`), requests
//! answered 404, and the result fields as [`crate::eval`] scores a page (emails, phones by
//! E.164 with fax ignored, socials by [`social_key`], addresses by postcode, the street and
//! locality parts, the company name) against the union of the site's page truths.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::IpAddr;
use std::path::Path;
use std::rc::Rc;

use contact_core::api::ContactExtractionResult;
use contact_core::config::Config;
use contact_core::extract::address::MarkedAddress;
use contact_core::site::registrable_domain;
use contact_core::testing::sim::{http_response, request_path, Reply, Sim};
use url::Url;

use crate::eval::{
    address_key, compare, compare_parts, social_key, squash, Counts, FieldResult, Truth, FIELDS,
};

/// The public address every site's hosts resolve to in the simulation (TEST-NET would be
/// refused by the SSRF rules; the simulation never leaves the process).
const SITE_IP: [u8; 4] = [93, 184, 216, 34];

/// One site's crawl and scores.
#[derive(Debug, Default)]
pub struct SiteResult {
    /// The site's registrable domain.
    pub site: String,
    /// The URL the crawl started from.
    pub home: String,
    /// `meta.pagesFetched` of the result (0 when the crawl failed).
    pub pages_fetched: u32,
    /// Labelled non-home pages whose URL was fetched.
    pub labelled_fetched: Vec<String>,
    /// Labelled non-home pages never fetched.
    pub labelled_missed: Vec<String>,
    /// Requests answered 404 (`host/path`): links to pages the corpus does not hold.
    pub not_found: Vec<String>,
    /// The crawl's error code, when it failed.
    pub error: Option<String>,
    /// Per field (in the order of [`FIELDS`]), the merged result against the union of truths.
    pub fields: Vec<FieldResult>,
    /// The company name of the result, and whether a page of the site labels it.
    pub company: (Option<String>, bool),
}

/// The site-level evaluation of one corpus.
#[derive(Debug, Default)]
pub struct SitesReport {
    /// Sites crawled.
    pub sites: Vec<SiteResult>,
    /// Sites without a page labelled `home` (not crawled).
    pub without_home: Vec<String>,
}

impl SitesReport {
    /// (labelled non-home pages fetched, labelled non-home pages).
    pub fn labelled_pages(&self) -> (usize, usize) {
        let fetched: usize = self.sites.iter().map(|s| s.labelled_fetched.len()).sum();
        let missed: usize = self.sites.iter().map(|s| s.labelled_missed.len()).sum();
        (fetched, fetched + missed)
    }

    /// Labelled non-home pages fetched / labelled non-home pages (1 when there are none).
    pub fn contact_page_recall(&self) -> f64 {
        let (fetched, all) = self.labelled_pages();
        if all == 0 {
            1.0
        } else {
            fetched as f64 / all as f64
        }
    }

    /// Per field, the counts summed over the sites.
    pub fn field_counts(&self) -> [Counts; 6] {
        let mut counts = [Counts::default(); 6];
        for site in &self.sites {
            for (sum, field) in counts.iter_mut().zip(&site.fields) {
                sum.add(field.counts);
            }
        }
        counts
    }

    /// The totals as a table (nothing per site: safe for a held-out corpus).
    pub fn table(&self) -> String {
        let (fetched, all) = self.labelled_pages();
        let pages: Vec<u32> = self.sites.iter().map(|s| s.pages_fetched).collect();
        let total_pages: u32 = pages.iter().sum();
        let failed = self.sites.iter().filter(|s| s.error.is_some()).count();
        let not_found: usize = self.sites.iter().map(|s| s.not_found.len()).sum();
        let mut out = format!(
            "sites: {} crawled from their home page ({} without a labelled home page, {} \
             crawls failed)\n",
            self.sites.len(),
            self.without_home.len(),
            failed
        );
        let _ = writeln!(
            out,
            "contact-page recall {:.3} ({fetched}/{all} labelled non-home pages fetched)",
            self.contact_page_recall()
        );
        let _ = writeln!(
            out,
            "pages fetched per site {:.2} ({total_pages} in all, {} to {}); requests answered \
             404 (pages not in the corpus) {not_found}",
            f64::from(total_pages) / self.sites.len().max(1) as f64,
            pages.iter().min().copied().unwrap_or(0),
            pages.iter().max().copied().unwrap_or(0),
        );
        let _ = writeln!(
            out,
            "{:<10} {:>9} {:>9} {:>5} {:>5} {:>5}   (site result vs union of its page truths)",
            "field", "precision", "recall", "tp", "fp", "fn"
        );
        for (name, c) in FIELDS.iter().zip(self.field_counts()) {
            out.push_str(&c.table_row(name));
        }
        let right = self.sites.iter().filter(|s| s.company.1).count();
        let _ = writeln!(
            out,
            "{:<10} {:>9.3} (accuracy, {right}/{})",
            "company",
            right as f64 / self.sites.len().max(1) as f64,
            self.sites.len()
        );
        out
    }

    /// Per site: what was fetched, missed and answered 404, and the field differences.
    pub fn differences(&self) -> Vec<String> {
        let mut out = Vec::new();
        for site in &self.sites {
            let mut lines = vec![format!(
                "{} (from {}): pagesFetched {}{}",
                site.site,
                site.home,
                site.pages_fetched,
                site.error
                    .as_deref()
                    .map(|e| format!(", failed: {e}"))
                    .unwrap_or_default()
            )];
            if !site.labelled_missed.is_empty() {
                lines.push(format!(
                    "  labelled pages not fetched: {:?}",
                    site.labelled_missed
                ));
            }
            if !site.not_found.is_empty() {
                lines.push(format!("  404: {:?}", site.not_found));
            }
            for (name, field) in FIELDS.iter().zip(&site.fields) {
                if !field.extra.is_empty() || !field.missed.is_empty() {
                    lines.push(format!(
                        "  {name}: extra {:?} missed {:?}",
                        field.extra, field.missed
                    ));
                }
            }
            if !site.company.1 {
                lines.push(format!("  companyName: got {:?}", site.company.0));
            }
            out.push(lines.join("\n"));
        }
        for site in &self.without_home {
            out.push(format!("{site}: no page labelled home, not crawled"));
        }
        out
    }
}

/// A corpus page as the scripted server holds it.
struct Served {
    /// Host without `www.`, lower-case.
    host: String,
    /// Path and query, `/x`, `/x/`, `/x.html` and `/x/index.html` written as `/x`.
    path: String,
    bytes: Rc<Vec<u8>>,
}

fn page_key(host: &str, path_and_query: &str) -> (String, String) {
    let host = host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host).to_string();
    let (path, query) = match path_and_query.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (path_and_query, None),
    };
    let path = path
        .strip_suffix("index.html")
        .or_else(|| path.strip_suffix("index.htm"))
        .or_else(|| path.strip_suffix(".html"))
        .or_else(|| path.strip_suffix(".htm"))
        .unwrap_or(path)
        .trim_end_matches('/');
    let path = match query {
        Some(query) => format!("{path}?{query}"),
        None => path.to_string(),
    };
    (host, path)
}

/// The `Host` header of raw request bytes (without a port).
fn request_host(raw: &[u8]) -> String {
    let head = String::from_utf8_lossy(raw);
    head.split("\r\n")
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("host").then(|| value.trim())
        })
        .map(|host| host.split(':').next().unwrap_or(host).to_string())
        .unwrap_or_default()
}

/// Runs the site-level evaluation over `corpus_dir` (`truth.json` and `pages/`).
///
/// # Errors
/// The truth file or a page cannot be read or parsed, or the simulation cannot be set up.
pub fn evaluate_sites(corpus_dir: &Path) -> Result<SitesReport, String> {
    let truth_path = corpus_dir.join("truth.json");
    let bytes = std::fs::read(&truth_path)
        .map_err(|e| format!("cannot read {}: {e}", truth_path.display()))?;
    let truth: Vec<Truth> = serde_json::from_slice(&bytes)
        .map_err(|e| format!("cannot parse {}: {e}", truth_path.display()))?;
    evaluate_truths(&truth, &|page| {
        let path = corpus_dir.join("pages").join(&page.file);
        std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    })
}

/// [`evaluate_sites`] over labelled pages `truth`, whose bytes `read` gives.
fn evaluate_truths(
    truth: &[Truth],
    read: &dyn Fn(&Truth) -> Result<Vec<u8>, String>,
) -> Result<SitesReport, String> {
    let mut by_site: BTreeMap<String, Vec<(&Truth, Url)>> = BTreeMap::new();
    for page in truth {
        let url = Url::parse(&page.page_url)
            .map_err(|e| format!("bad page_url for {}: {e}", page.file))?;
        let site = registrable_domain(url.host_str().unwrap_or(""));
        by_site.entry(site).or_default().push((page, url));
    }
    let config = Config::from_env_map(
        &[
            ("PUBLIC_BASE_URL", "https://contacts.example.com"),
            ("PAY_TO", ""),
            ("CHAIN_RPC_URL", "none"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    )
    .map_err(|e| format!("site evaluation config: {e:?}"))?;
    let mut report = SitesReport::default();
    for (site, pages) in &by_site {
        let Some((_, home)) = pages
            .iter()
            .find(|(page, _)| page.page_type.as_deref() == Some("home"))
        else {
            report.without_home.push(site.clone());
            continue;
        };
        let mut served = Vec::new();
        for (page, url) in pages {
            let bytes = read(page)?;
            let mut path_and_query = url.path().to_string();
            if let Some(query) = url.query() {
                path_and_query = format!("{path_and_query}?{query}");
            }
            let (host, path) = page_key(url.host_str().unwrap_or(""), &path_and_query);
            served.push(Served {
                host,
                path,
                bytes: Rc::new(bytes),
            });
        }
        let (result, requests) = crawl(&config, home, pages, served)?;
        report
            .sites
            .push(score(site, home, pages, result, &requests));
    }
    Ok(report)
}

/// What the scripted server answered: (`host/path`, status).
type Requests = Vec<(String, u16)>;

/// Crawls `home` in a simulation that serves `served` on every host of `pages`.
fn crawl(
    config: &Config,
    home: &Url,
    pages: &[(&Truth, Url)],
    served: Vec<Served>,
) -> Result<(Result<ContactExtractionResult, String>, Requests), String> {
    let mut sim = Sim::new(config.clone());
    let ip = IpAddr::from(SITE_IP);
    for (_, url) in pages {
        let host = url.host_str().unwrap_or("").to_ascii_lowercase();
        let bare = host.strip_prefix("www.").unwrap_or(&host).to_string();
        for name in [format!("www.{bare}"), bare] {
            sim.dns.insert(name, vec![ip]);
        }
    }
    let requests: Rc<RefCell<Requests>> = Rc::default();
    let served = Rc::new(served);
    for port in [443, 80] {
        let (served, requests) = (Rc::clone(&served), Rc::clone(&requests));
        sim.endpoint((ip, port).into(), move |raw| {
            let host = request_host(raw);
            let (host, path) = page_key(&host, &request_path(raw));
            let page = served.iter().find(|p| p.host == host && p.path == path);
            let status = if page.is_some() { 200 } else { 404 };
            requests.borrow_mut().push((
                format!("{host}{}", if path.is_empty() { "/" } else { &path }),
                status,
            ));
            match page {
                Some(page) => Reply::Bytes(http_response(
                    200,
                    &[("Content-Type", "text/html")],
                    &page.bytes,
                )),
                None => Reply::Bytes(http_response(404, &[("Content-Type", "text/html")], b"")),
            }
        });
    }
    let result = sim
        .unpaid_crawl(home.as_str())
        .map_err(|e| format!("{:?}", e.error.code));
    let requests = requests.borrow().clone();
    Ok((result, requests))
}

/// Scores one site's crawl against the union of its pages' truths.
fn score(
    site: &str,
    home: &Url,
    pages: &[(&Truth, Url)],
    result: Result<ContactExtractionResult, String>,
    requests: &Requests,
) -> SiteResult {
    let mut out = SiteResult {
        site: site.to_string(),
        home: home.to_string(),
        ..SiteResult::default()
    };
    for (page, url) in pages {
        if page.page_type.as_deref() == Some("home") {
            continue;
        }
        let mut path_and_query = url.path().to_string();
        if let Some(query) = url.query() {
            path_and_query = format!("{path_and_query}?{query}");
        }
        let (host, path) = page_key(url.host_str().unwrap_or(""), &path_and_query);
        let key = format!("{host}{}", if path.is_empty() { "/" } else { &path });
        if requests
            .iter()
            .any(|(r, status)| *r == key && *status == 200)
        {
            out.labelled_fetched.push(page.file.clone());
        } else {
            out.labelled_missed.push(page.file.clone());
        }
    }
    out.not_found = requests
        .iter()
        .filter(|(_, status)| *status == 404)
        .map(|(r, _)| r.clone())
        .collect();
    let result = match result {
        Ok(result) => Some(result),
        Err(code) => {
            out.error = Some(code);
            None
        }
    };
    out.pages_fetched = result.as_ref().map_or(0, |r| r.meta.pages_fetched);
    let union = |values: &mut dyn Iterator<Item = String>| {
        let mut all: Vec<String> = values.collect();
        all.sort();
        all.dedup();
        all
    };
    let truths = || pages.iter().map(|(page, _)| *page);
    let emails = union(&mut truths().flat_map(|t| t.emails.iter().map(|e| e.to_lowercase())));
    let voice = union(&mut truths().flat_map(|t| {
        t.phones
            .iter()
            .filter(|p| p.kind != "fax")
            .map(|p| p.e164.clone())
    }));
    let fax = union(&mut truths().flat_map(|t| {
        t.phones
            .iter()
            .filter(|p| p.kind == "fax")
            .map(|p| p.e164.clone())
    }));
    let socials =
        union(&mut truths().flat_map(|t| t.socials.values().flatten().map(|s| social_key(s))));
    let mut addresses = Vec::new();
    let mut address_keys = Vec::new();
    for address in truths().flat_map(|t| &t.addresses) {
        let key = address_key(
            address.postal_code.as_deref(),
            address.street_address.as_deref(),
        );
        if !address_keys.contains(&key) {
            address_keys.push(key);
            addresses.push(address);
        }
    }
    let got_emails: Vec<String> = result
        .iter()
        .flat_map(|r| r.emails.iter().map(|e| e.value.clone()))
        .collect();
    let got_phones: Vec<String> = result
        .iter()
        .flat_map(|r| r.phones.iter().map(|p| p.value.clone()))
        .collect();
    let got_socials: Vec<String> = result
        .iter()
        .flat_map(|r| {
            let s = &r.socials;
            [&s.linkedin, &s.facebook, &s.instagram, &s.x, &s.youtube]
                .into_iter()
                .flatten()
                .map(|url| social_key(url))
        })
        .collect();
    let got_addresses: Vec<MarkedAddress> = result
        .iter()
        .flat_map(|r| &r.addresses)
        .map(|a| MarkedAddress {
            street: a.street_address.clone(),
            locality: a.address_locality.clone(),
            region: a.address_region.clone(),
            postal_code: a.postal_code.clone(),
            country: a.address_country.clone(),
        })
        .collect();
    let got_keys: Vec<String> = got_addresses
        .iter()
        .map(|a| address_key(a.postal_code.as_deref(), a.street.as_deref()))
        .collect();
    let (street, locality) = compare_parts(&got_addresses, addresses);
    out.fields = vec![
        compare(&got_emails, &emails, &[]),
        compare(&got_phones, &voice, &fax),
        compare(&got_socials, &socials, &[]),
        compare(&got_keys, &address_keys, &[]),
        street,
        locality,
    ];
    let accepted: Vec<String> = truths()
        .flat_map(|t| t.company_name.iter().chain(&t.company_name_alternatives))
        .map(|n| squash(n))
        .collect();
    let name = result.and_then(|r| r.company_name);
    let ok = match &name {
        Some(name) => accepted.contains(&squash(name)),
        None => accepted.is_empty(),
    };
    out.company = (name, ok);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod tests {
    use super::*;

    fn page(file: &str, url: &str, kind: &str, email: &str) -> String {
        format!(
            r#"{{"file":"{file}","page_url":"{url}","pageType":"{kind}","emails":["{email}"],
            "phones":[],"socials":{{}},"addresses":[],"companyName":null}}"#
        )
    }

    #[test]
    fn a_site_is_crawled_from_its_home_page_and_scored_against_its_pages() {
        let truth = format!(
            "[{},{},{},{}]",
            page(
                "home.html",
                "https://www.acme-shop.com/",
                "home",
                "info@acme-shop.com"
            ),
            page(
                "kontakt.html",
                "https://acme-shop.com/kontakt",
                "contact",
                "team@acme-shop.com"
            ),
            page(
                "impressum.html",
                "https://www.acme-shop.com/impressum",
                "legal notice",
                "info@acme-shop.com"
            ),
            page(
                "team.html",
                "https://www.acme-shop.com/team/",
                "about",
                "info@acme-shop.com"
            ),
        );
        let truth: Vec<Truth> = serde_json::from_str(&truth).unwrap();
        let read = |page: &Truth| -> Result<Vec<u8>, String> {
            Ok(match page.file.as_str() {
                // Links to the contact page (with a trailing slash), the imprint (as
                // `.html`) and an about page the corpus does not hold; the team page is not
                // linked.
                "home.html" => {
                    r#"<html><body><a href="/kontakt/">Kontakt</a>
                    <a href="impressum.html">Impressum</a> <a href="/ueber-uns">Über uns</a>
                    <a href="/produkte">Produkte</a> info@acme-shop.com</body></html>"#
                }
                "kontakt.html" => "<html><body><p>team@acme-shop.com</p></body></html>",
                _ => "<html><body><p>info@acme-shop.com</p></body></html>",
            }
            .as_bytes()
            .to_vec())
        };
        let report = evaluate_truths(&truth, &read).unwrap();
        assert!(report.without_home.is_empty());
        let [site] = report.sites.as_slice() else {
            panic!("one site: {report:?}");
        };
        assert_eq!(site.site, "acme-shop.com");
        assert_eq!(site.error, None);
        assert_eq!(site.labelled_fetched, ["kontakt.html", "impressum.html"]);
        assert_eq!(site.labelled_missed, ["team.html"]);
        assert_eq!(site.not_found, ["acme-shop.com/ueber-uns"]);
        // The homepage and three extra pages, the missing one included.
        assert_eq!(site.pages_fetched, 4);
        assert_eq!(report.labelled_pages(), (2, 3));
        // Both emails of the union, found on the homepage and the contact page.
        assert_eq!(site.fields[0].counts.tp, 2);
        assert_eq!(site.fields[0].counts.fp + site.fields[0].counts.fn_, 0);
        assert!(report.table().contains("contact-page recall 0.667 (2/3"));
    }

    #[test]
    fn a_site_without_a_home_page_is_counted_not_crawled() {
        let truth = format!(
            "[{}]",
            page(
                "c.html",
                "https://acme-shop.com/contact",
                "contact",
                "info@acme-shop.com"
            )
        );
        let truth: Vec<Truth> = serde_json::from_str(&truth).unwrap();
        let report = evaluate_truths(&truth, &|_| Ok(Vec::new())).unwrap();
        assert!(report.sites.is_empty());
        assert_eq!(report.without_home, ["acme-shop.com"]);
    }

    #[test]
    fn static_hosts_serve_a_page_at_these_paths() {
        for path in ["/x", "/x/", "/x.html", "/x/index.html"] {
            assert_eq!(
                page_key("WWW.Acme-Shop.com", path),
                ("acme-shop.com".into(), "/x".into())
            );
        }
        assert_eq!(
            page_key("acme-shop.com", "/?a=1"),
            ("acme-shop.com".into(), "?a=1".into())
        );
        assert_eq!(
            page_key("acme-shop.com", "/index.html"),
            ("acme-shop.com".into(), "".into())
        );
    }
}
