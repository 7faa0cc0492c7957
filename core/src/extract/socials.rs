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
/// wykonanie: Jan Kowalski"), and a footer link at most `sections::MAX_SECTION_LINES` lines
/// after one when the page linked a profile before that range (the maker's "Socialize" icons
/// under their credit, while the business's own icons came earlier).
pub fn business_profiles<'l>(
    links: impl Iterator<Item = (&'l str, &'l str, bool, usize)>,
    text: &str,
    third_party: &[Range<usize>],
    line_starts: &[usize],
) -> Vec<(usize, Network, String)> {
    let line_of = |pos: usize| line_starts.partition_point(|start| *start <= pos);
    // In document order, so its first entry is the earliest profile kept.
    let mut kept: Vec<(usize, Network, String)> = Vec::new();
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
        if third_party.is_empty() {
            kept.push((pos, network, url));
            continue;
        }
        if sections::link_inside(third_party, text, pos, link_text) {
            continue;
        }
        let under_a_credit = in_footer
            && third_party.iter().any(|range| {
                range.end <= pos
                    && line_of(pos) - line_of(range.end) <= sections::MAX_SECTION_LINES
                    && kept
                        .first()
                        .is_some_and(|(first, _, _)| *first < range.start)
            });
        if !under_a_credit {
            kept.push((pos, network, url));
        }
    }
    kept
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
        "photos",
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
