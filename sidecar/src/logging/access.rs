//! The request log's writer, off the requests' path: a request's line is
//! formatted on its worker into that worker's buffer (a lock nobody else
//! takes but the writer, briefly), and a thread of its own writes the
//! buffers in batches — every [`FLUSH_EVERY`], or sooner when one fills
//! [`BATCH`] — so a response never waits for a `write` to the log's
//! stream, and one `write` carries hundreds of lines.
//!
//! A stream that stops taking lines (a full pipe nobody reads) blocks only
//! the writer; a worker's buffer then stops growing at [`MAX_PENDING`] and
//! further lines are dropped and counted (`sidecar_access_log_dropped_lines_total`)
//! rather than holding responses or memory. On shutdown the server flushes
//! what is left.
//!
//! The lines are those `tracing`'s formatter writes for the other log
//! lines, in the same text or JSON shape, target `access`.

use std::cell::Cell;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub use super::line::Line;
use super::line::Recent;
use super::{LogFormat, LogOutput};

/// How often the writer writes what the workers have logged.
const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// A worker's buffer this full wakes the writer at once.
const BATCH: usize = 64 * 1024;
/// A worker's buffer this full drops lines instead of growing.
const MAX_PENDING: usize = 8 * 1024 * 1024;
/// The most room an emptied buffer keeps for its next use.
const KEEP: usize = 4 * BATCH;
/// Buffers, one per worker up to this many (workers beyond share).
const SHARDS: usize = 16;
/// How long a buffer's lines take their wall time from one reading of
/// the system clock (see [`wall`]).
const CLOCK_READ_EVERY: Duration = Duration::from_secs(1);

/// The request log: shared by the workers, written by its own thread.
pub struct AccessLog {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for AccessLog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessLog")
            .field("dropped", &self.dropped())
            .finish_non_exhaustive()
    }
}

struct Shared {
    format: LogFormat,
    shards: Vec<Mutex<Shard>>,
    out: Mutex<Box<dyn Write + Send>>,
    /// The emptied buffer the next drain gives a worker.
    spare: Mutex<Vec<u8>>,
    dropped: AtomicU64,
    closed: AtomicBool,
    writer: Mutex<Option<thread::Thread>>,
}

impl AccessLog {
    /// Starts the writer thread for `output`.
    pub fn start(format: LogFormat, output: LogOutput) -> std::io::Result<AccessLog> {
        let out: Box<dyn Write + Send> = match output {
            LogOutput::Stderr => Box::new(std::io::stderr()),
            LogOutput::Stdout => Box::new(std::io::stdout()),
        };
        AccessLog::to(format, out)
    }

    /// Starts the writer thread for any stream (tests give a buffer).
    pub fn to(format: LogFormat, out: Box<dyn Write + Send>) -> std::io::Result<AccessLog> {
        let shared = Arc::new(Shared {
            format,
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            out: Mutex::new(out),
            spare: Mutex::new(Vec::new()),
            dropped: AtomicU64::new(0),
            closed: AtomicBool::new(false),
            writer: Mutex::new(None),
        });
        let writer = shared.clone();
        let handle = thread::Builder::new()
            .name("sidecar-access-log".into())
            .spawn(move || {
                while !writer.closed.load(Relaxed) {
                    thread::park_timeout(FLUSH_EVERY);
                    writer.drain();
                }
            })?;
        *lock(&shared.writer) = Some(handle.thread().clone());
        Ok(AccessLog { shared })
    }

    /// Adds `line` to this worker's buffer.
    pub fn log(&self, line: &Line<'_>) {
        let shared = &*self.shared;
        let mut shard = lock(&shared.shards[shard()]);
        let Shard {
            lines,
            recent,
            clock,
        } = &mut *shard;
        if lines.len() >= MAX_PENDING {
            shared.dropped.fetch_add(1, Relaxed);
            return;
        }
        let before = lines.len();
        let now = wall(clock, line.at);
        super::line::format_line(lines, recent, shared.format, line, now);
        if before < BATCH && lines.len() >= BATCH {
            drop(shard);
            if let Some(writer) = lock(&shared.writer).as_ref() {
                writer.unpark();
            }
        }
    }

    /// Lines dropped because the stream did not take them.
    pub fn dropped(&self) -> u64 {
        self.shared.dropped.load(Relaxed)
    }

    /// Writes what is buffered now, from the calling thread.
    pub fn flush(&self) {
        self.shared.drain();
    }

    /// Writes what is left and stops the writer thread.
    pub fn close(&self) {
        self.shared.closed.store(true, Relaxed);
        if let Some(writer) = lock(&self.shared.writer).take() {
            writer.unpark();
        }
        self.shared.drain();
    }
}

impl Drop for AccessLog {
    fn drop(&mut self) {
        self.close();
    }
}

impl Shared {
    /// Writes every worker's buffer, each taken whole under its lock and
    /// written outside it.
    fn drain(&self) {
        let mut out = lock(&self.out);
        // The buffer a worker gets back keeps its room from one drain to
        // the next: starting each from an empty one, a worker's buffer
        // grew (and was copied) a dozen times every [`FLUSH_EVERY`].
        let mut spare = lock(&self.spare);
        let mut batch = std::mem::take(&mut *spare);
        for shard in &self.shards {
            {
                let mut shard = lock(shard);
                if shard.lines.is_empty() {
                    continue;
                }
                // The worker gets the emptied buffer of the previous one.
                std::mem::swap(&mut shard.lines, &mut batch);
            }
            // A stream that fails loses these lines, never a response.
            let _ = out.write_all(&batch);
            batch.clear();
        }
        let _ = out.flush();
        // After a burst, the room of a normal batch is what is kept.
        batch.shrink_to(KEEP);
        *spare = batch;
    }
}

/// A worker's lines, and what its consecutive lines share.
#[derive(Default)]
struct Shard {
    lines: Vec<u8>,
    recent: Recent,
    /// A reading of the system clock, since the Unix epoch, and the
    /// instant it was taken at.
    clock: Option<(Instant, Duration)>,
}

/// The wall time at `at`, since the Unix epoch: the shard's last reading
/// of the system clock plus the monotonic time since, the clock read again
/// once that is [`CLOCK_READ_EVERY`] or more (or `at` is before it). A
/// line thus costs no clock read of its own (the request's end is
/// already read for its duration), and a step of the system clock shows
/// in the log within a second.
fn wall(clock: &mut Option<(Instant, Duration)>, at: Instant) -> Duration {
    if let Some((read_at, wall)) = *clock
        && let Some(since) = at.checked_duration_since(read_at)
        && since < CLOCK_READ_EVERY
    {
        return wall + since;
    }
    let wall = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    *clock = Some((at, wall));
    wall
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// This thread's buffer: workers take the next one on their first line.
fn shard() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SHARD: Cell<Option<usize>> = const { Cell::new(None) };
    }
    SHARD.with(|s| {
        s.get().unwrap_or_else(|| {
            let n = NEXT.fetch_add(1, Relaxed) % SHARDS;
            s.set(Some(n));
            n
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logging::line::sample as line;

    /// A stream the test can read back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn lines_from_many_threads_are_written_whole_and_flushed_on_close() {
        let stream = Shared::default();
        let log = Arc::new(AccessLog::to(LogFormat::Json, Box::new(stream.clone())).unwrap());
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let log = log.clone();
                thread::spawn(move || {
                    for i in 0..2_000 {
                        log.log(&line(&format!("t{t}-{i}")));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        log.close();
        let written = stream.0.lock().unwrap().clone();
        let mut ids: Vec<String> = String::from_utf8(written)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["request_id"].as_str().unwrap().to_owned()
            })
            .collect();
        assert_eq!(ids.len(), 8_000);
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 8_000, "every line once");
        assert_eq!(log.dropped(), 0);
    }

    #[test]
    fn a_worker_gets_back_a_buffer_with_room() {
        let log = AccessLog::to(LogFormat::Text, Box::new(Shared::default())).unwrap();
        let room = || lock(&log.shared.shards[shard()]).lines.capacity();
        for round in 0..3 {
            for i in 0..1_000 {
                log.log(&line(&format!("r{round}-{i}")));
            }
            log.flush();
        }
        // From the second drain on, the emptied buffer of one before (the
        // writer also drains whenever a buffer passes BATCH).
        assert!(room() >= BATCH / 2, "{}", room());
        assert!(lock(&log.shared.shards[shard()]).lines.is_empty());
    }

    #[test]
    fn wall_time_from_one_clock_reading_a_second() {
        let epoch = || SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
        let mut clock = None;
        let t0 = Instant::now();
        let (before, first, after) = (epoch(), wall(&mut clock, t0), epoch());
        assert!(before <= first && first <= after, "{first:?}");
        // Within the second: the reading plus the time since, exactly.
        let later = t0 + Duration::from_millis(300);
        assert_eq!(wall(&mut clock, later), first + Duration::from_millis(300));
        assert_eq!(clock, Some((t0, first)));
        // A second on, or before the reading: the clock is read again (the
        // instants are made up, the system clock is not).
        for at in [
            t0 + Duration::from_millis(1500),
            t0 - Duration::from_millis(1),
        ] {
            let read = wall(&mut clock, at);
            assert!(
                read >= first && read < first + Duration::from_secs(1),
                "{read:?}"
            );
            assert_eq!(clock, Some((at, read)));
        }
    }

    #[test]
    fn a_stream_that_blocks_costs_dropped_lines_not_waiting() {
        /// Never returns from a write until told to.
        struct Stuck(Arc<(Mutex<bool>, std::sync::Condvar)>);
        impl Write for Stuck {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let (open, cv) = &*self.0;
                let mut open = open.lock().unwrap();
                while !*open {
                    open = cv.wait(open).unwrap();
                }
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let gate = Arc::new((Mutex::new(false), std::sync::Condvar::new()));
        let log = AccessLog::to(LogFormat::Json, Box::new(Stuck(gate.clone()))).unwrap();
        // Enough lines to fill a buffer while the writer is stuck.
        let mut n = 0u64;
        while log.dropped() == 0 {
            log.log(&line("x"));
            n += 1;
            assert!(n < 10_000_000, "lines were never dropped");
        }
        *gate.0.lock().unwrap() = true;
        gate.1.notify_all();
        log.close();
        assert!(log.dropped() >= 1);
    }
}
