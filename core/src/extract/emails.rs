//! Email addresses: `mailto:` targets, visible text, Cloudflare email protection and textual
//! obfuscations (`[at]`, `(at)`, `(a)`, ` at ` … ` dot `), validated and lower-cased.
//!
//! Rules from docs/extraction.md: percent-decode `mailto:` and cut its query
//! (keeping `cc`/`bcc`/`to` recipients), split multiple recipients, require a public suffix that
//! is not a file extension, and drop image names (`logo@2x.png`), placeholders, hashes (Sentry
//! DSNs) and the addresses of error trackers and site builders.

use std::borrow::Cow;

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::extract::limits::first_distinct;
use crate::extract::page_budget::PageBudget;
use crate::extract::whitespace;
use crate::lexicon::{self, Class};

/// Longest local part (RFC 5321 §4.5.3.1.1), in bytes.
const MAX_LOCAL: usize = 64;
/// Longest domain (RFC 5321 §4.5.3.1.2), in bytes.
const MAX_DOMAIN: usize = 253;

/// Emails in one `mailto:` href (entity-decoded), normalised ([`normalise`] with the page's
/// registrable domain `site`), each once, in order; empty when
/// none is valid. Each recipient is charged to the page's `budget` (work: its bytes; copy: the
/// address kept, twice with its de-duplication key); once the budget is spent the recipients
/// read so far are returned.
pub fn from_mailto(href: &str, site: Option<&str>, budget: &PageBudget) -> Vec<String> {
    let Some(rest) = strip_prefix_ci(whitespace::trim(href), "mailto:") else {
        return Vec::new();
    };
    let (to, query) = rest.split_once('?').unwrap_or((rest, ""));
    let mut out = Vec::new();
    let mut push_all = |list: &str| {
        if !budget.work(list.len()) {
            return;
        }
        let decoded = percent_encoding::percent_decode_str(list).decode_utf8_lossy();
        for part in decoded.split([',', ';']) {
            if !budget.work(part.len() + 1) {
                return;
            }
            if let Some(email) = normalise(part.trim().trim_matches(['<', '>', '"', '\'']), site) {
                if budget.copy(2 * email.len()) {
                    out.push(email);
                }
            }
        }
    };
    push_all(to);
    for pair in query.split('&') {
        if let Some((key, value)) = pair.split_once('=') {
            if ["to", "cc", "bcc"]
                .iter()
                .any(|k| key.eq_ignore_ascii_case(k))
            {
                push_all(value);
            }
        }
    }
    // One ordered-set look-up per recipient: a scan of those kept before it made a crafted
    // list of 200 000 recipients quadratic (over a minute).
    first_distinct(out, usize::MAX, String::clone)
}

/// Decodes a Cloudflare email-protection payload: hex pairs, the first byte is the XOR key for
/// the rest; the result is UTF-8 (it may itself be percent-encoded). Returns the normalised
/// address, or `None` for a malformed payload or an invalid address.
pub fn from_cloudflare(hex: &str, site: Option<&str>) -> Option<String> {
    let hex = hex.trim();
    if hex.len() < 4 || !hex.len().is_multiple_of(2) || hex.len() > 1024 {
        return None;
    }
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    let (&key, rest) = bytes.split_first()?;
    let plain: Vec<u8> = rest.iter().map(|b| b ^ key).collect();
    let text = String::from_utf8(plain).ok()?;
    let text = percent_encoding::percent_decode_str(&text)
        .decode_utf8()
        .ok()?;
    normalise(text.trim(), site)
}

/// Emails written in one line of visible text, plain or obfuscated, in order, each with its
/// byte offset in `line`. `site` is the page's registrable domain: an address spelled with
/// the plain word "at" (`info at acme dot com`) counts only on it (or a subdomain) or at a
/// well-known mail provider ([`MAIL_PROVIDERS`]), so prose ("find us at booking dot com")
/// never turns into an email. Charged to the page's `budget`; once it is spent the addresses
/// read so far are returned.
pub fn from_text(line: &str, site: Option<&str>, budget: &PageBudget) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    // Charged to the page's budget (`page_budget.rs`): reading the address around an `@` is
    // about a microsecond of work, and the address found is a copy.
    let read = |at: usize, at_len: usize, out: &mut Vec<(usize, String)>| {
        if !budget.work(256) {
            return false;
        }
        if let Some((start, email)) = around(line, at, at_len, site) {
            if budget.copy(email.len()) {
                out.push((start, email));
            }
        }
        true
    };
    for at in memchr::memchr_iter(b'@', line.as_bytes()) {
        if !read(at, 1, &mut out) {
            break;
        }
    }
    // Full-width commercial at (U+FF20) is 3 bytes in UTF-8.
    for at in memchr::memmem::find_iter(line.as_bytes(), "＠") {
        if !read(at, '＠'.len_utf8(), &mut out) {
            break;
        }
    }
    if line.len() < 4096 && budget.work(line.len()) {
        out.extend(deobfuscated(line, site));
    }
    out.sort_by_key(|(pos, _)| *pos);
    out.dedup_by(|a, b| a.1 == b.1);
    out
}

/// Byte offsets in `text`, in increasing order, where an address may be written: every `@`
/// (also full-width) and a byte inside every at-token of the obfuscated forms (ASCII
/// case-insensitive), on the same line as the token. One vectorised pass per opening byte:
/// every at-token without an `@` opens with a bracket (`[at]`, `(a)`, `{at}`, `<at>`), holds
/// one right after its opening space (` (at) `, ` [at] `) or is a word after a space (` at `,
/// ` arobase `: one search for each first letter of such words, in both ASCII cases).
pub fn candidate_positions(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut positions: Vec<usize> = memchr::memchr_iter(b'@', bytes).collect();
    // A substring search: `str::match_indices` looks for the char's last byte, 0xA0, which
    // every no-break space holds.
    positions.extend(memchr::memmem::find_iter(bytes, "＠"));
    let brackets =
        memchr::memchr3_iter(b'[', b'(', b'{', bytes).chain(memchr::memchr_iter(b'<', bytes));
    positions.extend(brackets.filter(|&at| at_token_at(&bytes[at..])));
    let table = at_table();
    for &first in &table.word_firsts {
        let cases = [first.to_ascii_lowercase(), first.to_ascii_uppercase()];
        let cases = if cases[0] == cases[1] {
            &cases[..1]
        } else {
            &cases[..]
        };
        for &case in cases {
            let needle = [b' ', case];
            let found = memchr::memmem::find_iter(bytes, &needle);
            positions.extend(found.filter(|&at| {
                // ` at ` and ` arobase `, the at-tokens that open with a space and a letter.
                let after = &bytes[at + 1..];
                let second = after.get(1).copied().unwrap_or(0);
                if !table.word_seconds[usize::from(second)] {
                    return false;
                }
                table.words.iter().any(|word| {
                    after.get(..word.len()).is_some_and(|head| {
                        head.eq_ignore_ascii_case(word.as_bytes())
                            && after.get(word.len()) == Some(&b' ')
                    })
                })
            }));
        }
    }
    positions.sort_unstable();
    positions
}

/// Whether `rest` starts with an at-token (ASCII case-insensitive, as [`at_tokens`] matches).
fn at_token_at(rest: &[u8]) -> bool {
    at_table().tokens.iter().any(|token| {
        rest.get(..token.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(token.as_bytes()))
    })
}

/// Lower-cases and validates one address; `None` when it is not a usable business address.
/// `site` is the page's registrable domain (ASCII, as the URL gives it): a generic local part
/// (`email@`, `name@`) is a placeholder elsewhere but a mailbox there ([`is_unwanted`]).
///
/// Domains may be internationalised (RFC 5890, UTS #46 mapping): validated in their ASCII
/// (punycode) form and returned in their Unicode form, so `info@xn--bckerei-…de` and
/// `info@bäckerei-….de` are one address.
pub fn normalise(candidate: &str, site: Option<&str>) -> Option<String> {
    let candidate = candidate.trim().trim_end_matches(['.', ',', ';', ':']);
    let (local, domain) = candidate.rsplit_once('@')?;
    let local = local.trim_start_matches(['.', '\'']);
    if local.is_empty() || local.len() > MAX_LOCAL || !local.bytes().all(is_local_byte) {
        return None;
    }
    if local.starts_with('.') || local.ends_with('.') || local.contains("..") {
        return None;
    }
    let domain = domain.trim_end_matches('.');
    let (ascii, shown) = if domain.is_ascii() && !domain.to_ascii_lowercase().contains("xn--") {
        (domain.to_ascii_lowercase(), None)
    } else {
        let ascii = idna::domain_to_ascii(domain).ok()?;
        let (unicode, checked) = idna::domain_to_unicode(&ascii);
        checked.ok()?;
        (ascii, Some(unicode))
    };
    if ascii.len() > MAX_DOMAIN || !valid_domain(&ascii) {
        return None;
    }
    let local = local.to_ascii_lowercase();
    if is_unwanted(&local, &ascii, site) {
        return None;
    }
    Some(format!("{local}@{}", shown.unwrap_or(ascii)))
}

/// Whether `email`'s domain is the site's registrable domain `site` (ASCII), one of its
/// subdomains, or the same name spelled with diacritics (`café-exemplo.pt` for the site
/// `cafe-exemplo.pt`: a business registers both spellings of its name, RFC 5890 IDN).
pub fn on_site(email: &str, site: Option<&str>) -> bool {
    let (Some((_, domain)), Some(site)) = (email.rsplit_once('@'), site) else {
        return false;
    };
    let ascii = if domain.is_ascii() {
        domain.to_ascii_lowercase()
    } else {
        match idna::domain_to_ascii(domain) {
            Ok(ascii) => ascii,
            Err(_) => return false,
        }
    };
    let under = |domain: &str| {
        domain == site
            || domain
                .strip_suffix(site)
                .is_some_and(|sub| sub.ends_with('.'))
    };
    if under(&ascii) {
        return true;
    }
    let lower = domain.to_lowercase();
    !domain.is_ascii()
        && (under(&fold_diacritics(&lower, false)) || under(&fold_diacritics(&lower, true)))
}

/// `text` with Latin letters' diacritics dropped (`ç` → `c`, `ø` → `o`, `ß` → `ss`); other
/// characters as they are. `umlauts`: `ä`, `ö`, `ü` written `ae`, `oe`, `ue` (the German
/// spelling without them).
fn fold_diacritics(text: &str, umlauts: bool) -> String {
    const UMLAUTS: &[(&str, &str)] = &[("ä", "ae"), ("ö", "oe"), ("ü", "ue")];
    const FOLDS: &[(&str, &str)] = &[
        ("àáâãäåāăą", "a"),
        ("çćĉċč", "c"),
        ("ďđ", "d"),
        ("èéêëēĕėęě", "e"),
        ("ĝğġģ", "g"),
        ("ĥħ", "h"),
        ("ìíîïĩīĭįı", "i"),
        ("ĵ", "j"),
        ("ķ", "k"),
        ("ĺļľŀł", "l"),
        ("ñńņňŉ", "n"),
        ("òóôõöøōŏő", "o"),
        ("ŕŗř", "r"),
        ("śŝşšș", "s"),
        ("ţťŧț", "t"),
        ("ùúûüũūŭůűų", "u"),
        ("ŵ", "w"),
        ("ýÿŷ", "y"),
        ("źżž", "z"),
        ("æ", "ae"),
        ("œ", "oe"),
        ("ß", "ss"),
        ("þ", "th"),
        ("ð", "d"),
    ];
    let mut out = String::with_capacity(text.len());
    let umlauts: &[(&str, &str)] = if umlauts { UMLAUTS } else { &[] };
    for c in text.chars() {
        match umlauts
            .iter()
            .chain(FOLDS)
            .find(|(from, _)| from.contains(c))
        {
            Some((_, to)) => out.push_str(to),
            None => out.push(c),
        }
    }
    out
}

fn is_local_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'%' | b'+' | b'-' | b'\'' | b'&' | b'=')
}

fn is_domain_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-')
}

/// The address around the `@` at byte `at` (`at_len` bytes long) in `line`.
fn around(line: &str, at: usize, at_len: usize, site: Option<&str>) -> Option<(usize, String)> {
    let bytes = line.as_bytes();
    let mut start = at;
    while start > 0 && at - start < MAX_LOCAL && is_local_byte(bytes[start - 1]) {
        start -= 1;
    }
    // `'` and `&` are legal but in running text they are quotes and conjunctions.
    while start < at && matches!(bytes[start], b'\'' | b'&' | b'=' | b'.' | b'-' | b'+') {
        start += 1;
    }
    start += glued_prefix_len(&line[..start], &line[start..at]);
    let domain_start = at + at_len;
    let mut end = domain_start;
    while end < bytes.len() && end - domain_start < MAX_DOMAIN && is_domain_byte(bytes[end]) {
        end += 1;
    }
    let local = line.get(start..at)?;
    // An internationalised domain (RFC 5890) holds letters beyond ASCII: read on over them and
    // keep that reading when it is a valid domain (`info@acme.jpお問い合わせ` is not one).
    let mut wide_end = domain_start;
    for (i, c) in line[domain_start..].char_indices() {
        if i >= MAX_DOMAIN || !(c.is_alphanumeric() || c == '.' || c == '-') {
            break;
        }
        wide_end = domain_start + i + c.len_utf8();
    }
    if wide_end > end {
        if let Some(email) = normalise(&format!("{local}@{}", &line[domain_start..wide_end]), site)
        {
            return Some((start, email));
        }
    }
    let domain = line.get(domain_start..end)?;
    normalise(&format!("{local}@{domain}"), site).map(|email| (start, email))
}

/// How many bytes at the start of a local part `local` (as written, after `before` on its line)
/// belong to the text in front of the address, written against it with no space (adjacent
/// elements): a label (`Emailinfo@x.it` from `<b>Email</b>info@x.it`, `E-Mail`, `Mail`,
/// `Correo`…, capitalised as labels are, followed by a lower-case local part; the lexicon's
/// `label.email` entries, [`glued_labels`]), or the last digits of a number
/// (`+31 6 98 76 54 32info@x.nl` from two adjacent links).
fn glued_prefix_len(before: &str, local: &str) -> usize {
    let digits = local.bytes().take_while(u8::is_ascii_digit).count();
    if (1..=4).contains(&digits)
        && local
            .as_bytes()
            .get(digits)
            .is_some_and(u8::is_ascii_alphabetic)
    {
        let trimmed = before.trim_end_matches([' ', '\u{a0}']);
        if trimmed.len() < before.len() && trimmed.ends_with(|c: char| c.is_ascii_digit()) {
            return digits;
        }
    }
    for label in glued_labels() {
        if let Some(rest) = local.strip_prefix(label.as_str()) {
            let rest = rest.trim_start_matches(['-', '.', '_']);
            if rest.len() >= 2
                && rest.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
            {
                return local.len() - rest.len();
            }
        }
    }
    0
}

/// The spellings of an email label that [`glued_prefix_len`] takes off a local part: each
/// `label.email` entry of one word capitalised (`Email`, `Mail`, `Correo`), in capitals
/// (`EMAIL`) and as the lexicon writes it when that has a capital (`E-Mail`, `EMail`). A label
/// is capitalised against the address: a lower-case word is the address's own (`mailbox@`).
/// Built once, in lexicon order.
fn glued_labels() -> &'static [String] {
    static LABELS: OnceLock<Vec<String>> = OnceLock::new();
    LABELS.get_or_init(|| {
        let mut labels: Vec<String> = Vec::new();
        for entry in lexicon::words(Class::LabelEmail).filter(|entry| !entry.contains(' ')) {
            let mut rest = entry.chars();
            let capitalised: String = rest
                .next()
                .map(|first| first.to_uppercase().chain(rest).collect())
                .unwrap_or_default();
            let as_written = entry
                .contains(char::is_uppercase)
                .then(|| entry.to_string());
            for spelling in [Some(capitalised), Some(entry.to_uppercase()), as_written]
                .into_iter()
                .flatten()
            {
                if !labels.contains(&spelling) {
                    labels.push(spelling);
                }
            }
        }
        labels
    })
}

/// A domain with at least two labels, LDH labels, and a known public suffix whose last label is
/// alphabetic and not a file extension.
fn valid_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    if labels.len() < 2 {
        return false;
    }
    let label_ok = |l: &&str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if !labels.iter().all(label_ok) {
        return false;
    }
    let tld = labels[labels.len() - 1];
    if !(tld.bytes().all(|b| b.is_ascii_alphabetic()) || tld.starts_with("xn--")) || tld.len() < 2 {
        return false;
    }
    if FILE_EXTENSIONS.contains(&tld) {
        return false;
    }
    psl::suffix(domain.as_bytes()).is_some_and(|s| s.is_known())
}

const FILE_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "svg", "css", "js", "bmp", "ico", "tif", "tiff", "pdf",
    "mp4", "webm", "mp3", "avif", "heic", "php", "html", "htm", "asp", "aspx", "json", "xml",
    "woff", "woff2", "ttf", "eot", "zip",
];

/// Placeholder, tracker and builder addresses (docs/extraction.md). `domain` is ASCII; a
/// generic local part (lexicon class `email.generic`) is a placeholder except on the site's own domain
/// `site`.
fn is_unwanted(local: &str, domain: &str, site: Option<&str>) -> bool {
    const PLACEHOLDER_DOMAINS: &[&str] = &[
        "example.com",
        "example.org",
        "example.net",
        "example.nl",
        "example.de",
        "example.co.uk",
        "domain.com",
        "domain.tld",
        "email.com",
        "yourdomain.com",
        "yoursite.com",
        "yourcompany.com",
        "company.com",
        "mysite.com",
        "website.com",
        "test.com",
        "sentry.io",
        "wixpress.com",
        "sentry-next.wixpress.com",
        "sentry.wixpress.com",
    ];
    if PLACEHOLDER_DOMAINS.contains(&domain)
        || domain.ends_with(".example")
        || domain.ends_with(".sentry.io")
        || domain.ends_with(".wixpress.com")
        || domain.starts_with("example.")
        || domain.starts_with("yourdomain.")
        || domain.starts_with("your-domain.")
    {
        return true;
    }
    if lexicon::holds(&local_words().placeholders, local) {
        return true;
    }
    if lexicon::holds(&local_words().generic, local) && !on_site(&format!("{local}@{domain}"), site)
    {
        return true;
    }
    // Retina image names (`logo@2x.png` is caught by the TLD; `icon@2x` in a path is not).
    if domain.starts_with("2x.") || domain.starts_with("3x.") {
        return true;
    }
    // Hash-like locals: Sentry DSN keys and similar machine ids.
    local.len() >= 16 && local.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The lexicon's local parts of an address, lower-case, sorted, built once.
struct LocalWords {
    /// `email.placeholder`: local parts of addresses that reach no one (`youremail`,
    /// `john.doe`, `noreply`).
    placeholders: lexicon::SortedWords,
    /// `email.generic`: local parts that name no one (`email@`, `name@`): form placeholders on
    /// a stranger's domain, a real mailbox on the site's own.
    generic: lexicon::SortedWords,
}

fn local_words() -> &'static LocalWords {
    static WORDS: OnceLock<LocalWords> = OnceLock::new();
    WORDS.get_or_init(|| LocalWords {
        placeholders: lexicon::sorted_words(&[Class::EmailPlaceholder], str::to_lowercase),
        generic: lexicon::sorted_words(&[Class::EmailGeneric], str::to_lowercase),
    })
}

/// Addresses spelled with `[at]`-style tokens. A bracketed at-token may sit next to a real
/// dot; the plain word ` at ` counts only with a dot-word (` dot `, `[dot]`…) in the domain,
/// so prose such as "email us at info@x.com" or "we are at home.com" is not taken.
fn deobfuscated(line: &str, site: Option<&str>) -> Vec<(usize, String)> {
    let Some(matcher) = at_tokens() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for found in matcher.find_iter(line) {
        // A word that is also a word of prose (`at`) is read only with a dot-word in the
        // domain and on the site's or a mail provider's domain.
        let bracketed = !at_table().prose[found.pattern().as_usize()];
        let left = line[..found.start()].trim_end();
        let local_start = left
            .bytes()
            .rposition(|b| !is_local_byte(b))
            .map_or(0, |p| p + 1);
        let local = &left[local_start..];
        // The local part is a whole word: `E-Mobilität @ EFAHRER.com` has none (`t` is the
        // end of a word whose letters are not all ASCII).
        let glued = left[..local_start]
            .chars()
            .next_back()
            .is_some_and(char::is_alphanumeric);
        let (domain, used_dot_word) = read_obfuscated_domain(line[found.end()..].trim_start());
        if local.is_empty() || glued || (!bracketed && !used_dot_word) {
            continue;
        }
        if let Some(email) = normalise(&format!("{local}@{domain}"), site) {
            if !bracketed && !at_site_or_provider(&email, site) {
                continue;
            }
            out.push((local_start, email));
        }
    }
    out
}

/// Mail providers whose addresses businesses print (an address spelled with the plain word
/// "at" counts there too).
pub const MAIL_PROVIDERS: &[&str] = &[
    "gmail.com",
    "googlemail.com",
    "outlook.com",
    "hotmail.com",
    "live.com",
    "msn.com",
    "yahoo.com",
    "icloud.com",
    "me.com",
    "aol.com",
    "proton.me",
    "protonmail.com",
    "zoho.com",
    "gmx.de",
    "gmx.net",
    "gmx.at",
    "gmx.ch",
    "web.de",
    "t-online.de",
    "freenet.de",
    "outlook.de",
    "hotmail.de",
    "yahoo.de",
    "orange.fr",
    "wanadoo.fr",
    "free.fr",
    "sfr.fr",
    "laposte.net",
    "hotmail.fr",
    "yahoo.fr",
    "outlook.fr",
    "libero.it",
    "virgilio.it",
    "hotmail.it",
    "yahoo.it",
    "ziggo.nl",
    "kpnmail.nl",
    "hetnet.nl",
    "planet.nl",
    "home.nl",
    "telenet.be",
    "skynet.be",
    "bluewin.ch",
    "seznam.cz",
    "wp.pl",
    "o2.pl",
    "interia.pl",
    "btinternet.com",
    "sky.com",
    "yahoo.co.uk",
    "hotmail.co.uk",
    "yandex.ru",
    "mail.ru",
    "telia.com",
    "eircom.net",
];

/// Whether a `mailto:` target on the registrable domain `domain` (lower-case), behind a link
/// that shows the business's address of another domain, is the owner's other mailbox (the
/// operating company's, the owner's other business's) rather than a web developer's test
/// address left behind. A developer's is a personal mailbox at a mail provider
/// ([`MAIL_PROVIDERS`]) or on the maker's own domain, which the page's credit links or writes;
/// so a target on an organisation's domain that `text` (the page's visible text) never writes
/// is the owner's. The caller also checks the page's links (the maker's credit link).
/// docs/extraction.md, "Emails".
pub fn owners_other_mailbox(domain: &str, text: &str) -> bool {
    !domain.is_empty() && !MAIL_PROVIDERS.contains(&domain) && !writes_domain(text, domain)
}

/// Whether `text` writes `domain` (lower-case) as a whole host name or the end of one
/// (`www.acme.com`, `studio@acme.com`, `acme.com/`), in any ASCII case.
fn writes_domain(text: &str, domain: &str) -> bool {
    let (bytes, wanted) = (text.as_bytes(), domain.as_bytes());
    let Some(&first) = wanted.first() else {
        return false;
    };
    // Each hit of the first byte, in either case, compared in full.
    memchr::memchr2_iter(
        first.to_ascii_lowercase(),
        first.to_ascii_uppercase(),
        bytes,
    )
    .any(|at| {
        let end = at + wanted.len();
        bytes
                .get(at..end)
                .is_some_and(|found| found.eq_ignore_ascii_case(wanted))
                && (at == 0 || !is_host_byte(bytes[at - 1]))
                && bytes.get(end).is_none_or(|b| !is_host_byte(*b))
                // `acme.com.au` is another domain than `acme.com`.
                && !(bytes.get(end) == Some(&b'.')
                    && bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric))
    })
}

/// A byte a host name holds before a domain that is not its own (a letter, digit or hyphen:
/// `xacme.com` is another domain than `acme.com`; a dot or `@` opens it).
fn is_host_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// Whether `email`'s domain is `site`'s ([`on_site`]) or a [`MAIL_PROVIDERS`] domain.
fn at_site_or_provider(email: &str, site: Option<&str>) -> bool {
    on_site(email, site)
        || email
            .rsplit_once('@')
            .is_some_and(|(_, domain)| MAIL_PROVIDERS.contains(&domain))
}

/// The at-token matcher (ASCII case-insensitive, longest match).
fn at_tokens() -> Option<&'static AhoCorasick> {
    static TOKENS: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    TOKENS
        .get_or_init(|| {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&at_table().tokens)
                .ok()
        })
        .as_ref()
}

/// The at-tokens that are no language's words: a glyph standing for `@`.
const AT_SYMBOLS: &[&str] = &["(a)", "[a]", "[@]", "(@)", " @ "];

/// The dot-tokens that are no language's words.
const DOT_SYMBOLS: &[&str] = &["[.]", "(.)", " . "];

/// The tokens of an obfuscated address, lower-case: [`AT_SYMBOLS`] and the lexicon's
/// `email.at` and `email.at.word` entries. An entry written in brackets (`[at]`, `(arobase)`)
/// is read as written (an at-token also with a space either side); an entry without brackets
/// is a word read between spaces (` arobase `, ` at `).
struct AtTable {
    /// Every at-token, in the order the at-token matcher numbers them.
    tokens: Vec<String>,
    /// For each of [`AtTable::tokens`], whether it is a word of prose (`email.at.word`).
    prose: Vec<bool>,
    /// The at-tokens that are a word between spaces, without the spaces (`at`, `arobase`).
    words: Vec<String>,
    /// The distinct first bytes of [`AtTable::words`].
    word_firsts: Vec<u8>,
    /// Whether a byte may follow the first byte of one of [`AtTable::words`] (ASCII case
    /// ignored): most spaces and letters that [`candidate_positions`] finds open prose words
    /// (` a`, ` and`), turned away by one look-up before the words are compared.
    word_seconds: [bool; 256],
    /// Every dot-token: [`DOT_SYMBOLS`] and the lexicon's `email.dot` entries (`[dot]`,
    /// ` punkt `).
    dots: Vec<String>,
}

/// Whether a lexicon entry of an obfuscated address is written in brackets (`[at]`).
fn bracketed_entry(entry: &str) -> bool {
    entry.starts_with(['[', '(', '{', '<'])
}

/// The tokens that the lexicon entries of `classes` stand for, lower-case (see [`AtTable`]);
/// `spaced` also gives each bracketed entry with a space either side (the at-matcher takes the
/// longest token, spaces included).
fn tokens_of(classes: &[Class], spaced: bool) -> Vec<String> {
    let mut tokens = Vec::new();
    for entry in lexicon::sorted_words(classes, str::to_lowercase).into_vec() {
        if bracketed_entry(&entry) {
            if spaced {
                tokens.push(format!(" {entry} "));
            }
            tokens.push(entry);
        } else {
            tokens.push(format!(" {entry} "));
        }
    }
    tokens
}

fn at_table() -> &'static AtTable {
    static TABLE: OnceLock<AtTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let plain = AT_SYMBOLS.iter().map(|s| s.to_string());
        let mut tokens: Vec<String> = plain.chain(tokens_of(&[Class::EmailAt], true)).collect();
        let mut prose = vec![false; tokens.len()];
        for token in tokens_of(&[Class::EmailAtWord], true) {
            if !tokens.contains(&token) {
                tokens.push(token);
                prose.push(true);
            }
        }
        let words: Vec<String> =
            lexicon::sorted_words(&[Class::EmailAt, Class::EmailAtWord], str::to_lowercase)
                .into_vec()
                .into_iter()
                .filter(|entry| !bracketed_entry(entry))
                .collect();
        let mut word_firsts: Vec<u8> = words.iter().filter_map(|w| w.bytes().next()).collect();
        word_firsts.sort_unstable();
        word_firsts.dedup();
        let mut word_seconds = [false; 256];
        for word in &words {
            match word.as_bytes().get(1) {
                Some(&second) => {
                    word_seconds[usize::from(second.to_ascii_lowercase())] = true;
                    word_seconds[usize::from(second.to_ascii_uppercase())] = true;
                }
                // A one-byte word: any byte may follow its first.
                None => word_seconds = [true; 256],
            }
        }
        let dots = DOT_SYMBOLS
            .iter()
            .map(|s| s.to_string())
            .chain(tokens_of(&[Class::EmailDot], false))
            .collect();
        AtTable {
            tokens,
            prose,
            words,
            word_firsts,
            word_seconds,
            dots,
        }
    })
}

/// How many characters after a domain label are compared with the dot-tokens: the longest
/// dot-token with spaces around it.
const DOT_PREFIX_CHARS: usize = 9;

/// Reads a domain that may use dot-words; returns it with real dots and whether a dot-word was
/// used.
fn read_obfuscated_domain(s: &str) -> (Cow<'_, str>, bool) {
    let mut out = String::new();
    let mut rest = s;
    let mut used = false;
    for _ in 0..16 {
        let label_len = rest.bytes().take_while(|&b| is_domain_byte(b)).count();
        out.push_str(&rest[..label_len]);
        rest = &rest[label_len..];
        let lower_prefix: String = rest
            .chars()
            .take(DOT_PREFIX_CHARS)
            .collect::<String>()
            .to_ascii_lowercase();
        let trimmed = lower_prefix.trim_start();
        let spaces = lower_prefix.len() - trimmed.len();
        match at_table()
            .dots
            .iter()
            .find(|t| lower_prefix.starts_with(t.as_str()) || trimmed.starts_with(t.trim_start()))
        {
            Some(token) if label_len > 0 => {
                let token_len = if lower_prefix.starts_with(token.as_str()) {
                    token.len()
                } else {
                    spaces + token.trim_start().len()
                };
                let Some(after) = rest.get(token_len..) else {
                    break;
                };
                out.push('.');
                rest = after.trim_start();
                used = true;
            }
            _ => break,
        }
    }
    (Cow::Owned(out), used)
}

fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidate_positions_fall_on_every_line_with_an_at_token() {
        // Each at-token, in both cases, inside a line of its own among lines without one.
        let mut text = String::from("no address here\n(see above) [note] {x} <b>\n");
        for token in &at_table().tokens {
            for token in [token.to_string(), token.to_ascii_uppercase()] {
                text.push_str(&format!(
                    "write to info{token}acme dot com please\nplain line\n"
                ));
            }
        }
        text.push_str("we are at home, (at)tention: [a]\nend");
        let line_of = |pos: usize| text[..pos].matches('\n').count();
        let mut found: Vec<usize> = candidate_positions(&text)
            .into_iter()
            .map(line_of)
            .collect();
        found.dedup();
        let lines: Vec<&str> = text.split('\n').collect();
        let expected: Vec<usize> = (0..lines.len())
            .filter(|&i| {
                let line = lines[i];
                line.contains('@') || at_tokens().is_some_and(|matcher| matcher.is_match(line))
            })
            .collect();
        assert_eq!(found, expected);
        assert_eq!(expected.len(), 2 * at_table().tokens.len() + 1);
    }

    #[test]
    fn every_dot_token_fits_the_characters_compared() {
        // A longer `email.dot` entry would never be read.
        for token in &at_table().dots {
            assert!(token.chars().count() <= DOT_PREFIX_CHARS, "{token:?}");
        }
        assert!(at_table().dots.iter().any(|t| t == " punkt "));
    }

    #[test]
    fn a_full_width_at_is_read_and_a_no_break_space_is_not_one() {
        // U+FF20 ends in the byte 0xA0 that U+00A0 also holds.
        let text = "Tel.\u{a0}030\u{a0}12345\nMail\u{a0}info＠acme.de\u{a0}or\u{a0}x＠\n\u{a0}＠";
        let positions = candidate_positions(text);
        let at = |n: usize| text.match_indices('＠').nth(n).unwrap().0;
        assert_eq!(positions, [at(0), at(1), at(2)]);
        let line = text.split('\n').nth(1).unwrap();
        assert_eq!(
            from_text(line, None),
            [(line.find("info").unwrap(), "info@acme.de".to_string())]
        );
    }

    /// [`super::from_mailto`] with the budget of a page of `href`'s size.
    fn from_mailto(href: &str, site: Option<&str>) -> Vec<String> {
        super::from_mailto(href, site, &PageBudget::for_page(href.len()))
    }

    /// [`super::from_text`] with the budget of a page of `line`'s size.
    fn from_text(line: &str, site: Option<&str>) -> Vec<(usize, String)> {
        super::from_text(line, site, &PageBudget::for_page(line.len()))
    }

    #[test]
    fn a_long_mailto_list_is_read_within_the_page_budget() {
        // Recipients of two countries' shapes, each written twice.
        let list: Vec<String> = (0..40_000)
            .map(|i| match i % 2 {
                0 => format!("kontakt{}@beispiel.de", i / 4),
                _ => format!("contact{}@exemple.fr", i / 4),
            })
            .collect();
        let href = format!("mailto:{}", list.join(","));
        let budget = PageBudget::for_page(href.len());
        let found = super::from_mailto(&href, None, &budget);
        assert_eq!(found.len(), 20_000);
        assert_eq!(found[..2], ["kontakt0@beispiel.de", "contact0@exemple.fr"]);
        // Reading each recipient once: a few units of work per byte of the list.
        let used = PageBudget::for_page(href.len()).work_left() - budget.work_left();
        assert!(
            used < 4 * href.len(),
            "{used} units for {} bytes",
            href.len()
        );
        // A budget nearly spent (what decoding the list takes and 10 000 units more) ends
        // the list early, with what was read.
        let budget = PageBudget::for_page(href.len());
        assert!(budget.work(budget.work_left() - href.len() - 10_000));
        let found = super::from_mailto(&href, None, &budget);
        assert!(!found.is_empty() && found.len() < 1_000, "{}", found.len());
        assert!(budget.spent());
    }

    #[test]
    fn mailto_decoding() {
        assert_eq!(
            from_mailto("mailto:%20Info@Acme.com?subject=Hi", None),
            ["info@acme.com"]
        );
        assert_eq!(
            from_mailto("MAILTO:a@acme.com,b@acme.com;c@acme.com", None),
            ["a@acme.com", "b@acme.com", "c@acme.com"]
        );
        assert_eq!(
            from_mailto("mailto:a@acme.com?cc=b%40acme.com&subject=x", None),
            ["a@acme.com", "b@acme.com"]
        );
        assert!(from_mailto("mailto:", None).is_empty());
        assert!(from_mailto("mailto:?subject=x", None).is_empty());
        assert!(from_mailto("https://acme.com", None).is_empty());
    }

    #[test]
    fn text_emails_with_punctuation_and_case() {
        let found = from_text(
            "Email: Info@HarrowvaleDesignBuild.com. Or sales@acme.co.uk, thanks",
            None,
        );
        let emails: Vec<_> = found.iter().map(|(_, e)| e.as_str()).collect();
        assert_eq!(
            emails,
            ["info@harrowvaledesignbuild.com", "sales@acme.co.uk"]
        );
    }

    #[test]
    fn labels_and_numbers_glued_to_addresses() {
        let emails = |line: &str| -> Vec<String> {
            from_text(line, None).into_iter().map(|(_, e)| e).collect()
        };
        // A label in an element of its own, written against the address.
        assert_eq!(
            emails("Emailinfo@verdegiardini.it"),
            ["info@verdegiardini.it"]
        );
        assert_eq!(emails("E-Mailkontakt@firma.de"), ["kontakt@firma.de"]);
        assert_eq!(emails("EMAILinfo@x.it"), ["info@x.it"]);
        assert_eq!(emails("Email:info@x.it"), ["info@x.it"]);
        assert_eq!(emails("Correoreservas@hotel.es"), ["reservas@hotel.es"]);
        // A number's last digits against the address (two adjacent links).
        assert_eq!(
            emails("+31 (0)6 98 76 54 32info@bouwvoorbeeld.nl"),
            ["info@bouwvoorbeeld.nl"]
        );
        // Addresses that only look like it stay whole.
        assert_eq!(emails("mailbox@x.de"), ["mailbox@x.de"]);
        assert_eq!(emails("Mail@firma.de"), ["mail@firma.de"]);
        assert_eq!(emails("Write to 24hours@x.com"), ["24hours@x.com"]);
    }

    #[test]
    fn mailto_with_a_space_after_the_colon() {
        assert_eq!(
            from_mailto("mailto: contacto@taller-arte-ejemplo.cl", None),
            ["contacto@taller-arte-ejemplo.cl"]
        );
        assert_eq!(from_mailto("mailto:%20%20info@x.it", None), ["info@x.it"]);
    }

    #[test]
    fn rejects_images_placeholders_hashes_and_bad_tlds() {
        for bad in [
            "logo@2x.png",
            "icon@3x.jpg",
            "name@example.com",
            "you@domain.com",
            "youremail@email.com",
            "0123456789abcdef0123456789abcdef@o123.ingest.sentry.io",
            "x@sentry.wixpress.com",
            "a@b",
            "a@b.c",
            "a@localhost.notatld",
            "+Inc./@27.4280287",
            "x@@y.com",
        ] {
            assert!(normalise(bad, None).is_none(), "{bad}");
        }
        assert!(from_text("@media screen and @import url(x.css)", None).is_empty());
    }

    #[test]
    fn obfuscated_forms() {
        let emails = |s: &str| {
            from_text(s, Some("marchal.nl"))
                .into_iter()
                .map(|(_, e)| e)
                .collect::<Vec<_>>()
        };
        assert_eq!(emails("info(a)woonvoorbeeld.nl"), ["info@woonvoorbeeld.nl"]);
        assert_eq!(
            emails("mail: info [at] vincentz [dot] net"),
            ["info@vincentz.net"]
        );
        assert_eq!(emails("verkoop at marchal dot nl"), ["verkoop@marchal.nl"]);
        assert_eq!(
            emails("verkoop at shop dot marchal dot nl"),
            ["verkoop@shop.marchal.nl"]
        );
        assert!(
            emails("find us at booking dot com").is_empty(),
            "not the site's"
        );
        assert_eq!(emails("marchal at gmail dot com"), ["marchal@gmail.com"]);
        assert_eq!(emails("info @ marchal . nl"), ["info@marchal.nl"]);
        assert!(
            emails("E-Mobilität @ EFAHRER.com").is_empty(),
            "not a whole word"
        );
        assert_eq!(emails("info[at]vincentz.net"), ["info@vincentz.net"]);
        assert!(emails("Contact us at home.com today").is_empty());
        assert_eq!(emails("Write to us at info@acme.com"), ["info@acme.com"]);
    }

    #[test]
    fn placeholder_local_parts_on_any_domain() {
        // Class: local parts that reach no one (lexicon class `email.placeholder`), on a German
        // and a Dutch domain, the site's own included.
        assert_eq!(normalise("noreply@praxis-beispiel.de", None), None);
        assert_eq!(
            normalise("john.doe@bouw-voorbeeld.nl", Some("bouw-voorbeeld.nl")),
            None
        );
        assert_eq!(
            normalise("info@bouw-voorbeeld.nl", None),
            Some("info@bouw-voorbeeld.nl".to_string())
        );
    }

    #[test]
    fn obfuscated_forms_of_other_languages() {
        // Class: the words a page writes for `@` and `.` in its own language (lexicon classes
        // `email.at`, `email.dot`).
        let emails = |s: &str| {
            from_text(s, None)
                .into_iter()
                .map(|(_, e)| e)
                .collect::<Vec<_>>()
        };
        // French: `arobase` needs no brackets (it is no other word), `chez` does.
        assert_eq!(
            emails("Écrivez à contact arobase atelier-exemple point fr"),
            ["contact@atelier-exemple.fr"]
        );
        assert_eq!(
            emails("contact (chez) atelier-exemple.fr"),
            ["contact@atelier-exemple.fr"]
        );
        assert!(emails("Déjeuner chez atelier-exemple.fr").is_empty());
        // German and Dutch dot-words.
        assert_eq!(
            emails("E-Mail: praxis [ät] beispiel-praxis [punkt] de"),
            ["praxis@beispiel-praxis.de"]
        );
        assert_eq!(
            emails("mail: info (at) bouw-voorbeeld punt nl"),
            ["info@bouw-voorbeeld.nl"]
        );
    }

    #[test]
    fn addresses_on_internationalised_domains() {
        // Class: IDN email domains (RFC 5890/5891, UTS #46), written in Unicode or in punycode;
        // given in their Unicode form, lower-cased, so both spellings are one address.
        let emails = |line: &str| -> Vec<String> {
            from_text(line, None).into_iter().map(|(_, e)| e).collect()
        };
        // German: umlaut in the domain, in text and in a `mailto:`.
        assert_eq!(
            emails("E-Mail: info@bäckerei-musterstadt.de, Tel."),
            ["info@bäckerei-musterstadt.de"]
        );
        assert_eq!(
            from_mailto("mailto:Info@Bäckerei-Musterstadt.de", None),
            ["info@bäckerei-musterstadt.de"]
        );
        assert_eq!(
            from_mailto("mailto:info@xn--bckerei-musterstadt-gwb.de", None),
            ["info@bäckerei-musterstadt.de"]
        );
        // Portuguese and Spanish: several diacritics, and a sentence running on after it.
        assert_eq!(
            emails("Contacte: reservas@casadaavóconceição.pt."),
            ["reservas@casadaavóconceição.pt"]
        );
        assert_eq!(
            emails("Escríbenos a hola@panaderíaejemplo.es hoy"),
            ["hola@panaderíaejemplo.es"]
        );
        // Text glued after an ASCII address is no part of its domain.
        assert_eq!(emails("info@acme.co.jpお問い合わせ"), ["info@acme.co.jp"]);
        assert_eq!(emails("info@acme.deÄnderungen"), ["info@acme.de"]);
        assert!(normalise("info@bäckerei.notatld", None).is_none());
    }

    #[test]
    fn a_generic_local_part_is_an_address_on_the_sites_own_domain() {
        // Class: generic local parts (`email@`, `mail@`, `name@`) that are placeholders on a
        // stranger's domain but a real mailbox on the page's own (Singapore, Germany).
        assert_eq!(
            normalise(
                "email@translate-example.com.sg",
                Some("translate-example.com.sg")
            ),
            Some("email@translate-example.com.sg".to_string())
        );
        assert_eq!(
            normalise("E-Mail@praxis-beispiel.de", Some("praxis-beispiel.de")),
            Some("e-mail@praxis-beispiel.de".to_string())
        );
        assert_eq!(
            from_mailto(
                "mailto:email@translate-example.com.sg",
                Some("translate-example.com.sg")
            ),
            ["email@translate-example.com.sg"]
        );
        let found: Vec<String> = from_text(
            "Write to email@praxis-beispiel.de",
            Some("praxis-beispiel.de"),
        )
        .into_iter()
        .map(|(_, e)| e)
        .collect();
        assert_eq!(found, ["email@praxis-beispiel.de"]);
        // Elsewhere they stay placeholders.
        assert_eq!(
            normalise("email@gmail.com", Some("praxis-beispiel.de")),
            None
        );
        assert_eq!(normalise("name@firma.de", None), None);
        assert_eq!(normalise("email@example.com", Some("example.com")), None);
    }

    #[test]
    fn a_mailto_target_on_the_sites_name_spelled_with_diacritics_is_the_sites() {
        // Class: a business's IDN twin of its ASCII domain behind a link that shows another
        // spelling of its address (Portugal: `ó`, `ç`; Germany: `ü` written `ue` in the site).
        let page = |url: &str, html: &str| {
            let url = url::Url::parse(url).unwrap();
            crate::extract::extract_page(&url, None, html.as_bytes()).emails
        };
        assert_eq!(
            page(
                "https://www.casadaavoexemplo.pt/",
                "<p>Termos: <a href='mailto:geral@casadaavóexemplo.pt'>geral@casadaávoexemplo.pt</a></p>"
            ),
            ["geral@casadaávoexemplo.pt", "geral@casadaavóexemplo.pt"]
        );
        assert_eq!(
            page(
                "https://gaertnerei-mueller-beispiel.de/",
                "<p>E-Mail: <a href='mailto:info@gärtnerei-müller-beispiel.de'>post@gaertnerei-mueller-beispiel.de</a></p>"
            ),
            [
                "post@gaertnerei-mueller-beispiel.de",
                "info@gärtnerei-müller-beispiel.de"
            ]
        );
        // Another name's domain is not the site's (behind the link it is kept only as the
        // owner's other mailbox, `owners_other_mailbox`: not when the page links that domain).
        assert!(!on_site(
            "info@gärtnerei-schulze-beispiel.de",
            Some("gaertnerei-mueller-beispiel.de")
        ));
        assert_eq!(
            page(
                "https://gaertnerei-mueller-beispiel.de/",
                "<p><a href='mailto:info@gärtnerei-schulze-beispiel.de'>post@gaertnerei-mueller-beispiel.de</a></p>\
                 <p><a href='https://gärtnerei-schulze-beispiel.de/'>Webdesign</a></p>"
            ),
            ["post@gaertnerei-mueller-beispiel.de"]
        );
    }

    #[test]
    fn cloudflare_payload() {
        // key 0x0a; "info@example.org" is a placeholder, so use "info@acme.nl".
        let plain = b"info@acme.nl";
        let mut hex = String::from("0a");
        for b in plain {
            hex.push_str(&format!("{:02x}", b ^ 0x0a));
        }
        assert_eq!(from_cloudflare(&hex, None).as_deref(), Some("info@acme.nl"));
        assert_eq!(from_cloudflare("zz", None), None);
        assert_eq!(from_cloudflare("0a0", None), None);
    }
}
