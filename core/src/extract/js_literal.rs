//! JavaScript literals read as JSON values, without running anything: the subset frameworks
//! write their state in when it is not JSON — Nuxt 2's `window.__NUXT__=(function(a,b){return
//! {…}}("x",1))` and SvelteKit's `data: [null,{type:"data",data:{…}}]` (devalue's `uneval`).
//!
//! Read: objects (keys as identifiers, strings or numbers), arrays, strings in `'` or `"`
//! (escapes `\n`, `\t`, `\uXXXX`, `\u{…}`, `\xXX`, and any other character escaped as itself),
//! numbers, `true`, `false`, `null`, `undefined`, `void 0`, and identifiers bound by the
//! enclosing function's parameters. Anything else (calls, `new Date(…)`, arithmetic) reads as
//! `null` up to the next `,` or closing bracket at its level; input that is not such a literal
//! at all gives `None`.
//!
//! Reading is charged to the page's budget (`page_budget.rs`): a unit of work per value and per
//! byte scanned, and the bytes of every copy of a bound argument (a parameter may be used
//! hundreds of thousands of times). A copy the budget refuses reads as `null`; once the work is
//! spent, every object and array ends where it is and the value read so far is returned.

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

use crate::extract::page_budget::{PageBudget, VALUE_BYTES};

/// Deepest nesting read.
const MAX_DEPTH: usize = 64;

/// Reads the literal at the start of `text` (after white space), charged to `budget`; `None`
/// when it is not one.
pub fn parse(text: &str, budget: &PageBudget) -> Option<Value> {
    let mut parser = Parser::new(text, BTreeMap::new(), budget);
    parser.value(0)
}

/// Reads Nuxt 2's state, `text` being what follows `window.__NUXT__=`: a literal, or a
/// function called at once whose body returns one (`(function(a,b){return {…}}("x",1))`), its
/// parameters bound to the arguments. Each use of a parameter is a copy of its argument,
/// charged to `budget` by the bytes of text it holds (a refused copy reads as `null`).
pub fn parse_iife(text: &str, budget: &PageBudget) -> Option<Value> {
    let trimmed = text.trim_start();
    let Some(rest) = trimmed.strip_prefix("(function(") else {
        return parse(trimmed, budget);
    };
    let close = rest.find(')')?;
    let params: Vec<&str> = rest[..close].split(',').map(str::trim).collect();
    let body = rest[close + 1..].trim_start().strip_prefix('{')?;
    let body = body.trim_start().strip_prefix("return")?;
    // Once without bindings, to find where the returned value ends.
    let mut skim = Parser::new(body, BTreeMap::new(), budget);
    skim.value(0)?;
    let after = skim
        .rest()
        .trim_start()
        .trim_start_matches(';')
        .trim_start();
    let after = after.strip_prefix('}')?.trim_start();
    // `(function(){…}(args))` or `(function(){…})(args)`.
    let after = after.strip_prefix(')').unwrap_or(after).trim_start();
    let mut args = Parser::new(after.strip_prefix('(')?, BTreeMap::new(), budget);
    let mut bindings = BTreeMap::new();
    for param in params {
        args.skip_space();
        let value = args.value(0).unwrap_or(Value::Null);
        let bytes = text_bytes(&value);
        bindings.insert(param.to_string(), (value, bytes));
        args.skip_space();
        if !args.eat(b',') {
            break;
        }
    }
    Parser::new(body, bindings, budget).value(0)
}

/// What a copy of `value` costs: the bytes of its keys and strings, and [`VALUE_BYTES`] per
/// value (a copy of `[null,null,…]` is not free).
fn text_bytes(value: &Value) -> usize {
    VALUE_BYTES
        + match value {
            Value::String(s) => s.len(),
            Value::Array(items) => items.iter().map(text_bytes).sum(),
            Value::Object(map) => map.iter().map(|(k, v)| k.len() + text_bytes(v)).sum(),
            _ => 0,
        }
}

struct Parser<'t, 'b> {
    text: &'t str,
    pos: usize,
    /// Parameters bound to their arguments, with what a copy of each costs (`text_bytes`).
    bindings: BTreeMap<String, (Value, usize)>,
    budget: &'b PageBudget,
}

impl<'t, 'b> Parser<'t, 'b> {
    fn new(
        text: &'t str,
        bindings: BTreeMap<String, (Value, usize)>,
        budget: &'b PageBudget,
    ) -> Self {
        Parser {
            text,
            pos: 0,
            bindings,
            budget,
        }
    }

    fn rest(&self) -> &'t str {
        &self.text[self.pos..]
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_space(&mut self) {
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
        self.budget.work(self.pos - start);
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        if !self.budget.work(1) {
            // The work is spent: whatever is here reads as `null`, and the enclosing objects
            // and arrays end (`member`).
            return Some(Value::Null);
        }
        self.skip_space();
        match self.peek()? {
            b'{' => self.object(depth),
            b'[' => self.array(depth),
            quote @ (b'"' | b'\'') => self.string(quote).map(Value::String),
            b'-' | b'.' | b'0'..=b'9' => Some(self.number()),
            b if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => Some(self.word(depth)),
            _ => None,
        }
    }

    fn object(&mut self, depth: usize) -> Option<Value> {
        self.pos += 1;
        let mut map = Map::new();
        loop {
            self.skip_space();
            if self.eat(b'}') {
                return Some(Value::Object(map));
            }
            let key = match self.peek()? {
                quote @ (b'"' | b'\'') => self.string(quote)?,
                _ => {
                    let start = self.pos;
                    while self
                        .peek()
                        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
                    {
                        self.pos += 1;
                    }
                    if start == self.pos {
                        return None;
                    }
                    self.text[start..self.pos].to_string()
                }
            };
            self.skip_space();
            if !self.eat(b':') {
                return None;
            }
            let value = self.member(depth)?;
            map.insert(key, value);
            if self.budget.spent() {
                return Some(Value::Object(map));
            }
            self.skip_space();
            if !self.eat(b',') {
                self.skip_space();
                return self.eat(b'}').then_some(Value::Object(map));
            }
        }
    }

    fn array(&mut self, depth: usize) -> Option<Value> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_space();
            if self.eat(b']') {
                return Some(Value::Array(items));
            }
            items.push(self.member(depth)?);
            if self.budget.spent() {
                return Some(Value::Array(items));
            }
            self.skip_space();
            if !self.eat(b',') {
                self.skip_space();
                return self.eat(b']').then_some(Value::Array(items));
            }
        }
    }

    /// A member of an object or array: a literal, or anything else read as `null` up to the
    /// next `,`, `}` or `]` at this level. Once the work is spent, what was read so far.
    fn member(&mut self, depth: usize) -> Option<Value> {
        let start = self.pos;
        if let Some(value) = self.value(depth + 1) {
            if self.budget.spent() {
                return Some(value);
            }
            self.skip_space();
            if matches!(self.peek(), Some(b',' | b'}' | b']')) {
                return Some(value);
            }
        }
        self.pos = start;
        self.skip_expression()?;
        Some(Value::Null)
    }

    /// Skips an expression up to the `,`, `}` or `]` that ends it at this level (strings and
    /// brackets inside it skipped whole); where the work is spent, there.
    fn skip_expression(&mut self) -> Option<()> {
        let mut open = 0usize;
        loop {
            if !self.budget.work(1) {
                return Some(());
            }
            match self.peek()? {
                quote @ (b'"' | b'\'' | b'`') => {
                    self.string(quote)?;
                }
                b'(' | b'[' | b'{' => {
                    open += 1;
                    self.pos += 1;
                }
                b',' | b'}' | b']' if open == 0 => return Some(()),
                b')' | b']' | b'}' => {
                    open = open.checked_sub(1)?;
                    self.pos += 1;
                }
                _ => self.pos += 1,
            }
        }
    }

    fn string(&mut self, quote: u8) -> Option<String> {
        self.pos += 1;
        let mut out = String::new();
        loop {
            let rest = self.rest();
            let end = rest.find(|c: char| c as u32 == u32::from(quote) || c == '\\')?;
            if !self.budget.work(end) {
                return None;
            }
            out.push_str(&rest[..end]);
            self.pos += end;
            if self.eat(quote) {
                return Some(out);
            }
            self.pos += 1;
            let escaped = self.rest().chars().next()?;
            self.pos += escaped.len_utf8();
            match escaped {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' | 'f' | 'v' | '0' => {}
                'x' => out.push(self.hex(2)?),
                'u' if self.eat(b'{') => {
                    let close = self.rest().find('}')?;
                    let code = u32::from_str_radix(&self.rest()[..close], 16).ok()?;
                    self.pos += close + 1;
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                'u' => {
                    let high = self.hex_code(4)?;
                    let code = if (0xD800..0xDC00).contains(&high) && self.rest().starts_with("\\u")
                    {
                        self.pos += 2;
                        let low = self.hex_code(4)?;
                        0x10000 + ((high - 0xD800) << 10) + low.wrapping_sub(0xDC00)
                    } else {
                        high
                    };
                    out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                }
                other => out.push(other),
            }
        }
    }

    fn hex_code(&mut self, digits: usize) -> Option<u32> {
        let code = u32::from_str_radix(self.rest().get(..digits)?, 16).ok()?;
        self.pos += digits;
        Some(code)
    }

    fn hex(&mut self, digits: usize) -> Option<char> {
        self.hex_code(digits)
            .map(|c| char::from_u32(c).unwrap_or('\u{fffd}'))
    }

    fn number(&mut self) -> Value {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'+'))
        {
            self.pos += 1;
        }
        let written = &self.text[start..self.pos];
        self.budget.work(written.len());
        written
            .parse::<i64>()
            .ok()
            .map(Number::from)
            .or_else(|| written.parse::<f64>().ok().and_then(Number::from_f64))
            .map_or(Value::Null, Value::Number)
    }

    fn word(&mut self, depth: usize) -> Value {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$'))
        {
            self.pos += 1;
        }
        self.budget.work(self.pos - start);
        match &self.text[start..self.pos] {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "void" => {
                self.skip_space();
                let _ = self.value(depth + 1);
                Value::Null
            }
            name => match self.bindings.get(name) {
                Some((value, bytes)) if self.budget.copy(*bytes) => value.clone(),
                _ => Value::Null,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::extract::page_budget::string_bytes;

    /// [`super::parse`] with the budget of a page of `text`'s size.
    fn parse(text: &str) -> Option<Value> {
        super::parse(text, &PageBudget::for_page(text.len()))
    }

    /// [`super::parse_iife`] with the budget of a page of `text`'s size.
    fn parse_iife(text: &str) -> Option<Value> {
        super::parse_iife(text, &PageBudget::for_page(text.len()))
    }

    #[test]
    fn literals_with_bare_keys_and_js_strings() {
        assert_eq!(
            parse(
                r#"{type:"data",data:{email:'info@x.de',"phone":"+49\u002030",n:-1.5,ok:!0,d:new Date(1),u:void 0,list:[1,'a\'b',null,undefined]},uses:{}}"#
            ),
            Some(
                json!({"type":"data","data":{"email":"info@x.de","phone":"+49 30","n":-1.5,"ok":null,"d":null,"u":null,"list":[1,"a'b",null,null]},"uses":{}})
            )
        );
        assert_eq!(parse("{a:"), None);
        assert_eq!(parse("nope("), Some(Value::Null));
    }

    #[test]
    fn a_function_called_at_once_binds_its_arguments() {
        let state = r#"(function(a,b,c){return {layout:"default",data:[{contact:{email:a,tel:b,city:c}}],fetch:{}}}("kontakt@nuxt-laden.de","+49 40 2345678",void 0));"#;
        assert_eq!(
            parse_iife(state),
            Some(
                json!({"layout":"default","data":[{"contact":{"email":"kontakt@nuxt-laden.de","tel":"+49 40 2345678","city":null}}],"fetch":{}})
            )
        );
        assert_eq!(
            parse_iife("(function(a){return {x:a}})(1)"),
            Some(json!({"x":1}))
        );
        assert_eq!(parse_iife("{x:1}"), Some(json!({"x":1})));
        assert_eq!(parse_iife("(function(a){return"), None);
    }

    #[test]
    fn deep_or_broken_input_ends() {
        let deep = "[".repeat(10_000);
        assert_eq!(parse(&deep), None);
        assert_eq!(parse("{a:'unterminated"), None);
        assert_eq!(
            parse("{a:f(1,[2,{b:3}]),c:'\\u{1F600}'}"),
            Some(json!({"a":null,"c":"😀"}))
        );
    }

    #[test]
    fn a_shared_argument_is_copied_within_the_page_budget() {
        // One 50 kB argument used 1 000 times: 50 MB if every use is a copy.
        let text = format!(
            "(function(a,b){{return [{}{{k:b}}]}}(\"{}\",\"kontakt@beispiel.example\"))",
            "a,".repeat(1_000),
            "x".repeat(50_000)
        );
        let value = parse_iife(&text).expect("a literal");
        let copied = string_bytes(&value);
        assert!(
            copied <= 8 * text.len() + (1 << 20),
            "{copied} bytes copied"
        );
        // The copies the budget refused read as `null`; the small argument after them is
        // still copied.
        let Value::Array(items) = &value else {
            panic!("not an array: {value}");
        };
        assert_eq!(items.len(), 1_001);
        assert_eq!(items[0].as_str().map(str::len), Some(50_000));
        assert_eq!(items[999], Value::Null);
        assert_eq!(items[1_000], json!({"k":"kontakt@beispiel.example"}));
    }

    #[test]
    fn spent_work_ends_the_reading_with_what_was_read() {
        let budget = PageBudget::for_page(0);
        let left = budget.work_left();
        assert!(budget.work(left - 20));
        let value = super::parse(
            "[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]",
            &budget,
        )
        .expect("what was read");
        let Value::Array(items) = value else {
            panic!("not an array");
        };
        assert!((1..20).contains(&items.len()), "{items:?}");
        assert!(budget.spent());
    }
}
