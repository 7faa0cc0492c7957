//! Social profile links (LinkedIn, Facebook, Instagram, X, YouTube): classification and
//! canonicalisation (docs/contract.md "Result fields"; docs/extraction.md rules 1–2).
//!
//! Canonical form: `https://`, lower-case host without `www.`/`m.`/`mobile.`/country
//! sub-domains, no query or fragment (except Facebook's `profile.php?id=`), no trailing slash,
//! profile base only (sub-pages such as `/about` or `/videos` cut); Facebook pages named with
//! their numeric id keep their whole path (`/p/Name-61500000012345`,
//! `/pages/category/<Category>/<Name>-<id>`, `/people/<Name>/<id>`). `twitter.com` becomes
//! `x.com`, and the old `twitter.com/#!/name` form is read as `x.com/name`. Share, intent,
//! login, search, post, video and plugin links are not profiles.

use std::ops::Range;

use url::Url;

use crate::extract::ascii::{after_web_scheme, starts_with_ignore_ascii_case};
use crate::extract::sections;
use crate::extract::whitespace;

/// The five networks of `SocialLinks`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Network {
    /// facebook.com, fb.com
    Facebook,
    /// instagram.com, instagr.am
    Instagram,
    /// linkedin.com
    LinkedIn,
    /// x.com, twitter.com
    X,
    /// youtube.com
    YouTube,
}

/// Classifies an absolute link; returns its network and canonical profile URL, or `None` when
/// it is not a profile of one of the five networks.
pub fn classify(href: &str) -> Option<(Network, String)> {
    let href = href.trim();
    if !mentions_network(href) {
        return None;
    }
    let href = if href.starts_with("//") {
        format!("https:{href}")
    } else if !href.contains("://") && looks_like_social_host(href) {
        format!("https://{href}")
    } else {
        href.to_string()
    };
    let url = Url::parse(&href).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    let host = url.host_str()?.to_ascii_lowercase();
    let host = strip_subdomain(&host);
    // `twitter.com/#!/name` and its percent-encoded form keep the handle in the fragment.
    let fragment_path = url
        .fragment()
        .map(|f| f.replace("%21", "!"))
        .and_then(|f| f.strip_prefix('!').map(str::to_string));
    let path_owned = match (&fragment_path, url.path()) {
        (Some(f), "/" | "") => f.clone(),
        (_, p) => p.to_string(),
    };
    let decoded = percent_encoding::percent_decode_str(&path_owned).decode_utf8_lossy();
    let segments: Vec<&str> = decoded.split('/').filter(|s| !s.is_empty()).collect();
    match host {
        "facebook.com" | "fb.com" => facebook(&url, &segments),
        "instagram.com" | "instagr.am" => instagram(&segments),
        "linkedin.com" => linkedin(&url, &segments),
        "twitter.com" | "x.com" => x(&segments),
        "youtube.com" => youtube(&segments),
        _ => None,
    }
}

/// Cheap test before URL parsing: is the href's host, as written, one of the networks' (or,
/// without a scheme, does it start with one)?
fn mentions_network(href: &str) -> bool {
    let Some(rest) = after_web_scheme(href) else {
        return looks_like_social_host(href);
    };
    let host = rest.as_bytes();
    let host = &host[..host
        .iter()
        .position(|b| matches!(b, b'/' | b'?' | b'#' | b':'))
        .unwrap_or(host.len())];
    // A network's host is `<name>.<suffix>` or a sub-domain of it: compare the last two labels.
    let Some(dot) = host.iter().rposition(|&b| b == b'.') else {
        return false;
    };
    let (rest, suffix) = (&host[..dot], &host[dot + 1..]);
    let name = &rest[rest.iter().rposition(|&b| b == b'.').map_or(0, |d| d + 1)..];
    NETWORK_HOSTS.iter().any(|(base_name, base_suffix)| {
        name.eq_ignore_ascii_case(base_name.as_bytes())
            && suffix.eq_ignore_ascii_case(base_suffix.as_bytes())
    })
}

/// The networks' hosts (without sub-domain), as name and public suffix.
const NETWORK_HOSTS: &[(&str, &str)] = &[
    ("facebook", "com"),
    ("fb", "com"),
    ("instagram", "com"),
    ("instagr", "am"),
    ("linkedin", "com"),
    ("twitter", "com"),
    ("x", "com"),
    ("youtube", "com"),
];

fn looks_like_social_host(href: &str) -> bool {
    let rest = if starts_with_ignore_ascii_case(href, "www.") {
        &href[4..]
    } else {
        href
    };
    // Every link of a page without a scheme comes here (`/about`, `#top`): turned away by its
    // first byte unless that opens one of the hosts below.
    let opens_host = |b: &u8| {
        matches!(
            b.to_ascii_lowercase(),
            b'f' | b'i' | b'l' | b't' | b'x' | b'y'
        )
    };
    if !rest.as_bytes().first().is_some_and(opens_host) {
        return false;
    }
    [
        "facebook.com/",
        "instagram.com/",
        "linkedin.com/",
        "twitter.com/",
        "x.com/",
        "youtube.com/",
    ]
    .iter()
    .any(|h| starts_with_ignore_ascii_case(rest, h))
}

/// The profile links of a page that are the business's, classified, in document order: `links`
/// are the page's `(href, anchor text, in footer, byte position in text)`, `third_party` the
/// ranges of `text` that name someone else (`sections::third_party_ranges`: hosting provider,
/// chamber, the site's makers and their credit lines), `line_starts` where each line of `text`
/// starts. Left out: a link inside such a range (the designer's LinkedIn in "Projekt i
/// wykonanie: Jan Kowalski"), a footer link at most `sections::MAX_SECTION_LINES` lines
/// after one when the page linked a profile before that range (the maker's "Socialize" icons
/// under their credit, while the business's own icons came earlier), and people's profiles
/// ([`people`]: repeated person cards, a profile next to a person's name).
pub fn business_profiles<'l>(
    links: impl Iterator<Item = (&'l str, &'l str, bool, usize)>,
    text: &str,
    third_party: &[Range<usize>],
    line_starts: &[usize],
) -> Vec<(usize, Network, String)> {
    let line_of = |pos: usize| line_starts.partition_point(|start| *start <= pos);
    // In document order, so its first entry is the earliest profile kept.
    let mut kept: Vec<Profile<'l>> = Vec::new();
    // A page repeats its profile links (header, footer, contact block): each distinct href
    // is classified once.
    let mut classified: Vec<(&str, Option<(Network, String)>)> = Vec::new();
    for (href, link_text, in_footer, pos) in links {
        if !mentions_network(whitespace::trim(href)) {
            continue;
        }
        let profile = match classified.iter().find(|(seen, _)| *seen == href) {
            Some((_, profile)) => profile.clone(),
            None => {
                let profile = classify(href);
                classified.push((href, profile.clone()));
                profile
            }
        };
        let Some((network, url)) = profile else {
            continue;
        };
        let found = Profile {
            pos,
            network,
            url,
            in_footer,
            text: link_text,
        };
        if third_party.is_empty() {
            kept.push(found);
            continue;
        }
        if sections::link_inside(third_party, text, pos, link_text) {
            continue;
        }
        let under_a_credit = in_footer
            && third_party.iter().any(|range| {
                range.end <= pos
                    && line_of(pos) - line_of(range.end) <= sections::MAX_SECTION_LINES
                    && kept.first().is_some_and(|first| first.pos < range.start)
            });
        if !under_a_credit {
            kept.push(found);
        }
    }
    let people = people(&kept, text, line_starts);
    kept.into_iter()
        .zip(people)
        .filter(|(_, person)| !person)
        .map(|(p, _)| (p.pos, p.network, p.url))
        .collect()
}

/// A profile link found on the page, with what [`people`] reads of it.
struct Profile<'l> {
    /// Byte position of the link in the text.
    pos: usize,
    network: Network,
    /// Canonical URL.
    url: String,
    in_footer: bool,
    /// Anchor text (with image `alt`s).
    text: &'l str,
}

/// Most lines from one person card to the next.
const MAX_CARD_LINES: usize = 12;

/// Which of `profiles` (in document order) are people's, not the business's:
/// - those in repeated person cards, found by shape: outside the footer, two or more groups
///   of profile links (links on the same or the next line form a group), each group a
///   steady number of lines (2 to [`MAX_CARD_LINES`], varying by at most one) after the
///   previous one, every card's lines (the lines up to its links, or from them on) holding a
///   person's name ([`is_person_name`]), and no profile linked in two cards (team pages,
///   testimonials, reviews, author boxes);
/// - a profile outside the footer next to a person's name (its anchor text, its line, or the
///   line above a link without text of its own) when the page links another profile of the
///   same network that is not a person's: the business has its own, so this one is someone
///   else's. A sole trader's one profile beside their name stays.
fn people(profiles: &[Profile<'_>], text: &str, line_starts: &[usize]) -> Vec<bool> {
    let mut person = vec![false; profiles.len()];
    let body: Vec<usize> = (0..profiles.len())
        .filter(|&i| !profiles[i].in_footer)
        .collect();
    if body.is_empty() {
        return person;
    }
    let line_text = |line: usize| -> &str {
        let start = line_starts.get(line).copied().unwrap_or(text.len());
        let end = line_starts
            .get(line + 1)
            .map_or(text.len(), |next| next.saturating_sub(1));
        text.get(start..end.max(start)).unwrap_or("")
    };
    // The line a link sits on: where its visible text starts, or for a link without visible
    // text (an icon), the line it ends.
    let line_of = |p: &Profile<'_>| -> usize {
        let line = line_starts.partition_point(|start| *start <= p.pos).max(1) - 1;
        let visible = !p.text.is_empty()
            && text
                .get(p.pos..)
                .is_some_and(|rest| rest.starts_with(whitespace::trim(p.text)));
        let at_line_start = line_starts.get(line) == Some(&p.pos);
        if at_line_start && !visible && line > 0 {
            line - 1
        } else {
            line
        }
    };
    // Groups of links on the same or the next line: (first line, last line, members).
    let mut groups: Vec<(usize, usize, Vec<usize>)> = Vec::new();
    for &i in &body {
        let line = line_of(&profiles[i]);
        match groups.last_mut() {
            Some((_, last, members)) if line <= *last + 1 => {
                *last = line;
                members.push(i);
            }
            _ => groups.push((line, line, vec![i])),
        }
    }
    // The offsets from a group's first line of the lines in `lines` that hold a person's
    // name once the group's own link texts are taken out (`María López Facebook`); a link
    // text that is a name counts at offset 0.
    let name_offsets = |lines: Range<usize>, g: usize| -> Vec<isize> {
        let (first, _, members) = &groups[g];
        let mut offsets: Vec<isize> = lines
            .filter(|&l| {
                let mut line = line_text(l).to_string();
                for &m in members {
                    line = line.replacen(whitespace::trim(profiles[m].text), "", 1);
                }
                is_person_name(&line)
            })
            .map(|l| l as isize - *first as isize)
            .collect();
        if members.iter().any(|&m| is_person_name(profiles[m].text)) {
            offsets.push(0);
        }
        offsets
    };
    // A card's lines: those after the previous card up to its links (`before`), or from its
    // links up to the next card.
    let card_lines = |g: usize, gap: usize, before: bool| -> Range<usize> {
        let (first, last, _) = &groups[g];
        if before {
            first.saturating_sub(gap - 1)..last + 1
        } else {
            *first..first + gap
        }
    };
    let mut g = 0;
    while g + 1 < groups.len() {
        let gap_at = |k: usize| groups[k + 1].0 - groups[k].0;
        let first_gap = gap_at(g);
        let mut end = g;
        if (2..=MAX_CARD_LINES).contains(&first_gap) {
            while end + 1 < groups.len() && gap_at(end).abs_diff(first_gap) <= 1 {
                end += 1;
            }
        }
        // Cards of one shape: a name at the same offset from the links in every card.
        let cards = |before: bool| {
            let mut common: Option<Vec<isize>> = None;
            for k in g..=end {
                let gap = if before && k > g {
                    gap_at(k - 1)
                } else if k < end {
                    gap_at(k)
                } else {
                    gap_at(k - 1)
                };
                let offsets = name_offsets(card_lines(k, gap, before), k);
                common = Some(match common {
                    None => offsets,
                    Some(c) => c.into_iter().filter(|o| offsets.contains(o)).collect(),
                });
            }
            common.is_some_and(|c| !c.is_empty())
        };
        let members: Vec<usize> = (g..=end).flat_map(|k| groups[k].2.clone()).collect();
        let distinct = members.iter().enumerate().all(|(n, &a)| {
            members[n + 1..]
                .iter()
                .all(|&b| profiles[a].url != profiles[b].url)
        });
        if end > g && distinct && (cards(true) || cards(false)) {
            for m in members {
                person[m] = true;
            }
            g = end + 1;
        } else {
            g += 1;
        }
    }
    // A profile next to a person's name, when the business links its own on that network.
    let beside_a_name: Vec<bool> = (0..profiles.len())
        .map(|i| {
            let p = &profiles[i];
            if p.in_footer || person[i] {
                return false;
            }
            let line = line_of(p);
            let own_line = line_text(line);
            let alone = own_line.trim().is_empty() || own_line.trim() == whitespace::trim(p.text);
            is_person_name(p.text)
                || is_person_name(own_line)
                || (alone && line > 0 && is_person_name(line_text(line - 1)))
        })
        .collect();
    for i in 0..profiles.len() {
        let business_has_its_own = (0..profiles.len()).any(|j| {
            j != i
                && !beside_a_name[j]
                && !person[j]
                && profiles[j].network == profiles[i].network
                && profiles[j].url != profiles[i].url
        });
        if beside_a_name[i] && business_has_its_own {
            person[i] = true;
        }
    }
    person
}

/// Whether `line` is a person's name: after any label (`Autor: …`) and title words (`Dr.`),
/// two to four words, each a capital and then lower-case letters (`Anna`, `O'Neill`,
/// `Müller-Lüdenscheidt`) or an initial (`K.`), with short lower-case particles between them
/// (`van der`, `de la`); at most 48 characters, no digits.
fn is_person_name(line: &str) -> bool {
    let value = line.rsplit(':').next().unwrap_or(line).trim();
    if value.is_empty() || value.len() > 48 * 4 || value.chars().count() > 48 {
        return false;
    }
    let words: Vec<&str> = value
        .split_whitespace()
        // Title words: short, ending in a full stop (`Dr.`, `Prof.`, `Mag.`).
        .skip_while(|w| w.ends_with('.') && (3..=5).contains(&w.chars().count()))
        .collect();
    let capitalised = |w: &str| {
        let mut chars = w.chars();
        let first_upper = chars.next().is_some_and(char::is_uppercase);
        let rest: Vec<char> = chars.collect();
        first_upper
            && ((rest.len() == 1 && rest[0] == '.')
                || (rest.iter().any(|c| c.is_lowercase())
                    && rest
                        .iter()
                        .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’'))))
    };
    let particle = |w: &str| w.chars().count() <= 3 && w.chars().all(char::is_lowercase);
    // The networks' names (icon texts) are no one's.
    let network = |w: &str| {
        [
            "facebook",
            "instagram",
            "linkedin",
            "twitter",
            "youtube",
            "x",
        ]
        .iter()
        .any(|n| w.eq_ignore_ascii_case(n))
    };
    if words.iter().any(|w| network(w)) {
        return false;
    }
    let names = words.iter().filter(|w| capitalised(w)).count();
    (2..=4).contains(&names)
        && words.first().is_some_and(|w| capitalised(w))
        && words.last().is_some_and(|w| capitalised(w))
        && words.iter().all(|w| capitalised(w) || particle(w))
}

fn strip_subdomain(host: &str) -> &str {
    for base in [
        "facebook.com",
        "fb.com",
        "instagram.com",
        "instagr.am",
        "linkedin.com",
        "twitter.com",
        "x.com",
        "youtube.com",
    ] {
        if host == base {
            return base;
        }
        if let Some(sub) = host.strip_suffix(base).and_then(|s| s.strip_suffix('.')) {
            // www., m., mobile., and country/language sub-domains (uk.linkedin.com, de-de.facebook.com).
            let generic = matches!(sub, "www" | "m" | "mobile" | "web" | "business")
                || (sub.len() <= 5 && sub.bytes().all(|b| b.is_ascii_lowercase() || b == b'-'));
            if generic && sub != "business" && sub != "developers" {
                return base;
            }
            return "";
        }
    }
    ""
}

fn valid_handle(s: &str, max: usize) -> bool {
    !s.is_empty()
        && s.len() <= max
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '.' | '_' | '-' | '%' | '&' | '\'' | '!'))
}

/// Whether a path segment ends in a numeric id of at least six digits (`Name-61500000012345`,
/// `100063512345678`).
fn ends_in_id(segment: &str) -> bool {
    let digits = segment.bytes().rev().take_while(u8::is_ascii_digit).count();
    digits >= 6
        && (digits == segment.len() || segment.as_bytes()[segment.len() - digits - 1] == b'-')
}

fn facebook(url: &Url, segments: &[&str]) -> Option<(Network, String)> {
    const RESERVED: &[&str] = &[
        "sharer",
        "sharer.php",
        "share.php",
        "share",
        "dialog",
        "plugins",
        "login",
        "login.php",
        "l.php",
        "rsrc.php",
        "apps",
        "events",
        "friends",
        "images",
        "photo.php",
        "photo",
        "photos",
        "reel",
        "reels",
        "stories",
        "chat",
        "ajax",
        "dyi",
        "common",
        "policies",
        "policy.php",
        "privacy",
        "recover",
        "reg",
        "r.php",
        "help",
        "security",
        "messages",
        "marketplace",
        "live",
        "bookmarks",
        "games",
        "fundraisers",
        "saved",
        "gaming",
        "jobs",
        "people",
        "ads",
        "ad_campaign",
        "weather",
        "offers",
        "recommendations",
        "settings",
        "connect",
        "business",
        "intern",
        "watch",
        "home.php",
        "home",
        "tr",
        "v2.0",
        "search",
        "hashtag",
        "story.php",
        "permalink.php",
        "media",
        "video.php",
        "notes",
        "pg",
        "legal",
        "terms",
        "about",
        "campaign",
        "careers",
        "signup",
        "index.php",
        "2008",
        "badges",
        "find-friends",
        "pages.php",
        "places",
    ];
    let first = *segments.first()?;
    let lower = first.to_ascii_lowercase();
    // A profile or page shared from the app (`/share/<id>/`) redirects to the profile; shared
    // posts, videos and reels (`/share/p/…`, `/share/v/…`, `/share/r/…`) are not profiles.
    if lower == "share" {
        let id = segments.get(1).filter(|_| segments.len() == 2)?;
        return (id.len() >= 6 && id.bytes().all(|b| b.is_ascii_alphanumeric())).then(|| {
            (
                Network::Facebook,
                format!("https://facebook.com/share/{id}"),
            )
        });
    }
    if lower == "profile.php" {
        let id = url
            .query_pairs()
            .find(|(k, _)| k == "id")
            .map(|(_, v)| v.to_string())?;
        if !id.bytes().all(|b| b.is_ascii_digit()) || id.is_empty() {
            return None;
        }
        return Some((
            Network::Facebook,
            format!("https://facebook.com/profile.php?id={id}"),
        ));
    }
    // A page or profile named with its numeric id: `/p/<Name>-<id>` (new pages),
    // `/people/<Name>/<id>` (people), `/pages/category/<Category>/<Name>-<id>`.
    if lower == "p" {
        let page = segments
            .get(1)
            .filter(|p| ends_in_id(p) && valid_handle(p, 120))?;
        return Some((Network::Facebook, format!("https://facebook.com/p/{page}")));
    }
    if lower == "people" {
        let (name, id) = (segments.get(1)?, segments.get(2)?);
        return (valid_handle(name, 120) && ends_in_id(id)).then(|| {
            (
                Network::Facebook,
                format!("https://facebook.com/people/{name}/{id}"),
            )
        });
    }
    if lower == "pages"
        && segments
            .get(1)
            .is_some_and(|s| s.eq_ignore_ascii_case("category"))
    {
        let (category, page) = (segments.get(2)?, segments.get(3)?);
        return (valid_handle(category, 120) && ends_in_id(page) && valid_handle(page, 120)).then(
            || {
                (
                    Network::Facebook,
                    format!("https://facebook.com/pages/category/{category}/{page}"),
                )
            },
        );
    }
    if lower == "pages" {
        // Old page URLs: /pages/<Name>/<id> (also /pages/<Category>/<Name>/<id>).
        if matches!(
            segments.get(1).map(|s| s.to_ascii_lowercase()).as_deref(),
            Some("create" | "launchpoint")
        ) {
            return None;
        }
        let id_index = segments
            .iter()
            .position(|s| s.bytes().all(|b| b.is_ascii_digit()))?;
        if id_index < 2 {
            return None;
        }
        let path = segments[..=id_index].join("/");
        return Some((Network::Facebook, format!("https://facebook.com/{path}")));
    }
    if lower == "groups" {
        let group = segments.get(1)?;
        return valid_handle(group, 100).then(|| {
            (
                Network::Facebook,
                format!("https://facebook.com/groups/{group}"),
            )
        });
    }
    if RESERVED.contains(&lower.as_str())
        || lower.ends_with(".php")
        || lower.ends_with(".html")
        || !valid_handle(first, 80)
    {
        return None;
    }
    Some((Network::Facebook, format!("https://facebook.com/{first}")))
}

fn instagram(segments: &[&str]) -> Option<(Network, String)> {
    const RESERVED: &[&str] = &[
        "p",
        "reel",
        "reels",
        "tv",
        "explore",
        "stories",
        "accounts",
        "direct",
        "about",
        "developer",
        "legal",
        "privacy",
        "web",
        "static",
        "emails",
        "_n",
        "_u",
        "oauth",
        "challenge",
        "create",
        "share",
        "sharer",
        "invites",
    ];
    let first = *segments.first()?;
    let lower = first.to_ascii_lowercase();
    if RESERVED.contains(&lower.as_str()) || !valid_handle(first, 30) || first.contains('%') {
        return None;
    }
    Some((Network::Instagram, format!("https://instagram.com/{first}")))
}

fn linkedin(url: &Url, segments: &[&str]) -> Option<(Network, String)> {
    // The mobile site's prefix (`/mwlite/company/…`) names the same profile.
    let segments = match segments.first() {
        Some(first) if first.eq_ignore_ascii_case("mwlite") => &segments[1..],
        _ => segments,
    };
    let first = segments.first()?.to_ascii_lowercase();
    match first.as_str() {
        "company" | "school" | "in" | "showcase" | "pub" => {
            let id = segments.get(1)?;
            if !valid_handle(id, 100) {
                return None;
            }
            if first == "pub" {
                // Old public profiles: /pub/<name>/<a>/<b>/<c>.
                let path: Vec<&str> = segments.iter().take(5).copied().collect();
                return Some((
                    Network::LinkedIn,
                    format!("https://linkedin.com/{}", path.join("/")),
                ));
            }
            if first == "company" && matches!(id.to_ascii_lowercase().as_str(), "setup" | "login") {
                return None;
            }
            Some((
                Network::LinkedIn,
                format!("https://linkedin.com/{first}/{id}"),
            ))
        }
        "groups" | "groups.php" | "e" => {
            // /groups/<name-or-id>, /groups?gid=<id>, /e/gis/<id>.
            let from_query = url
                .query_pairs()
                .find(|(k, _)| k == "gid" || k == "home")
                .map(|(_, v)| v.to_string())
                .filter(|v| v.bytes().all(|b| b.is_ascii_digit()) && !v.is_empty());
            let id = match from_query {
                Some(id) => id,
                None if first == "groups" => {
                    let id = segments.get(1)?;
                    valid_handle(id, 150).then(|| id.to_string())?
                }
                None => return None,
            };
            Some((
                Network::LinkedIn,
                format!("https://linkedin.com/groups/{id}"),
            ))
        }
        _ => None,
    }
}

fn x(segments: &[&str]) -> Option<(Network, String)> {
    const RESERVED: &[&str] = &[
        "oauth",
        "account",
        "tos",
        "privacy",
        "signup",
        "home",
        "hashtag",
        "search",
        "login",
        "widgets",
        "i",
        "settings",
        "start",
        "share",
        "intent",
        "oct",
        "messages",
        "explore",
        "notifications",
        "jobs",
        "compose",
        "post",
        "download",
        "logout",
        "about",
        "help",
        "following",
        "followers",
        "lists",
        "rules",
        "en",
        "personalization",
        "web",
    ];
    let first = segments.first()?.trim_start_matches('@');
    let lower = first.to_ascii_lowercase();
    if RESERVED.contains(&lower.as_str()) || lower.ends_with(".php") || lower.ends_with(".html") {
        return None;
    }
    // A handle: 1–15 letters, digits or underscores.
    if first.is_empty()
        || first.len() > 15
        || !first
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_')
    {
        return None;
    }
    // /<handle>/status/<id> is a post, not the profile link the page meant.
    if matches!(
        segments.get(1).map(|s| s.to_ascii_lowercase()).as_deref(),
        Some("status" | "statuses")
    ) {
        return None;
    }
    Some((Network::X, format!("https://x.com/{first}")))
}

fn youtube(segments: &[&str]) -> Option<(Network, String)> {
    let first = *segments.first()?;
    let lower = first.to_ascii_lowercase();
    match lower.as_str() {
        "channel" | "c" | "user" => {
            let id = segments.get(1)?;
            if !valid_handle(id.trim_start_matches('@'), 100)
                || (lower != "c" && id.starts_with('@'))
            {
                return None;
            }
            Some((
                Network::YouTube,
                format!("https://youtube.com/{lower}/{id}"),
            ))
        }
        _ if first.starts_with('@') => valid_handle(&first[1..], 100)
            .then(|| (Network::YouTube, format!("https://youtube.com/{first}"))),
        "watch"
        | "embed"
        | "v"
        | "playlist"
        | "results"
        | "feed"
        | "shorts"
        | "live"
        | "subscription_center"
        | "redirect"
        | "signin"
        | "login"
        | "account"
        | "t"
        | "about"
        | "howyoutubeworks"
        | "premium"
        | "kids"
        | "music"
        | "gaming"
        | "attribution_link"
        | "get_video"
        | "view_play_list"
        | "yt"
        | "ads"
        | "creators"
        | "index"
        | "share" => None,
        _ if lower.contains('.') || lower.contains('?') => None,
        // Legacy custom URLs (`youtube.com/<name>`).
        _ => valid_handle(first, 100)
            .then(|| (Network::YouTube, format!("https://youtube.com/{first}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(href: &str) -> Option<String> {
        classify(href).map(|(_, u)| u)
    }

    /// The host test as first written: the host as written ends with a network's host, whole
    /// or after a dot.
    fn mentions_network_by_suffix(href: &str) -> bool {
        let Some(rest) = after_web_scheme(href) else {
            return looks_like_social_host(href);
        };
        let host = rest.split(['/', '?', '#', ':']).next().unwrap_or(rest);
        NETWORK_HOSTS.iter().any(|(name, suffix)| {
            let base = format!("{name}.{suffix}");
            host.len() >= base.len()
                && host.as_bytes()[host.len() - base.len()..].eq_ignore_ascii_case(base.as_bytes())
                && (host.len() == base.len()
                    || host.as_bytes()[host.len() - base.len() - 1] == b'.')
        })
    }

    #[test]
    fn the_host_test_compares_the_last_two_labels() {
        for href in [
            "https://www.facebook.com/acme",
            "https://facebook.com",
            "HTTP://M.FaceBook.COM:443/x",
            "//instagr.am/p",
            "https://notfacebook.com/x",
            "https://facebook.com.evil.net/x",
            "https://x.com?x",
            "https://ax.com#y",
            "https://.x.com/",
            "https://com/",
            "https://acme.com/facebook.com",
            "https://user@facebook.com/",
            "https://",
            "/about",
            "www.youtube.com/@acme",
        ] {
            assert_eq!(
                mentions_network(href),
                mentions_network_by_suffix(href),
                "{href}"
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn the_host_test_agrees_with_the_suffix_test(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "https://", "HTTP://", "//", "www.", ".", "x", "X", "com", "COM", "am",
                    "facebook", "fb", "instagr", "youtube", "linkedin", "twitter", "a", "/", "?",
                    "#", ":", "@", "é", "-",
                ]),
                0..8,
            ),
        ) {
            let href = parts.concat();
            proptest::prop_assert_eq!(
                mentions_network(&href),
                mentions_network_by_suffix(&href),
                "{}",
                href
            );
        }

        #[test]
        fn a_host_without_a_scheme_reads_as_every_host_compared(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "www.", "WWW.", "facebook.com/", "Instagram.COM/", "linkedin.com/",
                    "twitter.com/", "x.com/", "YouTube.com/", "/", "#", "a", "f", "X", "é",
                ]),
                0..4,
            ),
        ) {
            let href = parts.concat();
            let plain = {
                let rest = if starts_with_ignore_ascii_case(&href, "www.") {
                    &href[4..]
                } else {
                    &href[..]
                };
                ["facebook.com/", "instagram.com/", "linkedin.com/", "twitter.com/", "x.com/",
                 "youtube.com/"]
                    .iter()
                    .any(|h| starts_with_ignore_ascii_case(rest, h))
            };
            proptest::prop_assert_eq!(looks_like_social_host(&href), plain, "{}", href);
        }
    }

    #[test]
    fn profiles_are_canonicalised() {
        assert_eq!(
            c("http://www.facebook.com/AcmeCo/?ref=ts"),
            Some("https://facebook.com/AcmeCo".into())
        );
        assert_eq!(
            c("https://m.facebook.com/profile.php?id=123&ref=x"),
            Some("https://facebook.com/profile.php?id=123".into())
        );
        assert_eq!(
            c("https://www.facebook.com/pages/Acme-Co/123456789"),
            Some("https://facebook.com/pages/Acme-Co/123456789".into())
        );
        assert_eq!(
            c("http://twitter.com/#!/acme"),
            Some("https://x.com/acme".into())
        );
        assert_eq!(
            c("http://twitter.com/#%21/acme"),
            Some("https://x.com/acme".into())
        );
        assert_eq!(c("https://x.com/acme/"), Some("https://x.com/acme".into()));
        assert_eq!(
            c("https://uk.linkedin.com/company/acme-ltd/about/?trk=x"),
            Some("https://linkedin.com/company/acme-ltd".into())
        );
        assert_eq!(
            c("http://www.linkedin.com/groups?gid=2345&trk=hb"),
            Some("https://linkedin.com/groups/2345".into())
        );
        assert_eq!(
            c("https://www.linkedin.com/in/jane-doe"),
            Some("https://linkedin.com/in/jane-doe".into())
        );
        assert_eq!(
            c("https://www.instagram.com/acme.co/"),
            Some("https://instagram.com/acme.co".into())
        );
        assert_eq!(
            c("https://www.youtube.com/user/AcmeTV"),
            Some("https://youtube.com/user/AcmeTV".into())
        );
        assert_eq!(
            c("https://youtube.com/@acme"),
            Some("https://youtube.com/@acme".into())
        );
        assert_eq!(
            c("www.facebook.com/acme"),
            Some("https://facebook.com/acme".into())
        );
        // Scheme and host as written, in any ASCII case.
        assert_eq!(
            c("HTTPS://WWW.Instagram.COM/acme.co"),
            Some("https://instagram.com/acme.co".into())
        );
        assert_eq!(
            c("WWW.Facebook.com/acme"),
            Some("https://facebook.com/acme".into())
        );
        assert_eq!(
            c("YouTube.com/@acme"),
            Some("https://youtube.com/@acme".into())
        );
    }

    #[test]
    fn a_facebook_profile_shared_from_the_app_is_a_profile() {
        assert_eq!(
            c("https://www.facebook.com/share/1AbCdEfGhI/?mibextid=wwXIfr").as_deref(),
            Some("https://facebook.com/share/1AbCdEfGhI")
        );
        // Shared posts, videos and reels are not.
        for href in [
            "https://www.facebook.com/share/p/1AbCdEfGhI/",
            "https://www.facebook.com/share/v/1AbCdEfGhI/",
            "https://www.facebook.com/share/r/1AbCdEfGhI/",
            "https://www.facebook.com/share/",
        ] {
            assert_eq!(c(href), None, "{href}");
        }
    }

    #[test]
    fn share_intent_video_and_roots_are_not_profiles() {
        for href in [
            "https://www.facebook.com/sharer/sharer.php?u=x",
            "https://www.facebook.com/dialog/share?x",
            "https://www.facebook.com/share.php?u=x",
            "https://www.facebook.com/plugins/like.php",
            "https://www.facebook.com/",
            "http://www.facebook.com",
            "https://twitter.com/intent/tweet?text=x",
            "https://twitter.com/share",
            "https://twitter.com/home?status=x",
            "https://twitter.com/search?q=x",
            "https://twitter.com/hashtag/x",
            "https://twitter.com/acme/status/123",
            "https://www.instagram.com/p/abc/",
            "https://www.instagram.com/reel/abc/",
            "https://www.instagram.com/explore/tags/x",
            "https://www.youtube.com/watch?v=abc",
            "https://www.youtube.com/embed/abc",
            "https://www.youtube.com/",
            "https://www.youtube.com/subscription_center?add_user_id=x",
            "https://www.linkedin.com/shareArticle?url=x",
            "https://www.linkedin.com/cws/share?url=x",
            "http://www.linkedin.com",
            "https://example.com/facebook.com/x",
            "https://developers.facebook.com/acme",
            "mailto:x@facebook.com",
        ] {
            assert_eq!(c(href), None, "{href}");
        }
    }

    #[test]
    fn profile_url_shapes_survive_whole() {
        for (href, want) in [
            (
                "https://www.facebook.com/p/Studio-Nord-61500000012345/",
                "https://facebook.com/p/Studio-Nord-61500000012345",
            ),
            (
                "https://m.facebook.com/pages/category/Pub/Petit-Caf%C3%A9-900000000123456/?locale2=fr_FR",
                "https://facebook.com/pages/category/Pub/Petit-Café-900000000123456",
            ),
            (
                "https://www.facebook.com/pages/Acme-Co/Berlin/123456789",
                "https://facebook.com/pages/Acme-Co/Berlin/123456789",
            ),
            (
                "https://www.facebook.com/people/Anna-Muster/100063512345678/",
                "https://facebook.com/people/Anna-Muster/100063512345678",
            ),
            (
                "https://de-de.facebook.com/profile.php?id=100089123456789&sk=about",
                "https://facebook.com/profile.php?id=100089123456789",
            ),
            (
                "https://www.linkedin.com/company/acme-gmbh/?locale=de_DE",
                "https://linkedin.com/company/acme-gmbh",
            ),
            (
                "https://ch.linkedin.com/company/acme-ag/about/?originalSubdomain=ch",
                "https://linkedin.com/company/acme-ag",
            ),
            (
                "https://www.linkedin.com/mwlite/company/acme-gmbh",
                "https://linkedin.com/company/acme-gmbh",
            ),
            (
                "https://www.youtube.com/@StudioNord/videos",
                "https://youtube.com/@StudioNord",
            ),
            (
                "https://www.youtube.com/channel/UCa1b2c3d4e5f6g7h8i9j0k/featured",
                "https://youtube.com/channel/UCa1b2c3d4e5f6g7h8i9j0k",
            ),
        ] {
            assert_eq!(c(href).as_deref(), Some(want), "{href}");
        }
    }

    /// The profile links a whole page yields, as canonical URLs.
    fn page_profiles(html: &str) -> Vec<String> {
        let url = url::Url::parse("https://shop.example/").unwrap();
        crate::extract::extract_page(&url, None, html.as_bytes())
            .socials
            .into_iter()
            .map(|(_, u)| u)
            .collect()
    }

    /// Class: profiles in repeated person cards (team, testimonials, reviews, authors) are
    /// the people's, not the business's.
    #[test]
    fn profiles_in_repeated_person_cards_are_not_the_businesss() {
        // German team page: a name, a role and a LinkedIn icon per card.
        let team = r#"<html><body><header><a href="https://www.linkedin.com/company/praxis-am-see/">LinkedIn</a></header>
<main><h2>Unser Team</h2>
<div class="card"><h3>Anna Berger</h3><p>Zahnärztin</p><a href="https://www.linkedin.com/in/anna-berger-1a2b3c/"><img alt=""></a></div>
<div class="card"><h3>Jonas Keller</h3><p>Prophylaxe</p><a href="https://www.linkedin.com/in/jonas-keller/"><img alt=""></a></div>
<div class="card"><h3>Lea Vogt</h3><p>Empfang</p><a href="https://www.linkedin.com/in/lea-vogt-77/"><img alt=""></a></div>
</main></body></html>"#;
        assert_eq!(
            page_profiles(team),
            ["https://linkedin.com/company/praxis-am-see"]
        );
        // Spanish testimonials: a name, a quote and the customer's Facebook per card.
        let reviews = r#"<html><body><header><a href="https://www.facebook.com/panaderia.sol">Facebook</a></header>
<section><h2>Testimonios</h2>
<blockquote><p>“Excelente pan, atención de primera.”</p><cite>María López</cite><a href="https://www.facebook.com/maria.lopez.5821">Facebook</a></blockquote>
<blockquote><p>“Muy recomendable, volveremos.”</p><cite>Carlos Ruiz</cite><a href="https://www.facebook.com/carlos.ruiz.1990">Facebook</a></blockquote>
</section></body></html>"#;
        assert_eq!(
            page_profiles(reviews),
            ["https://facebook.com/panaderia.sol"]
        );
        // Authors: a Polish blog's author boxes with X and Instagram icons.
        let authors = r#"<html><body><main><article><p>Tekst.</p>
<div class="author"><p>Autor: Ewa Nowak</p><a href="https://x.com/ewanowak_pl">X</a><a href="https://www.instagram.com/ewa.nowak.foto/">Instagram</a></div></article>
<article><p>Tekst.</p>
<div class="author"><p>Autor: Piotr Zieliński</p><a href="https://x.com/pzielinski">X</a><a href="https://www.instagram.com/piotr.z.foto/">Instagram</a></div></article></main>
<footer><a href="https://www.instagram.com/kwiaciarnia.roza/">Instagram</a></footer></body></html>"#;
        assert_eq!(
            page_profiles(authors),
            ["https://instagram.com/kwiaciarnia.roza"]
        );
        // Two rows of the business's own icons, named by their networks, are not cards.
        let rows = r#"<html><body><nav><a href="/">Start</a></nav>
<p><a href="https://www.instagram.com/cafe.morgen/">Instagram</a> <a href="https://www.facebook.com/cafe.morgen">Facebook</a></p>
<h2>Besuchen Sie uns</h2><p>Lindenweg 4</p><p>Telefon: 030 1234567</p><p>E-Mail: hallo@shop.example</p>
<p><a href="https://www.facebook.com/cafe.morgen.mitte"><i></i></a><a href="https://www.instagram.com/cafe.morgen.mitte/"><i></i></a></p>
<h2>Öffnungszeiten</h2><p>Mo–Fr 8–18 Uhr</p></body></html>"#;
        assert_eq!(page_profiles(rows).len(), 4);
    }

    /// Class: a profile next to a person's name, on a page where the business links its own
    /// profile on that network, is the person's.
    #[test]
    fn a_profile_next_to_a_persons_name_is_the_persons_when_the_business_has_its_own() {
        // French: the founder's Instagram under her name; the shop's own in the header.
        let page = r#"<html><body><header><a href="https://www.instagram.com/atelier.lumiere/">Instagram</a></header>
<main><h2>Notre histoire</h2><p>Fondé en 2012.</p><p>Claire Dubois</p><a href="https://www.instagram.com/claire.dubois.ceramique/">@claire.dubois.ceramique</a></main></body></html>"#;
        assert_eq!(
            page_profiles(page),
            ["https://instagram.com/atelier.lumiere"]
        );
        // English: an author link whose text is the person's name.
        let page = r#"<html><body><header><a href="https://x.com/brightloop_uk">Follow us</a></header>
<main><p>Ten tips for your garden.</p><p>Written by <a href="https://x.com/tombaker_writes">Tom Baker</a></p></main></body></html>"#;
        assert_eq!(page_profiles(page), ["https://x.com/brightloop_uk"]);
        // A sole trader's own profile next to their name, and no other, stays.
        let page = r#"<html><body><main><h2>Kontakt</h2><p>Norbert Huber</p><a href="https://www.linkedin.com/in/norbert-huber-wien/">LinkedIn</a></main></body></html>"#;
        assert_eq!(
            page_profiles(page),
            ["https://linkedin.com/in/norbert-huber-wien"]
        );
        // The business's icons in a row are not person cards.
        let page = r#"<html><body><footer><p>Folgen Sie uns</p><ul>
<li><a href="https://www.facebook.com/gasthaus.linde"><img alt="Facebook"></a></li>
<li><a href="https://www.instagram.com/gasthaus.linde/"><img alt="Instagram"></a></li>
<li><a href="https://www.youtube.com/@gasthauslinde"><img alt="YouTube"></a></li></ul></footer></body></html>"#;
        assert_eq!(page_profiles(page).len(), 3);
    }

    /// Class: photo, reel and profile links without an id are never profiles.
    #[test]
    fn photos_reels_and_profile_php_without_an_id_are_not_profiles() {
        for href in [
            "https://www.facebook.com/photo/?fbid=123456789&set=a.987654321",
            "https://www.facebook.com/photo?fbid=123456789",
            "https://www.facebook.com/reel/123456789012345",
            "https://www.facebook.com/profile.php",
            "https://www.facebook.com/profile.php?ref=bookmarks",
            "https://www.facebook.com/dialog/feed?app_id=1",
            "https://www.facebook.com/sharer.php?u=https%3A%2F%2Fshop.example",
        ] {
            assert_eq!(c(href), None, "{href}");
        }
    }

    #[test]
    fn shapes_without_a_profile_are_not_profiles() {
        for href in [
            "https://www.facebook.com/p/",
            "https://www.facebook.com/pages/category/Pub/",
            "https://www.facebook.com/people/Anna-Muster/",
            "https://www.facebook.com/home",
            "https://www.facebook.com/index.html",
            "https://www.linkedin.com/sharing/share-offsite/?url=x",
            "https://www.linkedin.com/feed/",
        ] {
            assert_eq!(c(href), None, "{href}");
        }
    }
}
