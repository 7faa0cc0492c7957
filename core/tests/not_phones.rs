//! Numbers that are not phones (docs/extraction.md "Phones"): registration and tax numbers,
//! bank details, digits inside an email's local part and placeholder numbers are never read
//! as the business's phone, while the page's real number still is. Fixtures are written
//! in-house; every number is invented.

use contact_core::extract::extract_page;
use url::Url;

/// The phones of a page at `url` whose body holds `line` and then the labelled real number
/// `tel` (printed as `printed`).
fn phones(url: &str, line: &str, printed: &str) -> Vec<String> {
    let html =
        format!("<html><body><footer><p>{line}</p><p>Tel. {printed}</p></footer></body></html>");
    let url = Url::parse(url).expect("the fixture's URL parses");
    extract_page(&url, None, html.as_bytes()).phones
}

fn check(cases: &[(&str, &str, &str, &str)]) {
    let mut wrong = Vec::new();
    for (url, line, printed, e164) in cases {
        let got = phones(url, line, printed);
        if got != [e164.to_string()] {
            wrong.push(format!("{line:?} on {url}: {got:?}, want only {e164}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn registration_and_tax_numbers_are_not_phones() {
    check(&[
        (
            "https://example.com.br/",
            "41.836.294/0001-57",
            "(11) 3123-4862",
            "+551131234862",
        ),
        (
            "https://example.com.br/",
            "CNPJ 27.314.852/0001-90",
            "(11) 3123-4862",
            "+551131234862",
        ),
        (
            "https://example.com.br/",
            "Inscrição 41.836.294/0001-57",
            "(11) 3123-4862",
            "+551131234862",
        ),
        (
            "https://example.com.ar/",
            "30-71836294-5",
            "011 4831-7290",
            "+541148317290",
        ),
        (
            "https://example.cl/",
            "76.381.924-K",
            "2 2831 4729",
            "+56228314729",
        ),
        (
            "https://example.fi/",
            "2736158-4",
            "09 8314 7290",
            "+358983147290",
        ),
        (
            "https://example.dk/",
            "CVR-nr. 31 83 62 94",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.dk/",
            "CVR: 31836294",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.no/",
            "Org.nr. 918 362 947",
            "22 12 34 56",
            "+4722123456",
        ),
        (
            "https://example.no/",
            "Organisasjonsnummer 918362947 MVA",
            "22 12 34 56",
            "+4722123456",
        ),
        (
            "https://example.se/",
            "Org.nr: 559183-4720",
            "08-831 472 90",
            "+46883147290",
        ),
        (
            "https://example.fi/",
            "Y-tunnus: 2736158-4",
            "09 8314 7290",
            "+358983147290",
        ),
        (
            "https://example.pl/",
            "NIP: 527-183-62-94",
            "22 831 47 29",
            "+48228314729",
        ),
        (
            "https://example.pl/",
            "REGON 141836294",
            "22 831 47 29",
            "+48228314729",
        ),
        (
            "https://example.pl/",
            "KRS 0000418362",
            "22 831 47 29",
            "+48228314729",
        ),
        (
            "https://example.cz/",
            "IČO: 27183629",
            "224 836 159",
            "+420224836159",
        ),
        (
            "https://example.cz/",
            "IČ: 27183629, DIČ: CZ27183629",
            "224 836 159",
            "+420224836159",
        ),
        (
            "https://example.sk/",
            "IČO 35718362 DIČ 2021836294",
            "02/5263 8841",
            "+421252638841",
        ),
        (
            "https://example.com.br/",
            "CNPJ: 41.836.294/0001-57",
            "(11) 3123-4862",
            "+551131234862",
        ),
        (
            "https://example.com.br/",
            "CPF 381.924.576-03",
            "(11) 3123-4862",
            "+551131234862",
        ),
        (
            "https://example.com.ar/",
            "CUIT: 30-71836294-5",
            "011 4831-7290",
            "+541148317290",
        ),
        (
            "https://example.cl/",
            "RUT: 76.381.924-K",
            "2 2831 4729",
            "+56228314729",
        ),
        (
            "https://example.com.mx/",
            "RFC: EJE980101AB1",
            "55 4183 6297",
            "+525541836297",
        ),
        (
            "https://example.es/",
            "NIF: B41836294",
            "914 836 275",
            "+34914836275",
        ),
        (
            "https://example.es/",
            "CIF B-41836294",
            "914 836 275",
            "+34914836275",
        ),
        (
            "https://example.fr/",
            "SIRET : 418 362 947 00018",
            "01 42 86 39 17",
            "+33142863917",
        ),
        (
            "https://example.fr/",
            "RCS Paris 418 362 947",
            "01 42 86 39 17",
            "+33142863917",
        ),
        (
            "https://example.nl/",
            "KvK-nummer: 61836294",
            "020 831 4729",
            "+31208314729",
        ),
        (
            "https://example.com.au/",
            "ABN 51 824 753 556",
            "02 9831 4729",
            "+61298314729",
        ),
        (
            "https://example.com.au/",
            "ACN: 418 362 947",
            "02 9831 4729",
            "+61298314729",
        ),
        (
            "https://example.in/",
            "GSTIN: 29ABCDE1234F1Z5",
            "080 4183 6297",
            "+918041836297",
        ),
        (
            "https://example.in/",
            "CIN U72200KA2015PTC081234",
            "080 4183 6297",
            "+918041836297",
        ),
        (
            "https://example.co.uk/",
            "Registered in England and Wales No. 08183629",
            "020 7946 0123",
            "+442079460123",
        ),
        (
            "https://example.co.uk/",
            "Company number 08183629",
            "020 7946 0123",
            "+442079460123",
        ),
        (
            "https://example.se/",
            "559183-4720",
            "08-831 472 90",
            "+46883147290",
        ),
    ]);
}

#[test]
fn bank_details_are_not_phones() {
    check(&[
        (
            "https://example.pl/",
            "Rachunek bankowy: 61 1090 1014 0000 0712 1981 2874",
            "22 831 47 29",
            "+48228314729",
        ),
        (
            "https://example.pl/",
            "Rachunek: 0712 1981 2874",
            "22 831 47 29",
            "+48228314729",
        ),
        (
            "https://example.cz/",
            "Bankovní spojení: 224836197/0800",
            "224 836 159",
            "+420224836159",
        ),
        (
            "https://example.dk/",
            "Reg.nr. 4183 kontonr. 4183 6294",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.cz/",
            "Číslo účtu: 224836197/0800",
            "224 836 159",
            "+420224836159",
        ),
        (
            "https://example.sk/",
            "Číslo účtu 2918362947/1100",
            "02/5263 8841",
            "+421252638841",
        ),
        (
            "https://example.es/",
            "Número de cuenta 2100 0418 4502 0005 1332",
            "914 836 275",
            "+34914836275",
        ),
        (
            "https://example.com.mx/",
            "CLABE 002180700541836294",
            "55 4183 6297",
            "+525541836297",
        ),
        (
            "https://example.com.ar/",
            "CBU 0110599520000004183629",
            "011 4831-7290",
            "+541148317290",
        ),
        (
            "https://example.in/",
            "IFSC SBIN0004183, A/c 30418362947",
            "080 4183 6297",
            "+918041836297",
        ),
        (
            "https://example.dk/",
            "Reg.nr. 4183 Kontonr. 0004183629",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.se/",
            "Bankgiro 418-3629",
            "08-831 472 90",
            "+46883147290",
        ),
        (
            "https://example.no/",
            "Kontonr. 1503.41.83629",
            "22 12 34 56",
            "+4722123456",
        ),
        (
            "https://example.de/",
            "IBAN: DE89 3704 0044 0532 0130 00",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.de/",
            "Kontonummer 0532013000, BLZ 370 400 44",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.com.au/",
            "BSB 062-000 Account 4183 6294",
            "02 9831 4729",
            "+61298314729",
        ),
        (
            "https://example.com.au/",
            "BSB: 062 000, Acc: 41836294",
            "02 9831 4729",
            "+61298314729",
        ),
        (
            "https://example.co.uk/",
            "Sort code 20-41-83, account 41836294",
            "020 7946 0123",
            "+442079460123",
        ),
        (
            "https://example.nl/",
            "Rekeningnummer NL91 ABNA 0417 1643 00",
            "020 831 4729",
            "+31208314729",
        ),
        (
            "https://example.pl/",
            "Nr konta: 61 1090 1014 0000 0712 1981 2874",
            "22 831 47 29",
            "+48228314729",
        ),
        (
            "https://example.es/",
            "Cuenta bancaria ES91 2100 0418 4502 0005 1332",
            "914 836 275",
            "+34914836275",
        ),
    ]);
}

#[test]
fn digits_inside_an_email_are_not_phones() {
    check(&[
        (
            "https://example.de/",
            "Rechnungen: 03083147291(at)example.de",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.dk/",
            "Faktura: 41836294 [at] example.dk",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.nl/",
            "factuur-0208314728 @ example.nl",
            "020 831 4729",
            "+31208314729",
        ),
        (
            "https://example.dk/",
            "E-mail: 33123457@example.dk",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.de/",
            "E-Mail: 03083147291@example.de",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.dk/",
            "faktura+33123457@example.dk",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.de/",
            "Rechnungen an rechnung-03012345679@example.de",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.nl/",
            "Facturen: factuur.0201234568@example.nl",
            "020 831 4729",
            "+31208314729",
        ),
        (
            "https://example.co.uk/",
            "invoices 02079460124@example.co.uk",
            "020 7946 0123",
            "+442079460123",
        ),
    ]);
}

#[test]
fn placeholder_numbers_are_not_phones() {
    check(&[
        (
            "https://example.com.au/",
            "Mobile: 0400 000 000",
            "02 9831 4729",
            "+61298314729",
        ),
        (
            "https://example.co.uk/",
            "Phone: 07700 900000",
            "020 7946 0123",
            "+442079460123",
        ),
        (
            "https://example.de/",
            "Tel: 0123 456789",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.fr/",
            "Tél : 06 12 34 56 78",
            "01 42 86 39 17",
            "+33142863917",
        ),
        (
            "https://example.de/",
            "Mobil: 0000 0000000",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.com.au/",
            "Mobile: 0412 345 678",
            "02 9831 4729",
            "+61298314729",
        ),
        (
            "https://example.no/",
            "Mobil: 1234 5678",
            "22 12 34 56",
            "+4722123456",
        ),
        (
            "https://example.dk/",
            "Telefon: 12 34 56 78",
            "33 12 34 56",
            "+4533123456",
        ),
        (
            "https://example.co.uk/",
            "Phone: 01234 567890",
            "020 7946 0123",
            "+442079460123",
        ),
    ]);
}

/// Date ranges whose first date has no year (`24.08. - 11.09.2026`), as holiday notices
/// print them in German, Finnish, Norwegian, Czech, Dutch and Spanish.
#[test]
fn date_ranges_are_not_phones() {
    check(&[
        (
            "https://example.de/",
            "Urlaub: 01.06. - 05.06.2026",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.de/",
            "24.08. - 11.09.2026",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.fi/",
            "Suljettu 24.8.–11.9.2026",
            "09 8314 7290",
            "+358983147290",
        ),
        (
            "https://example.no/",
            "Stengt 24.08.-11.09.2026",
            "22 12 34 56",
            "+4722123456",
        ),
        (
            "https://example.cz/",
            "Zavřeno 24.08. – 11.09.2026",
            "224 836 159",
            "+420224836159",
        ),
        (
            "https://example.de/",
            "Urlaub vom 24.08. bis 11.09.2026",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.nl/",
            "Gesloten 24-08 t/m 11-09-2026",
            "020 831 4729",
            "+31208314729",
        ),
        (
            "https://example.cz/",
            "Dovolená 24. 8. – 11. 9. 2026",
            "224 836 159",
            "+420224836159",
        ),
        (
            "https://example.es/",
            "Vacaciones del 24/08 al 11/09/2026",
            "914 836 275",
            "+34914836275",
        ),
    ]);
}

/// The words the labels above are made of do not refuse phones in other words: `Kontakt` in a
/// menu on the line above, `Kontor` (office) before a Norwegian or Danish number, a US city
/// that starts like a label (`Cincinnati`).
#[test]
fn labels_of_identifiers_are_words_not_prefixes() {
    check(&[
        (
            "https://example.de/",
            "Startseite Leistungen Kontakt Impressum",
            "030 83147290",
            "+493083147290",
        ),
        (
            "https://example.no/",
            "Kontoret i sentrum",
            "22 12 34 56",
            "+4722123456",
        ),
        (
            "https://example.com/",
            "Cincinnati, OH 45202",
            "(513) 831-4729",
            "+15138314729",
        ),
    ]);
}
