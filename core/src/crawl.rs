//! The crawl planner: from the homepage's links, choose at most [`MAX_EXTRA_PAGES`] same-site
//! pages that look like contact, imprint/legal-notice, about or support pages, and list the
//! contact-like pages for the result's `contactPages` (decisions.md "Fetching the target site";
//! keywords and pick rule from `../shared/design/extraction.md` §4).
//!
//! Links are scored by anchor text (weighted double) and URL path tokens, in English, German,
//! French, Spanish, Italian, Portuguese and Dutch; deep paths and query strings lose points.
//! Pure functions: the caller fetches.

use std::collections::btree_map::{BTreeMap, Entry};
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use url::Url;

use crate::extract::limits::MAX_CRAWL_CANDIDATES;
use crate::site::{region_from_host, registrable_domain};

/// Extra pages fetched besides the homepage (service-spec §8).
pub const MAX_EXTRA_PAGES: usize = 3;
/// Longest `contactPages` list (decisions.md "Result fields").
pub const MAX_CONTACT_PAGES: usize = 10;

/// A link of a fetched page, resolved to an absolute URL, with its anchor text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageLink {
    /// Absolute URL without fragment.
    pub url: Url,
    /// Anchor text, image alt text and title, white space collapsed.
    pub text: String,
    /// Whether the link sits in the page footer.
    pub in_footer: bool,
}

/// What a page is for, by its link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Intent {
    /// About, company, team pages.
    About,
    /// Contact, locations, directions pages.
    Contact,
    /// Imprint, legal notice.
    Legal,
    /// Privacy policy (names the data controller in the EU).
    Privacy,
    /// Support, help, customer service.
    Support,
}

/// A scored candidate page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The page URL.
    pub url: Url,
    /// Its intent.
    pub intent: Intent,
    /// Higher is better.
    pub score: i32,
}

/// The planner's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrawlPlan {
    /// Pages to fetch after the homepage, in priority order; at most [`MAX_EXTRA_PAGES`].
    pub fetch: Vec<Url>,
    /// Contact-like pages, best first; at most [`MAX_CONTACT_PAGES`].
    pub contact_pages: Vec<Url>,
}

/// Plans the extra fetches for the site whose homepage is `home` and has `links`.
pub fn plan(home: &Url, links: &[PageLink]) -> CrawlPlan {
    let candidates = candidates(home, links);
    let eu = region_from_host(home.host_str().unwrap_or("")).is_some_and(|r| {
        matches!(
            r,
            "DE" | "AT" | "CH" | "FR" | "IT" | "ES" | "NL" | "BE" | "LU" | "PT"
        )
    });
    let mut fetch: Vec<Url> = Vec::new();
    let take_best = |intent: &[Intent], fetch: &mut Vec<Url>| {
        if let Some(c) = candidates
            .iter()
            .find(|c| intent.contains(&c.intent) && !fetch.contains(&c.url))
        {
            fetch.push(c.url.clone());
        }
    };
    take_best(&[Intent::Contact], &mut fetch);
    let legal_linked = candidates.iter().any(|c| c.intent == Intent::Legal);
    if eu && legal_linked {
        take_best(&[Intent::Legal], &mut fetch);
    } else {
        take_best(&[Intent::Contact, Intent::Support], &mut fetch);
    }
    take_best(&[Intent::About], &mut fetch);
    for c in &candidates {
        if fetch.len() >= MAX_EXTRA_PAGES {
            break;
        }
        if !fetch.contains(&c.url) && c.intent != Intent::Privacy {
            fetch.push(c.url.clone());
        }
    }
    if fetch.is_empty() {
        if let Some(c) = candidates.first() {
            fetch.push(c.url.clone());
        }
    }
    fetch.truncate(MAX_EXTRA_PAGES);
    let contact_pages = candidates
        .iter()
        .filter(|c| c.intent != Intent::Privacy)
        .map(|c| c.url.clone())
        .take(MAX_CONTACT_PAGES)
        .collect();
    CrawlPlan {
        fetch,
        contact_pages,
    }
}

/// Every same-site link that looks like a contact/legal/about/support/privacy page, scored and
/// sorted best first (ties keep document order), one entry per URL.
pub fn candidates(home: &Url, links: &[PageLink]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    let Some(home_host) = home.host_str() else {
        return out;
    };
    let home_site = registrable_domain(home_host);
    // One entry per page (`page_key`), found in an ordered map: a page has up to 5 000 links.
    let mut seen: BTreeMap<PageKey, usize> = BTreeMap::new();
    for link in links {
        // Pacing (`crate::pace`): scoring a link is about a microsecond.
        if !crate::pace::work(link.url.as_str().len() + 256) {
            break;
        }
        let url = &link.url;
        let same_site = url
            .host_str()
            .is_some_and(|h| h == home_host || registrable_domain(h) == home_site);
        if !same_site || is_same_page(home, url) || is_excluded(url) {
            continue;
        }
        let Some((intent, mut score)) = score_link(url, &link.text) else {
            continue;
        };
        if link.in_footer {
            score += 1;
        }
        match seen.entry(page_key(url)) {
            Entry::Occupied(at) => {
                let existing = &mut out[*at.get()];
                if score > existing.score {
                    existing.score = score;
                    existing.intent = intent;
                }
            }
            Entry::Vacant(slot) => {
                if out.len() < MAX_CRAWL_CANDIDATES {
                    slot.insert(out.len());
                    out.push(Candidate {
                        url: url.clone(),
                        intent,
                        score,
                    });
                }
            }
        }
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.score));
    out
}

/// Scores one link: the best intent by keyword, with text weighted over path, minus depth and
/// query penalties. `None` when no keyword matches.
pub fn score_link(url: &Url, text: &str) -> Option<(Intent, i32)> {
    // Both normalised into one string, read in one pass (a link's text and path are short:
    // the pass's set-up cost as much as its reading).
    let mut words = normalise(text);
    let text_len = words.len();
    words.push(SEGMENT_END);
    normalise_into(&mut words, url.path());
    let (in_text, in_path) = intents_in(&words, text_len);
    if !in_text.contains(&true) && !in_path.contains(&true) {
        return None;
    }
    let text = &words[..text_len];
    // The same for every intent: depth and query penalties, and long anchor text (a sentence
    // or an article title, not a menu entry).
    let depth = url
        .path_segments()
        .map_or(0, |s| s.filter(|s| !s.is_empty()).count());
    let mut penalty = 2 * (depth.saturating_sub(1) as i32).min(4);
    if url.query().is_some() {
        penalty += 2;
    }
    if text.split_whitespace().count() > 6 {
        penalty += 5;
    }
    let mut best: Option<(Intent, i32)> = None;
    for (index, (intent, weight, _)) in KEYWORDS.iter().enumerate() {
        let (in_text, in_path) = (in_text[index], in_path[index]);
        if !in_text && !in_path {
            continue;
        }
        let score = weight * (2 * i32::from(in_text) + i32::from(in_path)) - penalty;
        if best.is_none_or(|(_, b)| score > b) {
            best = Some((*intent, score));
        }
    }
    best.filter(|(_, s)| *s > 0)
}

const KEYWORDS: &[(Intent, i32, &[&str])] = &[
    (
        Intent::Contact,
        10,
        &[
            "contact",
            "contact us",
            "contactus",
            "contacts",
            "get in touch",
            "reach us",
            "find us",
            "locations",
            "location",
            "visit us",
            "directions",
            "kontakt",
            "kontaktieren",
            "anfahrt",
            "standort",
            "standorte",
            "contacto",
            "contactenos",
            "contactanos",
            "contato",
            "fale conosco",
            "contatti",
            "contattaci",
            "dove siamo",
            "nous contacter",
            "contactez nous",
            "nous trouver",
            "acces",
            "neem contact op",
            "contactgegevens",
            "route",
            "routebeschrijving",
            "bereikbaarheid",
            "kontakta oss",
            "kontakt oss",
            "yhteystiedot",
            "contactformulier",
            "offices",
            "our offices",
        ],
    ),
    (
        Intent::Legal,
        8,
        &[
            "impressum",
            "imprint",
            "legal notice",
            "legal",
            "anbieterkennzeichnung",
            "mentions legales",
            "informations legales",
            "note legali",
            "nota legale",
            "aviso legal",
            "avisolegal",
            "informacion legal",
            "colofon",
            "disclaimer",
            "juridique",
        ],
    ),
    (
        Intent::About,
        6,
        &[
            "about",
            "about us",
            "aboutus",
            "who we are",
            "our story",
            "company",
            "team",
            "our team",
            "staff",
            "people",
            "uber uns",
            "ueber uns",
            "unternehmen",
            "quienes somos",
            "sobre nosotros",
            "nosotros",
            "chi siamo",
            "azienda",
            "qui sommes nous",
            "a propos",
            "entreprise",
            "over ons",
            "over",
            "wie zijn wij",
            "wie wij zijn",
            "om oss",
            "sobre",
            "empresa",
            "profile",
            "profiel",
            "history",
            "our firm",
            "the firm",
        ],
    ),
    (
        Intent::Support,
        4,
        &[
            "support",
            "help",
            "customer service",
            "customer care",
            "kundenservice",
            "hilfe",
            "servicio al cliente",
            "assistenza",
            "aide",
            "klantenservice",
            "service",
        ],
    ),
    (
        Intent::Privacy,
        2,
        &[
            "privacy",
            "privacy policy",
            "datenschutz",
            "privacidad",
            "confidentialite",
            "privacyverklaring",
            "privacybeleid",
        ],
    ),
];

/// Lower-case, accents stripped, letters and digits only (others become spaces).
fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    normalise_into(&mut out, s);
    out
}

/// [`normalise`], appended to `out` (which may hold other words: the first word of `s` is
/// not joined to them).
fn normalise_into(out: &mut String, s: &str) {
    let start = out.len();
    let mut pending_space = false;
    for ch in s.chars() {
        let base = if ch.is_ascii() {
            let lower = ch.to_ascii_lowercase();
            if lower.is_ascii_alphanumeric() {
                lower
            } else {
                ' '
            }
        } else {
            match ch.to_lowercase().next().unwrap_or(' ') {
                'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
                'ç' => 'c',
                'è' | 'é' | 'ê' | 'ë' => 'e',
                'ì' | 'í' | 'î' | 'ï' => 'i',
                'ñ' => 'n',
                'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
                'ù' | 'ú' | 'û' | 'ü' => 'u',
                'ß' => 's',
                c if c.is_alphanumeric() => c,
                _ => ' ',
            }
        };
        if base == ' ' {
            pending_space = out.len() > start;
        } else {
            if pending_space {
                out.push(' ');
                pending_space = false;
            }
            out.push(base);
        }
    }
}

/// Ends the first of the two word lists [`intents_in`] reads (not a character `normalise`
/// keeps, nor one of a keyword).
const SEGMENT_END: char = '|';

/// For each row of [`KEYWORDS`], whether one of its phrases occurs on word boundaries
/// (`contactus` also counts as `contact`) in `words[..split]` and in `words[split + 1..]`,
/// two normalised word lists joined by [`SEGMENT_END`]. One Aho-Corasick pass.
fn intents_in(words: &str, split: usize) -> ([bool; KEYWORDS.len()], [bool; KEYWORDS.len()]) {
    static MATCHER: OnceLock<Option<(AhoCorasick, Vec<usize>)>> = OnceLock::new();
    let mut found = ([false; KEYWORDS.len()], [false; KEYWORDS.len()]);
    let Some((matcher, rows)) = MATCHER
        .get_or_init(|| {
            let (phrases, rows): (Vec<&str>, Vec<usize>) = KEYWORDS
                .iter()
                .enumerate()
                .flat_map(|(row, (_, _, phrases))| phrases.iter().map(move |p| (*p, row)))
                .unzip();
            AhoCorasick::new(phrases).ok().map(|m| (m, rows))
        })
        .as_ref()
    else {
        return found;
    };
    let bytes = words.as_bytes();
    for m in matcher.find_overlapping_iter(words) {
        let in_first = m.start() < split;
        let (segment_start, segment_end) = if in_first {
            (0, split)
        } else {
            (split + 1, words.len())
        };
        let before_ok = m.start() == segment_start || bytes[m.start() - 1] == b' ';
        let rest = words.get(m.end()..segment_end.max(m.end())).unwrap_or("");
        let after_ok =
            rest.is_empty() || rest.starts_with(' ') || rest == "us" || rest.starts_with("us ");
        if before_ok && after_ok {
            if let Some(&row) = rows.get(m.pattern().as_usize()) {
                let side = if in_first { &mut found.0 } else { &mut found.1 };
                side[row] = true;
            }
        }
    }
    found
}

/// Files, and site areas that are never contact pages (log-in, cart, search, feeds, tag and
/// category listings).
fn is_excluded(url: &Url) -> bool {
    const FILES: &[&str] = &[
        ".pdf", ".jpg", ".jpeg", ".png", ".gif", ".zip", ".doc", ".docx", ".xls", ".xlsx", ".mp4",
        ".mp3", ".svg", ".webp", ".ppt", ".pptx", ".rar", ".exe", ".dmg", ".xml", ".rss", ".ics",
        ".vcf",
    ];
    const AREAS: &[&str] = &[
        "login",
        "logout",
        "signin",
        "sign-in",
        "register",
        "cart",
        "checkout",
        "basket",
        "account",
        "my-account",
        "wp-admin",
        "wp-login.php",
        "feed",
        "tag",
        "category",
        "search",
        "wishlist",
        "cdn-cgi",
    ];
    if !matches!(url.scheme(), "http" | "https") {
        return true;
    }
    let path = url.path();
    let is_file = FILES.iter().any(|f| {
        path.len() >= f.len()
            && path.as_bytes()[path.len() - f.len()..].eq_ignore_ascii_case(f.as_bytes())
    });
    is_file
        || path
            .split('/')
            .any(|segment| AREAS.iter().any(|a| segment.eq_ignore_ascii_case(a)))
}

/// Same page as the homepage (fragments, `index.html`, trailing slash ignored).
fn is_same_page(home: &Url, url: &Url) -> bool {
    same_page(home, url) || {
        let trimmed = url.path().trim_end_matches('/');
        url.query().is_none()
            && (trimmed.is_empty()
                || [
                    "/index.html",
                    "/index.htm",
                    "/index.php",
                    "/home",
                    "/default.aspx",
                    "/default.asp",
                ]
                .iter()
                .any(|home_path| trimmed.eq_ignore_ascii_case(home_path)))
    }
}

/// Same page: host (without `www.`), path (without trailing slash) and query equal; scheme
/// and fragment ignored. Compares in place: it runs for every same-site link of a page.
pub fn same_page(a: &Url, b: &Url) -> bool {
    fn host(u: &Url) -> Option<&str> {
        u.host_str().map(|h| h.trim_start_matches("www."))
    }
    let hosts_equal = match (host(a), host(b)) {
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b),
        (None, None) => true,
        _ => false,
    };
    hosts_equal
        && a.path().trim_end_matches('/') == b.path().trim_end_matches('/')
        && a.query() == b.query()
}

/// What [`same_page`] compares, owned (the key of the pages a plan has seen): the host
/// without `www.` (lower-case), the path without a trailing slash, the query.
type PageKey = (Option<String>, String, Option<String>);

fn page_key(u: &Url) -> PageKey {
    let host = u
        .host_str()
        .map(|h| h.trim_start_matches("www.").to_ascii_lowercase());
    let path = u.path().trim_end_matches('/').to_string();
    (host, path, u.query().map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(href: &str, text: &str) -> PageLink {
        PageLink {
            url: Url::parse(href).unwrap(),
            text: text.to_string(),
            in_footer: false,
        }
    }

    #[test]
    fn picks_contact_about_and_legal() {
        let home = Url::parse("https://www.acme.de/").unwrap();
        let links = [
            link("https://www.acme.de/produkte", "Produkte"),
            link("https://www.acme.de/ueber-uns", "Über uns"),
            link("https://acme.de/kontakt", "Kontakt"),
            link("https://www.acme.de/impressum", "Impressum"),
            link("https://www.acme.de/datenschutz", "Datenschutz"),
            link("https://other.de/kontakt", "Kontakt"),
            link("https://www.acme.de/#contact", "Contact"),
        ];
        let plan = plan(&home, &links);
        let paths: Vec<&str> = plan.fetch.iter().map(|u| u.path()).collect();
        assert_eq!(paths, ["/kontakt", "/impressum", "/ueber-uns"]);
        assert!(plan
            .contact_pages
            .iter()
            .all(|u| u.host_str() != Some("other.de")));
        assert_eq!(plan.contact_pages[0].path(), "/kontakt");
    }

    #[test]
    fn scores_text_over_path_and_penalises_depth_and_files() {
        let home = Url::parse("http://acme.com/").unwrap();
        let links = [
            link("http://acme.com/page.php?id=5", "Contact Us"),
            link(
                "http://acme.com/about/history/2010/news",
                "Our company news from 2010 and more words",
            ),
            link("http://acme.com/contact.pdf", "Contact form (PDF)"),
            link("http://www.acme.com/about-us/", "About"),
            link("http://acme.com/about-us", "About us"),
        ];
        let c = candidates(&home, &links);
        assert_eq!(c[0].url.as_str(), "http://acme.com/page.php?id=5");
        assert_eq!(
            c.iter()
                .filter(|c| c.url.path().starts_with("/about-us"))
                .count(),
            1
        );
        assert!(c.iter().all(|c| !c.url.path().ends_with(".pdf")));
    }

    #[test]
    fn multilingual_keywords() {
        let u = |p: &str| Url::parse(&format!("https://x.it{p}")).unwrap();
        assert_eq!(
            score_link(&u("/contatti"), "Contatti").map(|s| s.0),
            Some(Intent::Contact)
        );
        assert_eq!(
            score_link(&u("/chi-siamo"), "Chi siamo").map(|s| s.0),
            Some(Intent::About)
        );
        assert_eq!(
            score_link(&u("/x"), "Mentions légales").map(|s| s.0),
            Some(Intent::Legal)
        );
        assert_eq!(
            score_link(&u("/x"), "Neem contact op").map(|s| s.0),
            Some(Intent::Contact)
        );
        assert_eq!(score_link(&u("/produkte"), "Produkte"), None);
    }
}
