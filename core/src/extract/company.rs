//! The business's name, by the precedence of docs/contract.md "Result fields": JSON-LD
//! `Organization`/`LocalBusiness` name, then `og:site_name`, then `application-name`, then the
//! brand part of `<title>`, then the copyright line. Microdata/hCard organisation names rank
//! with JSON-LD. Template placeholders and CMS names are never names. Two additions: a title
//! match that spells only part of the domain gives way to a copyright holder that spells all
//! of it, and the header logo's `alt` (a link to the homepage) is the last resort. Professions,
//! titles and education lines are never names; a person's practice is named by the person
//! with title; the domain is matched with accents folded and initials allowed. No name is read
//! from the text of another organisation (a maker's credit, a host's section: the attribution
//! step's ranges, [`NameSources::others`]).

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;

use crate::extract::page_budget::PageBudget;
use crate::extract::sections;
use crate::lexicon::{self, Class};

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
    /// Byte ranges of `text` that belong to another organisation than the business
    /// (`sections::third_party_ranges`: a maker's credit, a hosting provider's or an
    /// authority's section): no name is read there.
    pub others: &'a [Range<usize>],
    /// The site's registrable domain without its suffix (`harrowvaledesignbuild`), to pick the
    /// title segment that names the brand.
    pub domain_label: &'a str,
    /// The texts of the links to the site's homepage outside the footer, in document order —
    /// the header logo's `alt` among them; the last resort.
    pub home_link_texts: &'a [&'a str],
    /// The page's budget (`page_budget.rs`): reading the text's lines is charged to it, and a
    /// spent budget ends the reading with what was found.
    pub budget: &'a PageBudget,
}

/// Chooses the name, or `None` when no source gives a usable one. Two corrections after the
/// precedence: a name that is only the domain (`acme.nl`), or none at all, gives way to the
/// publisher a legal notice names ([`legal_notice_name`]); and a shortened brand (`Acme Wood`)
/// gives way to the full trading name when the title and the copyright line both print it
/// (`Acme Wood Products`).
pub fn company_name(sources: &NameSources<'_>) -> Option<String> {
    let others = merged(sources.others);
    let text = Own {
        text: sources.text,
        others: &others,
    };
    let chosen = match chosen_name(sources, text) {
        Some(name) if !is_domain_name(&name) => Some(name),
        chosen => legal_notice_name(text)
            // A host name stands for the business as its registrable name, without `www.`.
            .or(chosen.map(|host| strip_www(&host))),
    };
    chosen
        .map(|name| full_trading_name(&name, sources, text).unwrap_or(name))
        .map(|name| tidy(&name, &squash(sources.domain_label)))
}

/// `host` without a leading `www.` (any case).
fn strip_www(host: &str) -> String {
    let host = host.trim();
    match host.get(..4) {
        Some(head) if head.eq_ignore_ascii_case("www.") => host[4..].to_string(),
        _ => host.to_string(),
    }
}

/// Whether `name` is a host name (`acme.nl`, `www.acme-shop.com`), not a business name; a
/// brand written with a dot and capitals (`Studio.Nova`) is a name.
fn is_domain_name(name: &str) -> bool {
    let name = name.trim();
    let www = name
        .get(..4)
        .is_some_and(|h| h.eq_ignore_ascii_case("www."));
    !name.contains(' ')
        && name.contains('.')
        && name.rsplit('.').next().is_some_and(|tld| {
            tld.len() >= 2
                && tld.bytes().all(|b| b.is_ascii_alphabetic())
                && (www || tld.bytes().all(|b| b.is_ascii_lowercase()))
        })
}

/// The title segment that is `name` plus one or two more words (`Acme Wood Products` for
/// `Acme Wood`), when a copyright line prints it too: the page states its full trading name.
fn full_trading_name(name: &str, sources: &NameSources<'_>, text: Own<'_>) -> Option<String> {
    let title = sources.title?;
    // Every segment is a slice of the title: one that starts with `name` needs the title to
    // hold it (most titles do not, and are not split).
    if !title.contains(name) {
        return None;
    }
    let words = name.split_whitespace().count();
    split_title(title)
        .into_iter()
        .map(|s| clean(&s))
        .find(|segment| {
            if !(segment.starts_with(name) && segment[name.len()..].starts_with(' ')) {
                return false;
            }
            let more: Vec<&str> = segment.split_whitespace().skip(words).collect();
            (1..=2).contains(&more.len())
                && more.iter().all(|w| {
                    let lower = w.to_lowercase();
                    w.starts_with(|c: char| c.is_uppercase())
                        && !has(&lexicon_words().generic_segments, &lower)
                })
                && copyright_holders(text, sources.budget)
                    .any(|holder| squash(&holder).starts_with(&squash(segment)))
        })
}

/// The lexicon's words as the company-name rules compare them (docs/extraction.md, "Lexicon"),
/// built once. The tables that [`has`] searches are sorted.
struct Words {
    /// `label.publisher` and `heading.publisher`: labels of a legal notice's field that names
    /// the publisher (`Raison sociale`, `Firmenname`), lower-case, in lexicon order.
    publisher_labels: Vec<String>,
    /// The first [`LABEL_HEAD_CHARS`] characters of each publisher label, of "angaben gemäß"
    /// and of "kvk" (the whole of a shorter one), sorted, without repeats: a line that may
    /// open a label starts with one of them, lower-cased ([`may_open_label`]).
    label_heads: Vec<String>,
    /// `heading.publisher`: the publisher labels that also head a section of their own (the
    /// name on the next line), lower-case.
    heading_labels: lexicon::SortedWords,
    /// `person.title` and `person.role`: titles and professions that name what someone is,
    /// not who (`Dr.`, `Avv.`, `Zahnarzt`), lower-case without dots; a name made only of them
    /// is no name.
    titles: lexicon::SortedWords,
    /// `org.kind`: kinds of business that say what a business is, not who (`Trattoria`),
    /// lower-case; a name made only of them is no name.
    business_kinds: lexicon::SortedWords,
    /// `person.degree`: degrees that open an education line (`Laurea in Economia`), lower-case.
    degrees: lexicon::SortedWords,
    /// [`Words::degrees`] searched for anywhere in a line at once (one pass instead of a
    /// substring search per degree).
    any_degree: AhoCorasick,
    /// `org.school`: the institutions an education line names (`Università`), lower-case,
    /// searched for anywhere in a line at once.
    any_school: AhoCorasick,
    /// `name.placeholder`: titles a site builder or template leaves in place of a name
    /// (`Home`, `Untitled document`), lower-case.
    placeholders: lexicon::SortedWords,
    /// `title.generic`: title segments that make a segment generic rather than a brand
    /// (`Home`, `Contact us`, `Startseite`), lower-case.
    generic_segments: lexicon::SortedWords,
    /// `title.page` and `title.home`: page-type words of a title segment, with their class,
    /// lower-cased by [`page_key`]. A `title.page` word (contact, privacy, imprint, terms) may
    /// open the title of a page that names the business (`Privacyverklaring Acme Bouw`).
    page_words: Vec<(Class, String)>,
    /// `legal.form` and `name.suffix`: words kept after a brand run (`GmbH`, `Ltd`, `Group`),
    /// as [`squash`] writes them (`S.p.A.` → `spa`).
    legal_forms: lexicon::SortedWords,
}

/// The company-name rules' [`Words`], read from the lexicon on first use.
fn lexicon_words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| {
        let lower = |classes: &[Class]| lexicon::sorted_words(classes, str::to_lowercase);
        let mut publisher_labels: Vec<String> = Vec::new();
        for label in lexicon::words(Class::LabelPublisher)
            .chain(lexicon::words(Class::HeadingPublisher))
            .map(str::to_lowercase)
        {
            if !publisher_labels.contains(&label) {
                publisher_labels.push(label);
            }
        }
        let titles = lexicon::sorted_words(&[Class::PersonTitle, Class::PersonRole], |title| {
            title.to_lowercase().replace('.', "")
        });
        let page_words = [Class::TitlePage, Class::TitleHome]
            .into_iter()
            .flat_map(|class| lexicon::words(class).map(move |word| (class, page_key(word))))
            .collect();
        let legal_forms = lexicon::sorted_words(&[Class::LegalForm, Class::NameSuffix], squash);
        let degrees = lower(&[Class::PersonDegree]);
        let schools = lower(&[Class::OrgSchool]);
        let label_heads = label_heads(&publisher_labels);
        Words {
            label_heads,
            publisher_labels,
            heading_labels: lower(&[Class::HeadingPublisher]),
            titles,
            business_kinds: lower(&[Class::OrgKind]),
            any_degree: AhoCorasick::new(&degrees).expect("the degrees make an automaton"),
            any_school: AhoCorasick::new(&schools).expect("the schools make an automaton"),
            degrees,
            placeholders: lower(&[Class::NamePlaceholder]),
            generic_segments: lower(&[Class::TitleGeneric]),
            page_words,
            legal_forms,
        }
    })
}

/// Whether the sorted `words` hold `word` ([`lexicon::holds`]).
fn has(words: &lexicon::SortedWords, word: &str) -> bool {
    lexicon::holds(words, word)
}

/// The publisher a legal notice names: the value of a "Raison sociale :"-style field (or the
/// line after such a label alone), the line after "Angaben gemäß § 5 TMG" (or DDG), or the line
/// above a Dutch Chamber of Commerce number ("KvK 12345678"). The name is the first
/// comma-separated chunk, without digits, at most eight words.
fn legal_notice_name(text: Own<'_>) -> Option<String> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(2_000)
        .collect();
    let name_in = |line: &str| -> Option<String> {
        let first = clean(line.split(',').next()?);
        let words = first.split_whitespace().count();
        (usable(&first)
            && (1..=8).contains(&words)
            && !first.contains([':', '*'])
            && !first.bytes().any(|b| b.is_ascii_digit()))
        .then_some(first)
    };
    for (i, line) in lines.iter().enumerate() {
        // Only a labelled field, a short label line, or a line opening with "KvK" or
        // "Angaben" can name the publisher: prose is passed over without a copy.
        let opens = |word: &str| {
            line.as_bytes()
                .get(..word.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(word.as_bytes()))
        };
        let candidate = line.len() <= 200
            && (line.contains(':') || line.len() <= 30 || opens("kvk") || opens("angaben"));
        if !candidate || !may_open_label(line) {
            continue;
        }
        let lower = line.to_lowercase();
        for label in &lexicon_words().publisher_labels {
            let Some(rest) = lower.strip_prefix(label.as_str()) else {
                continue;
            };
            let rest_trimmed = rest.trim_start();
            if rest_trimmed.starts_with(':') {
                // The value as written: after the line's first colon, which ends the label.
                if let Some(name) = line.split_once(':').and_then(|(_, value)| name_in(value)) {
                    return Some(name);
                }
            } else if rest_trimmed.is_empty() && has(&lexicon_words().heading_labels, label) {
                // A label alone on its line heads the section that names the publisher; form
                // fields ("Bedrijfsnaam", then "Voornaam *") are not such headings.
                if let Some(name) = lines.get(i + 1).and_then(|next| name_in(next)) {
                    return Some(name);
                }
            }
        }
        let tmg =
            lower.starts_with("angaben gemäß") && (lower.contains("tmg") || lower.contains("ddg"));
        if tmg {
            if let Some(name) = lines.get(i + 1).and_then(|next| name_in(next)) {
                return Some(name);
            }
        }
        if lower.starts_with("kvk") && lower.bytes().any(|b| b.is_ascii_digit()) {
            if let Some(name) = i.checked_sub(1).and_then(|above| name_in(lines[above])) {
                return Some(name);
            }
        }
    }
    None
}

/// Whether the lower-cased `line` may start with a publisher label ([`Words::publisher_labels`]),
/// "angaben gemäß" or "kvk" (all that [`legal_notice_name`] reads of it): whether its first
/// [`LABEL_HEAD_CHARS`] characters lower-case to the head of one ([`Words::label_heads`]). A
/// line lower-cases character by character (but for `Σ`, whose lower case depends on what
/// follows: such a line may open one), so this is checked before the line is copied.
fn may_open_label(line: &str) -> bool {
    // A character lower-cases to at most three, of at most four bytes each.
    let mut head = [0u8; 12 * LABEL_HEAD_CHARS];
    let mut len = 0;
    for c in line.chars().take(LABEL_HEAD_CHARS) {
        if c == 'Σ' {
            return true;
        }
        for lower in c.to_lowercase() {
            len += lower.encode_utf8(&mut head[len..]).len();
        }
    }
    let head = &head[..len];
    lexicon_words()
        .label_heads
        .iter()
        .any(|label_head| head.starts_with(label_head.as_bytes()))
}

/// Characters of a publisher label [`may_open_label`] compares before the line is copied.
const LABEL_HEAD_CHARS: usize = 2;

/// The heads [`Words::label_heads`] holds, of `labels` and the two fixed openings.
fn label_heads(labels: &[String]) -> Vec<String> {
    let mut heads: Vec<String> = labels
        .iter()
        .map(String::as_str)
        .chain(["angaben gemäß", "kvk"])
        .map(|label| label.chars().take(LABEL_HEAD_CHARS).collect())
        .collect();
    heads.sort_unstable();
    heads.dedup();
    heads
}

/// The name as chosen, before [`tidy`].
fn chosen_name(sources: &NameSources<'_>, text: Own<'_>) -> Option<String> {
    let domain = squash(sources.domain_label);
    sources
        .structured
        .iter()
        .map(String::as_str)
        .chain(sources.og_site_name)
        .chain(sources.application_name)
        .map(|name| brand_without_tagline(name, &domain).unwrap_or_else(|| clean(name)))
        .find(|n| usable(n))
        .or_else(|| {
            let from_title = sources
                .title
                .and_then(|t| title_brand(t, sources.domain_label));
            // A title word that spells only part of the domain name (`Plumbers` on
            // kestrelplumbers.example) gives way to a copyright holder that spells all of it
            // (`© Kestrel Plumbers 2012`).
            let domain = squash(sources.domain_label);
            // `&` may stand for "and" (`Holly & Son` on hollyandson.example).
            let spells_domain = |name: &String| {
                domain.len() >= 3
                    && (squash_as(name, &domain).contains(&domain)
                        || squash_as(&name.replace('&', "and"), &domain).contains(&domain)
                        || abbreviates_domain(name, &domain))
            };
            // The brand as the page writes it, when a line spells the domain name exactly
            // (`KVD Aanhangwagens`, `M&T Solicitors`).
            let spelled = || spelled_in_text(text, &domain, sources.budget);
            let holder_spelling_domain =
                || copyright_holders(text, sources.budget).find(spells_domain);
            match from_title {
                Some(title) if !spells_domain(&title) => {
                    Some(holder_spelling_domain().or_else(spelled).unwrap_or(title))
                }
                // The page's own writing of the brand with its legal form (`© 2014 WattleCar
                // Pty Ltd` for the title's `WattleCar`) is the name as the business writes it.
                Some(title) => Some(with_legal_form(&title, text, sources.budget).unwrap_or(title)),
                None => holder_spelling_domain()
                    .or_else(spelled)
                    .or_else(|| copyright_holder(text, sources.budget)),
            }
        })
        .or_else(|| sources.home_link_texts.iter().find_map(|t| logo_name(t)))
}

/// Undoes two ways a name is written twice or bent: a doubled name (`Brand Ltd Brand Ltd`, a
/// title that repeats the logo text) keeps one copy; a possessive (`Brightloop's`) loses its
/// `'s` when that makes it spell the domain name (`Maple's` on maples.example keeps it).
fn tidy(name: &str, domain: &str) -> String {
    let words: Vec<&str> = name.split_whitespace().collect();
    let half = words.len() / 2;
    // `Kora Kora` on korakora.example is the name, twice on purpose.
    if words.len() >= 2
        && words.len().is_multiple_of(2)
        && words[..half] == words[half..]
        && squash(name) != domain
    {
        return words[..half].join(" ");
    }
    for suffix in ["'s", "’s"] {
        if let Some(stem) = name.strip_suffix(suffix) {
            if squash(stem) == domain && squash(name) != domain {
                return stem.to_string();
            }
        }
    }
    name.to_string()
}

/// Most words in a brand written out in the text.
const MAX_BRAND_WORDS: usize = 8;

/// The first run of words in a line of `text` that spells the domain name exactly and starts
/// with a capital or a digit (`KVD Aanhangwagens` on kvdaanhangwagens.example; `&` may stand for
/// "and": `M&T Solicitors` on mandtsolicitors.example), with the legal forms that follow it
/// (`Vestra Ltd.`). Lower-case mentions (host names, emails) are not names.
fn spelled_in_text(text: Own<'_>, domain: &str, budget: &PageBudget) -> Option<String> {
    if domain.len() < 4 {
        return None;
    }
    // Charged to the page's budget (which paces the work, `crate::pace`): a line costs its
    // length; a spent budget or a stopped page ends here.
    text.lines()
        .take_while(|line| budget.work(line.len() + 1))
        .filter(|line| may_spell(line, domain))
        .find_map(|line| spelled_in_line(line, domain))
}

/// Whether [`spelled_in_line`] may find the brand in `line`: a word of it starts with a
/// capital or a digit that folds to the first character of `domain`, which for an ASCII letter
/// or digit is that capital or digit itself or a character beyond ASCII (`É`, `Ç`, the Kelvin
/// sign). Checked on bytes, so most lines are passed over without being split into words.
fn may_spell(line: &str, domain: &str) -> bool {
    match domain.chars().next() {
        Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit() => {
            !line.is_ascii()
                || memchr::memchr(c.to_ascii_uppercase() as u8, line.as_bytes()).is_some()
        }
        _ => true,
    }
}

/// [`spelled_in_text`] in one line: the first word that may open the brand (a capital or a
/// digit that folds to the first character of `domain`) from which [`spelled_from`] reads it.
/// In an ASCII line such a word opens with the one byte `domain`'s ASCII first character
/// gives, after a space or at the line's start: those bytes are searched for, and the line is
/// not split into words.
fn spelled_in_line(line: &str, domain: &str) -> Option<String> {
    let first_of_domain = domain.chars().next();
    if let Some(first) = first_of_domain.filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) {
        let opening = first.to_ascii_uppercase() as u8;
        let bytes = line.as_bytes();
        if line.is_ascii() {
            return memchr::memchr_iter(opening, bytes)
                .filter(|&at| at == 0 || is_ascii_white_space(bytes[at - 1]))
                .find_map(|at| spelled_from(&line[at..], domain));
        }
        // Beyond ASCII, a word that may open the brand starts with that byte or with the
        // first byte of a character of two bytes or more (`É`, the Kelvin sign), after a
        // white-space character.
        return (0..bytes.len())
            .filter(|&at| {
                let byte = bytes[at];
                (byte == opening || byte >= 0xC0)
                    && line[..at]
                        .chars()
                        .next_back()
                        .is_none_or(char::is_whitespace)
                    && line[at..].chars().next().is_some_and(|c| {
                        (c.is_uppercase() || c.is_ascii_digit()) && fold_first(c) == first_of_domain
                    })
            })
            .find_map(|at| spelled_from(&line[at..], domain));
    }
    line.split_whitespace()
        .filter(|word| {
            word.chars().next().is_some_and(|first| {
                // The squashed words spell the domain from its first character: a word whose
                // first character lower-cases to another cannot start it (checked before
                // squashing, which allocates).
                (first.is_uppercase() || first.is_ascii_digit())
                    && fold_first(first) == first_of_domain
            })
        })
        .find_map(|word| {
            spelled_from(
                &line[word.as_ptr() as usize - line.as_ptr() as usize..],
                domain,
            )
        })
}

/// Whether `byte` is an ASCII character that `char::is_whitespace` (and so `split_whitespace`)
/// takes for a space: tab, line feed, vertical tab, form feed, carriage return, space.
fn is_ascii_white_space(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | 0x0B | 0x0C | b'\r' | b' ')
}

/// The brand that the words of `rest` (from its first) spell as `domain`, with the legal forms
/// that follow it, or `None` ([`spelled_in_line`]).
fn spelled_from(rest: &str, domain: &str) -> Option<String> {
    let mut words = rest.split_whitespace();
    let mut brand: Vec<&str> = Vec::new();
    let (mut plain, mut with_and) = (String::new(), String::new());
    for word in words.by_ref().take(MAX_BRAND_WORDS) {
        brand.push(word);
        let squashed = squash_as(word, domain);
        // A word without `&` squashes the same with `&` read as "and".
        if word.contains('&') {
            with_and.push_str(&squash_as(&word.replace('&', "and"), domain));
        } else {
            with_and.push_str(&squashed);
        }
        plain.push_str(&squashed);
        if plain == domain || with_and == domain {
            brand.extend(words.take_while(|w| has(&lexicon_words().legal_forms, &squash(w))));
            let name = brand.join(" ");
            return Some(
                name.trim_end_matches([',', ';', ':', '|', '-', '?', '!'])
                    .to_string(),
            );
        }
        if !domain.starts_with(plain.as_str()) && !domain.starts_with(with_and.as_str()) {
            return None;
        }
    }
    None
}

/// Whether `name` spells `domain` with some of its words cut to their initial (`Haus & Garten
/// Technik` on hgtechnik.example, `Jan Smit Schilderwerken` on jsschilderwerken.example): every word
/// but connectors gives its initial or all its letters, in order, at least one an initial and
/// one whole.
fn abbreviates_domain(name: &str, domain: &str) -> bool {
    let words: Vec<String> = name
        .split_whitespace()
        .filter(|w| !CONNECTORS.contains(&w.to_lowercase().as_str()))
        .map(|w| squash_as(w, domain))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() < 2 || words.len() > MAX_BRAND_WORDS {
        return false;
    }
    // Depth-first over (word, position in the domain, an initial used, a whole word used).
    fn spell(words: &[String], domain: &str, initial: bool, whole: bool) -> bool {
        let Some((word, rest)) = words.split_first() else {
            return domain.is_empty() && initial && whole;
        };
        (domain.starts_with(word.as_str()) && spell(rest, &domain[word.len()..], initial, true))
            || (word.len() > 1
                && word.chars().next().is_some_and(|c| domain.starts_with(c))
                && word
                    .chars()
                    .next()
                    .is_some_and(|c| spell(rest, &domain[c.len_utf8()..], true, whole)))
    }
    spell(&words, domain, false, false)
}

/// A copyright holder on the page that is `name` followed only by legal forms (`WattleCar Pty
/// Ltd` for `WattleCar`), or `None`.
fn with_legal_form(name: &str, text: Own<'_>, budget: &PageBudget) -> Option<String> {
    copyright_holders(text, budget).find(|holder| adds_legal_form(name, holder))
}

/// Whether `candidate` is `brand` followed only by legal forms (`Brightloop GmbH` for
/// `Brightloop`): the same business, written as its legal name.
pub fn adds_legal_form(brand: &str, candidate: &str) -> bool {
    let rest: Vec<String> = candidate
        .split_whitespace()
        .skip(brand.split_whitespace().count())
        .map(squash)
        .collect();
    squash(candidate).starts_with(&squash(brand))
        && !rest.is_empty()
        && rest.iter().all(|w| has(&lexicon_words().legal_forms, w))
}

/// The name in a logo's text: its first segment (`Vosk Design - Interior Architects` →
/// `Vosk Design`), when that is short and not a generic word like `Home` or `Logo`.
fn logo_name(text: &str) -> Option<String> {
    let first = clean(split_title(text).first()?);
    // The word "Logo" before or after a proper name (`Logo Verde Giardini`, `Keller
    // Logo`) leaves the name; after a description (`girl holding a cat logo`) it leaves none.
    let first = without_logo_word(&first).unwrap_or(first);
    let lower = first.to_lowercase();
    let generic = has(&lexicon_words().generic_segments, &lower)
        || is_domain_name(&first)
        || lower.contains("logo")
        || lower.starts_with("back to")
        || lower.starts_with("go to");
    (usable(&first) && !generic && first.split_whitespace().count() <= 8).then_some(first)
}

/// `text` without a leading or trailing word "Logo" when what is left is capitalised like a
/// name (every word but connectors starts with a capital or a digit).
fn without_logo_word(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let is_logo = |w: &&str| w.eq_ignore_ascii_case("logo");
    let rest: &[&str] = match words.as_slice() {
        [first, rest @ ..] if is_logo(first) => rest,
        [rest @ .., last] if is_logo(last) => rest,
        _ => return None,
    };
    let capitalised = !rest.is_empty()
        && rest.iter().all(|w| {
            CONNECTORS.contains(&w.to_lowercase().as_str())
                || w.chars()
                    .next()
                    .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        });
    capitalised.then(|| rest.join(" "))
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
        && !only_titles(&lower)
        && !is_education_line(&lower)
        && !has(&lexicon_words().placeholders, &lower)
        && !BUILDER_NAMES.contains(&lower.as_str())
        && !lower.contains("your company")
        && !lower.contains("company name")
}

/// Whether `lower` (a lower-case name) is made only of titles and professions
/// ([`Words::titles`]), kinds of business ([`Words::business_kinds`]) and connectors.
fn only_titles(lower: &str) -> bool {
    let mut words = lower
        .split(|c: char| c.is_whitespace() || matches!(c, '.' | ',' | '-' | '–' | '|'))
        .filter(|w| !w.is_empty())
        .peekable();
    words.peek().is_some()
        && words.all(|w| {
            let words = lexicon_words();
            has(&words.titles, w) || has(&words.business_kinds, w) || CONNECTORS.contains(&w)
        })
}

/// Whether `lower` (a lower-case candidate) is a line of someone's education: it opens with a
/// degree, or names a degree and a university.
fn is_education_line(lower: &str) -> bool {
    let first = lower.split_whitespace().next().unwrap_or("");
    let words = lexicon_words();
    has(&words.degrees, first)
        || (words.any_degree.is_match(lower) && words.any_school.is_match(lower))
}

/// Names of site builders and their templates' default site names: product names, the same in
/// every language, so no language's lexicon file holds them (the words of placeholder titles,
/// `Home`, `Untitled document`, are the lexicon's `name.placeholder`).
const BUILDER_NAMES: &[&str] = &[
    "wordpress",
    "just another wordpress site",
    "wix",
    "squarespace",
    "jimdo",
    "weebly",
    "joomla",
    "drupal",
];

/// `s` lower-cased as [`Words::page_words`] holds it: `İ` lower-cases to `i` and a combining
/// dot, which is dropped.
fn page_key(s: &str) -> String {
    s.to_lowercase().replace('\u{307}', "")
}

/// Whether `segment` is a page-type word ([`Words::page_words`]) or a generic segment.
fn is_page_type(segment: &str) -> bool {
    let key = page_key(segment);
    let words = lexicon_words();
    has(&words.generic_segments, &key) || words.page_words.iter().any(|(_, w)| *w == key)
}

/// `segment` without a leading page-type word of a page that names the business (contact,
/// privacy, imprint, terms: `Privacyverklaring Acme Bouw` → `Acme Bouw`), when the rest is
/// one to six words and opens with a capital.
fn without_leading_page_word(segment: &str) -> Option<String> {
    // The longest page-type word before one of the first four spaces.
    let at = segment
        .match_indices(' ')
        .take(4)
        .map(|(at, _)| at)
        .filter(|&at| {
            let head = page_key(&segment[..at]);
            lexicon_words()
                .page_words
                .iter()
                .any(|(class, word)| *word == head && *class == Class::TitlePage)
        })
        .last()?;
    let rest = segment[at..].trim();
    let words = rest.split_whitespace().count();
    (rest.starts_with(char::is_uppercase) && (1..=6).contains(&words)).then(|| rest.to_string())
}

/// The brand part of a title: split on separators and drop generic segments; a segment that
/// spells the domain name wins whole, else the longest run of words that the domain name
/// contains (`Contact Kent Bathroom Fitters Holly & Son` on hollyandson.example → `Holly & Son`),
/// with a legal-form suffix that follows it; without any domain match, a short title is taken
/// whole, or the shortest short segment of a longer one.
fn title_brand(title: &str, domain_label: &str) -> Option<String> {
    let segments: Vec<String> = split_title(title)
        .into_iter()
        .map(|s| clean(&s))
        .filter(|s| !is_page_type(s))
        .map(|s| without_leading_page_word(&s).unwrap_or(s))
        .filter(|s| usable(s) && !has(&lexicon_words().generic_segments, &s.to_lowercase()))
        .collect();
    let domain = squash(domain_label);
    if domain.len() >= 3 {
        // A person's practice: the person's name with title as printed (`Dr. med. dent. Anna
        // Schmidt` on zahnarzt-schmidt.example), before a profession word the domain also spells.
        if let Some(person) = segments.iter().find(|s| is_titled_person(s, &domain)) {
            return Some(person.clone());
        }
        if let Some(whole) = segments.iter().find(|s| spells_whole(s, &domain)) {
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
    // A segment that ends in a legal form names the business (`… | The Dana Whitfield Law
    // Firm, LLC`).
    if let Some(legal) = segments.iter().find(|s| {
        s.split_whitespace().count() <= 8
            && s.split_whitespace()
                .last()
                .is_some_and(|w| has(&lexicon_words().legal_forms, &squash(w)) && squash(w) != "co")
    }) {
        return Some(legal.clone());
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

/// Words that may sit between brand words (`Holly & Son`, `Nails by Marigold`). They stay here,
/// not in the lexicon: conjunctions and prepositions of several languages that are the grammar
/// of the brand-run rule, not words of a class the page writes.
const CONNECTORS: &[&str] = &[
    "&", "and", "by", "of", "the", "de", "van", "der", "den", "en", "-", "+", "und", "et", "i",
    "y", "e", "di", "du", "des", "del",
];
/// The brand of a name written with a tagline (`Katerhaus*DE – Maine-Coon-Zucht` on
/// katerhaus.example): the segment that spells the domain, when the name has several.
fn brand_without_tagline(name: &str, domain: &str) -> Option<String> {
    let segments = split_title(name);
    if segments.len() < 2 || domain.len() < 3 {
        return None;
    }
    segments
        .iter()
        .map(|s| clean(s))
        .find(|s| usable(s) && spells_whole(s, domain))
}

/// Whether `segment` is the brand the domain names: it spells the domain, or a good part of
/// it, or the domain and its suffix (`Katerhaus*DE` on katerhaus.example).
fn spells_whole(segment: &str, domain: &str) -> bool {
    let squashed = squash_as(segment, domain);
    squashed.len() >= 3
        && (domain == squashed
            || domain.contains(&squashed) && squashed.len() * 2 >= domain.len()
            || squashed.strip_prefix(domain).is_some_and(|tld| {
                (2..=3).contains(&tld.len()) && tld.bytes().all(|b| b.is_ascii_lowercase())
            }) && segment.contains(['*', '.']))
}

/// Whether `segment` is a person's name after a title or profession (`Dr. med. dent. Anna
/// Schmidt`, `Avv. Mario Rossi`, `Rechtsanwalt Jens Brökel`): title words, then two to four
/// capitalised words, the last of which (the surname) the domain spells.
fn is_titled_person(segment: &str, domain: &str) -> bool {
    let words: Vec<&str> = segment.split_whitespace().collect();
    titled_name(&words)
        && words.last().is_some_and(|surname| {
            let surname = squash_as(surname, domain);
            surname.len() >= 3 && domain.contains(&surname)
        })
}

/// Whether `words` are title words ([`Words::titles`], `Dr.`, `Avv.`) and then two to four
/// capitalised names (`Dr. Anna Berger`).
fn titled_name(words: &[&str]) -> bool {
    let titles = words
        .iter()
        .take_while(|w| has(&lexicon_words().titles, &w.to_lowercase().replace('.', "")))
        .count();
    let names = &words[titles..];
    titles >= 1
        && (2..=4).contains(&names.len())
        && names.iter().all(|w| {
            w.chars().next().is_some_and(char::is_uppercase)
                && w.chars().skip(1).all(|c| c.is_alphabetic() || c == '-')
        })
}

/// The longest run of consecutive words of `segment` that `domain` contains, scored by the
/// letters matched; `None` when no word matches.
fn domain_run(segment: &str, domain: &str) -> Option<(usize, String)> {
    let words: Vec<(usize, &str)> = segment
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - segment.as_ptr() as usize, w))
        .collect();
    let matches = |w: &str| {
        let sq = squash_as(w, domain);
        // Two-letter words count only as acronyms (`V1`, `HS`), not as `in`, `at`.
        let long_enough = sq.len() >= 3
            || (sq.len() == 2 && w.chars().any(|c| c.is_uppercase() || c.is_ascii_digit()));
        long_enough && domain.contains(&sq)
    };
    let is_connector =
        |w: &str| CONNECTORS.contains(&w.to_lowercase().trim_matches(',').trim_end_matches('.'));
    // A word may also extend a run as an abbreviation that ends the domain name
    // (`Birch Insurance` on birchins.example, `Tidewater Productions` on tidewaterpro.example).
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
        let mut run = squash_as(words[i].1, domain);
        let (mut last, mut score, mut j) = (i, run.len(), i + 1);
        while j < words.len() {
            // A comma or semicolon ends the name (`WattleCar, Car Loans Provider`).
            if words[j - 1].1.ends_with([',', ';']) {
                break;
            }
            let w = words[j].1;
            if matches(w) && !is_connector(w) {
                last = j;
                let sq = squash_as(w, domain);
                score += sq.len();
                run.push_str(&sq);
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
        if domain.starts_with(&squash_as(words[i].1, domain)) {
            score += 3;
        }
        if best.is_none_or(|(b, _, _)| score > b) {
            best = Some((score, i, last));
        }
        i = j.max(i + 1);
    }
    let (score, first, mut last) = best?;
    while last + 1 < words.len() && has(&lexicon_words().legal_forms, &squash(words[last + 1].1)) {
        last += 1;
    }
    // A practice named by its kind and the titled person after it (`Estudio Jurídico Dra.
    // Ana Pérez`): the person to the segment's end belongs to the name.
    let after: Vec<&str> = words[last + 1..].iter().map(|(_, w)| *w).collect();
    if titled_name(&after) {
        last = words.len() - 1;
    }
    let start = words[first].0;
    let end = words[last].0 + words[last].1.len();
    let run = segment[start..end]
        .trim_end_matches([',', ';', ':', '-'])
        .to_string();
    Some((score, run))
}

/// The segments of a title split at each separator in turn (`|` after ` | `, then ` - `…),
/// trimmed, without empty ones. The parts are slices of `title` until the end, and a separator
/// no part holds (most of them, in most titles) leaves the parts as they are.
fn split_title(title: &str) -> Vec<String> {
    let mut parts = vec![title];
    for sep in [
        " | ", "|", " - ", " – ", " — ", " :: ", ": ", " • ", " · ", " « ", " » ", " ~ ", " / ",
    ] {
        if parts.iter().any(|p| p.contains(sep)) {
            parts = parts.iter().flat_map(|p| p.split(sep)).collect();
        }
    }
    parts
        .into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect()
}

/// Lower-case letters and digits only, accents and other marks folded to the letter a host
/// name writes (`Clínica` → `clinica`, `Trädgård` → `tradgard`, `ß` → `ss`).
fn squash(s: &str) -> String {
    squash_with(s, false)
}

/// [`squash`] as `domain` spells `s`: German host names write umlauts as `ae`, `oe`, `ue`
/// (`Müller` on mueller-bau.example), others drop the dots (`Trädgårdshjälp` on tradgardshjalp.example).
fn squash_as(s: &str, domain: &str) -> String {
    let plain = squash_with(s, false);
    if !s.contains(['ä', 'ö', 'ü', 'Ä', 'Ö', 'Ü']) {
        return plain;
    }
    let german = squash_with(s, true);
    if domain.contains(&german) {
        german
    } else {
        plain
    }
}

/// The first character [`squash`] makes of `c` (without allocating); `None` for a character
/// it drops.
fn fold_first(c: char) -> Option<char> {
    if !c.is_alphanumeric() {
        return None;
    }
    c.to_lowercase().next().map(|lower| fold(lower, false).0)
}

fn squash_with(s: &str, german_umlauts: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
    {
        let (first, second) = fold(c, german_umlauts);
        out.push(first);
        out.extend(second);
    }
    out
}

/// A lower-case character as a host name writes it: one or two letters.
fn fold(c: char, german_umlauts: bool) -> (char, Option<char>) {
    let one = match c {
        'ä' if german_umlauts => return ('a', Some('e')),
        'ö' if german_umlauts => return ('o', Some('e')),
        'ü' if german_umlauts => return ('u', Some('e')),
        'ß' => return ('s', Some('s')),
        'æ' => return ('a', Some('e')),
        'œ' => return ('o', Some('e')),
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ą' => 'a',
        'ç' | 'ć' | 'č' => 'c',
        'ď' | 'đ' => 'd',
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ė' | 'ę' | 'ě' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'ī' => 'i',
        'ł' => 'l',
        'ñ' | 'ń' | 'ň' => 'n',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ő' => 'o',
        'ř' => 'r',
        'ś' | 'š' | 'ș' => 's',
        'ť' | 'ț' => 't',
        'ù' | 'ú' | 'û' | 'ü' | 'ū' | 'ů' | 'ű' => 'u',
        'ý' | 'ÿ' => 'y',
        'ź' | 'ż' | 'ž' => 'z',
        other => other,
    };
    (one, None)
}

/// The page's text as the name readers see it: each line without the parts that belong to
/// another organisation ([`NameSources::others`]; [`sections::own_part`]).
#[derive(Clone, Copy)]
struct Own<'a> {
    text: &'a str,
    /// Sorted, disjoint ranges of `text` ([`merged`]).
    others: &'a [Range<usize>],
}

impl<'a> Own<'a> {
    /// The lines of the text (as `str::lines` splits it), each cut at the first range of
    /// another organisation that starts inside it, empty when it starts inside one. A binary
    /// search per line.
    fn lines(self) -> impl DoubleEndedIterator<Item = &'a str> + 'a {
        let Own { text, others } = self;
        text.lines().map(move |line| {
            if others.is_empty() {
                return line;
            }
            let start = line.as_ptr() as usize - text.as_ptr() as usize;
            // The first range that ends after the line's start; disjoint and sorted, so it is
            // the only one that may hold the start or begin inside the line.
            let next = others.partition_point(|range| range.end <= start);
            sections::own_part(others.get(next..=next).unwrap_or(&[]), line, start)
        })
    }
}

impl<'a> From<&'a str> for Own<'a> {
    fn from(text: &'a str) -> Self {
        Own { text, others: &[] }
    }
}

/// `ranges` sorted by start, overlapping and touching ones joined.
fn merged(ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut sorted = ranges.to_vec();
    sorted.sort_by_key(|range| range.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(sorted.len());
    for range in sorted {
        match out.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => out.push(range),
        }
    }
    out
}

/// The holder named in a copyright line (`© 2014 Acme Ltd. All rights reserved.`, or
/// `All rights reserved, Acme © 2009-2013`).
fn copyright_holder(text: Own<'_>, budget: &PageBudget) -> Option<String> {
    copyright_holders(text, budget).next()
}

/// Every usable copyright holder of `text`, from its last line to its first.
/// Charged to the page's `budget` by the line, like [`spelled_in_text`]. Only a line in which
/// a mark of the text starts ([`MarksFromTheEnd`]) is read by [`line_holder`]: the marks are
/// found by one backward search of the text as the walk goes, not by two searches per line.
fn copyright_holders<'a>(
    text: Own<'a>,
    budget: &'a PageBudget,
) -> impl Iterator<Item = String> + 'a {
    let mut marks = MarksFromTheEnd::new(text.text);
    text.lines()
        .rev()
        .take_while(|line| budget.work(line.len() + 1))
        .filter(move |line| {
            // A line left out whole is the empty string, not a slice of the text.
            if line.is_empty() {
                return false;
            }
            let start = line.as_ptr() as usize - text.text.as_ptr() as usize;
            marks.starts_in(start, start + line.len())
        })
        .filter_map(line_holder)
}

/// The places where a copyright mark may start in a text ([`has_copyright_mark`]: `copyright`
/// or `(c)` in any ASCII case, `©`, `ⓒ`, `Ⓒ`), found from the text's end towards its start
/// as a walk of its lines from the last asks for them. A mark within a line starts at such a
/// place inside the line (a place found in the text may also hold a mark that runs past a
/// line's end: [`has_copyright_mark`] decides on the line).
struct MarksFromTheEnd<'a> {
    bytes: &'a [u8],
    /// The end of the bytes not yet searched for `c`, `C` and `©`'s last byte.
    letters_end: usize,
    /// The end of the bytes not yet searched for the last bytes of `ⓒ` and `Ⓒ`.
    circled_end: usize,
    /// The last start found by each search and not yet passed by the walk.
    letter: Option<usize>,
    circled: Option<usize>,
}

impl<'a> MarksFromTheEnd<'a> {
    fn new(text: &'a str) -> Self {
        let mut marks = MarksFromTheEnd {
            bytes: text.as_bytes(),
            letters_end: text.len(),
            circled_end: text.len(),
            letter: None,
            circled: None,
        };
        marks.letter = marks.previous_letter_mark();
        marks.circled = marks.previous_circled_mark();
        marks
    }

    /// Whether a mark starts in `start..end`, the byte range of a line before (or the same as)
    /// the last one asked about.
    fn starts_in(&mut self, start: usize, end: usize) -> bool {
        while self.letter.is_some_and(|at| at >= end) {
            self.letter = self.previous_letter_mark();
        }
        while self.circled.is_some_and(|at| at >= end) {
            self.circled = self.previous_circled_mark();
        }
        self.letter.is_some_and(|at| at >= start) || self.circled.is_some_and(|at| at >= start)
    }

    /// The start of the last `copyright`, `(c)` or `©` before the bytes searched already.
    fn previous_letter_mark(&mut self) -> Option<usize> {
        let bytes = self.bytes;
        while let Some(at) = memchr::memrchr3(b'c', b'C', 0xA9, &bytes[..self.letters_end]) {
            self.letters_end = at;
            if bytes[at] == 0xA9 {
                if at > 0 && bytes[at - 1] == 0xC2 {
                    return Some(at - 1);
                }
                continue;
            }
            if bytes
                .get(at..at + "copyright".len())
                .is_some_and(|word| word.eq_ignore_ascii_case(b"copyright"))
            {
                return Some(at);
            }
            if at > 0 && bytes[at - 1] == b'(' && bytes.get(at + 1) == Some(&b')') {
                return Some(at - 1);
            }
        }
        None
    }

    /// The start of the last `ⓒ` (E2 93 92) or `Ⓒ` (E2 92 B8) before the bytes searched already.
    fn previous_circled_mark(&mut self) -> Option<usize> {
        let bytes = self.bytes;
        while let Some(at) = memchr::memrchr2(0x92, 0xB8, &bytes[..self.circled_end]) {
            self.circled_end = at;
            if at >= 2
                && matches!(
                    (bytes[at - 2], bytes[at - 1], bytes[at]),
                    (0xE2, 0x93, 0x92) | (0xE2, 0x92, 0xB8)
                )
            {
                return Some(at - 2);
            }
        }
        None
    }
}

/// Whether `line` has a copyright mark (`©`, `copyright` or `(c)` in any ASCII case): a
/// vectorised search for the bytes a mark holds (`c`, `C`, and `©`'s last byte), each hit
/// checked, instead of lower-casing every line of the page (the test is exact: no other
/// character lower-cases to these ASCII letters, and `©` is the only character written
/// 0xC2 0xA9).
fn has_copyright_mark(line: &str) -> bool {
    let bytes = line.as_bytes();
    memchr::memchr3_iter(b'c', b'C', 0xA9, bytes).any(|at| {
        if bytes[at] == 0xA9 {
            return at > 0 && bytes[at - 1] == 0xC2;
        }
        bytes
            .get(at..at + "copyright".len())
            .is_some_and(|word| word.eq_ignore_ascii_case(b"copyright"))
            || (at > 0 && bytes[at - 1] == b'(' && bytes.get(at + 1) == Some(&b')'))
    }) || has_circled_mark(bytes)
}

/// Whether `bytes` hold a circled letter C used as a copyright mark (`ⓒ` E2 93 92, `Ⓒ` E2 92
/// B8): a search for their last bytes, each hit checked.
fn has_circled_mark(bytes: &[u8]) -> bool {
    memchr::memchr2_iter(0x92, 0xB8, bytes).any(|at| {
        at >= 2
            && matches!(
                (bytes[at - 2], bytes[at - 1], bytes[at]),
                (0xE2, 0x93, 0x92) | (0xE2, 0x92, 0xB8)
            )
    })
}

/// The holder named in one line, if it has a copyright mark.
fn line_holder(line: &str) -> Option<String> {
    if !has_copyright_mark(line) {
        return None;
    }
    let lower = line.to_lowercase();
    // `Ⓒ` lower-cases to `ⓒ`, of the same length.
    let (mark, mark_len) = lower
        .find('©')
        .map(|i| (i, '©'.len_utf8()))
        .or_else(|| lower.find('ⓒ').map(|i| (i, 'ⓒ'.len_utf8())))
        .or_else(|| lower.find("copyright").map(|i| (i, "copyright".len())))
        .or_else(|| lower.find("(c)").map(|i| (i, 3)))?;
    let after = line.get(mark + mark_len..).unwrap_or("");
    let before = line.get(..mark).unwrap_or("");
    [holder_after(after), holder_before(before)]
        .into_iter()
        .flatten()
        .find(|candidate| {
            usable(candidate)
                && candidate.split_whitespace().count() <= 8
                && !not_a_holder(&candidate.to_lowercase())
        })
}

/// Names that appear in copyright lines of embedded widgets (maps, the blog engine), not of
/// the business: product names, the same in every language, so no lexicon file holds them.
const WIDGET_HOLDERS: &[&str] = &[
    "google",
    "google, inegi",
    "microsoft",
    "openstreetmap",
    "here",
    "mapbox",
    "wordpress",
];

/// Whether the lower-case `candidate` is a widget's name ([`WIDGET_HOLDERS`]) or a word that
/// names the notice itself (lexicon class `copyright.text`: `© … Privacy Statement`).
fn not_a_holder(candidate: &str) -> bool {
    static WORDS: OnceLock<lexicon::SortedWords> = OnceLock::new();
    WIDGET_HOLDERS.contains(&candidate)
        || lexicon::holds(
            WORDS.get_or_init(|| lexicon::sorted_words(&[Class::CopyrightText], str::to_lowercase)),
            candidate,
        )
}

fn holder_after(after: &str) -> Option<String> {
    let mut rest = after;
    loop {
        let trimmed = rest
            .trim_start_matches(|c: char| {
                c.is_ascii_digit()
                    || c.is_whitespace()
                    || matches!(c, '-' | '–' | ',' | '©' | 'ⓒ' | 'Ⓒ' | '.' | ':')
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
    // A full stop ends the name, unless it ends a title or an initial (`Dr. Julia Berger`).
    let full_stop = rest.match_indices(". ").map(|(i, _)| i).find(|&i| {
        let word = rest[..i].rsplit(' ').next().unwrap_or("");
        let bare = word.to_lowercase();
        !(has(&lexicon_words().titles, &bare) || word.chars().count() == 1)
    });
    let end = [
        "all rights",
        "alle rechten",
        "alle rechte",
        "tous droits",
        " | ",
        " - ",
        "website by",
        "web design",
        "designed by",
        "powered by",
        "site by",
        "registered",
    ]
    .iter()
    .filter_map(|stop| lower.find(stop))
    .chain(full_stop)
    // A year after the name ends it too (`© Kestrel Plumbers 2012 l Terms and Conditions`).
    .chain(year_after_words(rest))
    .min()
    .unwrap_or(rest.len());
    let name = clean(rest.get(..end).unwrap_or(rest));
    let name = name.trim_end_matches(|c: char| {
        c.is_ascii_digit() || c.is_whitespace() || c == ',' || c == '.'
    });
    (!name.is_empty()).then(|| name.to_string())
}

/// The byte offset of the first year (`1990`–`2099`) that follows at least one word.
fn year_after_words(text: &str) -> Option<usize> {
    let mut seen_word = false;
    for word in text.split_whitespace() {
        let is_year = word.len() == 4
            && word.bytes().all(|b| b.is_ascii_digit())
            && (word.starts_with("19") || word.starts_with("20"));
        if is_year && seen_word {
            return Some(word.as_ptr() as usize - text.as_ptr() as usize);
        }
        seen_word |= word.chars().any(char::is_alphabetic);
    }
    None
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

    /// [`split_title`] as it read before: every part copied at every separator.
    fn split_title_model(title: &str) -> Vec<String> {
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

    proptest::proptest! {
        #[test]
        fn title_split_as_with_a_copy_at_every_separator(
            title in "([A-Za-z]{1,5}|[ |:/~•·«»–—-]{1,3}| ){0,12}"
        ) {
            proptest::prop_assert_eq!(split_title(&title), split_title_model(&title));
        }

        #[test]
        fn lines_passed_over_hold_no_brand(
            line in "([A-Za-z]{1,6}|[0-9]{1,3}|[ &.,]|É|Ç|\u{212a}|ß|Ö){0,10}",
            domain in "([a-z0-9]{1,4}|é|ö|ß){1,4}"
        ) {
            let domain = squash(&domain);
            proptest::prop_assert!(may_spell(&line, &domain) || spelled_in_line(&line, &domain).is_none());
            // A domain the line spells from one of its words on.
            let words: Vec<&str> = line.split_whitespace().collect();
            for from in 0..words.len() {
                let domain = squash(&words[from..].concat());
                if domain.len() >= 4 && spelled_in_line(&line, &domain).is_some() {
                    proptest::prop_assert!(may_spell(&line, &domain));
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn lines_passed_over_open_with_no_label(
            line in "(RAISON|Dénomination|ÉDITEUR|Éditeur|éditeur|KvK|Angaben|İ|Σ|[A-Za-z]{1,4}|[ :])(.){0,8}"
        ) {
            let lower = line.to_lowercase();
            let opens = lexicon_words()
                .publisher_labels
                .iter()
                .map(String::as_str)
                .chain(["angaben gemäß", "kvk"])
                .any(|label| lower.starts_with(label));
            proptest::prop_assert!(may_open_label(&line) || !opens);
        }
    }

    /// [`spelled_in_line`] as it read before: every word of the line collected, each one that
    /// may open the brand read on from.
    fn spelled_in_line_by_words(line: &str, domain: &str) -> Option<String> {
        let first_of_domain = domain.chars().next();
        let words: Vec<&str> = line.split_whitespace().collect();
        for i in 0..words.len() {
            let Some(first) = words[i].chars().next() else {
                continue;
            };
            if !(first.is_uppercase() || first.is_ascii_digit()) {
                continue;
            }
            if fold_first(first) != first_of_domain {
                continue;
            }
            let (mut plain, mut with_and) = (String::new(), String::new());
            for j in i..words.len().min(i + MAX_BRAND_WORDS) {
                plain.push_str(&squash_as(words[j], domain));
                with_and.push_str(&squash_as(&words[j].replace('&', "and"), domain));
                if plain == domain || with_and == domain {
                    let mut last = j;
                    while words
                        .get(last + 1)
                        .is_some_and(|w| has(&lexicon_words().legal_forms, &squash(w)))
                    {
                        last += 1;
                    }
                    let name = words[i..=last].join(" ");
                    return Some(
                        name.trim_end_matches([',', ';', ':', '|', '-', '?', '!'])
                            .to_string(),
                    );
                }
                if !domain.starts_with(plain.as_str()) && !domain.starts_with(with_and.as_str()) {
                    break;
                }
            }
        }
        None
    }

    /// [`is_education_line`] as it read before: a substring search per degree and school.
    fn is_education_line_by_search(lower: &str) -> bool {
        let first = lower.split_whitespace().next().unwrap_or("");
        let words = lexicon_words();
        has(&words.degrees, first)
            || (words.degrees.iter().any(|d| lower.contains(d.as_str()))
                && lexicon::sorted_words(&[Class::OrgSchool], str::to_lowercase)
                    .iter()
                    .any(|s| lower.contains(s.as_str())))
    }

    proptest::proptest! {
        #[test]
        fn the_brand_is_read_in_a_line_as_word_by_word(
            line in "([A-Za-z]{1,6}|[0-9]{1,3}|[ &.,]|[\t\n\u{b}\u{c}\r]|\u{a0}|É|Ç|\u{212a}|ß|Ö|GmbH|Ltd\\.?){0,12}",
            domain in "([a-z0-9]{1,4}|é|ö|ß){1,4}"
        ) {
            let domain = squash(&domain);
            proptest::prop_assert_eq!(
                spelled_in_line(&line, &domain),
                spelled_in_line_by_words(&line, &domain)
            );
            // A domain the line spells from one of its words on (most random domains spell
            // nothing).
            let words: Vec<&str> = line.split_whitespace().collect();
            for from in 0..words.len() {
                for to in from + 1..=words.len().min(from + 3) {
                    let domain = squash(&words[from..to].concat());
                    proptest::prop_assert_eq!(
                        spelled_in_line(&line, &domain),
                        spelled_in_line_by_words(&line, &domain)
                    );
                }
            }
        }

        #[test]
        fn an_education_line_is_found_as_by_a_search_per_word(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "master", "laurea", "ph.d", "phd", "diplom", "universit", "università",
                    "hochschule", "school", "college", "in", " ", "a", "é", "economia",
                ]),
                0..8,
            ),
        ) {
            let lower = parts.concat();
            proptest::prop_assert_eq!(
                is_education_line(&lower),
                is_education_line_by_search(&lower)
            );
        }
    }

    #[test]
    fn a_brand_is_read_from_a_word_after_any_white_space() {
        for line in [
            "Welcome to\tAcme Shop Ltd",
            "Welcome to\u{b}Acme Shop Ltd",
            "Welcome to\u{a0}Acme Shop Ltd",
            "Acme Shop Ltd",
            "WelcomeAcme Shop",
            "Welcome to ACME SHOP",
            "Welcome to Acme shopping, Acme Shop",
        ] {
            assert_eq!(
                spelled_in_line(line, "acmeshop"),
                spelled_in_line_by_words(line, "acmeshop"),
                "{line}"
            );
        }
        assert_eq!(spelled_in_line("WelcomeAcme Shop", "acmeshop"), None);
        assert_eq!(
            spelled_in_line("Welcome to Acme shopping, Acme Shop", "acmeshop").as_deref(),
            Some("Acme Shop")
        );
    }

    #[test]
    fn lines_leave_out_the_parts_of_other_organisations() {
        let text = "Acme Ltd\n© 2024 Acme · Design by Studio\nHost\nHostCo\nEnd";
        let credit = text.find("Design").unwrap();
        let host = text.find("Host").unwrap();
        let host_end = text.find("\nEnd").unwrap();
        // Unsorted and overlapping, as the attribution step may give them.
        let ranges = [
            host + 2..host_end,
            credit..text.find("\nHost").unwrap(),
            host..host + 4,
        ];
        assert_eq!(merged(&ranges), [credit..host - 1, host..host_end]);
        let others = merged(&ranges);
        let own = Own {
            text,
            others: &others,
        };
        let lines: Vec<&str> = own.lines().collect();
        assert_eq!(lines, ["Acme Ltd", "© 2024 Acme · ", "", "", "End"]);
        assert_eq!(copyright_holder(own).as_deref(), Some("Acme"));
    }

    #[test]
    fn placeholders_are_not_names() {
        for name in ["Home", "WordPress", "Your Company Ltd", "The Company Name"] {
            assert!(!usable(name), "{name}");
        }
        assert!(usable("Acme Homes"));
    }

    #[test]
    fn a_line_opening_with_no_label_is_passed_over() {
        assert!(may_open_label("RAISON SOCIALE : Acme SARL"));
        assert!(may_open_label("Éditeur du site"));
        assert!(may_open_label("KvK 12345678"));
        assert!(!may_open_label("Welcome to our shop"));
        assert!(!may_open_label("Ärger"));
        // The first two characters are compared: `Call us` opens no label (`Company name`
        // does), `Contact` may.
        assert!(!may_open_label("Call us"));
        assert!(may_open_label("Contact"));
        assert!(may_open_label("COMPANY NAME: Acme"));
    }

    #[test]
    fn a_line_without_the_first_letter_of_the_domain_is_passed_over() {
        assert!(!may_spell("Welcome to our shop", "acmeshop"));
        assert!(may_spell("Welcome to Acme Shop", "acmeshop"));
        assert!(may_spell("Willkommen bei Ácme", "acmeshop"));
        assert_eq!(
            spelled_in_line("Welcome to Acme Shop Ltd", "acmeshop").as_deref(),
            Some("Acme Shop Ltd")
        );
        assert_eq!(
            spelled_in_text(Own::from("Nothing here\nWelcome to Acme Shop"), "acmeshop").as_deref(),
            Some("Acme Shop")
        );
    }

    /// The copyright-mark test as an automaton.
    fn has_copyright_mark_by_automaton(line: &str) -> bool {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["©", "copyright", "(c)", "ⓒ", "Ⓒ"])
            .unwrap()
            .is_match(line)
    }

    #[test]
    fn copyright_marks_in_any_case() {
        for line in [
            "© 2024 Acme",
            "Acme ©",
            "COPYRIGHT Acme",
            "(C) Acme",
            "acme (c)",
            "Copyright",
            "x(c)",
        ] {
            assert!(has_copyright_mark(line), "{line}");
        }
        for line in [
            "", "Contact", "(c", "c)", "copyrigh",
            // 0xA9 ends `é` (0xC3 0xA9) and `ĩ` (0xC4 0xA9) too.
            "Café", "ĩ", "(ç)",
        ] {
            assert!(!has_copyright_mark(line), "{line}");
        }
    }

    proptest::proptest! {
        #[test]
        fn the_copyright_mark_test_agrees_with_the_automaton(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "c", "C", "(", ")", "©", "\u{a0}", "é", "ĩ", "opyright", "OPYRIGHT",
                    "copy", "right", " ", "x", "ç", "ⓒ", "Ⓒ", "\u{2492}", "и", "’",
                ]),
                0..8,
            ),
        ) {
            let line = parts.concat();
            proptest::prop_assert_eq!(
                has_copyright_mark(&line),
                has_copyright_mark_by_automaton(&line),
                "{}",
                line
            );
        }
    }

    fn sources<'a>(title: Option<&'a str>, text: &'a str, domain: &'a str) -> NameSources<'a> {
        NameSources {
            structured: &[],
            og_site_name: None,
            application_name: None,
            title,
            text,
            others: &[],
            domain_label: domain,
            home_link_texts: &[],
            // Leaked: a few bytes a test, for a budget that lives as long as `text`.
            budget: Box::leak(Box::new(PageBudget::for_page(text.len()))),
        }
    }

    /// [`super::copyright_holder`] with the budget of a page of `text`'s size.
    fn copyright_holder(text: Own<'_>) -> Option<String> {
        super::copyright_holder(text, &PageBudget::for_page(text.text.len()))
    }

    /// [`super::spelled_in_text`] with the budget of a page of `text`'s size.
    fn spelled_in_text(text: Own<'_>, domain: &str) -> Option<String> {
        super::spelled_in_text(text, domain, &PageBudget::for_page(text.text.len()))
    }

    fn title_name(title: &str, text: &str, domain: &str) -> Option<String> {
        company_name(&sources(Some(title), text, domain))
    }

    /// Class: a page-type word (contact, access, home, about, privacy) of any language as a
    /// title segment is the page's name, not the business's.
    #[test]
    fn page_type_segments_of_other_languages_are_not_names() {
        for (title, domain, want) in [
            // Turkish
            ("İletişim - Yıldız Tesisat", "ytshop", "Yıldız Tesisat"),
            ("Hakkımızda | Yıldız Tesisat", "ytshop", "Yıldız Tesisat"),
            // Japanese
            ("アクセス | さくら整骨院", "sakura123", "さくら整骨院"),
            ("ホーム | さくら整骨院", "sakura123", "さくら整骨院"),
            ("当院について | さくら整骨院", "sakura123", "さくら整骨院"),
            ("お問い合わせ | さくら整骨院", "sakura123", "さくら整骨院"),
            // Greek
            (
                "Επικοινωνία - Αρτοποιείο Χρυσό Στάχυ",
                "xrysostaxy",
                "Αρτοποιείο Χρυσό Στάχυ",
            ),
            // Portuguese, Icelandic, Danish
            (
                "Contactos | Quinta do Vale Alto",
                "qva",
                "Quinta do Vale Alto",
            ),
            ("Hafa samband | Kaffi Hraun", "kh", "Kaffi Hraun"),
            ("Kontakt os | Smedens Værksted", "sv", "Smedens Værksted"),
        ] {
            assert_eq!(
                title_name(title, "", domain).as_deref(),
                Some(want),
                "{title}"
            );
        }
    }

    /// Class: a title that opens with a page-type word before the name ("Contact Acme",
    /// "Privacyverklaring Acme") names the business after the word.
    #[test]
    fn a_leading_page_type_word_is_not_part_of_the_name() {
        for (title, domain, want) in [
            (
                "Privacyverklaring Bakkerij De Korenbloem",
                "bdk",
                "Bakkerij De Korenbloem",
            ),
            (
                "Contact Bakkerij De Korenbloem",
                "bdk",
                "Bakkerij De Korenbloem",
            ),
            (
                "Kontakt Schreinerei Holzmann",
                "sh-moebel",
                "Schreinerei Holzmann",
            ),
            (
                "Datenschutzerklärung Schreinerei Holzmann",
                "sh-moebel",
                "Schreinerei Holzmann",
            ),
            // A Dutch surname particle opens the name the domain spells.
            (
                "Contact Van der Berg Schilders",
                "vanderberg",
                "Van der Berg Schilders",
            ),
        ] {
            assert_eq!(
                title_name(title, "", domain).as_deref(),
                Some(want),
                "{title}"
            );
        }
        // A lower-case rest is a phrase, not a name.
        assert_eq!(title_name("Contact us", "", "bdk"), None);
    }

    /// Class: a kind of business alone (taverna, restaurant, bakery) says what the business
    /// is, not who: it is no name.
    #[test]
    fn a_kind_of_business_alone_is_not_a_name() {
        for (title, domain, want) in [
            (
                "Επικοινωνία - Ταβέρνα - Ο Πλάτανος",
                "platanos-taverna",
                "Ο Πλάτανος",
            ),
            (
                "Contatti - Ristorante - Al Vecchio Mulino",
                "avm-online",
                "Al Vecchio Mulino",
            ),
            ("Kontakt - Bäckerei - Sonnenkorn", "sk-brot", "Sonnenkorn"),
        ] {
            assert_eq!(
                title_name(title, "", domain).as_deref(),
                Some(want),
                "{title}"
            );
        }
        assert!(!usable("Ταβέρνα"));
        assert!(!usable("Restaurant"));
        assert!(usable("Restaurant Sonnenkorn"));
    }

    /// Class: copyright marks written as a circled letter (`ⓒ`, `Ⓒ`).
    #[test]
    fn circled_copyright_marks_are_marks() {
        assert_eq!(
            title_name("Contact", "Copyright ⓒ 2024- Zonnepanelen Peeters.", "zp").as_deref(),
            Some("Zonnepanelen Peeters")
        );
        assert_eq!(
            title_name(
                "Contact",
                "Ⓒ 2023 Boulangerie Martin. Tous droits réservés",
                "bm"
            )
            .as_deref(),
            Some("Boulangerie Martin")
        );
    }

    /// Class: a practice named by its kind and the titled person after it (`Estudio Jurídico
    /// Dra. …`, `Zahnarztpraxis Dr. …`): the person is part of the name the title gives.
    #[test]
    fn a_titled_person_after_the_brand_run_belongs_to_the_name() {
        for (title, domain, want) in [
            (
                "Aviso legal | Estudio Jurídico Dra. Ana Pérez Gómez",
                "estudiojuridico",
                "Estudio Jurídico Dra. Ana Pérez Gómez",
            ),
            (
                "Impressum | Zahnarztpraxis Dr. Anna Berger",
                "zahnarztpraxis-online",
                "Zahnarztpraxis Dr. Anna Berger",
            ),
        ] {
            assert_eq!(
                title_name(title, "", domain).as_deref(),
                Some(want),
                "{title}"
            );
        }
    }

    /// The failure classes seen on sites the project had never seen, one case each.
    #[test]
    fn failure_classes_seen_on_unseen_sites() {
        let cases: [(&str, &str, &str, Option<&str>); 8] = [
            // A tagline segment is not the brand.
            (
                "Digital growth studio | Brightloop",
                "",
                "brightloop",
                Some("Brightloop"),
            ),
            // A page-type word on an inner page is not a name.
            (
                "Legal notice",
                "© 2024 Brightloop",
                "brightloop",
                Some("Brightloop"),
            ),
            ("Mentions légales", "", "brightloop", None),
            (
                "Impressum",
                "Brightloop GmbH\nMusterstraße 1",
                "brightloop",
                Some("Brightloop GmbH"),
            ),
            ("Contact us", "", "brightloop", None),
            // A possessive or doubled form is cleaned.
            ("Brightloop's", "", "brightloop", Some("Brightloop")),
            // The domain spells a longer brand than a generic word of the title.
            (
                "Dental | Book online",
                "Northbrook Dental\nCall us",
                "northbrookdental",
                Some("Northbrook Dental"),
            ),
            // A product or category phrase is not the business name.
            (
                "Handmade Candles Berlin",
                "Lumen & Wick\nShop",
                "lumenandwick",
                Some("Lumen & Wick"),
            ),
        ];
        for (title, text, domain, want) in cases {
            assert_eq!(
                company_name(&sources(Some(title), text, domain)).as_deref(),
                want,
                "title {title:?}"
            );
        }
        assert_eq!(
            company_name(&sources(
                Some("Brightloop Ltd Brightloop Ltd"),
                "",
                "brightloop"
            ))
            .as_deref(),
            Some("Brightloop Ltd")
        );
        assert_eq!(
            company_name(&sources(Some("Kora Kora"), "", "korakora")).as_deref(),
            Some("Kora Kora")
        );
    }

    #[test]
    fn the_brand_spelled_out_in_the_text_beats_a_generic_title_or_nothing() {
        let cases = [
            ("Contact", "Caravans\nKVD Aanhangwagens - Caravans", "kvdaanhangwagens", "KVD Aanhangwagens"),
            ("Contact Us", "Vestra Ltd. | Central House | Soho", "vestra", "Vestra Ltd."),
            ("Family Solicitors in Camden, London", "Welcome to M&T Solicitors,", "mandtsolicitors", "M&T Solicitors"),
            ("Home", "Our Team Visits 3D Print Works Ltd today", "3dprintworks", "3D Print Works Ltd"),
            ("Home", "Über Ölmühle\nWelcome to Ölmühle Berg", "ölmühleberg", "Ölmühle Berg"),
            (
                "Jansen & Van der Berg advocaten, advocaten in Tilburg, Tilburg l Familie- & Personenrecht l Arbeidsrecht l Huurrecht l Civielrecht l Strafrecht",
                "mr. T.Jansen\nJansen & Van der Berg Advocaten",
                "jansenvanderberg",
                // The title spells the brand; the corpus accepts it without the profession.
                "Jansen & Van der Berg",
            ),
        ];
        for (title, text, domain, want) in cases {
            assert_eq!(
                company_name(&sources(Some(title), text, domain)).as_deref(),
                Some(want),
                "{title}"
            );
        }
        // A lower-case mention (a URL, an email) is not the name.
        assert_eq!(
            company_name(&sources(None, "mail vestra@example.com", "vestra")),
            None
        );
    }

    #[test]
    fn a_brand_run_stops_at_a_comma_and_takes_the_legal_form_the_page_writes() {
        let title = Some("Car Finance Quick Quote – WattleCar, Car Loans Provider in Australia");
        assert_eq!(
            company_name(&sources(title, "Welcome", "wattlecar")).as_deref(),
            Some("WattleCar")
        );
        let text = "Loans\n© Copyright 2003-2014 WattleCar Pty Ltd.";
        assert_eq!(
            company_name(&sources(title, text, "wattlecar")).as_deref(),
            Some("WattleCar Pty Ltd")
        );
        // A holder that is another business does not replace the brand.
        let text = "© 2014 Web Builders Ltd";
        assert_eq!(
            company_name(&sources(title, text, "wattlecar")).as_deref(),
            Some("WattleCar")
        );
    }

    #[test]
    fn a_partial_title_match_gives_way_to_a_copyright_holder_that_spells_the_domain() {
        let title = "Plumbers E1 | Plumbers E2 | Plumbers E3";
        let text =
            "Call us now\n© Kestrel Plumbers 2012 l Terms and Conditions l Copyright Statement";
        assert_eq!(
            company_name(&sources(Some(title), text, "kestrelplumbers")).as_deref(),
            Some("Kestrel Plumbers")
        );
        // Without such a holder the title's word stays.
        assert_eq!(
            company_name(&sources(
                Some(title),
                "© 2012 Other Name",
                "kestrelplumbers"
            ))
            .as_deref(),
            Some("Plumbers")
        );
        // A whole-domain title match is not second-guessed.
        assert_eq!(
            company_name(&sources(
                Some("Kestrel Plumbers | London"),
                "© Acme Ltd",
                "kestrelplumbers"
            ))
            .as_deref(),
            Some("Kestrel Plumbers")
        );
    }

    /// [`super::copyright_holders`] as it read before: every line read by [`line_holder`].
    fn copyright_holders_line_by_line<'a>(
        text: Own<'a>,
        budget: &'a PageBudget,
    ) -> impl Iterator<Item = String> + 'a {
        text.lines()
            .rev()
            .take_while(|line| budget.work(line.len() + 1))
            .filter_map(line_holder)
    }

    /// Both readings of the holders of `text` without `others`, and the work each left.
    fn both_holders(
        text: &str,
        others: &[Range<usize>],
    ) -> ((Vec<String>, usize), (Vec<String>, usize)) {
        let others = merged(others);
        let own = Own {
            text,
            others: &others,
        };
        // A budget that may run out inside the text (a quarter of a page of its size).
        let read = |new: bool| {
            let budget = PageBudget::for_page(text.len() / 4);
            let holders: Vec<String> = if new {
                super::copyright_holders(own, &budget).collect()
            } else {
                copyright_holders_line_by_line(own, &budget).collect()
            };
            (holders, budget.work_left())
        };
        (read(true), read(false))
    }

    proptest::proptest! {
        #[test]
        fn holders_are_read_as_line_by_line(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "©", "(c)", "(C)", "Copyright", "COPYRIGHT", "copyrigh", "ⓒ", "Ⓒ", "\u{a9}",
                    "\u{c2}", "(", ")", "c", " ", "\n", "\r\n", "2024", "Acme", "Ltd", "é", "ü",
                    "All rights reserved", "Design by Studio", ".", ",", "|", "\u{2092}",
                ]),
                0..30,
            ),
            cuts in proptest::collection::vec((0usize..200, 0usize..20), 0..4),
        ) {
            let text = parts.concat();
            // Ranges of the text start and end at characters.
            let boundary = |mut at: usize| {
                at = at.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                at
            };
            let others: Vec<Range<usize>> = cuts
                .iter()
                .map(|&(start, len)| boundary(start)..boundary(start + len))
                .collect();
            let (new, old) = both_holders(&text, &others);
            proptest::prop_assert_eq!(new, old, "{:?} {:?}", text, others);
        }
    }

    #[test]
    // One range of another organisation in a text is the case, not a mistaken range literal.
    #[allow(clippy::single_range_in_vec_init)]
    fn holders_are_read_as_line_by_line_in_written_texts() {
        let cases: [(&str, &[Range<usize>]); 7] = [
            ("Acme\n© 2024 Acme Ltd\nEnd", &[]),
            ("Acme\n© 2024 Acme Ltd\nEnd", &[5..8]),
            ("Acme\n© 2024 Acme Ltd\nEnd", &[5..6]),
            ("x©\n2024 Acme Ltd", &[]),
            ("Copy\nright 2024 Acme", &[]),
            (
                "(\nc) 2024 Acme\n(c) 2010 Brightloop GmbH\nⒸ 2011 Vestra",
                &[],
            ),
            ("Ⓒ 2011 Vestra\nCOPYRIGHT 1999 Kora Kora", &[0..2]),
        ];
        for (text, others) in cases {
            let (new, old) = both_holders(text, others);
            assert_eq!(new, old, "{text:?} {others:?}");
        }
    }

    #[test]
    fn copyright_holders_stop_at_a_year_and_skip_link_labels() {
        assert_eq!(
            copyright_holder(Own::from("© Kestrel Plumbers 2012 l Terms and Conditions"))
                .as_deref(),
            Some("Kestrel Plumbers")
        );
        assert_eq!(copyright_holder(Own::from("Copyright Statement")), None);
        assert_eq!(
            copyright_holder(Own::from("© 2010 Gate-Hinges")).as_deref(),
            Some("Gate-Hinges")
        );
    }

    #[test]
    fn a_title_segment_ending_in_a_legal_form_is_the_name() {
        assert_eq!(
            company_name(&sources(
                Some("Contact Us | Denver, CO Lawyer | The Dana Whitfield Law Firm, LLC"),
                "",
                "calldana"
            ))
            .as_deref(),
            Some("The Dana Whitfield Law Firm, LLC")
        );
    }

    #[test]
    fn the_header_logo_alt_is_the_last_resort() {
        let links = [
            "Home",
            "Logo",
            "The Dana Whitfield Law Firm LLC - Car Wreck Lawyer in Denver, CO.",
        ];
        let s = NameSources {
            home_link_texts: &links,
            ..sources(Some("Denver Accident Attorney, CO, Denver Personal Injury Lawyer, Truck Accident, Car, Motorcycle"), "", "calldana")
        };
        assert_eq!(
            company_name(&s).as_deref(),
            Some("The Dana Whitfield Law Firm LLC")
        );
        // Any earlier source wins.
        let s = NameSources {
            home_link_texts: &links,
            ..sources(Some("Call Dana | Home"), "", "calldana")
        };
        assert_eq!(company_name(&s).as_deref(), Some("Call Dana"));
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
            name(
                "Contact Us | Harrowvale Design Build",
                "harrowvaledesignbuild"
            )
            .as_deref(),
            Some("Harrowvale Design Build")
        );
        assert_eq!(
            name(
                "Kestrel Plumbers - Emergency Plumbing in London",
                "kestrelplumbers"
            )
            .as_deref(),
            Some("Kestrel Plumbers")
        );
        assert_eq!(name("Home", "x"), None);
        assert_eq!(
            name("Contact Kent Bathroom Fitters Holly & Son", "hollyandson").as_deref(),
            Some("Holly & Son")
        );
        assert_eq!(
            name(
                "Factory Contacts For Quillmark Tooling, Inc.",
                "quillmarktooling"
            )
            .as_deref(),
            Some("Quillmark Tooling, Inc.")
        );
        assert_eq!(
            name(
                "Contact Nails by Marigold in Santa Monica",
                "nailsbymarigold"
            )
            .as_deref(),
            Some("Nails by Marigold")
        );
        assert_eq!(
            name(
                "Birch Insurance Service - Farmington New Mexico",
                "birchins"
            )
            .as_deref(),
            Some("Birch Insurance")
        );
        assert_eq!(
            name(
                "Contact Vosk Commercial Interior Design Architects",
                "voskdesign"
            )
            .as_deref(),
            Some("Vosk")
        );
        assert_eq!(
            name(
                "Denver Accident Attorney, CO, Denver Personal Injury Lawyer, Dana",
                "calldana"
            ),
            None
        );
    }

    #[test]
    fn copyright_line_and_placeholders() {
        assert_eq!(
            company_name(&sources(
                None,
                "x\n© 2014 Holly & Son Ltd. All rights reserved.",
                "hollyandson"
            ))
            .as_deref(),
            Some("Holly & Son Ltd")
        );
        assert_eq!(
            company_name(&sources(None, "© 2013 Your Company Name", "x")),
            None
        );
        assert_eq!(
            company_name(&sources(
                None,
                "© Copyright 2003-2014 WattleCar Pty Ltd.",
                "x"
            ))
            .as_deref(),
            Some("WattleCar Pty Ltd")
        );
        assert_eq!(
            company_name(&sources(
                None,
                "All rights reserved, Everbright Smile © 2009-2013",
                "x"
            ))
            .as_deref(),
            Some("Everbright Smile")
        );
        assert_eq!(
            company_name(&sources(None, "Kaartgegevens © 2014 Google", "x")),
            None
        );
    }
}
