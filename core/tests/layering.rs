//! The core's modules stand in layers (docs/architecture.md, "Layers"): a module imports only
//! modules of its own layer or of layers below it, and no modules import each other in a
//! circle — in `core/src` as a whole and inside each folder (`core/src/extract`, …).
//!
//! An import is any path into the crate in a module's code: `use crate::a::b::{c, d}`, a path
//! such as `crate::a::b::f(…)` in an expression, `super::…`, `self::…`, and, in a folder's
//! `mod.rs`, a path that starts with one of its own child modules. Comments (doc comments and
//! their examples included) and string literals are not read. A path names the module of its
//! longest prefix that is a file: `crate::payment::verify::verify_locally` is
//! `payment::verify`, `crate::fetch::MAX_PAGE_BYTES` is `fetch` (`fetch/mod.rs`). A file's
//! imports of its own folder (`use super::*` in a child) do not count: the folder's `mod.rs`
//! is the common ground of its files. From outside a folder, a path into one of its files
//! imports the folder too (its `mod.rs` declares the file): `crate::extract::limits` in
//! `crawl` is an import of `extract::limits` and of `extract`. Unit tests
//! (`#[cfg(test)] mod tests { … }`, or `#[cfg(test)] mod tests;` in a file of their own) do not
//! count either: they may drive a module through the modules above it.

// Test code: it reads the core's sources and the docs; a failed unwrap is a failed test.
#![allow(clippy::disallowed_methods, clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, from the ground up: each names its modules (`a::b` is `core/src/a/b.rs` or
/// `core/src/a/b/mod.rs`); `a::*` is the module `a` and every module under its folder that no
/// other row names. Every module of `core/src` is on exactly one layer (`lib.rs` only declares
/// the modules and stands on none).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "wire formats and primitives",
        &[
            "eth",
            "budget",
            "ids",
            "pace",
            "site",
            "connections",
            "limiter",
            "net_policy",
            "http",
            "http::request",
            "http::chunked",
            "http::response",
            "http::routes",
            "http::proxy_protocol",
            "payment",
            "payment::wire",
            "payment::codec",
            "payment::cdp_jwt",
            "fetch",
            "fetch::http1",
            "fetch::decode",
        ],
    ),
    ("words", &["lexicon"]),
    (
        "text",
        &[
            "extract::ascii",
            "extract::words8",
            "extract::dates",
            "extract::entities",
            "extract::decode",
            "extract::whitespace",
            "extract::limits",
            "extract::page_budget",
            "extract::sections",
            "extract::implied_ends",
            "extract::js_literal",
        ],
    ),
    (
        "rules",
        &[
            "api",
            "client_ip",
            "page_memory",
            "crawl",
            "fetch::policy",
            "payment::requirements",
            "payment::verify",
            "payment::chain",
            "payment::judge_gate",
            "payment::offer_receipt",
            "payment::identifier",
            "payment::facilitator",
            "payment::endpoint",
            "payment::store",
            "store",
            "discovery",
        ],
    ),
    (
        "extraction: fields",
        &[
            "extract::emails",
            "extract::phones",
            "extract::region",
            "extract::postcode",
            "extract::address",
            "extract::postcode_order",
            "extract::postcode_places",
            "extract::postcode_brackets",
            "extract::town_first",
            "extract::language_postcodes",
            "extract::address_list",
            "extract::no_postcode",
            "extract::unlabelled_address",
            "extract::map_links",
            "extract::company",
            "extract::socials",
            "extract::jsonld",
        ],
    ),
    (
        "extraction: markup",
        &[
            "extract::markup",
            "extract::skipped_ends",
            "extract::state",
            "extract::prescan",
            "extract::html",
        ],
    ),
    ("extraction: a page", &["extract"]),
    (
        "configuration and shared state",
        &["config", "responses", "server"],
    ),
    ("work and the runtime contract", &["work", "effects", "io"]),
    ("the lifecycle", &["exchange::*", "driver"]),
    ("test support", &["testing::*"]),
];

/// A module's path from the crate root (`["payment", "verify"]`; empty for `lib.rs`).
type Module = Vec<String>;

fn name(module: &Module) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, with its module path.
fn modules(root: &Path) -> BTreeMap<Module, PathBuf> {
    let mut found = BTreeMap::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|ext| ext != "rs") {
                continue;
            }
            let relative = path.strip_prefix(root).unwrap().with_extension("");
            let mut module: Module = relative
                .components()
                .map(|part| part.as_os_str().to_str().unwrap().to_string())
                .collect();
            if module == ["lib"] {
                // The crate root only declares the modules.
                continue;
            }
            if module.last().is_some_and(|last| last == "mod") {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// `source` without comments, and with string and character literals emptied.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let word_before = |i: usize| i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            loop {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (c == 'r' || (c == 'b' && next == Some('r'))) && !word_before(i) && {
            let mut j = i + if c == 'b' { 2 } else { 1 };
            while chars.get(j) == Some(&'#') {
                j += 1;
            }
            chars.get(j) == Some(&'"')
        } {
            // A raw string: r"…", r#"…"#, br"…".
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while chars[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    i = j + 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
        } else if c == '"' || (c == 'b' && next == Some('"') && !word_before(i)) {
            i += if c == 'b' { 2 } else { 1 };
            while chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && next == Some('\\') {
            // An escaped character literal: '\n', '\'', '\u{..}'.
            i += 2;
            while chars[i] != '\'' {
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            i += 3;
            out.push_str("' '");
        } else {
            // Code, and a lifetime's quote.
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `code` without its `#[cfg(test)] mod … { … }` blocks: a module's unit tests may drive it
/// through the modules above it (parse a whole page to test one of its parts).
fn without_unit_tests(code: &str) -> String {
    let mut code = code.to_string();
    let mut from = 0;
    while let Some(attribute_end) = test_cfg_ends(&code[from..]).first().map(|end| from + end) {
        let at = code[..attribute_end].rfind("#[cfg(").unwrap();
        let rest = &code[at..];
        let item = code[attribute_end..].trim_start();
        let item = match item.strip_prefix("pub") {
            Some(public) => public
                .trim_start()
                .strip_prefix('(')
                .and_then(|scope| scope.split_once(')'))
                .map_or(public, |(_, rest)| rest)
                .trim_start(),
            None => item,
        };
        let braced = item.strip_prefix("mod ").is_some_and(|declared| {
            declared
                .trim_start()
                .trim_start_matches(is_ident)
                .trim_start()
                .starts_with('{')
        });
        if !braced {
            from = at + 1;
            continue;
        }
        let Some(open) = rest.find('{') else { break };
        let mut depth = 0;
        let mut end = rest.len();
        for (i, c) in rest.char_indices().skip_while(|(i, _)| *i < open) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        code.replace_range(at..at + end, " ");
    }
    code
}

/// Where each `#[cfg(…)]` that compiles only under test (`test`, `all(test, …)`) ends in
/// `code`: the index just past its `]`.
fn test_cfg_ends(code: &str) -> Vec<usize> {
    code.match_indices("#[cfg(")
        .filter_map(|(at, _)| {
            let close = code[at..].find(")]")? + at;
            let condition = &code[at + "#[cfg(".len()..close];
            let words: Vec<&str> = condition
                .split(|c: char| !is_ident(c))
                .filter(|word| !word.is_empty())
                .collect();
            (words.contains(&"test") && !words.contains(&"not") && !words.contains(&"any"))
                .then_some(close + 2)
        })
        .collect()
}

fn is_module_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(is_ident)
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Reads a use tree (or a plain path) at `code[at..]` after its first `::`; appends each path
/// it names to `out` (`prefix` + the segments), returns where it ended.
fn use_tree(code: &[char], mut at: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let mut prefix = prefix.to_vec();
    loop {
        while code.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        match code.get(at) {
            Some('{') => {
                at += 1;
                loop {
                    while code.get(at).is_some_and(|c| c.is_whitespace() || *c == ',') {
                        at += 1;
                    }
                    if code.get(at).is_none_or(|c| *c == '}') {
                        return at + 1;
                    }
                    at = use_tree(code, at, &prefix, out);
                }
            }
            Some('*') => {
                out.push(prefix);
                return at + 1;
            }
            Some(c) if is_ident(*c) => {
                let start = at;
                while code.get(at).is_some_and(|c| is_ident(*c)) {
                    at += 1;
                }
                prefix.push(code[start..at].iter().collect());
                let mut next = at;
                while code.get(next).is_some_and(|c| c.is_whitespace()) {
                    next += 1;
                }
                if code.get(next) == Some(&':') && code.get(next + 1) == Some(&':') {
                    at = next + 2;
                    continue;
                }
                out.push(prefix);
                return at;
            }
            _ => {
                out.push(prefix);
                return at;
            }
        }
    }
}

/// The module that `path` (from the crate root) names: its longest prefix that is a module.
fn resolve<'a>(path: &[String], known: &'a BTreeMap<Module, PathBuf>) -> Option<&'a Module> {
    (0..=path.len())
        .rev()
        .find_map(|k| known.get_key_value(&path[..k]).map(|(module, _)| module))
}

/// The modules that `module` imports (itself left out), each with the paths it uses.
fn imports(
    module: &Module,
    code: &str,
    known: &BTreeMap<Module, PathBuf>,
) -> BTreeMap<Module, BTreeSet<String>> {
    let is_folder = known[module]
        .file_name()
        .is_some_and(|file| file == "mod.rs");
    let inline = inline_modules(code);
    let children: BTreeSet<&str> = known
        .keys()
        .filter(|other| other.len() == module.len() + 1 && other.starts_with(module))
        .map(|child| child.last().unwrap().as_str())
        .collect();
    let chars: Vec<char> = code.chars().collect();
    let mut found: BTreeMap<Module, BTreeSet<String>> = BTreeMap::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_ident(chars[i]) || (i > 0 && (is_ident(chars[i - 1]) || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        let mut after = i;
        while chars.get(after).is_some_and(|c| c.is_whitespace()) {
            after += 1;
        }
        if !(chars.get(after) == Some(&':') && chars.get(after + 1) == Some(&':')) {
            continue;
        }
        // Inside an inline `mod tests { … }`, `self` and `super` start from that module.
        let mut here = module.clone();
        here.extend(
            inline
                .iter()
                .filter(|(_, body)| body.contains(&start))
                .map(|(name, _)| name.clone()),
        );
        let base: Module = match word.as_str() {
            "crate" => Vec::new(),
            "self" => here,
            "super" => here[..here.len() - 1].to_vec(),
            child if is_folder && here == *module && children.contains(child) => {
                let mut base = module.clone();
                base.push(child.to_string());
                base
            }
            _ => continue,
        };
        let mut paths = Vec::new();
        i = use_tree(&chars, after + 2, &base, &mut paths);
        for mut path in paths {
            // `super::super::x`, `self::x`
            while let Some(at) = path.iter().position(|s| s == "super" || s == "self") {
                if path[at] == "super" {
                    path.remove(at);
                    path.remove(at - 1);
                } else {
                    path.remove(at);
                }
            }
            if let Some(target) = resolve(&path, known) {
                // A file's own folder (`super::…` in a child) is the common ground of its
                // files, not a layer they stand on: only imports between files count.
                if !module.starts_with(target) {
                    found
                        .entry(target.clone())
                        .or_default()
                        .insert(path.join("::"));
                }
                // From outside a folder, a path into it passes through the folder's `mod.rs`,
                // which declares its files: `crate::extract::limits` read from `crawl` imports
                // `extract` as well, so a module below a folder cannot read its files.
                for depth in 1..target.len() {
                    let folder = &target[..depth];
                    if !module.starts_with(folder) && known.contains_key(folder) {
                        found
                            .entry(folder.to_vec())
                            .or_default()
                            .insert(path.join("::"));
                    }
                }
            }
        }
    }
    found
}

/// The inline modules of `code` (`mod name { … }`), each with the range of its body.
fn inline_modules(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i + 3 < chars.len() {
        let starts_word = i == 0 || !is_ident(chars[i - 1]);
        if !(starts_word && chars[i..i + 3] == ['m', 'o', 'd'] && chars[i + 3].is_whitespace()) {
            i += 1;
            continue;
        }
        let mut at = i + 3;
        while chars.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        let name_start = at;
        while chars.get(at).is_some_and(|c| is_ident(*c)) {
            at += 1;
        }
        let name: String = chars[name_start..at].iter().collect();
        while chars.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        if name.is_empty() || chars.get(at) != Some(&'{') {
            i = at;
            continue;
        }
        let open = at;
        let mut depth = 0;
        while at < chars.len() {
            match chars[at] {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            at += 1;
        }
        found.push((name, open..at));
        i = open + 1;
    }
    found
}

type Graph = BTreeMap<Module, BTreeMap<Module, BTreeSet<String>>>;

fn graph(root: &Path) -> Graph {
    let mut known = modules(root);
    // Unit tests in a file of their own (`#[cfg(test)] mod tests;`) are test code too.
    let test_files: Vec<Module> = known
        .iter()
        .flat_map(|(module, path)| {
            let code = code_only(&std::fs::read_to_string(path).unwrap());
            test_cfg_ends(&code)
                .into_iter()
                .filter_map(|end| {
                    let item = code[end..].trim_start().strip_prefix("mod ")?;
                    let (name, rest) = item.split_once(';')?;
                    (!rest.is_empty() && is_module_name(name.trim())).then(|| {
                        let mut child = module.clone();
                        child.push(name.trim().to_string());
                        child
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect();
    for test_file in &test_files {
        known.remove(test_file);
    }
    known
        .iter()
        .map(|(module, path)| {
            let code = without_unit_tests(&code_only(&std::fs::read_to_string(path).unwrap()));
            (module.clone(), imports(module, &code, &known))
        })
        .collect()
}

/// The strongly connected components of more than one module (Tarjan).
fn circles(graph: &Graph) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        circles: Vec<Vec<Module>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.graph[v].keys() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    component.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.circles.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.circles
}

/// Each module's layer (index into `layers`), by its row or its folder's `a::*` row.
fn layer_of(module: &Module, layers: &[(&str, &[&str])]) -> Option<usize> {
    let named = name(module);
    let exact = layers
        .iter()
        .position(|(_, modules)| modules.contains(&named.as_str()));
    exact.or_else(|| {
        (1..=module.len())
            .rev()
            .map(|k| format!("{}::*", module[..k].join("::")))
            .find_map(|wildcard| {
                layers
                    .iter()
                    .position(|(_, modules)| modules.contains(&wildcard.as_str()))
            })
    })
}

/// Every fault of `graph` against `layers`: a module on no layer, a row naming no module, an
/// import that runs up a layer, a circle.
fn faults(graph: &Graph, layers: &[(&str, &[&str])]) -> Vec<String> {
    let mut faults = Vec::new();
    for module in graph.keys() {
        if layer_of(module, layers).is_none() {
            faults.push(format!("{} is on no layer: add it to LAYERS", name(module)));
        }
    }
    for (layer, modules) in layers {
        for row in *modules {
            let exists = match row.strip_suffix("::*") {
                Some(folder) => graph.keys().any(|module| {
                    name(module) == folder || name(module).starts_with(&format!("{folder}::"))
                }),
                None => graph.keys().any(|module| name(module) == *row),
            };
            if !exists {
                faults.push(format!("LAYERS row {row} (layer {layer}) names no module"));
            }
        }
    }
    for (from, targets) in graph {
        let Some(from_layer) = layer_of(from, layers) else {
            continue;
        };
        for (to, paths) in targets {
            let Some(to_layer) = layer_of(to, layers) else {
                continue;
            };
            if to_layer > from_layer {
                faults.push(format!(
                    "{} (layer {}) imports {} (layer {}), up a layer: {}",
                    name(from),
                    layers[from_layer].0,
                    name(to),
                    layers[to_layer].0,
                    paths.iter().cloned().collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    for circle in circles(graph) {
        let members: BTreeSet<&Module> = circle.iter().collect();
        let ties: Vec<String> = circle
            .iter()
            .flat_map(|from| {
                graph[from]
                    .iter()
                    .filter(|(to, _)| members.contains(to))
                    .map(move |(to, paths)| {
                        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                        format!("{} -> {} ({})", name(from), name(to), paths.join(", "))
                    })
            })
            .collect();
        faults.push(format!(
            "circle of {} modules: {}",
            circle.len(),
            ties.join("; ")
        ));
    }
    faults
}

#[test]
fn the_core_stands_in_layers_without_circles() {
    let graph = graph(&source_root());
    let faults = faults(&graph, LAYERS);
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

fn architecture_doc() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/architecture.md");
    std::fs::read_to_string(path).unwrap()
}

/// docs/architecture.md draws the layers as `LAYERS` states them, from the top down: one table
/// row per layer, its name and its modules in backticks.
#[test]
fn the_architecture_doc_draws_these_layers() {
    let doc = architecture_doc();
    let section = doc
        .split("\n## Layers\n")
        .nth(1)
        .expect("docs/architecture.md has a \"## Layers\" section")
        .split("\n## ")
        .next()
        .unwrap();
    let drawn: Vec<(String, Vec<String>)> = section
        .lines()
        .filter(|line| line.starts_with("| ") && !line.starts_with("| layer |"))
        .map(|line| {
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            let modules = cells[1]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect();
            (cells[0].to_string(), modules)
        })
        .collect();
    let stated: Vec<(String, Vec<String>)> = LAYERS
        .iter()
        .rev()
        .map(|(layer, modules)| {
            (
                layer.to_string(),
                modules.iter().map(|m| m.to_string()).collect(),
            )
        })
        .collect();
    assert_eq!(
        drawn, stated,
        "docs/architecture.md \"Layers\" differs from LAYERS"
    );
}

/// Every path into `core/src` that docs/architecture.md names in backticks exists
/// (`core/src/{a,b}.rs` names two; a name without `.rs` is a file or a folder).
#[test]
fn every_module_the_architecture_doc_names_exists() {
    let doc = architecture_doc();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut missing = Vec::new();
    let mut named = 0;
    for quoted in doc.split('`').skip(1).step_by(2) {
        if !quoted.starts_with("core/src") {
            continue;
        }
        let paths: Vec<String> = match (quoted.find('{'), quoted.find('}')) {
            (Some(open), Some(close)) => quoted[open + 1..close]
                .split(',')
                .map(|part| format!("{}{part}{}", &quoted[..open], &quoted[close + 1..]))
                .collect(),
            _ => vec![quoted.to_string()],
        };
        for path in paths {
            named += 1;
            let file = root.join(&path);
            if !file.exists() && !root.join(format!("{path}.rs")).exists() {
                missing.push(path);
            }
        }
    }
    assert!(named > 10, "read only {named} paths into core/src");
    assert!(
        missing.is_empty(),
        "docs/architecture.md names {missing:?}, which do not exist"
    );
}
