//! The offline commands (no network): `extract-html` (one site from saved pages) and
//! `extract-dir` (every saved page under a directory as a one-page site), and the argument
//! parsers they use.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use contact_core::api::ContactExtractionResult;

use crate::ordered;
use contact_core::{crawl, extract};
use url::Url;

pub fn parse_http_url(s: &str) -> Result<Url, String> {
    let url = Url::parse(s).map_err(|e| format!("not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("must be an http or https URL with a host".to_string());
    }
    Ok(url)
}

pub fn parse_page_arg(s: &str) -> Result<(Url, PathBuf), String> {
    let (url, file) = s.split_once('=').ok_or("expected URL=FILE")?;
    Ok((parse_http_url(url)?, PathBuf::from(file)))
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("contact-extract: cannot read {}: {e}", path.display()))
}

pub fn extract_html(url: &Url, file: &Path, pages: &[(Url, PathBuf)]) -> ExitCode {
    let started = Instant::now();
    let mut bodies = vec![(url.clone(), file.to_path_buf())];
    bodies.extend(pages.iter().cloned());
    let mut extracted = Vec::new();
    for (page_url, path) in &bodies {
        let bytes = match read(path) {
            Ok(bytes) => bytes,
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::FAILURE;
            }
        };
        extracted.push(extract::extract_page(page_url, Some("text/html"), &bytes));
    }
    let plan = crawl::plan(url, &extracted[0].links);
    let result = extract::merge(
        extract::SiteInfo {
            input_url: url.as_str(),
            url,
            contact_pages: plan.contact_pages.iter().map(Url::to_string).collect(),
            pages_fetched: u32::try_from(extracted.len()).unwrap_or(u32::MAX),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            request_id: String::new(),
        },
        &extracted,
    );
    print_json(&result);
    ExitCode::SUCCESS
}

/// Writes `text` and a newline to stdout. A closed stdout (`extract-dir … | head`) ends the
/// process quietly with status 0, as a reader that has seen enough is not an error; another
/// write error ends it with status 1 and a message (never a panic).
pub fn print_line(text: &str) {
    let mut out = Output::stdout();
    out.line(text);
    out.finish();
}

/// Prints a result as pretty JSON (see [`print_line`] for a closed stdout).
pub fn print_json(result: &ContactExtractionResult) {
    match serde_json::to_string_pretty(result) {
        Ok(json) => print_line(&json),
        Err(e) => eprintln!("contact-extract: cannot serialise the result: {e}"),
    }
}

/// `extract-dir DIR --jobs N`: every `*.html`/`*.htm` file under `dir` (recursively, sorted by
/// path) as a one-page site, extracted by `jobs` worker threads (at least 1) and printed as one
/// JSON line `{"file": …, "result": ContactExtractionResult}` per file, in path order whatever
/// `jobs` is. A throughput summary goes to stderr. Exit status 1 when a file could not be read
/// (the others are still printed).
pub fn extract_dir(dir: &Path, jobs: usize) -> ExitCode {
    let mut files = Vec::new();
    if let Err(message) = collect_html(dir, &mut files, 0) {
        eprintln!("{message}");
        return ExitCode::FAILURE;
    }
    files.sort();
    let started = Instant::now();
    let mut out = Output::stdout();
    let mut bytes_total = 0usize;
    let mut failures = 0usize;
    let mut pages = 0usize;
    ordered::map(
        &files,
        jobs.max(1),
        read_and_extract,
        |outcome| match outcome {
            DirOutcome::Line { line, bytes } => {
                bytes_total += bytes;
                pages += 1;
                out.line(&line);
            }
            DirOutcome::Unreadable(message) => {
                eprintln!("{message}");
                failures += 1;
            }
        },
    );
    out.finish();
    let seconds = started.elapsed().as_secs_f64();
    let megabytes = bytes_total as f64 / 1e6;
    eprintln!(
        "pages: {pages}, MB: {megabytes:.2}, seconds: {seconds:.3}, MB/s: {:.1}",
        if seconds > 0.0 {
            megabytes / seconds
        } else {
            0.0
        }
    );
    if failures > 0 {
        eprintln!("contact-extract: {failures} file(s) could not be read");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// What one file of `extract-dir` gave.
enum DirOutcome {
    /// The JSON line and the page's size in bytes.
    Line { line: String, bytes: usize },
    /// The file could not be read: the message for stderr.
    Unreadable(String),
}

/// One line of `extract-dir`'s output.
#[derive(serde::Serialize)]
struct DirLine<'a> {
    file: &'a str,
    result: &'a ContactExtractionResult,
}

/// What a worker of `extract-dir` keeps from page to page: the buffer files are read into and
/// the parser's buffers (their capacity carries over; see `extract::ParseBuffers`).
#[derive(Default)]
struct Scratch {
    page: Vec<u8>,
    buffers: extract::ParseBuffers,
}

/// Reads `path` into the worker's reused buffer and extracts it as a one-page site.
fn read_and_extract(path: &PathBuf, scratch: &mut Scratch) -> DirOutcome {
    use std::io::Read as _;
    let Scratch { page, buffers } = scratch;
    page.clear();
    let read = std::fs::File::open(path).and_then(|mut file| file.read_to_end(page));
    if let Err(e) = read {
        return DirOutcome::Unreadable(format!(
            "contact-extract: cannot read {}: {e}",
            path.display()
        ));
    }
    let result = one_page_site(path, page, buffers);
    let file = path.display().to_string();
    let line = serde_json::to_string(&DirLine {
        file: &file,
        result: &result,
    })
    .unwrap_or_else(|e| {
        eprintln!("contact-extract: cannot serialise the result for {file}: {e}");
        String::new()
    });
    DirOutcome::Line {
        line,
        bytes: page.len(),
    }
}

/// Buffered standard output for line-oriented commands: a closed stdout (`… | head`) ends the
/// process quietly with status 0 (as `cat` does), another write error with status 1 and a
/// message, never a panic.
pub struct Output {
    out: std::io::BufWriter<std::io::Stdout>,
}

impl Output {
    /// Standard output, buffered (64 KiB).
    pub fn stdout() -> Self {
        Output {
            out: std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout()),
        }
    }

    /// Writes `text` and a newline.
    pub fn line(&mut self, text: &str) {
        use std::io::Write as _;
        let written = self
            .out
            .write_all(text.as_bytes())
            .and_then(|()| self.out.write_all(b"\n"));
        exit_on_write_error(written);
    }

    /// Flushes what is buffered (also done on drop, where errors cannot be reported).
    pub fn finish(&mut self) {
        use std::io::Write as _;
        exit_on_write_error(self.out.flush());
    }
}

fn exit_on_write_error(written: std::io::Result<()>) {
    match written {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        Err(error) => {
            eprintln!("contact-extract: cannot write to stdout: {error}");
            std::process::exit(1);
        }
    }
}

/// One file as a one-page site. The URL comes from the page (`canonical`, `og:url`, `<base>`)
/// or the file stem. A panic in extraction (a bug) yields an empty result for this page only.
fn one_page_site(
    path: &Path,
    bytes: &[u8],
    buffers: &mut extract::ParseBuffers,
) -> ContactExtractionResult {
    let stem_url = || {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let host: String = stem
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        Url::parse(&format!("https://{host}/")).or_else(|_| Url::parse("https://invalid.invalid/"))
    };
    // A panic leaves `buffers` as vectors of some capacity; the next parse clears them.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let parsed = extract::parse_page_reusing(None, bytes, buffers);
        let url = parsed.declared_url().or_else(|| stem_url().ok());
        url.map(|url| {
            let page = parsed.extract(&url);
            (url, page)
        })
    }));
    let (url, pages) = match outcome {
        Ok(Some((url, page))) => (url, vec![page]),
        _ => {
            eprintln!(
                "contact-extract: extraction failed for {}; empty result",
                path.display()
            );
            match stem_url() {
                Ok(url) => (url, Vec::new()),
                Err(_) => return empty_result(path),
            }
        }
    };
    let plan = pages
        .first()
        .map(|p| crawl::plan(&url, &p.links))
        .unwrap_or_default();
    extract::merge(
        extract::SiteInfo {
            input_url: url.as_str(),
            url: &url,
            contact_pages: plan.contact_pages.iter().map(Url::to_string).collect(),
            pages_fetched: u32::try_from(pages.len()).unwrap_or(0),
            duration_ms: 0,
            request_id: String::new(),
        },
        &pages,
    )
}

fn empty_result(path: &Path) -> ContactExtractionResult {
    ContactExtractionResult {
        success: true,
        input_url: path.display().to_string(),
        domain: String::new(),
        company_name: None,
        emails: Vec::new(),
        phones: Vec::new(),
        socials: Default::default(),
        addresses: Vec::new(),
        contact_pages: Vec::new(),
        pages_scanned: Vec::new(),
        meta: Default::default(),
        request_id: String::new(),
    }
}

/// Most directory levels walked.
const MAX_DEPTH: usize = 16;

fn collect_html(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!(
            "contact-extract: cannot read directory {}: {e}",
            dir.display()
        )
    })?;
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() && depth < MAX_DEPTH {
            collect_html(&path, out, depth + 1)?;
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
        {
            out.push(path);
        }
    }
    Ok(())
}
