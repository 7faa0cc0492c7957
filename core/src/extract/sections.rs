//! The parts of a page that name someone else than the business (docs/extraction.md): a legal
//! notice's sections on the hosting provider ("Hébergeur", "Hosting"), the supervisory
//! authority and the professional chamber ("Zuständige Aufsichtsbehörde", "Kammer", "Ordre des
//! avocats"), dispute-resolution bodies ("Schlichtungsstelle"), the insurer, the bank, the
//! memberships, and the credits for the web agency, designer and photographer ("Konzept &
//! Design", "Réalisation", "Foto"); and credit phrases in a line ("Designed by …",
//! "Diseñado por …"). Their phones, emails and addresses are not the business's; the
//! business's own block stays in. A section is found three ways:
//! - a heading (`<h1>`–`<h6>`) that names such a party: the section runs to the next heading,
//!   at most [`MAX_SECTION_LINES`] lines. Hosting headings count on any page; the others only on
//!   a legal notice (a heading "Impressum", "Mentions légales", … or a line "Angaben gemäß …"),
//!   where a heading "Design" cannot be a design studio's own services;
//! - a line that starts with such a label and a colon ("Hébergeur : OVH SAS, …", "Zuständige
//!   Kammer:"): that line and the lines after it up to the next heading, the next labelled line
//!   that is not a contact field ("Verliehen in: Deutschland") or [`MAX_SECTION_LINES`] lines;
//! - a credit phrase inside a line ("… · Diseñado por estudio-ejemplo.com") in the footer or at the
//!   end of the page: from the phrase to the end of that line.
//!
//! [`third_party_ranges`] gives the byte ranges; [`inside`] and [`own_part`] tell the field
//! extractors (and any other reader of the text, such as social links) what is left out.

use std::ops::Range;
use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

/// Most lines a third party's section spans (name, street, town, phone, email, web site).
pub const MAX_SECTION_LINES: usize = 6;

/// Labels that open a hosting provider's section, lower-case: on any page.
const HOSTING_LABELS: &[&str] = &[
    "hébergeur",
    "hébergement",
    "hebergeur",
    "hebergement",
    "hébergé par",
    "site hébergé",
    "hosting",
    "hosted by",
    "webhosting",
    "web hosting",
    "hoster",
    "provider",
    "host",
    "gehostet",
    "alojamiento",
    "hospedaje",
    "hospedagem",
    "alojamento",
    "ospitato",
    "hosting provider",
];

/// Labels of the other third parties' sections, lower-case, in the languages of the corpora
/// (de, fr, it, es, nl, en, pl, sv, cs).
const OTHER_LABELS: &[&str] = &[
    // Supervisory authorities and professional chambers.
    "aufsichtsbehörde",
    "zuständige aufsichtsbehörde",
    "aufsicht",
    "behörde",
    "kammer",
    "berufskammer",
    "berufsrechtliche regelungen",
    "berufsrechtliche vorschriften",
    "berufsrechtliche angaben",
    "berufsbezeichnung und berufsrechtliche",
    "autorité de contrôle",
    "autorité de tutelle",
    "ordre des",
    "ordre professionnel",
    "conseil de l'ordre",
    "barreau",
    "chambre des",
    "chambre de",
    "autorità di vigilanza",
    "autorità di controllo",
    "ordine degli",
    "ordine dei",
    "ordine professionale",
    "albo professionale",
    "collegio professionale",
    "autoridad de control",
    "organismo de control",
    "colegio profesional",
    "colegio oficial",
    "colegio de",
    "toezichthouder",
    "toezicht",
    "beroepsorganisatie",
    "beroepsvereniging",
    "orde van",
    "supervisory authority",
    "regulatory body",
    "regulator",
    "regulated by",
    "professional body",
    "professional chamber",
    "bar association",
    "izba",
    "tillsynsmyndighet",
    // Dispute resolution.
    "schlichtungsstelle",
    "streitschlichtung",
    "streitbeilegung",
    "verbraucherstreitbeilegung",
    "online-streitbeilegung",
    "universalschlichtungsstelle",
    "médiation",
    "médiateur",
    "mediation",
    "mediazione",
    "organismo di mediazione",
    "risoluzione delle controversie",
    "resolución de litigios",
    "resolución de conflictos",
    "mediación",
    "arbitraje",
    "geschillencommissie",
    "geschillen",
    "dispute resolution",
    "online dispute resolution",
    "ombudsman",
    "arbitration",
    // Insurers, banks, memberships.
    "berufshaftpflichtversicherung",
    "haftpflichtversicherung",
    "versicherer",
    "versicherung",
    "assureur",
    "assurance professionnelle",
    "assicurazione",
    "seguro de responsabilidad",
    "verzekeraar",
    "insurer",
    "professional indemnity",
    "bankverbindung",
    "kontoverbindung",
    "bank",
    "coordonnées bancaires",
    "banque",
    "coordinate bancarie",
    "datos bancarios",
    "bankgegevens",
    "bank details",
    "mitgliedschaft",
    "mitgliedschaften",
    "membership",
    "memberships",
    // The web agency, designer, developer, photographer.
    "konzept",
    "konzeption",
    "design",
    "webdesign",
    "web design",
    "website design",
    "gestaltung",
    "umsetzung",
    "technische umsetzung",
    "realisierung",
    "programmierung",
    "entwicklung",
    "webentwicklung",
    "agentur",
    "webagentur",
    "internetagentur",
    "foto",
    "fotos",
    "fotografie",
    "fotografien",
    "fotonachweis",
    "bildnachweis",
    "bildnachweise",
    "bildquellen",
    "bildrechte",
    "conception",
    "réalisation",
    "realisation",
    "création du site",
    "création",
    "développement",
    "crédits",
    "credits",
    "crédit photo",
    "crédits photos",
    "photos",
    "photo",
    "photographies",
    "photographe",
    "agence",
    "realizzazione",
    "progettazione",
    "sviluppo",
    "crediti",
    "fotografia",
    "web agency",
    "agenzia",
    "diseño",
    "diseño web",
    "desarrollo",
    "desarrollo web",
    "créditos",
    "fotografía",
    "realización",
    "agencia",
    "ontwerp",
    "realisatie",
    "ontwikkeling",
    "fotografie",
    "foto's",
    "concept",
    "development",
    "web development",
    "photography",
    "photo credits",
    "image credits",
    "agency",
    "projekt i wykonanie",
    "wykonanie",
    "projekt strony",
    "realizacja",
    "webbdesign",
    "utveckling",
    "tvorba webu",
    "realizace",
];

/// Heads of German compounds that name such a party whatever comes before them
/// ("Rechtsanwaltskammer", "Landeszahnärztekammer", "Verbraucherschlichtungsstelle").
const COMPOUND_HEADS: &[&str] = &[
    "kammer",
    "aufsichtsbehörde",
    "schlichtungsstelle",
    "streitbeilegung",
    "haftpflichtversicherung",
    "versicherer",
];

/// Words before a label that do not change whom it names ("Zuständige Kammer", "L'hébergeur",
/// "Notre agence").
const FILLERS: &[&str] = &[
    "zuständige",
    "zuständiger",
    "zuständig",
    "die",
    "der",
    "das",
    "le",
    "la",
    "les",
    "l",
    "il",
    "lo",
    "el",
    "the",
    "het",
    "de",
    "angaben",
    "zur",
    "zum",
];

/// Words that join two labels in one heading ("Konzept & Design", "L'hébergeur et l'éditeur").
const JOINERS: &[&str] = &[
    "&", "+", "und", "and", "et", "e", "y", "i", "en", "och", "a",
];

/// Who a label names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Party {
    /// The hosting provider (a heading counts on any page).
    Host,
    /// An authority, chamber, dispute body, insurer, bank, association or the site's makers.
    Other,
}

/// Whom `text` (a heading, or a label before its colon) names, if a third party: any of its
/// parts joined by "&", "und", "et" … starts with a label, after filler words, or has a word
/// that ends in a [`COMPOUND_HEADS`] noun.
fn party_of(text: &str) -> Option<Party> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > 60 || !may_name_a_party(text) {
        return None;
    }
    let lower = text.to_lowercase();
    // Words: letters, digits, `'` inside a word ("foto's"), `&` and `/` as their own words.
    let spaced = lower.replace(['’', '\''], "' ");
    let words: Vec<&str> = spaced
        .split(|c: char| {
            c.is_whitespace() || matches!(c, ',' | ':' | '(' | ')' | '-' | '–' | '/' | '|')
        })
        .map(|w| w.trim_matches(|c: char| matches!(c, '.' | ';' | '!' | '?' | '"' | '*')))
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > 8 {
        return None;
    }
    let mut party = None;
    for part in words.split(|w| JOINERS.contains(w)) {
        let part: Vec<&str> = part
            .iter()
            .map(|w| w.trim_end_matches('\''))
            .skip_while(|w| FILLERS.contains(w) || w.is_empty())
            .collect();
        let phrase = part.join(" ");
        let starts = |labels: &[&str]| {
            labels.iter().any(|label| {
                phrase
                    .strip_prefix(label)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            })
        };
        if starts(HOSTING_LABELS) {
            return Some(Party::Host);
        }
        if starts(OTHER_LABELS)
            || part.iter().any(|w| {
                // A genitive `s` too ("des Versicherers").
                let w = w.strip_suffix('s').unwrap_or(w);
                COMPOUND_HEADS.iter().any(|head| w.ends_with(head))
            })
        {
            party = Some(Party::Other);
        }
    }
    party
}

/// Whether `text` holds the longest ASCII run of some label (`bergeur` of `hébergeur`, `kammer`):
/// one automaton pass that spares most labels ("Tel", "Mo–Fr") the lower-casing and splitting
/// of [`party_of`].
fn may_name_a_party(text: &str) -> bool {
    static STEMS: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    STEMS
        .get_or_init(|| {
            let stems = HOSTING_LABELS
                .iter()
                .chain(OTHER_LABELS)
                .chain(COMPOUND_HEADS)
                .filter_map(|label| {
                    label
                        .split(|c: char| !c.is_ascii())
                        .max_by_key(|run| run.len())
                        .filter(|run| run.trim().len() >= 3)
                        .map(str::trim)
                });
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .build(stems)
                .ok()
        })
        .as_ref()
        .is_none_or(|stems| stems.is_match(text))
}

/// Headings and lines that mark a page as a legal notice.
const LEGAL_MARKERS: &[&str] = &[
    "impressum",
    "imprint",
    "legal notice",
    "legal information",
    "mentions légales",
    "mentions legales",
    "informations légales",
    "aviso legal",
    "nota legal",
    "note legali",
    "nota legale",
    "informazioni legali",
    "colofon",
    "disclaimer",
    "offenlegung",
    "angaben gemäß",
    "nota prawna",
    "právní informace",
];

/// Whether `text` (a heading) names a legal notice.
fn is_legal_marker(text: &str) -> bool {
    let text = text.trim();
    if text.is_ascii() {
        // ASCII text lower-cases byte by byte: a marker is in its lower-case copy exactly when
        // the marker is in it in any ASCII case, and only the ASCII markers can be. One
        // automaton pass instead of a copy and a search for each marker (a page has dozens
        // of headings). A contiguous NFA, not the DFA the builder would pick: building the
        // DFA cost about 850 page faults a run for a few instructions saved a heading.
        static ASCII_MARKERS: OnceLock<Option<AhoCorasick>> = OnceLock::new();
        return text.len() <= 120
            && ASCII_MARKERS
                .get_or_init(|| {
                    AhoCorasick::builder()
                        .ascii_case_insensitive(true)
                        .kind(Some(AhoCorasickKind::ContiguousNFA))
                        .build(LEGAL_MARKERS.iter().filter(|m| m.is_ascii()))
                        .ok()
                })
                .as_ref()
                .map_or_else(
                    || {
                        LEGAL_MARKERS
                            .iter()
                            .any(|m| text.to_lowercase().contains(m))
                    },
                    |markers| markers.is_match(text),
                );
    }
    let lower = text.to_lowercase();
    lower.len() <= 120 && LEGAL_MARKERS.iter().any(|m| lower.contains(m))
}

/// Phrases that credit the site's makers inside a line (ASCII case-insensitive).
const CREDIT_PHRASES: &[&str] = &[
    "designed by",
    "design by",
    "designed and developed by",
    "developed by",
    "website by",
    "web design by",
    "webdesign by",
    "site by",
    "built by",
    "réalisé par",
    "realise par",
    "conçu par",
    "créé par",
    "développé par",
    "diseñado por",
    "desarrollado por",
    "diseño web:",
    "realizzato da",
    "sviluppato da",
    "erstellt von",
    "umgesetzt von",
    "gestaltet von",
    "entwickelt von",
    "webdesign von",
    "webdesign:",
    "ontworpen door",
    "ontwikkeld door",
    "gerealiseerd door",
    "webdesign door",
    "skapad av",
    "utvecklad av",
    "projekt i wykonanie",
    "wykonanie:",
    "vytvořil",
];

/// The positions in `text` where a credit phrase starts (at a word start).
fn credit_phrases(text: &str) -> Vec<usize> {
    static PHRASES: OnceLock<Option<AhoCorasick>> = OnceLock::new();
    let Some(phrases) = PHRASES
        .get_or_init(|| {
            AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(CREDIT_PHRASES)
                .ok()
        })
        .as_ref()
    else {
        return Vec::new();
    };
    phrases
        .find_iter(text)
        .map(|m| m.start())
        .filter(|&start| {
            text[..start]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
        })
        .collect()
}

/// Whether `line` starts with a label and a colon (`Label : value`), as the fields of a legal
/// notice do.
fn is_labelled(line: &str) -> bool {
    line.split_once(':').is_some_and(|(label, _)| {
        let label = label.trim();
        !label.is_empty()
            && label.chars().count() <= 40
            && !label.chars().any(|c| c.is_ascii_digit())
    })
}

/// The end of the page where credit lines sit when no footer element holds them, in bytes
/// of text.
const PAGE_END_BYTES: usize = 3_000;

/// The byte ranges of `text` (lines separated by `\n`, starting at `line_starts`) that belong
/// to a third party's section, given the page's heading ranges in document order and its
/// footer ranges (credit phrases are looked for there and in the last [`PAGE_END_BYTES`]);
/// sorted by start.
pub fn third_party_ranges(
    text: &str,
    line_starts: &[usize],
    headings: &[Range<usize>],
    footers: &[Range<usize>],
) -> Vec<Range<usize>> {
    let line_of = |pos: usize| {
        line_starts
            .partition_point(|start| *start <= pos)
            .saturating_sub(1)
    };
    let line_end = |index: usize| {
        line_starts
            .get(index + 1)
            .map_or(text.len(), |next| next - 1)
    };
    let next_heading_after =
        |pos: usize| headings.iter().map(|h| h.start).find(|start| *start > pos);
    let end_after_lines = |first_line: usize| {
        line_starts
            .get(first_line + MAX_SECTION_LINES)
            .copied()
            .unwrap_or(text.len())
    };
    let legal = headings.iter().any(|h| is_legal_marker(&text[h.clone()]))
        || line_starts.iter().take(2_000).any(|&start| {
            text.get(start..start + "angaben gemäß".len())
                .is_some_and(|head| head.eq_ignore_ascii_case("angaben gemäß"))
        });
    let mut ranges = Vec::new();
    for heading in headings {
        let party = party_of(&text[heading.clone()]);
        if party == Some(Party::Host) || (legal && party == Some(Party::Other)) {
            let limit = end_after_lines(line_of(heading.end));
            let end = next_heading_after(heading.start).map_or(limit, |next| next.min(limit));
            ranges.push(heading.start..end);
        }
    }
    for (index, colon) in first_colons(text, line_starts) {
        let start = &line_starts[index];
        let label = &text[*start..colon];
        // Most lines are rejected here, before any lower-casing.
        if label.len() > 80 || label.chars().count() > 40 || party_of(label).is_none() {
            continue;
        }
        let mut end = line_end(index);
        for next in index + 1..(index + MAX_SECTION_LINES).min(line_starts.len()) {
            let next_start = line_starts[next];
            let next_line = &text[next_start..line_end(next)];
            let heading_here = headings.iter().any(|h| h.start == next_start);
            if heading_here || (is_labelled(next_line) && !is_contact_field(next_line)) {
                break;
            }
            end = line_end(next);
        }
        ranges.push(*start..end);
    }
    // Credits sit in the footer or at the end of the page: only there is the text searched.
    let mut end_of_page = text.len().saturating_sub(PAGE_END_BYTES);
    while !text.is_char_boundary(end_of_page) {
        end_of_page -= 1;
    }
    let mut areas: Vec<Range<usize>> = footers
        .iter()
        .cloned()
        .chain(std::iter::once(end_of_page..text.len()))
        .collect();
    areas.sort_by_key(|area| area.start);
    let mut searched = 0;
    for area in areas {
        let start = area.start.max(searched);
        if start >= area.end || !text.is_char_boundary(start) || !text.is_char_boundary(area.end) {
            continue;
        }
        for at in credit_phrases(&text[start..area.end]) {
            ranges.push(start + at..line_end(line_of(start + at)));
        }
        searched = searched.max(area.end);
    }
    ranges.sort_by_key(|r| r.start);
    ranges
}

/// The lines of `text` (starting at `line_starts`, each ending before the next one's start)
/// that hold a colon, in order, each as its index and the position of its first colon: one
/// search over the text instead of one per line (most lines have none).
fn first_colons<'t>(
    text: &'t str,
    line_starts: &'t [usize],
) -> impl Iterator<Item = (usize, usize)> + 't {
    let mut colons = memchr::memchr_iter(b':', text.as_bytes()).peekable();
    line_starts
        .iter()
        .enumerate()
        .filter_map(move |(index, &start)| {
            let end = line_starts
                .get(index + 1)
                .map_or(text.len(), |next| next - 1);
            while colons.next_if(|&colon| colon < start).is_some() {}
            colons
                .peek()
                .filter(|&&colon| colon < end)
                .map(|&colon| (index, colon))
        })
}

/// A labelled line that still belongs to the section before it: its phone, fax, email, site or
/// address ("Tél : …", "Adresse : …").
fn is_contact_field(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    [
        "tél",
        "tel",
        "téléphone",
        "telephone",
        "telefon",
        "telefax",
        "phone",
        "fax",
        "email",
        "e-mail",
        "mail",
        "site",
        "web",
        "adresse",
        "address",
        "anschrift",
        "url",
        "internet",
        "sitz",
    ]
    .iter()
    .any(|field| {
        lower
            .strip_prefix(field)
            .is_some_and(|rest| rest.trim_start().starts_with([':', '.']) || rest.starts_with(' '))
    })
}

/// Whether byte `pos` of the text lies in one of `ranges` (sorted by start).
pub fn inside(ranges: &[Range<usize>], pos: usize) -> bool {
    ranges.iter().any(|range| range.contains(&pos))
}

/// Whether a link that starts at byte `pos` of `text` and reads `link_text` lies in one of
/// `ranges`. A link at the very start of a range counts only when its own text starts there:
/// a link without text of its own (an icon, text only in `alt`) sits at the position of the
/// text after it, which may open a section it does not belong to.
pub fn link_inside(ranges: &[Range<usize>], text: &str, pos: usize, link_text: &str) -> bool {
    ranges.iter().any(|range| {
        range.contains(&pos)
            && (pos > range.start
                || link_text.split_whitespace().next().is_some_and(|first| {
                    text.get(pos..)
                        .is_some_and(|there| there.trim_start().starts_with(first))
                }))
    })
}

/// The part of `line` (starting at byte `start` of the text) outside `ranges`: the whole line,
/// its beginning up to a section that starts inside it, or nothing when the line starts inside
/// one.
pub fn own_part<'t>(ranges: &[Range<usize>], line: &'t str, start: usize) -> &'t str {
    if inside(ranges, start) {
        return "";
    }
    let end = start + line.len();
    ranges
        .iter()
        .map(|r| r.start)
        .find(|&s| s > start && s < end)
        .map_or(line, |s| &line[..s - start])
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn first_colons_are_those_of_each_line(text in "([a-z]{1,4}|:|\n| |é){0,30}") {
            let mut line_starts = vec![0];
            line_starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
            let lines: Vec<(usize, usize)> = text
                .split('\n')
                .zip(&line_starts)
                .enumerate()
                .filter_map(|(index, (line, start))| line.find(':').map(|at| (index, start + at)))
                .collect();
            proptest::prop_assert_eq!(first_colons(&text, &line_starts).collect::<Vec<_>>(), lines);
        }

        #[test]
        fn legal_markers_found_as_in_a_lower_case_copy(
            text in "( |[a-zA-Z]{1,6}|IMPRESSUM|Legal Notice|MENTIONS LÉGALES|Mentions légales|\u{212a}|İ|é){0,8}"
        ) {
            let lower = text.trim().to_lowercase();
            let model = lower.len() <= 120 && LEGAL_MARKERS.iter().any(|m| lower.contains(m));
            proptest::prop_assert_eq!(is_legal_marker(&text), model);
        }
    }

    fn starts(text: &str) -> Vec<usize> {
        std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect()
    }

    fn at(text: &str, word: &str) -> Range<usize> {
        let start = text.find(word).unwrap();
        start..start + word.len()
    }

    #[test]
    fn a_hosting_heading_runs_to_the_next_heading() {
        let text = "Éditeur\nAcme SARL\nTél : 01 42 68 53 00\nHébergeur\nOVH SAS\nTél : 09 72 10 10 07\nCrédits\nPhotos : X\n";
        let headings = [at(text, "Éditeur"), at(text, "Hébergeur")];
        let ranges = third_party_ranges(text, &starts(text), &headings, &[]);
        assert_eq!(ranges.len(), 2, "{ranges:?}");
        assert_eq!(ranges[0].start, headings[1].start);
        assert!(text[ranges[0].clone()].contains("09 72"));
        assert!(!text[..ranges[0].start].contains("09 72"));
    }

    #[test]
    fn a_labelled_line_and_its_contact_fields() {
        let text = "Hébergeur : OVH SAS\n2 rue Kellermann, 59100 Roubaix\nTél : 09 72 10 10 07\nDirecteur de la publication : Jean Dupont\nAcme, 1 rue X";
        let ranges = third_party_ranges(text, &starts(text), &[], &[]);
        assert_eq!(ranges.len(), 1);
        let section = &text[ranges[0].clone()];
        assert!(section.ends_with("09 72 10 10 07"), "{section}");
        assert!(!section.contains("Directeur"));
    }

    #[test]
    fn whom_a_label_names() {
        for host in [
            "Hosting",
            "Hébergeur du site",
            "L'hébergeur et l'éditeur",
            "Host:",
        ] {
            assert_eq!(party_of(host), Some(Party::Host), "{host}");
        }
        for other in [
            "Zuständige Aufsichtsbehörde",
            "Zuständige Kammer",
            "Rechtsanwaltskammer Berlin",
            "Berufsrechtliche Regelungen",
            "Konzept & Design",
            "Webdesign",
            "Réalisation",
            "Foto",
            "Crédits photos",
            "Schlichtungsstelle",
            "Ordre des avocats de Paris",
            "Ordine degli Avvocati di Milano",
            "Colegio Oficial de Dentistas",
            "Bankverbindung",
            "Name und Sitz des Versicherers",
        ] {
            assert_eq!(party_of(other), Some(Party::Other), "{other}");
        }
        for own in [
            "Hostinger deals",
            "Herberg De Linde",
            "Kontakt",
            "Angaben gemäß § 5 TMG",
            "Éditeur du site",
            "Telefon",
            "Ordini",
            "Inhaber",
        ] {
            assert_eq!(party_of(own), None, "{own}");
        }
    }

    #[test]
    fn other_parties_headings_count_only_on_a_legal_notice() {
        let text = "Design\nWe design kitchens. Call 030 1234567\nImpressum\n";
        let headings = [at(text, "Design")];
        assert!(third_party_ranges(text, &starts(text), &headings, &[]).is_empty());
        let headings = [at(text, "Design"), at(text, "Impressum")];
        assert_eq!(
            third_party_ranges(text, &starts(text), &headings, &[]).len(),
            1
        );
    }

    #[test]
    fn a_credit_phrase_cuts_its_line() {
        let text =
            "© 2026 Acme · Tel 0123 456789 · Diseñado por estudio-ejemplo.com, tel 0987 654321\nNext";
        let ranges = third_party_ranges(text, &starts(text), &[], &[]);
        assert_eq!(ranges.len(), 1);
        let line = text.lines().next().unwrap();
        assert_eq!(
            own_part(&ranges, line, 0),
            "© 2026 Acme · Tel 0123 456789 · "
        );
        assert_eq!(own_part(&ranges, "Next", line.len() + 1), "Next");
    }

    #[test]
    fn an_icon_link_just_before_a_section_is_not_in_it() {
        let text = "Blog\nDesigned by X\nNext";
        let ranges = third_party_ranges(text, &starts(text), &[], &[]);
        let pos = text.find("Designed").unwrap();
        assert!(!link_inside(&ranges, text, pos, "send email"));
        assert!(link_inside(&ranges, text, pos, "Designed by X"));
        assert!(link_inside(&ranges, text, pos + 12, "X"));
    }
}
