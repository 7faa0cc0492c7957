//! The parts of a legal notice that name someone else than the business: the hosting
//! provider's section ("Hébergeur", "Hébergement", "Hosting", "Provider"), whose phone and
//! address are the host's (docs/extraction.md). A section is found two ways:
//! - a heading (`<h1>`–`<h6>`) that is a hosting label: the section runs to the next heading,
//!   at most [`MAX_SECTION_LINES`] lines;
//! - a line that starts with a hosting label and a colon ("Hébergeur : OVH SAS, …"): that line
//!   and the lines after it up to the next heading, the next labelled line ("Directeur de la
//!   publication : …") or [`MAX_SECTION_LINES`] lines.

use std::ops::Range;

/// Most lines a hosting section spans (name, street, town, phone, email, web site).
pub const MAX_SECTION_LINES: usize = 6;

/// Labels that open a hosting provider's section, lower-case, in the languages of the corpus.
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
    "host:",
    "gehostet",
    "alojamiento",
    "hospedaje",
    "hospedagem",
    "alojamento",
    "ospitato",
    "hosting provider",
];

/// Whether `text` (a heading or the start of a line) names the hosting provider's section.
fn is_hosting_label(text: &str) -> bool {
    let text = text.trim();
    // Every label starts with one of these letters: most lines are rejected without a copy.
    let first = text.bytes().next().map(|b| b.to_ascii_lowercase());
    if !matches!(first, Some(b'h' | b'p' | b'w' | b'g' | b'a' | b'o' | b's')) || text.len() > 60 {
        return false;
    }
    let lower = text.to_lowercase();
    HOSTING_LABELS.iter().any(|label| {
        lower.strip_prefix(label).is_some_and(|rest| {
            // A whole word: "Hosting", "Hosting :", "Hébergeur du site", not "Hostinger".
            rest.chars().next().is_none_or(|c| !c.is_alphanumeric())
        })
    })
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

/// The byte ranges of `text` (lines separated by `\n`, starting at `line_starts`) that belong
/// to a hosting provider's section, given the page's heading ranges in document order.
pub fn hosting_ranges(
    text: &str,
    line_starts: &[usize],
    headings: &[Range<usize>],
) -> Vec<Range<usize>> {
    let line_of = |pos: usize| {
        line_starts
            .partition_point(|start| *start <= pos)
            .saturating_sub(1)
    };
    let next_heading_after =
        |pos: usize| headings.iter().map(|h| h.start).find(|start| *start > pos);
    let end_after_lines = |first_line: usize| {
        line_starts
            .get(first_line + MAX_SECTION_LINES)
            .copied()
            .unwrap_or(text.len())
    };
    let mut ranges = Vec::new();
    for heading in headings {
        if !is_hosting_label(&text[heading.clone()]) {
            continue;
        }
        let limit = end_after_lines(line_of(heading.end));
        let end = next_heading_after(heading.start).map_or(limit, |next| next.min(limit));
        ranges.push(heading.start..end);
    }
    for (index, start) in line_starts.iter().enumerate() {
        let end_of_line = line_starts
            .get(index + 1)
            .map_or(text.len(), |next| next - 1);
        let line = &text[*start..end_of_line];
        let Some((label, _)) = line.split_once(':') else {
            continue;
        };
        if !is_hosting_label(label) || label.chars().count() > 40 {
            continue;
        }
        let mut end = end_of_line;
        for next in index + 1..(index + MAX_SECTION_LINES).min(line_starts.len()) {
            let next_start = line_starts[next];
            let next_end = line_starts.get(next + 1).map_or(text.len(), |n| n - 1);
            let next_line = &text[next_start..next_end];
            let heading_here = headings.iter().any(|h| h.start == next_start);
            if heading_here || (is_labelled(next_line) && !is_contact_field(next_line)) {
                break;
            }
            end = next_end;
        }
        ranges.push(*start..end);
    }
    ranges.sort_by_key(|r| r.start);
    ranges
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

#[cfg(test)]
mod tests {
    use super::*;

    fn starts(text: &str) -> Vec<usize> {
        std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect()
    }

    #[test]
    fn a_hosting_heading_runs_to_the_next_heading() {
        let text = "Éditeur\nAcme SARL\nTél : 01 42 68 53 00\nHébergeur\nOVH SAS\nTél : 09 72 10 10 07\nCrédits\nPhotos : X\n";
        let at = |word: &str| {
            let start = text.find(word).unwrap();
            start..start + word.len()
        };
        let headings = [at("Éditeur"), at("Hébergeur"), at("Crédits")];
        let ranges = hosting_ranges(text, &starts(text), &headings);
        assert_eq!(ranges.len(), 1);
        assert_eq!(ranges[0], headings[1].start..headings[2].start);
        assert!(text[ranges[0].clone()].contains("09 72"));
    }

    #[test]
    fn a_labelled_line_and_its_contact_fields() {
        let text = "Hébergeur : OVH SAS\n2 rue Kellermann, 59100 Roubaix\nTél : 09 72 10 10 07\nDirecteur de la publication : Jean Dupont\nAcme, 1 rue X";
        let ranges = hosting_ranges(text, &starts(text), &[]);
        assert_eq!(ranges.len(), 1);
        let section = &text[ranges[0].clone()];
        assert!(section.ends_with("09 72 10 10 07"), "{section}");
        assert!(!section.contains("Directeur"));
    }

    #[test]
    fn only_whole_hosting_words() {
        assert!(is_hosting_label("Hosting"));
        assert!(is_hosting_label("Hébergeur du site"));
        assert!(!is_hosting_label("Hostinger deals"));
        assert!(!is_hosting_label("Herberg De Linde"));
        assert!(!is_hosting_label("Kontakt"));
    }
}
