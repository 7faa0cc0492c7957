//! Phone numbers: `tel:` links and numbers printed in visible text, validated with
//! libphonenumber metadata (the `rlibphonenumber` port) and written in E.164.
//!
//! A printed number is kept only when it is a *valid* number for its region (not merely
//! possible) and there is a reason to believe it is a phone (docs/extraction.md): it is
//! written internationally (`+`/`00`), it is next to a phone label, or the page's region is
//! known and the digits are grouped the way phone numbers are. Dates, opening hours, prices and
//! numbers next to registration labels (VAT, KvK, ABN, IBAN, company no., DX…) are refused, and
//! numbers labelled as fax are left out of `phones`.

use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use rlibphonenumber::{PhoneNumber, PhoneNumberFormat, PhoneNumberType, Region};

use crate::extract::ascii;
use crate::extract::limits::MAX_PHONE_JUDGEMENTS;
use crate::extract::page_budget::PageBudget;
use crate::extract::whitespace;
use crate::lexicon::{self, Class};

/// Most digits in a candidate run (E.164 allows 15; runs with glued numbers are split).
const MAX_RUN_DIGITS: usize = 40;
/// Most digit groups tried per run.
const MAX_GROUPS: usize = 10;

/// What the page tells about where its numbers are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RegionHint {
    /// Region to parse national numbers with.
    pub region: Option<Region>,
    /// Whether the region comes from a real clue (address, JSON-LD country, ccTLD, `lang`), so
    /// unlabelled but well-grouped numbers can be trusted.
    pub confident: bool,
    /// Whether the region is only a weak clue (`<html lang>`, which templates often leave at
    /// `en-GB`/`en-US`), so a number that is invalid there but written the North American way is
    /// also tried as a NANP number.
    pub weak: bool,
}

impl RegionHint {
    /// A hint from an ISO 3166-1 alpha-2 code (`"NL"`), confident.
    pub fn from_code(code: &str) -> Option<RegionHint> {
        let region = code.trim().to_ascii_uppercase().parse::<Region>().ok()?;
        Some(RegionHint {
            region: Some(region),
            confident: true,
            weak: false,
        })
    }
}

/// How many more candidates this page may hand to libphonenumber
/// ([`MAX_PHONE_JUDGEMENTS`]); one per page, passed to every extractor of this module.
#[derive(Debug)]
pub struct Judgements {
    left: usize,
    /// The verdicts given on this page, by candidate text, region hint and label: a page
    /// repeats its numbers (header, footer, contact block), and a verdict costs a
    /// libphonenumber parse of about a hundred thousand instructions. A repeat still takes a
    /// judgement, so the allowance runs out where it would without them.
    verdicts: Vec<((String, RegionHint, bool), Option<Valid>)>,
    /// The parses made on this page, by cleaned number and region: candidates written apart
    /// (`030 1234567` and `030-1234567`, the text of a `tel:` link and the same number printed
    /// with no label) are one number to parse, and the verdicts above are by text, hint and
    /// label ([`parsed_valid`]).
    parses: Parses,
}

/// A page's parses ([`Judgements::parses`]): each cleaned number and region parsed, with the
/// number and its region when valid.
type Parses = Vec<(String, Option<Region>, Option<(PhoneNumber, Region)>)>;

/// A candidate libphonenumber read as a valid number: its E.164 form, and the region the
/// validation assigned it ([`valid_region`]), which [`from_tel`] asked of a second parse, of
/// the E.164 form, before.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Valid {
    e164: String,
    region: Region,
}

/// The region of `number` when it is valid: what [`PhoneNumber::is_valid`] decides, as it
/// decides it (libphonenumber assigns the number its region, then validates it there), with
/// the region kept rather than assigned a second time by [`PhoneNumber::get_region_code`]
/// (for a `+1` number, a test of its digits in each NANP region in turn).
fn valid_region(number: &PhoneNumber) -> Option<Region> {
    let region = number.get_region_code()?;
    number.is_valid_for_region(region).then_some(region)
}

impl Judgements {
    /// A page's allowance.
    pub fn per_page() -> Self {
        Judgements {
            left: MAX_PHONE_JUDGEMENTS,
            verdicts: Vec::new(),
            parses: Vec::new(),
        }
    }

    /// Whether the allowance is used up (later candidates are not judged).
    fn exhausted(&self) -> bool {
        self.left == 0
    }

    /// Takes one judgement; `false` when none is left.
    fn take(&mut self) -> bool {
        let Some(left) = self.left.checked_sub(1) else {
            return false;
        };
        self.left = left;
        true
    }
}

/// A number found on a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundPhone {
    /// E.164 form, e.g. `+13175550142`.
    pub e164: String,
    /// Whether the page labels it as a fax number.
    pub fax: bool,
}

/// Whether `text` holds an Arabic-Indic or a Persian and Urdu digit ([`with_ascii_digits`]):
/// one search of a page's text, so that a page without any reads its lines as they are.
pub fn holds_arabic_indic_digits(text: &str) -> bool {
    first_arabic_indic_digit(text).is_some()
}

/// Where the first Arabic-Indic or Persian and Urdu digit of `text` starts. Both ranges'
/// UTF-8: 0xD9 0xA0..=0xA9 (U+0660–U+0669) and 0xDB 0xB0..=0xB9 (U+06F0–U+06F9).
fn first_arabic_indic_digit(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    memchr::memchr2_iter(0xD9, 0xDB, bytes).find(|&i| {
        matches!(
            (bytes[i], bytes.get(i + 1)),
            (0xD9, Some(0xA0..=0xA9)) | (0xDB, Some(0xB0..=0xB9))
        )
    })
}

/// `line` with its Arabic-Indic digits (`٠`–`٩`, U+0660–U+0669) and Persian and Urdu ones
/// (`۰`–`۹`, U+06F0–U+06F9) written as ASCII digits (class `phone.arabic_indic_digits`: pages
/// in Arabic, Persian and Urdu print their numbers so, `٠٤ ٣٨١ ٩٠٥٢`), for [`from_text`],
/// which reads ASCII digits; the line itself when it holds none (most lines). Each such
/// digit is two bytes and its ASCII digit one, so an offset into the result is at most the
/// offset of the same character in `line`, in the same order.
pub fn with_ascii_digits(line: &str) -> std::borrow::Cow<'_, str> {
    let Some(first) = first_arabic_indic_digit(line) else {
        return std::borrow::Cow::Borrowed(line);
    };
    let mut out = String::with_capacity(line.len());
    out.push_str(&line[..first]);
    let mut rest = &line[first..];
    while let Some(ch) = rest.chars().next() {
        let ascii = match ch {
            '\u{660}'..='\u{669}' => Some(u32::from(ch) - 0x660),
            '\u{6F0}'..='\u{6F9}' => Some(u32::from(ch) - 0x6F0),
            _ => None,
        };
        match ascii.and_then(|d| char::from_digit(d, 10)) {
            Some(digit) => out.push(digit),
            None => out.push(ch),
        }
        rest = &rest[ch.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

/// The numbers of a `tel:`/`callto:` link: the href's (percent-decoded, a repeated scheme
/// such as `tel:tel:` and spaces after the colon skipped, labels and extensions cut), then any
/// other number printed in the link's text (a visible number that differs from its target is
/// the page's too, so both are taken); the text alone when the href is unusable. Empty for
/// other links. The text is read within the page's `budget` ([`from_text`]).
pub fn from_tel(
    href: &str,
    link_text: &str,
    hint: RegionHint,
    judgements: &mut Judgements,
    budget: &PageBudget,
) -> Vec<FoundPhone> {
    let Some(rest) = strip_phone_scheme(href) else {
        return Vec::new();
    };
    let decoded = percent_encoding::percent_decode_str(rest).decode_utf8_lossy();
    // `tel:tel:+49…`, `tel: +49…`, `callto://+49…`: the scheme written twice, spaces or
    // slashes after it.
    let mut target: &str = &decoded;
    loop {
        let trimmed = target.trim_start_matches(|c: char| c == '/' || c.is_whitespace());
        match strip_phone_scheme(trimmed) {
            Some(inner) if inner.len() < trimmed.len() => target = inner,
            _ => {
                target = trimmed;
                break;
            }
        }
    }
    let mut out: Vec<FoundPhone> = Vec::new();
    let mut text_hint = hint;
    if !target.contains('@') {
        let number: String = target
            .split([';', ',', '?'])
            .next()
            .unwrap_or("")
            .chars()
            .take_while(|c| !c.is_ascii_alphabetic() || c.is_ascii_uppercase())
            .collect();
        if let Some(Valid { e164, region }) = validate_with_region(&number, hint, true, judgements)
        {
            // A national number in the text is read in the target's country when the page
            // gives none.
            if text_hint.region.is_none() {
                text_hint.region = Some(region);
            }
            out.push(FoundPhone { e164, fax: false });
        }
    }
    // The link's text is a phone context: its numbers count as labelled. Only texts with a
    // number's worth of digits are read (most are "Call us" or an icon).
    if link_text.bytes().filter(u8::is_ascii_digit).count() >= 7 {
        let labelled = format!("tel: {link_text}");
        for (_, phone) in from_text(&labelled, text_hint, judgements, budget) {
            if !out.iter().any(|p| p.e164 == phone.e164) {
                out.push(phone);
            }
        }
    }
    out
}

/// `href` after a phone-call or texting scheme (`tel:`, `callto:`, `phone:`, `telephone:`;
/// `sms:` and `smsto:`, RFC 5724: a texting line is a phone line; any case), or `None` when it
/// has none.
fn strip_phone_scheme(href: &str) -> Option<&str> {
    let href = whitespace::trim_start(href);
    ["tel:", "callto:", "phone:", "telephone:", "sms:", "smsto:"]
        .iter()
        .find_map(|scheme| strip_prefix_ci(href, scheme))
}

/// The number of a WhatsApp click-to-chat link (`https://wa.me/31612345678`,
/// `https://api.whatsapp.com/send?phone=31612345678`, `whatsapp://send?phone=+316…`), which
/// is written internationally without `+` (WhatsApp's click-to-chat documentation); `None`
/// for other links and for invalid numbers.
pub fn from_whatsapp(href: &str, judgements: &mut Judgements) -> Option<FoundPhone> {
    let number = whatsapp_number(href)?;
    let e164 = validate(
        &format!("+{number}"),
        RegionHint::default(),
        true,
        judgements,
    )?;
    Some(FoundPhone { e164, fax: false })
}

/// The digits of a WhatsApp click-to-chat link's number (`wa.me/<number>`,
/// `api.whatsapp.com/send?phone=`), as [`whatsapp_digits`]; `None` for other links.
fn whatsapp_number(href: &str) -> Option<String> {
    // Every link of a page comes here: prefix comparisons only, no allocation, until one
    // matches.
    let href = whitespace::trim(href);
    let rest = ascii::after_web_scheme(href).unwrap_or(href);
    let rest = strip_prefix_ci(rest, "www.").unwrap_or(rest);
    // Every prefix below opens with `w` or `a`: most links are turned away by their first byte.
    if !matches!(rest.as_bytes().first(), Some(b'w' | b'W' | b'a' | b'A')) {
        return None;
    }
    whatsapp_number_after_scheme(rest)
}

/// [`whatsapp_number`] of `rest`, a link without its scheme and `www.`.
fn whatsapp_number_after_scheme(rest: &str) -> Option<String> {
    let digits_from: &str = if let Some(path) = strip_prefix_ci(rest, "wa.me/") {
        path
    } else if [
        "api.whatsapp.com/send",
        "web.whatsapp.com/send",
        "whatsapp://send",
    ]
    .iter()
    .any(|prefix| strip_prefix_ci(rest, prefix).is_some())
    {
        let query = rest.split_once('?')?.1;
        query
            .split('&')
            .find_map(|pair| strip_prefix_ci(pair, "phone="))?
    } else {
        return None;
    };
    whatsapp_digits(digits_from)
}

/// The digits of a WhatsApp link's number (after `wa.me/` or in `phone=`), percent-decoded,
/// 8 to 15 of them; `None` otherwise.
fn whatsapp_digits(digits_from: &str) -> Option<String> {
    let decoded = percent_encoding::percent_decode_str(digits_from).decode_utf8_lossy();
    let number: String = decoded
        .trim_start_matches(['+', ' '])
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, ' ' | '-'))
        .filter(char::is_ascii_digit)
        .collect();
    (8..=15).contains(&number.len()).then_some(number)
}

/// The region of an international `tel:+…` link's number (the page's own numbers are likely in
/// the same country); `None` for national or invalid numbers.
pub fn region_of_tel(href: &str) -> Option<Region> {
    let href = whitespace::trim(href);
    if !href.get(..4)?.eq_ignore_ascii_case("tel:") {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(href.get(4..)?).decode_utf8_lossy();
    region_of_international(decoded.trim().trim_start_matches('/'))
}

/// The region of the international number `number` starts with (`+91 98765 43210` → IN;
/// `wa.me/` digits are given with a `+`): the region libphonenumber assigns a valid number;
/// `None` when `number` does not start with `+` or is not valid. One parse (microseconds).
pub fn region_of_international(number: &str) -> Option<Region> {
    let number = number.trim();
    if !number.starts_with('+') {
        return None;
    }
    let end = number
        .char_indices()
        .skip(1)
        .find(|(_, c)| !(c.is_ascii_digit() || matches!(c, ' ' | '-' | '.' | '(' | ')' | '\u{a0}')))
        .map_or(number.len(), |(i, _)| i);
    valid_region(&PhoneNumber::parse(&number[..end], None).ok()?)
}

/// The region of a WhatsApp link's number (`https://wa.me/<number>`), as
/// [`region_of_international`]; `None` for other links.
pub fn region_of_whatsapp(href: &str) -> Option<Region> {
    region_of_international(&format!("+{}", whatsapp_number(href)?))
}

/// `numbers` (E.164) without the fixed-line twins of Argentine mobiles: a mobile's
/// international form carries a 9 after `+54` (`+54 9 11 …`, libphonenumber's AR metadata)
/// and pages also write it without the 9 (`+54 11 …`, `wa.me/5411…`), which reads as a
/// fixed line of the same digits; when both are present they are one number, the mobile.
/// Order kept.
pub fn without_mobile_twins(numbers: Vec<String>) -> Vec<String> {
    let twins: Vec<String> = numbers
        .iter()
        .filter_map(|n| n.strip_prefix("+549").map(|rest| format!("+54{rest}")))
        .collect();
    if twins.is_empty() {
        return numbers;
    }
    numbers.into_iter().filter(|n| !twins.contains(n)).collect()
}

/// The national number of a `tel:`/`sms:` link written without a country code
/// (`tel:06-4827-3915` → `06-4827-3915`); `None` for international numbers and other links.
pub fn national_of_tel(href: &str) -> Option<&str> {
    let number = strip_phone_scheme(href)?
        .split([';', ',', '?'])
        .next()?
        .trim();
    let digits = number.bytes().filter(u8::is_ascii_digit).count();
    let national = !number.starts_with('+') && !number.starts_with("00") && !number.contains('%');
    (national && (7..=15).contains(&digits)).then_some(number)
}

/// The one region among `candidates` (ISO 3166-1 alpha-2 codes) where the national number
/// `number` is valid and belongs (libphonenumber metadata); `None` when it is valid in none or
/// in several. One parse per candidate (about a hundred thousand instructions each).
pub fn only_region<'c>(number: &str, candidates: &[&'c str]) -> Option<&'c str> {
    let mut found = None;
    for code in candidates {
        let Ok(region) = code.parse::<Region>() else {
            continue;
        };
        let valid = PhoneNumber::parse(number, Some(region))
            .ok()
            .filter(PhoneNumber::is_valid)
            .is_some_and(|n| n.get_region_code() == Some(region));
        if valid {
            if found.is_some() {
                return None;
            }
            found = Some(*code);
        }
    }
    found
}

/// Validates one phone value from structured data (JSON-LD `telephone`, microdata), which may
/// carry a label (`"Tel. +41 44 826 76 76"`); read within the page's `budget` ([`from_text`]).
pub fn from_structured(
    value: &str,
    hint: RegionHint,
    judgements: &mut Judgements,
    budget: &PageBudget,
) -> Option<String> {
    let labelled = format!("tel: {value}");
    from_text(&labelled, hint, judgements, budget)
        .into_iter()
        .next()
        .map(|(_, p)| p.e164)
}

/// Phone numbers printed in one line of visible text, in order, with their byte offsets.
/// Charged to the page's `budget` (the bytes of each run of digits read, and more per
/// candidate judged); once it is spent the numbers found so far are returned.
pub fn from_text(
    line: &str,
    hint: RegionHint,
    judgements: &mut Judgements,
    budget: &PageBudget,
) -> Vec<(usize, FoundPhone)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() && !judgements.exhausted() {
        let Some(run) = next_run(line, i) else {
            break;
        };
        // The page's budget (which also paces, `crate::pace`): the bytes read for this run;
        // each candidate libphonenumber judges below counts more.
        if !budget.work(run.end.saturating_sub(i) + 1) {
            break;
        }
        i = run.end.max(i + 1);
        if run.digits < 7 {
            continue;
        }
        let mut g = 0;
        while g < run.groups.len() {
            if date_at(&run, g, line) {
                // A date's groups start no number and join none (a time may follow it).
                g += 3;
                continue;
            }
            if day_month_at(&run, g, line) {
                // `12.07. - 26.07.2026`: a day and month without a year open a date range.
                g += 2;
                continue;
            }
            if let Some(years) = years_at(&run, g, line) {
                // `© 2007 - 2024 4SH`: a copyright's years start no number and join none.
                g += years;
                continue;
            }
            let mut accepted = None;
            for end in (g + 1..=run.groups.len()).rev() {
                let start_byte = run.group_start(g, line);
                let end_byte = run.group_end(end - 1, line);
                let digits: usize = run.groups[g..end].iter().map(|r| r.digits).sum();
                if !(7..=17).contains(&digits) {
                    continue;
                }
                let text = &line[start_byte..end_byte];
                let left = judgements.left;
                let judged = judge(line, start_byte, end_byte, text, end - g, hint, judgements);
                // A candidate libphonenumber judged (parse and validation: microseconds)
                // costs the page's budget 1 024 units more.
                if judgements.left < left && !budget.work(1024) {
                    return out;
                }
                if let Some(phone) = judged {
                    accepted = Some((end, start_byte, phone));
                    break;
                }
            }
            if let Some((end, start_byte, _)) = accepted {
                // `04321 / 98765 0171 2345678`: a landline and a mobile side by side read as
                // one long (and valid) number; a group opening with the trunk prefix `0` inside
                // it starts a second number when both halves are valid on their own.
                if let Some((split, phone)) =
                    split_at_trunk_prefix(line, &run, g, end, hint, judgements)
                {
                    accepted = Some((split, start_byte, phone));
                }
            }
            match accepted {
                Some((end, start_byte, phone)) => {
                    out.push((start_byte, phone));
                    g = end;
                }
                None => g += 1,
            }
        }
    }
    out
}

/// For an accepted span of groups `g..end` of `run`: the first interior group `k` that
/// opens with the trunk prefix `0` (two digits or more, after a space or slash) such that
/// `g..k` is a valid number and so is a span from `k` on; returns `k` and the number `g..k`.
fn split_at_trunk_prefix(
    line: &str,
    run: &Run,
    g: usize,
    end: usize,
    hint: RegionHint,
    judgements: &mut Judgements,
) -> Option<(usize, FoundPhone)> {
    let digits =
        |from: usize, to: usize| -> usize { run.groups[from..to].iter().map(|r| r.digits).sum() };
    for k in g + 1..end {
        let group = run.groups[k];
        let separator = &line[run.groups[k - 1].end..group.start];
        let opens_number = group.digits >= 2
            && line.as_bytes()[group.start] == b'0'
            && separator.contains(|c: char| c == '/' || c.is_whitespace());
        if !opens_number || digits(g, k) < 7 {
            continue;
        }
        let span =
            |from: usize, to: usize| (run.group_start(from, line), run.group_end(to - 1, line));
        // The second number: the longest span from `k` that is one (at most three tries).
        let second_valid = (k + 1..=run.groups.len())
            .rev()
            .filter(|&to| (7..=17).contains(&digits(k, to)))
            .take(3)
            .any(|to| {
                let (a, b) = span(k, to);
                judge(line, a, b, &line[a..b], to - k, hint, judgements).is_some()
            });
        if !second_valid {
            continue;
        }
        let (a, b) = span(g, k);
        if let Some(first) = judge(line, a, b, &line[a..b], k - g, hint, judgements) {
            return Some((k, first));
        }
    }
    None
}

/// One digit group of a run: its byte range in the line and digit count.
#[derive(Debug, Clone, Copy)]
struct Group {
    start: usize,
    end: usize,
    digits: usize,
}

struct Run {
    groups: Vec<Group>,
    end: usize,
    digits: usize,
}

impl Run {
    /// Start of group `g`, widened over a directly preceding `+`, `(` or `00`-style prefix.
    fn group_start(&self, g: usize, line: &str) -> usize {
        let start = self.groups[g].start;
        let before = line[..start].trim_end_matches(' ');
        if before.ends_with("+(") {
            before.len() - 2
        } else if before.ends_with(['+', '(']) {
            before.len() - 1
        } else {
            start
        }
    }

    /// End of group `g`, widened over a directly following `)`.
    fn group_end(&self, g: usize, line: &str) -> usize {
        let end = self.groups[g].end;
        if line[end..].starts_with(')') {
            end + 1
        } else {
            end
        }
    }
}

/// Finds the next run of digit groups at or after byte `from`: groups of digits joined by
/// single separators (space, `-`, `.`, `/`, `(`, `)`, dashes, no-break space), optionally
/// ending in a vanity group of 3–7 capital letters. A run never starts inside a word.
fn next_run(line: &str, from: usize) -> Option<Run> {
    let bytes = line.as_bytes();
    let mut start = from;
    loop {
        let offset = bytes[start..].iter().position(|b| b.is_ascii_digit())?;
        start += offset;
        let glued = start > 0 && {
            let prev = line[..start].chars().next_back().unwrap_or(' ');
            (prev.is_alphanumeric() || prev == '_' || prev == '€' || prev == '$' || prev == '£')
                && !ends_with_glued_label(&line[..start])
                || continues_code(&line[..start])
        };
        if !glued {
            break;
        }
        start += bytes[start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if start >= bytes.len() {
            return None;
        }
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut digits = 0;
    let mut i = start;
    loop {
        let group_start = i;
        let n = bytes[i..].iter().take_while(|b| b.is_ascii_digit()).count();
        if n > 0 {
            i += n;
            digits += n;
            groups.push(Group {
                start: group_start,
                end: i,
                digits: n,
            });
        } else {
            // Vanity letters, only after digits and only as the last group.
            let letters = bytes[i..]
                .iter()
                .take_while(|b| b.is_ascii_uppercase())
                .count();
            let next_is_word = bytes
                .get(i + letters)
                .is_some_and(|b| b.is_ascii_alphanumeric());
            if (3..=7).contains(&letters) && !next_is_word && digits >= 6 {
                groups.push(Group {
                    start: i,
                    end: i + letters,
                    digits: letters,
                });
                digits += letters;
            }
            break;
        }
        if digits > MAX_RUN_DIGITS || groups.len() >= MAX_GROUPS {
            break;
        }
        // Separators between groups: at most three characters of the separator set, of which
        // at most one is a space-like character unless dashes surround it (`0115 - 645 210`).
        let sep_len = separator_len(&line[i..]);
        if sep_len == 0 {
            break;
        }
        let after = i + sep_len;
        if !bytes
            .get(after)
            .is_some_and(|b| b.is_ascii_digit() || b.is_ascii_uppercase())
        {
            break;
        }
        i = after;
    }
    let end = groups.last().map_or(start + 1, |g| g.end);
    Some(Run {
        groups,
        end,
        digits,
    })
}

/// Whether `before` ends with a phone or fax label written right against the number
/// (`Tel0421…`, `Telefon+49…`, `Mobil0171…`: a label and its value in adjacent elements with
/// no space between them): the digits that follow are a number, not the end of a word. The
/// labels are the lexicon's `label.phone` and `label.fax` entries of one word of three letters
/// or more ([`glued_labels`]); an abbreviation (`T`, `Ph`, `F`) glued to digits is a code.
fn ends_with_glued_label(before: &str) -> bool {
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map_or(before.len(), |(i, _)| i);
    let word = &before[word_start..];
    if word.is_empty() || word.len() > 12 {
        return false;
    }
    let lower = word.to_lowercase();
    glued_labels().binary_search(&lower).is_ok()
}

/// The phone and fax labels that may be written against their number: the lexicon's
/// `label.phone` and `label.fax` entries that are one word of at least three letters,
/// lower-cased, sorted. Built once.
fn glued_labels() -> &'static [String] {
    static LABELS: OnceLock<Vec<String>> = OnceLock::new();
    LABELS.get_or_init(|| {
        let mut labels: Vec<String> = lexicon::words(Class::LabelPhone)
            .chain(lexicon::words(Class::LabelFax))
            .filter(|word| word.chars().count() >= 3 && word.chars().all(char::is_alphabetic))
            .map(str::to_lowercase)
            .collect();
        labels.sort_unstable();
        labels.dedup();
        labels
    })
}

/// Whether `before` ends with a code of letters and digits and one space (`DE29 482 6617`, a
/// VAT number printed in groups; `NL91 ABNA 0417 1643 00`, an IBAN): the digits that follow
/// continue the code.
fn continues_code(before: &str) -> bool {
    let Some(token_end) = before
        .strip_suffix(' ')
        .or_else(|| before.strip_suffix('\u{a0}'))
    else {
        return false;
    };
    let token_start = token_end
        .rfind(|c: char| !c.is_ascii_alphanumeric())
        .map_or(0, |i| i + 1);
    let token = &token_end.as_bytes()[token_start..];
    token.len() >= 3
        && token[0].is_ascii_uppercase()
        && token.last().is_some_and(u8::is_ascii_digit)
}

/// Length in bytes of the separator at the start of `s` (0 when there is none).
fn separator_len(s: &str) -> usize {
    let mut len = 0;
    let mut spaces = 0;
    for ch in s.chars().take(4) {
        let is_space = matches!(ch, ' ' | '\u{A0}' | '\u{2007}' | '\u{2009}' | '\u{202F}');
        let is_sep = is_space || matches!(ch, '-' | '.' | '/' | '(' | ')' | '–' | '—' | '‑');
        if !is_sep {
            break;
        }
        spaces += usize::from(is_space);
        if spaces > 2 {
            return 0;
        }
        len += ch.len_utf8();
    }
    len
}

/// Decides on one candidate span `text` = `line[start..end]` made of `groups` digit groups.
fn judge(
    line: &str,
    start: usize,
    end: usize,
    text: &str,
    groups: usize,
    hint: RegionHint,
    judgements: &mut Judgements,
) -> Option<FoundPhone> {
    if looks_like_date_or_time(text) {
        return None;
    }
    let before = &line[..start];
    let after = &line[end..];
    let label = nearest_label(before);
    if label == Some(Label::Identifier) {
        return None;
    }
    // Prices and amounts: a currency sign or code right before or after.
    let before_trim = before.trim_end();
    if before_trim.ends_with(['$', '€', '£', '¥'])
        || starts_with_any_ci(after.trim_start(), &["€", "eur", "usd", "%"])
    {
        return None;
    }
    if in_identifier_shape(line, start, end) || before_at_sign(after) {
        return None;
    }
    // Part of a larger token such as a URL path, a decimal or an id (`123-45-6789-0`).
    if after.starts_with(|c: char| c.is_ascii_alphanumeric() && !c.is_ascii_uppercase())
        || after.starts_with(['@', '_'])
        || before.ends_with(['/', '=', '#', '_', '@'])
    {
        return None;
    }
    let international = text.starts_with('+') || text.starts_with("00");
    let labelled = matches!(label, Some(Label::Phone | Label::Fax));
    let grouped = groups >= 2;
    // `0647381920`: a national number written without spaces still shows itself by its
    // trunk prefix and length.
    let trunk_national = groups == 1 && is_trunk_national(text);
    // Cheap checks first: validation runs libphonenumber's regular expressions.
    let trusted = international || labelled || (hint.confident && (grouped || trunk_national));
    if !trusted {
        return None;
    }
    let e164 = validate(text, hint, labelled, judgements)?;
    let fax = label == Some(Label::Fax) || fax_after(after);
    Some(FoundPhone { e164, fax })
}

/// Parses and validates `text` as a phone number; returns its E.164 form. `None` also when the
/// page's [`Judgements`] are used up.
///
/// With no region, national numbers are tried as North American Numbering Plan numbers when
/// they are written the NANP way (3-3-4 digits), the commonest case on generic-TLD sites.
fn validate(
    text: &str,
    hint: RegionHint,
    labelled: bool,
    judgements: &mut Judgements,
) -> Option<String> {
    validate_with_region(text, hint, labelled, judgements).map(|valid| valid.e164)
}

/// [`validate`], with the region libphonenumber assigns the number.
fn validate_with_region(
    text: &str,
    hint: RegionHint,
    labelled: bool,
    judgements: &mut Judgements,
) -> Option<Valid> {
    let cleaned = clean_number(text);
    let digit_count = cleaned
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .count();
    if !(7..=17).contains(&digit_count) {
        return None;
    }
    let region = match hint.region {
        Some(region) => Some(region),
        None if cleaned.starts_with('+') => None,
        // No evidence of a country: only the North American way of writing (3-3-4 groups)
        // is evidence of one; ten digits grouped otherwise are another country's.
        None if is_nanp_shaped(text) => Some(Region::US),
        None => return None,
    };
    // One judgement per candidate, the US retry included (it is one more parse at most).
    if !judgements.take() {
        return None;
    }
    let key = (text.to_string(), hint, labelled);
    if let Some((_, verdict)) = judgements.verdicts.iter().find(|(seen, _)| *seen == key) {
        return verdict.clone();
    }
    let verdict = judge_number(
        text,
        &cleaned,
        region,
        hint,
        labelled,
        &mut judgements.parses,
    );
    judgements.verdicts.push((key, verdict.clone()));
    verdict
}

/// [`validate`]'s verdict on a candidate it has a judgement for: `cleaned` is `text` cleaned,
/// `region` the one to parse it in first.
fn judge_number(
    text: &str,
    cleaned: &str,
    region: Option<Region>,
    hint: RegionHint,
    labelled: bool,
    parses: &mut Parses,
) -> Option<Valid> {
    let mut parse_valid = |region| parsed_valid(parses, cleaned, region);
    // A region from `lang` alone supports the numbers a business prints there (fixed, mobile,
    // toll-free, shared-cost…), not one valid only as a premium-rate, personal or pager
    // number: that reading is another country's number (India's `098450 27391` as UK 09…).
    let supported = |(number, _): &(PhoneNumber, Region)| {
        !(hint.weak
            && !cleaned.starts_with('+')
            && matches!(
                number.get_type(),
                PhoneNumberType::PremiumRate
                    | PhoneNumberType::PersonalNumber
                    | PhoneNumberType::Pager
            ))
    };
    let (number, number_region) = match parse_valid(region).filter(supported) {
        Some(valid) => valid,
        None if hint.weak && !cleaned.starts_with('+') => {
            // A region from `<html lang>` only: a number written the North American way may
            // be one; otherwise, for a labelled number, the other countries where the language
            // is spoken (`Telefono: 076 815 52 47` on an Italian page is Swiss), the first that
            // makes it valid (unlabelled digits such as `n°2019-1130` would find one too often).
            let nanp = region != Some(Region::US) && is_nanp_shaped(text);
            nanp.then(|| parse_valid(Some(Region::US)))
                .flatten()
                .or_else(|| {
                    if !labelled {
                        return None;
                    }
                    region
                        .map(sibling_regions)
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|code| code.parse::<Region>().ok())
                        .find_map(|sibling| parse_valid(Some(sibling)).filter(supported))
                })?
        }
        None => return None,
    };
    if is_placeholder(&number.get_national_significant_number())
        || is_example_number(&number, number_region)
    {
        return None;
    }
    Some(Valid {
        e164: number.format_as(PhoneNumberFormat::E164).into_owned(),
        region: number_region,
    })
}

/// `cleaned` parsed in `region` and its region when it is valid ([`valid_region`]): the page's
/// earlier parse of the same number in the same region when there is one (`parses`), else a
/// new one, kept there. A parse is a pure function of the two.
fn parsed_valid(
    parses: &mut Parses,
    cleaned: &str,
    region: Option<Region>,
) -> Option<(PhoneNumber, Region)> {
    if let Some((_, _, parsed)) = parses
        .iter()
        .find(|(seen, seen_region, _)| seen == cleaned && *seen_region == region)
    {
        return parsed.clone();
    }
    let parsed = PhoneNumber::parse(cleaned, region).ok().and_then(|number| {
        let region = valid_region(&number)?;
        Some((number, region))
    });
    parses.push((cleaned.to_owned(), region, parsed.clone()));
    parsed
}

/// Whether `number` (valid, in `region`) is its region's example fixed-line or mobile number in libphonenumber's
/// metadata (Australia's `0412 345 678`, France's `06 12 34 56 78`): forms and templates
/// print these as placeholders. The examples count up (`…12345678`, `…0123`), so only a
/// number with four digits in a row counting up or down is compared: one metadata look-up
/// and parse per type (about a hundred thousand instructions) for few numbers.
fn is_example_number(number: &PhoneNumber, region: Region) -> bool {
    use rlibphonenumber::PHONE_NUMBER_UTIL;
    let national = number.get_national_significant_number();
    if longest_step_run(&national) < 4 {
        return false;
    }
    [PhoneNumberType::Mobile, PhoneNumberType::FixedLine]
        .into_iter()
        .filter_map(|kind| {
            PHONE_NUMBER_UTIL
                .get_example_number_for_type_and_region(region, kind)
                .ok()
        })
        .any(|example| example.get_national_significant_number() == national)
}

/// The other countries where the main language of `region` is a national language (for a
/// region guessed from `<html lang>`), most populous first.
fn sibling_regions(region: Region) -> &'static [&'static str] {
    match region {
        Region::IT => &["CH", "SM"],
        Region::DE => &["AT", "CH", "LU", "LI"],
        Region::FR => &["BE", "CH", "LU", "MC"],
        Region::NL => &["BE"],
        Region::SE => &["FI"],
        Region::PT => &["BR"],
        Region::GB => &["IE"],
        _ => &[],
    }
}

/// Maps `00` to `+`, drops the `(0)` trunk marker and separators.
fn clean_number(text: &str) -> String {
    let text = text.trim();
    let text = text.replace("(0)", " ");
    let mut out = String::with_capacity(text.len());
    let mut chars = text.trim().chars().peekable();
    if text.trim().starts_with("00") {
        out.push('+');
        chars.next();
        chars.next();
    }
    for ch in chars {
        if ch.is_ascii_digit() || ch.is_ascii_uppercase() || (ch == '+' && out.is_empty()) {
            out.push(ch);
        }
    }
    out
}

/// One run of 9 to 12 digits opening with a single trunk prefix `0` (`0647381920`,
/// `07211234567`), the national form of most European and many other numbering plans.
fn is_trunk_national(text: &str) -> bool {
    let bytes = text.as_bytes();
    (9..=12).contains(&bytes.len())
        && bytes.iter().all(u8::is_ascii_digit)
        && bytes[0] == b'0'
        && bytes[1] != b'0'
}

/// `(303) 555-0100`, `303-555-0100`, `303.555.0100`, `1-800-555-0100`, `303 555 0100`.
fn is_nanp_shaped(text: &str) -> bool {
    let groups: Vec<usize> = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|g| !g.is_empty())
        .map(str::len)
        .collect();
    matches!(
        groups.as_slice(),
        [3, 3, 4] | [1, 3, 3, 4] | [3, 7] | [3, 3, 4..=7] | [1, 3, 3, 4..=7]
    )
}

/// Sequences such as 1234567 or 0000000 that pages use as dummies.
fn is_placeholder(national: &str) -> bool {
    let distinct = {
        let mut d: Vec<char> = national.chars().collect();
        d.sort_unstable();
        d.dedup();
        d.len()
    };
    distinct <= 2
        || national.ends_with("1234567")
        || national.contains("123456789")
        || national.contains("9876543")
}

/// Whether groups `g..g + 3` of `run` spell a calendar date with a four-digit year
/// (`12.04.2020`, `12/04/2020`, `2020-04-12`): one separator character, the same twice, and
/// plausible day, month and year values.
fn date_at(run: &Run, g: usize, line: &str) -> bool {
    let Some(groups) = run.groups.get(g..g + 3) else {
        return false;
    };
    let value = |group: &Group| line[group.start..group.end].parse::<u32>().ok();
    let separator = |a: &Group, b: &Group| &line[a.end..b.start];
    let (first, second) = (
        separator(&groups[0], &groups[1]),
        separator(&groups[1], &groups[2]),
    );
    if first != second || !matches!(first, "." | "/" | "-") {
        return false;
    }
    let lens = [groups[0].digits, groups[1].digits, groups[2].digits];
    let (day, month, year) = match lens {
        [1..=2, 1..=2, 4] => (value(&groups[0]), value(&groups[1]), value(&groups[2])),
        [4, 1..=2, 1..=2] => (value(&groups[2]), value(&groups[1]), value(&groups[0])),
        _ => return false,
    };
    // Day and month in either order (`12/25/2020` in the US).
    matches!(
        (day, month, year),
        (Some(1..=31), Some(1..=12), Some(1900..=2099))
            | (Some(1..=12), Some(1..=31), Some(1900..=2099))
    )
}

/// How many groups from `g` are copyright years: a range of two years (`2007 - 2024`,
/// `1998–2025`) is 2; one year right after `©`, `(c)` or "copyright" is 1; otherwise `None`.
/// Whether `after` (the text after a candidate) opens with an at-sign, written or spelled
/// out the way pages hide addresses from harvesters (`@`, `(at)`, `[at]`, `{at}`, `(@)`),
/// after white space: the digits are an email's local part (`03083147291(at)example.de`,
/// `invoice-0208314728 @ example.nl`), not a phone.
fn before_at_sign(after: &str) -> bool {
    let after = after.trim_start();
    after.starts_with('@')
        || ["(at)", "[at]", "{at}", "(@)", "[@]"]
            .iter()
            .any(|at| strip_prefix_ci(after, at).is_some())
}

/// The longest run of digits each one more, or each one less, than the one before
/// (`412345678` → 8).
fn longest_step_run(digits: &str) -> usize {
    let bytes = digits.as_bytes();
    let (mut best, mut up, mut down) = (usize::from(!bytes.is_empty()), 1, 1);
    for pair in bytes.windows(2) {
        let (a, b) = (i16::from(pair[0]), i16::from(pair[1]));
        up = if b == a + 1 { up + 1 } else { 1 };
        down = if b == a - 1 { down + 1 } else { 1 };
        best = best.max(up).max(down);
    }
    best
}

/// The written shapes of registration and tax numbers that hold a phone-like run of digits,
/// `9` standing for a digit and `k` for the check letter `K`: the Brazilian CNPJ and CPF, the
/// Argentine CUIT/CUIL, the Chilean RUT, the Finnish Y-tunnus, the Swedish and Norwegian
/// organisation numbers written with their dash (`556677-8899`).
const IDENTIFIER_SHAPES: &[&str] = &[
    "99.999.999/9999-99",
    "999.999.999-99",
    "99-99999999-9",
    "99.999.999-9",
    "9.999.999-9",
    "99.999.999-k",
    "9.999.999-k",
    "9999999-9",
    "999999-9999",
];

/// Whether the candidate `start..end` of `line` lies in a token (digits, `.`, `/`, `-` and a
/// final `K`, no space) written the way of [`IDENTIFIER_SHAPES`].
fn in_identifier_shape(line: &str, start: usize, end: usize) -> bool {
    /// Longest token an identifier shape spells, with a final `.` and `K`.
    const MAX_TOKEN: usize = 22;
    let part = |c: u8| c.is_ascii_digit() || matches!(c, b'.' | b'/' | b'-');
    let bytes = line.as_bytes();
    // The token's ends are looked for at most `MAX_TOKEN` bytes away: a longer token is no
    // identifier, and a line of one long token (`0301000-0301001-…`) read candidate by
    // candidate would otherwise be scanned to its ends for each (quadratic in the line).
    let window = start.saturating_sub(MAX_TOKEN);
    let Some(from) = bytes[window..start]
        .iter()
        .rposition(|&c| !part(c))
        .map(|i| window + i + 1)
        .or((window == 0).then_some(0))
    else {
        return false;
    };
    let ahead = &bytes[end..bytes.len().min(end + MAX_TOKEN)];
    let mut to = match ahead.iter().position(|&c| !part(c)) {
        Some(i) => end + i,
        None if end + ahead.len() == bytes.len() => bytes.len(),
        None => return false,
    };
    if matches!(bytes.get(to), Some(b'k' | b'K')) {
        to += 1;
    }
    let token = bytes[from..to]
        .strip_suffix(b".")
        .unwrap_or(&bytes[from..to]);
    if token.len() > 20 {
        return false;
    }
    let shape: Vec<u8> = token
        .iter()
        .map(|&c| match c {
            b'0'..=b'9' => b'9',
            b'K' => b'k',
            other => other,
        })
        .collect();
    IDENTIFIER_SHAPES
        .iter()
        .any(|s| s.as_bytes() == shape.as_slice())
}

/// Whether groups `g` and `g + 1` of `run` spell a day and a month without a year, the way
/// date ranges and opening notices write them in German, the Nordic and Central European
/// languages (`24.08.`, `1.6.`, `24. 8.`): a day 1–31, a dot (and at most a space), a month
/// 1–12 with a dot right after it that no digit follows.
fn day_month_at(run: &Run, g: usize, line: &str) -> bool {
    let (Some(day), Some(month)) = (run.groups.get(g), run.groups.get(g + 1)) else {
        return false;
    };
    let value = |group: &Group| line[group.start..group.end].parse::<u32>().ok();
    let between = &line[day.end..month.start];
    let after = &line[month.end..];
    day.digits <= 2
        && month.digits <= 2
        && matches!(between, "." | ". ")
        && after.starts_with('.')
        && !after[1..].starts_with(|c: char| c.is_ascii_digit())
        && matches!(value(day), Some(1..=31))
        && matches!(value(month), Some(1..=12))
}

fn years_at(run: &Run, g: usize, line: &str) -> Option<usize> {
    let year = |group: &Group| {
        group.digits == 4
            && line[group.start..group.end]
                .parse::<u32>()
                .is_ok_and(|y| (1900..=2099).contains(&y))
    };
    let first = run.groups.get(g).filter(|group| year(group))?;
    if let Some(second) = run.groups.get(g + 1).filter(|group| year(group)) {
        let between = line[first.end..second.start].trim();
        if matches!(between, "-" | "–" | "—" | "/") {
            return Some(2);
        }
    }
    let before = line[..first.start].trim_end().to_lowercase();
    (before.ends_with('©') || before.ends_with("(c)") || before.ends_with("copyright")).then_some(1)
}

/// `12.03.2014`, `2014-03-12`, `12/03/14`, `08.00-17.00`, `8.30 - 17.30`.
fn looks_like_date_or_time(text: &str) -> bool {
    let groups: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|g| !g.is_empty())
        .collect();
    let seps: String = text
        .chars()
        .filter(|c| !c.is_ascii_digit() && !c.is_whitespace())
        .collect();
    let lens: Vec<usize> = groups.iter().map(|g| g.len()).collect();
    let date = matches!(lens.as_slice(), [1..=2, 1..=2, 2 | 4] | [4, 1..=2, 1..=2])
        && (seps.chars().all(|c| c == '.')
            || seps.chars().all(|c| c == '/')
            || seps.chars().all(|c| c == '-'))
        && !text.starts_with('+');
    let time_range = lens.len() == 4
        && lens.iter().zip([2, 2, 2, 2]).all(|(l, _)| *l <= 2)
        && lens[1] == 2
        && lens[3] == 2
        && seps.contains(['-', '–'])
        && groups
            .iter()
            .step_by(2)
            .all(|h| h.parse::<u32>().is_ok_and(|v| v <= 24));
    date || time_range
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Label {
    Fax,
    Identifier,
    Phone,
}

/// The label closest before a candidate (within the last 48 bytes of the line).
/// Whether `line` ends with a tax or registration label (`Steuernummer:`, `USt-IdNr.`,
/// `Umsatzsteuer-Identifikationsnummer gemäß § 27 a UStG:`): a number that opens the next line
/// is that identifier, not a phone.
pub fn ends_in_identifier_label(line: &str) -> bool {
    nearest_label(line.trim_end()) == Some(Label::Identifier)
}

fn nearest_label(before: &str) -> Option<Label> {
    type LabelMatcher = (AhoCorasick, Vec<(String, Label)>);
    static MATCHER: OnceLock<Option<LabelMatcher>> = OnceLock::new();
    let (matcher, words) = MATCHER
        .get_or_init(|| {
            let words = label_words();
            AhoCorasick::new(words.iter().map(|(w, _)| w))
                .ok()
                .map(|m| (m, words))
        })
        .as_ref()?;
    let window_start = before.len().saturating_sub(48);
    let window_start = (window_start..=before.len())
        .find(|i| before.is_char_boundary(*i))
        .unwrap_or(before.len());
    let window = before[window_start..].to_lowercase();
    // The label ending last wins; at the same end an identifier beats fax beats phone.
    let rank = |label: Label| match label {
        Label::Phone => 0,
        Label::Fax => 1,
        Label::Identifier => 2,
    };
    let mut best: Option<(usize, u8, Label)> = None;
    for found in matcher.find_overlapping_iter(&window) {
        let Some((word, label)) = words.get(found.pattern().as_usize()) else {
            continue;
        };
        let (word, label) = (word.as_str(), *label);
        let (pos, end) = (found.start(), found.end());
        // Word start: not glued to a preceding letter.
        let glued = window[..pos]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphabetic());
        if glued && !word.starts_with(|c: char| !c.is_alphabetic()) {
            continue;
        }
        // Word end for short labels (`t`, `p`, `f`): punctuation, then the number.
        if word.len() <= 2 && word.chars().all(char::is_alphabetic) {
            let next = window[end..].chars().next();
            if !matches!(next, Some(':' | '.' | ' ' | ')') | None) {
                continue;
            }
            let following = window[end..].trim_start_matches([':', '.', ' ', ')']);
            if !following.is_empty()
                && !following.starts_with(|c: char| c.is_ascii_digit() || c == '+' || c == '(')
            {
                continue;
            }
        }
        let key = (end, rank(label));
        if best.is_none_or(|(e, r, _)| key >= (e, r)) {
            best = Some((end, rank(label), label));
        }
    }
    best.map(|(_, _, label)| label)
}

/// The words [`nearest_label`] looks for, lower-cased, with the label each gives: the lexicon's
/// `label.phone` and `phone.cue` entries and [`PHONE_SYMBOLS`] (a phone), `label.fax` (a fax), and
/// `label.registration`, `label.bank` and `label.number` (a number that is not a phone:
/// registration and tax numbers, bank details, order, item and post-office-box numbers).
///
/// An entry written with a final colon (`NIP:`, `KRS:`, `Konto:`) is a short word that also
/// begins other words (`nipple`, `Kontor`): it counts only with the colon or, when it has three
/// letters or more, a space that ends it (`NIP 123…`); a one- or two-letter one (`ID:`, `O:`)
/// only with its colon.
fn label_words() -> Vec<(String, Label)> {
    let mut words = Vec::new();
    let classes = [
        (Class::LabelPhone, Label::Phone),
        (Class::PhoneCue, Label::Phone),
        (Class::LabelFax, Label::Fax),
        (Class::LabelRegistration, Label::Identifier),
        (Class::LabelBank, Label::Identifier),
        (Class::LabelNumber, Label::Identifier),
    ];
    for (class, label) in classes {
        for entry in lexicon::words(class) {
            let word = entry.to_lowercase();
            if let Some(stem) = word.strip_suffix(':') {
                if stem.chars().count() >= 3 {
                    words.push((format!("{stem} "), label));
                }
            }
            words.push((word, label));
        }
    }
    words.extend(
        PHONE_SYMBOLS
            .iter()
            .map(|symbol| (symbol.to_string(), Label::Phone)),
    );
    words.sort_unstable();
    words.dedup();
    words
}

/// Pictographs printed before a phone number: the same on pages of every language, so no
/// language's lexicon file holds them.
const PHONE_SYMBOLS: &[&str] = &["☎", "📞"];

/// `(fax)`, `(f)` or a trailing word `fax` right after the number; `Fax:` followed by another
/// number labels that number instead.
fn fax_after(after: &str) -> bool {
    let after = after.trim_start().to_lowercase();
    if after.starts_with("(fax)") || after.starts_with("(f)") {
        return true;
    }
    after.strip_prefix("fax").is_some_and(|rest| {
        let rest = rest.trim_start();
        !rest.starts_with(|c: char| c.is_ascii_digit() || matches!(c, ':' | '+' | '(' | '.' | '#'))
            && !rest.starts_with(|c: char| c.is_alphanumeric())
    })
}

/// `s` after `prefix`, ASCII letters compared case-insensitively.
fn strip_prefix_ci<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    s.as_bytes()
        .get(..prefix.len())
        .filter(|head| head.eq_ignore_ascii_case(prefix.as_bytes()))
        .map(|_| &s[prefix.len()..])
}

fn starts_with_any_ci(s: &str, prefixes: &[&str]) -> bool {
    let lower: String = s.chars().take(4).collect::<String>().to_lowercase();
    prefixes.iter().any(|p| lower.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arabic_indic_digits_are_written_as_ascii_ones() {
        assert!(matches!(
            with_ascii_digits("Tel. 04 381 9052 · هاتف"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(with_ascii_digits("هاتف: ٠٤ ٣٨١ ٩٠٥٢"), "هاتف: 04 381 9052");
        assert_eq!(
            with_ascii_digits("۰۲۱ ۸۸۴۷ ۳۹۶۱ و 04"),
            "021 8847 3961 و 04"
        );
        // Other characters of the two bytes' blocks stay (`٪`, `ۺ`), and a lone lead byte's
        // character too.
        assert_eq!(with_ascii_digits("٪٥ ۺ ً"), "٪5 ۺ ً");
        assert!(holds_arabic_indic_digits("هاتف: ٠٤"));
        assert!(holds_arabic_indic_digits("۹"));
        assert!(!holds_arabic_indic_digits("هاتف: 04 ٪ ۺ"));
    }

    /// [`whatsapp_number`] as first written: the schemes stripped one by one, every link's
    /// prefixes compared.
    fn whatsapp_number_plain(href: &str) -> Option<String> {
        let href = whitespace::trim(href);
        let rest = ["https://", "http://", "//"]
            .iter()
            .find_map(|scheme| strip_prefix_ci(href, scheme))
            .unwrap_or(href);
        let rest = strip_prefix_ci(rest, "www.").unwrap_or(rest);
        whatsapp_number_after_scheme(rest)
    }

    proptest::proptest! {
        #[test]
        fn whatsapp_links_read_as_the_plain_reading(
            scheme in "(|https://|HTTP://|http://|//| )",
            www in "(|www\\.|WWW\\.)",
            host in "(wa\\.me/|WA\\.ME/|api\\.whatsapp\\.com/send|API\\.WhatsApp\\.com/send|Web\\.WhatsApp\\.com/send|whatsapp://send|example\\.com/|/about|a|w)",
            rest in "(\\?phone=|\\?text=hi&phone=|x|)\\+?[0-9]{0,13}",
        ) {
            let href = format!("{scheme}{www}{host}{rest}");
            proptest::prop_assert_eq!(whatsapp_number(&href), whatsapp_number_plain(&href));
        }
    }

    /// [`super::from_text`] with the budget of a page of `line`'s size.
    fn from_text(
        line: &str,
        hint: RegionHint,
        judgements: &mut Judgements,
    ) -> Vec<(usize, FoundPhone)> {
        super::from_text(line, hint, judgements, &PageBudget::for_page(line.len()))
    }

    /// [`super::from_tel`] with the budget of a page of the link's size.
    fn from_tel(
        href: &str,
        link_text: &str,
        hint: RegionHint,
        judgements: &mut Judgements,
    ) -> Vec<FoundPhone> {
        let budget = PageBudget::for_page(href.len() + link_text.len());
        super::from_tel(href, link_text, hint, judgements, &budget)
    }

    /// [`super::from_structured`] with the budget of a page of `value`'s size.
    fn from_structured(
        value: &str,
        hint: RegionHint,
        judgements: &mut Judgements,
    ) -> Option<String> {
        super::from_structured(value, hint, judgements, &PageBudget::for_page(value.len()))
    }

    fn hint(code: &str) -> RegionHint {
        RegionHint::from_code(code).unwrap()
    }

    /// The phones of one page fetched from `url`.
    fn page_phones(url: &str, html: &str) -> Vec<String> {
        let url = url::Url::parse(url).unwrap();
        crate::extract::extract_page(&url, None, html.as_bytes()).phones
    }

    #[test]
    fn sms_links_give_their_number() {
        // Class: `sms:` links (RFC 5724), a texting line of the business (US, Germany).
        let mut judgements = Judgements::per_page();
        let found = |href: &str, judgements: &mut Judgements| -> Vec<String> {
            from_tel(href, "Text us", RegionHint::default(), judgements)
                .into_iter()
                .map(|p| p.e164)
                .collect()
        };
        assert_eq!(
            found("sms:+13054812976?body=Hello", &mut judgements),
            ["+13054812976"]
        );
        assert_eq!(
            found("SMS:+49 1573 8264190", &mut judgements),
            ["+4915738264190"]
        );
        assert_eq!(
            page_phones(
                "https://www.example-law.com/",
                "<p><a href='sms:+13054812976'>Text Ken</a></p>"
            ),
            ["+13054812976"]
        );
    }

    #[test]
    fn a_mobile_written_with_and_without_its_mobile_digit_is_one_number() {
        // Class: Argentina's international mobile form `+54 9 <area> <number>`, also written
        // without the 9 (a fixed-line form of the same digits); Buenos Aires and Córdoba.
        assert_eq!(
            without_mobile_twins(vec![
                "+541148273915".to_string(),
                "+5491148273915".to_string(),
                "+543514827391".to_string(),
            ]),
            ["+5491148273915", "+543514827391"]
        );
        assert_eq!(
            without_mobile_twins(vec![
                "+5493514827391".to_string(),
                "+543514827391".to_string(),
            ]),
            ["+5493514827391"]
        );
        assert_eq!(
            page_phones(
                "https://www.estudio-ejemplo.com.ar/",
                "<p><a href='https://wa.me/541148273915'>WhatsApp</a> \
                 <a href='https://wa.me/5491148273915'>Escribinos</a></p>"
            ),
            ["+5491148273915"]
        );
    }

    #[test]
    fn national_numbers_on_a_generic_domain_read_in_the_only_region_they_are_valid_in() {
        // Class: a `.com` site whose `lang` names no country (or the wrong one): a national
        // number valid in exactly one of the page's candidate regions (its language's
        // countries, its script's) decides. Japan (kana text, `lang="en"`), Mexico
        // (`lang="es"`).
        assert_eq!(
            page_phones(
                "https://www.seikotsu-example.com/",
                "<html lang='en'><p>東大阪市の整骨院です。ご予約はお電話で。</p>\
                 <p>Tel： <a href='tel:06-4827-3915'>06-4827-3915</a></p></html>"
            ),
            ["+81648273915"]
        );
        assert_eq!(
            page_phones(
                "https://www.taller-ejemplo.com/",
                "<html lang='es'><p>Teléfono: <a href='tel:5548219367'>55 4821 9367</a></p></html>"
            ),
            ["+525548219367"]
        );
    }

    /// The phones of a site whose pages are `pages` ((url, html), home page first).
    fn site_phones(pages: &[(&str, &str)]) -> Vec<String> {
        let extracted: Vec<crate::extract::PageExtraction> = pages
            .iter()
            .map(|(url, html)| {
                crate::extract::extract_page(&url::Url::parse(url).unwrap(), None, html.as_bytes())
            })
            .collect();
        let home = url::Url::parse(pages[0].0).unwrap();
        let result = crate::extract::merge(
            crate::extract::SiteInfo {
                input_url: pages[0].0,
                url: &home,
                contact_pages: Vec::new(),
                pages_fetched: 2,
                duration_ms: 0,
                request_id: String::new(),
            },
            &extracted,
        );
        result.phones.into_iter().map(|p| p.value).collect()
    }

    #[test]
    fn the_home_pages_country_reads_the_contact_pages_national_numbers() {
        // Class: a `.com` site whose contact page prints national numbers with nothing to
        // tell its country, while the home page does (Japan: a structured address country;
        // Brazil: an international number and prices in reais).
        assert_eq!(
            site_phones(&[
                (
                    "https://www.seikotsu-example.com/",
                    "<html><script type='application/ld+json'>{\"@type\":\"LocalBusiness\",\
                     \"address\":{\"@type\":\"PostalAddress\",\"streetAddress\":\"1-2-9 Example\",\
                     \"postalCode\":\"577-0000\",\"addressCountry\":\"JP\"}}</script><p>Welcome</p></html>"
                ),
                (
                    "https://www.seikotsu-example.com/contact",
                    "<html><p>Phone: 06-4827-3915</p></html>"
                ),
            ]),
            ["+81648273915"]
        );
        assert_eq!(
            site_phones(&[
                (
                    "https://www.oficina-exemplo.com/",
                    "<html><p>Ligue <a href='tel:+551148273915'>agora</a>. \
                     Revisão a partir de R$ 120,00</p></html>"
                ),
                (
                    "https://www.oficina-exemplo.com/contato",
                    "<html><p>Filial: Tel. (11) 3482-7391</p></html>"
                ),
            ]),
            ["+551148273915", "+551134827391"]
        );
    }

    #[test]
    fn judgements_run_out_after_the_allowance_and_only_libphonenumber_calls_count() {
        let none = RegionHint::default();
        let mut judgements = Judgements::per_page();
        // Refused before libphonenumber (a date, too few digits): nothing taken.
        assert!(from_text("12.03.2024 and 123 45", none, &mut judgements).is_empty());
        assert_eq!(judgements.left, MAX_PHONE_JUDGEMENTS);
        for _ in 0..MAX_PHONE_JUDGEMENTS - 1 {
            assert!(from_text("+999 1234567", none, &mut judgements).is_empty());
        }
        assert_eq!(judgements.left, 1);
        let last = from_text("+44 161 496 0500", none, &mut judgements);
        assert_eq!(last.len(), 1);
        assert!(judgements.exhausted());
        assert!(from_text("+44 161 496 0500", none, &mut judgements).is_empty());
        assert!(from_tel("tel:+441614960500", "", none, &mut judgements).is_empty());
        assert_eq!(
            from_structured("+44 161 496 0500", none, &mut Judgements::per_page()).as_deref(),
            Some("+441614960500")
        );
    }

    /// The region [`from_tel`] gave a valid `tel:` number before the judging parse's was
    /// kept: a second parse, of its E.164 form.
    fn region_by_a_second_parse(e164: &str) -> Option<Region> {
        PhoneNumber::parse(e164, None)
            .ok()
            .and_then(|n| n.get_region_code())
    }

    proptest::proptest! {
        #[test]
        fn a_valid_region_is_the_region_of_a_number_libphonenumber_calls_valid(
            plus in proptest::bool::ANY,
            digits in "[0-9]{6,14}",
            code in proptest::sample::select(vec!["", "US", "CA", "GB", "DE", "FR", "IT", "CH", "AU", "IN", "BR", "AR", "JP", "RU"]),
        ) {
            let text = if plus { format!("+{digits}") } else { digits.clone() };
            let region = code.parse::<Region>().ok();
            if let Ok(number) = PhoneNumber::parse(&text, region) {
                let by_validation = if number.is_valid() { number.get_region_code() } else { None };
                proptest::prop_assert_eq!(valid_region(&number), by_validation, "{}", text);
            }
        }

        #[test]
        fn a_valid_number_keeps_the_region_a_parse_of_its_e164_form_gives(
            plus in proptest::bool::ANY,
            digits in "[0-9]{7,13}",
            code in proptest::sample::select(vec!["", "US", "GB", "DE", "FR", "IT", "CH", "AU", "IN", "BR", "AR", "JP"]),
            weak in proptest::bool::ANY,
        ) {
            let mut region_hint = if code.is_empty() { RegionHint::default() } else { hint(code) };
            region_hint.weak = weak && !code.is_empty();
            let text = if plus { format!("+{digits}") } else { digits.clone() };
            let mut judgements = Judgements::per_page();
            if let Some(valid) = validate_with_region(&text, region_hint, true, &mut judgements) {
                proptest::prop_assert_eq!(Some(valid.region), region_by_a_second_parse(&valid.e164), "{}", text);
            }
        }
    }

    #[test]
    fn a_valid_number_keeps_its_region() {
        let mut judgements = Judgements::per_page();
        for (text, code, region) in [
            ("+1 317 555 0142", "", Some(Region::US)),
            ("+44 161 496 0500", "", Some(Region::GB)),
            ("030 12345678", "DE", Some(Region::DE)),
            ("+39 06 1234 5678", "", Some(Region::IT)),
        ] {
            let region_hint = if code.is_empty() {
                RegionHint::default()
            } else {
                hint(code)
            };
            let valid = validate_with_region(text, region_hint, true, &mut judgements).unwrap();
            assert_eq!(Some(valid.region), region, "{text}");
            assert_eq!(
                Some(valid.region),
                region_by_a_second_parse(&valid.e164),
                "{text}"
            );
        }
    }

    #[test]
    fn a_number_written_apart_is_parsed_once_with_the_verdicts_of_fresh_parses() {
        let none = RegionHint::default();
        let de = hint("DE");
        let mut judgements = Judgements::per_page();
        let texts = [
            "(317) 555-0142",
            "317-555-0142",
            "317.555.0142",
            "030 1234567",
            "030-1234567",
            "+49 30 1234567",
        ];
        for text in texts {
            for (region_hint, labelled) in [(none, false), (de, true), (de, false)] {
                let shared = validate(text, region_hint, labelled, &mut judgements);
                let fresh = validate(text, region_hint, labelled, &mut Judgements::per_page());
                assert_eq!(shared, fresh, "{text}");
            }
        }
        // Each number once in each region it is read in: in the US with no hint (the
        // international one in none), in Germany with its hint; six parses for eighteen
        // candidates.
        let parsed: Vec<(&str, Option<Region>)> = judgements
            .parses
            .iter()
            .map(|(cleaned, region, _)| (cleaned.as_str(), *region))
            .collect();
        assert_eq!(
            parsed,
            [
                ("3175550142", Some(Region::US)),
                ("3175550142", Some(Region::DE)),
                ("0301234567", Some(Region::US)),
                ("0301234567", Some(Region::DE)),
                ("+49301234567", None),
                ("+49301234567", Some(Region::DE)),
            ]
        );
    }

    #[test]
    fn a_repeated_candidate_gets_the_same_verdict_from_one_parse() {
        let none = RegionHint::default();
        let mut judgements = Judgements::per_page();
        let first = validate("(317) 555-0142", none, false, &mut judgements);
        assert_eq!(first.as_deref(), Some("+13175550142"));
        assert_eq!(
            validate("(317) 555-0142", none, false, &mut judgements),
            first
        );
        assert_eq!(judgements.verdicts.len(), 1);
        assert_eq!(judgements.left, MAX_PHONE_JUDGEMENTS - 2);
        // Another hint or label is another verdict.
        validate("(317) 555-0142", hint("DE"), false, &mut judgements);
        validate("(317) 555-0142", none, true, &mut judgements);
        assert_eq!(judgements.verdicts.len(), 3);
    }

    fn texts(line: &str, h: RegionHint) -> Vec<String> {
        from_text(line, h, &mut Judgements::per_page())
            .into_iter()
            .map(|(_, p)| p.e164)
            .collect()
    }

    #[test]
    fn national_numbers_with_region() {
        assert_eq!(texts("Phone: 317-555-0142", hint("US")), ["+13175550142"]);
        assert_eq!(texts("T 0115 - 645 210", hint("NL")), ["+31115645210"]);
        assert_eq!(
            texts("Call 020 8551 6580 today", hint("GB")),
            ["+442085516580"]
        );
        assert_eq!(texts("(03) 9650 2844", hint("AU")), ["+61396502844"]);
    }

    #[test]
    fn international_forms_and_trunk_zero() {
        let none = RegionHint::default();
        assert_eq!(texts("+44 (0)161 496 0500", none), ["+441614960500"]);
        assert_eq!(texts("0031 (0)111 123 456", hint("NL")), ["+31111123456"]);
    }

    #[test]
    fn generic_tld_accepts_nanp_shapes_only() {
        let none = RegionHint::default();
        assert_eq!(
            texts("Give us a call (303) 555-2368", none),
            ["+13035552368"]
        );
        assert!(texts("Order 12345678", none).is_empty());
    }

    #[test]
    fn glued_runs_are_split() {
        assert_eq!(
            texts("Denver, CO 80202 303-555-2368 303-555-2369", hint("US")),
            ["+13035552368", "+13035552369"]
        );
    }

    #[test]
    fn weak_region_falls_back_to_nanp() {
        let weak = RegionHint {
            weak: true,
            ..hint("GB")
        };
        assert_eq!(
            texts("Give Us A Call: 206-555-0175", weak),
            ["+12065550175"]
        );
        assert!(texts("Give Us A Call: 206-555-0175", hint("GB")).is_empty());
    }

    #[test]
    fn refuses_dates_hours_prices_and_ids() {
        let nl = hint("NL");
        assert!(texts("Ma-Vr 08.00-17.00", nl).is_empty());
        assert!(texts("12.03.2014", nl).is_empty());
        // A date with a time after it (comment stamps on a recipe site): no number is read
        // from the month, year and hour (`04.2020 17` is a valid German number).
        let de = hint("DE");
        assert!(texts("lecker. 12.04.2020 17:02 Antworten", de).is_empty());
        assert!(texts("Schade 11.04.2020 22:26", de).is_empty());
        assert!(texts("2020-04-07 21:50", de).is_empty());
        assert!(texts("posted 12/25/2020 10:15", hint("US")).is_empty());
        assert_eq!(texts("Stand 12.04.2020 Tel. 0421 2020 17", de).len(), 1);
        assert!(texts("KvK 17123456 BTW NL8123.45.678.B01", nl).is_empty());
        assert!(texts("IBAN NL91ABNA0417164300", nl).is_empty());
        assert!(texts("ABN 83 914 571 673", hint("AU")).is_empty());
        assert!(texts("Company No. 6234517 VAT 918273645", hint("GB")).is_empty());
        assert!(texts("Price: $1,234,567.00", hint("US")).is_empty());
    }

    #[test]
    fn fax_labels() {
        let found = from_text(
            "Tel: 317-555-0142 Fax: 317-555-0143",
            hint("US"),
            &mut Judgements::per_page(),
        );
        assert_eq!(found.len(), 2);
        assert!(!found[0].1.fax);
        assert!(found[1].1.fax);
        let found = from_text(
            "0113 - 212 100 (fax)",
            hint("NL"),
            &mut Judgements::per_page(),
        );
        assert!(found[0].1.fax);
    }

    #[test]
    fn vanity_numbers() {
        assert_eq!(texts("Call 303.555.DANA", hint("US")), ["+13035553262"]);
    }

    #[test]
    fn region_of_international_tel_links() {
        assert_eq!(region_of_tel("tel:+31%20115%20645%20210"), Some(Region::NL));
        assert_eq!(region_of_tel("tel:0115645210"), None);
        assert_eq!(region_of_tel("mailto:x@y.nl"), None);
    }

    fn tel(href: &str, text: &str, h: RegionHint) -> Vec<String> {
        from_tel(href, text, h, &mut Judgements::per_page())
            .into_iter()
            .map(|p| p.e164)
            .collect()
    }

    #[test]
    fn tel_links() {
        let us = hint("US");
        assert_eq!(tel("tel:+1-317-555-0142", "", us), ["+13175550142"]);
        assert_eq!(tel("tel:0115%20645210", "", hint("NL")), ["+31115645210"]);
        assert_eq!(
            tel("tel:+support@x.com", "Call 317-555-0142", us),
            ["+13175550142"]
        );
        assert!(tel("tel:", "Call now", us).is_empty());
    }

    #[test]
    fn tel_link_oddities() {
        let none = RegionHint::default();
        let it = hint("IT");
        // The scheme twice, a space after the colon, raw spaces, `callto:` and `callto://`.
        assert_eq!(tel("tel:tel:+390612345678", "", none), ["+390612345678"]);
        assert_eq!(tel("TEL: +39 06 1234 5678", "", none), ["+390612345678"]);
        assert_eq!(tel("tel:06 1234 5678", "", it), ["+390612345678"]);
        assert_eq!(tel("callto:+390612345678", "", none), ["+390612345678"]);
        assert_eq!(tel("callto://+390612345678", "", none), ["+390612345678"]);
        // A visible number that differs from the link's target: both, the target first; the
        // text's national number read in the target's country on a page with no region.
        assert_eq!(
            tel("tel:+49432198765", "0171 2345678", none),
            ["+49432198765", "+491712345678"]
        );
        assert_eq!(
            tel("tel:+4943219876500", "+49 4321 98765-00", none),
            ["+4943219876500"]
        );
    }

    #[test]
    fn whatsapp_links() {
        let wa = |href: &str| from_whatsapp(href, &mut Judgements::per_page()).map(|p| p.e164);
        assert_eq!(
            wa("https://wa.me/31612873540").as_deref(),
            Some("+31612873540")
        );
        assert_eq!(
            wa("https://api.whatsapp.com/send?phone=56934826715&text=Hola").as_deref(),
            Some("+56934826715")
        );
        assert_eq!(
            wa("whatsapp://send?phone=%2B31612873540").as_deref(),
            Some("+31612873540")
        );
        assert_eq!(wa("https://wa.me/message/ABCDEF"), None);
        assert_eq!(wa("https://example.com/wa.me/123"), None);
        assert_eq!(wa("https://www.example.com/contact"), None);
    }

    #[test]
    fn numbers_joined_across_separators() {
        let de = hint("DE");
        // A landline with a slash after the area code, then a mobile: two numbers, not one
        // 15-digit number.
        assert_eq!(
            texts("Tel. 04321 / 98765 0171 2345678", de),
            ["+49432198765", "+491712345678"]
        );
        assert_eq!(texts("04321/98765", de), ["+49432198765"]);
        // The `(0)` trunk prefix after the country code, with and without spaces.
        assert_eq!(texts("+49 (0) 4321 98765", de), ["+49432198765"]);
        assert_eq!(
            texts("+49(0)4321-98765", RegionHint::default()),
            ["+49432198765"]
        );
        // No-break, figure and narrow spaces inside a number.
        assert_eq!(texts("Tel 04321\u{a0}98765", de), ["+49432198765"]);
        assert_eq!(texts("+49\u{202f}4321\u{2007}98765", de), ["+49432198765"]);
        // Numbers whose later groups open with 0 stay whole when no second number follows.
        assert_eq!(texts("Phone: 317-555-0142", hint("US")), ["+13175550142"]);
        assert_eq!(texts("Tel. 0421 / 2020 0456", de), ["+4942120200456"]);
        // An unspaced national number with its trunk prefix.
        assert_eq!(
            texts("0647381920 · info@example.nl", hint("NL")),
            ["+31647381920"]
        );
        assert!(texts("Order 0647381920", RegionHint::default()).is_empty());
    }

    /// Class: a national number of a country the page gives no evidence of. With no region at
    /// all, only the North American way of writing (3-3-4 groups) reads as a NANP number: a
    /// labelled 10-digit number grouped otherwise is another country's (India's `98450 27391`,
    /// Mexico's `81 8354 2716`). With a region from `lang` alone, a number valid there only as
    /// a premium-rate, personal or pager number (India's `098450 27391` on an `en-GB` page:
    /// UK 09…) is not read as that country's.
    #[test]
    fn a_national_number_needs_a_region_that_supports_it() {
        let none = RegionHint::default();
        assert!(texts("Phone: 98450 27391", none).is_empty());
        assert!(texts("Tel.: 81 8354 2716", none).is_empty());
        assert_eq!(texts("Phone: (303) 555-2368", none), ["+13035552368"]);
        let weak = |code: &str| RegionHint {
            weak: true,
            ..hint(code)
        };
        assert!(texts("Phone: 98450 27391", weak("GB")).is_empty());
        assert!(texts("Call us: 098450 27391", weak("GB")).is_empty());
        assert!(texts("Tel.: 81 8354 2716", weak("ES")).is_empty());
        // A region from real evidence reads its own numbers, premium ones included; `lang`
        // alone keeps its fixed and mobile numbers.
        assert_eq!(
            texts("Call us: 0984 502 7391", hint("GB")),
            ["+449845027391"]
        );
        assert_eq!(
            texts("Call us: 020 7946 0321", weak("GB")),
            ["+442079460321"]
        );
        assert_eq!(
            texts("Mobile: 07946 532 187", weak("GB")),
            ["+447946532187"]
        );
    }

    #[test]
    fn a_region_from_the_language_only_tries_its_sister_countries() {
        let weak_it = RegionHint {
            weak: true,
            ..hint("IT")
        };
        assert_eq!(texts("Telefono: 076 815 52 47", weak_it), ["+41768155247"]);
        // An Italian number stays Italian; a page whose country is known gets no second try.
        assert_eq!(texts("Telefono: 06 1234 5678", weak_it), ["+390612345678"]);
        assert!(texts("Telefono: 076 815 52 47", hint("IT")).is_empty());
        // Unlabelled digits get no second country.
        let weak_fr = RegionHint {
            weak: true,
            ..hint("FR")
        };
        assert!(texts("Le décret n°2019-1130 validant", weak_fr).is_empty());
    }

    #[test]
    fn codes_printed_in_groups_are_not_numbers() {
        let de = hint("DE");
        assert!(texts("DE29 482 6617", de).is_empty());
        assert!(texts("USt-IdNr. DE29 482 6617", de).is_empty());
        assert_eq!(texts("Tel 0421 482 6617", de), ["+494214826617"]);
    }

    #[test]
    fn labels_glued_to_numbers() {
        let it = hint("IT");
        assert_eq!(texts("Tel.:+39 06 1234 5678", it), ["+390612345678"]);
        assert_eq!(texts("Tel:+390612345678", it), ["+390612345678"]);
        assert_eq!(texts("Telefono06 1234 5678", it), ["+390612345678"]);
        assert_eq!(texts("Tel0612345678", it), ["+390612345678"]);
        let found = from_text("Fax0612345678", it, &mut Judgements::per_page());
        assert!(found[0].1.fax);
        // Digits glued to other words are still not numbers.
        assert!(texts("Art0612345678", it).is_empty());
    }
}
