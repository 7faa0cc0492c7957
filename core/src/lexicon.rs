//! The words the extractors and the crawl planner look for, as data: one file per language,
//! `core/lexicon/<language>.txt` (`<language>` an ISO 639-1 code), compiled into the binary
//! (`include_str!`) and parsed once, on first use (docs/extraction.md, "Lexicon").
//!
//! A file is UTF-8 text, one entry a line: `<class>\t<entry>` — a [`Class`] name, one tab, the
//! entry as it is written on pages (its case and accents; callers fold as they read: the
//! lexicon does not normalise). Blank lines and lines starting with `#` are comments. A line
//! that does not parse, or names no known class, is left out here (no panic) and fails the
//! unit test `every_line_of_every_file_parses`, as does an entry written twice in one class
//! and language (ignoring case).
//!
//! The rules stay with their modules; this module only holds the words, so adding a language
//! is adding a file (and its row in [`FILES`]; a test in `core/tests/lexicon.rs` finds a file
//! that has no row).

use std::ops::Range;
use std::sync::OnceLock;

/// The language files: ISO 639-1 code, and the file's text. Sorted by code.
const FILES: &[(&str, &str)] = &[
    ("ar", include_str!("../lexicon/ar.txt")),
    ("bg", include_str!("../lexicon/bg.txt")),
    ("ca", include_str!("../lexicon/ca.txt")),
    ("cs", include_str!("../lexicon/cs.txt")),
    ("da", include_str!("../lexicon/da.txt")),
    ("de", include_str!("../lexicon/de.txt")),
    ("el", include_str!("../lexicon/el.txt")),
    ("en", include_str!("../lexicon/en.txt")),
    ("es", include_str!("../lexicon/es.txt")),
    ("et", include_str!("../lexicon/et.txt")),
    ("fi", include_str!("../lexicon/fi.txt")),
    ("fr", include_str!("../lexicon/fr.txt")),
    ("he", include_str!("../lexicon/he.txt")),
    ("hu", include_str!("../lexicon/hu.txt")),
    ("id", include_str!("../lexicon/id.txt")),
    ("is", include_str!("../lexicon/is.txt")),
    ("it", include_str!("../lexicon/it.txt")),
    ("ja", include_str!("../lexicon/ja.txt")),
    ("lv", include_str!("../lexicon/lv.txt")),
    ("nb", include_str!("../lexicon/nb.txt")),
    ("nl", include_str!("../lexicon/nl.txt")),
    ("pl", include_str!("../lexicon/pl.txt")),
    ("pt", include_str!("../lexicon/pt.txt")),
    ("ro", include_str!("../lexicon/ro.txt")),
    ("ru", include_str!("../lexicon/ru.txt")),
    ("sk", include_str!("../lexicon/sk.txt")),
    ("sl", include_str!("../lexicon/sl.txt")),
    ("sv", include_str!("../lexicon/sv.txt")),
    ("sw", include_str!("../lexicon/sw.txt")),
    ("tr", include_str!("../lexicon/tr.txt")),
    ("uk", include_str!("../lexicon/uk.txt")),
];

macro_rules! classes {
    ($($(#[doc = $doc:literal])+ $variant:ident = $name:literal,)+) => {
        /// What an entry is: the first column of a lexicon line. Each class names one kind of
        /// word; the module that reads a class holds the rule that uses it.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Class {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Class {
            /// Every class, in the order of this list.
            pub const ALL: &'static [Class] = &[$(Class::$variant,)+];

            /// The class's name in the lexicon files (`page.contact`).
            pub const fn name(self) -> &'static str {
                match self {
                    $(Class::$variant => $name,)+
                }
            }

            /// The class's doc line (what its entries are).
            pub const fn doc(self) -> &'static str {
                match self {
                    $(Class::$variant => concat!($($doc),+),)+
                }
            }
        }
    };
}

classes! {
    /// Link text or URL path word of a contact page (contact, directions, locations).
    PageContact = "page.contact",
    /// Link text or URL path word of an imprint or legal-notice page.
    PageImprint = "page.imprint",
    /// Link text or URL path word of an about page (about us, company, team).
    PageAbout = "page.about",
    /// Link text or URL path word of a privacy policy (it names the data controller).
    PagePrivacy = "page.privacy",
    /// Link text or URL path word of terms and conditions (they name the contracting party).
    PageTerms = "page.terms",
    /// Link text or URL path word of a support, help or customer-service page.
    PageSupport = "page.support",
    /// Street type written in an address (street, avenue, Straße, rue, calle).
    StreetType = "street.type",
    /// Street type written as the end of a street's name (-straat, -straße, -gatan, -vej).
    StreetSuffix = "street.suffix",
    /// Word of an address line that is not a street type: a building, estate, unit or box
    /// (building, industrial estate, suite, PO, Postbus).
    AddressWord = "address.word",
    /// Word of a unit, floor or box that opens an address part without a street name (suite,
    /// floor, Etage, piso, Postfach).
    AddressUnit = "address.unit",
    /// Word naming a building or a part of one, written with an address before or after the
    /// street (floor, unit, suite, tower, Gebäude, étage, piso): a line or chunk holding one
    /// beside the street line is part of the street.
    AddressPremise = "address.premise",
    /// Word of a post-office box written before the box number (P.O. Box, S.L.P.): a postcode
    /// joined to the box number by a dash is the box's post office's (`… 12345-00100`).
    AddressBox = "address.box",
    /// Word or abbreviation of a flat's door written after its floor, after the house number
    /// (izq., dcha., esq., dto.: left, right): the street ends with it as with a door letter.
    AddressDoor = "address.door",
    /// Name of a state or province written in addresses between the town and the postcode
    /// where the country's layout puts it after the postcode (Haryana, Lagos State): the
    /// field before it is the town.
    RegionName = "region.name",
    /// Word or abbreviation that marks a name as a region's, before or after it (Co., County,
    /// jud., megye, область, maakond): the field it stands in is the region, not the town or
    /// the street.
    RegionMark = "region.mark",
    /// Word or abbreviation written before a town's name in an address (г., гр., м.: city,
    /// town): not part of the town.
    LocalityMark = "locality.mark",
    /// Name or abbreviation of a currency written after an amount (euro, Ευρώ, Ft, Kč, zł):
    /// the number before it is an amount, not a postcode.
    AmountCurrency = "amount.currency",
    /// Label before an address (address, Anschrift, adresse, dirección).
    LabelAddress = "label.address",
    /// Heading over the business's place, its address under or after it without an address
    /// label (office, head office, branch, showroom, visit us, Büro, oficina, siège).
    LabelLocation = "label.location",
    /// Label before a phone number (phone, tel., Telefon, téléphone).
    LabelPhone = "label.phone",
    /// Label before an email address (email, e-mail, courriel).
    LabelEmail = "label.email",
    /// Label before a web address (web, site, URL).
    LabelWeb = "label.web",
    /// Label before a company-registration or tax number (VAT no., USt-IdNr., KvK).
    LabelRegistration = "label.registration",
    /// Word or abbreviation before a number that says it is a phone without being the label
    /// of a contact field (call, dial, office, sales, T, P, bel).
    PhoneCue = "phone.cue",
    /// Label before a fax number (fax, telefax, facsimile).
    LabelFax = "label.fax",
    /// Label before bank details: an account number, a bank code (IBAN, Konto, sort code, BSB).
    LabelBank = "label.bank",
    /// Label before a number of another kind that is no phone: an order, invoice, item, model
    /// or serial number, a price, a post-office box (order no., SKU, PO Box, Postbus).
    LabelNumber = "label.number",
    /// Kind of organisation (association, foundation, chamber, council).
    OrgType = "org.type",
    /// Legal form of a business (Ltd, GmbH, S.A., B.V.).
    LegalForm = "legal.form",
    /// Heading or line naming a public authority, regulator, chamber or ombudsman.
    PartyAuthority = "party.authority",
    /// Heading or line naming the web host.
    PartyHost = "party.host",
    /// Heading or line naming the website's maker (design, development agency).
    PartyMaker = "party.maker",
    /// Heading or line naming another party of a legal notice: the insurer, an association
    /// the business is a member of.
    PartyOther = "party.other",
    /// Heading or line naming the business's bank (bank details): its section holds the
    /// account, never a contact line.
    PartyBank = "party.bank",
    /// Credit words before a website maker's name (designed by, website by, réalisation).
    CreditMaker = "credit.maker",
    /// A person's role or profession (director, managing director, Geschäftsführer).
    PersonRole = "person.role",
    /// A person's title or honorific (Dr., Mr, Frau, Sra.).
    PersonTitle = "person.title",
    /// Label of a legal notice's field that names the publisher (raison sociale, Firmenname).
    LabelPublisher = "label.publisher",
    /// A publisher label that also heads a section of its own, the name on the next line
    /// (éditeur du site).
    HeadingPublisher = "heading.publisher",
    /// Kind of business that says what a business is, not who (restaurant, bakery, trattoria).
    OrgKind = "org.kind",
    /// Academic degree that opens a line of someone's education (laurea, PhD, licenciatura).
    PersonDegree = "person.degree",
    /// Word of a university's or college's name (university, Hochschule, politecnico).
    OrgSchool = "org.school",
    /// Title or name a site builder or template leaves in place of the business's name
    /// (home, untitled document, my website).
    NamePlaceholder = "name.placeholder",
    /// Title segment that names a page or the kind of site, not the business (home, contact
    /// us, official website, Startseite).
    TitleGeneric = "title.generic",
    /// Page-type word of a title segment that may open the title of a page naming the
    /// business: contact, privacy, imprint, terms (Privacyverklaring, İletişim, お問い合わせ).
    TitlePage = "title.page",
    /// Home or about page word of a title segment (Anasayfa, ホーム, Om os, 会社概要).
    TitleHome = "title.home",
    /// Word after a brand that belongs to the business's name without being a legal form
    /// (company, group).
    NameSuffix = "name.suffix",
    /// Heading or line that marks a page as a legal notice (Impressum, mentions légales,
    /// aviso legal), found anywhere in it, case ignored.
    HeadingLegal = "heading.legal",
    /// End of a compound noun that names an authority whatever comes before it (`kammer` of
    /// Rechtsanwaltskammer, `myndighet`, `tilsyn`): written lower-case as the word's end.
    CompoundAuthority = "compound.authority",
    /// End of a compound noun that names another third party of a legal notice, a dispute
    /// body or an insurer (`streitbeilegung`, `versicherer`): written lower-case.
    CompoundParty = "compound.party",
    /// How a page writes `@` in an obfuscated email address: a word in brackets as written
    /// (`[at]`, `(arobase)`), or a word that is no other word of its language, read between
    /// spaces (`arobase`).
    EmailAt = "email.at",
    /// A word for `@` that is also a word of prose (English `at`): read between spaces, only
    /// with a dot-word in the domain.
    EmailAtWord = "email.at.word",
    /// How a page writes `.` in an obfuscated email address: a word in brackets as written
    /// (`[dot]`, `(punkt)`), or a word read between spaces (`dot`, `punt`).
    EmailDot = "email.dot",
    /// Local part of an email address that reaches no one: a form's or template's placeholder
    /// (youremail, john.doe) or a no-reply sender.
    EmailPlaceholder = "email.placeholder",
    /// Local part that names no one (name, email): a placeholder on another domain, a real
    /// mailbox on the site's own.
    EmailGeneric = "email.generic",
    /// Word after a copyright sign that names the notice itself, not its holder (notice,
    /// statement, policy).
    CopyrightText = "copyright.text",
    /// Name or abbreviation of a month (January, Jan., Oktober, abril, января): a four-digit
    /// number right after it, or after it and a day, is a year, not a postcode.
    DateMonth = "date.month",
}

impl Class {
    /// The class named `name` in the lexicon files, if any.
    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL
            .iter()
            .copied()
            .find(|class| class.name() == name)
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One lexicon entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// ISO 639-1 code of the file it comes from (`de`).
    pub language: &'static str,
    /// The entry as written in the file (one or more words, case and accents kept).
    pub text: &'static str,
}

/// Every entry of `class`, in all languages: sorted by language code, file order within a
/// language. Built once (the first call parses every file; a few microseconds afterwards
/// nothing is allocated).
pub fn entries(class: Class) -> &'static [Entry] {
    let lexicon = Lexicon::get();
    &lexicon.entries[lexicon.classes[class.index()].clone()]
}

/// The entries of `class` in one `language` (ISO 639-1 code), in file order; empty for a
/// language without a file.
pub fn entries_in(class: Class, language: &str) -> &'static [Entry] {
    let all = entries(class);
    let from = all.partition_point(|entry| entry.language < language);
    let to = from + all[from..].partition_point(|entry| entry.language == language);
    &all[from..to]
}

/// The texts of [`entries`]`(class)`.
pub fn words(class: Class) -> impl Iterator<Item = &'static str> + Clone {
    entries(class).iter().map(|entry| entry.text)
}

/// The entries of `classes`, each written as `normal` gives it (lower-cased, dots dropped …),
/// sorted and without repeats: the look-up table of a rule that compares words with
/// [`holds`]. Allocates; call it once, in the reader's `OnceLock`.
pub fn sorted_words(classes: &[Class], normal: impl Fn(&str) -> String) -> SortedWords {
    let words: Vec<String> = classes
        .iter()
        .flat_map(|class| words(*class))
        .map(normal)
        .collect();
    SortedWords::from_words(words)
}

/// Sorted words without repeats (a [`sorted_words`] table), read as a slice, with a filter
/// of their shapes: most words a rule asks about are in no table, and the filter answers
/// them with one load, where a binary search compared strings (each a load of a cold
/// pointer and a call) about ten times.
pub struct SortedWords {
    words: Vec<String>,
    /// Bit `n` (63 for 63 bytes or more) of entry `b`: some word of `n` bytes starts with
    /// byte `b` (the empty word: bit 0 of entry 0).
    shapes: Box<[u64; 256]>,
}

impl SortedWords {
    /// The table of `words`, which it sorts and rids of repeats.
    pub fn from_words(mut words: Vec<String>) -> SortedWords {
        words.sort_unstable();
        words.dedup();
        let mut shapes = Box::new([0u64; 256]);
        for word in &words {
            let (first, bit) = Self::shape(word);
            shapes[first] |= bit;
        }
        SortedWords { words, shapes }
    }

    /// The entry and the bit of `word`'s shape.
    fn shape(word: &str) -> (usize, u64) {
        let first = word.as_bytes().first().map_or(0, |b| usize::from(*b));
        (first, 1 << word.len().min(63))
    }

    /// The words, sorted.
    pub fn into_vec(self) -> Vec<String> {
        self.words
    }

    /// Whether the table holds `word`.
    pub fn holds(&self, word: &str) -> bool {
        let (first, bit) = Self::shape(word);
        self.shapes[first] & bit != 0
            && self
                .words
                .binary_search_by(|probe| probe.as_str().cmp(word))
                .is_ok()
    }
}

impl std::ops::Deref for SortedWords {
    type Target = [String];

    fn deref(&self) -> &[String] {
        &self.words
    }
}

impl<'a> IntoIterator for &'a SortedWords {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.words.iter()
    }
}

/// Whether `sorted` (a [`sorted_words`] table) holds `word`.
pub fn holds(sorted: &SortedWords, word: &str) -> bool {
    sorted.holds(word)
}

/// The languages that have a file, as ISO 639-1 codes, sorted.
pub fn languages() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(language, _)| *language)
}

/// Why a line of a lexicon file is not an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineError {
    /// No tab between class and entry, or more than one.
    NotTwoColumns,
    /// The first column is not a [`Class`] name.
    UnknownClass,
    /// The entry is empty or has white space at either end.
    BadEntry,
}

/// Reads one line of a lexicon file: `Ok(None)` for a comment or blank line, the class and the
/// entry for an entry line.
pub fn parse_line(line: &str) -> Result<Option<(Class, &str)>, LineError> {
    parse_line_after(line, &mut None)
}

/// All entries, grouped by class (in [`Class::ALL`] order), then by language.
struct Lexicon {
    entries: Vec<Entry>,
    /// For each class (by its index), its range of `entries`.
    classes: Vec<Range<usize>>,
}

impl Lexicon {
    fn get() -> &'static Lexicon {
        static LEXICON: OnceLock<Lexicon> = OnceLock::new();
        LEXICON.get_or_init(|| {
            // At most one entry a line: sized once, not grown by copies.
            let lines = FILES
                .iter()
                .map(|(_, file)| memchr::memchr_iter(b'\n', file.as_bytes()).count() + 1)
                .sum();
            let mut tagged: Vec<(Class, Entry)> = Vec::with_capacity(lines);
            for &(language, file) in FILES {
                // A file writes a class's entries one after the other: the class of the line
                // before is most often this line's, and is looked up again only when not.
                let mut last: Option<(&str, Class)> = None;
                for line in file.lines() {
                    if let Ok(Some((class, text))) = parse_line_after(line, &mut last) {
                        tagged.push((class, Entry { language, text }));
                    }
                }
            }
            // Grouped by class by counting (no sort): `FILES` is sorted by language and read
            // in order, so each class's entries come out as a stable sort by class and
            // language put them, file order kept within a language.
            let mut starts = vec![0usize; Class::ALL.len() + 1];
            for (class, _) in &tagged {
                starts[class.index() + 1] += 1;
            }
            for at in 1..starts.len() {
                starts[at] += starts[at - 1];
            }
            let classes: Vec<Range<usize>> = starts.windows(2).map(|w| w[0]..w[1]).collect();
            let mut next = starts;
            let mut entries = vec![
                Entry {
                    language: "",
                    text: ""
                };
                tagged.len()
            ];
            for (class, entry) in tagged {
                entries[next[class.index()]] = entry;
                next[class.index()] += 1;
            }
            Lexicon { entries, classes }
        })
    }
}

/// [`parse_line`], with `last` the class column and class of the entry line read before
/// (updated here): a line of the same class is not looked up among the class names again.
fn parse_line_after<'a>(
    line: &'a str,
    last: &mut Option<(&'a str, Class)>,
) -> Result<Option<(Class, &'a str)>, LineError> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    if line.trim().is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    // One tab, no other: the class name before it, the entry after it.
    let Some(tab) = memchr::memchr(b'\t', line.as_bytes()) else {
        return Err(LineError::NotTwoColumns);
    };
    let (name, text) = (&line[..tab], &line[tab + 1..]);
    if memchr::memchr(b'\t', text.as_bytes()).is_some() {
        return Err(LineError::NotTwoColumns);
    }
    let class = match *last {
        Some((last_name, class)) if last_name == name => class,
        _ => {
            let class = Class::from_name(name).ok_or(LineError::UnknownClass)?;
            *last = Some((name, class));
            class
        }
    };
    if text.is_empty() || text.trim() != text {
        return Err(LineError::BadEntry);
    }
    Ok(Some((class, text)))
}

#[cfg(test)]
mod tests {

    proptest::proptest! {
        /// A table's filtered look-up answers as a plain binary search of its words, for words
        /// in the table, words of a word's first byte and length, and any other word.
        #[test]
        fn sorted_words_hold_what_a_binary_search_finds(
            words in proptest::collection::vec("[a-cé. ]{0,5}", 0..12),
            asked in proptest::collection::vec("[a-cé. ]{0,6}", 0..12),
        ) {
            let table = SortedWords::from_words(words.clone());
            let mut sorted = words.clone();
            sorted.sort();
            sorted.dedup();
            proptest::prop_assert_eq!(&*table, &sorted[..]);
            for word in words.iter().chain(&asked) {
                let plain = sorted.binary_search(word).is_ok();
                proptest::prop_assert_eq!(holds(&table, word), plain, "{:?}", word);
            }
        }
    }

    use super::*;
    use std::collections::BTreeSet;

    /// The lexicon as it was built before the grouping by counting: every file's entry
    /// lines parsed one by one, then a stable sort by class and language.
    fn entries_by_a_stable_sort() -> Vec<Vec<Entry>> {
        let mut tagged: Vec<(Class, Entry)> = FILES
            .iter()
            .flat_map(|&(language, file)| {
                file.lines().filter_map(move |line| {
                    let (class, text) = parse_line(line).ok().flatten()?;
                    Some((class, Entry { language, text }))
                })
            })
            .collect();
        tagged.sort_by_key(|(class, entry)| (*class, entry.language));
        Class::ALL
            .iter()
            .map(|class| {
                tagged
                    .iter()
                    .filter(|(c, _)| c == class)
                    .map(|(_, entry)| *entry)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn every_class_holds_its_entries_as_a_stable_sort_ordered_them() {
        let model = entries_by_a_stable_sort();
        assert!(model.iter().map(Vec::len).sum::<usize>() > 1000);
        for (class, expected) in Class::ALL.iter().zip(&model) {
            assert_eq!(entries(*class), &expected[..], "{}", class.name());
        }
    }

    /// [`parse_line`] as it read a line before it kept the class of the line before: each
    /// class name looked up among all of them.
    fn parse_line_model(line: &str) -> Result<Option<(Class, &str)>, LineError> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() || line.starts_with('#') {
            return Ok(None);
        }
        let mut columns = line.split('\t');
        let (Some(class), Some(text), None) = (columns.next(), columns.next(), columns.next())
        else {
            return Err(LineError::NotTwoColumns);
        };
        let class = Class::from_name(class).ok_or(LineError::UnknownClass)?;
        if text.is_empty() || text.trim() != text {
            return Err(LineError::BadEntry);
        }
        Ok(Some((class, text)))
    }

    proptest::proptest! {
        /// Lines read one after the other, each with the class of the one before, read as
        /// each read alone: known and unknown class names, repeated or not, bad entries.
        #[test]
        fn a_line_read_after_another_reads_as_alone(
            lines in proptest::collection::vec(
                (
                    proptest::sample::select(vec![
                        "page.contact", "street.type", "email.at", "page.contactx", "",
                        "# street.type", "date.month",
                    ]),
                    proptest::sample::select(vec!["\t", " ", "\t\t", ""]),
                    "[a-c \\r]{0,4}",
                ),
                0..16,
            ),
        ) {
            let lines: Vec<String> = lines
                .iter()
                .map(|(name, tab, text)| format!("{name}{tab}{text}"))
                .collect();
            let mut last = None;
            for line in &lines {
                proptest::prop_assert_eq!(
                    parse_line_after(line, &mut last),
                    parse_line_model(line),
                    "{:?}",
                    line
                );
            }
        }
    }

    #[test]
    fn every_line_of_every_file_parses() {
        let mut faults = Vec::new();
        for (language, file) in FILES {
            let mut seen = BTreeSet::new();
            for (number, line) in file.lines().enumerate() {
                match parse_line(line) {
                    Ok(None) => {}
                    Ok(Some((class, text))) => {
                        if !seen.insert((class, text.to_lowercase())) {
                            faults.push(format!(
                                "{language}.txt:{}: {text:?} twice in {}",
                                number + 1,
                                class.name()
                            ));
                        }
                    }
                    Err(error) => faults.push(format!("{language}.txt:{}: {error:?}", number + 1)),
                }
            }
        }
        assert!(faults.is_empty(), "{}", faults.join("\n"));
    }

    #[test]
    fn files_are_sorted_by_language_code() {
        let codes: Vec<&str> = languages().collect();
        let mut sorted = codes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(codes, sorted);
        assert!(codes
            .iter()
            .all(|code| code.len() == 2 && code.bytes().all(|b| b.is_ascii_lowercase())));
    }

    #[test]
    fn every_class_has_a_unique_name_and_a_doc_line() {
        let names: BTreeSet<&str> = Class::ALL.iter().map(|class| class.name()).collect();
        assert_eq!(names.len(), Class::ALL.len());
        for class in Class::ALL {
            assert_eq!(Class::from_name(class.name()), Some(*class));
            assert!(!class.doc().trim().is_empty(), "{}", class.name());
            assert_eq!(
                class.index(),
                Class::ALL.iter().position(|c| c == class).unwrap()
            );
        }
    }

    #[test]
    fn lines_are_read_as_the_format_says() {
        assert_eq!(parse_line("# page words"), Ok(None));
        assert_eq!(parse_line("   "), Ok(None));
        assert_eq!(
            parse_line("page.contact\tget in touch"),
            Ok(Some((Class::PageContact, "get in touch")))
        );
        assert_eq!(
            parse_line("street.type\tStraße\r"),
            Ok(Some((Class::StreetType, "Straße")))
        );
        assert_eq!(
            parse_line("page.contact get in touch"),
            Err(LineError::NotTwoColumns)
        );
        assert_eq!(
            parse_line("page.contact\tx\ty"),
            Err(LineError::NotTwoColumns)
        );
        assert_eq!(parse_line("page.kontakt\tx"), Err(LineError::UnknownClass));
        assert_eq!(parse_line("page.contact\t x"), Err(LineError::BadEntry));
        assert_eq!(parse_line("page.contact\t"), Err(LineError::BadEntry));
    }

    #[test]
    fn a_class_is_found_in_every_language_and_in_one() {
        let contact = entries(Class::PageContact);
        assert!(contact
            .iter()
            .any(|e| e.language == "en" && e.text == "contact"));
        assert!(contact
            .iter()
            .any(|e| e.language == "de" && e.text == "Kontakt"));
        let german = entries_in(Class::PageContact, "de");
        assert!(!german.is_empty());
        assert!(german.iter().all(|e| e.language == "de"));
        assert_eq!(
            german.len(),
            contact.iter().filter(|e| e.language == "de").count()
        );
        assert!(entries_in(Class::PageContact, "xx").is_empty());
        assert!(words(Class::PageImprint).any(|w| w == "Impressum"));
        // Every class's entries are its own.
        let total: usize = Class::ALL.iter().map(|c| entries(*c).len()).sum();
        let lines: usize = FILES
            .iter()
            .flat_map(|(_, file)| file.lines())
            .filter(|line| matches!(parse_line(line), Ok(Some(_))))
            .count();
        assert_eq!(total, lines);
    }
}
