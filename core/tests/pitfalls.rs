//! Page-level tests, one per trap that the labelled corpus shows (its `pitfalls` tags), each on
//! a small page written for the test.

use contact_core::extract::socials::Network;
use contact_core::extract::{self, PageExtraction};
use url::Url;

fn page(url: &str, html: &str) -> PageExtraction {
    extract::extract_page(
        &Url::parse(url).expect("test URL"),
        Some("text/html"),
        html.as_bytes(),
    )
}

fn socials(p: &PageExtraction, network: Network) -> Vec<&str> {
    p.socials
        .iter()
        .filter(|(n, _)| *n == network)
        .map(|(_, u)| u.as_str())
        .collect()
}

#[test]
fn email_in_html_comment_or_script_is_not_the_business() {
    let p = page(
        "https://a.nl/",
        "<!-- support@agency.nl --><script>var e='dev@agency.nl'</script><p>info@a.nl</p>",
    );
    assert_eq!(p.emails, ["info@a.nl"]);
}

#[test]
fn mailto_text_mismatch_keeps_both() {
    let p = page(
        "https://a.nl/",
        r#"<a href="mailto:p.jansen@a.nl">b.mulder@a.nl</a>"#,
    );
    assert_eq!(p.emails, ["p.jansen@a.nl", "b.mulder@a.nl"]);
}

#[test]
fn entity_encoded_mailto_and_mixed_case() {
    let p = page(
        "https://a.com/",
        r#"<a href="&#109;&#97;&#105;&#108;&#116;&#111;&#58;Info&#64;StearnsDesignBuild.com">Info@StearnsDesignBuild.com</a>"#,
    );
    assert_eq!(p.emails, ["info@stearnsdesignbuild.com"]);
}

#[test]
fn form_placeholders_are_not_emails() {
    let p = page(
        "https://a.com/",
        r#"<input placeholder="you@domain.com"><textarea>name@company.com</textarea><p>Email: yourname@example.com</p>"#,
    );
    assert!(p.emails.is_empty(), "{:?}", p.emails);
}

#[test]
fn registration_numbers_are_not_phones() {
    let p = page(
        "https://a.co.uk/",
        "<p>Tel: 01625 856 500</p><p>Registered in England, Company No: 2443078. VAT Registration No: 927547983</p>\
         <p>KvK 17093432 | IBAN NL91ABNA0417164300 | DX 12345 Wilmslow</p>",
    );
    assert_eq!(p.phones, ["+441625856500"]);
}

#[test]
fn abn_and_au_1300_number() {
    let p = page(
        "https://a.com.au/",
        "<p>Phone 1300 662 433</p><p>ABN 67 107 751 931 Credit Licence 387894</p>",
    );
    assert_eq!(p.phones, ["+611300662433"]);
}

#[test]
fn fax_is_left_out_and_format_variants_merge() {
    let p = page(
        "https://a.com/",
        "<p>Phone: 303.683.5033</p><p>Fax: 303.683.5034</p><footer>Phone 303-683-5033 | 202.400.3053 fax</footer>\
         <p>Greenwood, IN 46142</p>",
    );
    assert_eq!(p.phones, ["+13036835033"]);
}

#[test]
fn plus44_with_trunk_zero_and_0031() {
    let p = page("https://a.co.uk/", "<p>T: +44 (0)1452 730 505</p>");
    assert_eq!(p.phones, ["+441452730505"]);
    let p = page("https://a.nl/", "<p>Tel. 0031 (0)46 475 77 77</p>");
    assert_eq!(p.phones, ["+31464757777"]);
}

#[test]
fn tel_href_only_and_malformed_tel() {
    let p = page(
        "https://a.nl/",
        r#"<a href="tel:0464757777">Bel ons</a><a href="tel:+support@a.nl">x</a>"#,
    );
    assert_eq!(p.phones, ["+31464757777"]);
}

#[test]
fn opening_hours_and_dates_are_not_phones() {
    let p = page(
        "https://a.nl/",
        "<p>Ma t/m vr 08.00-17.00 uur, za 09.00 - 12.00</p><p>Bijgewerkt 12-03-2014</p>",
    );
    assert!(p.phones.is_empty(), "{:?}", p.phones);
}

#[test]
fn share_buttons_plugins_and_generic_links_are_not_profiles() {
    let p = page(
        "https://a.nl/",
        r#"<a href="https://twitter.com/share?url=x">Tweet</a><a href="http://www.facebook.com/">Facebook</a>
           <iframe src="https://www.facebook.com/plugins/like.php?href=x"></iframe>
           <a href="http://www.youtube.com/subscription_center?add_user_id=abc">Subscribe</a>
           <a href="http://www.addthis.com/bookmark.php">Share</a><a href="https://twitter.com/#%21/nickstein">Twitter</a>
           <a href="http://www.twitter.com/nickstein">Twitter</a>"#,
    );
    assert_eq!(socials(&p, Network::X), ["https://x.com/nickstein"]);
    assert!(socials(&p, Network::Facebook).is_empty());
    assert!(socials(&p, Network::YouTube).is_empty());
}

#[test]
fn youtube_video_is_not_a_channel_and_linkedin_group_is_kept() {
    let p = page(
        "https://a.com/",
        r#"<a href="http://www.youtube.com/watch?v=abc">Video</a><a href="http://www.linkedin.com/groups?gid=2911992&trk=myg">LinkedIn</a>"#,
    );
    assert!(socials(&p, Network::YouTube).is_empty());
    assert_eq!(
        socials(&p, Network::LinkedIn),
        ["https://linkedin.com/groups/2911992"]
    );
}

#[test]
fn image_map_links_count() {
    let p = page(
        "https://a.com/",
        r#"<map><area href="https://www.facebook.com/AcmeCo" alt="Facebook"></map>"#,
    );
    assert_eq!(
        socials(&p, Network::Facebook),
        ["https://facebook.com/AcmeCo"]
    );
}

#[test]
fn po_box_and_street_are_two_addresses() {
    let p = page("https://a.com.au/", "<p>Lvl2 845 Pacific Hwy<br>Chatswood NSW 2067</p><p>PO Box 5214<br>West Chatswood NSW 1515</p>");
    let postcodes: Vec<_> = p
        .addresses
        .iter()
        .map(|a| a.postal_code.as_deref())
        .collect();
    assert_eq!(postcodes, [Some("2067"), Some("1515")]);
    assert_eq!(p.addresses[1].street.as_deref(), Some("PO Box 5214"));
}

#[test]
fn city_list_is_not_an_address() {
    let p = page(
        "https://a.com/",
        "<p>We serve Seattle, Bellevue, Kirkland, Redmond and Renton, WA.</p>",
    );
    assert!(p.addresses.is_empty());
}

#[test]
fn hidden_structured_data_adds_nothing_but_visible_block_does() {
    let p = page(
        "https://a.com/",
        r#"<div style="display:none" itemscope itemtype="http://schema.org/Dentist"><span itemprop="name">Hidden Name</span>
           <div itemprop="address" itemscope itemtype="http://schema.org/PostalAddress"><span itemprop="postalCode">99999</span></div></div>
           <p>8500 Wilshire Blvd, Suite 505<br>Beverly Hills, CA 90211</p>"#,
    );
    assert_eq!(p.addresses.len(), 1);
    assert_eq!(p.addresses[0].postal_code.as_deref(), Some("90211"));
}

#[test]
fn template_placeholder_name_and_misleading_title() {
    let p = page(
        "https://www.unforgettablesmile.com/",
        "<title>Home</title><footer>© 2013 Your Company Name</footer>",
    );
    assert_eq!(p.company_name, None);
    let p = page(
        "https://www.reubsaet.nl/",
        "<title>Home</title><p>© 2014 Autobedrijf Reubsaet</p>",
    );
    assert_eq!(p.company_name.as_deref(), Some("Autobedrijf Reubsaet"));
}

#[test]
fn base_tag_resolves_relative_links() {
    let p = page(
        "http://www.a.com/contact/index.html",
        r#"<base href="http://www.a.com/"><a href="about.html">About</a>"#,
    );
    assert_eq!(p.links[0].url.as_str(), "http://www.a.com/about.html");
}

#[test]
fn name_split_by_markup_and_superscript_mark() {
    let p = page(
        "https://tropicalwebworks.com/",
        "<title>Tropical Web Works&trade; | Web Design</title>",
    );
    assert_eq!(p.company_name.as_deref(), Some("Tropical Web Works"));
}

#[test]
fn a_comment_ending_in_three_dashes_hides_nothing_after_it() {
    // Seen on a modern site: `<!--- START - Footer -->` and `<!-- Footer Logo --->` made
    // everything after them vanish (tl 0.7 misread the comment end).
    let url = url::Url::parse("https://www.acme-example.com/").expect("static URL");
    let html = r#"<html><body><!--- START - Footer --><footer><!-- Footer Logo --->
        <p>Mail <a href="mailto:info@acme-example.com">info@acme-example.com</a></p>
        <a href="https://www.linkedin.com/company/acme-example">LinkedIn</a></footer>
        <!-- x --!><p>sales@acme-example.com</p></body></html>"#;
    let page = contact_core::extract::extract_page(&url, Some("text/html"), html.as_bytes());
    assert_eq!(
        page.emails,
        ["info@acme-example.com", "sales@acme-example.com"]
    );
    assert_eq!(page.socials.len(), 1);
}
