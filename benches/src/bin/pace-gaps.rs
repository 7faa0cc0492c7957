//! `pace-gaps FILE|DIR…`: for each page, how long extraction ran at most without reaching a
//! pacing checkpoint (`contact_core::pace`), and where that stretch ended. A stretch is the
//! time a worker holds its core without offering it back, so this is the bound on how long
//! one page's extraction can hold up the IO threads on a shared core. Prints one
//! line per page, the worst last, and the overall worst; wall-clock microseconds, release
//! build recommended (`cargo run --release -p contact-benches --bin pace-gaps -- DIR`).
//! `--warm` first extracts every page once unmeasured, so one-time costs (regular
//! expressions compiled on first use, per phone region) are left out, as in a running
//! service.

use std::cell::RefCell;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;
use std::time::{Duration, Instant};

use contact_core::pace::{self, Pace, Pacer};

/// The longest stretch so far and where it ended.
#[derive(Default)]
struct Gaps {
    last: Option<Instant>,
    longest: Duration,
    ended_at: String,
    checkpoints: u64,
}

impl Gaps {
    fn mark(&mut self, ended_at: &str) {
        let now = Instant::now();
        if let Some(last) = self.last {
            if now - last > self.longest {
                self.longest = now - last;
                self.ended_at = ended_at.to_string();
            }
        }
        self.last = Some(now);
    }
}

struct Recorder(Rc<RefCell<Gaps>>);

impl Pacer for Recorder {
    fn checkpoint(&mut self, at: &'static Location<'static>) -> Pace {
        let mut gaps = self.0.borrow_mut();
        gaps.checkpoints += 1;
        gaps.mark(&format!("{}:{}", at.file(), at.line()));
        Pace::Continue
    }
}

/// The pages named by `args`: each file, and every `*.html` file of each directory
/// ([`contact_benches::load_pages`]), with their bytes.
fn read_pages(args: &[String]) -> std::io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut pages = Vec::new();
    for arg in args {
        let path = Path::new(arg);
        if path.is_dir() {
            pages.extend(contact_benches::load_pages(path)?);
        } else {
            pages.push((path.to_path_buf(), std::fs::read(path)?));
        }
    }
    Ok(pages)
}

/// What the service does with a fetched page on a worker: extraction, then the crawl plan.
fn extract_and_plan(url: &url::Url, body: &[u8]) -> contact_core::crawl::CrawlPlan {
    let extraction = contact_core::extract::extract_page(url, Some("text/html"), body);
    contact_core::crawl::plan(url, &extraction.links)
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let warm = args.first().is_some_and(|a| a == "--warm");
    if warm {
        args.remove(0);
    }
    if args.is_empty() {
        eprintln!("usage: pace-gaps [--warm] FILE|DIR…");
        return ExitCode::from(2);
    }
    let url = url::Url::parse("https://www.example.com/").expect("a valid URL");
    let bodies = match read_pages(&args) {
        Ok(bodies) => bodies,
        Err(error) => {
            eprintln!("pace-gaps: {error}");
            return ExitCode::FAILURE;
        }
    };
    if warm {
        for (_, body) in &bodies {
            std::hint::black_box(extract_and_plan(&url, body));
        }
    }
    let mut results = Vec::new();
    for (page, body) in bodies {
        let gaps = Rc::new(RefCell::new(Gaps::default()));
        let started = Instant::now();
        gaps.borrow_mut().mark("start");
        let recorder = Box::new(Recorder(Rc::clone(&gaps)));
        let paced = pace::with_pacer(recorder, || extract_and_plan(&url, &body));
        std::hint::black_box(paced.output);
        gaps.borrow_mut().mark("end");
        let gaps = gaps.borrow();
        results.push((
            gaps.longest,
            started.elapsed(),
            gaps.checkpoints,
            gaps.ended_at.clone(),
            page,
        ));
    }
    results.sort();
    for (longest, total, checkpoints, at, page) in &results {
        println!(
            "{:>8} us longest  {:>9} us total  {:>6} checkpoints  ended at {}  {}",
            longest.as_micros(),
            total.as_micros(),
            checkpoints,
            at,
            page.display()
        );
    }
    ExitCode::SUCCESS
}
