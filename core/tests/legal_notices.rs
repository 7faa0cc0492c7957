//! Failure classes seen on unseen sites, each on a small page written for the test, modelled on
//! the class (docs/extraction.md): addresses written to dodge scrapers, a copyright year range
//! read as a number, the contact data of third parties in a legal notice (hosting provider,
//! chamber, authority, arbitration body, web agency, photographer), postcodes of
//! Canada, Sweden, Germany's Impressum lines and Irish addresses without an Eircode, and names a
//! person would give the business.

use contact_core::extract::{self, PageExtraction};
use url::Url;

fn page(url: &str, html: &str) -> PageExtraction {
    extract::extract_page(
        &Url::parse(url).expect("test URL"),
        Some("text/html; charset=utf-8"),
        html.as_bytes(),
    )
}

// ---- emails written to dodge scrapers --------------------------------------------------------

#[test]
fn bracketed_and_parenthesised_at_and_dot_on_the_sites_own_domain() {
    for (text, email) in [
        (
            "E-Mail: info [at] baeckerei-huber [dot] de",
            "info@baeckerei-huber.de",
        ),
        (
            "E-Mail: info(at)baeckerei-huber.de",
            "info@baeckerei-huber.de",
        ),
        (
            "E-Mail: info (at) baeckerei-huber (punkt) de",
            "info@baeckerei-huber.de",
        ),
        (
            "Mail : contact @ baeckerei-huber . de",
            "contact@baeckerei-huber.de",
        ),
        (
            "Write to info at baeckerei-huber dot de",
            "info@baeckerei-huber.de",
        ),
    ] {
        let p = page(
            "https://www.baeckerei-huber.de/impressum",
            &format!("<p>{text}</p>"),
        );
        assert_eq!(p.emails, [email], "{text}");
    }
}

#[test]
fn spelled_out_at_and_dot_only_for_the_site_or_a_mail_provider() {
    let p = page(
        "https://www.acme-shop.com/",
        "<p>Reach us at acme.shop at gmail dot com.</p>\
         <p>We meet at noon at the market dot place.</p>\
         <p>Find us at booking dot com.</p>",
    );
    assert_eq!(p.emails, ["acme.shop@gmail.com"]);
}

#[test]
fn percent_encoded_mailto_and_cloudflare_protection() {
    // data-cfemail: key 0x42, then "info@acme-shop.com" XOR 0x42.
    let plain = b"info@acme-shop.com";
    let mut hex = String::from("42");
    for b in plain {
        hex.push_str(&format!("{:02x}", b ^ 0x42));
    }
    let p = page(
        "https://www.acme-shop.com/",
        &format!(
            r#"<a href="mailto:%73%61%6C%65%73@acme-shop.com">Sales</a>
               <a href="/cdn-cgi/l/email-protection#{hex}"><span class="__cf_email__" data-cfemail="{hex}">[email&#160;protected]</span></a>"#
        ),
    );
    assert_eq!(p.emails, ["sales@acme-shop.com", "info@acme-shop.com"]);
}

// ---- phones ----------------------------------------------------------------------------------

#[test]
fn a_copyright_year_range_is_not_a_phone() {
    let p = page(
        "https://www.4sh.fr/",
        "<footer><p>© 2007 - 2024 4SH - Tous droits réservés</p>\
         <p>Tél : 01 42 68 53 00</p></footer>",
    );
    assert_eq!(p.phones, ["+33142685300"]);
}

/// The postcodes of the addresses found, in order.
fn postcodes(p: &PageExtraction) -> Vec<&str> {
    p.addresses
        .iter()
        .filter_map(|a| a.postal_code.as_deref())
        .collect()
}

const MENTIONS: &str = r#"<h1>Mentions légales</h1>
<h2>Éditeur du site</h2>
<p>Boulangerie Dupont SARL, 12 rue de la Paix, 75002 Paris<br>Tél : 01 42 68 53 00<br>
Email : contact@boulangerie-dupont.fr</p>
<h2>Hébergeur</h2>
<p>OVH SAS, 2 rue Kellermann, 59100 Roubaix<br>Téléphone : 09 72 10 10 07</p>"#;

#[test]
fn the_hosting_providers_phone_and_address_are_not_the_business() {
    let p = page(
        "https://www.boulangerie-dupont.fr/mentions-legales",
        MENTIONS,
    );
    assert_eq!(p.phones, ["+33142685300"]);
    let postcodes = postcodes(&p);
    assert_eq!(postcodes, ["75002"], "{:?}", p.addresses);
}

#[test]
fn hosting_sections_in_english_and_german_are_left_out_too() {
    let p = page(
        "https://www.mueller-bau.de/impressum",
        "<h2>Angaben gemäß § 5 TMG</h2><p>Müller Bau GmbH<br>Hauptstraße 5<br>10115 Berlin<br>\
         Telefon: 030 28094130</p><h3>Hosting</h3><p>Strato AG, Otto-Ostrowski-Straße 7, \
         10249 Berlin, Telefon: 030 300 146 000</p>",
    );
    assert_eq!(p.phones, ["+493028094130"]);
    let postcodes = postcodes(&p);
    assert_eq!(postcodes, ["10115"], "{:?}", p.addresses);
}

/// A dentist's Impressum in the shape the German generators print: the practice's own block,
/// then the chamber, the supervisory authority, the dispute-resolution body, the web agency and
/// the photographer, each with its own phone, email and address.
const IMPRESSUM: &str = r#"<h1>Impressum</h1>
<h2>Angaben gemäß § 5 DDG</h2>
<p>Zahnarztpraxis Dr. Anna Schmidt<br>Lindenallee 12<br>50667 Köln</p>
<h2>Kontakt</h2>
<p>Telefon: 0221 9257810<br>E-Mail: praxis@zahnarzt-schmidt.de</p>
<h2>Zuständige Aufsichtsbehörde</h2>
<p>Kassenzahnärztliche Vereinigung Nordrhein<br>Lindemannstraße 34-42<br>40237 Düsseldorf<br>
Telefon: 0211 96840</p>
<h2>Berufsbezeichnung und berufsrechtliche Regelungen</h2>
<p>Berufsbezeichnung: Zahnärztin<br>Zuständige Kammer:<br>Zahnärztekammer Nordrhein<br>
Emanuel-Leutze-Str. 8<br>40547 Düsseldorf<br>Tel.: 0211 526050</p>
<h2>Verbraucherstreitbeilegung</h2>
<p>Schlichtungsstelle der Zahnärztekammer, Postfach 10 55 22, 40046 Düsseldorf,
<a href="mailto:schlichtung@zaek-nr.de">schlichtung@zaek-nr.de</a></p>
<h2>Konzept &amp; Design</h2>
<p>Pixelwerk Agentur GmbH<br>Ehrenstraße 5<br>50672 Köln<br>
<a href="tel:+4922199887766">0221 99887766</a><br>hallo@pixelwerk-agentur.de</p>
<p>Fotos: Studio Licht, Aachener Str. 3, 50674 Köln, studio@licht-foto.de</p>"#;

#[test]
fn the_chamber_authority_arbitration_body_agency_and_photographer_are_not_the_business() {
    let p = page("https://www.zahnarzt-schmidt.de/impressum", IMPRESSUM);
    assert_eq!(p.phones, ["+492219257810"]);
    assert_eq!(p.emails, ["praxis@zahnarzt-schmidt.de"]);
    let postcodes = postcodes(&p);
    assert_eq!(postcodes, ["50667"], "{:?}", p.addresses);
}

#[test]
fn french_italian_and_spanish_notices_and_credit_lines() {
    let p = page(
        "https://www.avocat-martin.fr/mentions-legales",
        r#"<h1>Mentions légales</h1>
        <p>Éditeur : Maître Claire Martin, 8 rue Royale, 75008 Paris, Tél : 01 44 55 66 77,
        contact@avocat-martin.fr</p>
        <p>Ordre des avocats : Barreau de Paris, 11 place Dauphine, 75001 Paris,
        Tél : 01 44 32 48 48</p>
        <p>Réalisation : Agence Bleue, 3 rue du Port, 44000 Nantes, hello@agence-bleue.fr</p>"#,
    );
    assert_eq!(p.phones, ["+33144556677"]);
    assert_eq!(p.emails, ["contact@avocat-martin.fr"]);
    let p = page(
        "https://www.studiorossi.it/note-legali",
        r#"<h1>Note legali</h1><p>Studio Rossi, Via Roma 10, 20121 Milano, tel. 02 8314 7290</p>
        <h3>Ordine degli Avvocati di Milano</h3><p>Via Freguglia 1, 20122 Milano, tel. 02 549 2921</p>
        <footer><p>© 2025 Studio Rossi · Realizzato da WebLab, info@weblab.it</p></footer>"#,
    );
    assert_eq!(p.phones, ["+390283147290"]);
    assert!(p.emails.is_empty(), "{:?}", p.emails);
    let p = page(
        "https://www.clinicalopez.es/",
        r#"<p>Clínica López · Tel. 943 111 222 · Diseñado por WebNorte, 943 999 888</p>"#,
    );
    assert_eq!(p.phones, ["+34943111222"]);
}

#[test]
fn a_design_studios_own_design_heading_is_not_a_credit() {
    let p = page(
        "https://www.kuechen-design.de/",
        "<h2>Design</h2><p>Wir planen Ihre Küche. Telefon: 030 28094130</p>",
    );
    assert_eq!(p.phones, ["+493028094130"]);
}

#[test]
fn a_developers_address_behind_the_business_address_it_shows_is_left_out() {
    // The visible address is the business's; the href is the web developer's test address.
    let p = page(
        "https://www.montaz-alarmy.pl/",
        r#"<p>Napisz: <a href="mailto: jan.kowalski92@gmail.com">biuro@montaz-alarmy.pl</a></p>
        <p>Projekt i wykonanie: Jan Kowalski</p>"#,
    );
    assert_eq!(p.emails, ["biuro@montaz-alarmy.pl"]);
    // A slip between two addresses of one domain keeps both; so does a target shown elsewhere.
    let p = page(
        "https://www.acme-trailers.nl/contact",
        r#"<p><a href="mailto:piet@acme-goes.nl">bert@acme-goes.nl</a></p>
        <p><a href="mailto:acme.trailers@gmail.com">info@acme-trailers.nl</a>
        or acme.trailers@gmail.com</p>"#,
    );
    assert_eq!(
        p.emails,
        [
            "piet@acme-goes.nl",
            "bert@acme-goes.nl",
            "info@acme-trailers.nl",
            "acme.trailers@gmail.com"
        ]
    );
}

#[test]
fn the_owners_other_mailbox_behind_the_business_address_is_kept() {
    // The contact block shows the business's address; the link writes to a mailbox of another
    // organisation's domain that nothing else on the page names: the operating company's, the
    // owner's other business's. Both are the business's contacts.
    let p = page(
        "https://www.cafe-wiesental.de/kontakt",
        r#"<h2>Kontakt</h2><p>Telefon: 030 2345678<br>
        E-Mail: <a href="mailto:anna@hofgut-wiesental.de">info@cafe-wiesental.de</a></p>"#,
    );
    assert_eq!(
        p.emails,
        ["info@cafe-wiesental.de", "anna@hofgut-wiesental.de"]
    );
    let p = page(
        "https://taberna-olivar.es/",
        r#"<footer><p>Teléfono: 912 345 678</p>
        <p>Correo: <a href="mailto:reservas@grupo-olivar.es">hola@taberna-olivar.es</a></p></footer>"#,
    );
    assert_eq!(
        p.emails,
        ["hola@taberna-olivar.es", "reservas@grupo-olivar.es"]
    );
}

#[test]
fn a_makers_mailbox_behind_the_business_address_is_left_out() {
    // The maker's domain is linked in a credit, or written in it: the address there is the
    // maker's left behind, whatever the credit's words.
    let p = page(
        "https://taberna-olivar.es/",
        r#"<p>Correo: <a href="mailto:pruebas@estudio-pixelar.es">hola@taberna-olivar.es</a></p>
        <footer><p>Hecho con cariño por <a href="https://www.estudio-pixelar.es/">Estudio Pixelar</a></p></footer>"#,
    );
    assert_eq!(p.emails, ["hola@taberna-olivar.es"]);
    let p = page(
        "https://www.lumen-joinery.co.uk/",
        r#"<p>Email: <a href="mailto:test@northlight-web.co.uk">hello@lumen-joinery.co.uk</a></p>
        <p>Handmade site: northlight-web.co.uk</p>"#,
    );
    assert_eq!(p.emails, ["hello@lumen-joinery.co.uk"]);
}

// ---- addresses -------------------------------------------------------------------------------

fn one_address(p: &PageExtraction) -> (Option<&str>, Option<&str>, Option<&str>) {
    assert_eq!(p.addresses.len(), 1, "{:?}", p.addresses);
    let a = &p.addresses[0];
    (
        a.street.as_deref(),
        a.postal_code.as_deref(),
        a.locality.as_deref(),
    )
}

#[test]
fn a_canadian_postcode() {
    let p = page(
        "https://www.northshoreflooring.ca/contact",
        "<p>Visit us: 1234 Marine Drive, North Vancouver, BC V7P 1B3</p>",
    );
    let (street, postcode, _) = one_address(&p);
    assert_eq!(postcode, Some("V7P 1B3"));
    assert_eq!(street, Some("1234 Marine Drive"));
}

#[test]
fn a_swedish_postcode_after_a_street() {
    let p = page(
        "https://www.kafferosteriet.se/kontakt",
        "<p>Besöksadress: Storgatan 12, 111 22 Stockholm</p>",
    );
    assert_eq!(
        one_address(&p),
        (Some("Storgatan 12"), Some("111 22"), Some("Stockholm"))
    );
}

#[test]
fn a_german_impressum_line_after_the_company_name() {
    let p = page(
        "https://www.schreinerei-vogel.de/impressum",
        "<p>Schreinerei Vogel GmbH, Lindenweg 3, 79098 Freiburg im Breisgau</p>",
    );
    assert_eq!(
        one_address(&p),
        (
            Some("Lindenweg 3"),
            Some("79098"),
            Some("Freiburg im Breisgau")
        )
    );
}

#[test]
fn an_irish_address_without_an_eircode() {
    let p = page(
        "https://www.clarebikes.ie/contact",
        "<p>Clare Bikes, 12 Main Street, Ennis, Co. Clare</p>",
    );
    assert_eq!(p.addresses.len(), 1, "{:?}", p.addresses);
    let a = &p.addresses[0];
    assert_eq!(a.street.as_deref(), Some("12 Main Street"));
    assert_eq!(a.locality.as_deref(), Some("Ennis"));
    assert_eq!(a.region.as_deref(), Some("Co. Clare"));
}

// ---- company names ---------------------------------------------------------------------------

fn name(url: &str, html: &str) -> Option<String> {
    page(url, html).company_name
}

#[test]
fn the_full_trading_name_beats_a_shortened_brand() {
    let html = r#"<head><title>Acme Wood Products | Handmade furniture</title>
        <meta property="og:site_name" content="Acme Wood"></head>
        <body><footer>© 2024 Acme Wood Products</footer></body>"#;
    assert_eq!(
        name("https://www.acmewood.com/", html).as_deref(),
        Some("Acme Wood Products")
    );
}

/// A maker's credit (class `credit.maker`, `party.maker`) names the web agency or designer,
/// never the business: it gives no company name, neither as the copyright holder nor as a
/// legal notice's field, in any language.
#[test]
fn a_makers_credit_never_gives_the_company_name() {
    for (url, html, expected) in [
        (
            "https://olivar-madrid.es/",
            "<head><title>Inicio</title></head><body><p>Tapas y vinos</p>\
             <footer><p>© 2024 Taberna El Olivar · Diseño web: Estudio Nube</p></footer></body>",
            Some("Taberna El Olivar"),
        ),
        (
            "https://boulangerie-lyon.fr/",
            "<head><title>Accueil</title></head><body><p>Pains et viennoiseries</p>\
             <footer><p>© 2023 Au Pain Doré – Réalisé par Agence Pixelune</p></footer></body>",
            Some("Au Pain Doré"),
        ),
        (
            "https://boulangerie-lyon.fr/",
            "<head><title>Accueil</title></head><body><p>Pains et viennoiseries</p>\
             <footer><p>© 2023 Au Pain Doré – Réalisation : Agence Pixelune</p></footer></body>",
            Some("Au Pain Doré"),
        ),
        (
            "https://www.trattoria-bologna.it/",
            "<head><title>Home</title></head><body><p>Cucina tipica</p>\
             <footer><p>© 2022 Trattoria Da Nino – Sito realizzato da Studio Lampo</p></footer></body>",
            Some("Trattoria Da Nino"),
        ),
        (
            "https://www.trattoria-bologna.it/",
            "<head><title>Home</title></head><body><p>Cucina tipica</p>\
             <footer><p>© 2022 Sito web realizzato da Studio Lampo</p></footer></body>",
            None,
        ),
        (
            "https://www.tischlerei-kiel.de/impressum",
            "<head><title>tischlerei-kiel.de</title></head><body><h1>Impressum</h1>\
             <h2>Webdesign</h2><p>Firma: Pixelhafen Medien GmbH</p>\
             <h2>Anbieter</h2><p>Firma: Tischlerei Nordholz GmbH</p></body>",
            Some("Tischlerei Nordholz GmbH"),
        ),
    ] {
        assert_eq!(name(url, html).as_deref(), expected, "{url}");
    }
}

#[test]
fn a_page_type_word_is_not_part_of_the_name() {
    for (title, expected) in [
        ("Acme - Website", "Acme"),
        ("Accueil - Boulangerie Dupont", "Boulangerie Dupont"),
        ("Startseite | Müller Bau", "Müller Bau"),
        ("Home | Clare Bikes", "Clare Bikes"),
        ("Inicio - Panadería López", "Panadería López"),
    ] {
        let html = format!("<head><title>{title}</title></head><body><p>Hello</p></body>");
        assert_eq!(
            name("https://www.example-business.com/", &html).as_deref(),
            Some(expected),
            "{title}"
        );
    }
}

#[test]
fn a_legal_notice_names_the_publisher_instead_of_the_domain() {
    for (url, html, expected) in [
        (
            "https://www.acme.nl/colofon",
            "<head><title>acme.nl</title></head><body><h1>Colofon</h1><p>Acme B.V.<br>KvK 12345678</p></body>",
            "Acme B.V.",
        ),
        (
            "https://www.dupont-menuiserie.fr/mentions-legales",
            "<head><title>dupont-menuiserie.fr</title></head><body><h1>Mentions légales</h1><p>Raison sociale : Menuiserie Dupont SARL</p><p>Hébergeur : OVH SAS</p></body>",
            "Menuiserie Dupont SARL",
        ),
        (
            "https://www.vogel-holz.de/impressum",
            "<head><title>vogel-holz.de</title></head><body><h1>Impressum</h1><p>Angaben gemäß § 5 TMG</p><p>Vogel Holzbau GmbH<br>Lindenweg 3<br>79098 Freiburg</p></body>",
            "Vogel Holzbau GmbH",
        ),
    ] {
        assert_eq!(name(url, html).as_deref(), Some(expected), "{url}");
    }
}

/// Names as the pages of small practices, breeders and local firms print them: a profession
/// word, a title or an education line is not the name; a person's practice takes the person's
/// full name with title as printed; a brand keeps its own spelling without the tagline; host
/// names and words with accents match the domain they spell.
#[test]
fn names_of_practices_brands_and_accented_or_abbreviated_domains() {
    for (url, head, body, expected) in [
        (
            "https://www.zahnarzt-schmidt.de/",
            "<title>Zahnarzt | Dr. med. dent. Anna Schmidt</title>",
            "<p>Willkommen</p>",
            "Dr. med. dent. Anna Schmidt",
        ),
        (
            "https://www.tierarzt-berger.at/",
            r#"<title>Tierarzt</title><meta property="og:site_name" content="Tierarzt">"#,
            "<h1>Tierarztpraxis Dr. Julia Berger</h1><p>© 2025 Dr. Julia Berger</p>",
            "Dr. Julia Berger",
        ),
        (
            "https://www.avvocatorossi.it/",
            "<title>Avv. Mario Rossi - Avvocato a Milano</title>",
            "<p>Studio</p>",
            "Avv. Mario Rossi",
        ),
        (
            "https://www.studiobianchi.it/chi-sono",
            "<title>Laurea in Economia, Università di Bologna | Dott. Marco Bianchi</title>",
            "<p>Commercialista</p>",
            "Dott. Marco Bianchi",
        ),
        (
            "https://www.katzenhof.de/",
            r#"<title>Katzenhof*DE – Maine-Coon-Zucht</title><meta property="og:site_name" content="Katzenhof*DE – Maine-Coon-Zucht">"#,
            "<p>Kitten</p>",
            "Katzenhof*DE",
        ),
        (
            "https://www.clinicadentalelgorriaga.net/aviso-legal",
            "<title>Aviso Legal | Clínica Dental Elgorriaga en Irún</title>",
            "<p>Titular</p>",
            "Clínica Dental Elgorriaga",
        ),
        (
            "https://www.mueller-bau.de/kontakt",
            "<title>Kontakt | Müller Bau</title>",
            "<p>Hallo</p>",
            "Müller Bau",
        ),
        (
            "https://hgservice.net/impressum",
            "<title>Impressum | Service</title>",
            "<footer>© 2026 Haus &amp; Garten Service</footer>",
            "Haus & Garten Service",
        ),
        (
            "https://www.geofurrer.de/",
            "<title>Herzlich Willkommen</title>",
            "<footer>Copyright 2020 © www.geofurrer.de</footer>",
            "geofurrer.de",
        ),
        (
            "https://fraschinagiardini.com/contatti",
            "<title>Home</title>",
            r#"<a href="/"><img src="logo.png" alt="Logo Fraschina Giardini"></a>"#,
            "Fraschina Giardini",
        ),
    ] {
        let html = format!("<html><head>{head}</head><body>{body}</body></html>");
        assert_eq!(name(url, &html).as_deref(), Some(expected), "{url}");
    }
    // A logo described in words leaves no name; a gallery in JSON-LD is not the business.
    let html = r#"<head><title>Contáctame</title>
        <script type="application/ld+json">{"@type":"ImageGallery","name":"Selected photographs by Ann Lee"}</script></head>
        <body><a href="/"><img alt="girl holding a cat logo"></a></body>"#;
    assert_eq!(name("https://annlee-arte.cl/contact", html), None);
}
