//! The place a map link or map embed shows (class `address.map-link`): a page that prints no
//! address of its own often links its address to a map or embeds one, and the link carries
//! the address as its search text. Read only on pages where no other reader found an address
//! (docs/extraction.md, "Addresses"); the text is read by the same address reader as the
//! page's lines ([`address::from_lines`]), so a place name or coordinates without a postcode
//! give nothing.
//!
//! The map URLs read (Google Maps URLs, `developers.google.com/maps/documentation/urls`;
//! Apple Maps links, `developer.apple.com/library/archive/featuredarticles/iPhoneURLScheme_Reference/MapLinks`):
//!
//! - `maps.google.<tld>/…?q=<text>`, `google.<tld>/maps?q=<text>` (also `daddr`,
//!   `destination`, `query`, the embed form `…&output=embed`);
//! - `google.<tld>/maps/place/<text>/@…`, `google.<tld>/maps/search/<text>/…`,
//!   `google.<tld>/maps/dir/<from>/<text>/…` (the last non-empty segment before `@` or `data=`);
//! - `maps.apple.com/?address=<text>` (also `q`, `daddr`);
//! - the embed `google.<tld>/maps/embed?pb=…!2s<text>!…` (the place's `!2s` field).

use std::borrow::Cow;

use percent_encoding::percent_decode_str;
use url::Url;

use crate::extract::address::{self, MarkedAddress};
use crate::extract::page_budget::PageBudget;

/// Most map URLs read on one page.
const MAX_MAP_URLS: usize = 16;
/// Longest place text read, in bytes.
const MAX_PLACE_TEXT: usize = 200;

/// The addresses the map links (`hrefs`) and map embeds (`frames`, `<iframe src>`) of a page
/// show, read with `region` (the page's ISO 3166-1 region, `None`: the reader's patterns of
/// every region that need none); each distinct one once, in order. Charged to `budget`.
pub(crate) fn read<'a>(
    hrefs: impl Iterator<Item = &'a str>,
    frames: impl Iterator<Item = &'a str>,
    region: Option<&str>,
    budget: &PageBudget,
) -> Vec<MarkedAddress> {
    let mut found: Vec<MarkedAddress> = Vec::new();
    let texts = hrefs
        .chain(frames)
        .filter(|url| may_be_map(url))
        .filter_map(place_text)
        .take(MAX_MAP_URLS);
    for text in texts {
        if !budget.work(text.len() + 16) {
            break;
        }
        for a in address::from_lines(&[text.as_str()], region, budget) {
            if a.parts.postal_code.is_some() && !found.contains(&a.parts) {
                found.push(a.parts);
            }
        }
    }
    found
}

/// A cheap test before URL parsing: the URL names a map host or path.
fn may_be_map(url: &str) -> bool {
    url.len() < 4096 && (url.contains("maps") || url.contains("/maps"))
}

/// The place text a map URL carries, decoded; `None` for another URL, a URL without one, or
/// coordinates.
fn place_text(raw: &str) -> Option<String> {
    let url = Url::parse(raw.trim()).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let google = host.starts_with("google.") || host.starts_with("maps.google.");
    let apple = host == "maps.apple.com";
    if !google && !apple {
        return None;
    }
    let path = url.path();
    if google && !host.starts_with("maps.") && !path.starts_with("/maps") {
        return None;
    }
    let query = |keys: &[&str]| {
        url.query_pairs()
            .find(|(k, v)| keys.contains(&k.as_ref()) && !v.trim().is_empty())
            .map(|(_, v)| v.into_owned())
    };
    let text = if apple {
        query(&["address", "q", "daddr"])
    } else if path.starts_with("/maps/embed") {
        query(&["pb"])
            .as_deref()
            .and_then(embed_place)
            .or_else(|| query(&["q"]))
    } else if let Some(rest) = ["/maps/place/", "/maps/search/", "/maps/dir/"]
        .iter()
        .find_map(|p| path.strip_prefix(p))
    {
        path_place(rest).or_else(|| query(&["query", "destination", "q"]))
    } else {
        query(&["q", "daddr", "destination", "query"])
    }?;
    let text = text.replace('+', " ");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty() && text.len() <= MAX_PLACE_TEXT && !is_coordinates(&text)).then_some(text)
}

/// The place of a `/maps/place/…`, `/maps/search/…` or `/maps/dir/…` path's rest: its last
/// segment before the view (`@lat,lng,zoom`) or data (`data=…`), percent-decoded.
fn path_place(rest: &str) -> Option<String> {
    rest.split('/')
        .take_while(|segment| !segment.starts_with('@') && !segment.starts_with("data="))
        .filter(|segment| !segment.is_empty())
        .last()
        .map(|segment| decode(segment).into_owned())
}

/// The `!2s` field of an embed's `pb` parameter (its place: a name, an address, or both).
fn embed_place(pb: &str) -> Option<String> {
    pb.split('!')
        .find_map(|field| field.strip_prefix("2s"))
        .map(|text| decode(text).into_owned())
}

fn decode(text: &str) -> Cow<'_, str> {
    percent_decode_str(text).decode_utf8_lossy()
}

/// `45.76,4.83` or `45.76, 4.83`: a position, no place.
fn is_coordinates(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+' | ' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_urls(hrefs: &[&str], frames: &[&str], region: Option<&str>) -> Vec<MarkedAddress> {
        read(
            hrefs.iter().copied(),
            frames.iter().copied(),
            region,
            &PageBudget::for_page(1 << 20),
        )
    }

    fn parts(a: &MarkedAddress) -> (Option<&str>, Option<&str>, Option<&str>) {
        (
            a.street.as_deref(),
            a.postal_code.as_deref(),
            a.locality.as_deref(),
        )
    }

    #[test]
    fn map_urls_give_the_place_they_show() {
        // (link or embed, page region, street, postcode, town)
        let cases: [(&str, bool, Option<&str>, [&str; 3]); 4] = [
            // Czech: a place link with the address as its path.
            (
                "https://www.google.cz/maps/place/Vzorov%C3%A1+12,+602+00+Brno/@49.19,16.6,17z/data=!3m1!4b1",
                false,
                Some("CZ"),
                ["Vzorová 12", "602 00", "Brno"],
            ),
            // United States: a search link with `q`, on a page of no region.
            (
                "https://maps.google.com/?q=120+Sample+Street,+Denver,+CO+80202",
                false,
                None,
                ["120 Sample Street", "80202", "Denver"],
            ),
            // German: an embed whose place field holds the address.
            (
                "https://www.google.com/maps/embed?pb=!1m18!1m12!1m3!1d2427.5!2d13.4!3d52.5!2m3!1f0!2f0!3f0!3m2!1i1024!2i768!4f13.1!3m3!1m2!1s0x47a84e%3A0x1!2sMusterstra%C3%9Fe%2012%2C%2010115%20Berlin!5e0!3m2!1sde!2sde!4v1",
                true,
                Some("DE"),
                ["Musterstraße 12", "10115", "Berlin"],
            ),
            // French: an Apple Maps link.
            (
                "https://maps.apple.com/?address=12%20Rue%20Exemple,%2069002%20Lyon,%20France",
                false,
                Some("FR"),
                ["12 Rue Exemple", "69002", "Lyon"],
            ),
        ];
        for (url, embed, region, [street, postcode, town]) in cases {
            let (links, frames) = if embed {
                (vec![], vec![url])
            } else {
                (vec![url], vec![])
            };
            let found = read_urls(&links, &frames, region);
            assert_eq!(found.len(), 1, "{url}");
            assert_eq!(
                parts(&found[0]),
                (Some(street), Some(postcode), Some(town)),
                "{url}"
            );
        }
    }

    #[test]
    fn pages_without_an_address_give_their_map_embed() {
        // Spanish: an embed with `q` and `output=embed`, the page's only address.
        let url = url::Url::parse("https://example.es/contacto").unwrap();
        let html = "<html lang=es><body><h2>Dónde estamos</h2><iframe \
            src=\"https://maps.google.com/maps?q=Calle%20Ejemplo%2012,%2028001%20Madrid&amp;output=embed\" \
            width=600></iframe></body></html>";
        let found = crate::extract::extract_page(&url, None, html.as_bytes()).addresses;
        assert_eq!(found.len(), 1);
        assert_eq!(
            parts(&found[0]),
            (Some("Calle Ejemplo 12"), Some("28001"), Some("Madrid"))
        );
        // Dutch: a page that prints its address keeps that one only.
        let url = url::Url::parse("https://example.nl/contact").unwrap();
        let html = "<html lang=nl><body><p>Voorbeeldstraat 3, 1011 AB Amsterdam</p>\
            <iframe src=\"https://maps.google.com/maps?q=Andereweg%209,%203011%20AA%20Rotterdam&amp;output=embed\"></iframe>\
            </body></html>";
        let found = crate::extract::extract_page(&url, None, html.as_bytes()).addresses;
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].postal_code.as_deref(), Some("1011 AB"));
    }

    #[test]
    fn names_coordinates_and_other_links_give_nothing() {
        let urls = [
            "https://www.google.com/maps/embed?pb=!1m18!3m3!1m2!1s0x1%3A0x2!2sSample%20Bakery!5e0",
            "https://www.google.com/maps/dir/?api=1&destination=39.73,-8.10",
            "https://www.google.com/maps?cid=1234567890",
            "https://example.com/maps?q=12+Rue+Exemple,+69002+Lyon",
            "https://www.google.com/search?q=12+Rue+Exemple,+69002+Lyon",
        ];
        assert!(read_urls(&urls, &[], Some("FR")).is_empty());
    }
}
