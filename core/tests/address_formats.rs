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

/// The parts, an empty one as `None` (an address without a postcode).
fn some(parts: [&str; 3]) -> [Option<String>; 3] {
    parts.map(|p| (!p.is_empty()).then(|| p.to_owned()))
}

/// Asserts that each (URL, page, (street, locality, postcode)) reads as one address with those
/// parts; every case that does not is listed in the failure.
fn assert_reads(cases: &[(&str, &str, [&str; 3])]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(url, html, want)| {
            let got = parts(url, html);
            (got != [some(*want)]).then(|| format!("{html}\n  read {got:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
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
    assert_reads(&cases);
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

/// Class `postcode.label_first`: the postcode's label opens the line and the town (and
/// state) follow it — Mexico (`C.P. 06010, Ciudad de México, CDMX`), Brazil (`CEP 99010-100 -
/// Vila Exemplo/RS`); the street is the line above.
#[test]
fn a_labelled_postcode_before_the_town_and_state() {
    let cases = [
        (
            "https://ejemplo.com.mx/",
            "<p>Ejemplo SA de CV<br>Av. Ejemplo 123, Col. Centro<br>C.P. 06010, Ciudad de México, CDMX</p>",
            ["Av. Ejemplo 123, Col. Centro", "Ciudad de México", "06010"],
        ),
        (
            "https://ejemplo.com.mx/",
            "<p>Ejemplo SA de CV<br>Calle Muestra 45, Col. Americana, CP 44170, Guadalajara, Jalisco</p>",
            ["Calle Muestra 45, Col. Americana", "Guadalajara", "44170"],
        ),
        (
            "https://exemplo.com.br/",
            "<p>Exemplo Ltda<br>Rua Exemplo, 123 - Centro<br>CEP 99010-100 - Vila Exemplo/RS</p>",
            ["Rua Exemplo, 123 - Centro", "Vila Exemplo", "99010-100"],
        ),
    ];
    assert_reads(&cases);
}

/// Class `postcode.state_in_parentheses`: the state's code in parentheses after the town,
/// above a CEP or before it on the street's line (Brazil), above a labelled postcode
/// (Argentina's province abbreviations) and before an Indian PIN.
#[test]
fn a_state_code_in_parentheses_after_the_town() {
    let cases = [
        (
            "https://exemplo.com.br/",
            "<p>Exemplo Ltda<br>Rua Exemplo, 123 - Centro<br>Vila Exemplo (RS)<br>CEP 99010-100</p>",
            ["Rua Exemplo, 123 - Centro", "Vila Exemplo", "99010-100"],
        ),
        (
            "https://exemplo.com.br/",
            "<p>Exemplo Ltda<br>Rua Exemplo, 123 - Centro - Vila Exemplo (SP) - CEP 13010-100</p>",
            ["Rua Exemplo, 123 - Centro", "Vila Exemplo", "13010-100"],
        ),
        (
            "https://ejemplo.com.ar/",
            "<p>Ejemplo SRL<br>Av. Ejemplo 1234<br>Villa Ejemplo (CBA)<br>CP 5010</p>",
            ["Av. Ejemplo 1234", "Villa Ejemplo", "5010"],
        ),
        (
            "https://sample.in/",
            "<p>Sample Pvt Ltd<br>12 Sample Road<br>Sample Town (KA) 560035</p>",
            ["12 Sample Road", "Sample Town", "560035"],
        ),
    ];
    assert_reads(&cases);
}

/// Negatives of the label-first and parenthesised-state readings: a labelled postcode in a
/// sentence, a price, an opening-hours line and a telephone's area code in parentheses are no
/// town or state.
#[test]
fn a_label_or_parentheses_in_prose_are_no_address() {
    for (url, html) in [
        (
            "https://ejemplo.com.mx/",
            "<p>Envíos a todo el país desde el C.P. 06010 y más, en 3 días hábiles</p>",
        ),
        (
            "https://ejemplo.com.mx/",
            "<p>Precio especial: $12,500, Lunes a Viernes 9:00 - 18:00</p>",
        ),
        (
            "https://exemplo.com.br/",
            "<p>Atendimento (SP) de segunda a sexta<br>Ligue (11) 3555-1234</p>",
        ),
    ] {
        assert_eq!(
            parts(url, html),
            Vec::<[Option<String>; 3]>::new(),
            "{html}"
        );
    }
}

/// Class `address.area_line`: an area line (a place name) between a street that opens with its
/// house number and the town's line, in layouts whose format has no district: India (on a
/// `.in` host, and on a `.com` host with an Indian number), Sri Lanka. The area is neither
/// street nor town.
#[test]
fn an_area_line_between_the_street_and_the_town() {
    assert_reads(&[
        (
            "https://sample.in/",
            "<p>Sample Solutions Pvt Ltd<br>#12, 1st Floor, 5th Cross<br>Sample Nagar<br>Bengaluru, Karnataka 560035</p>",
            ["#12, 1st Floor, 5th Cross", "Bengaluru", "560035"],
        ),
        (
            "https://sample-solutions.com/",
            "<p>Sample Solutions Pvt Ltd<br>12, 5th Cross Road<br>Sample Layout<br>Bengaluru, Karnataka 560035<br>Phone: +91 80 5555 0123</p>",
            ["12, 5th Cross Road", "Bengaluru", "560035"],
        ),
        (
            "https://sample.lk/",
            "<p>Sample Holdings (Pvt) Ltd<br>No. 12, Sample Mawatha<br>Sample Gardens<br>Colombo 00500</p>",
            ["No. 12, Sample Mawatha", "Colombo", "00500"],
        ),
    ]);
}

/// Negatives of the area line: a name line above the town without a numbered street above
/// it, opening hours and another organisation's name between them are not read as a street.
#[test]
fn an_area_line_needs_a_numbered_street_above_it() {
    for (url, html) in [
        (
            "https://sample.in/",
            "<p>Open Monday to Saturday<br>Sample Nagar<br>Bengaluru, Karnataka 560035</p>",
        ),
        (
            "https://sample.in/",
            "<p>Sample Solutions Pvt Ltd<br>Sample Nagar<br>Bengaluru, Karnataka 560035</p>",
        ),
        (
            "https://sample.in/",
            "<p>10 years of service<br>Sample Nagar<br>Bengaluru, Karnataka 560035</p>",
        ),
    ] {
        let streets: Vec<Option<String>> = page(url, html)
            .addresses
            .into_iter()
            .map(|a| a.street)
            .collect();
        assert!(streets.iter().all(Option::is_none), "{html}: {streets:?}");
    }
}

/// Classes `postcode.town_zip_street` and `postcode.zip_town_street`: the town and postcode
/// before the street on one line — Bulgaria and Greece (`Town 1010, Street 12`), Russia and
/// Ukraine (`101010, г. Town, ул. Street, д. 12`, with the lexicon's town words and street
/// types), Hungary with labelled fields around the address.
#[test]
fn the_town_and_postcode_before_the_street_on_one_line() {
    assert_reads(&[
        (
            "https://primer.bg/",
            "<p>Пример ЕООД<br>София 1010, ул. Примерна 12</p>",
            ["ул. Примерна 12", "София", "1010"],
        ),
        (
            "https://paradeigma.gr/",
            "<p>Παράδειγμα ΑΕ<br>Αθήνα 10559, Παραδείγματος 12</p>",
            ["Παραδείγματος 12", "Αθήνα", "10559"],
        ),
        (
            "https://primer.ru/",
            "<p>ООО Пример<br>Адрес: 101010, г. Москва, ул. Примерная, д. 12</p>",
            ["ул. Примерная, д. 12", "Москва", "101010"],
        ),
        (
            "https://pryklad.com.ua/",
            "<p>ТОВ Приклад<br>01010, м. Київ, вул. Прикладна, 12<br>Тел: +380 44 555 0123</p>",
            ["вул. Прикладна, 12", "Київ", "01010"],
        ),
        (
            "https://minta.hu/",
            "<p>Cégnév: Minta Kft. Székhely: 1053 Budapest, Minta utca 7. Adószám: 12345678-2-41</p>",
            ["Minta utca 7", "Budapest", "1053"],
        ),
    ]);
}

/// Negatives of the town-first readings: a count, a year, a price and opening hours between
/// a capitalised word and a comma are no address.
#[test]
fn numbers_after_a_capitalised_word_and_before_a_comma_are_no_address() {
    for (url, html) in [
        (
            "https://primer.bg/",
            "<p>Над 1200 клиенти, 15 години опит</p>",
        ),
        (
            "https://primer.ru/",
            "<p>Работаем с 2005 года, Пн-Пт 9:00-18:00</p><p>Цена 101010, скидка 12</p>",
        ),
        (
            "https://minta.hu/",
            "<p>Budapest 1053, minden nap 8-tól 18-ig</p>",
        ),
    ] {
        assert_eq!(
            parts(url, html),
            Vec::<[Option<String>; 3]>::new(),
            "{html}"
        );
    }
}

/// Class `tld.national_second_level`: a host under a national second level of a ccTLD sold as
/// a generic name (`.com.co`, `.co.me`) is in that country, so its postcodes are read without
/// an international number on the page: Colombia (the town with its dotted abbreviation, on
/// its own line or after a comma), Montenegro.
#[test]
fn a_national_second_level_domain_gives_the_page_its_country() {
    assert_reads(&[
        (
            "https://www.ejemplo.com.co/",
            "<p>Ejemplo SAS<br>Carrera 15 # 88-60<br>Bogotá D.C. 110221</p>",
            ["Carrera 15 # 88-60", "Bogotá D.C.", "110221"],
        ),
        (
            "https://ejemplo.org.co/",
            "<p>Ejemplo SAS<br>Carrera 15 # 88-60, Bogotá D.C., 110221</p>",
            ["Carrera 15 # 88-60", "Bogotá D.C.", "110221"],
        ),
        (
            "https://primjer.co.me/",
            "<p>Primjer d.o.o.<br>Ulica Primjera 12<br>81000 Podgorica</p>",
            ["Ulica Primjera 12", "Podgorica", "81000"],
        ),
    ]);
}

/// The same class for numbers: a national number on a `.com.co` page is Colombian, not read
/// in the default region.
#[test]
fn a_national_number_on_a_national_second_level_domain() {
    let p = page(
        "https://ejemplo.com.co/",
        "<p>Ejemplo SAS<br>Tel: (601) 555 0123</p>",
    );
    assert_eq!(p.phones, ["+576015550123"]);
}

/// Class `postcode.language_of_many`: an English page on a `.com` host of India, South Africa
/// or Nigeria that prints its numbers without the country code has no region; its postcode is
/// read as on a page of the first of the language's countries whose reading gives a street.
#[test]
fn postcodes_of_english_pages_of_no_region() {
    let page_of = |body: &str| format!("<html lang=\"en\"><body><p>{body}</p></body></html>");
    let cases = [
        (
            page_of("Sample Pvt Ltd<br>12, 5th Cross Road, Sample Layout<br>Bengaluru, Karnataka 560035<br>Phone: 080 5555 0123"),
            ["12, 5th Cross Road, Sample Layout", "Bengaluru", "560035"],
        ),
        (
            page_of("Sample (Pty) Ltd<br>12 Sample Street, Sampleton, Cape Town, 8002<br>Tel: 021 555 0123"),
            ["12 Sample Street, Sampleton", "Cape Town", "8002"],
        ),
        (
            page_of("Sample Ltd<br>12 Sample Street<br>Ikeja, Lagos 100002<br>Tel: 0803 555 0123"),
            ["12 Sample Street", "Ikeja", "100002"],
        ),
    ];
    let cases: Vec<(&str, &str, [&str; 3])> = cases
        .iter()
        .map(|(html, want)| ("https://sample-company.com/", html.as_str(), *want))
        .collect();
    assert_reads(&cases);
}

/// Negatives of English pages of no region: a year after a street line, a count, a price and
/// opening hours are no postcode.
#[test]
fn numbers_on_english_pages_of_no_region_are_no_postcode() {
    for body in [
        "<p>1200 Main Street</p><p>Springfield 2024 Award</p>",
        "<p>Serving 1200 Happy Customers since 2004</p><p>Call 080 5555 0123</p>",
        "<p>Plans from 4999 Rupees, 12 months</p><p>Open Monday to Friday 0900 - 1700</p>",
    ] {
        let html = format!("<html lang=\"en\"><body>{body}</body></html>");
        assert_eq!(
            parts("https://sample-company.com/", &html),
            Vec::<[Option<String>; 3]>::new(),
            "{body}"
        );
    }
}

/// Class `postcode.sentence_end`: an address in a sentence of prose ends with the sentence's
/// full stop after the postcode (India, South Africa).
#[test]
fn an_address_in_prose_ends_with_its_sentence() {
    assert_reads(&[
        (
            "https://sample.in/",
            "<p>Our office is at 12 Sample Road, Sample Nagar, Bengaluru 560038. Call us at 080 5555 0123.</p>",
            ["12 Sample Road, Sample Nagar", "Bengaluru", "560038"],
        ),
        (
            "https://sample.co.za/",
            "<p>Visit us at 12 Sample Street, Sampleton, Cape Town, 8002. We are open daily.</p>",
            ["12 Sample Street, Sampleton", "Cape Town", "8002"],
        ),
    ]);
}

/// Class `postcode.label_glued`: a postcode label between the street and the postcode on one
/// line, without a comma (`… Col. Centro C.P. 06010 Ciudad`), is no part of the street
/// (Mexico, Spain).
#[test]
fn a_postcode_label_is_no_part_of_the_street() {
    assert_reads(&[
        (
            "https://ejemplo.com.mx/",
            "<p>Av. Ejemplo #123 Col. Centro C.P. 06010 Ciudad de México</p>",
            ["Av. Ejemplo #123 Col. Centro", "Ciudad de México", "06010"],
        ),
        (
            "https://ejemplo.es/",
            "<p>Calle Ejemplo 12 C.P. 28010 Madrid</p>",
            ["Calle Ejemplo 12", "Madrid", "28010"],
        ),
    ]);
}

/// Negatives of the sentence end: a year or a count ending a sentence of prose is no postcode.
#[test]
fn a_number_ending_a_sentence_is_no_postcode() {
    for (url, html) in [
        (
            "https://sample.co.za/",
            "<p>Our team of 12 grew to 2004. Thanks to our clients in Cape Town.</p>",
        ),
        (
            "https://sample.in/",
            "<p>Over 12 years we served Bengaluru 560038. Prices from 4999 Rupees.</p>",
        ),
    ] {
        let streets: Vec<Option<String>> = page(url, html)
            .addresses
            .into_iter()
            .map(|a| a.street)
            .collect();
        assert!(streets.iter().all(Option::is_none), "{html}: {streets:?}");
    }
}

/// Class `amount.currency`: a number with a currency's name or abbreviation written after it
/// (`12345 Euro`, `10559 ευρώ`, `2500 Ft`, `2500 kr`, `75000 euros`) is an amount, not a postcode, even
/// when it has a postcode's digits and a street line stands above it.
#[test]
fn an_amount_with_its_currency_after_it_is_no_postcode() {
    let read = [
        (
            "https://beispiel.de/",
            "<p>Musterstraße 12</p><p>Preis ab 12345 Euro inklusive Montage</p>",
        ),
        (
            "https://deigma.gr/",
            "<p>Από το 1995 εξυπηρετούμε πελάτες</p><p>Τιμή 10559 Ευρώ</p>",
        ),
        (
            "https://minta.hu/",
            "<p>Minta utca 7.</p><p>Ár: 2500 Ft</p>",
        ),
        (
            "https://priklad.cz/",
            "<p>Vzorová 12</p><p>Cena od 45000 Kč</p>",
        ),
        (
            "https://eksempel.dk/",
            "<p>Eksempelvej 12</p><p>Pris 2500 kr inkl. moms</p>",
        ),
        (
            "https://exemple.fr/",
            "<p>12 rue de l'Exemple</p><p>Forfait 75000 euros HT</p>",
        ),
    ]
    .into_iter()
    .filter(|(url, html)| !parts(url, html).is_empty())
    .map(|(url, html)| format!("{url} {html}\n  read {:?}", parts(url, html)))
    .collect::<Vec<_>>();
    assert!(read.is_empty(), "{}", read.join("\n"));
}

/// Class `postcode.region_code_after_town`: in the layouts that print the region after the town
/// on the postcode line (Google's `fmt` `%Z %C %S`: Italy, Spain, Estonia, Lithuania, Uruguay),
/// a last word of two or three capitals is the province's code, not part of the locality
/// (`20121 Milano MI`), on Italian and English pages, and so is a province named like its
/// capital written after it (`50001 Zaragoza Zaragoza`); the postal districts of layouts
/// without it stay in the locality (Danish `2450 København SV`).
#[test]
fn a_province_code_after_the_town_is_no_part_of_the_locality() {
    assert_reads(&[
        (
            "https://esempio.it/",
            "<footer><p>Esempio S.r.l.<br>Via Garibaldi 14<br>20121 Milano MI</p></footer>",
            ["Via Garibaldi 14", "Milano", "20121"],
        ),
        (
            "https://esempio.it/",
            "<footer><p>Sede legale: Corso Italia 22, 50123 Firenze FI, Italia</p></footer>",
            ["Corso Italia 22", "Firenze", "50123"],
        ),
        (
            "https://esempio.it/en/",
            "<html lang=en><footer><p>Registered office: Via Roma 14, 00184 Rome RM, Italy</p>\
             </footer></html>",
            ["Via Roma 14", "Rome", "00184"],
        ),
        (
            "https://eksempel.dk/",
            "<footer><p>Eksempel ApS<br>Eksempelvej 12<br>2450 København SV</p></footer>",
            ["Eksempelvej 12", "København SV", "2450"],
        ),
        // A province named like its capital, written after it (Spain, Uruguay).
        (
            "https://ejemplo.es/",
            "<footer><p>Ejemplo S.L.<br>Calle Ejemplo 14<br>50001 Zaragoza Zaragoza</p></footer>",
            ["Calle Ejemplo 14", "Zaragoza", "50001"],
        ),
        (
            "https://muestra.com.uy/",
            "<footer><p>Muestra S.A.<br>Av. Muestra 1450<br>11000 Montevideo Montevideo</p>\
             </footer>",
            ["Av. Muestra 1450", "Montevideo", "11000"],
        ),
    ]);
}

/// Class `region.mark`: a region named with its mark (Irish `Co. Clare`, Romanian `jud. Cluj`,
/// Hungarian `Pest megye`, Ukrainian `Львівська область`) between the town and the postcode
/// or after the postcode is the region: the town is the place before it (Google's `%C%n%S`),
/// and the address does not end at it.
#[test]
fn a_region_named_with_its_mark_is_neither_the_town_nor_the_street() {
    assert_reads(&[
        (
            "https://sample.ie/",
            "<footer><p>Sample Ltd<br>14 Main Street<br>Kilkenny<br>Co. Kilkenny<br>R95 X2Y3</p>\
             </footer>",
            ["14 Main Street", "Kilkenny", "R95 X2Y3"],
        ),
        (
            "https://sample.ie/",
            "<footer><p>14 Main Street, Ennis, Co. Clare, V95 T2K3, Ireland</p></footer>",
            ["14 Main Street", "Ennis", "V95 T2K3"],
        ),
        (
            "https://exemplu.ro/",
            "<footer><p>Exemplu SRL, Str. Florilor nr. 14, Cluj-Napoca 400001, jud. Cluj</p>\
             </footer>",
            ["Str. Florilor nr. 14", "Cluj-Napoca", "400001"],
        ),
        (
            "https://exemplu.ro/",
            "<footer><p>Strada Morii 3<br>Sibiu 550003, județul Sibiu</p></footer>",
            ["Strada Morii 3", "Sibiu", "550003"],
        ),
        (
            "https://pryklad.ua/",
            "<footer><p>ТОВ «Приклад»<br>вул. Садова, 14<br>Львів<br>Львівська область<br>79000</p>\
             </footer>",
            ["вул. Садова, 14", "Львів", "79000"],
        ),
        (
            "https://exemplu.ro/",
            "<footer><p>Str. Florilor nr. 14, Cluj-Napoca, jud. Cluj, 400001</p></footer>",
            ["Str. Florilor nr. 14", "Cluj-Napoca", "400001"],
        ),
        (
            "https://przyklad.pl/",
            "<footer><p>ul. Lipowa 14<br>31-001 Kraków, woj. małopolskie</p></footer>",
            ["ul. Lipowa 14", "Kraków", "31-001"],
        ),
        (
            "https://minta.hu/",
            "<footer><p>Minta Kft.<br>Fő utca 14.<br>Szentendre 2000, Pest megye</p></footer>",
            ["Fő utca 14", "Szentendre", "2000"],
        ),
    ]);
}

/// Class `region.mark` with a field after it: a region named with its mark after the postcode
/// ends the address at a field separator (`·`, `|`, `•`, `;`) as at a comma, where a phone or
/// another field follows on the same line (Romanian, Irish, Polish, Hungarian).
#[test]
fn a_region_named_with_its_mark_ends_at_a_field_separator() {
    assert_reads(&[
        (
            "https://exemplu.ro/",
            "<footer><p>Exemplu SRL · Str. Florilor nr. 14, Cluj-Napoca 400001, jud. Cluj · \
             Tel. 0264 000 000</p></footer>",
            ["Str. Florilor nr. 14", "Cluj-Napoca", "400001"],
        ),
        (
            "https://sample.ie/",
            "<footer><p>Sample Ltd | 14 Main Street, Ennis V95 T2K3, Co. Clare | Tel 065 000 \
             0000</p></footer>",
            ["14 Main Street", "Ennis", "V95 T2K3"],
        ),
        (
            "https://przyklad.pl/",
            "<footer><p>ul. Lipowa 14, 31-001 Kraków, woj. małopolskie • tel. 12 000 00 00</p>\
             </footer>",
            ["ul. Lipowa 14", "Kraków", "31-001"],
        ),
        (
            "https://minta.hu/",
            "<footer><p>Fő utca 14, Szentendre 2000, Pest megye; Tel.: 26 000 000</p></footer>",
            ["Fő utca 14", "Szentendre", "2000"],
        ),
    ]);
}

/// Class `postcode.in_parentheses`: a postcode printed in parentheses before the town (the
/// Argentine way, `(B1846) Adrogué`, `(1846) Adrogué`) or after it (`Rouen (76000)`) is read
/// as the postcode; a number in parentheses before a word that is no town (`(2019)`, an area
/// code `(011) 4000-0000`) is not.
#[test]
fn a_postcode_in_parentheses_is_the_postcode() {
    assert_reads(&[
        (
            "https://ejemplo.com.ar/",
            "<footer><p>Estudio Ejemplo · Av. Ejemplo 1234, (B1846) Adrogué, Buenos Aires · \
             Tel. 011 4000-0000</p></footer>",
            ["Av. Ejemplo 1234", "Adrogué", "B1846"],
        ),
        (
            "https://ejemplo.com.ar/",
            "<footer><p>Av. Ejemplo 1234<br>(1846) Adrogué, Buenos Aires</p></footer>",
            ["Av. Ejemplo 1234", "Adrogué", "1846"],
        ),
        (
            "https://exemple.fr/",
            "<footer><p>Exemple SARL · 12 rue des Lilas, Rouen (76000)</p></footer>",
            ["12 rue des Lilas", "Rouen", "76000"],
        ),
    ]);
    for html in [
        "<footer><p>Sample Awards (2019) Winners announced</p></footer>",
        "<footer><p>Av. Ejemplo 1234 · Tel. (011) 4000-0000</p></footer>",
    ] {
        assert_eq!(
            parts("https://ejemplo.com.ar/", html),
            Vec::<[Option<String>; 3]>::new(),
            "{html}"
        );
    }
}

/// The lexicon's `street.type` entries from libpostal's dictionaries: street types of Spanish
/// (Colombia's `Carrera`, `Cra.`) and Hebrew (`רחוב`) make a labelled
/// street without a postcode an address, where the country prints none or the page leaves it
/// out (and Hebrew's address label `כתובת`).
#[test]
fn street_types_of_more_languages_make_a_labelled_street() {
    assert_reads(&[
        (
            "https://muestra.com.co/",
            "<footer><p>Dirección: Carrera 7 # 71-21, Oficina 502, Bogotá</p></footer>",
            ["Carrera 7 # 71-21, Oficina 502", "Bogotá", ""],
        ),
        (
            "https://muestra.com.co/",
            "<footer><p>Dirección: Cra. 43A #1 Sur-100, Medellín, Colombia</p></footer>",
            ["Cra. 43A #1 Sur-100", "Medellín", ""],
        ),
        (
            "https://dugma.co.il/",
            "<footer><p>כתובת: רחוב הרצל 14, תל אביב</p></footer>",
            ["רחוב הרצל 14", "תל אביב", ""],
        ),
    ]);
}

/// Class `street.number_after_comma`: under an address label, a street whose house number
/// stands in the next comma-separated part (`Travessa das Flores, 45`, `Calle Mayor, 5`) is
/// the address, where the country prints no postcode (Angola, Panama).
#[test]
fn a_house_number_after_a_comma_completes_a_labelled_street() {
    assert_reads(&[
        (
            "https://exemplo.co.ao/",
            "<footer><p>Endereço: Travessa das Flores, 45, Luanda</p></footer>",
            ["Travessa das Flores, 45", "Luanda", ""],
        ),
        (
            "https://muestra.com.pa/",
            "<footer><p>Dirección: Calle Mayor, 5, Ciudad de Panamá</p></footer>",
            ["Calle Mayor, 5", "Ciudad de Panamá", ""],
        ),
        (
            "https://muestra.com.pa/",
            "<main><h2>Dirección</h2><p>Avenida Central, 12<br>Colón</p></main>",
            ["Avenida Central, 12", "Colón", ""],
        ),
        (
            "https://exemplu.ro/",
            "<footer><p>Adresa: Strada Morii, 3, Bacău</p></footer>",
            ["Strada Morii, 3", "Bacău", ""],
        ),
    ]);
}

/// Class `address.numbered_premise`: under an address label, a street without a house number
/// after a numbered premise or unit (the Gulf's and East Africa's way: `Office 1401, Sample
/// Tower, Sample Road`, `Sample Plaza, 2nd Floor, Sample Road`) is the address; the number is
/// the premise's. A street without any number under a label stays unread.
#[test]
fn a_numbered_premise_gives_a_labelled_street_its_number() {
    assert_reads(&[
        (
            "https://sample.ae/",
            "<footer><p>Address: Office 1401, Sample Tower, Sheikh Sample Road, Dubai, UAE</p>\
             </footer>",
            ["Office 1401, Sample Tower, Sheikh Sample Road", "Dubai", ""],
        ),
        (
            "https://sample.co.ke/",
            "<footer><p>Location: Sample Plaza, 2nd Floor, Sample Road, Nairobi</p></footer>",
            ["Sample Plaza, 2nd Floor, Sample Road", "Nairobi", ""],
        ),
    ]);
    let unread = parts(
        "https://sample.ae/",
        "<footer><p>Address: Sample Tower, Sheikh Sample Road, Dubai, UAE</p></footer>",
    );
    assert!(unread.is_empty(), "{unread:?}");
}

/// Class `address.premise` after the house number of a street written after its town
/// (Hungarian `1052 Budapest, Minta utca 7. 2. emelet`, Romanian `Str. Florilor nr. 14 bl. A2
/// sc. B`): the floor, staircase or block is part of the street, and the address is read.
#[test]
fn a_premise_after_the_house_number_of_a_street_after_its_town() {
    assert_reads(&[
        (
            "https://minta.hu/",
            "<footer><p>Cím: 6720 Szeged, Minta utca 5. 2. emelet</p></footer>",
            ["Minta utca 5. 2. emelet", "Szeged", "6720"],
        ),
        (
            "https://minta.hu/",
            "<footer><p>6720 Szeged, Minta utca 5. földszint</p></footer>",
            ["Minta utca 5. földszint", "Szeged", "6720"],
        ),
        (
            "https://exemplu.ro/",
            "<footer><p>Adresa: 400001 Cluj-Napoca, Str. Florilor nr. 14 bl. A2 sc. B</p></footer>",
            ["Str. Florilor nr. 14 bl. A2 sc. B", "Cluj-Napoca", "400001"],
        ),
    ]);
}

/// (street, locality, postcode) of every address found on each page; every page that does
/// not read as `want` is listed in the failure.
fn assert_reads_all(cases: &[(&str, &str, &[[&str; 3]])]) {
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(url, html, want)| {
            let got = parts(url, html);
            let want: Vec<_> = want.iter().map(|w| some(*w)).collect();
            (got != want).then(|| format!("{html}\n  read {got:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Class `address.complete_line_above`: a line that ends with its own postcode and town is a
/// whole address, so the street of the next address never reaches above it, also when that
/// street is a post-office box with its post office's name (`Postboks 123 Sentrum`, `P.O.
/// Box 123 Sarit`) that reads as no street of its own.
#[test]
fn a_line_with_its_own_postcode_and_town_is_no_part_of_the_next_street() {
    let cases: [(&str, &str, &[[&str; 3]]); 4] = [
        (
            "https://www.eksempel.no/",
            "<p>Besøksadresse: Prøvevegen 12, 0150 Oslo</p>\
             <p>Postadresse: Postboks 123 Sentrum, 0102 Oslo</p>",
            &[
                ["Prøvevegen 12", "Oslo", "0150"],
                ["Postboks 123 Sentrum", "Oslo", "0102"],
            ],
        ),
        (
            "https://www.eksempel.no/",
            "<p>Prøvevegen 12, 7010 Trondheim</p><p>Postboks 45 Torget<br>7400 Trondheim</p>",
            &[
                ["Prøvevegen 12", "Trondheim", "7010"],
                ["Postboks 45 Torget", "Trondheim", "7400"],
            ],
        ),
        (
            "https://www.sample.co.ke/",
            "<p>Sample House, 12 Example Road, Westlands, 00100 Nairobi</p>\
             <p>P.O. Box 123 Sarit, 00606 Nairobi</p>",
            &[
                [
                    "Sample House, 12 Example Road, Westlands",
                    "Nairobi",
                    "00100",
                ],
                ["P.O. Box 123 Sarit", "Nairobi", "00606"],
            ],
        ),
        (
            "https://www.exempel.se/",
            "<p>Provgatan 3, 411 05 Göteborg</p><p>Box 678 Centrum, 401 23 Göteborg</p>",
            &[
                ["Provgatan 3", "Göteborg", "411 05"],
                ["Box 678 Centrum", "Göteborg", "401 23"],
            ],
        ),
    ];
    assert_reads_all(&cases);
}

/// Class `address.complete_line_above`, negatives: a street line without a comma whose house
/// number has four digits (`2204 Sample Ave` over `Town, ST 81321`), and a unit with a long
/// number after the street (`…, Suite 12101`), are no whole address: the street below reaches
/// them as before.
#[test]
fn a_long_house_number_or_unit_number_is_no_postcode_of_a_line_above() {
    let cases: [(&str, &str, &[[&str; 3]]); 2] = [
        (
            "https://www.sample-insurance.com/",
            "<h3>Valley Office</h3><p>2204 E. Sample<br>Springdale, CO 81321<br>Phone: 970-555-0134</p>",
            &[["2204 E. Sample", "Springdale", "81321"]],
        ),
        (
            "https://www.sample-insurance.com/",
            "<p>4801 N. Example Ave, Suite 12101<br>Brookfield, NM 87401</p>",
            &[["4801 N. Example Ave, Suite 12101", "Brookfield", "87401"]],
        ),
    ];
    assert_reads_all(&cases);
}

/// Class `postcode.dash_before_town`: in the layouts that print the postcode before the town,
/// Italian and Spanish pages often set the town off with a dash (`00184 - Roma`, `28013 –
/// Madrid`), on the postcode's own line or after the street and a separator.
#[test]
fn a_dash_between_the_postcode_and_the_town() {
    assert_reads(&[
        (
            "https://www.esempio.it/",
            "<p>Via Campione 14<br>00184 - Roma</p>",
            ["Via Campione 14", "Roma", "00184"],
        ),
        (
            "https://www.esempio.it/",
            "<p>Via Campione, 14, 20121 – Milano</p>",
            ["Via Campione, 14", "Milano", "20121"],
        ),
        (
            "https://www.esempio.it/",
            "<p>Via Campione 14 - I-50123 - Firenze</p>",
            ["Via Campione 14", "Firenze", "50123"],
        ),
        (
            "https://www.ejemplo.es/",
            "<p>Calle Muestra 5<br>28013 - Madrid</p>",
            ["Calle Muestra 5", "Madrid", "28013"],
        ),
        (
            "https://www.ejemplo.es/",
            "<p>Avenida Ejemplo, 22 – 46001 – Valencia</p>",
            ["Avenida Ejemplo, 22", "Valencia", "46001"],
        ),
    ]);
}

/// Class `postcode.dash_before_town`, negatives: a date range with a weekday after the dash
/// (`Friday 20 February 2015 – Sunday …`), on pages of regions whose four-digit postcodes
/// come first (a year is one of their postcodes), is no address.
#[test]
fn a_year_and_a_dash_in_a_date_range_is_no_postcode() {
    for url in ["https://www.beispiel.ch/", "https://www.eksempel.dk/"] {
        let found = parts(
            url,
            "<p>Past concerts</p><p>Friday 20 February 2015 – Sunday 22 February 2015</p>",
        );
        assert!(found.is_empty(), "{url}: {found:?}");
    }
}

/// Class `address.place_line`: in the layouts without a district line, a place line (a
/// hamlet, `Località …`, `Frazione …`, an industrial estate) between a street with its street
/// word and house number and the postcode line is neither street nor town.
#[test]
fn a_place_line_between_a_numbered_street_and_the_postcode_line() {
    assert_reads(&[
        (
            "https://www.esempio.it/",
            "<p>Campione Srl<br>Via Campione 14<br>Località Sample<br>00184 Roma (RM)</p>",
            ["Via Campione 14", "Roma", "00184"],
        ),
        (
            "https://www.esempio.it/",
            "<p>Via Campione, 14<br>Frazione Sample<br>12345 Sampleto</p>",
            ["Via Campione, 14", "Sampleto", "12345"],
        ),
        (
            "https://www.beispiel.de/",
            "<p>Musterstraße 12<br>Gewerbegebiet Nord<br>12345 Musterstadt</p>",
            ["Musterstraße 12", "Musterstadt", "12345"],
        ),
    ]);
}

/// Class `address.place_line`, negatives: a line with a number but no street word above the
/// place line (`Aperti dal 1998`, `Seit 1998 für Sie da`) is no street.
#[test]
fn a_place_line_needs_a_named_numbered_street_above_it() {
    for (url, html) in [
        (
            "https://www.esempio.it/",
            "<p>Aperti dal 1998<br>Sede Operativa<br>00184 Roma</p>",
        ),
        (
            "https://www.beispiel.de/",
            "<p>Seit 1998 für Sie da<br>Filiale Nord<br>12345 Musterstadt</p>",
        ),
    ] {
        let streets: Vec<Option<String>> = page(url, html)
            .addresses
            .into_iter()
            .map(|a| a.street)
            .collect();
        assert!(streets.iter().all(Option::is_none), "{html}: {streets:?}");
    }
}

/// Class `postcode.eircode_after_county`: an Eircode after an Irish county or Dublin postal
/// district names the country, so it is read on pages of no region too (a `.com` site in
/// Ireland); and class `postcode.label`: an `Eircode:` label before it is no part of the town.
#[test]
fn an_eircode_after_its_county_on_pages_of_no_region() {
    let mut cases = Vec::new();
    for url in ["https://www.sample.ie/", "https://www.sample-builders.com/"] {
        cases.extend([
            (
                url,
                "<p>12 Sample Street, Ennis, Co. Clare, V95 K7P3</p>",
                ["12 Sample Street", "Ennis", "V95 K7P3"],
            ),
            (
                url,
                "<p>Unit 5, Sample Business Park, Ballycoolin, Dublin 15, D15 X2F4</p>",
                [
                    "Unit 5, Sample Business Park, Ballycoolin",
                    "Dublin 15",
                    "D15 X2F4",
                ],
            ),
            (
                url,
                "<p>12 Sample Street, Ennis, Co. Clare. Eircode: V95 K7P3</p>",
                ["12 Sample Street", "Ennis", "V95 K7P3"],
            ),
        ]);
    }
    assert_reads(&cases);
}

/// Class `postcode.eircode_after_county`, negatives: on a page of no region an Eircode-shaped
/// code without a county or district before it (an order reference, a product code) is no
/// postcode.
#[test]
fn an_eircode_shape_without_a_county_is_no_postcode_on_pages_of_no_region() {
    for html in [
        "<p>Order reference A65 F4E2 has shipped.</p>",
        "<p>12 Sample Street, Ennis, V95 K7P3</p>",
    ] {
        let found = parts("https://www.sample-builders.com/", html);
        assert!(found.is_empty(), "{html}: {found:?}");
    }
}

/// Class `street.type` abbreviated with an apostrophe or a Hebrew geresh (`רח'`, `רח׳` for
/// `רחוב`; `שד'` for `שדרות`): the mark is no part of the word, as a dot is not (`Str.`), so
/// a labelled street without a postcode reads.
#[test]
fn a_street_type_abbreviated_with_an_apostrophe_or_a_geresh() {
    assert_reads(&[
        (
            "https://www.dugma.co.il/",
            "<p>כתובת: רח' הדוגמה 12, חיפה</p>",
            ["רח' הדוגמה 12", "חיפה", ""],
        ),
        (
            "https://www.dugma.co.il/",
            "<p>כתובת: רח׳ הדוגמה 12, חיפה</p>",
            ["רח׳ הדוגמה 12", "חיפה", ""],
        ),
        (
            "https://www.dugma.co.il/",
            "<p>כתובת: שד' הדוגמה 7, באר שבע</p>",
            ["שד' הדוגמה 7", "באר שבע", ""],
        ),
    ]);
}

/// Class `address.unit_not_label`: `Office` is an address label (`Office: 12 High Street`) and
/// a unit word; with its number alone before a comma, or on its own line above the street,
/// it is the unit, part of the street (`Office 4, Sample House, …` read `4, Sample House, …`
/// or `Sample House, …`).
#[test]
fn an_office_with_its_number_is_a_unit_not_a_label() {
    assert_reads(&[
        (
            "https://www.sample.co.uk/",
            "<p>Office 4, Sample House, 12 High Street, Sampletown SA1 1AA</p>",
            [
                "Office 4, Sample House, 12 High Street",
                "Sampletown",
                "SA1 1AA",
            ],
        ),
        (
            "https://www.sample.co.ke/",
            "<p>Office 12, Sample Plaza, Westlands, 00100 Nairobi</p>",
            ["Office 12, Sample Plaza, Westlands", "Nairobi", "00100"],
        ),
        (
            "https://www.sample.in/",
            "<p>Office No. 301, Sample Tower, Andheri East, Mumbai, Maharashtra 400069</p>",
            [
                "Office No. 301, Sample Tower, Andheri East",
                "Mumbai",
                "400069",
            ],
        ),
        (
            "https://www.sample.com.au/",
            "<p>Sample Pty Ltd<br>Office 3<br>12 Sample Street<br>Sampleton NSW 2000</p>",
            ["Office 3, 12 Sample Street", "Sampleton", "2000"],
        ),
    ]);
}

/// Class `address.unit_not_label`, negatives: `Office` as a label glued before the street
/// (`Office 12 High Street`), and `Head Office` or `Registered Office` heading the lines,
/// are no part of the street.
#[test]
fn an_office_label_or_heading_is_no_unit() {
    assert_reads(&[
        (
            "https://www.sample.co.uk/",
            "<p>Office 12 High Street, Sampletown SA1 1AA</p>",
            ["12 High Street", "Sampletown", "SA1 1AA"],
        ),
        (
            "https://www.sample.co.uk/",
            "<p>Head Office<br>12 High Street<br>Sampletown SA1 1AA</p>",
            ["12 High Street", "Sampletown", "SA1 1AA"],
        ),
        (
            "https://www.sample.co.uk/",
            "<p>Registered Office<br>12 High Street, Sampletown SA1 1AA</p>",
            ["12 High Street", "Sampletown", "SA1 1AA"],
        ),
    ]);
}

/// Class `postcode.town_line_above_street`: in the countries that print the postcode first,
/// a line of the postcode and town alone may stand above the street line (Hungarian,
/// Bulgarian and Russian cards); before, nothing was read.
#[test]
fn the_postcode_and_town_line_above_the_street_line() {
    assert_reads(&[
        (
            "https://minta.hu/",
            "<p>Minta Kft.</p><p>1011 Budapest<br>Minta utca 12.</p>",
            ["Minta utca 12", "Budapest", "1011"],
        ),
        (
            "https://primer.bg/",
            "<p>Пример ЕООД</p><p>1000 София<br>ул. Примерна 12</p>",
            ["ул. Примерна 12", "София", "1000"],
        ),
        (
            "https://primer.ru/",
            "<p>ООО Пример</p><p>123456, г. Москва,<br>ул. Примерная, д. 12</p>",
            ["ул. Примерная, д. 12", "Москва", "123456"],
        ),
    ]);
}

/// Class `postcode.town_line_above_street`, negatives: in a list of addresses printed street
/// first, a street stays with the town line below it, not the one above; a postcode line
/// above prose or a count is no address.
#[test]
fn a_street_below_a_town_line_that_has_its_own_town_below_it_stays_there() {
    assert_reads(&[(
        "https://minta.hu/",
        "<p>1011 Budapest<br>Minta utca 12.<br>1012 Budapest</p>",
        ["Minta utca 12", "Budapest", "1012"],
    )]);
    for (url, html) in [
        (
            "https://minta.hu/",
            "<p>1011 Budapest<br>Nyitva tartás hétfőtől péntekig</p>",
        ),
        (
            "https://primer.bg/",
            "<p>1000 София<br>Над 1200 клиенти</p>",
        ),
    ] {
        assert_eq!(
            parts(url, html),
            Vec::<[Option<String>; 3]>::new(),
            "{html}"
        );
    }
}

/// Class `address.premise`: the block, staircase, entrance, floor and flat chunks after a
/// Romanian or Bulgarian street (`bl. A2, sc. 1, ap. 5`; `бл. 5, вх. А, ет. 3, ап. 7`) are
/// not counted in the street's length; with four of them, nothing was read.
#[test]
fn block_staircase_floor_and_flat_chunks_after_the_street() {
    assert_reads(&[
        (
            "https://exemplu.ro/",
            "<p>Adresa: Strada Exemplu 12, bl. A2, sc. 1, ap. 5, București 030167</p>",
            [
                "Strada Exemplu 12, bl. A2, sc. 1, ap. 5",
                "București",
                "030167",
            ],
        ),
        (
            "https://primer.bg/",
            "<p>Адрес: ул. Примерна 12, бл. 5, вх. А, ет. 3, ап. 7, 1000 София</p>",
            [
                "ул. Примерна 12, бл. 5, вх. А, ет. 3, ап. 7",
                "София",
                "1000",
            ],
        ),
    ]);
}

/// Class `address.premise`, negatives: chunks after the street that hold no premise word
/// still count, so a street followed by a description of where it is (more than eight words)
/// is no street.
#[test]
fn chunks_without_a_premise_word_count_in_the_street() {
    for (url, html) in [
        (
            "https://exemplu.ro/",
            "<p>Strada Exemplu nr. 12, aproape de gara de nord din oraș, București 030167</p>",
        ),
        (
            "https://primer.bg/",
            "<p>ул. Примерна 12, до голямата гара в центъра на града, 1000 София</p>",
        ),
    ] {
        assert_eq!(
            parts(url, html),
            Vec::<[Option<String>; 3]>::new(),
            "{html}"
        );
    }
}

/// Class `region.printed_country`: on a host without a country-code domain, a country's name
/// ending an address line decides the page's country, so the postcode is read with that
/// country's format; before, the language's main country was tried and nothing was read.
#[test]
fn a_country_ending_the_address_line_decides_a_dot_com_page() {
    assert_reads(&[
        (
            "https://sample.com/",
            "<p>Av. Ejemplo 123, Miraflores 15074, Lima, Perú</p>",
            ["Av. Ejemplo 123", "Miraflores", "15074"],
        ),
        (
            "https://sample.com/",
            "<p>Strada Exemplu 12, 030167 Bucharest, Romania</p>",
            ["Strada Exemplu 12", "Bucharest", "030167"],
        ),
    ]);
}

/// Class `region.printed_country`, negatives: a paragraph that lists places and ends with a
/// country is no address line, and a country after words with no number is no address: neither
/// names the page's country.
#[test]
fn a_paragraph_or_a_list_of_countries_decides_no_country() {
    for html in [
        "<html lang=en><body><p>The cable runs 21 kilometres from the coast, past ports in \
         several countries on the way north and west, reaching landing stations at the edge of \
         the sea in Portugal, France, Belgium and finally, Germany.</p></body></html>",
        "<html lang=en><body><p>We ship to Austria, Belgium, Germany</p></body></html>",
    ] {
        let page = page("https://sample.com/", html);
        let decided = page.region.ballot.decide().region;
        assert!(
            !page
                .region
                .ballot
                .regions()
                .iter()
                .any(|r| matches!(*r, "DE" | "AT" | "BE")),
            "{html}: {decided:?}"
        );
    }
}

/// Class `address.grid_street`: a street whose numbers are set apart by marks or words (the
/// Colombian `Calle 100 # 15-20`, the street and then the crossing street's number and the
/// distance from it; a Chilean street with its office number `Av. Ejemplo 3000 Of. 1201`)
/// has as many digits as a phone, but in no phone's group; before, seven digits or more made
/// any street chunk a phone.
#[test]
fn a_street_with_as_many_digits_as_a_phone_in_separate_numbers() {
    assert_reads(&[
        (
            "https://sample.com.co/",
            "<p>Calle 100 # 15-20, Bogotá, Colombia</p>",
            ["Calle 100 # 15-20", "Bogotá", ""],
        ),
        (
            "https://sample.com.co/",
            "<p>Cra. 15 # 100-20, Medellín, Colombia</p>",
            ["Cra. 15 # 100-20", "Medellín", ""],
        ),
        (
            "https://ejemplo.cl/",
            "<p>Av. Ejemplo 3000 Oficina 1201, Providencia, Santiago, Chile</p>",
            ["Av. Ejemplo 3000 Oficina 1201, Providencia", "Santiago", ""],
        ),
    ]);
}

/// Class `address.grid_street`, negative: a phone number grouped by spaces or dashes beside a
/// street word is still a phone, not a street.
#[test]
fn a_phone_grouped_after_a_street_word_is_no_street() {
    for html in [
        "<p>Dirección: Calle 10 601 234 5678, Bogotá, Colombia</p>",
        "<p>Dirección: Carrera 7 601-234-5678, Bogotá, Colombia</p>",
    ] {
        let found = parts("https://sample.com.co/", html);
        assert!(
            found
                .iter()
                .all(|p| p[0].as_deref().is_none_or(|street| !street.contains("234"))),
            "{html}: {found:?}"
        );
    }
}

/// Class `label.postcode` in Hebrew, Romanian and French (`מיקוד`, `cod poștal`, `code
/// postal`): the label before the postcode is no part of the town, and the town no part of
/// the street; before, the Hebrew label was read as the town and the Romanian and French
/// lines as nothing.
#[test]
fn postcode_labels_in_hebrew_romanian_and_french() {
    assert_reads(&[
        (
            "https://sample.co.il/",
            "<p>רח׳ הדוגמה 12, תל אביב-יפו, מיקוד 6100000</p>",
            ["רח׳ הדוגמה 12", "תל אביב-יפו", "6100000"],
        ),
        (
            "https://exemplu.ro/",
            "<p>Strada Exemplu 12, București, cod poștal 030167</p>",
            ["Strada Exemplu 12", "București", "030167"],
        ),
        (
            "https://exemple.fr/",
            "<p>12 rue Exemple, Paris, code postal 75002</p>",
            ["12 rue Exemple", "Paris", "75002"],
        ),
    ]);
}

/// Class `address.state_line_below_town`: a postcode line that holds a state and the postcode
/// alone, the town ending the line above (Indian, Brazilian cards): the town is the locality
/// and the state the region; before, the state was read as the town and the town glued to
/// the street.
#[test]
fn a_state_and_postcode_line_below_the_town() {
    assert_reads(&[
        (
            "https://sample.in/",
            "<p>Shop No. 5, Sample Complex,<br>MG Road, Bengaluru,<br>Karnataka - 560001</p>",
            ["Shop No. 5, Sample Complex, MG Road", "Bengaluru", "560001"],
        ),
        (
            "https://sample.in/",
            "<p>12 Sample Road, Sample Nagar<br>Pune<br>Maharashtra 411001</p>",
            ["12 Sample Road, Sample Nagar", "Pune", "411001"],
        ),
        (
            "https://sample.com.br/",
            "<p>Rua Exemplo, 123<br>São Paulo<br>SP 01001-000</p>",
            ["Rua Exemplo, 123", "São Paulo", "01001-000"],
        ),
    ]);
}

/// Class `address.state_line_below_town`, negative: a town and postcode line (no state) keeps
/// its town, with the street above it.
#[test]
fn a_town_and_postcode_line_keeps_its_town() {
    assert_reads(&[
        (
            "https://sample.in/",
            "<p>12 Sample Road, Sample Nagar<br>Pune 411001</p>",
            ["12 Sample Road, Sample Nagar", "Pune", "411001"],
        ),
        (
            "https://sample.com.br/",
            "<p>Rua Exemplo, 123<br>Centro<br>Curitiba 80020-310</p>",
            ["Rua Exemplo, 123", "Curitiba", "80020-310"],
        ),
    ]);
}

/// Class `text.glued_numbers`: the street and the postcode line written as two elements with
/// nothing between them (`<span>…12</span><span>0150 Oslo</span>`, set out as two lines by
/// the page's style) are read apart; before, the house number and the postcode were one
/// number and nothing was read.
#[test]
fn a_street_and_postcode_in_elements_with_nothing_between_them() {
    assert_reads(&[
        (
            "https://sample.no/",
            "<div><span>Eksempelveien 12</span><span>0150 Oslo</span></div>",
            ["Eksempelveien 12", "Oslo", "0150"],
        ),
        (
            "https://sample.se/",
            "<p><span>Exempelgatan 12</span><span>111 22 Stockholm</span></p>",
            ["Exempelgatan 12", "Stockholm", "111 22"],
        ),
        (
            "https://sample.es/",
            "<div><span>Calle Mayor 12</span><span>28013 Madrid</span></div>",
            ["Calle Mayor 12", "Madrid", "28013"],
        ),
    ]);
}

/// Class `address.floor_and_door`: a floor written with an ordinal's mark and a door letter
/// after the house number (`2º B`, `5° B`) ends a street as `2o B` does; before, a street
/// without a street word (`Mayor 12`, `C/ Mayor 12`) followed by one read nothing.
#[test]
fn a_floor_with_an_ordinal_mark_and_a_door_after_the_house_number() {
    assert_reads(&[
        (
            "https://ejemplo.es/",
            "<p>C/ Mayor 12, 2º B, 28013 Madrid</p>",
            ["C/ Mayor 12, 2º B", "Madrid", "28013"],
        ),
        (
            "https://exemple.cat/",
            "<html lang=ca><p>Major 12, 2º B, 08001 Barcelona</p></html>",
            ["Major 12, 2º B", "Barcelona", "08001"],
        ),
        (
            "https://ejemplo.com.uy/",
            "<p>Ejemplo 1234, 5° B, 11000 Montevideo</p>",
            ["Ejemplo 1234, 5° B", "Montevideo", "11000"],
        ),
    ]);
}

/// Class `address.marked_unit`: a suite number marked with `#` printed before the house
/// number on the postcode line (`#200 - 1234 Sample Street`, the Canadian way, in English and
/// in French; also after the business's name) is part of the street; before, it was cut off
/// as if it were the name before the street.
#[test]
fn a_unit_marked_with_a_hash_before_the_house_number() {
    assert_reads(&[
        (
            "https://sample.ca/",
            "<p>#200 - 1234 Sample Street, Kelowna, BC V1Y 1A1</p>",
            ["#200 - 1234 Sample Street", "Kelowna", "V1Y 1A1"],
        ),
        (
            "https://exemple.ca/",
            "<html lang=fr><p>#5 - 1234 rue Exemple, Montréal (Québec) H2X 1Y4</p></html>",
            ["#5 - 1234 rue Exemple", "Montréal", "H2X 1Y4"],
        ),
        (
            "https://sample.com/",
            "<p>Sample Dental #310 1234 Sample Avenue, Seattle, WA 98101</p>",
            ["#310 1234 Sample Avenue", "Seattle", "98101"],
        ),
    ]);
}

/// Class `address.marked_unit`, negative: a business's name before the house number without
/// a marked unit is still left out of the street.
#[test]
fn a_name_before_the_house_number_without_a_marked_unit_is_left_out() {
    assert_reads(&[(
        "https://sample.ca/",
        "<p>Sample Clinic 1234 Sample Street, Kelowna, BC V1Y 1A1</p>",
        ["1234 Sample Street", "Kelowna", "V1Y 1A1"],
    )]);
}

/// Class `address.district_line` with a premise first: a street line that opens with a
/// premise or unit (`Level 3, 12 Sample Street`, `Sala 5, Rua Sete, 77`) above a suburb or
/// bairro line, in the layouts that print one (Google's `%D`), is the street, and the town is
/// the locality line's alone; before, the suburb was glued to the town (New Zealand) or
/// nothing was read (Brazil).
#[test]
fn a_street_line_opening_with_a_premise_above_a_district_line() {
    assert_reads(&[
        (
            "https://sample.co.nz/",
            "<p>Level 3, 12 Sample Street<br>Mount Eden<br>Auckland 1024</p>",
            ["Level 3, 12 Sample Street", "Auckland", "1024"],
        ),
        (
            "https://exemplo.com.br/",
            "<html lang=pt><p>Sala 5, Rua Sete, 77<br>Jardim América<br>Passo Fundo - RS<br>\
             99025-030</p></html>",
            ["Sala 5, Rua Sete, 77", "Passo Fundo", "99025-030"],
        ),
    ]);
}

/// Class `address.numbered_premise` with a named building: under an address label, a
/// numbered unit, then a building named with an address word (`Sample Building`, `Sample
/// House`), then the street without a number: the street is all three and the town follows;
/// before, the building was read as the street, the street was dropped and the town with it.
#[test]
fn a_numbered_unit_and_a_named_building_before_a_labelled_street() {
    assert_reads(&[
        (
            "https://sample.ae/",
            "<footer><p>Address: Shop 5, Al Sample Building, Al Sample Street, Dubai, UAE</p>\
             </footer>",
            ["Shop 5, Al Sample Building, Al Sample Street", "Dubai", ""],
        ),
        (
            "https://sample.co.ke/",
            "<footer><p>Location: Office 5, Sample House, Sample Road, Nairobi</p></footer>",
            ["Office 5, Sample House, Sample Road", "Nairobi", ""],
        ),
    ]);
}

/// Class `address.door`: a door written as a word after the floor (`3º izq.`, `3r esq.`: left,
/// right) ends a street as a door letter does; before, a street without a street word (`C/
/// Mayor 12`) followed by one read nothing, in Spanish and in Catalan.
#[test]
fn a_floor_with_a_door_word_after_the_house_number() {
    assert_reads(&[
        (
            "https://ejemplo.es/",
            "<html lang=es><p>C/ Mayor 12, 3º izq., 28013 Madrid</p></html>",
            ["C/ Mayor 12, 3º izq.", "Madrid", "28013"],
        ),
        (
            "https://exemple.cat/",
            "<html lang=ca><p>C/ Major 12, 3r esq., 08001 Barcelona</p></html>",
            ["C/ Major 12, 3r esq.", "Barcelona", "08001"],
        ),
    ]);
}

/// Class `address.list_on_one_line`: branches written on one line between field separators
/// (`Street 1, 12345 Town | Street 2, 23456 Town | …`) are all read; before, the line was read
/// as one address's fields and only the last address was kept (German, British, French).
#[test]
fn several_addresses_on_one_line_between_separators() {
    assert_reads_all(&[
        (
            "https://sample.de/",
            "<html lang=de><p>Musterstraße 12, 10115 Berlin | Beispielweg 5, 80331 München | \
             Testallee 3, 20095 Hamburg</p></html>",
            &[
                ["Musterstraße 12", "Berlin", "10115"],
                ["Beispielweg 5", "München", "80331"],
                ["Testallee 3", "Hamburg", "20095"],
            ],
        ),
        (
            "https://sample.co.uk/",
            "<p>12 Sample Street, London W1A 1AA • 5 Example Road, Leeds LS1 1AA • 3 Test Lane, \
             Bristol BS1 1AA</p>",
            &[
                ["12 Sample Street", "London", "W1A 1AA"],
                ["5 Example Road", "Leeds", "LS1 1AA"],
                ["3 Test Lane", "Bristol", "BS1 1AA"],
            ],
        ),
        (
            "https://exemple.fr/",
            "<html lang=fr><p>12 rue Exemple, 75001 Paris · 5 rue Modèle, 69001 Lyon · 3 rue \
             Test, 13001 Marseille</p></html>",
            &[
                ["12 rue Exemple", "Paris", "75001"],
                ["5 rue Modèle", "Lyon", "69001"],
                ["3 rue Test", "Marseille", "13001"],
            ],
        ),
    ]);
}

/// Class `address.list_on_one_line`, negative: one address written as a line of fields is
/// still read field by field (the premise and the street together, the town its own field).
#[test]
fn one_address_as_a_line_of_fields_is_read_field_by_field() {
    assert_reads_all(&[(
        "https://sample.co.uk/",
        "<p>Sample Ltd | Unit 3 Mill House | 12 Quay Street | Seabridge | EX1 9ZZ</p>",
        &[["Unit 3 Mill House, 12 Quay Street", "Seabridge", "EX1 9ZZ"]],
    )]);
}

/// Class `address.premise`, business and industrial estates: an estate written before the
/// street (`Zone artisanale …`, `Gewerbegebiet …`, `Zona Industriale …`, `Pol. Ind. …`, as
/// `… Industrial Estate` already was) is part of the street; before, it was cut off as if it
/// were the business's name (French, German, Italian, Spanish).
#[test]
fn an_estate_before_the_street_is_part_of_it() {
    assert_reads(&[
        (
            "https://exemple.fr/",
            "<html lang=fr><p>Zone artisanale des Exemples, 12 chemin du Moulin, 31000 \
             Toulouse</p></html>",
            [
                "Zone artisanale des Exemples, 12 chemin du Moulin",
                "Toulouse",
                "31000",
            ],
        ),
        (
            "https://beispiel.de/",
            "<html lang=de><p>Gewerbegebiet Nord, Musterstraße 12, 10115 Berlin</p></html>",
            ["Gewerbegebiet Nord, Musterstraße 12", "Berlin", "10115"],
        ),
        (
            "https://esempio.it/",
            "<html lang=it><p>Zona Industriale Esempio, Via Roma 1, 20121 Milano</p></html>",
            ["Zona Industriale Esempio, Via Roma 1", "Milano", "20121"],
        ),
        (
            "https://ejemplo.es/",
            "<html lang=es><p>Pol. Ind. Ejemplo, Calle Ejemplo 12, 28000 Madrid</p></html>",
            ["Pol. Ind. Ejemplo, Calle Ejemplo 12", "Madrid", "28000"],
        ),
    ]);
}

/// Class `address.premise`, negative: the business's name before the street, with no
/// premise or estate word, is still no part of it.
#[test]
fn a_business_name_before_the_street_is_no_estate() {
    assert_reads(&[(
        "https://beispiel.de/",
        "<html lang=de><p>Beispiel Werkstatt, Musterstraße 12, 10115 Berlin</p></html>",
        ["Musterstraße 12", "Berlin", "10115"],
    )]);
}

/// Class `address.box`: a box address whose postcode is joined to the box number by a dash
/// may name the box's post office before the town (`P.O. Box 123-00200, City Square,
/// Nairobi`; Swahili `S.L.P. 4567-00100, GPO, Nairobi`), on the box's line or the line
/// below: the town is the part after the post office, not the post office.
#[test]
fn a_post_office_named_before_the_town_of_a_box_address() {
    assert_reads(&[
        (
            "https://mfano.co.ke/",
            "<p>Mfano Traders Ltd<br>P.O. Box 123-00200, City Square, Nairobi</p>",
            ["P.O. Box 123", "Nairobi", "00200"],
        ),
        (
            "https://mfano.co.ke/",
            "<p>Mfano Traders Ltd<br>P.O. Box 123-00200<br>GPO, Nairobi, Kenya</p>",
            ["P.O. Box 123", "Nairobi", "00200"],
        ),
        (
            "https://mfano.co.ke/sw/",
            "<p>S.L.P. 4567-00100, GPO, Nairobi</p>",
            ["S.L.P. 4567", "Nairobi", "00100"],
        ),
        (
            "https://mfano.co.ke/",
            "<p>P.O. Box 4567-00100, Nairobi, Kenya</p>",
            ["P.O. Box 4567", "Nairobi", "00100"],
        ),
    ]);
}

/// Class `address.country_before_postcode`: the country's name printed between the town and a
/// postcode that ends the address (`…, Bogotá, Colombia, 110221`; Romanian `…, Cluj-Napoca,
/// România, 400001`; New Zealand `…, Auckland, New Zealand 1011`) is no place of the address:
/// the town before it is the locality and the street stays the street. Singapore's layout
/// prints the country's name as the town (`…, Singapore 049321`), which stays the locality.
#[test]
fn a_country_name_between_the_town_and_the_postcode() {
    assert_reads(&[
        (
            "https://ejemplo.com.co/contacto",
            "<p>Calle 100 # 19-61, Bogotá, Colombia, 110221</p>",
            ["Calle 100 # 19-61", "Bogotá", "110221"],
        ),
        (
            "https://ejemplo.com.pe/contacto",
            "<p>Dirección: Av. Ejemplo 123, Miraflores, Lima, Perú 15074</p>",
            ["Av. Ejemplo 123, Miraflores", "Lima", "15074"],
        ),
        (
            "https://exemplu.ro/contact",
            "<p>Adresa: Strada Exemplu 12, Cluj-Napoca, România, 400001</p>",
            ["Strada Exemplu 12", "Cluj-Napoca", "400001"],
        ),
        (
            "https://example.co.nz/contact",
            "<p>12 Sample Street, Ponsonby, Auckland, New Zealand 1011</p>",
            ["12 Sample Street, Ponsonby", "Auckland", "1011"],
        ),
        (
            "https://example.com.sg/contact",
            "<p>12 Sample Road, #04-01, Sample Towers, Singapore 049321</p>",
            [
                "12 Sample Road, #04-01, Sample Towers",
                "Singapore",
                "049321",
            ],
        ),
    ]);
}

/// Class `date.month`: a date line read as the street of the year that opens the next line
/// (a zip-first layout: `08. September` / `2021 Sample Fair`) is no address; a street named
/// after a date is one (`17.-Juni-Straße 3` / `2000 Ort`, `Calle 25 de Mayo 1200, 2000 …`).
#[test]
fn a_date_before_a_year_is_no_address() {
    for (url, html) in [
        (
            "https://beispiel.ch/",
            "<p>08. September 2021 Beispielmesse Zürich</p>",
        ),
        (
            "https://beispiel.at/",
            "<ul><li>23. Juni</li><li>2021 Beispielrennen Wien</li></ul>",
        ),
        (
            "https://exemple.be/",
            "<ul><li>14 janvier</li><li>2022 Salon Exemple Namur</li></ul>",
        ),
    ] {
        let got = parts(url, html);
        assert!(got.is_empty(), "{html}\n  read {got:?}");
    }
    assert_reads(&[
        (
            "https://beispiel.at/",
            "<p>Beispiel GmbH<br>17.-Juni-Straße 3<br>2000 Beispielort</p>",
            ["17.-Juni-Straße 3", "Beispielort", "2000"],
        ),
        (
            "https://ejemplo.com.ar/",
            "<p>Ejemplo S.A.<br>Calle 25 de Mayo 1200, 2000 Rosario</p>",
            ["Calle 25 de Mayo 1200", "Rosario", "2000"],
        ),
    ]);
}

/// Class `street.type_then_article`: a street type, an article and a date or a number that
/// opens the street's name (`Rue du 4 Septembre`, `Plaza del 2 de Mayo`, `Platz des 17.
/// Juni`) is the whole street; the type is no sentence's first word before a house number
/// (`Located at 12 …` is prose before one).
#[test]
fn a_street_type_and_an_article_before_a_number_in_the_name() {
    assert_reads(&[
        (
            "https://exemple.fr/",
            "<p>Exemple SARL<br>Rue du 4 Septembre 5<br>75002 Paris</p>",
            ["Rue du 4 Septembre 5", "Paris", "75002"],
        ),
        (
            "https://ejemplo.es/",
            "<p>Ejemplo S.L.<br>Plaza del 2 de Mayo 5<br>28004 Madrid</p>",
            ["Plaza del 2 de Mayo 5", "Madrid", "28004"],
        ),
        (
            "https://esempio.it/",
            "<p>Esempio Srl<br>Piazza del 4 Novembre 5<br>00187 Roma</p>",
            ["Piazza del 4 Novembre 5", "Roma", "00187"],
        ),
        (
            "https://beispiel.at/",
            "<p>Beispiel GmbH, Platz des 17. Juni 3, 2000 Beispielort</p>",
            ["Platz des 17. Juni 3", "Beispielort", "2000"],
        ),
        (
            "https://example.co.uk/",
            "<p>Place your order at 12 Sample Street, Sampleton SM1 2AB</p>",
            ["12 Sample Street", "Sampleton", "SM1 2AB"],
        ),
    ]);
}

/// Class `postcode.town_first_after_field`: a postcode, its town and the street after
/// another field on one line (a name, then a separator) are read as on a line of their own;
/// the field before is no town.
#[test]
fn a_postcode_and_town_first_after_a_name_field() {
    assert_reads(&[
        (
            "https://minta.hu/",
            "<p>Minta Kft. - 1052 Budapest, Minta utca 7.</p>",
            ["Minta utca 7", "Budapest", "1052"],
        ),
        (
            "https://minta.hu/",
            "<p>Minta Kft. | 6720 Szeged, Minta tér 3. | Tel: +36 1 234 5678</p>",
            ["Minta tér 3", "Szeged", "6720"],
        ),
        (
            "https://primer.ru/",
            "<p>ООО «Пример», 101000, г. Москва, ул. Примерная, д. 12</p>",
            ["ул. Примерная, д. 12", "Москва", "101000"],
        ),
        (
            "https://primer.bg/",
            "<p>Пример ЕООД | 1000 София, ул. Примерна 12</p>",
            ["ул. Примерна 12", "София", "1000"],
        ),
    ]);
}

/// Class `address.field_after`: the label of another field after the postcode on its line (a
/// registration number, a phone) ends the address; before, nothing after the postcode but a
/// country let the address be read.
#[test]
fn a_field_label_after_the_postcode_ends_the_address() {
    assert_reads(&[
        (
            "https://exemplu.ro/",
            "<p>Exemplu SRL, Str. Exemplului nr. 5, Sector 1, București 010101, CUI RO12345678</p>",
            ["Str. Exemplului nr. 5, Sector 1", "București", "010101"],
        ),
        (
            "https://exemplu.ro/",
            "<p>Str. Exemplului nr. 5, Cluj-Napoca 400001, Cod fiscal RO12345678</p>",
            ["Str. Exemplului nr. 5", "Cluj-Napoca", "400001"],
        ),
        (
            "https://example.co.in/",
            "<p>12, Sample Road, Andheri East, Mumbai - 400069, Tel: +91 22 1234 5678</p>",
            ["12, Sample Road, Andheri East", "Mumbai", "400069"],
        ),
        // After the town, behind a full stop.
        (
            "https://exempel.se/",
            "<p>Exempel AB, Storgatan 5, 111 22 Stockholm. Org.nr 556000-0000</p>",
            ["Storgatan 5", "Stockholm", "111 22"],
        ),
        (
            "https://eksempel.no/",
            "<p>Eksempel AS, Storgata 5, 0155 Oslo. Org.nr. 999 999 999</p>",
            ["Storgata 5", "Oslo", "0155"],
        ),
        (
            "https://esimerkki.fi/",
            "<p>Esimerkki Oy, Esimerkkikatu 5, 00100 Helsinki. Y-tunnus 1234567-8</p>",
            ["Esimerkkikatu 5", "Helsinki", "00100"],
        ),
        (
            "https://beispiel.de/",
            "<p>Beispiel GmbH, Lindenweg 3, 10115 Berlin. USt-IdNr. DE123456789</p>",
            ["Lindenweg 3", "Berlin", "10115"],
        ),
    ]);
}

/// Class `address.name_before_premise`: a unit or premise word with its number after the
/// business's name opens the street (`Sample Ltd, Unit 4, Sample Business Park`); the name is
/// no part of it. A house number with a floor after a street's name stays with it.
#[test]
fn the_name_before_a_unit_is_no_part_of_the_street() {
    assert_reads(&[
        (
            "https://example.ie/",
            "<p>Sample Ltd, Unit 4, Sample Business Park, Sampletown, Co. Kildare, W23 X2Y3</p>",
            ["Unit 4, Sample Business Park", "Sampletown", "W23 X2Y3"],
        ),
        (
            "https://example.co.uk/",
            "<p>Sample Ltd, Unit 4, Sample Business Park, Sampletown, SM1 2AB</p>",
            ["Unit 4, Sample Business Park", "Sampletown", "SM1 2AB"],
        ),
        (
            "https://example.co.nz/",
            "<p>Sample Ltd, Suite 2, Sample House, 12 High Street, Sampletown 6011</p>",
            [
                "Suite 2, Sample House, 12 High Street",
                "Sampletown",
                "6011",
            ],
        ),
        (
            "https://ejemplo.es/",
            "<p>Ejemplo S.L.<br>Calle Ejemplo, 24 bajo<br>20304 Irún</p>",
            ["Calle Ejemplo, 24 bajo", "Irún", "20304"],
        ),
    ]);
}

/// Class `legal.form` of every country in the corpora: a business's name ending in its legal
/// form before a spaced dash is no part of the street, also before a street whose house
/// number stands in its second part (`Rua das Flores, 123 - Centro`, class
/// `street.numbered_then_more`).
#[test]
fn a_name_with_its_legal_form_before_a_dash_is_no_part_of_the_street() {
    assert_reads(&[
        (
            "https://exemplo.com.br/",
            "<footer><p>Exemplo Ltda - Rua das Flores, 123 - Centro - Curitiba/PR - CEP 80020-310</p></footer>",
            ["Rua das Flores, 123 - Centro", "Curitiba", "80020-310"],
        ),
        (
            "https://ejemplo.com.mx/",
            "<p>Ejemplo S.A. de C.V. - Calle Encino, 210 - Centro, 06000 Ciudad de México</p>",
            ["Calle Encino, 210 - Centro", "Ciudad de México", "06000"],
        ),
        (
            "https://minta.hu/",
            "<p>Minta Kft. - Minta utca 7., 1052 Budapest</p>",
            ["Minta utca 7.", "Budapest", "1052"],
        ),
    ]);
}
