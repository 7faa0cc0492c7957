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
        .or_else(|| sources.title.and_then(|t| title_brand(t, sources.domain_label)))
        .or_else(|| copyright_holder(sources.text))
}

fn clean(name: &str) -> String {
    let name = name
        .trim()
        .trim_end_matches(['®', '™', '℠'])
        .trim_matches(|c: char| c.is_whitespace() || matches!(c, '|' | '-' | '–' | '—' | ':' | '•' | '·'));
    name.to_string()
}

fn usable(name: &str) -> bool {
    let lower = name.to_lowercase();
    let letters = name.chars().filter(|c| c.is_alphabetic()).count();
    letters >= 2
        && name.chars().count() <= 120
        && !name.contains(['{', '}', '$', '<', '>'])
        && !PLACEHOLDERS.iter().any(|p| lower == *p || lower.contains("your company") || lower.contains("company name"))
}

const PLACEHOLDERS: &[&str] = &[
    "home", "homepage", "home page", "index", "welcome", "untitled", "untitled document",
    "wordpress", "just another wordpress site", "wix", "squarespace", "jimdo", "weebly",
    "joomla", "drupal", "site name", "my site", "my website", "website", "default", "contact",
    "contact us", "about", "about us", "new page", "page", "blog",
];

/// Words that make a title segment generic rather than a brand.
const GENERIC_SEGMENTS: &[&str] = &[
    "home", "homepage", "home page", "welcome", "contact", "contact us", "contacts", "about",
    "about us", "index", "main", "official site", "official website", "welkom", "contactgegevens",
    "kontakt", "impressum", "over ons", "startseite", "accueil", "inicio", "support",
];

/// The brand part of a title: split on separators, drop generic segments, and prefer the
/// segment that matches the domain name; otherwise the shortest remaining segment when the
/// title has several, or the whole title when it is short.
fn title_brand(title: &str, domain_label: &str) -> Option<String> {
    let segments: Vec<String> = split_title(title)
        .into_iter()
        .map(|s| clean(&s))
        .filter(|s| usable(s) && !GENERIC_SEGMENTS.contains(&s.to_lowercase().as_str()))
        .collect();
    let domain = squash(domain_label);
    let score = |segment: &str| -> usize {
        let squashed = squash(segment);
        if squashed.is_empty() || domain.is_empty() {
            return 0;
        }
        if domain.contains(&squashed) || squashed.contains(&domain) {
            return 1000 + squashed.len().min(domain.len());
        }
        segment
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3 && domain.contains(&squash(w)))
            .map(|w| w.len())
            .sum()
    };
    let best = segments.iter().map(|s| (score(s), s)).max_by_key(|(score, s)| (*score, std::cmp::Reverse(s.len())))?;
    if best.0 > 0 {
        return Some(best.1.clone());
    }
    match segments.as_slice() {
        [only] if only.split_whitespace().count() <= 6 => Some(only.clone()),
        [] | [_] => None,
        many => many.iter().filter(|s| s.split_whitespace().count() <= 5).min_by_key(|s| s.len()).cloned(),
    }
}

fn split_title(title: &str) -> Vec<String> {
    let mut parts = vec![title.to_string()];
    for sep in [" | ", "|", " - ", " – ", " — ", " :: ", ": ", " • ", " · ", " « ", " » ", " ~ ", " / "] {
        parts = parts.iter().flat_map(|p| p.split(sep).map(str::to_string).collect::<Vec<_>>()).collect();
    }
    parts.into_iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect()
}

/// Lower-case letters and digits only.
fn squash(s: &str) -> String {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(char::to_lowercase).collect()
}

/// The holder named in a copyright line (`© 2014 Acme Ltd. All rights reserved.`).
fn copyright_holder(text: &str) -> Option<String> {
    for line in text.lines().rev() {
        let lower = line.to_lowercase();
        let start = lower
            .find('©')
            .map(|i| i + '©'.len_utf8())
            .or_else(|| lower.find("copyright").map(|i| i + "copyright".len()))
            .or_else(|| lower.find("(c)").map(|i| i + 3))?;
        let Some(rest) = line.get(start..) else { continue };
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit() || c.is_whitespace() || matches!(c, '-' | '–' | ',' | '©' | '.'));
        let rest = rest.trim_start_matches("by ").trim_start_matches("Copyright").trim();
        let end = ["all rights", "alle rechten", "alle rechte", "tous droits", " | ", " - ", ". ", "website by", "web design", "designed by", "powered by", "site by"]
            .iter()
            .filter_map(|stop| rest.to_lowercase().find(stop))
            .min()
            .unwrap_or(rest.len());
        let name = clean(rest.get(..end).unwrap_or(rest));
        let name = name.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace() || c == ',').to_string();
        if usable(&name) && name.split_whitespace().count() <= 8 {
            return Some(name);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources<'a>(title: Option<&'a str>, text: &'a str, domain: &'a str) -> NameSources<'a> {
        NameSources { structured: &[], og_site_name: None, application_name: None, title, text, domain_label: domain }
    }

    #[test]
    fn precedence() {
        let structured = vec!["Acme Inc.".to_string()];
        let s = NameSources { structured: &structured, og_site_name: Some("Acme Site"), ..sources(Some("Home | Acme"), "", "acme") };
        assert_eq!(company_name(&s).as_deref(), Some("Acme Inc."));
        let s = NameSources { og_site_name: Some("Acme Site"), ..sources(Some("Home | Acme"), "", "acme") };
        assert_eq!(company_name(&s).as_deref(), Some("Acme Site"));
    }

    #[test]
    fn title_brand_prefers_domain_match() {
        let name = |t: &str, d: &str| company_name(&sources(Some(t), "", d));
        assert_eq!(name("Contact Us | Stearns Design Build", "stearnsdesignbuild").as_deref(), Some("Stearns Design Build"));
        assert_eq!(name("Thames Plumbers - Emergency Plumbing in London", "thamesplumbers").as_deref(), Some("Thames Plumbers"));
        assert_eq!(name("Home", "x"), None);
    }

    #[test]
    fn copyright_line_and_placeholders() {
        assert_eq!(company_name(&sources(None, "x\n© 2014 Flint & Son Ltd. All rights reserved.", "flintandson")).as_deref(), Some("Flint & Son Ltd"));
        assert_eq!(company_name(&sources(None, "© 2013 Your Company Name", "x")), None);
    }
}
