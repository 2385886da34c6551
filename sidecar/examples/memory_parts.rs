//! Where a loaded release's memory goes, counted by the allocator rather
//! than read from the resident set: `cargo run --release -p sidecar
//! --example memory_parts -- dist [files-memory-mb]`. Prints the bytes
//! live after loading, split into the files held, the search index and
//! the rest (the manifest's entries with their prepared headers, the
//! documents, the service documents), and the peak while loading.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

/// The system allocator, counting what is live and the most ever live.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed on to the system allocator unchanged; the
// counters are only added to and read.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(now, Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: as the caller's contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            let now = LIVE.fetch_add(new_size - layout.size(), Relaxed) + new_size - layout.size();
            PEAK.fetch_max(now, Relaxed);
        } else {
            LIVE.fetch_sub(layout.size() - new_size, Relaxed);
        }
        // SAFETY: as the caller's contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn mib(bytes: usize) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let dist = std::path::PathBuf::from(args.next().expect("a built dist/"));
    let budget: u64 = args.next().map_or(64, |m| m.parse().expect("MiB"));
    let before = LIVE.load(Relaxed);
    let published =
        sidecar::published::Published::load_within(&dist, "http://localhost", budget << 20)
            .expect("loading the release");
    let live = LIVE.load(Relaxed) - before;
    let files = published.files.byte_count() as usize;
    let index = published.content.passages.heap_bytes();
    let documents: usize = published
        .content
        .documents
        .iter()
        .map(|d| {
            let text = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
            std::mem::size_of_val(d)
                + d.path.capacity()
                + d.title.capacity()
                + text(&d.description)
                + text(&d.licence)
                + text(&d.attribution)
        })
        .sum();
    println!(
        "live after loading {:.1} MiB (peak while loading {:.1} MiB): files held {:.1} MiB, \
         search index {:.1} MiB, documents {:.1} MiB ({}), the rest {:.1} MiB ({} files in the manifest)",
        mib(live),
        mib(PEAK.load(Relaxed) - before),
        mib(files),
        mib(index),
        mib(documents),
        published.content.documents.len(),
        mib(live.saturating_sub(files + index + documents)),
        published.files.file_count(),
    );
}
