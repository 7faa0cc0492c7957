//! Host names and sites: the result's `domain`, registrable domains (Public Suffix List, via
//! `psl`) for same-site checks, and the country a ccTLD implies.

use url::Url;

/// The result's `domain` (docs/contract.md "Result fields"): the URL's host, lower-case, IDNA
/// ASCII (the `url` crate applies UTS #46), without a leading `www.`. Empty for a URL without
/// a host.
pub fn result_domain(url: &Url) -> String {
    let host = url.host_str().unwrap_or("").trim_end_matches('.');
    host.strip_prefix("www.")
        .unwrap_or(host)
        .to_ascii_lowercase()
}

/// The registrable domain ("eTLD+1") of `host` per the Public Suffix List, lower-case; for an
/// IP literal or a name without a known suffix, the host itself.
pub fn registrable_domain(host: &str) -> String {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    match psl::domain_str(&host) {
        Some(domain) => domain.to_string(),
        None => host,
    }
}

/// Whether two URLs are on the same site: same registrable domain (so `www.` and the apex,
/// and `http`/`https`, are one site). URLs without a host are never the same site.
pub fn same_site(a: &Url, b: &Url) -> bool {
    match (a.host_str(), b.host_str()) {
        (Some(x), Some(y)) => registrable_domain(x) == registrable_domain(y),
        _ => false,
    }
}

/// The ISO 3166-1 alpha-2 region a country-code TLD implies (`.co.uk` → `GB`, `.nl` → `NL`),
/// or `None` for generic TLDs (`.com`, `.eu`, …) and TLDs used as generic (`.io`, `.co`, `.tv`,
/// `.me`, `.ai`…).
pub fn region_from_host(host: &str) -> Option<&'static str> {
    let tld = host
        .trim_end_matches('.')
        .rsplit('.')
        .next()?
        .to_ascii_lowercase();
    Some(match tld.as_str() {
        "uk" => "GB",
        "nl" => "NL",
        "de" => "DE",
        "fr" => "FR",
        "it" => "IT",
        "es" => "ES",
        "pt" => "PT",
        "be" => "BE",
        "at" => "AT",
        "ch" => "CH",
        "ie" => "IE",
        "se" => "SE",
        "dk" => "DK",
        "no" => "NO",
        "fi" => "FI",
        "pl" => "PL",
        "cz" => "CZ",
        "au" => "AU",
        "nz" => "NZ",
        "ca" => "CA",
        "us" => "US",
        "za" => "ZA",
        "in" => "IN",
        "br" => "BR",
        "mx" => "MX",
        "ar" => "AR",
        "jp" => "JP",
        "lu" => "LU",
        "gr" => "GR",
        "hu" => "HU",
        "ro" => "RO",
        "sk" => "SK",
        "si" => "SI",
        "hr" => "HR",
        "sg" => "SG",
        "hk" => "HK",
        _ => {
            return OTHER_CCTLD_REGIONS
                .iter()
                .find(|code| code.eq_ignore_ascii_case(&tld))
                .or_else(|| national_second_level(host, &tld))
                .copied()
        }
    })
}

/// Country-code TLDs sold as generic names (upper-cased; see [`OTHER_CCTLD_REGIONS`]): a
/// name right under one (`brand.co`) says nothing of a country.
const GENERIC_SOLD_CCTLDS: &[&str] = &[
    "AC", "AG", "AI", "AM", "BZ", "CC", "CF", "CO", "CX", "FM", "FO", "GA", "GG", "GL", "GS", "IM",
    "IO", "LA", "LY", "ME", "ML", "MS", "NU", "PS", "SC", "SH", "SO", "ST", "TC", "TK", "TO", "TV",
    "VC", "VG", "WS",
];

/// Second-level labels that a country's registry keeps for its own country under its ccTLD
/// (`com.co`, `org.co`, `net.me`): registrations there are the country's, even where the
/// TLD itself is sold as a generic name.
const NATIONAL_SECOND_LEVELS: &[&str] = &[
    "ac", "co", "com", "edu", "gob", "gov", "mil", "net", "nom", "org",
];

/// The region of a host under a national second level of a ccTLD sold as generic
/// (`sample.com.co` → CO; class `tld.national_second_level`); `None` for a name right under
/// the TLD (`brand.co`) or under another label.
fn national_second_level(host: &str, tld: &str) -> Option<&'static &'static str> {
    let mut labels = host.trim_end_matches('.').rsplit('.');
    labels.next()?;
    let second = labels.next()?.to_ascii_lowercase();
    labels.next()?;
    if !NATIONAL_SECOND_LEVELS.contains(&second.as_str()) {
        return None;
    }
    GENERIC_SOLD_CCTLDS
        .iter()
        .find(|code| code.eq_ignore_ascii_case(tld))
}

/// Further country-code TLDs that sites use for their own country (the code is the TLD,
/// upper-cased). Left out on purpose: TLDs sold as generic names (`.io`, `.co`, `.me`, `.tv`,
/// `.ai`, `.fm`, `.ly`, `.to`, `.cc`, `.ws`, `.gg`, `.sh`, `.ac`, `.so`, `.gl`, `.vc`, `.la`,
/// `.nu`, `.tk`, `.ml`, `.ga`, `.cf`, `.st`, `.am`, `.im`, `.ag`, `.bz`, `.cx`, `.fo`, `.gs`, `.ms`,
/// `.sc`, `.tc`, `.vg`, `.ps`).
const OTHER_CCTLD_REGIONS: &[&str] = &[
    "AE", "AL", "AO", "AZ", "BA", "BD", "BG", "BH", "BO", "BW", "BY", "CI", "CL", "CM", "CN", "CR",
    "CU", "CY", "DO", "DZ", "EC", "EE", "EG", "ET", "GE", "GH", "GT", "HN", "ID", "IL", "IQ", "IR",
    "IS", "JM", "JO", "KE", "KH", "KR", "KW", "KZ", "LB", "LK", "LT", "LV", "MA", "MD", "MK", "MN",
    "MO", "MT", "MU", "MY", "MZ", "NA", "NG", "NI", "NP", "OM", "PA", "PE", "PH", "PK", "PY", "QA",
    "RS", "RU", "RW", "SA", "SN", "SV", "TH", "TN", "TR", "TT", "TW", "TZ", "UA", "UG", "UY", "UZ",
    "VE", "VN", "ZM", "ZW",
];

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn result_domain_strips_www_and_lowercases() {
        assert_eq!(
            result_domain(&url("https://WWW.Example.COM/x")),
            "example.com"
        );
        assert_eq!(
            result_domain(&url("https://bücher.de/")),
            "xn--bcher-kva.de"
        );
        assert_eq!(
            result_domain(&url("http://shop.example.co.uk/")),
            "shop.example.co.uk"
        );
    }

    #[test]
    fn same_site_uses_registrable_domain() {
        assert!(same_site(
            &url("http://www.a.co.uk/x"),
            &url("https://a.co.uk/y")
        ));
        assert!(same_site(
            &url("https://shop.a.com/"),
            &url("https://a.com/")
        ));
        assert!(!same_site(
            &url("https://a.co.uk/"),
            &url("https://b.co.uk/")
        ));
        assert!(!same_site(
            &url("https://a.github.io/"),
            &url("https://b.github.io/")
        ));
        assert!(!same_site(&url("mailto:x@a.com"), &url("https://a.com/")));
    }

    #[test]
    fn regions_from_cctld() {
        assert_eq!(
            region_from_host("www.hollyandson.example.co.uk"),
            Some("GB")
        );
        assert_eq!(region_from_host("wattlecars.example.com.au"), Some("AU"));
        assert_eq!(region_from_host("example.com"), None);
        assert_eq!(region_from_host("dekraanvogel.example.eu"), None);
        assert_eq!(region_from_host("1901hotel.example.com.ph"), Some("PH"));
        assert_eq!(region_from_host("taller-arte.example.cl"), Some("CL"));
        assert_eq!(region_from_host("startup.io"), None);
        assert_eq!(region_from_host("brand.co"), None);
    }

    #[test]
    fn a_national_second_level_under_a_generic_sold_cctld_names_its_country() {
        // Colombia (`.com.co`, `.org.co`), Montenegro (`.co.me`), Anguilla (`.com.ai`).
        assert_eq!(region_from_host("www.sample-shop.com.co"), Some("CO"));
        assert_eq!(region_from_host("sample.org.co"), Some("CO"));
        assert_eq!(region_from_host("sample.co.me"), Some("ME"));
        assert_eq!(region_from_host("sample.com.ai"), Some("AI"));
        // A name right under the TLD, or under another label, is generic still.
        assert_eq!(region_from_host("brand.co"), None);
        assert_eq!(region_from_host("www.brand.co"), None);
        assert_eq!(region_from_host("app.brand.io"), None);
        assert_eq!(region_from_host("com.co"), None);
    }
}
