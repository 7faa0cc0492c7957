//! Crafted pages that cost the most per byte, each just under the 2 MiB page cap
//! (docs/contract.md "Fetching"): what a hostile or broken site can make the
//! extractor do. Used by the `pathological` benchmark, the load scripts' fixture site (through
//! the `pathological-page` binary) and the tests that check the per-page caps.

/// The page cap the service applies after decompression: 2 MiB.
pub const PAGE_CAP: usize = 2 * 1024 * 1024;

/// Builds one crafted page.
pub type Builder = fn() -> Vec<u8>;

/// A pathological page: its name (as the load scripts ask for it) and how to build it.
pub const PAGES: &[(&str, Builder)] = &[
    ("emails", emails),
    ("phones", phones),
    ("links", links),
    ("nested", nested),
    ("addresses", addresses),
    ("socials", socials),
    ("comments", comments),
    ("unclosed", unclosed),
    ("svgs", svgs),
    ("end-tags", end_tags),
    ("nested-links", nested_links),
    ("nested-props", nested_props),
    ("tags", tags),
    ("skips", skips),
    ("bare-lt", bare_lt),
    ("nuxt2-shared-argument", nuxt2_shared_argument),
    ("nuxt3-shared-key", nuxt3_shared_key),
    ("nested-json-ld", nested_json_ld),
    ("long-attributes", long_attributes),
    ("many-scripts", many_scripts),
    ("mailto-list", mailto_list),
    ("microdata-items", microdata_items),
    ("phone-runs", phone_runs),
    ("address-lines", address_lines),
];

/// The page named `name`, or `None`.
pub fn page(name: &str) -> Option<Vec<u8>> {
    PAGES.iter().find(|(n, _)| *n == name).map(|(_, f)| f())
}

/// Repeats `item(i)` for i = 0, 1, … while the page stays under the cap.
fn fill(head: &str, item: impl Fn(usize) -> String, tail: &str) -> Vec<u8> {
    let mut page = String::from(head);
    for i in 0.. {
        let next = item(i);
        if page.len() + next.len() + tail.len() >= PAGE_CAP {
            break;
        }
        page.push_str(&next);
    }
    page.push_str(tail);
    page.into_bytes()
}

const HEAD: &str = "<!doctype html><html><head><title>Pathological</title></head><body>";
/// What the hostile framework-state pages hold besides their state: the answer they must
/// still give (an email and a phone in the text).
pub const PLAIN_CONTACT: &str = "<p>Kontakt: post@beispiel-laden.de, Tel. +49 30 2847 1022</p>\n";
const TAIL: &str = "</body></html>";

/// ~150 000 short comments between words: each comment's end was searched for to the end of
/// the page (`--!>` is rare), so the prescan was quadratic in the number of comments.
pub fn comments() -> Vec<u8> {
    fill(HEAD, |i| format!("w{i}<!-- c -->"), TAIL)
}

/// ~100 000 distinct emails on one line.
pub fn emails() -> Vec<u8> {
    fill(HEAD, |i| format!("user{i}@host{}.com ", i % 97), TAIL)
}

/// ~80 000 distinct phone numbers, one per line.
pub fn phones() -> Vec<u8> {
    fill(
        HEAD,
        |i| {
            format!(
                "<p>Call +1 303 5{:02} {:04}</p>\n",
                i / 10_000 % 100,
                i % 10_000
            )
        },
        TAIL,
    )
}

/// ~40 000 distinct same-site links that all look like contact pages.
pub fn links() -> Vec<u8> {
    fill(
        HEAD,
        |i| format!("<a href=\"/contact-{i}\">Contact {i}</a>\n"),
        TAIL,
    )
}

/// ~200 000 nested elements that are never closed.
pub fn nested() -> Vec<u8> {
    fill(HEAD, |i| format!("<div><span>{}", i % 10), TAIL)
}

/// ~40 000 distinct US postal addresses.
pub fn addresses() -> Vec<u8> {
    fill(
        HEAD,
        |i| {
            format!(
                "<p>{} Main St<br>Denver, CO {:05}</p>\n",
                i + 1,
                80_000 + i % 20_000
            )
        },
        TAIL,
    )
}

/// ~30 000 distinct social profile links.
pub fn socials() -> Vec<u8> {
    fill(
        HEAD,
        |i| format!("<a href=\"https://www.facebook.com/brand{i}\">f</a>\n"),
        TAIL,
    )
}

/// ~150 000 skipped elements never closed (`<noscript>`): the prescan searched each one's end
/// tag to the end of the page (80 s of CPU).
pub fn unclosed() -> Vec<u8> {
    fill(HEAD, |i| format!("<noscript><p>{}</p>", i % 10), TAIL)
}

/// ~100 000 nested `<svg>`, then their end tags: each one's matching end tag was searched for
/// from its start tag (118 s of CPU).
pub fn svgs() -> Vec<u8> {
    let n = (PAGE_CAP - HEAD.len() - TAIL.len()) / 11 - 1;
    format!("{HEAD}{}{}{TAIL}", "<svg>".repeat(n), "</svg>".repeat(n)).into_bytes()
}

/// ~150 000 end tags with an attribute value that never ends: each was read to the end of
/// the page.
pub fn end_tags() -> Vec<u8> {
    fill(HEAD, |i| format!("w{}</b z=\"", i % 10), TAIL)
}

/// ~60 000 nested links, then their end tags: each link captured all the text after it (3 s).
pub fn nested_links() -> Vec<u8> {
    let n = (PAGE_CAP - HEAD.len() - TAIL.len()) / 20 - 1;
    format!(
        "{HEAD}{}{}{TAIL}",
        "<a href=\"/c\">w ".repeat(n),
        "</a>".repeat(n)
    )
    .into_bytes()
}

/// ~50 000 nested microdata `telephone` properties in one organisation: each captured all the
/// text after it (over 110 s).
pub fn nested_props() -> Vec<u8> {
    let head = format!("{HEAD}<div itemscope itemtype=\"http://schema.org/Organization\">");
    let n = (PAGE_CAP - head.len() - TAIL.len() - 6) / 39 - 1;
    format!(
        "{head}{}{}</div>{TAIL}",
        "<span itemprop=\"telephone\">1 ".repeat(n),
        "</span>".repeat(n)
    )
    .into_bytes()
}

/// ~300 000 `<br>` between words: `tl` held a few hundred bytes per node, so the tree took
/// 317 MB before the prescan's cap on start tags (`MAX_START_TAGS`).
pub fn tags() -> Vec<u8> {
    fill(HEAD, |_| "Tel<br>".to_string(), TAIL)
}

/// ~2 million bare `<` (text, not tags): each was rewritten `&lt;` for `tl`, and the rewrites
/// held 125 MB until the prescan got a cap on rewrites; since 2026-11-24 they are left as
/// text and nothing is held.
pub fn bare_lt() -> Vec<u8> {
    fill(HEAD, |_| "<".to_string(), TAIL)
}

/// ~70 000 skipped elements, each followed by a tag the prescan rewrote (until 2026-11-24):
/// the rewrites inside skipped elements were dropped with a scan of every range per rewrite
/// (3 s).
pub fn skips() -> Vec<u8> {
    fill(HEAD, |_| "<noscript>a</noscript><i x>".to_string(), TAIL)
}

/// Nuxt 2 state whose function-call argument, a 1 MiB string, is used ~480 000 times:
/// `window.__NUXT__=(function(a){return [a,a,…]}("xxx…"))`. Each use was a copy of the
/// argument (≈ 480 GB asked for).
pub fn nuxt2_shared_argument() -> Vec<u8> {
    let argument = "x".repeat(1 << 20);
    let fixed = HEAD.len() + PLAIN_CONTACT.len() + TAIL.len() + argument.len() + 128;
    let uses = (PAGE_CAP - fixed) / 2;
    format!(
        "{HEAD}{PLAIN_CONTACT}<script>window.__NUXT__=(function(a){{return [{}a]}}(\"{argument}\"));</script>{TAIL}",
        "a,".repeat(uses - 1)
    )
    .into_bytes()
}

/// Nuxt 3 `__NUXT_DATA__` (devalue) with 100 000 references to one object whose only key is
/// ~1.8 MB long: each reference copied the key (≈ 180 GB asked for).
pub fn nuxt3_shared_key() -> Vec<u8> {
    let references = 100_000;
    let fixed = HEAD.len() + PLAIN_CONTACT.len() + TAIL.len() + 2 * references + 160;
    let key = "k".repeat(PAGE_CAP - fixed);
    format!(
        "{HEAD}{PLAIN_CONTACT}<script type=\"application/json\" id=\"__NUXT_DATA__\">[[{}1],{{\"{key}\":2}},\"v\"]</script>{TAIL}",
        "1,".repeat(references - 1)
    )
    .into_bytes()
}

/// JSON-LD blocks nested deep (objects in arrays in objects), one block after another:
/// every other block as deep as JSON parsers read (60 levels, 120 brackets), the others far
/// deeper (2 000 levels): parsing, clean-up and the walk each see every level.
pub fn nested_json_ld() -> Vec<u8> {
    let block = |depth: usize| {
        format!(
            "<script type=\"application/ld+json\">{}{{\"@type\":\"Organization\",\"telephone\":\"+49 30 1234567\"}}{}</script>\n",
            "{\"@type\":\"Organization\",\"member\":[".repeat(depth),
            "]}".repeat(depth)
        )
    };
    let (shallow, deep) = (block(60), block(2_000));
    fill(
        &format!("{HEAD}{PLAIN_CONTACT}"),
        |i| {
            if i % 2 == 0 {
                shallow.clone()
            } else {
                deep.clone()
            }
        },
        TAIL,
    )
}

/// Attribute values of ~64 KiB each, in links, metas, microdata and Astro island props
/// (character references decoded): every reader of attribute values sees long ones.
pub fn long_attributes() -> Vec<u8> {
    let long = "a".repeat(64 * 1024);
    let quoted = "&quot;x&quot;,".repeat(64 * 1024 / 14);
    fill(
        &format!("{HEAD}{PLAIN_CONTACT}"),
        |i| {
            match i % 4 {
            0 => format!("<a href=\"/contact/{long}\">Contact</a>\n"),
            1 => format!("<meta property=\"og:site_name\" content=\"{long}\">\n"),
            2 => format!(
                "<div itemscope itemtype=\"http://schema.org/Organization\"><span itemprop=\"telephone\" content=\"{long}\">1</span></div>\n"
            ),
            _ => format!(
                "<astro-island props=\"{{&quot;email&quot;:[1,[{quoted}&quot;y&quot;]]}}\"></astro-island>\n"
            ),
        }
        },
        TAIL,
    )
}

/// As many framework-state scripts as the page holds (~500, the most kept per page), each a
/// small devalue array whose members refer to the next one 40 times over: every script
/// rebuilds to the per-script cap of members.
pub fn many_scripts() -> Vec<u8> {
    let levels = 12;
    let fan_out = 40;
    let items: Vec<String> = (1..=levels)
        .map(|next| format!("[{}]", vec![next.to_string(); fan_out].join(",")))
        .collect();
    let script = format!(
        "<script type=\"application/json\" id=\"__NUXT_DATA__\">[{},\"v\"]</script>\n",
        items.join(",")
    );
    fill(&format!("{HEAD}{PLAIN_CONTACT}"), |_| script.clone(), TAIL)
}

/// One `mailto:` link listing ~60 000 recipients under the text of an address at another
/// domain, then ~60 000 addresses in the text: each recipient was looked for among those
/// read before it, and each among every address found on the page (quadratic: over a minute).
pub fn mailto_list() -> Vec<u8> {
    let half = PAGE_CAP / 2;
    let mut page = format!("{HEAD}{PLAIN_CONTACT}<a href=\"mailto:");
    for i in 0.. {
        if page.len() >= half {
            break;
        }
        page.push_str(&format!("kontakt{i}@beispiel.de,"));
    }
    page.push_str("\">info@exemple.fr</a>\n<p>");
    let tail = format!("</p>{TAIL}");
    for i in 0.. {
        let next = format!("contact{i}@exemple.fr ");
        if page.len() + next.len() + tail.len() >= PAGE_CAP {
            break;
        }
        page.push_str(&next);
    }
    page.push_str(&tail);
    page.into_bytes()
}

/// ~10 000 microdata organisations, each with a name, a telephone, an email and a postal
/// address, in two countries' shapes: every property value is a copy the walker makes and a
/// value the name, phone, email and address readers are handed.
pub fn microdata_items() -> Vec<u8> {
    fill(
        &format!("{HEAD}{PLAIN_CONTACT}"),
        |i| {
            let (street, postcode, town, phone) = match i % 2 {
                0 => ("Hauptstraße", "10115", "Berlin", "+49 30 2847"),
                _ => ("rue de la Paix", "75002", "Paris", "+33 1 4296"),
            };
            format!(
                "<div itemscope itemtype=\"http://schema.org/LocalBusiness\"><span itemprop=\"name\">Laden {i}</span>\
                 <span itemprop=\"telephone\">{phone} {:04}</span><span itemprop=\"email\">kontakt{i}@beispiel.de</span>\
                 <div itemprop=\"address\" itemscope itemtype=\"http://schema.org/PostalAddress\">\
                 <span itemprop=\"streetAddress\">{street} {}</span><span itemprop=\"postalCode\">{postcode}</span>\
                 <span itemprop=\"addressLocality\">{town}</span></div></div>\n",
                i % 10_000,
                i % 200 + 1
            )
        },
        TAIL,
    )
}

/// One line of ~260 000 phone-like runs of digits joined by hyphens (`0301234-0301235-…`),
/// then ~20 000 lines of a labelled national number each, in German and French shapes: the
/// phone reader's runs, groups and candidates, judged up to its allowance.
pub fn phone_runs() -> Vec<u8> {
    let mut page = format!("{HEAD}{PLAIN_CONTACT}<p>");
    for i in 0.. {
        if page.len() >= PAGE_CAP * 3 / 4 {
            break;
        }
        page.push_str(&format!("0301{:03}-", i % 1_000));
    }
    page.push_str("</p>\n");
    let tail = TAIL;
    for i in 0.. {
        let next = match i % 2 {
            0 => format!("<p>Tel. 030 2847 {:04}</p>\n", i % 10_000),
            _ => format!("<p>Tél. 01 42 96 {:02} {:02}</p>\n", i / 100 % 100, i % 100),
        };
        if page.len() + next.len() + tail.len() >= PAGE_CAP {
            break;
        }
        page.push_str(&next);
    }
    page.push_str(tail);
    page.into_bytes()
}

/// ~60 000 lines that look like a street, postcode and town, in German and Dutch shapes:
/// every line runs the address patterns.
pub fn address_lines() -> Vec<u8> {
    fill(
        &format!("{HEAD}{PLAIN_CONTACT}"),
        |i| match i % 2 {
            0 => format!(
                "Hauptstraße {}, {:05} Berlin<br>\n",
                i % 300 + 1,
                10_115 + i % 80
            ),
            _ => format!(
                "Kerkstraat {}, {} AB Utrecht<br>\n",
                i % 300 + 1,
                3_500 + i % 80
            ),
        },
        TAIL,
    )
}
