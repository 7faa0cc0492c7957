//! Which country the page is in (docs/extraction.md "Which country the page is in"): numbers
//! printed without a country code are read in the region the page's weighted evidence names.
//! Fixtures are written in-house, one per country class; every number is invented.

use contact_core::extract::extract_page;
use url::Url;

fn phones(url: &str, html: &str) -> Vec<String> {
    let url = Url::parse(url).expect("the fixture's URL parses");
    extract_page(&url, None, html.as_bytes()).phones
}

/// India on a `.com` host with an `en-US` template: an international `tel:` link, a second
/// `+91` number in the text and prices in rupees outvote the template's `lang`.
#[test]
fn a_dot_com_site_in_india_gets_its_national_numbers() {
    let html = r#"<html lang="en-US"><body>
        <header><a href="tel:+919876543210">+91 98765 43210</a></header>
        <main><h2>Visit the clinic</h2>
        <p>Consultation from ₹ 400. Emergencies: +91 98765 43299</p>
        <p>Reception: 044 4183 6297</p></main></body></html>"#;
    let got = phones("https://example-clinic.com/", html);
    assert!(got.contains(&"+914441836297".to_string()), "{got:?}");
}

/// Mexico on a `.com` host in Spanish: a WhatsApp link with `52` and prices in `MXN` outvote
/// the language (Spanish alone says Spain).
#[test]
fn a_dot_com_site_in_mexico_gets_its_national_numbers() {
    let html = r#"<html lang="es"><body>
        <a href="https://wa.me/523312345678">WhatsApp</a>
        <p>Paquete desde $1,200 MXN</p>
        <p>Teléfono: 33 4183 6297</p></body></html>"#;
    let got = phones("https://taller-ejemplo.com/contacto", html);
    assert!(got.contains(&"+523341836297".to_string()), "{got:?}");
}

/// Brazil on a `.com` host whose template says `lang="en"`: reais and one `+55` number in
/// the text.
#[test]
fn a_dot_com_site_in_brazil_gets_its_national_numbers() {
    let html = r#"<html lang="en"><body>
        <p>Atendimento: +55 11 91234-5678</p>
        <p>Planos a partir de R$ 99,90</p>
        <p>Telefone fixo: 11 3123-4862</p></body></html>"#;
    let got = phones("https://oficina-exemplo.com/", html);
    assert!(got.contains(&"+551131234862".to_string()), "{got:?}");
}

/// South Africa on a `.com` host: two `+27` numbers in `tel:` links.
#[test]
fn a_dot_com_site_in_south_africa_gets_its_national_numbers() {
    let html = r#"<html lang="en"><body>
        <a href="tel:+27215550123">Call us</a> <a href="tel:+27825550123">Mobile</a>
        <p>Workshop: 021 555 0199</p></body></html>"#;
    let got = phones("https://example-workshop.com/", html);
    assert!(got.contains(&"+27215550199".to_string()), "{got:?}");
}

/// A JSON-LD `addressCountry` given as an ISO code (`TR`), not a country name, names the
/// region: a Turkish mobile printed with the trunk prefix is read in Turkey.
#[test]
fn an_iso_address_country_in_json_ld_names_the_region() {
    let html = r#"<html lang="en"><head><script type="application/ld+json">
        {"@type":"LocalBusiness","name":"Örnek Havuz",
         "address":{"@type":"PostalAddress","streetAddress":"Örnek Cad. No:1",
           "addressCountry":"TR","addressLocality":"Örnekköy"}}
        </script></head><body><p>Satış: 0532 111 22 33</p></body></html>"#;
    let got = phones("https://ornek-havuz.com/", html);
    assert!(got.contains(&"+905321112233".to_string()), "{got:?}");
}

/// `lang` alone never outvotes a printed address: a German-language page of a US business
/// (held before the weighted decision too: a guard).
#[test]
fn lang_alone_does_not_outvote_a_printed_address() {
    let html = r#"<html lang="de"><body>
        <p>Kontakt</p><p>120 Example Avenue<br>Springfield, IL 62704</p>
        <p>Telefon: (217) 555-0147</p></body></html>"#;
    let got = phones("https://beispiel-firma.com/", html);
    assert!(got.contains(&"+12175550147".to_string()), "{got:?}");
}
