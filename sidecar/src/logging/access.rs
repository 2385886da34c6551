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
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{LogFormat, LogOutput};

/// How often the writer writes what the workers have logged.
const FLUSH_EVERY: Duration = Duration::from_millis(50);
/// A worker's buffer this full wakes the writer at once.
const BATCH: usize = 64 * 1024;
/// A worker's buffer this full drops lines instead of growing.
const MAX_PENDING: usize = 8 * 1024 * 1024;
/// Buffers, one per worker up to this many (workers beyond share).
const SHARDS: usize = 16;

/// One request's line.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub method: &'a str,
    /// With its query string unless the route is private.
    pub path: &'a str,
    pub route: &'a str,
    pub status: u16,
    pub bytes: u64,
    pub duration: Duration,
    pub client: IpAddr,
    pub request_id: &'a str,
}

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
    shards: Vec<Mutex<Vec<u8>>>,
    out: Mutex<Box<dyn Write + Send>>,
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
            shards: (0..SHARDS).map(|_| Mutex::new(Vec::new())).collect(),
            out: Mutex::new(out),
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
        let mut buffer = lock(&shared.shards[shard()]);
        if buffer.len() >= MAX_PENDING {
            shared.dropped.fetch_add(1, Relaxed);
            return;
        }
        let before = buffer.len();
        format_line(&mut buffer, shared.format, line, SystemTime::now());
        if before < BATCH && buffer.len() >= BATCH {
            drop(buffer);
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
        let mut batch = Vec::new();
        for shard in &self.shards {
            {
                let mut buffer = lock(shard);
                if buffer.is_empty() {
                    continue;
                }
                // The worker gets the emptied buffer of the previous one.
                std::mem::swap(&mut *buffer, &mut batch);
            }
            // A stream that fails loses these lines, never a response.
            let _ = out.write_all(&batch);
            batch.clear();
        }
        let _ = out.flush();
    }
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

/// Appends `line` in the shape `tracing`'s formatter gives the other
/// lines: `2026-12-02T21:48:41.123456Z  INFO access: request method="GET" …`
/// or one JSON object. Digits are written by hand: the formatting
/// machinery cost more than the rest of the line.
fn format_line(out: &mut Vec<u8>, format: LogFormat, line: &Line<'_>, now: SystemTime) {
    let json = format == LogFormat::Json;
    if json {
        out.extend_from_slice(b"{\"timestamp\":\"");
        timestamp(out, now);
        out.extend_from_slice(b"\",\"level\":\"INFO\",\"message\":\"request\"");
    } else {
        timestamp(out, now);
        out.extend_from_slice(b"  INFO access: request");
    }
    // ` name=` or `,"name":`.
    let key = |out: &mut Vec<u8>, name: &str| {
        out.extend_from_slice(if json { b",\"" } else { b" " });
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(if json { b"\":" } else { b"=" });
    };
    key(out, "method");
    quoted(out, line.method);
    key(out, "path");
    quoted(out, line.path);
    key(out, "route");
    quoted(out, line.route);
    key(out, "status");
    number(out, u64::from(line.status));
    key(out, "bytes");
    number(out, line.bytes);
    key(out, "duration_ms");
    millis(out, line.duration);
    // The address is a string in JSON, bare in text (as `tracing` prints
    // a `Display` field).
    key(out, "client");
    if json {
        out.push(b'"');
    }
    address(out, line.client);
    if json {
        out.push(b'"');
    }
    key(out, "request_id");
    quoted(out, line.request_id);
    if json {
        out.extend_from_slice(b",\"target\":\"access\"}");
    }
    out.push(b'\n');
}

/// `s` in double quotes, escaped for JSON (which the text format's
/// quoting also reads as). Bytes of UTF-8 sequences are all 0x80 or
/// more, so escaping by byte keeps them whole.
fn quoted(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..0x20 | 0x7f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

/// `n` in decimal.
fn number(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// `n` in decimal, zero-padded to `width` digits.
fn padded(out: &mut Vec<u8>, n: u64, width: usize) {
    let start = out.len();
    number(out, n);
    let short = width.saturating_sub(out.len() - start);
    out.splice(start..start, std::iter::repeat_n(b'0', short));
}

/// Milliseconds with three decimals.
fn millis(out: &mut Vec<u8>, d: Duration) {
    let micros = u64::try_from(d.as_micros()).unwrap_or(u64::MAX);
    number(out, micros / 1000);
    out.push(b'.');
    padded(out, micros % 1000, 3);
}

fn address(out: &mut Vec<u8>, ip: IpAddr) {
    match ip {
        IpAddr::V4(v4) => {
            for (i, octet) in v4.octets().into_iter().enumerate() {
                if i > 0 {
                    out.push(b'.');
                }
                number(out, u64::from(octet));
            }
        }
        IpAddr::V6(v6) => {
            let _ = write!(out, "{v6}");
        }
    }
}

/// RFC 3339 in UTC with microseconds, as `tracing`'s default timer; the
/// date and time of day are worked out once per second per thread.
fn timestamp(out: &mut Vec<u8>, now: SystemTime) {
    thread_local! {
        static SECOND: std::cell::RefCell<(u64, String)> =
            const { std::cell::RefCell::new((u64::MAX, String::new())) };
    }
    let since = now.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    SECOND.with(|cached| {
        let mut cached = cached.borrow_mut();
        if cached.0 != secs {
            cached.1.clear();
            let (y, mo, d) = civil(secs / 86_400);
            let t = secs % 86_400;
            let _ = std::fmt::Write::write_fmt(
                &mut cached.1,
                format_args!(
                    "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
                    t / 3600,
                    t / 60 % 60,
                    t % 60
                ),
            );
            cached.0 = secs;
        }
        out.extend_from_slice(cached.1.as_bytes());
    });
    out.push(b'.');
    padded(out, u64::from(since.subsec_micros()), 6);
    out.push(b'Z');
}

/// The proleptic Gregorian date of a day counted from 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn line(id: &str) -> Line<'_> {
        Line {
            method: "GET",
            path: "/docs/?q=\"x\"",
            route: "file",
            status: 200,
            bytes: 1234,
            duration: Duration::from_micros(1500),
            client: "127.0.0.1".parse().unwrap(),
            request_id: id,
        }
    }

    #[test]
    fn json_lines_parse_with_every_field() {
        let mut out = Vec::new();
        let at = UNIX_EPOCH + Duration::from_micros(1_796_247_321_123_456);
        format_line(&mut out, LogFormat::Json, &line("a\\b"), at);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["timestamp"], "2026-12-02T21:35:21.123456Z");
        assert_eq!(v["level"], "INFO");
        assert_eq!(v["target"], "access");
        assert_eq!(v["path"], "/docs/?q=\"x\"");
        assert_eq!(v["status"], 200);
        assert_eq!(v["bytes"], 1234);
        assert_eq!(v["duration_ms"], 1.5);
        assert_eq!(v["client"], "127.0.0.1");
        assert_eq!(v["request_id"], "a\\b");
        let mut text = Vec::new();
        format_line(&mut text, LogFormat::Text, &line("r-1"), at);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "2026-12-02T21:35:21.123456Z  INFO access: request method=\"GET\" \
             path=\"/docs/?q=\\\"x\\\"\" route=\"file\" status=200 bytes=1234 \
             duration_ms=1.500 client=127.0.0.1 request_id=\"r-1\"\n"
        );
    }

    #[test]
    fn digits_by_hand() {
        let mut out = Vec::new();
        millis(&mut out, Duration::from_micros(60));
        out.push(b' ');
        millis(&mut out, Duration::from_micros(12_345_678));
        out.push(b' ');
        address(&mut out, "2001:db8::7".parse().unwrap());
        out.push(b' ');
        quoted(&mut out, "tab\there é");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0.060 12345.678 2001:db8::7 \"tab\\u0009here é\""
        );
    }

    #[test]
    fn civil_dates_across_leap_years_and_centuries() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(19_782), (2024, 2, 29));
        assert_eq!(civil(20_789), (2026, 12, 2));
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
