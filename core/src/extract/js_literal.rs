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

use std::collections::BTreeMap;

use serde_json::{Map, Number, Value};

/// Deepest nesting read.
const MAX_DEPTH: usize = 64;

/// Reads the literal at the start of `text` (after white space); `None` when it is not one.
pub fn parse(text: &str) -> Option<Value> {
    let mut parser = Parser::new(text, BTreeMap::new());
    parser.value(0)
}

/// Reads Nuxt 2's state, `text` being what follows `window.__NUXT__=`: a literal, or a
/// function called at once whose body returns one (`(function(a,b){return {…}}("x",1))`), its
/// parameters bound to the arguments.
pub fn parse_iife(text: &str) -> Option<Value> {
    let trimmed = text.trim_start();
    let Some(rest) = trimmed.strip_prefix("(function(") else {
        return parse(trimmed);
    };
    let close = rest.find(')')?;
    let params: Vec<&str> = rest[..close].split(',').map(str::trim).collect();
    let body = rest[close + 1..].trim_start().strip_prefix('{')?;
    let body = body.trim_start().strip_prefix("return")?;
    // Once without bindings, to find where the returned value ends.
    let mut skim = Parser::new(body, BTreeMap::new());
    skim.value(0)?;
    let after = skim
        .rest()
        .trim_start()
        .trim_start_matches(';')
        .trim_start();
    let after = after.strip_prefix('}')?.trim_start();
    // `(function(){…}(args))` or `(function(){…})(args)`.
    let after = after.strip_prefix(')').unwrap_or(after).trim_start();
    let mut args = Parser::new(after.strip_prefix('(')?, BTreeMap::new());
    let mut bindings = BTreeMap::new();
    for param in params {
        args.skip_space();
        let value = args.value(0).unwrap_or(Value::Null);
        bindings.insert(param.to_string(), value);
        args.skip_space();
        if !args.eat(b',') {
            break;
        }
    }
    Parser::new(body, bindings).value(0)
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    bindings: BTreeMap<String, Value>,
}

impl<'t> Parser<'t> {
    fn new(text: &'t str, bindings: BTreeMap<String, Value>) -> Self {
        Parser {
            text,
            pos: 0,
            bindings,
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
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
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
            self.skip_space();
            if !self.eat(b',') {
                self.skip_space();
                return self.eat(b']').then_some(Value::Array(items));
            }
        }
    }

    /// A member of an object or array: a literal, or anything else read as `null` up to the
    /// next `,`, `}` or `]` at this level.
    fn member(&mut self, depth: usize) -> Option<Value> {
        let start = self.pos;
        if let Some(value) = self.value(depth + 1) {
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
    /// brackets inside it skipped whole).
    fn skip_expression(&mut self) -> Option<()> {
        let mut open = 0usize;
        loop {
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
        match &self.text[start..self.pos] {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "void" => {
                self.skip_space();
                let _ = self.value(depth + 1);
                Value::Null
            }
            name => self.bindings.get(name).cloned().unwrap_or(Value::Null),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
}
