//! Arabic pages (lexicon `core/lexicon/ar.txt`, docs/extraction.md "Lexicon"): the crawl finds
//! a contact, about or privacy page by its Arabic link text, and a number under an Arabic
//! fax label is no phone while the one under the phone label is. Fixtures are written
//! in-house (sites of the United Arab Emirates, Saudi Arabia and Egypt); every number is
//! invented.

use contact_core::crawl::{plan, PageLink};
use contact_core::extract::extract_page;
use url::Url;

fn link(home: &Url, path: &str, text: &str) -> PageLink {
    PageLink {
        url: home.join(path).expect("the fixture's path joins"),
        text: text.to_string(),
        in_footer: false,
    }
}

/// The crawl fetches the page an Arabic link text names as the contact page first, then the
/// about page, and lists the contact page (class `page.contact`, `page.about`,
/// `page.privacy`).
#[test]
fn the_crawl_reads_arabic_page_names() {
    for home in [
        "https://www.sample-site.ae/",
        "https://www.sample-site.com.sa/",
        "https://www.sample-site.com.eg/",
    ] {
        let home = Url::parse(home).expect("the fixture's URL parses");
        let links = [
            link(&home, "/p/4", "منتجاتنا"),
            link(&home, "/p/1", "سياسة الخصوصية"),
            link(&home, "/p/2", "من نحن"),
            link(&home, "/p/3", "اتصل بنا"),
        ];
        let plan = plan(&home, &links);
        let paths: Vec<&str> = plan.fetch.iter().map(Url::path).collect();
        assert_eq!(paths, ["/p/3", "/p/2", "/p/1"], "{home}");
        assert_eq!(
            plan.contact_pages.first().map(Url::path),
            Some("/p/3"),
            "{home}"
        );
    }
}

/// Each Arabic name of a contact, about or privacy page of the lexicon names its page.
#[test]
fn every_arabic_page_name_names_its_page() {
    let home = Url::parse("https://www.sample-site.ae/").expect("the fixture's URL parses");
    for contact in [
        "اتصل بنا",
        "اتصلوا بنا",
        "تواصل معنا",
        "تواصلوا معنا",
        "للتواصل",
    ] {
        let plan = plan(
            &home,
            &[
                link(&home, "/p/9", "منتجاتنا"),
                link(&home, "/p/3", contact),
            ],
        );
        assert_eq!(
            plan.contact_pages.first().map(Url::path),
            Some("/p/3"),
            "{contact}"
        );
    }
    for other in [
        "من نحن",
        "عن الشركة",
        "نبذة عنا",
        "عنا",
        "سياسة الخصوصية",
        "الخصوصية",
    ] {
        let plan = plan(
            &home,
            &[link(&home, "/p/9", "منتجاتنا"), link(&home, "/p/2", other)],
        );
        let paths: Vec<&str> = plan.fetch.iter().map(Url::path).collect();
        assert_eq!(paths, ["/p/2"], "{other}");
    }
}

/// A number under an Arabic fax label is no phone; the one under a phone label is (class
/// `label.fax`: every fax label of the lexicon, on sites of two countries).
#[test]
fn an_arabic_fax_label_marks_a_fax() {
    let sites = [
        (
            "https://www.sample-site.ae/",
            "04 381 9052",
            "04 381 9053",
            "+97143819052",
        ),
        (
            "https://www.sample-site.com.sa/",
            "011 462 7315",
            "011 462 7316",
            "+966114627315",
        ),
    ];
    for (url, phone, fax, e164) in sites {
        for phone_label in ["هاتف", "الهاتف", "جوال", "الجوال"] {
            for fax_label in ["فاكس", "الفاكس"] {
                let html = format!(
                    "<html lang=\"ar\" dir=\"rtl\"><body><footer><p>{phone_label}: {phone}</p>\
                     <p>{fax_label}: {fax}</p></footer></body></html>"
                );
                let url = Url::parse(url).expect("the fixture's URL parses");
                let page = extract_page(&url, None, html.as_bytes());
                assert_eq!(page.phones, [e164], "{url} {phone_label} {fax_label}");
            }
        }
    }
}

/// A number written in Arabic-Indic digits (`٠٤ ٣٨١ ٩٠٥٢`, U+0660–U+0669) or in the Persian
/// and Urdu ones (`۰۲۱ ۸۸۴۷ ۳۹۶۱`, U+06F0–U+06F9) is read as the same number in ASCII digits
/// (class `phone.arabic_indic_digits`; sites of the UAE, Egypt and Iran); the first
/// number of two on a line is still the first.
#[test]
fn numbers_in_arabic_indic_digits_are_read() {
    for (url, printed, e164) in [
        ("https://www.sample-site.ae/", "٠٤ ٣٨١ ٩٠٥٢", "+97143819052"),
        (
            "https://www.sample-site.com.eg/",
            "٠٢ ٢٧٩٤ ٦٣٨١",
            "+20227946381",
        ),
        (
            "https://www.sample-site.ir/",
            "۰۲۱ ۸۸۴۷ ۳۹۶۱",
            "+982188473961",
        ),
    ] {
        let html = format!(
            "<html lang=\"ar\" dir=\"rtl\"><body><footer><p>هاتف: {printed}</p></footer></body></html>"
        );
        let url = Url::parse(url).expect("the fixture's URL parses");
        let page = extract_page(&url, None, html.as_bytes());
        assert_eq!(page.phones, [e164], "{url}");
    }
    let html = "<html lang=\"ar\"><body><p>٠٤ ٣٨١ ٩٠٥٢ - 04 381 9064</p></body></html>";
    let url = Url::parse("https://www.sample-site.ae/").expect("the fixture's URL parses");
    let page = extract_page(&url, None, html.as_bytes());
    assert_eq!(page.phones, ["+97143819052", "+97143819064"]);
}
