//! The business's name, by the precedence of decisions.md "Result fields": JSON-LD
//! `Organization`/`LocalBusiness` name, then `og:site_name`, then `application-name`, then the
//! brand part of `<title>`, then the copyright line. Microdata/hCard organisation names rank
//! with JSON-LD. Template placeholders and CMS names are never names.

/// The inputs, in precedence order of the caller's choosing.
pub struct NameSources<'a> {
    /// JSON-LD organisation names, then microdata/hCard names.
    pub structured: &'a [String],
    /// `og:site_name`.
    pub og_site_name: Option<&'a str>,
    /// `application-name` / `apple-mobile-web-app-title`.
    pub application_name: Option<&'a str>,
    /// `<title>`.
    pub title: Option<&'a str>,
    /// Visible text (for the copyright line).
    pub text: &'a str,
    /// The site's registrable domain without its suffix (`stearnsdesignbuild`), to pick the
    /// title segment that names the brand.
    pub domain_label: &'a str,
}

/// Chooses the name, or `None` when no source gives a usable one.
pub fn company_name(sources: &NameSources<'_>) -> Option<String> {
    sources
        .structured
        .iter()
        .map(String::as_str)
        .chain(sources.og_site_name)
        .chain(sources.application_name)
        .map(clean)
        .find(|n| usable(n))
        .or_else(|| {
            sources
                .title
                .and_then(|t| title_brand(t, sources.domain_label))
        })
        .or_else(|| copyright_holder(sources.text))
}

fn clean(name: &str) -> String {
    let name = name
        .trim()
        .trim_end_matches(['®', '™', '℠'])
        .trim_matches(|c: char| {
            c.is_whitespace() || matches!(c, '|' | '-' | '–' | '—' | ':' | '•' | '·')
        });
    name.to_string()
}

fn usable(name: &str) -> bool {
    let lower = name.to_lowercase();
    let letters = name.chars().filter(|c| c.is_alphabetic()).count();
    letters >= 2
        && name.chars().count() <= 120
        && !name.contains(['{', '}', '$', '<', '>'])
        && !PLACEHOLDERS.iter().any(|p| {
            lower == *p || lower.contains("your company") || lower.contains("company name")
        })
}

const PLACEHOLDERS: &[&str] = &[
    "home",
    "homepage",
    "home page",
    "index",
    "welcome",
    "untitled",
    "untitled document",
    "wordpress",
    "just another wordpress site",
    "wix",
    "squarespace",
    "jimdo",
    "weebly",
    "joomla",
    "drupal",
    "site name",
    "my site",
    "my website",
    "website",
    "default",
    "contact",
    "contact us",
    "about",
    "about us",
    "new page",
    "page",
    "blog",
    "standaard",
    "startpagina",
    "document",
    "test",
    "demo",
];

/// Words that make a title segment generic rather than a brand.
const GENERIC_SEGMENTS: &[&str] = &[
    "home",
    "homepage",
    "home page",
    "welcome",
    "contact",
    "contact us",
    "contacts",
    "about",
    "about us",
    "index",
    "main",
    "official site",
    "official website",
    "welkom",
    "contactgegevens",
    "kontakt",
    "impressum",
    "over ons",
    "startseite",
    "accueil",
    "inicio",
    "support",
];

/// The brand part of a title: split on separators and drop generic segments; a segment that
/// spells the domain name wins whole, else the longest run of words that the domain name
/// contains (`Contact Kent Bathroom Fitters Flint & Son` on flintandson.co.uk → `Flint & Son`),
/// with a legal-form suffix that follows it; without any domain match, a short title is taken
/// whole, or the shortest short segment of a longer one.
fn title_brand(title: &str, domain_label: &str) -> Option<String> {
    let segments: Vec<String> = split_title(title)
        .into_iter()
        .map(|s| clean(&s))
        .filter(|s| usable(s) && !GENERIC_SEGMENTS.contains(&s.to_lowercase().as_str()))
        .collect();
    let domain = squash(domain_label);
    if domain.len() >= 3 {
        if let Some(whole) = segments.iter().find(|s| {
            let squashed = squash(s);
            squashed.len() >= 3
                && (domain == squashed
                    || domain.contains(&squashed) && squashed.len() * 2 >= domain.len())
        }) {
            return Some(whole.clone());
        }
        let best = segments
            .iter()
            .filter_map(|s| domain_run(s, &domain))
            .max_by_key(|(score, _)| *score);
        if let Some((score, run)) = best {
            if score * 2 > domain.len() {
                return Some(run);
            }
        }
    }
    match segments.as_slice() {
        [only] if only.split_whitespace().count() <= 6 => Some(only.clone()),
        [] | [_] => None,
        many => many
            .iter()
            .filter(|s| s.split_whitespace().count() <= 5)
            .min_by_key(|s| s.len())
            .cloned(),
    }
}

/// Words that may sit between brand words (`Flint & Son`, `Skin by Lovely`).
const CONNECTORS: &[&str] = &[
    "&", "and", "by", "of", "the", "de", "van", "der", "den", "en", "-", "+", "und", "et",
];
/// Legal forms kept after a brand run.
const LEGAL_FORMS: &[&str] = &[
    "inc",
    "llc",
    "llp",
    "ltd",
    "limited",
    "bv",
    "gmbh",
    "pty",
    "co",
    "company",
    "corp",
    "corporation",
    "group",
    "vof",
    "sl",
    "sas",
    "sarl",
    "ab",
    "plc",
    "nv",
    "ag",
    "srl",
    "spa",
];

/// The longest run of consecutive words of `segment` that `domain` contains, scored by the
/// letters matched; `None` when no word matches.
fn domain_run(segment: &str, domain: &str) -> Option<(usize, String)> {
    let words: Vec<(usize, &str)> = segment
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - segment.as_ptr() as usize, w))
        .collect();
    let matches = |w: &str| {
        let sq = squash(w);
        // Two-letter words count only as acronyms (`V1`, `HS`), not as `in`, `at`.
        let long_enough = sq.len() >= 3
            || (sq.len() == 2 && w.chars().any(|c| c.is_uppercase() || c.is_ascii_digit()));
        long_enough && domain.contains(&sq)
    };
    let is_connector =
        |w: &str| CONNECTORS.contains(&w.to_lowercase().trim_matches(',').trim_end_matches('.'));
    // A word may also extend a run as an abbreviation that ends the domain name
    // (`Woods Insurance` on woodsins.com, `Leeward Productions` on leewardpro.com).
    let abbreviates = |run: &str, w: &str| {
        let sq = squash(w);
        (2..sq.len()).any(|n| {
            sq.get(..n)
                .is_some_and(|prefix| domain.ends_with(&format!("{run}{prefix}")))
        })
    };
    let mut best: Option<(usize, usize, usize)> = None; // (score, first, last)
    let mut i = 0;
    while i < words.len() {
        if !matches(words[i].1) || is_connector(words[i].1) {
            i += 1;
            continue;
        }
        let mut run = squash(words[i].1);
        let (mut last, mut score, mut j) = (i, run.len(), i + 1);
        while j < words.len() {
            let w = words[j].1;
            if matches(w) && !is_connector(w) {
                last = j;
                score += squash(w).len();
                run.push_str(&squash(w));
            } else if !is_connector(w) && abbreviates(&run, w) {
                last = j;
                score += domain.len().saturating_sub(run.len());
                break;
            } else if !is_connector(w) {
                break;
            }
            j += 1;
        }
        // A run that starts the domain name is the brand more often than one inside it.
        if domain.starts_with(&squash(words[i].1)) {
            score += 3;
        }
        if best.is_none_or(|(b, _, _)| score > b) {
            best = Some((score, i, last));
        }
        i = j.max(i + 1);
    }
    let (score, first, mut last) = best?;
    while last + 1 < words.len() && LEGAL_FORMS.contains(&squash(words[last + 1].1).as_str()) {
        last += 1;
    }
    let start = words[first].0;
    let end = words[last].0 + words[last].1.len();
    let run = segment[start..end]
        .trim_end_matches([',', ';', ':', '-'])
        .to_string();
    Some((score, run))
}

fn split_title(title: &str) -> Vec<String> {
    let mut parts = vec![title.to_string()];
    for sep in [
        " | ", "|", " - ", " – ", " — ", " :: ", ": ", " • ", " · ", " « ", " » ", " ~ ", " / ",
    ] {
        parts = parts
            .iter()
            .flat_map(|p| p.split(sep).map(str::to_string).collect::<Vec<_>>())
            .collect();
    }
    parts
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// Lower-case letters and digits only.
fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// The holder named in a copyright line (`© 2014 Acme Ltd. All rights reserved.`, or
/// `All rights reserved, Acme © 2009-2013`).
fn copyright_holder(text: &str) -> Option<String> {
    for line in text.lines().rev() {
        let lower = line.to_lowercase();
        let Some((mark, mark_len)) = lower
            .find('©')
            .map(|i| (i, '©'.len_utf8()))
            .or_else(|| lower.find("copyright").map(|i| (i, "copyright".len())))
            .or_else(|| lower.find("(c)").map(|i| (i, 3)))
        else {
            continue;
        };
        let after = line.get(mark + mark_len..).unwrap_or("");
        let before = line.get(..mark).unwrap_or("");
        for candidate in [holder_after(after), holder_before(before)]
            .into_iter()
            .flatten()
        {
            if usable(&candidate)
                && candidate.split_whitespace().count() <= 8
                && !NOT_HOLDERS.contains(&candidate.to_lowercase().as_str())
            {
                return Some(candidate);
            }
        }
    }
    None
}

/// Names that appear in copyright lines of embedded widgets, not of the business.
const NOT_HOLDERS: &[&str] = &[
    "google",
    "google, inegi",
    "microsoft",
    "openstreetmap",
    "here",
    "mapbox",
    "wordpress",
];

fn holder_after(after: &str) -> Option<String> {
    let mut rest = after;
    loop {
        let trimmed = rest
            .trim_start_matches(|c: char| {
                c.is_ascii_digit()
                    || c.is_whitespace()
                    || matches!(c, '-' | '–' | ',' | '©' | '.' | ':')
            })
            .trim_start_matches("Copyright")
            .trim_start_matches("copyright")
            .trim_start_matches("by ");
        if trimmed.len() == rest.len() {
            break;
        }
        rest = trimmed;
    }
    let lower = rest.to_lowercase();
    let end = [
        "all rights",
        "alle rechten",
        "alle rechte",
        "tous droits",
        " | ",
        " - ",
        ". ",
        "website by",
        "web design",
        "designed by",
        "powered by",
        "site by",
        "registered",
    ]
    .iter()
    .filter_map(|stop| lower.find(stop))
    .min()
    .unwrap_or(rest.len());
    let name = clean(rest.get(..end).unwrap_or(rest));
    let name = name.trim_end_matches(|c: char| {
        c.is_ascii_digit() || c.is_whitespace() || c == ',' || c == '.'
    });
    (!name.is_empty()).then(|| name.to_string())
}

fn holder_before(before: &str) -> Option<String> {
    let lower = before.to_lowercase();
    let start = [
        "all rights reserved",
        "alle rechten voorbehouden",
        "all right reserved",
    ]
    .iter()
    .filter_map(|p| lower.find(p).map(|i| i + p.len()))
    .max()?;
    let name = clean(before.get(start..)?.trim_start_matches([',', '.', ' ']));
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources<'a>(title: Option<&'a str>, text: &'a str, domain: &'a str) -> NameSources<'a> {
        NameSources {
            structured: &[],
            og_site_name: None,
            application_name: None,
            title,
            text,
            domain_label: domain,
        }
    }

    #[test]
    fn precedence() {
        let structured = vec!["Acme Inc.".to_string()];
        let s = NameSources {
            structured: &structured,
            og_site_name: Some("Acme Site"),
            ..sources(Some("Home | Acme"), "", "acme")
        };
        assert_eq!(company_name(&s).as_deref(), Some("Acme Inc."));
        let s = NameSources {
            og_site_name: Some("Acme Site"),
            ..sources(Some("Home | Acme"), "", "acme")
        };
        assert_eq!(company_name(&s).as_deref(), Some("Acme Site"));
    }

    #[test]
    fn title_brand_prefers_domain_match() {
        let name = |t: &str, d: &str| company_name(&sources(Some(t), "", d));
        assert_eq!(
            name("Contact Us | Stearns Design Build", "stearnsdesignbuild").as_deref(),
            Some("Stearns Design Build")
        );
        assert_eq!(
            name(
                "Thames Plumbers - Emergency Plumbing in London",
                "thamesplumbers"
            )
            .as_deref(),
            Some("Thames Plumbers")
        );
        assert_eq!(name("Home", "x"), None);
        assert_eq!(
            name("Contact Kent Bathroom Fitters Flint & Son", "flintandson").as_deref(),
            Some("Flint & Son")
        );
        assert_eq!(
            name(
                "Factory Contacts For Advantage Engineering, Inc.",
                "advantageengineering"
            )
            .as_deref(),
            Some("Advantage Engineering, Inc.")
        );
        assert_eq!(
            name("Contact Skin by Lovely in Santa Monica", "skinbylovely").as_deref(),
            Some("Skin by Lovely")
        );
        assert_eq!(
            name(
                "Woods Insurance Service - Farmington New Mexico",
                "woodsins"
            )
            .as_deref(),
            Some("Woods Insurance")
        );
        assert_eq!(
            name(
                "Contact Zynk Commercial Interior Design Architects",
                "zynkdesign"
            )
            .as_deref(),
            Some("Zynk")
        );
        assert_eq!(
            name(
                "Denver Accident Attorney, CO, Denver Personal Injury Lawyer, Paul",
                "callpaul"
            ),
            None
        );
    }

    #[test]
    fn copyright_line_and_placeholders() {
        assert_eq!(
            company_name(&sources(
                None,
                "x\n© 2014 Flint & Son Ltd. All rights reserved.",
                "flintandson"
            ))
            .as_deref(),
            Some("Flint & Son Ltd")
        );
        assert_eq!(
            company_name(&sources(None, "© 2013 Your Company Name", "x")),
            None
        );
        assert_eq!(
            company_name(&sources(None, "© Copyright 2003-2014 FinCar Pty Ltd.", "x")).as_deref(),
            Some("FinCar Pty Ltd")
        );
        assert_eq!(
            company_name(&sources(
                None,
                "All rights reserved, Unforgettable Smile © 2009-2013",
                "x"
            ))
            .as_deref(),
            Some("Unforgettable Smile")
        );
        assert_eq!(
            company_name(&sources(None, "Kaartgegevens © 2014 Google", "x")),
            None
        );
    }
}
