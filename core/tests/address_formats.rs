//! Page-level fixtures of address layouts and street words read from data (the lexicon's
//! `street.type` entries, the postcode formats of `core/data/address-formats.tsv`), each on a
//! small page written for the test, modelled on its class, with invented names and numbers
//! (docs/extraction.md, "Addresses" and "Lexicon").

use contact_core::extract::address::MarkedAddress;
use contact_core::extract::{self, PageExtraction};
use url::Url;

fn page(url: &str, html: &str) -> PageExtraction {
    extract::extract_page(
        &Url::parse(url).expect("test URL"),
        Some("text/html"),
        html.as_bytes(),
    )
}

/// (street, locality, postcode) of each address found on the page.
fn parts(url: &str, html: &str) -> Vec<[Option<String>; 3]> {
    page(url, html)
        .addresses
        .into_iter()
        .map(|a: MarkedAddress| [a.street, a.locality, a.postal_code])
        .collect()
}

fn some(parts: [&str; 3]) -> [Option<String>; 3] {
    parts.map(|p| Some(p.to_owned()))
}

/// Class `street.type` written after the street's name in Slovene (`cesta`, `ulica`), Latvian
/// (`iela`, `gatve`) and Estonian (`tänav`, `mnt`, `pst`): the name before the type is part of
/// the street, not cut off as a company or prose word.
#[test]
fn street_types_after_the_name_in_baltic_and_slovene_addresses() {
    let cases = [
        (
            "https://primer.si/",
            "<p>Primer d.o.o.<br>Vzorčna cesta 14<br>1000 Ljubljana</p>",
            ["Vzorčna cesta 14", "Ljubljana", "1000"],
        ),
        (
            "https://primer.si/",
            "<p>Primer d.o.o.<br>Izmišljena ulica 3<br>2000 Maribor</p>",
            ["Izmišljena ulica 3", "Maribor", "2000"],
        ),
        (
            "https://piemers.lv/",
            "<p>Piemērs SIA<br>Parauga iela 21<br>Rīga, LV-1010</p>",
            ["Parauga iela 21", "Rīga", "LV-1010"],
        ),
        (
            "https://piemers.lv/",
            "<p>Piemērs SIA<br>Izdomāta gatve 8<br>Rīga, LV-1050</p>",
            ["Izdomāta gatve 8", "Rīga", "LV-1050"],
        ),
        (
            "https://naide.ee/",
            "<p>Näide OÜ<br>Proovi mnt 17<br>10115 Tallinn</p>",
            ["Proovi mnt 17", "Tallinn", "10115"],
        ),
        (
            "https://naide.ee/",
            "<p>Näide OÜ<br>Katse pst 5<br>51004 Tartu</p>",
            ["Katse pst 5", "Tartu", "51004"],
        ),
        (
            "https://naide.ee/",
            "<p>Näide OÜ<br>Väljamõeldud tänav 9<br>10115 Tallinn</p>",
            ["Väljamõeldud tänav 9", "Tallinn", "10115"],
        ),
    ];
    for (url, html, want) in cases {
        assert_eq!(parts(url, html), [some(want)], "{html}");
    }
}

/// Negatives of the Baltic and Slovene street types: an opening-hours line with a time zone
/// (`PST`), a sentence with a number and a price are no street, and another address's street
/// word does not pull them in.
#[test]
fn street_type_words_in_prose_and_hours_are_no_address() {
    for (url, html) in [
        (
            "https://sample-shop.com/",
            "<p>Open Mon–Fri 9–17 PST</p><p>Call us at 10115 extension</p>",
        ),
        (
            "https://naide.ee/",
            "<p>Kampaania: 2 pst 15 eurot</p><p>Tellimusi 10115 korda aastas</p>",
        ),
        (
            "https://primer.si/",
            "<p>Cesta do uspeha 2024 je dolga 1000 korakov</p>",
        ),
    ] {
        assert_eq!(
            parts(url, html),
            Vec::<[Option<String>; 3]>::new(),
            "{html}"
        );
    }
}
