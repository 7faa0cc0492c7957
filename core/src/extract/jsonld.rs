//! schema.org data in JSON-LD blocks: organisation names, emails, telephones, `sameAs`
//! profiles and `PostalAddress` values, read leniently (extruct's test corpus shows CDATA
//! wrappers, comments, control characters and trailing junk in the wild).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::extract::address::MarkedAddress;
use crate::extract::page_budget::PageBudget;
use crate::extract::whitespace::collapse;

/// Deepest nesting followed inside one block.
const MAX_DEPTH: usize = 24;
/// Most objects visited per block.
const MAX_OBJECTS: usize = 10_000;
/// Most untyped objects read as addresses from one `address` array.
const MAX_UNTYPED_ADDRESSES: usize = 32;

/// What the JSON-LD blocks of a page say about the business.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct JsonLdData {
    /// `name` of organisation-like nodes, in document order.
    pub org_names: Vec<String>,
    /// `email` values.
    pub emails: Vec<String>,
    /// `telephone` values (not `faxNumber`).
    pub telephones: Vec<String>,
    /// `sameAs` URLs.
    pub same_as: Vec<String>,
    /// `address` values given as `PostalAddress` objects.
    pub addresses: Vec<MarkedAddress>,
    /// `address` values given as plain strings.
    pub address_strings: Vec<String>,
}

impl JsonLdData {
    /// Adds `other`'s values after this one's, skipping those already here.
    pub fn absorb(&mut self, other: JsonLdData) {
        fn add<T: PartialEq>(to: &mut Vec<T>, from: Vec<T>) {
            for item in from {
                push_unique(to, item);
            }
        }
        add(&mut self.org_names, other.org_names);
        add(&mut self.emails, other.emails);
        add(&mut self.telephones, other.telephones);
        add(&mut self.same_as, other.same_as);
        add(&mut self.addresses, other.addresses);
        add(&mut self.address_strings, other.address_strings);
    }
}

/// Reads every block; a block that is not JSON even after clean-up is skipped. Charged to the
/// page's `budget` (docs/security.md, "Reading a page"): each parse of a block by its bytes,
/// each value visited a unit of work; once it is spent, what was read so far.
pub fn read(blocks: &[String], budget: &PageBudget) -> JsonLdData {
    let mut data = JsonLdData::default();
    for block in blocks {
        if let Some(value) = parse_lenient(block, budget) {
            let mut objects = MAX_OBJECTS;
            walk(&value, 0, &mut objects, budget, &mut data);
        }
        if budget.spent() {
            break;
        }
    }
    data
}

/// The block as JSON: as written, else with control characters made spaces, else the longest
/// valid prefix of that (each try charged to `budget` by the block's bytes).
fn parse_lenient(block: &str, budget: &PageBudget) -> Option<Node> {
    if !budget.work(block.len()) {
        return None;
    }
    let trimmed = block
        .trim()
        .trim_start_matches("<![CDATA[")
        .trim_end_matches("]]>")
        .trim()
        .trim_start_matches("<!--")
        .trim_end_matches("-->")
        .trim()
        .trim_start_matches("//<![CDATA[")
        .trim_end_matches("//]]>")
        .trim();
    if let Ok(value) = serde_json::from_str(trimmed) {
        return Some(value);
    }
    // Raw control characters inside strings (tabs, newlines) are common.
    let cleaned: String = trimmed
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if !budget.work(2 * cleaned.len()) {
        return None;
    }
    if let Ok(value) = serde_json::from_str(&cleaned) {
        return Some(value);
    }
    // Trailing junk (an extra brace, a semicolon): parse the longest valid prefix.
    let mut stream = serde_json::Deserializer::from_str(&cleaned).into_iter::<Node>();
    stream.next().and_then(Result::ok)
}

/// A JSON value as [`walk`] reads it: serde_json's `Value` (an object a map sorted by key,
/// where a repeated key keeps its last value) without what the walk never reads. A string is
/// kept only as the value of a key in [`READ_KEYS`] or inside an array that is; any other
/// string, number, `true`, `false` or `null` is [`Node::Other`], and an object leaves out a
/// member whose key is not read and whose value is `Other`. Every value is still parsed and
/// checked as `Value` would be (the same blocks fail to parse), but event pages' long
/// descriptions and offers are not copied.
#[derive(Debug, PartialEq)]
enum Node {
    /// `null`, `true`, `false`, a number not read or a string not read.
    Other,
    /// A number that is read.
    Number(serde_json::Number),
    /// A string that is read.
    String(String),
    Array(Vec<Node>),
    Object(BTreeMap<String, Node>),
}

/// The keys whose string values (or strings in their arrays) the readers below read: types,
/// names, contact values, `sameAs` and the parts of a postal address.
const READ_KEYS: &[&str] = &[
    "@type",
    "name",
    "email",
    "telephone",
    "sameAs",
    "address",
    "streetAddress",
    "postOfficeBoxNumber",
    "addressLocality",
    "addressRegion",
    "postalCode",
    "addressCountry",
];

impl Node {
    /// The member `key` of an object (`None` for anything else), as `Value::get` reads it.
    fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Object(map) => map.get(key),
            _ => None,
        }
    }

    fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    fn is_object(&self) -> bool {
        matches!(self, Node::Object(_))
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Node, D::Error> {
        NodeSeed { read: false }.deserialize(deserializer)
    }
}

/// Reads one value into a [`Node`]; `read` says whether its strings are read.
#[derive(Clone, Copy)]
struct NodeSeed {
    read: bool,
}

impl NodeSeed {
    /// `number` as a node: kept where read, and `Other` for a float JSON cannot hold (which
    /// `Value` makes `null`).
    fn number(self, number: Option<serde_json::Number>) -> Node {
        match number {
            Some(number) if self.read => Node::Number(number),
            _ => Node::Other,
        }
    }
}

impl<'de> DeserializeSeed<'de> for NodeSeed {
    type Value = Node;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_i64<E>(self, value: i64) -> Result<Node, E> {
        Ok(self.number(Some(value.into())))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Node, E> {
        Ok(self.number(Some(value.into())))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Node, E> {
        Ok(self.number(serde_json::Number::from_f64(value)))
    }

    fn visit_str<E>(self, value: &str) -> Result<Node, E> {
        Ok(if self.read {
            Node::String(value.to_owned())
        } else {
            Node::Other
        })
    }

    fn visit_string<E>(self, value: String) -> Result<Node, E> {
        Ok(if self.read {
            Node::String(value)
        } else {
            Node::Other
        })
    }

    fn visit_none<E>(self) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_unit<E>(self) -> Result<Node, E> {
        Ok(Node::Other)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(self)? {
            items.push(item);
        }
        Ok(Node::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut members = BTreeMap::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let read = READ_KEYS.contains(&&*key);
            let value = map.next_value_seed(NodeSeed { read })?;
            if read || matches!(value, Node::Array(_) | Node::Object(_)) {
                members.insert(key.into_owned(), value);
            } else {
                // Neither read nor walked into: left out, and so is an earlier value of the
                // key, which this one replaces (as in `Value`).
                members.remove(&*key);
            }
        }
        Ok(Node::Object(members))
    }
}

/// Reads an object's key, borrowed from the block when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Cow<'de, str>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(key.to_owned()))
    }

    fn visit_string<E>(self, key: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(key))
    }
}

fn walk(
    value: &Node,
    depth: usize,
    objects: &mut usize,
    budget: &PageBudget,
    data: &mut JsonLdData,
) {
    if depth > MAX_DEPTH || *objects == 0 || !budget.work(1) {
        return;
    }
    match value {
        Node::Array(items) => {
            for item in items {
                walk(item, depth + 1, objects, budget, data);
            }
        }
        Node::Object(map) => {
            *objects -= 1;
            let types = types_of(value);
            let is_address = types.contains(&"PostalAddress");
            if is_address {
                if let Some(address) = postal_address(value) {
                    push_unique(&mut data.addresses, address);
                }
            }
            let org_like = !types.is_empty() && types.iter().all(|t| is_org_type(t));
            if org_like {
                if let Some(name) = map.get("name").and_then(text_of) {
                    push_unique(&mut data.org_names, name);
                }
            }
            let org_or_contact =
                org_like || types.iter().any(|t| *t == "ContactPoint" || *t == "Place");
            if org_or_contact {
                for email in strings_of(map.get("email")) {
                    push_unique(&mut data.emails, email);
                }
                for phone in strings_of(map.get("telephone")) {
                    push_unique(&mut data.telephones, phone);
                }
                for url in strings_of(map.get("sameAs")) {
                    push_unique(&mut data.same_as, url);
                }
                match map.get("address") {
                    Some(Node::String(s)) => push_unique(&mut data.address_strings, collapse(s)),
                    Some(Node::Array(items)) => {
                        for item in items {
                            if let Node::String(s) = item {
                                push_unique(&mut data.address_strings, collapse(s));
                            }
                        }
                    }
                    _ => {}
                }
            }
            for (key, child) in map {
                if key == "address" {
                    untyped_addresses(child, data);
                }
                if matches!(child, Node::Object(_) | Node::Array(_)) && key != "sameAs" {
                    walk(child, depth + 1, objects, budget, data);
                }
            }
        }
        _ => {}
    }
}

/// The `@type`s of an object without their vocabulary (`https://schema.org/Place` → `Place`),
/// borrowed from it.
fn types_of(value: &Node) -> Vec<&str> {
    fn strip(t: &str) -> &str {
        t.rsplit(['/', '#', ':']).next().unwrap_or(t)
    }
    match value.get("@type") {
        Some(Node::String(t)) => vec![strip(t)],
        Some(Node::Array(items)) => items.iter().filter_map(Node::as_str).map(strip).collect(),
        _ => Vec::new(),
    }
}

/// Types whose `name` is an organisation name: schema.org `Organization`, `LocalBusiness` and
/// their subtypes (recognised by excluding the types that are not organisations: every
/// `…Page` and `…Action` type, and the others named here).
fn is_org_type(t: &str) -> bool {
    if t.ends_with("Page") || t.ends_with("Action") {
        return false;
    }
    !matches!(
        t,
        "WebSite"
            | "WebPage"
            | "Person"
            | "Product"
            | "Offer"
            | "AggregateOffer"
            | "Review"
            | "BreadcrumbList"
            | "ListItem"
            | "ImageObject"
            | "Article"
            | "BlogPosting"
            | "NewsArticle"
            | "Event"
            | "SearchAction"
            | "ReadAction"
            | "EntryPoint"
            | "PostalAddress"
            | "GeoCoordinates"
            | "ContactPoint"
            | "Rating"
            | "AggregateRating"
            | "OpeningHoursSpecification"
            | "SiteNavigationElement"
            | "FAQPage"
            | "Question"
            | "Answer"
            | "VideoObject"
            | "CollectionPage"
            | "ItemList"
            | "Place"
            | "Country"
            | "State"
            | "City"
            | "AdministrativeArea"
            | "Thing"
            | "CreativeWork"
            | "Service"
            | "Brand"
            | "HowTo"
            | "Recipe"
            | "Course"
            | "JobPosting"
            | "ProfilePage"
            | "AboutPage"
            | "ContactPage"
            | "MediaObject"
            | "Comment"
            | "SpeakableSpecification"
            | "PropertyValue"
            | "MonetaryAmount"
            | "QuantitativeValue"
            | "Duration"
            | "ImageGallery"
            | "MediaGallery"
            | "VideoGallery"
            | "OfferCatalog"
            | "DataCatalog"
            | "Dataset"
            | "DefinedTermSet"
            | "DefinedTerm"
            | "CategoryCode"
            | "Menu"
            | "MenuSection"
            | "MenuItem"
            | "WebPageElement"
            | "WPHeader"
            | "WPFooter"
            | "WPSideBar"
            | "Photograph"
            | "VisualArtwork"
            | "Book"
            | "Movie"
            | "MusicRecording"
            | "Trip"
            | "TouristTrip"
            | "Occupation"
            | "EducationalOccupationalCredential"
            | "Audience"
            | "Schedule"
            | "PriceSpecification"
            | "UnitPriceSpecification"
            | "LocationFeatureSpecification"
            | "Language"
            | "Demand"
            | "Intangible"
    )
}

fn text_of(value: &Node) -> Option<String> {
    let s = match value {
        Node::String(s) => s.as_str(),
        Node::Object(map) => return map.get("name").and_then(text_of),
        Node::Array(items) => return items.iter().find_map(text_of),
        _ => return None,
    };
    let text = collapse(&crate::extract::entities::decode(s));
    (!text.is_empty()).then_some(text)
}

fn strings_of(value: Option<&Node>) -> Vec<String> {
    match value {
        Some(Node::String(s)) => vec![s.trim().to_string()]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect(),
        Some(Node::Array(items)) => items
            .iter()
            .filter_map(Node::as_str)
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    }
}

fn postal_address(value: &Node) -> Option<MarkedAddress> {
    let part = |key: &str| {
        value.get(key).and_then(|v| match v {
            Node::Number(n) => Some(n.to_string()),
            other => text_of(other),
        })
    };
    let mut street = part("streetAddress");
    if let Some(po_box) = part("postOfficeBoxNumber") {
        street = Some(match street {
            Some(s) => format!("{s}, {po_box}"),
            None => po_box,
        });
    }
    let address = MarkedAddress {
        street,
        locality: part("addressLocality"),
        region: part("addressRegion"),
        postal_code: part("postalCode"),
        country: part("addressCountry"),
    };
    (address.street.is_some() || address.postal_code.is_some()).then_some(address)
}

/// The `address` values given as plain objects of `PostalAddress` parts without an `@type`
/// (`"address":{"streetAddress":…,"postalCode":…}`, alone or in an array), read as
/// `PostalAddress` (schema.org `address` expects one; an object without a street or postcode
/// is none). Typed objects are read where [`walk`] visits them.
fn untyped_addresses(value: &Node, data: &mut JsonLdData) {
    let items = match value {
        Node::Array(items) => items.as_slice(),
        other => std::slice::from_ref(other),
    };
    for item in items.iter().take(MAX_UNTYPED_ADDRESSES) {
        if item.is_object() && item.get("@type").is_none() {
            if let Some(address) = postal_address(item) {
                push_unique(&mut data.addresses, address);
            }
        }
    }
}

fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reading before [`Node`]: every block parsed into a whole `serde_json::Value`.
    mod by_value {
        use serde_json::Value;

        // `is_org_type` reads a type's name only: the old reading shared it.
        use super::super::{
            collapse, is_org_type, push_unique, JsonLdData, MarkedAddress, PageBudget, MAX_DEPTH,
            MAX_OBJECTS, MAX_UNTYPED_ADDRESSES,
        };

        /// Reads every block; a block that is not JSON even after clean-up is skipped. Charged to the
        /// page's `budget` (docs/security.md, "Reading a page"): each parse of a block by its bytes,
        /// each value visited a unit of work; once it is spent, what was read so far.
        pub(super) fn read(blocks: &[String], budget: &PageBudget) -> JsonLdData {
            let mut data = JsonLdData::default();
            for block in blocks {
                if let Some(value) = parse_lenient(block, budget) {
                    let mut objects = MAX_OBJECTS;
                    walk(&value, 0, &mut objects, budget, &mut data);
                }
                if budget.spent() {
                    break;
                }
            }
            data
        }

        /// The block as JSON: as written, else with control characters made spaces, else the longest
        /// valid prefix of that (each try charged to `budget` by the block's bytes).
        fn parse_lenient(block: &str, budget: &PageBudget) -> Option<Value> {
            if !budget.work(block.len()) {
                return None;
            }
            let trimmed = block
                .trim()
                .trim_start_matches("<![CDATA[")
                .trim_end_matches("]]>")
                .trim()
                .trim_start_matches("<!--")
                .trim_end_matches("-->")
                .trim()
                .trim_start_matches("//<![CDATA[")
                .trim_end_matches("//]]>")
                .trim();
            if let Ok(value) = serde_json::from_str(trimmed) {
                return Some(value);
            }
            // Raw control characters inside strings (tabs, newlines) are common.
            let cleaned: String = trimmed
                .chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect();
            if !budget.work(2 * cleaned.len()) {
                return None;
            }
            if let Ok(value) = serde_json::from_str(&cleaned) {
                return Some(value);
            }
            // Trailing junk (an extra brace, a semicolon): parse the longest valid prefix.
            let mut stream = serde_json::Deserializer::from_str(&cleaned).into_iter::<Value>();
            stream.next().and_then(Result::ok)
        }

        fn walk(
            value: &Value,
            depth: usize,
            objects: &mut usize,
            budget: &PageBudget,
            data: &mut JsonLdData,
        ) {
            if depth > MAX_DEPTH || *objects == 0 || !budget.work(1) {
                return;
            }
            match value {
                Value::Array(items) => {
                    for item in items {
                        walk(item, depth + 1, objects, budget, data);
                    }
                }
                Value::Object(map) => {
                    *objects -= 1;
                    let types = types_of(value);
                    let is_address = types.iter().any(|t| t == "PostalAddress");
                    if is_address {
                        if let Some(address) = postal_address(value) {
                            push_unique(&mut data.addresses, address);
                        }
                    }
                    let org_like = !types.is_empty() && types.iter().all(|t| is_org_type(t));
                    if org_like {
                        if let Some(name) = map.get("name").and_then(text_of) {
                            push_unique(&mut data.org_names, name);
                        }
                    }
                    let org_or_contact =
                        org_like || types.iter().any(|t| t == "ContactPoint" || t == "Place");
                    if org_or_contact {
                        for email in strings_of(map.get("email")) {
                            push_unique(&mut data.emails, email);
                        }
                        for phone in strings_of(map.get("telephone")) {
                            push_unique(&mut data.telephones, phone);
                        }
                        for url in strings_of(map.get("sameAs")) {
                            push_unique(&mut data.same_as, url);
                        }
                        match map.get("address") {
                            Some(Value::String(s)) => {
                                push_unique(&mut data.address_strings, collapse(s))
                            }
                            Some(Value::Array(items)) => {
                                for item in items {
                                    if let Value::String(s) = item {
                                        push_unique(&mut data.address_strings, collapse(s));
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    for (key, child) in map {
                        if key == "address" {
                            untyped_addresses(child, data);
                        }
                        if matches!(child, Value::Object(_) | Value::Array(_)) && key != "sameAs" {
                            walk(child, depth + 1, objects, budget, data);
                        }
                    }
                }
                _ => {}
            }
        }

        fn types_of(value: &Value) -> Vec<String> {
            let strip = |t: &str| t.rsplit(['/', '#', ':']).next().unwrap_or(t).to_string();
            match value.get("@type") {
                Some(Value::String(t)) => vec![strip(t)],
                Some(Value::Array(items)) => {
                    items.iter().filter_map(Value::as_str).map(strip).collect()
                }
                _ => Vec::new(),
            }
        }

        fn text_of(value: &Value) -> Option<String> {
            let s = match value {
                Value::String(s) => s.as_str(),
                Value::Object(map) => return map.get("name").and_then(text_of),
                Value::Array(items) => return items.iter().find_map(text_of),
                _ => return None,
            };
            let text = collapse(&crate::extract::entities::decode(s));
            (!text.is_empty()).then_some(text)
        }

        fn strings_of(value: Option<&Value>) -> Vec<String> {
            match value {
                Some(Value::String(s)) => vec![s.trim().to_string()]
                    .into_iter()
                    .filter(|s| !s.is_empty())
                    .collect(),
                Some(Value::Array(items)) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.trim().to_string())
                    .filter(|s| !s.is_empty())
                    .collect(),
                _ => Vec::new(),
            }
        }

        fn postal_address(value: &Value) -> Option<MarkedAddress> {
            let part = |key: &str| {
                value.get(key).and_then(|v| match v {
                    Value::Number(n) => Some(n.to_string()),
                    other => text_of(other),
                })
            };
            let mut street = part("streetAddress");
            if let Some(po_box) = part("postOfficeBoxNumber") {
                street = Some(match street {
                    Some(s) => format!("{s}, {po_box}"),
                    None => po_box,
                });
            }
            let address = MarkedAddress {
                street,
                locality: part("addressLocality"),
                region: part("addressRegion"),
                postal_code: part("postalCode"),
                country: part("addressCountry"),
            };
            (address.street.is_some() || address.postal_code.is_some()).then_some(address)
        }

        /// The `address` values given as plain objects of `PostalAddress` parts without an `@type`
        /// (`"address":{"streetAddress":…,"postalCode":…}`, alone or in an array), read as
        /// `PostalAddress` (schema.org `address` expects one; an object without a street or postcode
        /// is none). Typed objects are read where [`walk`] visits them.
        fn untyped_addresses(value: &Value, data: &mut JsonLdData) {
            let items = match value {
                Value::Array(items) => items.as_slice(),
                other => std::slice::from_ref(other),
            };
            for item in items.iter().take(MAX_UNTYPED_ADDRESSES) {
                if item.is_object() && item.get("@type").is_none() {
                    if let Some(address) = postal_address(item) {
                        push_unique(&mut data.addresses, address);
                    }
                }
            }
        }
    }

    /// [`super::read`] with the budget of a page of the blocks' size.
    fn read(blocks: &[String]) -> JsonLdData {
        let bytes = blocks.iter().map(String::len).sum();
        super::read(blocks, &PageBudget::for_page(bytes))
    }

    #[test]
    fn reads_graph_arrays_and_nested_addresses() {
        let block = r##"{"@context":"https://schema.org","@graph":[
            {"@type":"WebSite","name":"Acme Site","publisher":{"@id":"#org"}},
            {"@type":["Organization","LocalBusiness"],"@id":"#org","name":"Acme &amp; Co",
             "email":"info@acme.com","telephone":"+1 303 555 0100","faxNumber":"+1 303 555 0101",
             "sameAs":["https://facebook.com/acme","https://x.com/acme"],
             "address":{"@type":"PostalAddress","streetAddress":"1 Main St","addressLocality":"Denver",
                        "addressRegion":"CO","postalCode":80202,"addressCountry":{"@type":"Country","name":"US"}}}]}"##;
        let data = read(&[block.to_string()]);
        assert_eq!(data.org_names, ["Acme & Co"]);
        assert_eq!(data.emails, ["info@acme.com"]);
        assert_eq!(data.telephones, ["+1 303 555 0100"]);
        assert_eq!(data.same_as.len(), 2);
        assert_eq!(data.addresses[0].postal_code.as_deref(), Some("80202"));
        assert_eq!(data.addresses[0].country.as_deref(), Some("US"));
    }

    #[test]
    fn an_address_object_without_a_type_is_a_postal_address() {
        // Class: `address` given as a plain object of PostalAddress parts (no `@type`), on an
        // organisation inside `@graph` or on a `location` Place. Colombia, Kenya.
        let data = read(&[r##"{"@context":"https://schema.org","@graph":[
            {"@type":"WebSite","name":"Example"},
            {"@type":"Dentist","name":"Example Dental","address":{"streetAddress":"Calle 10 # 20-30",
             "addressLocality":"Medellín","addressCountry":"CO"}},
            {"@type":"Organization","name":"Example Ltd","location":{"@type":"Place",
             "address":[{"streetAddress":"Example Road 4","postalCode":"00100",
             "addressLocality":"Nairobi"}]}}]}"##
            .to_string()]);
        let streets: Vec<_> = data.addresses.iter().map(|a| a.street.as_deref()).collect();
        assert_eq!(
            streets,
            [Some("Calle 10 # 20-30"), Some("Example Road 4")],
            "{:?}",
            data.addresses
        );
        assert_eq!(data.addresses[1].postal_code.as_deref(), Some("00100"));
    }

    #[test]
    fn an_untyped_object_without_address_parts_is_no_address() {
        let data = read(&[r#"{"@type":"Organization","name":"Example",
            "address":{"name":"Head office","url":"https://example.com/"}}"#
            .to_string()]);
        assert!(data.addresses.is_empty(), "{:?}", data.addresses);
    }

    #[test]
    fn tolerates_broken_blocks() {
        let data = read(&[
            "<![CDATA[{\"@type\":\"Dentist\",\"name\":\"Smile\tCo\"}]]>".to_string(),
            "{\"@type\":\"Organization\",\"name\":\"Trail\"}}".to_string(),
            "not json".to_string(),
        ]);
        assert_eq!(data.org_names, ["Smile Co", "Trail"]);
    }

    #[test]
    fn galleries_catalogs_and_term_sets_are_not_organisations() {
        let data = read(&[r#"{"@graph":[
            {"@type":"ImageGallery","name":"Selected photographs by Ann Lee"},
            {"@type":"OfferCatalog","name":"Guided enquiry and prices"},
            {"@type":"DefinedTermSet","name":"Ann Lee terms"},
            {"@type":"ItemPage","name":"Portraits"},
            {"@type":"ProfessionalService","name":"Ann Lee Photography"}]}"#
            .to_string()]);
        assert_eq!(data.org_names, ["Ann Lee Photography"]);
    }

    /// Both readings of `blocks`, each with a fresh budget of a page of the blocks' size.
    fn both(blocks: &[String]) -> (JsonLdData, JsonLdData) {
        let bytes = blocks.iter().map(String::len).sum();
        (
            super::read(blocks, &PageBudget::for_page(bytes)),
            by_value::read(blocks, &PageBudget::for_page(bytes)),
        )
    }

    #[test]
    fn nodes_read_as_values_on_written_blocks() {
        for block in [
            r#"{"@type":"Organization","name":"A","name":{"x":1}}"#,
            r#"{"@type":"Organization","name":{"name":"B"},"name":"C"}"#,
            r#"{"a":{"@type":"Organization","name":"D"},"a":1}"#,
            r#"{"a":1,"a":{"@type":"Organization","name":"E"}}"#,
            r#"{"@type":"Organization","address":{"streetAddress":1.5e3,"postalCode":12}}"#,
            r#"{"@type":"Organization","address":{"streetAddress":"S","postalCode":1e999}}"#,
            r#"{"@type":"Organization","address":{"@type":null,"streetAddress":"S"}}"#,
            r#"{"@type":"Organization","address":{"@type":"PostalAddress","streetAddress":"S",
               "addressCountry":"NL","addressRegion":"R","addressLocality":"L",
               "postOfficeBoxNumber":"12","postalCode":"1234 AB"}}"#,
            r#"{"@type":"Organization","address":[{"streetAddress":"S","addressCountry":"NL"}]}"#,
            r#"{"@type":"Organization","addr\u0065ss":"Escaped key 1","n\u0061me":"F"}"#,
            r#"{"@type":"Organization","name":"G","description":"bad \ud800 surrogate"}"#,
            "{\"@type\":\"Organization\",\"name\":\"H\",\"description\":\"tab\tinside\"}",
            r#"{"@type":"Organization","name":"I"}} trailing"#,
            r#"[{"@type":"Place","telephone":["1",2,"3"],"email":[["x"]]},"s",3,null]"#,
            r#"{"@type":"Organization","sameAs":{"@type":"Organization","name":"J"}}"#,
            "<![CDATA[{\"@type\":\"Dentist\",\"name\":\"Smile\tCo\"}]]>",
            r#"{"@graph":[{"@type":"Organization","name":"K","x":[{"@type":"Organization","name":"L"}]}]}"#,
            "not json",
        ] {
            let (new, old) = both(&[block.to_string()]);
            assert_eq!(new, old, "{block}");
        }
    }

    proptest::proptest! {
        #[test]
        fn nodes_read_as_values_on_generated_blocks(
            parts in proptest::collection::vec(
                proptest::sample::select(vec![
                    "{", "}", "[", "]", ",", ":", "\"@type\"", "\"Organization\"", "\"Place\"",
                    "\"PostalAddress\"", "\"name\"", "\"Acme\"", "\"email\"", "\"telephone\"",
                    "\"sameAs\"", "\"address\"", "\"streetAddress\"", "\"postalCode\"",
                    "\"addressCountry\"", "\"description\"", "\"x\"", "12", "1.5", "null",
                    "true", "\"\\ud800\"", "\"a\\u0062\"", "\"\t\"", " ",
                ]),
                0..40,
            ),
        ) {
            let block = parts.concat();
            let (new, old) = both(std::slice::from_ref(&block));
            proptest::prop_assert_eq!(new, old, "{}", block);
        }

        #[test]
        fn nodes_read_as_values_on_shaped_blocks(
            names in proptest::collection::vec("[A-Za-z &;]{0,6}", 1..5),
            keys in proptest::collection::vec(
                proptest::sample::select(vec![
                    "name", "email", "telephone", "sameAs", "address", "streetAddress",
                    "postalCode", "addressLocality", "addressRegion", "addressCountry",
                    "postOfficeBoxNumber", "other", "@type", "location",
                ]),
                1..8,
            ),
            types in proptest::collection::vec(
                proptest::sample::select(vec![
                    "Organization", "PostalAddress", "Place", "ContactPoint", "WebSite", "Event",
                ]),
                1..4,
            ),
        ) {
            // Objects nested as the keys go, each with a type, a name and a string under the
            // key, then the key again for the next object (the last value of a key is kept).
            let mut block = String::new();
            for (i, key) in keys.iter().enumerate() {
                let name = &names[i % names.len()];
                let kind = types[i % types.len()];
                block.push_str(&format!(
                    r#"{{"@type":"{kind}","name":"{name}","{key}":"{name} {i}","{key}":"#
                ));
            }
            block.push_str("null");
            block.push_str(&"}".repeat(keys.len()));
            let (new, old) = both(std::slice::from_ref(&block));
            proptest::prop_assert_eq!(new, old, "{}", block);
        }
    }
}
