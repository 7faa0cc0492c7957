//! Contact data held in the serialized state of JavaScript frameworks, read without running
//! any script: Next.js App Router RSC payloads (`self.__next_f.push([1,"…"])`: the React
//! Flight rows, JSON inside a JS string), Next.js pages-router `__NEXT_DATA__`, Nuxt 3
//! `__NUXT_DATA__` (devalue's flattened JSON array), SvelteKit's `data-sveltekit-fetched`
//! responses and Astro island `props` (values as `[type, value]` pairs).
//!
//! Values are read by their keys, never every string of a blob: emails under `email` keys,
//! phones under `telephone`/`phone`/`tel`/`mobile` keys, social profile URLs under `sameAs`,
//! network-named or `social…` keys, addresses from objects with at least two of street,
//! postcode and locality keys (or a string under `address`). Schema.org objects (`@type`,
//! `@context`) and JSON-LD text found in the state (a Flight text row, a
//! `dangerouslySetInnerHTML` string) are JSON-LD, read by `jsonld.rs` with its own rules.
//!
//! The prescan (`prescan.rs`) keeps a script for this module only when its opening bytes or
//! its attributes say it is framework state, so a page without any pays one short comparison
//! per `<script>`.
//!
//! Everything here is charged to the page's budget (`page_budget.rs`): a unit of work per value
//! rebuilt or visited, the bytes of every string and key a devalue array's rebuild copies and
//! of every JSON-LD block and value kept. A reader whose charge is refused keeps what it has.

use serde_json::{Map, Value};

use crate::extract::address::MarkedAddress;
#[cfg(test)]
use crate::extract::ascii::contains;
use crate::extract::js_literal;
use crate::extract::jsonld::JsonLdData;
use crate::extract::markup::AttributeSpan;
use crate::extract::page_budget::{PageBudget, VALUE_BYTES};
use crate::extract::whitespace::collapse;

/// Deepest nesting followed in one state value.
const MAX_DEPTH: usize = 48;
/// Most bytes of framework state kept per page (the scripts past it are ignored).
pub const MAX_STATE_BYTES: usize = 4 << 20;
/// Most state scripts kept per page.
pub const MAX_STATE_SCRIPTS: usize = 512;

/// How a piece of framework state is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A script of `self.__next_f.push([1,"…"])` calls (Next.js App Router, React Flight rows).
    NextFlight,
    /// JSON text (`__NEXT_DATA__`, a SvelteKit fetched response, Astro island props).
    Json,
    /// Nuxt 3 `__NUXT_DATA__`: a JSON array whose object and array members are indices into it
    /// (devalue).
    NuxtData,
    /// Nuxt 2 `window.__NUXT__=…`: a JavaScript literal or a function called at once that
    /// returns one (`js_literal.rs`).
    NuxtWindow,
    /// SvelteKit's start script (`{ __sveltekit_… }`): its `data: […]` array, a JavaScript
    /// literal (`js_literal.rs`).
    SvelteKit,
}

/// One piece of framework state of a page, as written in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// How it is written.
    pub kind: Kind,
    /// Its text (a script's content; an attribute's value with character references decoded).
    pub text: String,
}

/// The kind of state a `<script>` holds, by its start tag's attributes (`attributes`: names
/// lower-cased, ranges of `names`; values as written, ranges of `page`): `id="__NEXT_DATA__"`,
/// `id="__NUXT_DATA__"`, `data-sveltekit-fetched`.
///
/// Each word is looked for in each name and each value apart. That is the same as looking for
/// it in the whole tag with its names lower-cased (as this was first written, the reference in
/// `prescan.rs`'s tests): the words hold only letters, `_` and `-`, and between two names or
/// values of a tag there is always one of white space, `/`, `=`, a quote or `>`.
pub(crate) fn kind_by_attributes(
    names: &[u8],
    page: &[u8],
    attributes: &[AttributeSpan],
) -> Option<Kind> {
    let mut nuxt = false;
    for attribute in attributes {
        for text in [
            names.get(attribute.name.range()).unwrap_or_default(),
            page.get(attribute.value.range()).unwrap_or_default(),
        ] {
            let words = state_words(text);
            if words.json {
                // Said first whatever else the tag holds.
                return Some(Kind::Json);
            }
            nuxt |= words.nuxt;
        }
    }
    nuxt.then_some(Kind::NuxtData)
}

/// Which words naming framework state a script tag's attribute name or value holds.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct StateWords {
    /// `__NEXT_DATA__` or `data-sveltekit-fetched`: JSON.
    json: bool,
    /// `__NUXT_DATA__`.
    nuxt: bool,
}

/// The [`StateWords`] in `text`, read in one pass: each word is looked for only where `text`
/// has a `_` (which starts `__NEXT_DATA__` and `__NUXT_DATA__`) or a `k` (the twelfth byte of
/// `data-sveltekit-fetched`), both rare in script tags (a `src` URL, a `type`), and a text
/// shorter than the shortest word (13 bytes: most names and many values) is not read at all.
/// Three searches over each name and value, as before, cost about a thousand instructions a
/// script.
fn state_words(text: &[u8]) -> StateWords {
    const SVELTEKIT: &[u8] = b"data-sveltekit-fetched";
    const K_AT: usize = 11;
    let mut words = StateWords::default();
    if text.len() < b"__NEXT_DATA__".len() {
        return words;
    }
    for at in memchr::memchr2_iter(b'_', b'k', text) {
        let rest = &text[at..];
        if text[at] == b'_' {
            words.json |= rest.starts_with(b"__NEXT_DATA__");
            words.nuxt |= rest.starts_with(b"__NUXT_DATA__");
        } else {
            words.json |= at >= K_AT && text[at - K_AT..].starts_with(SVELTEKIT);
        }
    }
    words
}

/// The kind of state a `<script>` holds, by its start tag's attributes (`tag`: the bytes from
/// after its name to its `>`, names lower-cased), as first written: the reference
/// [`kind_by_attributes`] is held to.
#[cfg(test)]
pub(crate) fn kind_by_tag(tag: &[u8]) -> Option<Kind> {
    let has = |needle: &[u8]| contains(tag, needle);
    if has(b"__NEXT_DATA__") || has(b"data-sveltekit-fetched") {
        Some(Kind::Json)
    } else if has(b"__NUXT_DATA__") {
        Some(Kind::NuxtData)
    } else {
        None
    }
}

/// The kind of state a `<script>` holds, by the first bytes of its content: Next.js's
/// `self.__next_f.push(` calls, Nuxt 2's `window.__NUXT__`, SvelteKit's `{ __sveltekit_`.
pub(crate) fn kind_by_content(content: &[u8]) -> Option<Kind> {
    let start = content
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(content.len());
    let head = &content[start..];
    if head.starts_with(b"self.__next_f.push(") || head.starts_with(b"(self.__next_f=self.__next_f")
    {
        return Some(Kind::NextFlight);
    }
    if head.starts_with(b"window.__NUXT__") {
        return Some(Kind::NuxtWindow);
    }
    let after_brace = head.strip_prefix(b"{")?;
    let start = after_brace
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(after_brace.len());
    after_brace[start..]
        .starts_with(b"__sveltekit_")
        .then_some(Kind::SvelteKit)
}

/// The `props` of an `<astro-island>` (`attributes`: names ranges of `names`, values of
/// `page`), character references decoded.
pub(crate) fn astro_props(
    names: &[u8],
    page: &[u8],
    attributes: &[AttributeSpan],
) -> Option<Script> {
    let props = attributes
        .iter()
        .find(|a| names.get(a.name.range()) == Some(b"props".as_slice()))?;
    let value = String::from_utf8_lossy(page.get(props.value.range())?);
    Some(Script {
        kind: Kind::Json,
        text: crate::extract::entities::decode_attribute(&value).into_owned(),
    })
}

/// What the framework state of a page gives.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct StateData {
    /// JSON-LD found in the state (text of each block), for `jsonld::read`.
    pub json_ld: Vec<String>,
    /// Values read by their keys: emails, telephones, profile URLs (`same_as`), addresses.
    pub values: JsonLdData,
}

/// Reads every piece of state of a page, charged to the page's `budget`: once it is spent,
/// what was read so far.
pub fn read(scripts: &[Script], budget: &PageBudget) -> StateData {
    let mut out = StateData::default();
    let mut flight = String::new();
    for script in scripts {
        if !budget.work(script.text.len()) {
            return out;
        }
        match script.kind {
            Kind::NextFlight => flight_chunks(&script.text, &mut flight, budget),
            Kind::Json => {
                if let Ok(value) = serde_json::from_str::<Value>(script.text.trim()) {
                    Walker::new(&mut out, budget).value(&value, None, 0);
                }
            }
            Kind::NuxtData => {
                if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(script.text.trim()) {
                    if let Some(first) = items.first() {
                        let value = revive(&items, first, 0, budget);
                        Walker::new(&mut out, budget).value(&value, None, 0);
                    }
                }
            }
            Kind::NuxtWindow => {
                let value = script
                    .text
                    .split_once('=')
                    .and_then(|(_, state)| js_literal::parse_iife(state, budget));
                if let Some(value) = value {
                    Walker::new(&mut out, budget).value(&value, None, 0);
                }
            }
            Kind::SvelteKit => {
                if let Some(value) = sveltekit_data(&script.text, budget) {
                    Walker::new(&mut out, budget).value(&value, None, 0);
                }
            }
        }
    }
    if !flight.is_empty() {
        flight_rows(&flight, &mut out, budget);
    }
    out
}

/// The `data: […]` (or `const data = […]`) array of a SvelteKit start script.
fn sveltekit_data(script: &str, budget: &PageBudget) -> Option<Value> {
    let bytes = script.as_bytes();
    memchr::memmem::find_iter(bytes, b"data").find_map(|at| {
        let before = at.checked_sub(1).and_then(|i| bytes.get(i));
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.') {
            return None;
        }
        let rest = script[at + 4..].trim_start();
        let rest = rest
            .strip_prefix(':')
            .or_else(|| rest.strip_prefix('='))?
            .trim_start();
        rest.starts_with('[')
            .then(|| js_literal::parse(rest, budget))
            .flatten()
    })
}

/// Appends the strings of the `self.__next_f.push([1,"…"])` calls in `script` to `flight`
/// (chunks of type 0, 2 and 3 — bootstrap, form state, binary — carry no rows).
fn flight_chunks(script: &str, flight: &mut String, budget: &PageBudget) {
    const PUSH: &str = "__next_f.push(";
    let mut rest = script;
    while let Some(at) = memchr::memmem::find(rest.as_bytes(), PUSH.as_bytes()) {
        if !budget.work(at + PUSH.len()) {
            return;
        }
        rest = &rest[at + PUSH.len()..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        if let Some(Ok(Value::Array(call))) = stream.next() {
            if let [Value::Number(kind), Value::String(chunk)] = call.as_slice() {
                if kind.as_u64() == Some(1) {
                    flight.push_str(chunk);
                }
            }
        }
    }
}

/// Reads the React Flight rows of a Next.js payload: `<hex id>:<tag?><JSON>\n`, or
/// `<hex id>:T<hex byte length>,<text>` (a long string, without a line end).
fn flight_rows(flight: &str, out: &mut StateData, budget: &PageBudget) {
    let bytes = flight.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        if budget.spent() {
            return;
        }
        let id_end = pos
            + bytes[pos..]
                .iter()
                .position(|b| !b.is_ascii_hexdigit())
                .unwrap_or(bytes.len() - pos);
        if bytes.get(id_end) != Some(&b':') {
            pos = next_line(bytes, pos);
            continue;
        }
        let row = id_end + 1;
        if bytes.get(row) == Some(&b'T') {
            let len_start = row + 1;
            let len_end = len_start
                + bytes[len_start..]
                    .iter()
                    .position(|b| !b.is_ascii_hexdigit())
                    .unwrap_or(bytes.len() - len_start);
            let length = std::str::from_utf8(&bytes[len_start..len_end])
                .ok()
                .and_then(|hex| usize::from_str_radix(hex, 16).ok());
            if let (Some(length), Some(b',')) = (length, bytes.get(len_end)) {
                let start = len_end + 1;
                let mut end = start.saturating_add(length).min(bytes.len());
                while !flight.is_char_boundary(end) {
                    end -= 1;
                }
                Walker::new(out, budget).text(&flight[start..end]);
                pos = end;
                continue;
            }
            pos = next_line(bytes, pos);
            continue;
        }
        // Row tags: `I` (import), `HL` (hint), `E` (error), `D` (debug)…
        let json_start = row
            + bytes[row..]
                .iter()
                .position(|b| !b.is_ascii_uppercase())
                .unwrap_or(bytes.len() - row);
        let mut stream =
            serde_json::Deserializer::from_str(&flight[json_start..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(value)) => {
                budget.work(stream.byte_offset());
                Walker::new(out, budget).value(&value, None, 0);
                pos = next_line(bytes, json_start + stream.byte_offset());
            }
            _ => pos = next_line(bytes, pos),
        }
    }
}

/// The position after the next `\n` from `from` (or the end).
fn next_line(bytes: &[u8], from: usize) -> usize {
    match memchr::memchr(b'\n', bytes.get(from..).unwrap_or_default()) {
        Some(at) => from + at + 1,
        None => bytes.len(),
    }
}

/// Rebuilds a devalue value: in `items` (Nuxt's `__NUXT_DATA__` array) an object's values and
/// an array's members are indices into `items`; `["Reactive", i]`-style pairs wrap one value.
/// An index may be shared by many members, so the rebuilt value can outgrow the page: every
/// member followed is a unit of work, every key and string copied is charged to `budget` by
/// its bytes, and every value built [`VALUE_BYTES`]. A string the budget refuses is `null`, a
/// member it refuses is left out (an array ends there); once the work is spent, every object
/// and array ends where it is.
fn revive(items: &[Value], value: &Value, depth: usize, budget: &PageBudget) -> Value {
    let at = |index: &Value| {
        // Every member followed costs one, however deep (a member past the depth too).
        if !budget.work(1) {
            return Value::Null;
        }
        if depth >= MAX_DEPTH {
            return Value::Null;
        }
        index
            .as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .and_then(|i| items.get(i))
            .map_or(Value::Null, |v| revive(items, v, depth + 1, budget))
    };
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, index) in map {
                if !budget.work(1) {
                    break;
                }
                if budget.copy(key.len() + VALUE_BYTES) {
                    out.insert(key.clone(), at(index));
                }
            }
            Value::Object(out)
        }
        Value::Array(members) => match members.as_slice() {
            [Value::String(_), index] if index.is_u64() => at(index),
            _ => {
                let mut out = Vec::new();
                for index in members {
                    if budget.spent() || !budget.copy(VALUE_BYTES) {
                        break;
                    }
                    out.push(at(index));
                }
                Value::Array(out)
            }
        },
        Value::String(text) if budget.copy(text.len()) => Value::String(text.clone()),
        Value::String(_) => Value::Null,
        other => other.clone(),
    }
}

/// What a key says its value holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Email,
    Phone,
    Social,
    Address,
}

/// The field a key names (letters and digits only, lower-cased), if any.
fn field_of(key: &str, squashed: &mut String) -> Option<Field> {
    squash(key, squashed);
    let key = squashed.as_str();
    if key.contains("fax") {
        return None;
    }
    if matches!(
        key,
        "email" | "mail" | "emailaddress" | "courriel" | "correo"
    ) || key.ends_with("email")
    {
        return Some(Field::Email);
    }
    if matches!(
        key,
        "telephone"
            | "phone"
            | "tel"
            | "phonenumber"
            | "telephonenumber"
            | "telefon"
            | "telefono"
            | "teléfono"
            | "téléphone"
            | "mobile"
            | "mobil"
            | "handy"
            | "cell"
            | "cellphone"
    ) || key.ends_with("phone")
    {
        return Some(Field::Phone);
    }
    if key == "sameas"
        || key.contains("social")
        || matches!(
            key,
            "facebook" | "instagram" | "linkedin" | "twitter" | "x" | "youtube" | "tiktok" | "xing"
        )
    {
        return Some(Field::Social);
    }
    (key == "address").then_some(Field::Address)
}

/// A key's letters and digits, lower-cased (`contact_email` → `contactemail`), into `out`
/// (a buffer reused from key to key).
fn squash(key: &str, out: &mut String) {
    out.clear();
    if key.is_ascii() {
        // The same as below for ASCII, byte by byte.
        out.extend(
            key.bytes()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| char::from(b.to_ascii_lowercase())),
        );
    } else {
        out.extend(
            key.chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase),
        );
    }
}

/// Keys whose subtree holds examples, not contact data (`placeholder`, `example`).
fn is_example(key: &str) -> bool {
    let has = |word: &[u8]| {
        key.as_bytes()
            .windows(word.len())
            .any(|w| w.eq_ignore_ascii_case(word))
    };
    has(b"placeholder") || has(b"example")
}

/// The address part a key names: 0 street, 1 postcode, 2 locality.
fn address_part(key: &str, squashed: &mut String) -> Option<usize> {
    squash(key, squashed);
    match squashed.as_str() {
        "street" | "streetaddress" | "addressline1" | "address1" | "strasse" | "straße" => Some(0),
        "postalcode" | "postcode" | "zip" | "zipcode" | "plz" | "codepostal" => Some(1),
        "city" | "locality" | "addresslocality" | "town" | "ort" | "stadt" | "ville" | "ciudad" => {
            Some(2)
        }
        _ => None,
    }
}

/// Walks state values, filling a [`StateData`]: a unit of work per value visited and per
/// byte of every string kept, the bytes of every JSON-LD block kept charged as a copy.
struct Walker<'o, 'b> {
    out: &'o mut StateData,
    budget: &'b PageBudget,
    /// The squashed key being read (`squash`), reused from key to key.
    key: String,
}

impl<'o, 'b> Walker<'o, 'b> {
    fn new(out: &'o mut StateData, budget: &'b PageBudget) -> Self {
        Walker {
            out,
            budget,
            key: String::new(),
        }
    }

    /// A long text (a Flight text row): JSON-LD, or JSON walked by its keys, or nothing.
    fn text(&mut self, text: &str) {
        let trimmed = text.trim();
        if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
            return;
        }
        if is_json_ld_text(trimmed) {
            if self.budget.copy(trimmed.len()) {
                push_unique(&mut self.out.json_ld, trimmed.to_string());
            }
        } else if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
            self.value(&value, None, 0);
        }
    }

    /// `value`, found under a key naming `field` (`None`: no contact field).
    fn value(&mut self, value: &Value, field: Option<Field>, depth: usize) {
        if depth > MAX_DEPTH || !self.budget.work(1) {
            return;
        }
        match value {
            Value::String(s) => self.string(s, field, depth),
            Value::Array(items) => {
                for item in items {
                    self.value(item, field, depth + 1);
                }
            }
            Value::Object(map) => {
                if map.contains_key("@type") || map.contains_key("@context") {
                    let text = value.to_string();
                    if self.budget.copy(text.len()) {
                        push_unique(&mut self.out.json_ld, text);
                    }
                    return;
                }
                self.address_object(map);
                for (key, child) in map {
                    if is_example(key) {
                        continue;
                    }
                    // Inside a social container (`socials: [{url: …}]`) every key stays social.
                    let child_field = match field {
                        Some(Field::Social) => Some(Field::Social),
                        _ => field_of(key, &mut self.key),
                    };
                    self.value(child, child_field, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn string(&mut self, s: &str, field: Option<Field>, depth: usize) {
        let trimmed = s.trim();
        if trimmed.starts_with('{') && is_json_ld_text(trimmed) {
            if self.budget.copy(trimmed.len()) {
                push_unique(&mut self.out.json_ld, trimmed.to_string());
            }
            return;
        }
        if field.is_some() && !self.budget.work(trimmed.len()) {
            return;
        }
        let values = &mut self.out.values;
        match field {
            Some(Field::Email) => push_unique(&mut values.emails, trimmed.to_string()),
            Some(Field::Phone) => push_unique(&mut values.telephones, trimmed.to_string()),
            Some(Field::Social) => push_unique(&mut values.same_as, trimmed.to_string()),
            Some(Field::Address) => push_unique(&mut values.address_strings, collapse(trimmed)),
            // JSON inside a string (a SvelteKit fetched response's `body`).
            None if trimmed.starts_with('{') => {
                if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
                    self.value(&value, None, depth + 1);
                }
            }
            None => {}
        }
    }

    /// An object with at least two of street, postcode and locality keys is an address.
    fn address_object(&mut self, map: &Map<String, Value>) {
        let mut parts: [Option<String>; 3] = [None, None, None];
        for (key, value) in map {
            if let Some(part) = address_part(key, &mut self.key) {
                let text = match value {
                    Value::String(s) => Some(collapse(s)),
                    Value::Number(n) => Some(n.to_string()),
                    _ => None,
                };
                parts[part] = text.filter(|t| !t.is_empty());
            }
        }
        if parts.iter().filter(|p| p.is_some()).count() >= 2 {
            let [street, postal_code, locality] = parts;
            push_unique(
                &mut self.out.values.addresses,
                MarkedAddress {
                    street,
                    locality,
                    region: None,
                    postal_code,
                    country: None,
                },
            );
        }
    }
}

/// Whether JSON text is schema.org JSON-LD.
fn is_json_ld_text(text: &str) -> bool {
    text.contains("\"@context\"") || text.contains("\"@type\"")
}

/// Most values of one kind (emails, phones, profiles, addresses, JSON-LD blocks) kept from the
/// state of one page: far above real pages, and it keeps the uniqueness checks linear.
const MAX_VALUES: usize = 200;

fn push_unique<T: PartialEq>(list: &mut Vec<T>, item: T) {
    if list.len() < MAX_VALUES && !list.contains(&item) {
        list.push(item);
    }
}

#[cfg(test)]
mod tests {
    use url::Url;

    use super::*;
    use crate::extract::extract_page;
    use crate::extract::html::parse;
    use crate::extract::page_budget::string_bytes;

    /// Pieces of script attribute names and values: the words, pieces of them and what
    /// surrounds them in real tags.
    const TAG_PIECES: &[&str] = &[
        "__NEXT_DATA__",
        "__NUXT_DATA__",
        "data-sveltekit-fetched",
        "__NEXT_",
        "DATA__",
        "_",
        "k",
        "data-svelte",
        "kit-fetched",
        "__NUXT",
        "src",
        "https://a.example/app_k.js",
        "id",
        "type",
        "application/json",
        "x",
        "-",
        "\u{e9}",
    ];

    proptest::proptest! {
        /// [`kind_by_attributes`] says what its reference, reading the whole tag, says.
        #[test]
        fn kinds_by_attributes_are_those_by_tag(
            attributes in proptest::collection::vec(
                (
                    proptest::collection::vec(proptest::sample::select(TAG_PIECES), 1..4),
                    proptest::collection::vec(proptest::sample::select(TAG_PIECES), 0..4),
                ),
                0..4,
            )
        ) {
            let (mut names, mut page, mut tag, mut spans) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            for (name, value) in &attributes {
                let (name, value) = (name.concat().to_ascii_lowercase(), value.concat());
                let name_start = names.len();
                names.extend_from_slice(name.as_bytes());
                let value_start = page.len();
                page.extend_from_slice(value.as_bytes());
                spans.push(AttributeSpan {
                    name: crate::extract::markup::Span::new(name_start..names.len()),
                    value: crate::extract::markup::Span::new(value_start..page.len()),
                });
                tag.extend_from_slice(format!(" {name}=\"{value}\"").as_bytes());
            }
            tag.push(b'>');
            proptest::prop_assert_eq!(
                kind_by_attributes(&names, &page, &spans),
                kind_by_tag(&tag),
                "{:?}", attributes
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn keys_are_squashed_and_told_examples_as_by_chars(key in "[ -~éÉßİ]{0,24}") {
            let by_chars: String = key
                .chars()
                .filter(|c| c.is_alphanumeric())
                .flat_map(char::to_lowercase)
                .collect();
            let mut squashed = String::from("left over");
            squash(&key, &mut squashed);
            proptest::prop_assert_eq!(squashed, by_chars);
            let lower = key.to_ascii_lowercase();
            proptest::prop_assert_eq!(
                is_example(&key),
                lower.contains("placeholder") || lower.contains("example")
            );
        }
    }

    #[test]
    fn example_keys_in_any_case() {
        for key in [
            "placeholder",
            "emailPlaceHolder",
            "EXAMPLE_phone",
            "examples",
        ] {
            assert!(is_example(key), "{key}");
        }
        for key in ["email", "exampl", "place_holder", ""] {
            assert!(!is_example(key), "{key}");
        }
    }

    fn page(url: &str, html: &str) -> crate::extract::PageExtraction {
        extract_page(&Url::parse(url).unwrap(), None, html.as_bytes())
    }

    /// A Next.js App Router page whose contact data is only in its RSC payload: translation
    /// messages with a phone and an email (`\u0040` in the inner JSON), a text row with the
    /// JSON-LD of the business, and values that must not be read: a sentence with a number
    /// under no contact key, placeholders, a fax.
    const NEXT_FLIGHT: &str = r#"<!DOCTYPE html><html lang="de"><head><title>Beispiel Bau</title></head>
<body><div id="root"><h1>Beispiel Bau</h1><p>Willkommen</p></div>
<script>(self.__next_f=self.__next_f||[]).push([0])</script>
<script>self.__next_f.push([1,"1:HL[\"/_next/static/css/a.css\",\"style\"]\n2:I[2846,[],\"\"]\n"])</script>
<script>self.__next_f.push([1,"5:[\"$\",\"$L2\",null,{\"locale\":\"de\",\"messages\":{\"topBar\":{\"phone\":\"+49 30 5550 1022\",\"fax\":\"+49 30 5550 1023\"},\"footer\":{\"mail\":\"kontakt\\u0040beispiel-bau.de\",\"intro\":\"Rufen Sie +49 30 5550 1099 an\",\"address\":\"Hauptstra\u00dfe 5, 10115 Berlin\"},\"form\":{\"emailPlaceholder\":\"max@mustermann.de\",\"placeholders\":{\"email\":\"erika@mustermann.de\"}}}}]\n"])</script>
<script>self.__next_f.push([1,"6:T98,"])</script>
<script>self.__next_f.push([1,"{\"@context\":\"https://schema.org\",\"@type\":\"LocalBusiness\",\"name\":\"Beispiel Bau GmbH\",\"sameAs\":[\"https://www.facebook.com/p/Beispiel-Bau-61500000012345\"]}7:null\n"])</script>
</body></html>"#;

    #[test]
    fn next_flight_values_are_read_by_their_keys() {
        let got = page("https://beispiel-bau.de/", NEXT_FLIGHT);
        assert_eq!(got.phones, ["+493055501022"]);
        assert_eq!(got.emails, ["kontakt@beispiel-bau.de"]);
        assert_eq!(got.addresses.len(), 1, "{:?}", got.addresses);
        assert_eq!(got.addresses[0].postal_code.as_deref(), Some("10115"));
        assert_eq!(got.company_name.as_deref(), Some("Beispiel Bau GmbH"));
    }

    #[test]
    fn json_ld_in_a_flight_text_row_is_json_ld() {
        let doc = parse(NEXT_FLIGHT);
        let budget = PageBudget::for_page(NEXT_FLIGHT.len());
        let state = read(&doc.state, &budget);
        assert_eq!(state.json_ld.len(), 1, "{:?}", state.json_ld);
        assert!(state.json_ld[0].starts_with("{\"@context\""));
        let json_ld = crate::extract::jsonld::read(&state.json_ld, &budget);
        assert_eq!(json_ld.org_names, ["Beispiel Bau GmbH"]);
        assert_eq!(
            json_ld.same_as,
            ["https://www.facebook.com/p/Beispiel-Bau-61500000012345"]
        );
    }

    #[test]
    fn next_data_nuxt_data_astro_props_and_sveltekit_responses() {
        let html = r#"<html><body><p>Kontakt</p>
<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"company":{"phone":"+49 89 7654321","contactEmail":"info@next-laden.de","street":"Lindenweg 3","zip":"80331","city":"München","socials":[{"platform":"instagram","url":"https://www.instagram.com/nextladen"}]}}},"page":"/"}</script>
<script type="application/json" id="__NUXT_DATA__" data-ssr="true">[["ShallowReactive",1],{"data":2},["ShallowReactive",3],{"contact":4},{"email":5,"telephone":6},"hallo@nuxt-laden.de","+49 40 2345678"]</script>
<astro-island uid="Z1" component-url="/c.js" props="{&quot;email&quot;:[0,&quot;office@astro-laden.de&quot;],&quot;linkedin&quot;:[0,&quot;https://www.linkedin.com/company/astro-laden&quot;]}"></astro-island>
<script type="application/json" data-sveltekit-fetched data-url="/api/contact">{"status":200,"statusText":"","headers":{},"body":"{\"email\":\"team@svelte-laden.de\",\"phone\":\"+49 221 345678\"}"}</script>
<script>var config = {"email": "tracker@analytics.example", "phone": "+49 30 5555555"};</script>
</body></html>"#;
        let got = page("https://laden.de/", html);
        assert_eq!(
            got.emails,
            [
                "info@next-laden.de",
                "hallo@nuxt-laden.de",
                "office@astro-laden.de",
                "team@svelte-laden.de"
            ]
        );
        assert_eq!(got.phones, ["+49897654321", "+49402345678", "+49221345678"]);
        let socials: Vec<&str> = got.socials.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            socials,
            [
                "https://instagram.com/nextladen",
                "https://linkedin.com/company/astro-laden"
            ]
        );
        assert_eq!(got.addresses.len(), 1, "{:?}", got.addresses);
        assert_eq!(got.addresses[0].street.as_deref(), Some("Lindenweg 3"));
    }

    #[test]
    fn nuxt_2_window_state_and_sveltekit_start_data() {
        let html = r#"<html><body><div id="__nuxt"><p>Willkommen</p></div>
<script>window.__NUXT__=(function(a,b,c){return {layout:"default",data:[{firma:{email:a,telefon:b,adresse:{strasse:"Lindenweg 3",plz:c,ort:"Hamburg"}}}],fetch:{}}}("kontakt@nuxt-laden.de","+49 40 2345678","20095"));</script>
<div style="display: contents"><script>
{
    __sveltekit_1x2y3z = { base: new URL(".", location).pathname.slice(0, -1) };
    const element = document.currentScript.parentElement;
    Promise.all([import("./app.js")]).then(([kit, app]) => {
        kit.start(app, element, {
            node_ids: [0, 2],
            data: [null,{type:"data",data:{contact:{mail:"hej@svelte-butik.se",phone:"+46 8 123 456 78"}},uses:{}}],
            form: null,
            error: null
        });
    });
}
</script></div></body></html>"#;
        let got = page("https://laden.de/", html);
        assert_eq!(got.emails, ["kontakt@nuxt-laden.de", "hej@svelte-butik.se"]);
        assert_eq!(got.phones, ["+49402345678", "+46812345678"]);
        assert_eq!(got.addresses.len(), 1, "{:?}", got.addresses);
        assert_eq!(got.addresses[0].postal_code.as_deref(), Some("20095"));
    }

    #[test]
    fn only_state_scripts_are_kept() {
        let doc = parse(
            r#"<script>var a = "self.__next_f.push([1,\"x\"])";</script><script src="/a.js"></script>
<script id="__NEXT_DATA__" type="application/json">{}</script><script>
 self.__next_f.push([1,"0:null\n"])</script><p>x</p>"#,
        );
        let kinds: Vec<Kind> = doc.state.iter().map(|s| s.kind).collect();
        assert_eq!(kinds, [Kind::Json, Kind::NextFlight]);
    }

    #[test]
    fn a_flight_text_row_is_cut_by_its_byte_length() {
        // A text row of 7 bytes, then a JSON row right after it; a length that ends inside a
        // character, rows cut short and junk do not panic.
        let mut out = StateData::default();
        let budget = PageBudget::for_page(100);
        flight_rows(
            "1:T7,{\"a\":1}2:{\"email\":\"a@b.de\"}\n",
            &mut out,
            &budget,
        );
        assert_eq!(out.values.emails, ["a@b.de"]);
        flight_rows("1:T2,h\u{e9}llo\n", &mut StateData::default(), &budget);
        flight_rows("zz\n1:T\n2:E{\n3:", &mut StateData::default(), &budget);
    }

    #[test]
    fn shared_devalue_references_stay_bounded() {
        // Item 0 is an array of 2 000 references to itself, and a long string: rebuilt naively
        // it would never end.
        let mut items: Vec<String> = vec!["0".to_string(); 2_000];
        items.push("1".to_string());
        let text = format!("[[{}],\"{}\"]", items.join(","), "x".repeat(100_000));
        let scripts = [Script {
            kind: Kind::NuxtData,
            text,
        }];
        let budget = PageBudget::for_page(scripts[0].text.len());
        assert_eq!(read(&scripts, &budget), StateData::default());
    }

    #[test]
    fn shared_devalue_keys_are_copied_within_the_page_budget() {
        // 1 000 references to one object whose key is 50 kB: 50 MB if every one is a copy.
        let text = format!(
            "[[{}1],{{\"{}\":2}},\"v\"]",
            "1,".repeat(999),
            "k".repeat(50_000)
        );
        let Ok(Value::Array(items)) = serde_json::from_str::<Value>(&text) else {
            panic!("not an array");
        };
        let budget = PageBudget::for_page(text.len());
        let value = revive(&items, &items[0], 0, &budget);
        let copied = string_bytes(&value);
        assert!(
            copied <= 8 * text.len() + (1 << 20),
            "{copied} bytes copied"
        );
        // The first references were rebuilt with their key, the next ones without; the array
        // ends where the budget does.
        let Value::Array(members) = &value else {
            panic!("not an array: {value}");
        };
        assert!((2..1_000).contains(&members.len()), "{}", members.len());
        assert_eq!(members[0].as_object().map(Map::len), Some(1));
        assert_eq!(
            members.last().and_then(Value::as_object).map(Map::len),
            Some(0)
        );
    }
}
