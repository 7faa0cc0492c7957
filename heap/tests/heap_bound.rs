//! Whatever a page holds, extracting it (decode, parse, every reader: `extract::extract_page`)
//! takes heap and work bounded by the page's size (docs/security.md, "Reading a page"):
//!
//! - peak heap above what was live before, less what the page leaves behind (the phone
//!   library's and the address patterns' compiled expressions, built as regions first
//!   appear), at most [`HEAP_PER_PAGE_BYTE`] × page bytes + [`HEAP_BASE`]; and what it leaves
//!   behind at most [`RETAINED_MAX`];
//! - work reported to the pacer (`contact_core::pace`, about a unit per byte examined) at most
//!   [`WORK_PER_PAGE_BYTE`] × page bytes + [`WORK_BASE`];
//! - and it counts, per corpus, the pages whose budget (`PageBudget`) refused a charge.
//!
//! Checked on every page of every corpus under `../shared` (skipped with a message when the
//! folder is missing, a failure under `CI=true`), the crafted pages of
//! `contact_benches::pathological` and random pages (proptest). The global allocator of this
//! test binary counts the bytes live and their peak; it refuses an allocation past
//! [`SAFETY_MARGIN`] above the page's start, so a page that would ask for gigabytes aborts the
//! binary (naming the page on stderr first) instead of taking the machine's memory.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Write as _;
use std::panic::Location;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};

use contact_core::extract;
use contact_core::pace::{self, Pace, Pacer};
use proptest::prelude::*;
use url::Url;

/// Peak heap per byte of page (above what the page leaves behind).
const HEAP_PER_PAGE_BYTE: usize = 40;
/// Peak heap any page may take, however small.
const HEAP_BASE: usize = 4 << 20;
/// Most heap one page may leave behind (lazily built tables).
const RETAINED_MAX: usize = 32 << 20;
/// Units of work per byte of page.
const WORK_PER_PAGE_BYTE: usize = 64;
/// Units of work any page may do, however small: the page budget's own base (4 Mi units,
/// `contact_core::extract::page_budget::WORK_BASE`) and 1 Mi for what runs before it.
const WORK_BASE: usize = 5 << 20;
/// How far above the heap live at a page's start the allocator lets the page go.
const SAFETY_MARGIN: usize = 1 << 30;

/// Bytes live now, their peak since the last [`Measured`] started, and the most the allocator
/// gives.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// The system allocator, counting.
struct Counting;

impl Counting {
    /// Counts `size` more bytes live, unless that passes [`LIMIT`].
    fn take(size: usize) -> bool {
        let live = LIVE.fetch_add(size, Ordering::SeqCst) + size;
        if live > LIMIT.load(Ordering::SeqCst) {
            LIVE.fetch_sub(size, Ordering::SeqCst);
            return false;
        }
        PEAK.fetch_max(live, Ordering::SeqCst);
        true
    }

    fn give(size: usize) {
        LIVE.fetch_sub(size, Ordering::SeqCst);
    }
}

// The only unsafe code of the workspace (see Cargo.toml): every call goes to `System` with the
// arguments it came with, so `System`'s guarantees are this allocator's; only counters change.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !Self::take(layout.size()) {
            return std::ptr::null_mut();
        }
        let ptr = System.alloc(layout);
        if ptr.is_null() {
            Self::give(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !Self::take(layout.size()) {
            return std::ptr::null_mut();
        }
        let ptr = System.alloc_zeroed(layout);
        if ptr.is_null() {
            Self::give(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        Self::give(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        let grows = new_size.saturating_sub(old);
        if !Self::take(grows) {
            return std::ptr::null_mut();
        }
        let new = System.realloc(ptr, layout, new_size);
        if new.is_null() {
            Self::give(grows);
        } else {
            Self::give(old.saturating_sub(new_size));
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Counts the work reported to the pacer: one checkpoint per `pace::QUANTUM` units.
struct CountingPacer(Rc<Cell<usize>>);

impl Pacer for CountingPacer {
    fn checkpoint(&mut self, _at: &'static Location<'static>) -> Pace {
        self.0.set(self.0.get() + 1);
        Pace::Continue
    }
}

/// What extracting one page took.
#[derive(Debug, Clone, Copy)]
struct Cost {
    bytes: usize,
    /// Peak heap above the start, less `retained`.
    peak: usize,
    /// Heap still live after the page's result was dropped.
    retained: usize,
    /// Units of work (rounded down to a `pace::QUANTUM`).
    work: usize,
    /// Whether the page's budget refused a charge (`PageBudget::refused`).
    budget_bound: bool,
}

impl Cost {
    fn heap_bound(&self) -> usize {
        HEAP_PER_PAGE_BYTE * self.bytes + HEAP_BASE
    }

    fn work_bound(&self) -> usize {
        WORK_PER_PAGE_BYTE * self.bytes + WORK_BASE
    }

    /// What is over its bound, if anything.
    fn over(&self) -> Option<String> {
        let mut over = Vec::new();
        if self.peak > self.heap_bound() {
            over.push(format!(
                "peak heap {} B > {} B ({HEAP_PER_PAGE_BYTE} × {} + {HEAP_BASE})",
                self.peak,
                self.heap_bound(),
                self.bytes
            ));
        }
        if self.retained > RETAINED_MAX {
            over.push(format!(
                "{} B left behind > {RETAINED_MAX} B",
                self.retained
            ));
        }
        if self.work > self.work_bound() {
            over.push(format!(
                "work {} units > {} ({WORK_PER_PAGE_BYTE} × {} + {WORK_BASE})",
                self.work,
                self.work_bound(),
                self.bytes
            ));
        }
        (!over.is_empty()).then(|| over.join("; "))
    }
}

/// Extracts `page` as the service does (`extract_page`: decode, parse, every reader) and
/// measures it (nothing else may run meanwhile: the counters are the process's, so this
/// binary has one test). `name` goes to stderr first, so a page the allocator refuses is named by the
/// abort's output.
fn measure(name: &str, page: &[u8]) -> Cost {
    let url = Url::parse("https://www.beispiel.example/").expect("static URL");
    let checkpoints = Rc::new(Cell::new(0));
    // Past the harness's capture: an abort must show it.
    let _ = std::io::stderr()
        .write_all(format!("heap_bound: {name} ({} bytes)\n", page.len()).as_bytes());
    let start = LIVE.load(Ordering::SeqCst);
    PEAK.store(start, Ordering::SeqCst);
    LIMIT.store(start + SAFETY_MARGIN, Ordering::SeqCst);
    let budget_bound = pace::with_pacer(Box::new(CountingPacer(Rc::clone(&checkpoints))), || {
        let parsed = extract::parse_page(Some("text/html"), page);
        drop(parsed.extract(&url));
        parsed.budget().refused()
    })
    .output;
    LIMIT.store(usize::MAX, Ordering::SeqCst);
    let peak = PEAK.load(Ordering::SeqCst) - start;
    let retained = LIVE.load(Ordering::SeqCst).saturating_sub(start);
    Cost {
        bytes: page.len(),
        peak: peak.saturating_sub(retained),
        retained,
        work: checkpoints.get() * pace::QUANTUM,
        budget_bound,
    }
}

/// Every `*.html`/`*.htm` file under `dir`, sorted.
fn pages_under(dir: &Path, into: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            pages_under(&path, into);
        } else if path.extension().is_some_and(|e| e == "html" || e == "htm") {
            into.push(path);
        }
    }
}

/// The largest ratios seen, for the message of a passing run.
#[derive(Default)]
struct Worst {
    heap_per_byte: f64,
    work_per_byte: f64,
    retained: usize,
}

impl Worst {
    fn add(&mut self, cost: &Cost) {
        let bytes = cost.bytes.max(1) as f64;
        self.heap_per_byte = self.heap_per_byte.max(cost.peak as f64 / bytes);
        self.work_per_byte = self.work_per_byte.max(cost.work as f64 / bytes);
        self.retained = self.retained.max(cost.retained);
    }
}

/// The crafted pages first (an amplification shows at once), then random pages, then every
/// corpus: one test, as the allocator's counters are the process's.
#[test]
fn extraction_stays_within_its_heap_and_work_bound() {
    let mut failures = Vec::new();
    crafted_pages(&mut failures);
    random_pages(&mut failures);
    corpus_pages(&mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn crafted_pages(failures: &mut Vec<String>) {
    let mut worst = Worst::default();
    for (name, build) in contact_benches::pathological::PAGES {
        let page = build();
        let cost = measure(name, &page);
        worst.add(&cost);
        eprintln!("heap_bound: {name}: {cost:?}");
        if let Some(over) = cost.over() {
            failures.push(format!("{name}: {over}"));
        }
    }
    eprintln!(
        "heap_bound: crafted pages: worst peak heap {:.1} B/page byte, work {:.1} units/page byte",
        worst.heap_per_byte, worst.work_per_byte
    );
}

/// Random pages of [`piece`]s, each repeated, up to 2 MiB.
fn random_pages(failures: &mut Vec<String>) {
    let pages = proptest::collection::vec((piece(), 1..40usize), 1..24).prop_map(|pieces| {
        let mut page = String::from("<!doctype html><html><head><title>t</title></head><body>");
        for (piece, times) in &pieces {
            for _ in 0..*times {
                if page.len() + piece.len() > 2 << 20 {
                    break;
                }
                page.push_str(piece);
            }
        }
        page.push_str("</body></html>");
        page
    });
    let config = ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = proptest::test_runner::TestRunner::new(config);
    let worst = std::cell::RefCell::new(Worst::default());
    let outcome = runner.run(&pages, |page| {
        let cost = measure("a random page", page.as_bytes());
        worst.borrow_mut().add(&cost);
        match cost.over() {
            Some(over) => Err(TestCaseError::fail(over)),
            None => Ok(()),
        }
    });
    let worst = worst.into_inner();
    eprintln!(
        "heap_bound: random pages: worst peak heap {:.1} B/page byte, work {:.1} units/page byte",
        worst.heap_per_byte, worst.work_per_byte
    );
    if let Err(failure) = outcome {
        failures.push(format!("random pages: {failure}"));
    }
}

/// Every page of every corpus of the shared folder.
fn corpus_pages(failures: &mut Vec<String>) {
    let Some(shared) = contact_benches::shared_or_skip(
        "corpus",
        "extraction_stays_within_its_heap_and_work_bound",
    )
    .and_then(|corpus| corpus.parent().map(Path::to_path_buf)) else {
        return;
    };
    let mut corpora: Vec<PathBuf> = std::fs::read_dir(&shared)
        .expect("the shared folder")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_dir()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("corpus"))
        })
        .collect();
    corpora.sort();
    for corpus in corpora {
        let corpus_name = corpus
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        // The held-out corpus is read as input only: its pages are never named.
        let held_out = corpus_name == "corpus-world-check";
        let mut pages = Vec::new();
        pages_under(&corpus, &mut pages);
        pages.sort();
        let mut worst = Worst::default();
        let mut bound = 0;
        for (i, path) in pages.iter().enumerate() {
            let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = if held_out {
                format!("{corpus_name} page {i}")
            } else {
                path.display().to_string()
            };
            let cost = measure(&name, &bytes);
            worst.add(&cost);
            if let Some(over) = cost.over() {
                failures.push(format!("{name}: {over}"));
            }
            // An ordinary page is far below its budget: what it gives does not depend on it.
            bound += usize::from(cost.budget_bound);
        }
        eprintln!(
            "heap_bound: {corpus_name}: {} pages ({bound} bound by their page budget), worst peak heap {:.1} B/page byte, work {:.1} units/page byte, {} B left behind",
            pages.len(),
            worst.heap_per_byte,
            worst.work_per_byte,
            worst.retained
        );
    }
}

/// Pieces of pages, chosen to hit the readers that copy or expand: framework state whose
/// values are shared, JSON-LD, long attribute values, markup.
fn piece() -> impl Strategy<Value = String> {
    let word = "[a-z]{1,12}";
    prop_oneof![
        word.prop_map(|w| format!("{w} ")),
        (word, word).prop_map(|(a, b)| format!("<p>{a}@{b}.example, Tel. +49 30 {}</p>", a.len() * 1_234_567)),
        Just("<div><span>".to_string()),
        Just("</span></div>".to_string()),
        (word, 0..4096usize).prop_map(|(w, n)| format!("<a href=\"/{}\">kontakt</a>", w.repeat(n))),
        (word, 0..4096usize).prop_map(|(w, n)| format!(
            "<div itemscope itemtype=\"http://schema.org/Organization\"><span itemprop=\"telephone\">{}</span></div>",
            w.repeat(n)
        )),
        // Nuxt 2: a function-call argument used many times.
        (word, 0..20_000usize, 0..5_000usize).prop_map(|(w, size, uses)| format!(
            "<script>window.__NUXT__=(function(a,b){{return {{data:[{}{{email:b}}]}}}}(\"{}\",\"{w}@beispiel.example\"));</script>",
            "a,".repeat(uses),
            "x".repeat(size)
        )),
        // Nuxt 3: devalue members sharing an object, its key and its string.
        (0..20_000usize, 0..5_000usize, 1..4usize).prop_map(|(size, uses, levels)| {
            let fan: Vec<String> = (1..=levels)
                .map(|next| format!("[{}{next}]", format!("{next},").repeat(uses)))
                .collect();
            format!(
                "<script type=\"application/json\" id=\"__NUXT_DATA__\">[{},{{\"{}\":{}}},\"v\"]</script>",
                fan.join(","),
                "k".repeat(size),
                levels + 2
            )
        }),
        // JSON-LD nested and repeated.
        (1..200usize, 0..50usize).prop_map(|(depth, repeat)| format!(
            "<script type=\"application/ld+json\">{}{{\"@type\":\"Organization\",\"telephone\":\"+49 30 1234567\"}}{}</script>",
            "{\"@type\":\"Organization\",\"member\":[".repeat(depth),
            "]}".repeat(depth)
        ).repeat(repeat.max(1))),
        // SvelteKit and Next.js state.
        (0..2_000usize).prop_map(|n| format!(
            "<script>{{ __sveltekit_x = {{}}; kit.start(app, element, {{ data: [{}{{type:\"data\",data:{{mail:\"a@b.example\"}}}}] }}); }}</script>",
            "null,".repeat(n)
        )),
        (0..2_000usize).prop_map(|n| format!(
            "<script>self.__next_f.push([1,\"1:{}\\n\"])</script>",
            "[\\\"$\\\",{\\\"phone\\\":\\\"+49 30 1234567\\\"}]".repeat(n.min(200))
        )),
    ]
}
