//! An open-loop HTTP/1.1 load generator, for comparing the latency of two
//! static servers at the same fixed request rate, below saturation.
//!
//!     paced --rate R --connections C --duration SECS [--warmup SECS]
//!           [--header "Name: value"]... [--expect STATUS] URL
//!
//! `wrk` is closed-loop: each connection sends its next request when the
//! previous answer arrives, so it runs the server at saturation and the
//! latency it reports is mostly time spent queueing, partly in `wrk` itself.
//! Here the schedule is fixed in advance instead: request k is due at
//! `t0 + k/R`, whatever happened to the ones before it. A due request goes
//! out on whichever keep-alive connection is idle, or waits for the first
//! one to become idle. Its latency is always counted from the time it was
//! due, not from the time it was sent, so a stall (in the server or here)
//! shows up in every request it delayed rather than in one slow sample:
//! this is the coordinated-omission correction `wrk2` made known.
//!
//! The tool runs on one thread and is meant to be pinned to a core of its own,
//! so it spins on a zero-timeout poll whenever a request is in flight or the
//! next one is due within a few milliseconds: that is what keeps sends and
//! completion times within microseconds of the truth. It only sleeps when
//! there is nothing to do for longer.
//!
//! The first `--warmup` seconds (default 1) run at the same rate without
//! being recorded; then the requests due within the next `--duration`
//! seconds are recorded. When that window ends, the tool allows 2 s more
//! for the recorded requests still unsent or unanswered; those left after
//! that count as errors. Errors count from the first request, warm-up
//! included.
//!
//! Output, on one line of stdout, latencies in microseconds:
//!
//!     requests=N rate=ACHIEVED p50=.. p90=.. p99=.. p999=.. max=.. mean=.. late=L
//!
//! - `requests`: recorded requests answered with the expected status;
//! - `rate`: those divided by the time from the start of the recording window
//!   to the later of its end and the last of their answers, so that a
//!   backlog drained after the window lowers it;
//! - `late`: recorded requests whose sending began more than 50 µs after
//!   they were due, a measure of how well the schedule was kept (by this
//!   tool, or for lack of an idle connection).
//!
//! The exit status is non-zero, with the reason on stderr, if a connection
//! could not be opened, any response had another status or was malformed,
//! the server closed a connection (or asked to), a recorded request went
//! unanswered, the achieved rate was below 99 % of R, or the whole run took
//! longer than warm-up + duration + 5 s.

#![forbid(unsafe_code)]

use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use clap::Parser as _;
use mio::event::Event;
use mio::net::TcpStream;
use mio::{Events, Interest, Poll, Token};

mod response;

use response::{Response, ResponseParser};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long, after the last recorded request was due, answers are awaited.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
/// How much longer than warm-up + duration the whole run may take.
const HARD_SLACK: Duration = Duration::from_secs(5);
const LATE_AFTER: Duration = Duration::from_micros(50);
/// Spin rather than sleep when the next request is due sooner than this:
/// poll timeouts have millisecond granularity, and waking up takes time.
const SPIN_WITHIN: Duration = Duration::from_millis(3);
const WAKE_EARLY: Duration = Duration::from_millis(2);
/// Per-connection read buffer; a response head must fit in it.
const BUFFER: usize = 64 * 1024;

/// Open-loop HTTP/1.1 load at a fixed rate; latency is measured from each
/// request's intended send time.
#[derive(clap::Parser)]
#[command(name = "paced")]
struct Args {
    /// Requests per second to offer.
    #[arg(long)]
    rate: u64,
    /// Keep-alive connections to spread them over.
    #[arg(long)]
    connections: usize,
    /// Seconds to record for, after the warm-up.
    #[arg(long)]
    duration: f64,
    /// Seconds to run at the same rate before recording.
    #[arg(long, default_value_t = 1.0)]
    warmup: f64,
    /// An extra request header; may be repeated.
    #[arg(long = "header", value_name = "NAME: VALUE")]
    headers: Vec<String>,
    /// The status every response must have.
    #[arg(long, default_value_t = 200)]
    expect: u16,
    /// The request method: GET, or HEAD (whose answers have no body).
    #[arg(long, default_value = "GET", value_parser = ["GET", "HEAD"])]
    method: String,
    /// `http://IP:PORT/path` or `http://localhost:PORT/path`.
    url: String,
}

/// What the arguments mean, validated.
struct Config {
    addr: SocketAddr,
    /// The bytes of the one request, sent again and again.
    request: Vec<u8>,
    rate: u64,
    connections: usize,
    warmup: Duration,
    duration: Duration,
    expect: u16,
    head: bool,
}

impl Config {
    fn from_args(args: Args) -> Result<Self> {
        ensure!(args.rate > 0, "--rate must be positive");
        ensure!(args.connections > 0, "--connections must be positive");
        let duration = Duration::try_from_secs_f64(args.duration).context("--duration")?;
        let warmup = Duration::try_from_secs_f64(args.warmup).context("--warmup")?;
        ensure!(!duration.is_zero(), "--duration must be positive");
        let (addr, authority, path) = parse_url(&args.url)?;
        let method = &args.method;
        let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\n");
        for header in &args.headers {
            ensure!(
                header.contains(':') && !header.contains(['\r', '\n']),
                "--header {header:?}: expected `Name: value`"
            );
            request.push_str(header);
            request.push_str("\r\n");
        }
        request.push_str("\r\n");
        Ok(Self {
            addr,
            request: request.into_bytes(),
            rate: args.rate,
            connections: args.connections,
            warmup,
            duration,
            expect: args.expect,
            head: args.method == "HEAD",
        })
    }
}

/// Splits `http://HOST[:PORT][/path]` into the address to connect to, the
/// `Host` header and the request target.
fn parse_url(url: &str) -> Result<(SocketAddr, &str, &str)> {
    let rest = url
        .strip_prefix("http://")
        .with_context(|| format!("{url}: only http:// URLs are supported"))?;
    let rest = rest.split('#').next().unwrap_or_default();
    let (authority, path) = rest.find('/').map_or((rest, "/"), |i| rest.split_at(i));
    ensure!(
        !path.contains(|c: char| c.is_ascii_whitespace() || c.is_ascii_control()),
        "{url}: the path must not contain spaces or control characters"
    );
    let localhost = IpAddr::V4(Ipv4Addr::LOCALHOST);
    let addr = if let Ok(addr) = authority.parse() {
        addr
    } else if let Ok(ip) = authority.parse::<IpAddr>() {
        SocketAddr::new(ip, 80)
    } else if authority == "localhost" {
        SocketAddr::new(localhost, 80)
    } else if let Some(port) = authority.strip_prefix("localhost:") {
        SocketAddr::new(localhost, port.parse().context("port")?)
    } else {
        bail!("{url}: expected IP:PORT or localhost[:PORT] as the host");
    };
    Ok((addr, authority, path))
}

fn main() -> ExitCode {
    let started = Instant::now();
    let args = Args::parse();
    match Config::from_args(args).and_then(|cfg| measure(&cfg, started)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("paced: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the load, prints the result line and fails if the run was not clean.
fn measure(cfg: &Config, started: Instant) -> Result<()> {
    let hard_deadline = started + cfg.warmup + cfg.duration + HARD_SLACK;
    let mut events = Events::with_capacity(cfg.connections.max(64));
    let mut run = Run::open(cfg, &mut events)?;
    let span = run.drive(&mut events, hard_deadline)?;
    let mut problems = Vec::new();
    let mut latencies = run.latencies;
    latencies.sort_unstable();
    if latencies.is_empty() {
        problems.push(format!(
            "no request was answered with status {}",
            cfg.expect
        ));
    } else {
        let n = latencies.len();
        let pct = |p: f64| latencies[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
        let us = |ns: u64| ns as f64 / 1000.0;
        let mean = latencies.iter().map(|&ns| u128::from(ns)).sum::<u128>() / n as u128;
        let achieved = n as f64 / span.as_secs_f64();
        println!(
            "requests={n} rate={achieved:.0} p50={:.1} p90={:.1} p99={:.1} p999={:.1} \
             max={:.1} mean={:.1} late={}",
            us(pct(0.50)),
            us(pct(0.90)),
            us(pct(0.99)),
            us(pct(0.999)),
            us(latencies[n - 1]),
            mean as f64 / 1000.0,
            run.late,
        );
        if achieved < 0.99 * cfg.rate as f64 {
            problems.push(format!(
                "could not sustain {} req/s (achieved {achieved:.0} req/s)",
                cfg.rate
            ));
        }
    }
    if !run.errors.is_empty() {
        let total: u64 = run.errors.values().sum();
        let kinds: Vec<String> = run
            .errors
            .iter()
            .map(|(what, n)| format!("{n} × {what}"))
            .collect();
        problems.push(format!("{total} errors: {}", kinds.join(", ")));
    }
    ensure!(problems.is_empty(), "{}", problems.join("; "));
    Ok(())
}

/// Where the schedule of request k lies, in nanoseconds after `t0`; computed
/// from k each time so that rounding does not accumulate.
fn offset_ns(k: u64, rate: u64) -> u64 {
    u64::try_from(u128::from(k) * 1_000_000_000 / u128::from(rate)).unwrap_or(u64::MAX)
}

/// The first request due at or after `ns` nanoseconds after `t0`.
fn first_due_at(ns: u64, rate: u64) -> u64 {
    let k = (u128::from(ns) * u128::from(rate)).div_ceil(1_000_000_000);
    u64::try_from(k).unwrap_or(u64::MAX)
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// A request on its way: sent (perhaps only in part) and not yet answered.
#[derive(Clone, Copy)]
struct InFlight {
    due: Instant,
    recorded: bool,
    /// How many bytes of the request have been written.
    written: usize,
}

enum State {
    Connecting(Instant),
    Idle,
    Busy(InFlight),
}

struct Conn {
    stream: TcpStream,
    state: State,
    buf: Box<[u8]>,
    /// Bytes of `buf` read and not yet parsed.
    filled: usize,
    parser: ResponseParser,
}

impl Conn {
    fn reset(&mut self, stream: TcpStream, head: bool) {
        self.stream = stream;
        self.state = State::Connecting(Instant::now());
        self.filled = 0;
        self.parser = ResponseParser::new(head);
    }
}

fn open_stream(poll: &Poll, addr: SocketAddr, i: usize) -> Result<TcpStream> {
    let mut stream = TcpStream::connect(addr).with_context(|| format!("connecting to {addr}"))?;
    poll.registry()
        .register(
            &mut stream,
            Token(i),
            Interest::READABLE | Interest::WRITABLE,
        )
        .context("registering a connection")?;
    Ok(stream)
}

struct Run<'a> {
    cfg: &'a Config,
    poll: Poll,
    conns: Vec<Conn>,
    /// Connections ready for a request, least recently used first.
    idle: VecDeque<usize>,
    /// Connections with a request in flight.
    busy: usize,
    connecting: usize,
    /// Recorded latencies, in nanoseconds.
    latencies: Vec<u64>,
    late: u64,
    last_answer: Option<Instant>,
    /// Error counts, by kind.
    errors: BTreeMap<String, u64>,
}

impl<'a> Run<'a> {
    /// Opens every connection, failing unless all are up within 2 s.
    fn open(cfg: &'a Config, events: &mut Events) -> Result<Self> {
        let poll = Poll::new().context("creating the poll")?;
        let conns = (0..cfg.connections)
            .map(|i| {
                Ok(Conn {
                    stream: open_stream(&poll, cfg.addr, i)?,
                    state: State::Connecting(Instant::now()),
                    buf: vec![0; BUFFER].into_boxed_slice(),
                    filled: 0,
                    parser: ResponseParser::new(cfg.head),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut run = Self {
            cfg,
            poll,
            conns,
            idle: VecDeque::with_capacity(cfg.connections),
            busy: 0,
            connecting: cfg.connections,
            latencies: Vec::new(),
            late: 0,
            last_answer: None,
            errors: BTreeMap::new(),
        };
        while run.connecting > 0 {
            run.check_connects(Instant::now())?;
            run.poll
                .poll(events, Some(Duration::from_millis(10)))
                .context("waiting for connections")?;
            for event in events.iter() {
                run.on_event(event)?;
            }
        }
        Ok(run)
    }

    /// Keeps the schedule until every recorded request is answered or the
    /// drain timeout passes; returns the span the achieved rate is over.
    fn drive(&mut self, events: &mut Events, hard_deadline: Instant) -> Result<Duration> {
        let cfg = self.cfg;
        let t0 = Instant::now();
        let warmup_ns = nanos(cfg.warmup);
        let first_recorded = first_due_at(warmup_ns, cfg.rate);
        let end = first_due_at(warmup_ns.saturating_add(nanos(cfg.duration)), cfg.rate);
        let window_start = t0 + cfg.warmup;
        let drain_deadline = window_start + cfg.duration + DRAIN_TIMEOUT;
        let due = |k: u64| t0 + Duration::from_nanos(offset_ns(k, cfg.rate));
        self.latencies = Vec::with_capacity(usize::try_from(end - first_recorded).unwrap_or(0));
        let mut next = 0;
        let mut now = t0;
        while next < end || self.busy > 0 {
            if now >= drain_deadline {
                let unsent = end - next.max(first_recorded);
                let unanswered = self
                    .conns
                    .iter()
                    .filter(|c| matches!(c.state, State::Busy(req) if req.recorded))
                    .count();
                self.error(
                    "no answer by 2 s after the window",
                    unsent + unanswered as u64,
                );
                break;
            }
            ensure!(now < hard_deadline, "the run exceeded its time bound");
            let timeout = if self.busy > 0 || self.connecting > 0 || next == end {
                Duration::ZERO
            } else {
                let slack = due(next).saturating_duration_since(now);
                if slack < SPIN_WITHIN {
                    Duration::ZERO
                } else {
                    slack - WAKE_EARLY
                }
            };
            self.poll
                .poll(events, Some(timeout))
                .context("waiting for socket events")?;
            if timeout.is_zero() && events.is_empty() {
                // Spinning keeps this core busy, so a kernel thread waiting
                // for it (ksoftirqd, finishing network work deferred from a
                // send) would wait for the scheduler to preempt us: a stall
                // of milliseconds. Yielding lets it run now.
                std::thread::yield_now();
            }
            now = Instant::now();
            let mut answered = false;
            for event in events.iter() {
                answered |= self.on_event(event)?;
            }
            if answered {
                now = Instant::now();
            }
            if self.connecting > 0 {
                self.check_connects(now)?;
            }
            while next < end
                && let Some(&i) = self.idle.front()
            {
                let due = due(next);
                if due > now {
                    break;
                }
                self.idle.pop_front();
                if next >= first_recorded && now.duration_since(due) > LATE_AFTER {
                    self.late += 1;
                }
                self.send(i, due, next >= first_recorded)?;
                next += 1;
                // A write costs far more than reading the clock, and the
                // next request's lateness is counted from here.
                now = Instant::now();
            }
        }
        let last = self.last_answer.map_or(Duration::ZERO, |t| {
            t.saturating_duration_since(window_start)
        });
        Ok(last.max(cfg.duration))
    }

    fn error(&mut self, what: impl Into<String>, n: u64) {
        *self.errors.entry(what.into()).or_default() += n;
    }

    fn check_connects(&self, now: Instant) -> Result<()> {
        for conn in &self.conns {
            if let State::Connecting(since) = conn.state {
                ensure!(
                    now.duration_since(since) < CONNECT_TIMEOUT,
                    "could not connect to {} within {CONNECT_TIMEOUT:?}",
                    self.cfg.addr
                );
            }
        }
        Ok(())
    }

    /// Handles one readiness event; returns whether a response was completed.
    fn on_event(&mut self, event: &Event) -> Result<bool> {
        let i = event.token().0;
        match self.conns[i].state {
            State::Connecting(_) => {
                self.finish_connect(i)?;
                return Ok(false);
            }
            State::Busy(req) if event.is_writable() && req.written < self.cfg.request.len() => {
                self.flush(i)?;
            }
            _ => {}
        }
        let hung_up = event.is_read_closed() || event.is_error();
        if !(event.is_readable() || hung_up) || matches!(self.conns[i].state, State::Connecting(_))
        {
            return Ok(false);
        }
        // A short read means the socket is drained: with epoll's edge
        // triggering, the next data raises a new event anyway, so the read
        // that would only say `WouldBlock` is saved. Not after a hang-up or
        // an error, which raise no further event.
        self.on_readable(i, !hung_up)
    }

    fn finish_connect(&mut self, i: usize) -> Result<()> {
        let addr = self.cfg.addr;
        let conn = &mut self.conns[i];
        match conn.stream.take_error() {
            Ok(None) => {}
            Ok(Some(e)) | Err(e) => bail!("connecting to {addr}: {e}"),
        }
        match conn.stream.peer_addr() {
            Ok(_) => {}
            Err(e)
                if e.kind() == io::ErrorKind::NotConnected
                    || e.raw_os_error() == Some(rustix::io::Errno::INPROGRESS.raw_os_error()) =>
            {
                return Ok(());
            }
            Err(e) => bail!("connecting to {addr}: {e}"),
        }
        conn.stream
            .set_nodelay(true)
            .context("setting TCP_NODELAY")?;
        conn.state = State::Idle;
        self.connecting -= 1;
        self.idle.push_back(i);
        Ok(())
    }

    fn send(&mut self, i: usize, due: Instant, recorded: bool) -> Result<()> {
        let conn = &mut self.conns[i];
        debug_assert!(matches!(conn.state, State::Idle));
        conn.state = State::Busy(InFlight {
            due,
            recorded,
            written: 0,
        });
        self.busy += 1;
        self.flush(i)
    }

    /// Writes what is left of the request in flight on connection `i`.
    fn flush(&mut self, i: usize) -> Result<()> {
        let request = &self.cfg.request;
        loop {
            let conn = &mut self.conns[i];
            let State::Busy(req) = &mut conn.state else {
                return Ok(());
            };
            if req.written == request.len() {
                return Ok(());
            }
            match conn.stream.write(&request[req.written..]) {
                Ok(0) => return self.lose(i, "connection closed while sending".to_owned()),
                Ok(n) => req.written += n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(()),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return self.lose(i, format!("sending: {e}")),
            }
        }
    }

    /// Reads and parses what connection `i` has; returns whether a response
    /// was completed.
    fn on_readable(&mut self, i: usize, stop_at_short_read: bool) -> Result<bool> {
        let mut answered = false;
        loop {
            let conn = &mut self.conns[i];
            if conn.filled == conn.buf.len() {
                self.lose(i, "response head or chunk line over 64 KiB".to_owned())?;
                return Ok(answered);
            }
            let space = conn.buf.len() - conn.filled;
            let n = match conn.stream.read(&mut conn.buf[conn.filled..]) {
                Ok(0) => {
                    self.lose(i, "connection closed by the server".to_owned())?;
                    return Ok(answered);
                }
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(answered),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.lose(i, format!("receiving: {e}"))?;
                    return Ok(answered);
                }
            };
            conn.filled += n;
            let mut parsed = 0;
            let mut read_at = None;
            loop {
                let conn = &mut self.conns[i];
                let response = match conn.parser.feed(&conn.buf[parsed..conn.filled]) {
                    Ok((used, response)) => {
                        parsed += used;
                        response
                    }
                    Err(e) => {
                        self.lose(i, format!("malformed response: {e}"))?;
                        return Ok(answered);
                    }
                };
                let Some(response) = response else { break };
                answered = true;
                let at = *read_at.get_or_insert_with(Instant::now);
                if !self.complete(i, response, at)? {
                    return Ok(answered);
                }
            }
            let conn = &mut self.conns[i];
            conn.buf.copy_within(parsed..conn.filled, 0);
            conn.filled -= parsed;
            if n < space && stop_at_short_read {
                return Ok(answered);
            }
        }
    }

    /// Accounts for a response read in full at `at`; returns whether the
    /// connection is still usable.
    fn complete(&mut self, i: usize, response: Response, at: Instant) -> Result<bool> {
        let conn = &mut self.conns[i];
        let State::Busy(req) = conn.state else {
            self.lose(i, "response to no request".to_owned())?;
            return Ok(false);
        };
        conn.state = State::Idle;
        self.busy -= 1;
        if response.status != self.cfg.expect {
            self.error(format!("status {}", response.status), 1);
        } else if req.recorded {
            self.latencies.push(nanos(at.duration_since(req.due)));
            self.last_answer = Some(at);
        }
        if response.close {
            self.lose(i, "server asked to close the connection".to_owned())?;
            return Ok(false);
        }
        self.idle.push_back(i);
        Ok(true)
    }

    /// Counts an error on connection `i`, dropping any request in flight on
    /// it, and opens a new connection in its place.
    fn lose(&mut self, i: usize, what: String) -> Result<()> {
        self.error(what, 1);
        match self.conns[i].state {
            State::Busy(_) => self.busy -= 1,
            State::Idle => self.idle.retain(|&j| j != i),
            State::Connecting(_) => self.connecting -= 1,
        }
        // Best effort: closing the old socket, below, unregisters it anyway.
        let _ = self.poll.registry().deregister(&mut self.conns[i].stream);
        let stream = open_stream(&self.poll, self.cfg.addr, i)?;
        self.conns[i].reset(stream, self.cfg.head);
        self.connecting += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_does_not_drift() {
        assert_eq!(offset_ns(3, 3), 1_000_000_000);
        assert_eq!(first_due_at(1_000_000_000, 3), 3);
        assert_eq!(first_due_at(1_000_000_001, 3), 4);
        assert_eq!(offset_ns(2_000_000, 200_000), 10_000_000_000);
    }
}
