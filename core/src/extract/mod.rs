//! Contact extraction from page bytes: decode → parse once (prescan and `tl`, `html.rs`)
//! → run the field extractors → [`PageExtraction`]; then [`merge`] the pages of one site into
//! the spec's `ContactExtractionResult`.
//!
//! ```text
//! bytes ─decode─▶ text ─html::parse─▶ Document ─┬─ emails   (mailto, text, Cloudflare, JSON-LD)
//!                                              ├─ phones   (tel:, text, JSON-LD; E.164)
//!                                              ├─ socials  (<a href>, sameAs)
//!                                              ├─ addresses (JSON-LD, microdata, text)
//!                                              ├─ company name
//!                                              └─ links    (for the crawl planner)
//! ```
//!
//! Framework state (Next.js, Nuxt, SvelteKit, Astro; `state.rs`) joins the JSON-LD values: the
//! JSON-LD inside it is read as JSON-LD, the values it holds under contact keys as structured
//! values.

pub mod address;
mod address_list;
mod ascii;
pub mod company;
mod dates;
pub mod decode;
pub mod emails;
pub mod entities;
pub mod html;
mod implied_ends;
pub mod js_literal;
pub mod jsonld;
mod language_postcodes;
pub mod limits;
mod map_links;
mod markup;
mod no_postcode;
pub mod page_budget;
pub mod phones;
mod postcode;
mod postcode_brackets;
mod postcode_order;
mod postcode_places;
mod prescan;
pub mod region;
pub mod sections;
mod skipped_ends;
pub mod socials;
pub mod state;
mod town_first;
mod unlabelled_address;
mod whitespace;
mod words8;

/// Most bytes of a page's contact lines read a second time for addresses with the region
/// decided from all the page's evidence (when the ccTLD and `lang` gave another): real contact
/// text is a few KiB; a crafted page of megabytes of address- or phone-shaped lines is read
/// once.
pub const MAX_SECOND_ADDRESS_READ_BYTES: usize = 256 * 1024;

use std::collections::{BTreeMap, BTreeSet};

use url::Url;

use crate::api::{ContactExtractionResult, PostalAddress, ResultMeta, SocialLinks, SourcedValue};
use crate::crawl::PageLink;
use crate::extract::address::MarkedAddress;
use crate::extract::address_list::{AddressList, Pushed};
use crate::extract::ascii::{after_web_scheme, starts_with_ignore_ascii_case};
use crate::extract::html::Document;
pub use crate::extract::html::ParseBuffers;
use crate::extract::limits::{first_distinct, MAX_ADDRESSES, MAX_EMAILS, MAX_PHONES, MAX_SOCIALS};
use crate::extract::page_budget::PageBudget;
use crate::extract::phones::RegionHint;
use crate::extract::socials::Network;
use crate::extract::words8::has_ascii_digits;
use crate::site::{region_from_host, registrable_domain, result_domain};

/// A decoded and parsed page, before its URL is settled.
pub struct ParsedPage {
    doc: Document,
    /// What reading the page may still copy and do: the [`PageBudget`] of its body as fetched
    /// (decompressed), charged by the parse and then by every reader of
    /// [`ParsedPage::extract`].
    budget: PageBudget,
}

/// What one page yields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageExtraction {
    /// The page's final URL (the `sourceUrl` of everything found on it).
    pub url: String,
    /// Emails, normalised, in order of appearance.
    pub emails: Vec<String>,
    /// Phones in E.164, in order of appearance; fax-only numbers left out.
    pub phones: Vec<String>,
    /// Social profiles, canonical, in order of appearance.
    pub socials: Vec<(Network, String)>,
    /// Addresses (without `sourceUrl`; it is [`PageExtraction::url`]).
    pub addresses: Vec<MarkedAddress>,
    /// The business name this page gives.
    pub company_name: Option<String>,
    /// The same-site links that may be crawl candidates (the crawl planner's input: a word of
    /// a [`crate::crawl::score_link`] keyword in their text or URL path), in document order,
    /// resolved against the page's base URL, http(s) only, fragments removed. Links to other
    /// sites, and links that name no contact, legal, about, support or privacy page, are left
    /// out: [`crate::crawl::plan`] gives the same plan as with every link.
    pub links: Vec<PageLink>,
    /// The page's region evidence and the numbers it could not read without a region, for
    /// the site's decision in [`merge`] (docs/extraction.md "Which country the page is in").
    pub region: region::PageRegion,
}

/// Decodes (charset per docs/contract.md) and parses a page. Never fails; unparseable bytes give
/// an empty page.
pub fn parse_page(content_type: Option<&str>, body: &[u8]) -> ParsedPage {
    parse_page_reusing(content_type, body, &mut ParseBuffers::default())
}

/// [`parse_page`], building in `buffers` (kept by a caller that parses many pages).
pub fn parse_page_reusing(
    content_type: Option<&str>,
    body: &[u8],
    buffers: &mut ParseBuffers,
) -> ParsedPage {
    let text = decode::decode_page(content_type, body);
    let budget = PageBudget::for_page(body.len());
    budget.work(body.len());
    ParsedPage {
        doc: html::parse_reusing(&text, buffers, &budget),
        budget,
    }
}

/// Most names of the business from the page's markup the attribution step compares blocks
/// with (a page listing many organisations gives no more evidence with more).
const MAX_BUSINESS_NAMES: usize = 8;

/// Decodes, parses and extracts one page fetched from `url`.
pub fn extract_page(url: &Url, content_type: Option<&str>, body: &[u8]) -> PageExtraction {
    parse_page(content_type, body).extract(url)
}

impl ParsedPage {
    /// The absolute URL the page declares for itself: `<link rel=canonical>`, then `og:url`,
    /// then an absolute `<base href>` with a path.
    pub fn declared_url(&self) -> Option<Url> {
        let og = self
            .doc
            .metas
            .iter()
            .find(|(k, _)| k == "og:url")
            .map(|(_, v)| v.as_str());
        let base = self.doc.base_href.as_deref();
        [self.doc.canonical.as_deref(), og, base]
            .into_iter()
            .flatten()
            .filter_map(|s| Url::parse(s.trim()).ok())
            .find(|u| matches!(u.scheme(), "http" | "https") && u.host_str().is_some())
    }

    /// What reading the page has left of its budget (and whether it bound: an ordinary page
    /// never runs out).
    pub fn budget(&self) -> &PageBudget {
        &self.budget
    }

    /// Runs every extractor, with `url` as the page's final URL.
    pub fn extract(&self, url: &Url) -> PageExtraction {
        let doc = &self.doc;
        // The links read once here: the passes below read each several times.
        let doc_links: Vec<html::Link<'_>> = doc.links.iter().collect();
        let base = doc
            .base_href
            .as_deref()
            .and_then(|b| url.join(b).ok())
            .filter(|b| matches!(b.scheme(), "http" | "https"))
            .unwrap_or_else(|| url.clone());
        // memchr's search, not `str::split`'s: the text is most of the page.
        let mut lines: Vec<&str> = Vec::new();
        let mut line_start = 0;
        for end in memchr::memchr_iter(b'\n', doc.text.as_bytes()) {
            lines.push(&doc.text[line_start..end]);
            line_start = end + 1;
        }
        lines.push(&doc.text[line_start..]);
        let line_starts: Vec<usize> = lines
            .iter()
            .scan(0usize, |pos, line| {
                let start = *pos;
                *pos += line.len() + 1;
                Some(start)
            })
            .collect();
        let budget = &self.budget;
        budget.work(doc.text.len());
        // JSON-LD and framework state expand what they read: they may spend half of what
        // the budget has left, the readers of the text after them keep the other half.
        let json_ld = budget.holding_back_half(|| {
            let mut json_ld = jsonld::read(&doc.json_ld, budget);
            if !doc.state.is_empty() {
                // JSON-LD inside framework state counts as JSON-LD; the values read by their
                // keys join the structured ones.
                let state = state::read(&doc.state, budget);
                json_ld.absorb(jsonld::read(&state.json_ld, budget));
                json_ld.absorb(state.values);
            }
            json_ld
        });
        // The names the page's markup gives the business: a block that names it is the
        // business's in the attribution step.
        let business_names: Vec<&str> = json_ld
            .org_names
            .iter()
            .chain(&doc.marked_org_names)
            .map(String::as_str)
            .chain(
                doc.metas
                    .iter()
                    .filter(|(k, _)| k == "og:site_name")
                    .map(|(_, v)| v.as_str()),
            )
            .take(MAX_BUSINESS_NAMES)
            .collect();
        // The sections of a legal notice (and credit lines) that name someone else than the
        // business: the host, the chamber, the web agency … (`sections.rs`); their phones,
        // emails and addresses are not the business's, so those lines read as empty.
        let site = url.host_str().map(crate::site::registrable_domain);
        let link_positions: Vec<(&str, usize)> = doc_links
            .iter()
            .map(|link| (link.href, link.text_pos))
            .collect();
        let third_party = sections::third_party_ranges(&sections::Layout {
            text: &doc.text,
            line_starts: &line_starts,
            headings: &doc.heading_ranges,
            heading_levels: &doc.heading_levels,
            footers: &doc.footer_ranges,
            block_starts: &doc.block_starts,
            links: &link_positions,
            site: site.as_deref(),
            mail_providers: emails::MAIL_PROVIDERS,
            business_names: &business_names,
        });
        let contact_lines: Vec<&str> = if third_party.is_empty() {
            lines.clone()
        } else {
            lines
                .iter()
                .zip(&line_starts)
                .map(|(line, start)| sections::own_part(&third_party, line, *start))
                .collect()
        };
        // The lines as the address readers read them: a postcode printed in parentheses
        // without them (`extract::postcode_brackets`: `(B1846) Adrogué`, `Rouen (76000)`).
        let unbracketed =
            postcode_brackets::unbracketed_lines(&doc.text, &line_starts, &contact_lines);
        let with_unbracketed: Vec<&str>;
        let address_lines: &[&str] = if unbracketed.is_empty() {
            &contact_lines
        } else {
            let mut lines = contact_lines.clone();
            for (i, line) in &unbracketed {
                lines[*i] = line;
            }
            with_unbracketed = lines;
            &with_unbracketed
        };
        let host = url.host_str().unwrap_or("");
        let tld_region = region_from_host(host);
        let lang_region = lang_region(doc.lang.as_deref()).map(|(r, _)| r);
        let address_region = tld_region.or(lang_region.filter(|r| *r != "US"));
        // The text readers whose charge per item is far above its bytes (a line the
        // postcode patterns run on, an `@`) run holding back half of what is left, like
        // JSON-LD above: a page of address-shaped lines or of `@`s still has its phones,
        // links and name read (structured phones first, then the text's).
        let (text_addresses, meta_address, hint, mut page_region) =
            budget.holding_back_half(|| {
                let mut text_addresses = address::from_lines(address_lines, address_region, budget);
                // Postcodes of the other countries of the page's language on a host without a
                // ccTLD (`extract::language_postcodes`: `1060 Wien` on a German `.com` page);
                // those of one country alone are evidence of the page's.
                let language = doc
                    .lang
                    .as_deref()
                    .and_then(|l| l.split(['-', '_']).next())
                    .unwrap_or("");
                let other_countries = match tld_region {
                    None => language_postcodes::read(
                        address_lines,
                        language,
                        address_region,
                        &text_addresses,
                        budget,
                    ),
                    Some(_) => Vec::new(),
                };
                let with_other_countries: Vec<address::TextAddress>;
                let printed = if other_countries.iter().any(|c| c.unique) {
                    with_other_countries = text_addresses
                        .iter()
                        .chain(
                            other_countries
                                .iter()
                                .filter(|c| c.unique)
                                .map(|c| &c.address),
                        )
                        .cloned()
                        .collect();
                    &with_other_countries
                } else {
                    &text_addresses
                };
                // The Open Graph contact metas read as a marked-up address.
                let meta_address =
                    address::from_metas(doc.metas.iter().map(|(k, v)| (k.as_str(), v.as_str())));
                let ballot = region_hint(
                    (doc, &doc_links),
                    &json_ld,
                    meta_address.as_ref(),
                    printed,
                    tld_region,
                    &contact_lines,
                );
                let hint = ballot.decide();
                let page_region = region::PageRegion {
                    ballot,
                    confident: hint.confident,
                    unread: Vec::new(),
                };
                // The region decided from all the evidence (`extract::region`: calling codes,
                // currencies…) chooses the postcode patterns when the ccTLD and `lang` gave
                // another or none (a `.com` page in India or Brazil); kept when it reads as many
                // addresses or more. The second read costs what the first did, so it is made only
                // on a text of at most [`MAX_SECOND_ADDRESS_READ_BYTES`].
                let lines_bytes: usize = contact_lines.iter().map(|line| line.len() + 1).sum();
                if let Some(decided) = hint
                    .region
                    .filter(|_| !hint.weak && lines_bytes <= MAX_SECOND_ADDRESS_READ_BYTES)
                {
                    let decided = format!("{decided:?}");
                    if address_region != Some(decided.as_str()) {
                        let again = address::from_lines(address_lines, Some(&decided), budget);
                        if !again.is_empty() && again.len() >= text_addresses.len() {
                            text_addresses = again;
                        }
                    }
                }
                // Addresses printed in the other order than their country's layout
                // (`extract::postcode_order`), on the lines the reader found none on.
                let order_region = address_region
                    .map(str::to_string)
                    .or_else(|| hint.region.filter(|_| !hint.weak).map(|r| format!("{r:?}")));
                let other_order = postcode_order::read(
                    address_lines,
                    order_region.as_deref(),
                    &text_addresses,
                    budget,
                );
                text_addresses.extend(other_order);
                for choice in other_countries {
                    if !text_addresses.iter().any(|a| a.line == choice.address.line) {
                        text_addresses.push(choice.address);
                    }
                }
                (text_addresses, meta_address, hint, page_region)
            });

        let emails = budget.holding_back_half(|| {
            collect_emails(
                (doc, &doc_links),
                &json_ld,
                (&contact_lines, &line_starts),
                &third_party,
                site.as_deref(),
                budget,
            )
        });
        let phones = collect_phones(
            (doc, &doc_links),
            &json_ld,
            (&contact_lines, &line_starts),
            &third_party,
            hint,
            budget,
            &mut page_region.unread,
        );
        // The business's profile links (not the site makers' in and under a credit), then
        // JSON-LD `sameAs`.
        let linked = socials::business_profiles(
            doc_links
                .iter()
                .take_while(|l| budget.work(l.href.len() + 64))
                .map(|l| (l.href, l.text, l.in_footer, l.text_pos)),
            &doc.text,
            &third_party,
            &line_starts,
        );
        let socials = first_distinct(
            linked
                .into_iter()
                .map(|(_, network, url)| (network, url))
                .chain(
                    json_ld
                        .same_as
                        .iter()
                        .filter_map(|url| socials::classify(url)),
                ),
            MAX_SOCIALS,
            |(_, url)| url.to_ascii_lowercase(),
        );
        let mut addresses = AddressList::new(MAX_ADDRESSES);
        let structured = json_ld
            .addresses
            .iter()
            .chain(&doc.marked_addresses)
            .chain(&meta_address)
            .filter(|a| address::locates(a))
            .cloned()
            .map(address::with_marked_street);
        // An address given as one string is read with the ccTLD's region, else the one the
        // page's evidence decides (`extract::region`: a `.com` page in Brazil or India).
        let decided = hint.region.filter(|_| !hint.weak).map(|r| format!("{r:?}"));
        let string_region = tld_region.or(decided.as_deref());
        let from_strings = json_ld
            .address_strings
            .iter()
            .flat_map(|s| address::from_lines(&[s.as_str()], string_region, budget))
            .map(|a| a.parts);
        for candidate in structured
            .chain(from_strings)
            .chain(text_addresses.into_iter().map(|a| a.parts))
        {
            addresses.push(split_run_on(trim_address(candidate), tld_region, budget));
        }
        // A page that gives no address with a postcode may print one without
        // (`extract::no_postcode`).
        let layout = no_postcode::Layout {
            line_starts: &line_starts,
            block_starts: &doc.block_starts,
            address_ranges: &doc.address_ranges,
        };
        if addresses.is_empty() {
            for found in no_postcode::read(address_lines, &layout, string_region, budget) {
                addresses.push(trim_address(found));
            }
        }
        // Nor under a label: a short block that is nothing but an address
        // (`extract::unlabelled_address`); beside an address found above, only one that prints
        // its country (a second address needs the strongest evidence) and is no part of one
        // found (the same address printed again in part).
        let found_before = !addresses.is_empty();
        for found in unlabelled_address::read(address_lines, &layout, string_region, budget) {
            let new = !found_before
                || (found.country.is_some()
                    && !unlabelled_address::repeats(found.street.as_deref(), addresses.streets()));
            if new {
                addresses.push(trim_address(found));
            }
        }
        // Nor one without: the place its map links and embeds show (`extract::map_links`).
        if addresses.is_empty() {
            let hrefs = doc_links.iter().map(|link| link.href);
            let frames = doc.frame_sources.iter().map(String::as_str);
            for found in map_links::read(hrefs, frames, string_region, budget) {
                addresses.push(trim_address(found));
            }
        }
        let structured_names: Vec<String> = json_ld
            .org_names
            .iter()
            .chain(&doc.marked_org_names)
            .cloned()
            .collect();
        let meta = |key: &str| {
            doc.metas
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str())
        };
        let registrable = registrable_domain(host);
        let domain_label = registrable.split('.').next().unwrap_or("");
        let mut resolver = LinkResolver {
            base: &base,
            host,
            registrable: &registrable,
            resolved: BTreeMap::new(),
        };
        // A page has hundreds of links and a few crawl candidates: a link whose path is plain
        // to see (`written_path`) and holds no crawl keyword, nor its text, is not resolved.
        let plain_base = matches!(base.scheme(), "http" | "https");
        let mut path = String::new();
        let mut links: Vec<PageLink> = Vec::new();
        // Links to the homepage outside the footer: the header logo is one of them, and its
        // text is the logo's `alt` (`Sample Legal LLC - Injury Lawyers …`).
        let mut home_link_texts: Vec<&str> = Vec::new();
        // The last href whose written path was asked about, with the answer: a page often
        // links one page twice in a row (its image, then its title).
        let mut last_asked: Option<(&str, bool)> = None;
        for link in &doc_links {
            // Charged to the budget (which paces the work, `crate::pace`): resolving a link is
            // about a microsecond.
            if is_not_a_page(link.href) || !budget.work(link.href.len() + 256) {
                continue;
            }
            // A link written with another site's host is never kept (`resolve_on_site`): its
            // path and text are not read for a keyword (a sixth of a page's links).
            if is_written_off_site(link.href, host, &registrable) {
                continue;
            }
            let may_be_home = !link.in_footer && !link.text.is_empty();
            let may_hold_keyword = |path: &str| {
                crate::crawl::may_hold_keyword(path) || crate::crawl::may_hold_keyword(link.text)
            };
            // Whether the link may be a candidate, when its path is plain to see.
            let mut candidate = None;
            if let Some(has_query) =
                written_path(&base, link.href, &mut path).filter(|_| plain_base)
            {
                let home = may_be_home && !has_query && is_home_path(&path);
                let path_may = match last_asked {
                    Some((href, may)) if href == link.href => may,
                    _ => crate::crawl::may_hold_keyword(&path),
                };
                last_asked = Some((link.href, path_may));
                let may = path_may || crate::crawl::may_hold_keyword(link.text);
                if !home && !may {
                    continue;
                }
                candidate = Some(may);
            }
            let Some(url) = resolver.resolve(link.href) else {
                continue;
            };
            if may_be_home && is_home_path(url.path()) && url.query().is_none() {
                home_link_texts.push(link.text);
            }
            if candidate.unwrap_or_else(|| may_hold_keyword(url.path())) {
                links.push(PageLink {
                    url,
                    text: link.text.to_string(),
                    in_footer: link.in_footer,
                });
            }
        }
        let company_name = company::company_name(&company::NameSources {
            structured: &structured_names,
            og_site_name: meta("og:site_name"),
            application_name: meta("application-name").or(meta("apple-mobile-web-app-title")),
            title: doc.title.as_deref(),
            text: &doc.text,
            others: &third_party,
            domain_label,
            home_link_texts: &home_link_texts,
            budget,
        });
        PageExtraction {
            url: url.to_string(),
            emails,
            phones,
            socials,
            addresses: addresses.into_entries(),
            company_name,
            links,
            region: page_region,
        }
    }
}

/// Resolves a page's hrefs against its base URL, keeping only http(s) links to the page's
/// site (its host or registrable domain), without fragment. A page repeats most of its
/// same-site hrefs (header, footer, cards): each distinct href is resolved once.
struct LinkResolver<'p> {
    base: &'p Url,
    /// The page's host.
    host: &'p str,
    /// The registrable domain of `host`.
    registrable: &'p str,
    /// Resolved hrefs (`None`: not a link to keep).
    resolved: BTreeMap<&'p str, Option<Url>>,
}

impl<'p> LinkResolver<'p> {
    fn resolve(&mut self, href: &'p str) -> Option<Url> {
        let (base, host, registrable) = (self.base, self.host, self.registrable);
        self.resolved
            .entry(href)
            .or_insert_with(|| resolve_on_site(base, host, registrable, href))
            .clone()
    }
}

/// `href` resolved against `base` if it is an http(s) link to `host` or another host of
/// `registrable` (its registrable domain), without fragment.
fn resolve_on_site(base: &Url, host: &str, registrable: &str, href: &str) -> Option<Url> {
    // Links to other sites are common (shares, ads, partners): compare their host as written
    // before paying for URL parsing.
    if let Some(other) = written_host(href) {
        if !other.eq_ignore_ascii_case(host) && registrable_domain(other) != registrable {
            return None;
        }
    }
    let mut resolved = base.join(href).ok()?;
    let on_site = resolved
        .host_str()
        .is_some_and(|h| h.eq_ignore_ascii_case(host) || registrable_domain(h) == registrable);
    if !matches!(resolved.scheme(), "http" | "https") || !on_site {
        return None;
    }
    resolved.set_fragment(None);
    Some(resolved)
}

/// Whether `href` is written with a host that [`resolve_on_site`] finds on another site than
/// `host`'s (`registrable`, lower-case): neither `host` nor ending in `registrable`, which the
/// registrable domain of a host is a suffix of (lower-cased); no public-suffix look-up.
fn is_written_off_site(href: &str, host: &str, registrable: &str) -> bool {
    // Most links written with a host are written with the page's own: a comparison of their
    // heads answers them, before the authority is scanned.
    let Some(rest) = after_web_scheme(href) else {
        return false;
    };
    let written_with_host = rest
        .as_bytes()
        .get(..host.len())
        .is_some_and(|head| head.eq_ignore_ascii_case(host.as_bytes()))
        && matches!(
            rest.as_bytes().get(host.len()),
            None | Some(b'/' | b'?' | b'#')
        );
    !written_with_host
        && written_host(href).is_some_and(|other| {
            !other.eq_ignore_ascii_case(host)
                && !other
                    .len()
                    .checked_sub(registrable.len())
                    .and_then(|at| other.as_bytes().get(at..))
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(registrable.as_bytes()))
        })
}

/// The host of an absolute or scheme-relative http(s) href, as written (`None` for relative
/// hrefs).
fn written_host(href: &str) -> Option<&str> {
    let rest = after_web_scheme(href)?;
    // Byte scans: the bytes that end the authority, `@` and `:` are ASCII (a `str` searcher
    // set up for each would cost more than the few bytes of a host).
    let end = rest
        .bytes()
        .position(|b| matches!(b, b'/' | b'?' | b'#'))
        .unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = match authority.bytes().rposition(|b| b == b'@') {
        Some(at) => &authority[at + 1..],
        None => authority,
    };
    // Strip a port, but not from a bracketed IPv6 literal.
    let host = match host.bytes().rposition(|b| b == b':') {
        Some(colon) if !host.ends_with(']') => &host[..colon],
        _ => host,
    };
    Some(host.trim_end_matches('.'))
}

/// Whether a URL path is the homepage's: `/` or `/index.…`.
fn is_home_path(path: &str) -> bool {
    path == "/" || path.starts_with("/index.")
}

/// The path `href` resolves to against `base` (an http(s) URL), written into `path`, and
/// whether the resolved URL has a query; `None` unless the path is plain to see without URL
/// parsing (WHATWG URL Standard, "basic URL parser"): an absolute path (`/a/b`), a path
/// relative to the base's directory (`b.html`), a query or fragment alone (the base's path),
/// or an http(s) or scheme-relative URL with a host (`https://host/a`, `//host/a`). Not plain:
/// bytes the parser percent-encodes, drops (tab, new line, spaces around) or reads as `/`
/// (`\`), dot segments (`.`, `..`, `%2e`), a first segment that may be a scheme (`x:y`).
fn written_path(base: &Url, href: &str, path: &mut String) -> Option<bool> {
    let end = memchr::memchr2(b'?', b'#', href.as_bytes()).unwrap_or(href.len());
    let written = &href[..end];
    let has_query = href.as_bytes().get(end) == Some(&b'?');
    /// Bytes the parser copies into a path as they are (RFC 3986 `pchar` and `/`): `PLAIN`;
    /// `.` and `%` are `LOOK`, plain or not by what is around them; the others are 0.
    const PLAIN: u8 = 1;
    const LOOK: u8 = 2;
    const CLASS: [u8; 256] = {
        let mut class = [0; 256];
        let mut b = 0;
        while b < 256 {
            if (b as u8).is_ascii_alphanumeric() {
                class[b] = PLAIN;
            }
            b += 1;
        }
        let others = b"-_~!$&'()*+,;=:@/";
        let mut at = 0;
        while at < others.len() {
            class[others[at] as usize] = PLAIN;
            at += 1;
        }
        class[b'.' as usize] = LOOK;
        class[b'%' as usize] = LOOK;
        class
    };
    // One pass: only bytes the parser copies as they are, and no dot segment (a `.` that
    // starts a segment, or `%2e`). One table look-up per byte: hrefs are read whole on
    // every page.
    let bytes = written.as_bytes();
    for (at, &b) in bytes.iter().enumerate() {
        if CLASS[usize::from(b)] == PLAIN {
            continue;
        }
        let plain = match b {
            b'.' => at > 0 && bytes[at - 1] != b'/',
            b'%' => !bytes
                .get(at + 1..at + 3)
                .is_some_and(|hex| hex.eq_ignore_ascii_case(b"2e")),
            _ => false,
        };
        if !plain {
            return None;
        }
    }
    path.clear();
    if let Some(rest) = after_web_scheme(written) {
        // No host: `http:///host` reads `host` as the host.
        if rest.is_empty() || rest.starts_with('/') {
            return None;
        }
        path.push_str(rest.find('/').map_or("/", |at| &rest[at..]));
        return Some(has_query);
    }
    if written.starts_with('/') {
        path.push_str(written);
        return Some(has_query);
    }
    if written.is_empty() {
        path.push_str(base.path());
        // A fragment alone keeps the base's query.
        return Some(has_query || base.query().is_some());
    }
    if written
        .split('/')
        .next()
        .is_some_and(|first| first.contains(':'))
    {
        return None;
    }
    let base_path = base.path();
    path.push_str(&base_path[..base_path.rfind('/').map_or(0, |at| at + 1)]);
    path.push_str(written);
    Some(has_query)
}

/// Hrefs that never lead to a page (skipped before URL parsing).
fn is_not_a_page(href: &str) -> bool {
    href.is_empty()
        || href.starts_with('#')
        || [
            "mailto:",
            "tel:",
            "javascript:",
            "callto:",
            "data:",
            "sms:",
            "skype:",
            "whatsapp:",
        ]
        .iter()
        .any(|scheme| starts_with_ignore_ascii_case(href, scheme))
}

/// The page's emails, from the document and its links (as [`html::Links::iter`] reads
/// them); `third_party`: text ranges whose `mailto:` links and protected addresses
/// are someone else's (`sections.rs`; `lines` has those parts blanked already); `site`: the
/// page's registrable domain (an address spelled with the word "at" counts only on it or at a
/// mail provider: `emails::from_text`).
fn collect_emails(
    (doc, links): (&Document, &[html::Link<'_>]),
    json_ld: &jsonld::JsonLdData,
    (lines, line_starts): (&[&str], &[usize]),
    third_party: &[std::ops::Range<usize>],
    site: Option<&str>,
    budget: &PageBudget,
) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    // `mailto:` targets under a link that shows an address of another domain (`<a
    // href="mailto:dev@gmail.com">info@acme.pl</a>`, a web developer's test address left
    // behind): decided below.
    let mut behind_other: Vec<(usize, String)> = Vec::new();
    for link in links
        .iter()
        .filter(|link| !sections::link_inside(third_party, &doc.text, link.text_pos, link.text))
    {
        let mailto = emails::from_mailto(link.href, site, budget);
        if mailto.is_empty() {
            continue;
        }
        let shown = emails::normalise(link.text.trim(), site);
        let domain_of = |email: &str| email.rsplit_once('@').map(|(_, d)| d.to_string());
        for email in mailto {
            // Another address of the same domain is the business's too (a slip between two
            // colleagues' addresses).
            if shown
                .as_ref()
                .is_some_and(|shown| domain_of(shown) != domain_of(&email))
            {
                behind_other.push((link.text_pos, email));
            } else {
                found.push((link.text_pos, email));
            }
        }
    }
    // Only lines with an `@` or an at-token are read (one pass over the whole text).
    let mut candidate_lines: Vec<usize> = emails::candidate_positions(&doc.text)
        .into_iter()
        .map(|pos| {
            line_starts
                .partition_point(|start| *start <= pos)
                .saturating_sub(1)
        })
        .collect();
    candidate_lines.dedup();
    for index in candidate_lines {
        if let (Some(line), Some(start)) = (lines.get(index), line_starts.get(index)) {
            for (offset, email) in emails::from_text(line, site, budget) {
                found.push((start + offset, email));
            }
        }
    }
    for (pos, hex) in doc
        .cf_emails
        .iter()
        .filter(|(pos, _)| !sections::inside(third_party, *pos))
    {
        if let Some(email) = emails::from_cloudflare(hex, site) {
            found.push((*pos, email));
        }
    }
    // Such a target counts when the page shows it elsewhere, it is on the site's own domain, or
    // it is the owner's other mailbox (`emails::owners_other_mailbox`); else it is someone
    // else's. One ordered-set look-up each: a scan of every address found per target made a
    // crafted page quadratic; the page is searched for at most
    // [`MAX_OTHER_MAILBOX_DOMAINS`] domains.
    if !behind_other.is_empty() {
        let shown: BTreeSet<&str> = found.iter().map(|(_, email)| email.as_str()).collect();
        let mut searched: Vec<String> = Vec::new();
        let mut owners: BTreeSet<String> = BTreeSet::new();
        let mut kept: Vec<(usize, String)> = Vec::new();
        for (pos, email) in behind_other.into_iter().take_while(|_| budget.work(64)) {
            if shown.contains(email.as_str()) || emails::on_site(&email, site) {
                kept.push((pos, email));
                continue;
            }
            let Some(domain) = email.rsplit_once('@').map(|(_, d)| registrable_domain(d)) else {
                continue;
            };
            if !searched.contains(&domain) {
                if searched.len() >= MAX_OTHER_MAILBOX_DOMAINS
                    || !budget.work(doc.text.len() + 64 * links.len())
                {
                    continue;
                }
                let linked = || {
                    links.iter().any(|link| {
                        written_host(link.href)
                            .is_some_and(|host| registrable_domain(host) == domain)
                    })
                };
                if emails::owners_other_mailbox(&domain, &doc.text) && !linked() {
                    owners.insert(domain.clone());
                }
                searched.push(domain.clone());
            }
            if owners.contains(&domain) {
                kept.push((pos, email));
            }
        }
        found.extend(kept);
    }
    let structured_pos = usize::MAX;
    for value in json_ld.emails.iter().chain(&doc.marked_emails) {
        let value = value.trim_start_matches("mailto:");
        if let Some(email) = emails::normalise(value, site) {
            found.push((structured_pos, email));
        }
    }
    // Stable: values at one position keep the order they were found in.
    found.sort_by_key(|(pos, _)| *pos);
    first_distinct(found.into_iter().map(|(_, email)| email), MAX_EMAILS, |e| {
        e.clone()
    })
}

/// Most distinct domains of `mailto:` targets behind another domain's address that the page
/// is searched for (`collect_emails`); the targets on further domains are left out.
const MAX_OTHER_MAILBOX_DOMAINS: usize = 4;

/// The page's phones in E.164, from the document and its links (as [`html::Links::iter`]
/// reads them); `third_party`: text ranges whose `tel:` links are someone
/// else's (`sections.rs`; `lines` has those parts blanked already). When `hint` is not
/// confident, the lines and national `tel:` numbers that gave nothing are kept in `unread`
/// (`region::PageRegion`) for the site's decision in [`merge`].
fn collect_phones(
    (doc, links): (&Document, &[html::Link<'_>]),
    json_ld: &jsonld::JsonLdData,
    (lines, line_starts): (&[&str], &[usize]),
    third_party: &[std::ops::Range<usize>],
    hint: RegionHint,
    budget: &PageBudget,
    unread: &mut Vec<String>,
) -> Vec<String> {
    let mut keep_unread = |line: &str| {
        if !hint.confident && unread.len() < region::MAX_UNREAD {
            let end = (0..=region::MAX_UNREAD_LINE.min(line.len()))
                .rev()
                .find(|i| line.is_char_boundary(*i))
                .unwrap_or(0);
            unread.push(line[..end].to_string());
        }
    };
    let mut found: Vec<(usize, phones::FoundPhone)> = Vec::new();
    // Structured values first (the most trusted source, and bounded), so a page whose links
    // and text use up its libphonenumber allowance still has them judged; the order found
    // is sorted by position below.
    let mut judgements = phones::Judgements::per_page();
    for value in json_ld.telephones.iter().chain(&doc.marked_phones) {
        if let Some(e164) = phones::from_structured(value, hint, &mut judgements, budget) {
            found.push((usize::MAX, phones::FoundPhone { e164, fax: false }));
        }
    }
    for link in links
        .iter()
        .filter(|link| !sections::link_inside(third_party, &doc.text, link.text_pos, link.text))
    {
        if !budget.work(link.href.len() + 64) {
            break;
        }
        let from_tel = phones::from_tel(link.href, link.text, hint, &mut judgements, budget);
        if from_tel.is_empty() {
            if let Some(national) = phones::national_of_tel(link.href) {
                keep_unread(&format!("tel: {national}"));
            }
        }
        for phone in from_tel {
            found.push((link.text_pos, phone));
        }
        if let Some(phone) = phones::from_whatsapp(link.href, &mut judgements) {
            found.push((link.text_pos, phone));
        }
    }
    let mut previous = "";
    // Arabic-Indic digits read as ASCII ones (offsets into `line` keep their order), on a page
    // that prints any (one search of its text).
    let arabic_indic = phones::holds_arabic_indic_digits(&doc.text);
    for (printed, start) in lines.iter().zip(line_starts) {
        if !budget.work(printed.len() + 1) {
            break;
        }
        let line = if arabic_indic {
            phones::with_ascii_digits(printed)
        } else {
            std::borrow::Cow::Borrowed(*printed)
        };
        let line = line.as_ref();
        if has_ascii_digits(line.as_bytes(), 7) {
            let identifier_above = phones::ends_in_identifier_label(previous);
            let numbers = phones::from_text(line, hint, &mut judgements, budget);
            if numbers.is_empty() && !identifier_above {
                keep_unread(line);
            }
            for (offset, phone) in numbers {
                // `Steuernummer:` on the line above, the number first on this one.
                let opens_line = !line[..offset].chars().any(char::is_alphabetic);
                if !(identifier_above && opens_line) {
                    found.push((start + offset, phone));
                }
            }
        }
        previous = printed;
    }
    found.sort_by_key(|(pos, _)| *pos);
    // A number printed only as a fax is left out; one also given as a voice line is kept at
    // its first position.
    let voice: BTreeSet<&str> = found
        .iter()
        .filter(|(_, p)| !p.fax)
        .map(|(_, p)| p.e164.as_str())
        .collect();
    phones::without_mobile_twins(
        first_distinct(
            found
                .iter()
                .map(|(_, p)| p.e164.as_str())
                .filter(|e164| voice.contains(e164)),
            MAX_PHONES,
            |e164| *e164,
        )
        .into_iter()
        .map(str::to_string)
        .collect(),
    )
}

/// Whether `href` holds `wa.me/` or `whatsapp` (a WhatsApp click-to-chat link, read for its
/// calling code), case as written: every link of a page is asked, so only the text at each
/// `w` is compared, not the whole link twice.
fn names_whatsapp(href: &str) -> bool {
    let bytes = href.as_bytes();
    memchr::memchr_iter(b'w', bytes)
        .any(|at| bytes[at..].starts_with(b"wa.me/") || bytes[at..].starts_with(b"whatsapp"))
}

/// Most international numbers in the page's text whose calling code is read as evidence.
const MAX_TEXT_CALLING_CODES: usize = 4;
/// Most distinct international `tel:`/WhatsApp links, and most JSON-LD `telephone` values,
/// whose calling code is read as evidence.
const MAX_LINK_CALLING_CODES: usize = 4;
/// Most address lines ending with a country's name read as evidence.
const MAX_PRINTED_COUNTRIES: usize = 4;
/// Most currencies read as evidence.
const MAX_CURRENCIES: usize = 3;
/// Most writing systems read as evidence.
const MAX_SCRIPTS: usize = 2;
/// Most national numbers (`tel:` links, JSON-LD `telephone`) tried in the candidate regions.
const MAX_NATIONAL_NUMBERS: usize = 2;

/// The page's region for phone parsing: one decision from weighted evidence
/// ([`region::Ballot`]): JSON-LD/microdata/Open Graph address countries (names or ISO codes), the
/// countries of addresses printed on the page, the ccTLD, the calling codes of international
/// numbers (`tel:` and WhatsApp links, JSON-LD `telephone`, `+…` in the contact lines),
/// `geo.region`, currencies, `<html lang>`. The printed international numbers and the
/// currencies are read only on pages without a structured country, a printed address or a
/// ccTLD. `links`: the document's links as [`html::Links::iter`] reads them.
fn region_hint(
    (doc, links): (&Document, &[html::Link<'_>]),
    json_ld: &jsonld::JsonLdData,
    meta_address: Option<&MarkedAddress>,
    text_addresses: &[address::TextAddress],
    tld_region: Option<&'static str>,
    lines: &[&str],
) -> region::Ballot {
    use region::Source;
    let mut ballot = region::Ballot::default();
    for country in json_ld
        .addresses
        .iter()
        .chain(&doc.marked_addresses)
        .chain(meta_address)
        .filter_map(|a| a.country.as_deref())
    {
        match address::region_of_country(country) {
            Some(code) => ballot.vote(code, Source::Structured),
            None if country.trim().len() == 2 => ballot.vote(country, Source::Structured),
            None => {}
        }
    }
    for a in text_addresses {
        let source = if matches!(a.region, "US" | "CA" | "AU") {
            Source::PrintedWithState
        } else {
            Source::Printed
        };
        ballot.vote(a.region, source);
    }
    if let Some(tld) = tld_region {
        ballot.vote(tld, Source::Tld);
    }
    let code = |r: rlibphonenumber::Region| format!("{r:?}");
    // Each read is a libphonenumber parse (about a hundred thousand instructions): the first
    // few distinct links, JSON-LD values and printed numbers are enough evidence.
    let mut seen: Vec<&str> = Vec::new();
    for link in links {
        if seen.len() >= MAX_LINK_CALLING_CODES {
            break;
        }
        let href = link.href;
        let international = href
            .get(..4)
            .is_some_and(|s| s.eq_ignore_ascii_case("tel:"))
            && href.contains('+')
            || names_whatsapp(href);
        if !international || seen.contains(&href) {
            continue;
        }
        seen.push(href);
        if let Some(r) = phones::region_of_tel(href).or_else(|| phones::region_of_whatsapp(href)) {
            ballot.vote(&code(r), Source::CallingCode);
        }
    }
    for number in json_ld.telephones.iter().take(MAX_LINK_CALLING_CODES) {
        if let Some(r) = phones::region_of_international(number) {
            ballot.vote(&code(r), Source::CallingCode);
        }
    }
    // The evidence that costs a pass over the text (printed international numbers, currencies)
    // is read only when no structured country, printed address or ccTLD (weight 4 or more)
    // has been found: on most pages it could not change the decision.
    if ballot.strongest() >= Source::Tld.weight() {
        add_weak_evidence(doc, &mut ballot);
        return ballot;
    }
    // A country's name ending an address line (`…, Lima, Perú`): the country a `.com` page's
    // address is in when its postcode is not one of the hand-read patterns, or it has none.
    for country in lines
        .iter()
        .filter_map(|line| no_postcode::country_ending_address_line(line))
        .take(MAX_PRINTED_COUNTRIES)
    {
        ballot.vote(country, Source::PrintedCountry);
    }
    let mut text_numbers = 0;
    'lines: for line in lines {
        for (i, _) in line.match_indices('+') {
            if text_numbers >= MAX_TEXT_CALLING_CODES {
                break 'lines;
            }
            if !line[i + 1..].starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            text_numbers += 1;
            if let Some(r) = phones::region_of_international(&line[i..]) {
                ballot.vote(&code(r), Source::CallingCode);
            }
        }
    }
    for currency in region::currencies(&doc.text, MAX_CURRENCIES) {
        ballot.vote(currency, Source::Currency);
    }
    for script in region::scripts(&doc.text, MAX_SCRIPTS) {
        ballot.vote(script, Source::Script);
    }
    add_weak_evidence(doc, &mut ballot);
    // A national number valid in exactly one candidate region: the regions named so far and
    // the countries of the page's language.
    let language = doc
        .lang
        .as_deref()
        .and_then(|l| l.split(['-', '_']).next())
        .unwrap_or("");
    let mut candidates: Vec<String> = ballot.regions().into_iter().map(str::to_string).collect();
    for r in region::language_regions(language) {
        if !candidates.iter().any(|c| c == r) {
            candidates.push((*r).to_string());
        }
    }
    let candidates: Vec<&str> = candidates.iter().map(String::as_str).collect();
    let mut nationals: Vec<&str> = Vec::new();
    let tels = links.iter().filter_map(|l| phones::national_of_tel(l.href));
    let structured = json_ld
        .telephones
        .iter()
        .map(|t| t.trim())
        .filter(|t| !t.starts_with('+') && !t.starts_with("00"));
    for number in tels.chain(structured) {
        if nationals.len() >= MAX_NATIONAL_NUMBERS {
            break;
        }
        if !nationals.contains(&number) {
            nationals.push(number);
        }
    }
    for number in nationals {
        if let Some(r) = phones::only_region(number, &candidates) {
            ballot.vote(r, Source::NationalNumber);
        }
    }
    ballot
}

/// The evidence of where the page is published from: `geo.region` and `<html lang>`.
fn add_weak_evidence(doc: &Document, ballot: &mut region::Ballot) {
    use region::Source;
    if let Some((_, geo)) = doc.metas.iter().find(|(k, _)| k == "geo.region") {
        if let Some(code) = geo.get(..2) {
            ballot.vote(code, Source::GeoMeta);
        }
    }
    if let Some((region, subtag)) = lang_region(doc.lang.as_deref()) {
        ballot.vote(
            region,
            if subtag {
                Source::LangRegion
            } else {
                Source::Language
            },
        );
    }
}

/// The region of a `lang` value and whether it is its region subtag: `en-GB` → (GB, true), or
/// the main country of its language ([`region::main_country`]: `nl` → (NL, false), `nb` →
/// NO…). Plain `en` gives none.
fn lang_region(lang: Option<&str>) -> Option<(&'static str, bool)> {
    let lang = lang?.to_ascii_lowercase();
    let mut parts = lang.split(['-', '_']);
    let language = parts.next()?;
    if let Some(region) = parts.next().filter(|r| r.len() == 2) {
        return region_from_host(&format!("x.{region}"))
            .or(match region {
                "gb" => Some("GB"),
                _ => None,
            })
            .map(|r| (r, true));
    }
    let main = region::main_country(language);
    main.map(|r| (r, false))
}

/// A marked-up address whose street holds the whole address (`Heron House, Quarry Way,
/// Anytown, Cheshire, SK9 9ZZ` with no other part) is split by the text patterns.
fn split_run_on(a: MarkedAddress, region: Option<&str>, budget: &PageBudget) -> MarkedAddress {
    if a.postal_code.is_some() || a.locality.is_some() {
        return a;
    }
    let Some(street) = a.street.as_deref() else {
        return a;
    };
    match address::from_lines(&[street], region, budget)
        .into_iter()
        .next()
    {
        Some(found) => MarkedAddress {
            country: found.parts.country.or(a.country),
            ..found.parts
        },
        None => a,
    }
}

fn trim_address(a: MarkedAddress) -> MarkedAddress {
    let t = |s: Option<String>| {
        s.map(|v| v.trim().trim_matches(',').trim().to_string())
            .filter(|v| !v.is_empty())
    };
    MarkedAddress {
        street: t(a.street),
        locality: t(a.locality),
        region: t(a.region),
        postal_code: t(a.postal_code),
        country: t(a.country),
    }
}

/// The site's phones in page order, each with its page's URL: every page's own, then (for a
/// page whose own region decision was not confident) the numbers of its unread lines read in
/// the site's region, decided on all pages' evidence together ([`region::Ballot::absorb`]:
/// the home page's address decides for the contact page that has none). Argentine mobiles'
/// fixed-line twins are left out ([`phones::without_mobile_twins`]).
fn phones_with_site_region(pages: &[PageExtraction]) -> Vec<(String, &String)> {
    let mut site = region::Ballot::default();
    for page in pages {
        site.absorb(&page.region.ballot);
    }
    let hint = site.decide();
    let mut judgements = phones::Judgements::per_page();
    // The lines kept unread are few and short (`region::MAX_UNREAD` of at most
    // `region::MAX_UNREAD_LINE` bytes a page): they are read again within a budget of their size.
    let unread_bytes = pages
        .iter()
        .flat_map(|page| &page.region.unread)
        .map(|line| line.len() + 1)
        .sum();
    let budget = PageBudget::for_page(unread_bytes);
    let mut out: Vec<(String, &String)> = Vec::new();
    for page in pages {
        out.extend(page.phones.iter().map(|n| (n.clone(), &page.url)));
        if page.region.confident || !hint.confident {
            continue;
        }
        for line in &page.region.unread {
            for (_, phone) in phones::from_text(line, hint, &mut judgements, &budget) {
                if !phone.fax {
                    out.push((phone.e164, &page.url));
                }
            }
        }
    }
    let kept = phones::without_mobile_twins(out.iter().map(|(n, _)| n.clone()).collect());
    out.retain(|(n, _)| kept.contains(n));
    out
}

/// Site-level facts the merge needs besides the pages.
pub struct SiteInfo<'a> {
    /// The submitted URL string, as given (`inputUrl`).
    pub input_url: &'a str,
    /// The submitted URL, parsed.
    pub url: &'a Url,
    /// Contact-like pages from the crawl planner, best first.
    pub contact_pages: Vec<String>,
    /// HTTP responses received.
    pub pages_fetched: u32,
    /// Milliseconds from request head to response.
    pub duration_ms: u64,
    /// The request id (empty offline).
    pub request_id: String,
}

/// Merges page results in fetch order (homepage first): values deduplicated by normalised
/// form, each keeping the `sourceUrl` of the first page it was found on; the company name from
/// the first page that gives one.
pub fn merge(site: SiteInfo<'_>, pages: &[PageExtraction]) -> ContactExtractionResult {
    let sourced = |values: &mut dyn Iterator<Item = (&String, &String)>| -> Vec<SourcedValue> {
        first_distinct(values, usize::MAX, |(value, _)| value.as_str())
            .into_iter()
            .map(|(value, page)| SourcedValue {
                value: value.clone(),
                source_url: page.clone(),
            })
            .collect()
    };
    let emails = sourced(
        &mut pages
            .iter()
            .flat_map(|p| p.emails.iter().map(|e| (e, &p.url))),
    );
    let site_phones = phones_with_site_region(pages);
    let phones = sourced(&mut site_phones.iter().map(|(n, url)| (n, *url)));
    let mut socials = SocialLinks::default();
    let profiles = first_distinct(
        pages.iter().flat_map(|p| &p.socials),
        usize::MAX,
        |(_, url)| url.to_ascii_lowercase(),
    );
    for (network, url) in profiles {
        let list = match network {
            Network::Facebook => &mut socials.facebook,
            Network::Instagram => &mut socials.instagram,
            Network::LinkedIn => &mut socials.linkedin,
            Network::X => &mut socials.x,
            Network::YouTube => &mut socials.youtube,
        };
        list.push(url.clone());
    }
    let mut addresses = AddressList::new(usize::MAX);
    let mut sources: Vec<String> = Vec::new();
    for page in pages {
        for address in &page.addresses {
            if let Pushed::Added(_) = addresses.push(address.clone()) {
                sources.push(page.url.clone());
            }
        }
    }
    // The first page's name (the homepage's brand), or the legal name an inner page writes
    // it with (`Brightloop GmbH` on the imprint).
    let mut names = pages.iter().filter_map(|p| p.company_name.as_deref());
    let company_name = names.next().map(|brand| {
        names
            .find(|name| company::adds_legal_form(brand, name))
            .unwrap_or(brand)
            .to_string()
    });
    ContactExtractionResult {
        success: true,
        input_url: site.input_url.to_string(),
        domain: result_domain(site.url),
        company_name,
        emails,
        phones,
        socials,
        addresses: addresses
            .into_entries()
            .into_iter()
            .zip(sources)
            .map(|(a, source_url)| PostalAddress {
                street_address: a.street,
                address_locality: a.locality,
                address_region: a.region,
                postal_code: a.postal_code,
                address_country: a.country,
                source_url,
            })
            .collect(),
        contact_pages: site.contact_pages,
        pages_scanned: pages.iter().map(|p| p.url.clone()).collect(),
        meta: ResultMeta {
            pages_fetched: site.pages_fetched,
            duration_ms: site.duration_ms,
        },
        request_id: site.request_id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn names_whatsapp_reads_as_two_searches(
            href in "(w|a|\\.|m|e|/|h|t|s|p|W|:|x){0,24}"
        ) {
            proptest::prop_assert_eq!(
                names_whatsapp(&href),
                href.contains("wa.me/") || href.contains("whatsapp")
            );
        }
    }

    #[test]
    fn whatsapp_links_are_named_wherever_the_words_stand() {
        assert!(names_whatsapp("https://wa.me/15551230000"));
        assert!(names_whatsapp(
            "https://api.whatsapp.com/send?phone=15551230000"
        ));
        assert!(names_whatsapp("whatsapp://send?phone=15551230000"));
        assert!(!names_whatsapp("https://www.example.com/wa.me"));
        assert!(!names_whatsapp("https://WA.ME/15551230000"));
    }

    #[test]
    fn merge_dedupes_in_fetch_order_and_keeps_the_first_source() {
        let home = Url::parse("https://www.acme.com/").unwrap();
        let contact = Url::parse("https://www.acme.com/contact").unwrap();
        let pages = [
            extract_page(
                &home,
                None,
                b"<title>Home | Acme</title><p>info@acme.com</p><a href='https://facebook.com/acme'>f</a>",
            ),
            extract_page(
                &contact,
                None,
                b"<title>Contact</title><p>Info@Acme.com sales@acme.com Phone: +1 303 555 0142</p>
                  <a href='https://www.facebook.com/acme/'>f</a><p>1 Main St<br>Denver, CO 80202</p>",
            ),
        ];
        let result = merge(
            SiteInfo {
                input_url: "https://www.acme.com",
                url: &home,
                contact_pages: vec![contact.to_string()],
                pages_fetched: 2,
                duration_ms: 7,
                request_id: "req_test".to_string(),
            },
            &pages,
        );
        let emails: Vec<(&str, &str)> = result
            .emails
            .iter()
            .map(|e| (e.value.as_str(), e.source_url.as_str()))
            .collect();
        assert_eq!(
            emails,
            [
                ("info@acme.com", "https://www.acme.com/"),
                ("sales@acme.com", "https://www.acme.com/contact")
            ]
        );
        assert_eq!(result.phones[0].value, "+13035550142");
        assert_eq!(result.socials.facebook, ["https://facebook.com/acme"]);
        assert_eq!(
            result.addresses[0].source_url,
            "https://www.acme.com/contact"
        );
        assert_eq!(result.company_name.as_deref(), Some("Acme"));
        assert_eq!(result.domain, "acme.com");
        assert_eq!(result.input_url, "https://www.acme.com");
        assert_eq!(
            result.pages_scanned,
            ["https://www.acme.com/", "https://www.acme.com/contact"]
        );
        assert_eq!((result.meta.pages_fetched, result.meta.duration_ms), (2, 7));
    }

    #[test]
    fn every_per_page_list_stops_at_its_cap_and_keeps_document_order() {
        use crate::extract::limits::*;
        let url = Url::parse("https://www.acme.com/").unwrap();
        let mut page = String::from("<title>Acme</title>");
        for i in 0..3 * MAX_EMAILS {
            page.push_str(&format!("<p>user{i}@acme.com user0@acme.com</p>"));
        }
        for i in 0..3 * MAX_PHONES {
            page.push_str(&format!("<p>Call +1 303 555 {:04}</p>", i));
        }
        for i in 0..3 * MAX_SOCIALS {
            page.push_str(&format!("<a href='https://facebook.com/acme{i}'>f</a>"));
        }
        for i in 0..3 * MAX_ADDRESSES {
            page.push_str(&format!(
                "<p>{} Main St<br>Denver, CO {}</p>",
                i + 1,
                80_000 + i
            ));
        }
        for i in 0..3 * crate::crawl::MAX_CRAWL_CANDIDATES {
            page.push_str(&format!("<a href='/contact-{i}'>Contact</a>"));
        }
        let found = extract_page(&url, None, page.as_bytes());
        assert_eq!(found.emails.len(), MAX_EMAILS);
        assert_eq!(found.emails[..2], ["user0@acme.com", "user1@acme.com"]);
        assert_eq!(found.phones.len(), MAX_PHONES);
        assert_eq!(found.phones[0], "+13035550000");
        assert_eq!(found.socials.len(), MAX_SOCIALS);
        assert_eq!(found.socials[0].1, "https://facebook.com/acme0");
        assert_eq!(found.addresses.len(), MAX_ADDRESSES);
        assert_eq!(found.addresses[0].postal_code.as_deref(), Some("80000"));
        let candidates = crate::crawl::candidates(&url, &found.links);
        assert_eq!(candidates.len(), crate::crawl::MAX_CRAWL_CANDIDATES);
        assert_eq!(candidates[0].url.path(), "/contact-0");
    }

    #[test]
    fn a_page_of_costly_lines_leaves_the_readers_after_them_their_half_of_the_budget() {
        // Lines the postcode patterns run on (2 048 units each) and lines of `@`s (256 units
        // each): 512 KiB of either costs more than the page's whole budget, yet the phone
        // printed after them is read, from the half the address and email readers hold back.
        let url = Url::parse("https://www.acme.com/").unwrap();
        let fillers = [
            |i: usize| format!("<p>Springfield, IL {}</p>", 10_000 + i % 80_000),
            |i: usize| format!("<p>a{i}@ b@ c@ d@ e@ f@</p>"),
        ];
        for filler in fillers {
            let mut html = String::new();
            let mut i = 0;
            while html.len() < 512 << 10 {
                html.push_str(&filler(i));
                i += 1;
            }
            html.push_str("<p>Call +44 161 496 0500</p>");
            let parsed = parse_page(Some("text/html"), html.as_bytes());
            let found = parsed.extract(&url);
            assert!(
                parsed.budget().refused(),
                "the filler must outrun the budget"
            );
            assert_eq!(found.phones, ["+441614960500"], "{}", filler(0));
        }
    }

    #[test]
    fn a_page_hands_libphonenumber_at_most_its_allowance_structured_values_first() {
        use crate::extract::limits::MAX_PHONE_JUDGEMENTS;
        let url = Url::parse("https://www.acme.com/").unwrap();
        // Each line is one candidate judged and refused (+999 is no country code); the valid
        // number after them is judged only while the allowance lasts. JSON-LD is judged first.
        let page = |refused: usize| {
            let mut html = String::from(
                r#"<script type="application/ld+json">{"@type":"Organization","telephone":"+1 303 555 0142"}</script>"#,
            );
            for _ in 0..refused {
                html.push_str("<p>+999 1234567</p>");
            }
            html.push_str("<p>+44 161 496 0500</p>");
            extract_page(&url, None, html.as_bytes()).phones
        };
        assert_eq!(
            page(MAX_PHONE_JUDGEMENTS - 2),
            ["+441614960500", "+13035550142"]
        );
        assert_eq!(page(MAX_PHONE_JUDGEMENTS - 1), ["+13035550142"]);
        assert_eq!(page(10 * MAX_PHONE_JUDGEMENTS), ["+13035550142"]);
    }

    #[test]
    fn the_site_name_is_the_homepage_brand_with_the_legal_form_an_inner_page_confirms() {
        let home = Url::parse("https://www.brightloop.de/").unwrap();
        let imprint = Url::parse("https://www.brightloop.de/impressum").unwrap();
        let site = |pages: &[PageExtraction]| {
            merge(
                SiteInfo {
                    input_url: "https://www.brightloop.de/",
                    url: &home,
                    contact_pages: Vec::new(),
                    pages_fetched: 2,
                    duration_ms: 1,
                    request_id: String::new(),
                },
                pages,
            )
            .company_name
        };
        let homepage = extract_page(&home, None, b"<title>Brightloop | Digital studio</title>");
        let legal = extract_page(
            &imprint,
            None,
            b"<title>Impressum</title><p>Brightloop GmbH</p><p>Musterweg 1</p>",
        );
        assert_eq!(site(&[homepage, legal]).as_deref(), Some("Brightloop GmbH"));
        // Another business named on an inner page (the web designer) does not replace it.
        let homepage = extract_page(&home, None, b"<title>Brightloop | Digital studio</title>");
        let credits = extract_page(&imprint, None, b"<title>Web Works AG</title>");
        assert_eq!(site(&[homepage, credits]).as_deref(), Some("Brightloop"));
    }

    #[test]
    fn an_irish_address_without_an_eircode_reaches_the_page_result() {
        let url = Url::parse("https://www.oconnorhardware.ie/contact").unwrap();
        let page = extract_page(
            &url,
            Some("text/html"),
            b"<h1>Contact</h1><p>O'Connor Hardware</p><p>12 Main Street, Ballina, Co. Mayo</p>",
        );
        assert_eq!(page.addresses.len(), 1, "{:?}", page.addresses);
        assert_eq!(page.addresses[0].region.as_deref(), Some("Co. Mayo"));
    }

    #[test]
    fn a_json_ld_street_holding_the_postcode_and_town_reaches_the_result_as_the_street() {
        // Class: a JSON-LD `streetAddress` that repeats the postcode, town or region given in
        // their own parts; Germany, United States.
        for (url, street, locality, region, postcode, want) in [
            (
                "https://www.beispiel-praxis.de/",
                "Lindenweg 3, 12345 Berlin",
                "Berlin",
                "",
                "12345",
                "Lindenweg 3",
            ),
            (
                "https://www.example-dental.com/",
                "1234 Main St, Suite 200, Springfield, IL 62701",
                "Springfield",
                "IL",
                "62701",
                "1234 Main St, Suite 200",
            ),
        ] {
            let url = Url::parse(url).unwrap();
            let html = format!(
                "<script type=\"application/ld+json\">{{\"@type\":\"LocalBusiness\",\
                 \"name\":\"Example\",\"address\":{{\"@type\":\"PostalAddress\",\
                 \"streetAddress\":\"{street}\",\"addressLocality\":\"{locality}\",\
                 \"addressRegion\":\"{region}\",\"postalCode\":\"{postcode}\"}}}}</script>"
            );
            let page = extract_page(&url, Some("text/html"), html.as_bytes());
            let streets: Vec<_> = page.addresses.iter().map(|a| a.street.as_deref()).collect();
            assert_eq!(streets, [Some(want)], "{:?}", page.addresses);
        }
    }

    #[test]
    fn a_marked_up_place_name_without_a_postcode_is_no_address() {
        // Class `address.marked-place-name`: markup that puts a district, town or building name
        // in `streetAddress` and gives no postcode names a place, not where to find the
        // business; with a house number or a street word it is an address (countries where
        // addresses have no postcode). Kenya, United Arab Emirates, Colombia (microdata).
        for (url, markup, want) in [
            (
                "https://www.example-shop.co.ke/",
                ld_address(r#""streetAddress":"Westlands","addressLocality":"Nairobi""#),
                None,
            ),
            (
                "https://www.example-shop.ae/",
                ld_address(r#""streetAddress":"Marina","addressLocality":"Dubai""#),
                None,
            ),
            (
                "https://www.example-shop.com.co/",
                "<div itemscope itemtype=\"https://schema.org/PostalAddress\">\
                 <span itemprop=\"streetAddress\">Chapinero</span>\
                 <span itemprop=\"addressLocality\">Bogotá</span></div>"
                    .to_string(),
                None,
            ),
            (
                "https://www.example-shop.co.ke/",
                ld_address(r#""streetAddress":"Ngong Road","addressLocality":"Nairobi""#),
                Some("Ngong Road"),
            ),
            (
                "https://www.example-shop.ae/",
                ld_address(
                    r#""streetAddress":"Office 12, Marina Tower","addressLocality":"Dubai""#,
                ),
                Some("Office 12, Marina Tower"),
            ),
            (
                "https://www.example-shop.com.co/",
                "<div itemscope itemtype=\"https://schema.org/PostalAddress\">\
                 <span itemprop=\"streetAddress\">Carrera 7 # 71-21</span>\
                 <span itemprop=\"addressLocality\">Bogotá</span></div>"
                    .to_string(),
                Some("Carrera 7 # 71-21"),
            ),
        ] {
            let page = extract_page(
                &Url::parse(url).unwrap(),
                Some("text/html"),
                markup.as_bytes(),
            );
            let streets: Vec<_> = page.addresses.iter().map(|a| a.street.as_deref()).collect();
            assert_eq!(
                streets,
                want.map(Some).into_iter().collect::<Vec<_>>(),
                "{url} {markup}"
            );
        }
    }

    /// A JSON-LD LocalBusiness page whose `PostalAddress` has the `parts` given (JSON members).
    fn ld_address(parts: &str) -> String {
        format!(
            "<script type=\"application/ld+json\">{{\"@type\":\"LocalBusiness\",\
             \"name\":\"Example\",\"address\":{{\"@type\":\"PostalAddress\",{parts}}}}}</script>"
        )
    }

    #[test]
    fn a_json_ld_address_string_is_read_with_the_region_the_page_decides() {
        // Class: `"address": "…"` as one string on a `.com` page whose country only the rest of
        // the page tells (an international number's calling code). Brazil, India.
        for (telephone, address, postcode) in [
            (
                "+55 41 3333-4444",
                "Rua Exemplo 45, Centro, Curitiba - PR, 80010-000",
                "80010-000",
            ),
            (
                "+91 22 4000 1234",
                "12, Example Road, Andheri East, Mumbai, Maharashtra 400069",
                "400069",
            ),
        ] {
            let url = Url::parse("https://www.example-business.com/").unwrap();
            let html = format!(
                "<script type=\"application/ld+json\">{{\"@type\":\"Organization\",\
                 \"name\":\"Example\",\"telephone\":\"{telephone}\",\
                 \"location\":{{\"@type\":\"Place\",\"address\":\"{address}\"}}}}</script>\
                 <p>Call us: {telephone}</p>"
            );
            let page = extract_page(&url, Some("text/html"), html.as_bytes());
            let postcodes: Vec<_> = page
                .addresses
                .iter()
                .map(|a| a.postal_code.as_deref())
                .collect();
            assert_eq!(postcodes, [Some(postcode)], "{:?}", page.addresses);
        }
    }

    #[test]
    fn an_address_in_the_other_order_than_its_countrys_layout_reaches_the_page_result() {
        // Class `postcode.order`: Hungary's `1052 Budapest, Minta utca 7.` (its layout puts the
        // postcode last, on a line of its own), Romania's six-digit postcode before its town.
        for (url, html, postcode, street) in [
            (
                "https://www.minta-szerviz.hu/kapcsolat",
                "<h1>Kapcsolat</h1><p>Minta Szerviz Kft.</p><p>Cím: 1052 Budapest, Minta utca 7.</p>",
                "1052",
                "Minta utca 7",
            ),
            (
                "https://www.exemplu-service.ro/contact",
                "<h1>Contact</h1><p>Exemplu Service SRL</p><p>Str. Exemplu nr. 10</p><p>400001 Cluj-Napoca</p>",
                "400001",
                "Str. Exemplu nr. 10",
            ),
        ] {
            let page = extract_page(&Url::parse(url).unwrap(), Some("text/html"), html.as_bytes());
            assert_eq!(page.addresses.len(), 1, "{url}: {:?}", page.addresses);
            assert_eq!(page.addresses[0].postal_code.as_deref(), Some(postcode));
            assert_eq!(page.addresses[0].street.as_deref(), Some(street));
        }
    }

    #[test]
    fn open_graph_contact_metas_give_an_address() {
        // ogp.me's contact metadata (CZ) and the `business.business` type's contact data (BR),
        // with nothing of the address in the visible text.
        let cz = Url::parse("https://www.dilna-vzor.cz/").unwrap();
        let page = extract_page(
            &cz,
            Some("text/html"),
            "<meta property=\"og:street-address\" content=\"Vzorová 12\">\
             <meta property=\"og:locality\" content=\"Vzorov\">\
             <meta property=\"og:postal-code\" content=\"123 45\">\
             <meta property=\"og:country-name\" content=\"Česká republika\">\
             <p>Dílna Vzor s.r.o.</p>"
                .as_bytes(),
        );
        assert_eq!(page.addresses.len(), 1, "{:?}", page.addresses);
        let a = &page.addresses[0];
        assert_eq!(a.street.as_deref(), Some("Vzorová 12"));
        assert_eq!(a.locality.as_deref(), Some("Vzorov"));
        assert_eq!(a.postal_code.as_deref(), Some("123 45"));
        let br = Url::parse("https://www.oficina-exemplo.com.br/").unwrap();
        let page = extract_page(
            &br,
            Some("text/html"),
            "<meta property=\"business:contact_data:street_address\" content=\"Rua Exemplo, 120\">\
             <meta property=\"business:contact_data:locality\" content=\"Campinas\">\
             <meta property=\"business:contact_data:postal_code\" content=\"13010-000\">\
             <meta property=\"business:contact_data:country_name\" content=\"Brasil\">"
                .as_bytes(),
        );
        assert_eq!(page.addresses.len(), 1, "{:?}", page.addresses);
        assert_eq!(
            page.addresses[0].street.as_deref(),
            Some("Rua Exemplo, 120")
        );
        assert_eq!(page.addresses[0].postal_code.as_deref(), Some("13010-000"));
        assert_eq!(page.addresses[0].country.as_deref(), Some("Brasil"));
        // A town alone is no address.
        let page = extract_page(
            &br,
            Some("text/html"),
            b"<meta property=\"og:locality\" content=\"Campinas\">",
        );
        assert!(page.addresses.is_empty(), "{:?}", page.addresses);
    }

    #[test]
    fn german_austrian_and_swiss_registration_numbers_are_not_phones() {
        let url = Url::parse("https://www.beispiel.de/impressum").unwrap();
        let page = extract_page(
            &url,
            Some("text/html"),
            "<h2>Impressum</h2><p>Umsatzsteuer-Identifikationsnummer gemäß § 27 a Umsatzsteuergesetz:<br>12/345/67890</p>\
             <p>Steuernummer: 21/815/08150</p><p>Steuer-Nr.<br>030 815 08150</p>\
             <p>Handelsregister: HRB 123456 B</p><p>Registergericht: Amtsgericht Berlin 0301234567</p>\
             <p>UID: ATU 1234 5678</p><p>CHE-123.456.789</p><p>Telefon: 030 12345678</p>"
                .as_bytes(),
        );
        let phones: Vec<&str> = page.phones.iter().map(String::as_str).collect();
        assert_eq!(phones, ["+493012345678"]);
    }

    #[test]
    fn hrefs_that_lead_to_no_page_are_told_by_their_scheme_in_any_case() {
        for href in [
            "",
            "#top",
            "mailto:a@b.c",
            "MAILTO:a@b.c",
            "JavaScript:void(0)",
            "tel:+1",
        ] {
            assert!(is_not_a_page(href), "{href}");
        }
        for href in [
            "/contact",
            "mail.html",
            "telephone/",
            "https://x.com/tel:",
            "é/tel:",
        ] {
            assert!(!is_not_a_page(href), "{href}");
        }
    }

    #[test]
    fn written_host_reads_absolute_and_scheme_relative_hrefs() {
        assert_eq!(
            written_host("https://User@Shop.Acme.com:8443/x?y"),
            Some("Shop.Acme.com")
        );
        assert_eq!(written_host("HTTP://acme.com"), Some("acme.com"));
        assert_eq!(written_host("hTtPs://acme.com"), Some("acme.com"));
        assert_eq!(written_host("httpé://acme.com"), None);
        assert_eq!(written_host("//cdn.acme.com/a.js"), Some("cdn.acme.com"));
        assert_eq!(written_host("http://[::1]/"), Some("[::1]"));
        assert_eq!(written_host("/contact"), None);
        assert_eq!(written_host("contact.html"), None);
    }

    #[test]
    fn links_keep_only_same_site_pages() {
        let url = Url::parse("https://www.acme.co.uk/").unwrap();
        let page = extract_page(
            &url,
            None,
            br##"<a href="/contact#form">C</a><a href="https://shop.acme.co.uk/about">A</a>
                <a href="https://other.co.uk/contact">O</a><a href="mailto:a@acme.co.uk">M</a>
                <a href="javascript:void(0)">J</a><a href="#top">T</a><a href="ftp://acme.co.uk/f">F</a>"##,
        );
        let urls: Vec<&str> = page.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://www.acme.co.uk/contact",
                "https://shop.acme.co.uk/about"
            ]
        );
    }

    #[test]
    fn links_are_the_crawl_candidates_wherever_their_keyword_is() {
        // The page sits under `/kontakt/`: a relative href takes its directory, a query alone
        // its whole path; a keyword in the text alone, or in the path alone, counts too.
        let url = Url::parse("https://www.acme.de/kontakt/").unwrap();
        let page = extract_page(
            &url,
            None,
            br#"<a href="/produkte">Produkte</a><a href="/p/17">Impressum</a>
                <a href="/ueber-uns/">Mehr</a><a href="formular">Formular</a>
                <a href="?lang=en">English</a><a href="https://www.acme.de/blog/">Blog</a>
                <a href="/%C3%BCber">x</a><a href="./team">y</a><a href="/">Acme GmbH</a>"#,
        );
        let urls: Vec<&str> = page.links.iter().map(|l| l.url.as_str()).collect();
        assert_eq!(
            urls,
            [
                "https://www.acme.de/p/17",
                "https://www.acme.de/ueber-uns/",
                "https://www.acme.de/kontakt/formular",
                "https://www.acme.de/kontakt/?lang=en",
                "https://www.acme.de/kontakt/team",
            ]
        );
        // A link to the homepage without a keyword still gives the name its text.
        let page = extract_page(
            &url,
            None,
            b"<title>Kontakt</title><a href='/'><img alt='Acme Werkzeuge GmbH'></a>",
        );
        assert_eq!(page.company_name.as_deref(), Some("Acme Werkzeuge GmbH"));
    }

    #[test]
    fn a_written_path_is_the_path_the_url_parser_resolves() {
        let base = Url::parse("https://www.acme.de/kontakt/form?x=1").unwrap();
        let mut path = String::new();
        for (href, resolved) in [
            ("/a/b?c", Some(("/a/b", true))),
            ("b.html#top", Some(("/kontakt/b.html", false))),
            ("?lang=en", Some(("/kontakt/form", true))),
            ("#top", Some(("/kontakt/form", true))),
            ("HTTPS://acme.de", Some(("/", false))),
            ("//cdn.acme.de/x?", Some(("/x", true))),
            ("./x", None),
            ("/a/../b", None),
            ("/a/%2E%2e/b", None),
            ("/a b", None),
            ("/a\\b", None),
            ("/%C3%BCber", Some(("/%C3%BCber", false))),
            ("/über", None),
            ("http:///acme.de/", None),
            ("x:y/z", None),
        ] {
            let written = written_path(&base, href, &mut path).map(|q| (path.as_str(), q));
            assert_eq!(written, resolved, "{href}");
        }
    }

    proptest::proptest! {
        #[test]
        fn written_paths_agree_with_the_url_parser(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "/", "//", ".", "..", "a", "Kontakt", "index.html", "?", "#", "%2e", "%41",
                    "%", ":", "@", "http://", "HTTPS://", "x.com", " ", "\t", "\\", "é", "-",
                ]),
                0..8,
            ),
            base in proptest::sample::select(vec![
                "https://acme.com/", "https://acme.com/a/b", "http://acme.com/a/?q", "https://acme.com",
            ]),
        ) {
            let href = parts.concat();
            let base = Url::parse(base).unwrap();
            let mut path = String::new();
            if let (Some(has_query), Ok(url)) = (written_path(&base, &href, &mut path), base.join(&href)) {
                proptest::prop_assert_eq!(path.as_str(), url.path(), "{}", href);
                proptest::prop_assert_eq!(has_query, url.query().is_some(), "{}", href);
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn a_link_written_off_site_is_one_the_resolver_drops(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "https://", "HTTP://", "//", "/", "?", "#", "@", ":", ".", "www.", "shop.",
                    "acme", "ACME", "acme.co.uk", "acme.com", "other.com", "co.uk", "é", "x",
                    "8080", "",
                ]),
                0..8,
            ),
            base in proptest::sample::select(vec![
                "https://acme.com/a", "https://www.acme.com/", "http://shop.acme.co.uk/",
                "https://acme.co.uk/x/", "http://[::1]/",
            ]),
        ) {
            // Whatever a link written off-site is, the resolver drops it; a link it keeps is
            // never written off-site.
            let href = parts.concat();
            let base = Url::parse(base).unwrap();
            let host = base.host_str().unwrap();
            let registrable = registrable_domain(host);
            if is_written_off_site(&href, host, &registrable) {
                proptest::prop_assert!(resolve_on_site(&base, host, &registrable, &href).is_none(), "{}", href);
            }
        }
    }

    #[test]
    fn links_written_off_site_by_hand() {
        let base = Url::parse("https://www.acme.co.uk/a/").unwrap();
        let host = base.host_str().unwrap();
        let registrable = registrable_domain(host);
        for (href, off_site) in [
            ("https://other.com/contact", true),
            ("//other.co.uk/", true),
            ("https://WWW.ACME.CO.UK/contact", false),
            ("https://shop.acme.co.uk/contact", false),
            ("https://acme.co.uk:8080/", false),
            ("https://notacme.co.uk/", false),
            ("https://user@other.com/", true),
            ("https://www.acme.co.uk", false),
            ("https://www.acme.co.uk@other.com/", true),
            ("https://www.acme.co.uk.other.com/", true),
            ("/contact", false),
            ("contact.html", false),
            ("https://", true),
        ] {
            assert_eq!(
                is_written_off_site(href, host, &registrable),
                off_site,
                "{href}"
            );
            if off_site {
                assert!(
                    resolve_on_site(&base, host, &registrable, href).is_none(),
                    "{href}"
                );
            }
        }
    }

    /// [`written_host`] as it was first written, with `str` searches.
    fn written_host_model(href: &str) -> Option<&str> {
        let rest = after_web_scheme(href)?;
        let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
        let host = authority.rsplit('@').next().unwrap_or(authority);
        let host = match host.rfind(':') {
            Some(colon) if !host.ends_with(']') => &host[..colon],
            _ => host,
        };
        Some(host.trim_end_matches('.'))
    }

    proptest::proptest! {
        #[test]
        fn written_hosts_are_read_as_the_str_searches_read_them(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "https://", "HTTP://", "//", "/", "?", "#", "@", ":", ".", "[::1]", "]",
                    "acme.com", "é", "x", "8080", "",
                ]),
                0..10,
            ),
        ) {
            let href = parts.concat();
            proptest::prop_assert_eq!(written_host(&href), written_host_model(&href), "{}", href);
        }
    }

    fn social_urls(page: &PageExtraction) -> Vec<&str> {
        page.socials.iter().map(|(_, u)| u.as_str()).collect()
    }

    #[test]
    fn the_site_makers_profiles_in_a_credit_are_left_out() {
        // The business's own profiles in the page; the designer's in a credit line (a
        // personal `/in/` profile as the credit's link) and in a block right after it.
        let html = r#"<html><body><main><h1>Atelier Sonne</h1>
<p><a href="https://www.instagram.com/atelier.sonne/">Instagram</a>
<a href="https://www.facebook.com/ateliersonne">Facebook</a></p></main>
<footer><p>© 2024 Atelier Sonne</p>
<p>Projekt i wykonanie: <a href="https://www.linkedin.com/in/jan-kowalski-54b511129/">Jan Kowalski</a></p>
<h4>Designed and developed by <a href="https://pixelwerk.example">Pixelwerk</a></h4>
<div><h5>SOCIALIZE</h5><a href="https://www.linkedin.com/company/pixelwerk/"><img alt="linkedin logo"></a>
<a href="https://www.instagram.com/pixelwerk.studio/"><img alt="instagram logo"></a></div>
</footer></body></html>"#;
        let page = extract_page(
            &Url::parse("https://atelier-sonne.de/").unwrap(),
            None,
            html.as_bytes(),
        );
        assert_eq!(
            social_urls(&page),
            [
                "https://instagram.com/atelier.sonne",
                "https://facebook.com/ateliersonne"
            ]
        );
    }

    #[test]
    fn a_credit_before_the_businesss_only_profiles_leaves_them_in() {
        // No profile before the credit: the icons after it are the business's.
        let html = r#"<html><body><h1>Bäckerei Kern</h1><p>Brot seit 1950</p>
<footer><p>Website by Pixelwerk</p>
<p>Folgen Sie uns</p><a href="https://www.instagram.com/baeckerei.kern/">Instagram</a></footer></body></html>"#;
        let page = extract_page(
            &Url::parse("https://baeckerei-kern.de/").unwrap(),
            None,
            html.as_bytes(),
        );
        assert_eq!(social_urls(&page), ["https://instagram.com/baeckerei.kern"]);
    }

    #[test]
    fn an_organizations_same_as_on_another_page_reaches_the_site() {
        let home = extract_page(
            &Url::parse("https://acme.de/").unwrap(),
            None,
            b"<html><body><h1>Acme</h1><p>Willkommen</p></body></html>",
        );
        let about = extract_page(
            &Url::parse("https://acme.de/ueber-uns").unwrap(),
            None,
            br#"<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Acme GmbH","sameAs":["https://www.facebook.com/p/Acme-GmbH-61500000012345/","https://www.youtube.com/@acme-gmbh"]}</script></head><body><p>Ueber uns</p></body></html>"#,
        );
        assert!(home.socials.is_empty());
        let url = Url::parse("https://acme.de/").unwrap();
        let result = merge(
            SiteInfo {
                input_url: "https://acme.de/",
                url: &url,
                contact_pages: Vec::new(),
                pages_fetched: 2,
                duration_ms: 1,
                request_id: String::new(),
            },
            &[home, about],
        );
        assert_eq!(
            result.socials.facebook,
            ["https://facebook.com/p/Acme-GmbH-61500000012345"]
        );
        assert_eq!(result.socials.youtube, ["https://youtube.com/@acme-gmbh"]);
    }

    /// The page's region decided from all its evidence (here the calling code of its `tel:`
    /// links) chooses the postcode patterns of a `.com` page without a country in its
    /// `lang`: an Indian PIN after the town, a Brazilian CEP on its own line.
    #[test]
    fn the_decided_region_reads_the_postcodes_of_a_generic_domain_page() {
        let postcodes = |url: &str, html: &str| {
            let page = extract_page(&Url::parse(url).unwrap(), None, html.as_bytes());
            page.addresses
                .into_iter()
                .filter_map(|a| a.postal_code)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            postcodes(
                "https://www.example-tiles.com/contact",
                "<html lang=en><p><a href='tel:+914423456789'>Call</a></p>\
                 <p>14 Lotus Garden Road, Velachery<br>Chennai 600 042</p></html>",
            ),
            ["600 042"]
        );
        assert_eq!(
            postcodes(
                "https://www.example-moveis.com/contato",
                "<html lang=pt><p><a href='tel:+554133334444'>Ligue</a></p>\
                 <p>Rua das Palmeiras, 210 - Centro<br>Curitiba - PR<br>80020-310</p></html>",
            ),
            ["80020-310"]
        );
    }

    /// The postcodes `extract_page` returns for a `.com` page in language `lang` whose body
    /// is the paragraph `body`.
    fn com_page_postcodes(lang: &str, body: &str) -> Vec<String> {
        let html = format!("<html lang={lang}><p>{body}</p></html>");
        extract_page(
            &Url::parse("https://www.example-firm.com/").unwrap(),
            None,
            html.as_bytes(),
        )
        .addresses
        .into_iter()
        .filter_map(|a| a.postal_code)
        .collect()
    }

    /// Class `lang.main-country`: the language of a `.com` page names its main country
    /// (`region::main_country`), whose postcode patterns then read the page's address:
    /// Norwegian Bokmål, Romanian, Croatian and Estonian pages.
    #[test]
    fn the_main_country_of_the_page_language_reads_its_postcodes() {
        let cases = [
            ("nb", "Eksempel AS, Storgata 5, 0155 Oslo", "0155"),
            (
                "ro",
                "Exemplu SRL, Strada Florilor 10, 010061 București",
                "010061",
            ),
            ("hr", "Primjer d.o.o., Ulica Lipa 10, 10000 Zagreb", "10000"),
            ("et", "Näide OÜ, Pärna tänav 5, 10117 Tallinn", "10117"),
        ];
        for (lang, line, postcode) in cases {
            assert_eq!(com_page_postcodes(lang, line), [postcode], "{lang}");
        }
        assert_eq!(lang_region(Some("nn")), Some(("NO", false)));
        assert_eq!(lang_region(Some("uk")), Some(("UA", false)));
        assert_eq!(lang_region(Some("ko-KR")), Some(("KR", true)));
        assert_eq!(lang_region(Some("en")), None);
        assert_eq!(lang_region(Some("ar")), None);
    }

    /// Class `postcode.language`: a `.com` page in German with an Austrian address, one in
    /// Portuguese with a Brazilian CEP (and no other evidence of the country), one in Spanish
    /// with an Argentine postcode.
    #[test]
    fn postcodes_of_the_other_countries_of_the_page_language() {
        let cases = [
            ("de", "Beispiel GmbH<br>Musterstraße 5<br>1060 Wien", "1060"),
            (
                "pt",
                "Rua das Palmeiras, 210 - Centro<br>Curitiba - PR<br>80020-310",
                "80020-310",
            ),
            (
                "es",
                "Ejemplo SA, Av. Corrientes 1234, C1043AAZ Buenos Aires",
                "C1043AAZ",
            ),
        ];
        for (lang, address, postcode) in cases {
            assert_eq!(com_page_postcodes(lang, address), [postcode], "{lang}");
        }
    }
}
