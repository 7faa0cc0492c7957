//! `extract-batch FILE`: crawl a list of live sites with the service's own rules (URL checks,
//! SSRF block list, caps, deadlines; no payment) — the runtime-neutral half. The runtime runs
//! the crawls (`crawl_all` in [`extract_batch`]); this module reads the list, decides which
//! input goes next ([`Scheduler`]: a politeness limit per registrable domain), writes one
//! output record per input ([`Sink`]: JSON lines or CSV), skips inputs already written
//! (`--resume`), draws the progress bar and prints the summary.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs::OpenOptions;
use std::io::{IsTerminal as _, Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use contact_core::api::{ApiError, ContactExtractionResult, PostalAddress};
use contact_core::page_memory::PAGE_RESERVATION;

/// What one crawl gave: the result, or the `ApiError` a paid request would have got.
pub type Outcome = Result<ContactExtractionResult, ApiError>;

/// The output formats of `extract-batch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One JSON object per line: the `ContactExtractionResult`, or the `ApiError` with the
    /// input's `inputUrl` added.
    Jsonl,
    /// One row per site with a header row; lists joined by "; " (RFC 4180 quoting).
    Csv,
}

/// `extract-batch`'s own options (the fetch settings are `FetchArgs`).
#[derive(Debug, clap::Args)]
pub struct BatchArgs {
    /// The list: one URL per line (blank lines and lines starting with # are skipped), or a
    /// CSV file whose header row has a `url` column; `-` reads it from standard input.
    pub file: PathBuf,
    /// Where the records go (default: standard output). Required by --resume.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// jsonl (default) or csv.
    #[arg(long, value_enum, default_value = "jsonl")]
    pub format: Format,
    /// Crawls at once, at most (lowered to what MAX_PAGE_MEMORY holds: 32 by default).
    #[arg(long, default_value = "32", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub concurrency: u16,
    /// Crawls at once per registrable domain (politeness towards one site's servers).
    #[arg(long, default_value = "2", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub per_domain: u16,
    /// Skip the inputs the output file already has a record for, and append to it.
    #[arg(long, requires = "output")]
    pub resume: bool,
}

/// Pages a crawl may hold at once: the homepage and the extra pages.
const PAGES_PER_CRAWL: usize = 1 + contact_core::crawl::MAX_EXTRA_PAGES;

/// The number of crawls run at once: `requested`, lowered so that every crawl's pages fit in
/// the page memory budget (`MAX_PAGE_MEMORY`, bytes; each page holds a
/// [`PAGE_RESERVATION`]-byte share): the batch then never has a crawl refused for memory.
pub fn effective_concurrency(requested: usize, max_page_memory: usize) -> usize {
    let fits = max_page_memory / (PAGE_RESERVATION * PAGES_PER_CRAWL);
    requested.min(fits).max(1)
}

/// Reads the list of inputs, in file order (`-`: standard input). A file whose first non-blank line is a CSV header
/// with a `url` column (any case) is read as CSV (that column; rows without a URL skipped);
/// otherwise each non-blank line not starting with `#` is one input, trimmed.
///
/// # Errors
/// The file cannot be read or is not UTF-8, or the CSV is malformed: a message for stderr.
pub fn read_inputs(path: &Path) -> Result<Vec<String>, String> {
    let cannot =
        |e: std::io::Error| format!("contact-extract: cannot read {}: {e}", path.display());
    let text = if path == Path::new("-") {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(cannot)?;
        text
    } else {
        std::fs::read_to_string(path).map_err(cannot)?
    };
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let url_column = first
        .split(',')
        .position(|field| field.trim().trim_matches('"').eq_ignore_ascii_case("url"));
    let Some(column) = url_column.filter(|_| first.contains(',')) else {
        return Ok(text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect());
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut inputs = Vec::new();
    for (row, record) in reader.records().enumerate() {
        let record = record
            .map_err(|e| format!("contact-extract: {}: row {}: {e}", path.display(), row + 2))?;
        if let Some(url) = record.get(column).map(str::trim).filter(|u| !u.is_empty()) {
            inputs.push(url.to_string());
        }
    }
    Ok(inputs)
}

/// One crawl's outcome, by its input's index.
pub type Crawled = (usize, Result<ContactExtractionResult, ApiError>);

/// Where a crawl started by [`crawl_all`] sends its outcome (an `async-channel` sender, usable
/// under any executor).
pub type Sender = async_channel::Sender<Crawled>;

/// Runs `extract-batch`'s crawls on the caller's executor: starts the inputs `scheduler` gives
/// while fewer than `concurrency` run, and reports each as it ends (`scheduler.finished`, then
/// `on_done(index, outcome)`), until none is left. `spawn(index, url, done)` starts one crawl
/// as a task of the runtime, which sends its outcome on `done`.
pub async fn crawl_all(
    inputs: &[String],
    concurrency: usize,
    mut scheduler: Scheduler,
    on_done: &mut dyn FnMut(usize, Result<ContactExtractionResult, ApiError>),
    mut spawn: impl FnMut(usize, String, Sender),
) {
    let (finished, endings) = async_channel::unbounded::<Crawled>();
    let mut running = 0usize;
    loop {
        while running < concurrency {
            let Some(index) = scheduler.next_input() else {
                break;
            };
            spawn(index, inputs[index].clone(), finished.clone());
            running += 1;
        }
        if running == 0 {
            break;
        }
        // `finished` is held here, so the channel stays open while crawls run.
        let Ok((index, outcome)) = endings.recv().await else {
            break;
        };
        running -= 1;
        scheduler.finished(index);
        on_done(index, outcome);
    }
}

/// Decides which input is crawled next: at most `per_domain` crawls at once per registrable
/// domain (inputs without a host are not limited), domains taken in turn so that one big site
/// does not hold up the others. Inputs are numbered by their place in the list.
pub struct Scheduler {
    /// Each input's politeness key (registrable domain, or a key of its own).
    keys: Vec<String>,
    /// Inputs not started yet, per key, in list order.
    queues: BTreeMap<String, VecDeque<usize>>,
    /// Crawls running, per key.
    running: BTreeMap<String, usize>,
    /// Keys with inputs waiting and room for another crawl, in turn order.
    ready: VecDeque<String>,
    per_domain: usize,
}

impl Scheduler {
    /// A scheduler for the inputs `todo` (indexes into `inputs`).
    pub fn new(inputs: &[String], todo: &[usize], per_domain: usize) -> Scheduler {
        let keys: Vec<String> = inputs
            .iter()
            .enumerate()
            .map(|(index, input)| politeness_key(index, input))
            .collect();
        let mut queues: BTreeMap<String, VecDeque<usize>> = BTreeMap::new();
        let mut ready = VecDeque::new();
        for &index in todo {
            let queue = queues.entry(keys[index].clone()).or_default();
            if queue.is_empty() {
                ready.push_back(keys[index].clone());
            }
            queue.push_back(index);
        }
        Scheduler {
            keys,
            queues,
            running: BTreeMap::new(),
            ready,
            per_domain: per_domain.max(1),
        }
    }

    /// The next input to crawl, or `None` while every domain with inputs left is at its limit
    /// (or nothing is left).
    pub fn next_input(&mut self) -> Option<usize> {
        let key = self.ready.pop_front()?;
        let queue = self.queues.get_mut(&key)?;
        let index = queue.pop_front()?;
        let running = self.running.entry(key.clone()).or_default();
        *running += 1;
        if *running < self.per_domain && !queue.is_empty() {
            self.ready.push_back(key);
        }
        Some(index)
    }

    /// Input `index`'s crawl is over: its domain has room again.
    pub fn finished(&mut self, index: usize) {
        let Some(key) = self.keys.get(index) else {
            return;
        };
        let Some(running) = self.running.get_mut(key) else {
            return;
        };
        let was_full = *running >= self.per_domain;
        *running = running.saturating_sub(1);
        let waiting = self.queues.get(key).is_some_and(|q| !q.is_empty());
        // A key is in `ready` exactly when it has room and inputs waiting; it had no room
        // only if it was full.
        if was_full && waiting {
            self.ready.push_back(key.clone());
        }
    }

    /// Inputs not started yet.
    pub fn waiting(&self) -> usize {
        self.queues.values().map(VecDeque::len).sum()
    }
}

/// The registrable domain of `input`'s host (Public Suffix List), or a key of the input's own
/// when it has no host (it fails at once and needs no politeness).
fn politeness_key(index: usize, input: &str) -> String {
    match url::Url::parse(input)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
    {
        Some(host) => contact_core::site::registrable_domain(&host),
        None => format!("#{index}"),
    }
}

/// An `ApiError` line of the JSON lines output: the error with the input it is for.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct ErrorRecord<'a> {
    input_url: &'a str,
    #[serde(flatten)]
    error: &'a ApiError,
}

/// The CSV header row.
const CSV_HEADER: [&str; 16] = [
    "input_url",
    "success",
    "error_code",
    "error_message",
    "domain",
    "company_name",
    "emails",
    "phones",
    "linkedin",
    "facebook",
    "instagram",
    "x",
    "youtube",
    "addresses",
    "contact_pages",
    "pages_fetched",
];

/// Where the records go: standard output or a file (appended to when resuming), written a
/// whole record at a time and flushed after each, so an interrupted run leaves at most one
/// partial last line (which `--resume` drops).
pub struct Sink {
    out: Box<dyn std::io::Write>,
    format: Format,
}

impl Sink {
    /// Opens the output. With `resume`, the file is kept (less a partial last line) and
    /// appended to; else it is created or emptied. A CSV output gets its header row when it
    /// starts empty.
    ///
    /// # Errors
    /// The file cannot be opened or written: a message for stderr.
    pub fn open(path: Option<&Path>, format: Format, resume: bool) -> Result<Sink, String> {
        let cannot = |path: &Path, e: std::io::Error| {
            format!("contact-extract: cannot write {}: {e}", path.display())
        };
        let (out, empty): (Box<dyn std::io::Write>, bool) = match path {
            None => (Box::new(std::io::stdout()), true),
            Some(path) => {
                let mut file = OpenOptions::new()
                    .create(true)
                    .append(resume)
                    .write(true)
                    .truncate(!resume)
                    .open(path)
                    .map_err(|e| cannot(path, e))?;
                let length = file
                    .seek(std::io::SeekFrom::End(0))
                    .map_err(|e| cannot(path, e))?;
                (Box::new(file), length == 0)
            }
        };
        let mut sink = Sink { out, format };
        if format == Format::Csv && empty {
            sink.write_csv(&CSV_HEADER.map(String::from))?;
        }
        Ok(sink)
    }

    /// Writes the record of `input`.
    ///
    /// # Errors
    /// The output cannot be written: a message for stderr (a closed standard output ends the
    /// process quietly instead, as in the other commands).
    pub fn write(&mut self, input: &str, outcome: &Outcome) -> Result<(), String> {
        match self.format {
            Format::Jsonl => {
                let line = match outcome {
                    Ok(result) => serde_json::to_string(result),
                    Err(error) => serde_json::to_string(&ErrorRecord {
                        input_url: input,
                        error,
                    }),
                }
                .map_err(|e| format!("contact-extract: cannot serialise a record: {e}"))?;
                self.write_bytes(format!("{line}\n").as_bytes())
            }
            Format::Csv => self.write_csv(&csv_row(input, outcome)),
        }
    }

    fn write_csv(&mut self, row: &[String]) -> Result<(), String> {
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer
            .write_record(row)
            .map_err(|e| format!("contact-extract: cannot write a CSV row: {e}"))?;
        let bytes = writer
            .into_inner()
            .map_err(|e| format!("contact-extract: cannot write a CSV row: {e}"))?;
        self.write_bytes(&bytes)
    }

    fn write_bytes(&mut self, bytes: &[u8]) -> Result<(), String> {
        match self.out.write_all(bytes).and_then(|()| self.out.flush()) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
            Err(e) => Err(format!("contact-extract: cannot write the output: {e}")),
        }
    }
}

/// One CSV row (columns as [`CSV_HEADER`]).
fn csv_row(input: &str, outcome: &Outcome) -> Vec<String> {
    let join = |values: &[String]| values.join("; ");
    match outcome {
        Ok(r) => {
            let values = |list: &[contact_core::api::SourcedValue]| {
                join(&list.iter().map(|v| v.value.clone()).collect::<Vec<_>>())
            };
            vec![
                input.to_string(),
                "true".to_string(),
                String::new(),
                String::new(),
                r.domain.clone(),
                r.company_name.clone().unwrap_or_default(),
                values(&r.emails),
                values(&r.phones),
                join(&r.socials.linkedin),
                join(&r.socials.facebook),
                join(&r.socials.instagram),
                join(&r.socials.x),
                join(&r.socials.youtube),
                join(&r.addresses.iter().map(address_line).collect::<Vec<_>>()),
                join(&r.contact_pages),
                r.meta.pages_fetched.to_string(),
            ]
        }
        Err(e) => {
            let mut row = vec![
                input.to_string(),
                "false".to_string(),
                e.error.code.as_str().to_string(),
                e.error.message.clone(),
            ];
            row.resize(CSV_HEADER.len(), String::new());
            row
        }
    }
}

/// A postal address on one line: its parts, as printed, joined by ", ".
fn address_line(a: &PostalAddress) -> String {
    [
        &a.street_address,
        &a.address_locality,
        &a.address_region,
        &a.postal_code,
        &a.address_country,
    ]
    .into_iter()
    .flatten()
    .map(String::as_str)
    .collect::<Vec<_>>()
    .join(", ")
}

/// The inputs an earlier run already wrote a record for (`--resume`), read from `path` in
/// `format`. A partial last line (the run was killed mid-write) is cut off the file first, so
/// appending starts on a fresh line. A missing file has none.
///
/// # Errors
/// The file cannot be read or cut: a message for stderr.
pub fn already_done(path: &Path, format: Format) -> Result<BTreeSet<String>, String> {
    let cannot = |e: std::io::Error| {
        format!(
            "contact-extract: cannot resume from {}: {e}",
            path.display()
        )
    };
    let mut file = match OpenOptions::new().read(true).write(true).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeSet::new()),
        Err(e) => return Err(cannot(e)),
    };
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).map_err(cannot)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    if complete < bytes.len() {
        file.set_len(complete as u64).map_err(cannot)?;
        bytes.truncate(complete);
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut done = BTreeSet::new();
    match format {
        Format::Jsonl => {
            for line in text.lines() {
                let value: Option<serde_json::Value> = serde_json::from_str(line).ok();
                if let Some(input) = value.as_ref().and_then(|v| v["inputUrl"].as_str()) {
                    done.insert(input.to_string());
                }
            }
        }
        Format::Csv => {
            let mut reader = csv::ReaderBuilder::new()
                .flexible(true)
                .from_reader(text.as_bytes());
            for record in reader.records().flatten() {
                if let Some(input) = record.get(0).filter(|i| !i.is_empty()) {
                    done.insert(input.to_string());
                }
            }
        }
    }
    Ok(done)
}

/// The counts printed at the end.
#[derive(Debug, Default)]
pub struct Summary {
    /// Sites crawled with a result.
    pub ok: usize,
    /// Sites that failed, by error code.
    pub failed: BTreeMap<String, usize>,
    /// Inputs skipped because the output already had them.
    pub skipped: usize,
    /// Pages fetched over all crawls (HTTP responses received by the successful crawls).
    pub pages_fetched: u64,
}

impl Summary {
    /// Counts one outcome.
    pub fn record(&mut self, outcome: &Outcome) {
        match outcome {
            Ok(result) => {
                self.ok += 1;
                self.pages_fetched += u64::from(result.meta.pages_fetched);
            }
            Err(error) => {
                *self
                    .failed
                    .entry(error.error.code.as_str().to_string())
                    .or_default() += 1
            }
        }
    }

    /// The summary line: `sites: 1000 (ok 950, failed 50: FETCH_FAILED 40, TIMEOUT 10),
    /// skipped 0, pages fetched: 2850, seconds: 12.3, sites/s: 81.3`.
    pub fn line(&self, seconds: f64) -> String {
        let failed: usize = self.failed.values().sum();
        let codes: Vec<String> = self
            .failed
            .iter()
            .map(|(c, n)| format!("{c} {n}"))
            .collect();
        let sites = self.ok + failed;
        let rate = if seconds > 0.0 {
            sites as f64 / seconds
        } else {
            0.0
        };
        format!(
            "sites: {sites} (ok {}, failed {failed}{}), skipped: {}, pages fetched: {}, \
             seconds: {seconds:.1}, sites/s: {rate:.1}",
            self.ok,
            if codes.is_empty() {
                String::new()
            } else {
                format!(": {}", codes.join(", "))
            },
            self.skipped,
            self.pages_fetched,
        )
    }
}

/// Runs `extract-batch`: reads the list, drops what the output has (`--resume`), lets the
/// runtime's `crawl_all(inputs, concurrency, scheduler, on_done)` crawl the rest — it must
/// start only inputs `scheduler.next_input()` gives, call `scheduler.finished(i)` and
/// `on_done(i, outcome)` as each ends, and run at most `concurrency` at once — and writes each
/// record as it comes, with a progress bar on stderr when stderr is a terminal, then the
/// summary. `max_page_memory` (bytes) bounds the concurrency ([`effective_concurrency`]).
///
/// Exit status: 0 when every input has its record (failed sites included: a failure is a
/// record), 1 when the list or the output cannot be read or written.
pub fn extract_batch(
    args: &BatchArgs,
    max_page_memory: usize,
    crawl_all: impl FnOnce(&[String], usize, Scheduler, &mut dyn FnMut(usize, Outcome)),
) -> ExitCode {
    let started = Instant::now();
    let inputs = match read_inputs(&args.file) {
        Ok(inputs) => inputs,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let done = match (&args.output, args.resume) {
        (Some(path), true) => match already_done(path, args.format) {
            Ok(done) => done,
            Err(message) => {
                eprintln!("{message}");
                return ExitCode::FAILURE;
            }
        },
        _ => BTreeSet::new(),
    };
    let todo: Vec<usize> = (0..inputs.len())
        .filter(|&i| !done.contains(&inputs[i]))
        .collect();
    let mut summary = Summary {
        skipped: inputs.len() - todo.len(),
        ..Summary::default()
    };
    let mut sink = match Sink::open(args.output.as_deref(), args.format, args.resume) {
        Ok(sink) => sink,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let concurrency = effective_concurrency(usize::from(args.concurrency), max_page_memory);
    if concurrency < usize::from(args.concurrency) {
        eprintln!(
            "contact-extract: running {concurrency} crawls at once: MAX_PAGE_MEMORY holds no more"
        );
    }
    crate::log::disable_access_lines();
    let progress = progress_bar(todo.len());
    let scheduler = Scheduler::new(&inputs, &todo, usize::from(args.per_domain));
    let mut write_error = None;
    crawl_all(&inputs, concurrency, scheduler, &mut |index, outcome| {
        summary.record(&outcome);
        progress.inc(1);
        if write_error.is_none() {
            if let Err(message) = sink.write(&inputs[index], &outcome) {
                write_error = Some(message);
            }
        }
    });
    progress.finish_and_clear();
    crate::log::flush_logs();
    eprintln!("{}", summary.line(started.elapsed().as_secs_f64()));
    if let Some(message) = write_error {
        eprintln!("{message}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// A progress bar with rate and ETA on stderr when it is a terminal; hidden otherwise (logs,
/// pipes and tests see only the summary).
fn progress_bar(total: usize) -> indicatif::ProgressBar {
    if !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{bar:40} {pos}/{len} sites  {per_sec}  ETA {eta}  {elapsed_precise}",
    ) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str, text: &str) -> PathBuf {
        let path = std::env::temp_dir().join(format!("batch-{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("write");
        path
    }

    #[test]
    fn a_plain_list_skips_blanks_and_comments() {
        let path = temp("list.txt", "# sites\nhttps://a.com/\n\n  http://b.org  \n");
        let inputs = read_inputs(&path).expect("read");
        std::fs::remove_file(&path).ok();
        assert_eq!(inputs, ["https://a.com/", "http://b.org"]);
    }

    #[test]
    fn a_csv_list_uses_its_url_column() {
        let path = temp(
            "list.csv",
            "name,URL,notes\nA,https://a.com/,\"x, y\"\nB,,none\n\"C, Inc\",http://c.net/,\n",
        );
        let inputs = read_inputs(&path).expect("read");
        std::fs::remove_file(&path).ok();
        assert_eq!(inputs, ["https://a.com/", "http://c.net/"]);
    }

    #[test]
    fn the_scheduler_keeps_to_the_per_domain_limit_and_takes_domains_in_turn() {
        let inputs: Vec<String> = [
            "https://a.com/1",
            "https://www.a.com/2",
            "https://shop.a.com/3",
            "https://b.co.uk/1",
            "not a url",
            "https://a.com/4",
        ]
        .map(String::from)
        .to_vec();
        let todo: Vec<usize> = (0..inputs.len()).collect();
        let mut s = Scheduler::new(&inputs, &todo, 2);
        let mut started = Vec::new();
        while let Some(i) = s.next_input() {
            started.push(i);
        }
        // Two of a.com's four (one registrable domain), then b.co.uk and the bad input.
        assert_eq!(started, [0, 3, 4, 1]);
        assert_eq!(s.waiting(), 2);
        s.finished(3);
        assert_eq!(s.next_input(), None, "b.co.uk's end frees no a.com slot");
        s.finished(0);
        assert_eq!(s.next_input(), Some(2));
        assert_eq!(s.next_input(), None);
        s.finished(1);
        assert_eq!(s.next_input(), Some(5));
        assert_eq!(s.waiting(), 0);
    }

    #[test]
    fn concurrency_is_lowered_to_what_page_memory_holds() {
        assert_eq!(effective_concurrency(32, 512 << 20), 32);
        assert_eq!(effective_concurrency(100, 512 << 20), 32);
        assert_eq!(effective_concurrency(100, 64 << 20), 4);
        assert_eq!(effective_concurrency(8, 1 << 20), 1);
    }

    #[test]
    fn resume_reads_both_formats_and_cuts_a_partial_last_line() {
        let jsonl = temp(
            "out.jsonl",
            "{\"inputUrl\":\"https://a.com/\",\"success\":true}\n{\"inputUrl\":\"bad\",\"success\":false}\n{\"inputUrl\":\"https://c.c",
        );
        let done = already_done(&jsonl, Format::Jsonl).expect("read");
        let left = std::fs::read_to_string(&jsonl).expect("read");
        std::fs::remove_file(&jsonl).ok();
        assert_eq!(
            done,
            BTreeSet::from(["https://a.com/".into(), "bad".into()])
        );
        assert!(left.ends_with("false}\n"), "{left}");
        let csv = temp(
            "out.csv",
            "input_url,success\nhttps://a.com/,true\n\"https://b.com/?q=1,2\",false\nhttps://c",
        );
        let done = already_done(&csv, Format::Csv).expect("read");
        std::fs::remove_file(&csv).ok();
        assert_eq!(
            done,
            BTreeSet::from(["https://a.com/".into(), "https://b.com/?q=1,2".into()])
        );
        assert!(already_done(Path::new("/nonexistent/out"), Format::Csv)
            .expect("missing is empty")
            .is_empty());
    }

    #[test]
    fn csv_rows_join_lists_and_carry_errors() {
        let error = ApiError::new(
            contact_core::api::ErrorCode::FetchFailed,
            "connection refused",
            "req_1",
        );
        let row = csv_row("https://a.com/", &Err(error));
        assert_eq!(row.len(), CSV_HEADER.len());
        assert_eq!(
            &row[..4],
            [
                "https://a.com/",
                "false",
                "FETCH_FAILED",
                "connection refused"
            ]
        );
        let mut summary = Summary::default();
        summary.record(&Err(ApiError::new(
            contact_core::api::ErrorCode::Timeout,
            "late",
            "",
        )));
        assert!(
            summary.line(2.0).contains("failed 1: TIMEOUT 1"),
            "{}",
            summary.line(2.0)
        );
    }
}
