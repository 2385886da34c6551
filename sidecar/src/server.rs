//! Sockets and threads: one acceptor, N single-threaded worker runtimes,
//! HTTP/1.1 connections with a header-read timeout (swept once per tick per
//! worker, [`crate::timer`]), a connection limit, and graceful shutdown on
//! SIGTERM/SIGINT.
//!
//! Why this shape: answering from memory takes microseconds, so the cost
//! that matters is scheduling. A work-stealing runtime moves tasks and
//! wakeups between threads on every request; here a connection stays on the
//! worker it was given (the least loaded one, counted in open connections)
//! for its whole life, as in nginx or actix. Work that must block (a
//! database call) goes through `spawn_blocking`, never on a worker.
//!
//! HTTP/1.1 only: the sidecar sits behind a CDN or load balancer that speaks
//! HTTP/2 to browsers, and keep-alive HTTP/1.1 is the fastest path here.
//!
//! Past `--max-connections`, a new connection is still accepted and gets a
//! 503 problem with `Retry-After` (so clients learn why), from a small fixed
//! pool of responders; when that pool is busy too, it is closed at once.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use anyhow::Context;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpSocket, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use crate::chat::Chat;
use crate::config::{AdminListen, Config, Setting};
use crate::contact::PeerAddr;
use crate::http::ratelimit::RateLimiter;
use crate::live::mcp_tools::McpLiveTools;
use crate::live::{Live, LiveConfig};
use crate::logging::access::AccessLog;
use crate::published::Published;
use crate::published::reload::Reloader;
use crate::router;
use crate::state::{self, AppState};
use crate::store::Store;
use crate::timer::SweptTimer;

/// Connections answered with 503 at once when over the limit.
const OVERLOAD_RESPONDERS: usize = 64;
/// How long the acceptor waits for one of them before closing a connection.
const OVERLOAD_WAIT: Duration = Duration::from_millis(500);
/// How long a connection over the limit has to send its request head.
const OVERLOAD_HEAD_TIMEOUT: Duration = Duration::from_secs(1);
/// File descriptors kept for what is not a connection: the listener, the
/// database, the log, the outbox's SMTP connection, files being read.
const FD_RESERVE: u64 = 64;
/// Blocking threads (database calls, key derivations) per worker.
const BLOCKING_THREADS: usize = 16;
/// Connections the kernel queues before they are accepted (tokio's
/// `TcpListener::bind` uses the same).
const LISTEN_BACKLOG: u32 = 1024;
/// Request heads larger than this are refused by hyper (431).
const MAX_HEAD_BYTES: usize = 64 * 1024;

/// A connection handed from the acceptor to a worker.
struct Job {
    stream: std::net::TcpStream,
    /// The client's address, for the contact routes' rate limits.
    peer: std::net::SocketAddr,
    /// Held for the connection's life: its slot under the limit.
    permit: OwnedSemaphorePermit,
    /// Over the limit: answer 503 and close.
    refuse: bool,
}

struct Worker {
    jobs: mpsc::UnboundedSender<Job>,
    /// Open connections on this worker.
    load: Arc<AtomicUsize>,
}

/// Binds, loads the site and opens the database, listens, serves until
/// SIGTERM/SIGINT, lets in-flight requests finish (up to the shutdown
/// timeout) and returns. Until it listens, connections are refused.
pub fn run(config: Config) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the acceptor runtime")?;
    // Signal handlers first: a SIGTERM that arrives once we are listening
    // must start a graceful shutdown, not kill the process.
    let shutdown = runtime.block_on(async { shutdown_signal() })?;
    // SIGHUP's default would end the process: its handler comes before
    // anything is served.
    let (reload_tx, reload_rx) = std::sync::mpsc::channel();
    runtime.block_on(async { forward_hangups(reload_tx) })?;
    raise_open_file_limit(config.max_connections);
    // Bound now, so that a taken port fails before the release is loaded
    // and port 0's choice is known; listening only once everything is
    // ready, so that until then a connection is refused at once (a load
    // balancer's health check moves on) instead of waiting in the backlog.
    let socket = reserve(config.listen)
        .with_context(|| format!("binding {}", config.listen))
        .context(Setting::LISTEN)?;
    let local = socket.local_addr().context("reading the bound address")?;
    let admin = runtime.block_on(bind_admin(config.admin_listen))?;
    let fallback_base = state::problem_base(&config, local);
    let published = Published::load_within(&config.dist, &fallback_base, config.files_memory)
        .with_context(|| format!("loading {}", config.dist.display()))
        .context(Setting::DIST)?;
    tracing::info!(
        release = published.release,
        files = published.files.file_count(),
        bytes = published.files.byte_count(),
        passages = published.content.passages.len(),
        index_bytes = published.content.passages.heap_bytes(),
        languages = %published.content.languages().join(","),
        dist = %config.dist.display(),
        "release loaded"
    );
    if config.site_origins.is_empty() && local.ip().is_unspecified() {
        tracing::warn!(
            "listening on all interfaces without --site-origin: problem links and the contact origin check use {local}"
        );
    }
    let reloader = Reloader::new(
        &config.dist,
        &fallback_base,
        config.keep_releases,
        config.files_memory,
    );
    let (state, outbox_stop) = runtime.block_on(open_state(config, published, local))?;
    let state = Arc::new(state);
    let watcher = {
        let (state, poll) = (state.clone(), state.config.dist_poll);
        thread::Builder::new()
            .name("sidecar-reload".into())
            .spawn(move || reloader.watch(&state.published, reload_rx, poll))
            .context("starting the release watcher")?
    };

    let count = match state.config.workers {
        0 => thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let mut workers = Vec::with_capacity(count);
    let mut threads = Vec::with_capacity(count);
    for i in 0..count {
        let (jobs, queue) = mpsc::unbounded_channel();
        let load = Arc::new(AtomicUsize::new(0));
        let (state, worker_load) = (state.clone(), load.clone());
        let handle = thread::Builder::new()
            .name(format!("sidecar-worker-{i}"))
            .spawn(move || work(state, queue, worker_load))
            .context("starting a worker thread")?;
        workers.push(Worker { jobs, load });
        threads.push(handle);
    }
    let listener = runtime
        .block_on(async { socket.listen(LISTEN_BACKLOG) })
        .with_context(|| format!("listening on {local}"))
        .context(Setting::LISTEN)?;
    tracing::info!(workers = count, "listening on http://{local}");
    if let Some(admin) = admin {
        let addr = admin.local_addr().context("reading the admin address")?;
        runtime.spawn(crate::admin::serve(admin, state.clone()));
        // Not "listening on": scripts find the public address by that.
        tracing::info!("admin listener on http://{addr}");
    }
    runtime.block_on(accept(listener, &state, &workers, shutdown));

    state.begin_shutdown();
    outbox_stop.store(true, Ordering::Relaxed);
    let open: usize = workers.iter().map(|w| w.load.load(Ordering::Relaxed)).sum();
    tracing::info!(
        connections = open,
        "shutting down: finishing in-flight requests"
    );
    // Closing the queues tells each worker to drain and stop.
    drop(workers);
    for handle in threads {
        if let Err(e) = handle.join() {
            std::panic::resume_unwind(e);
        }
    }
    // The acceptor runtime's end drops the SIGHUP sender: the watcher
    // stops at its next wake-up.
    drop(runtime);
    let _ = watcher.join();
    if let Some(log) = &state.access_log {
        log.close();
    }
    tracing::info!("shutdown complete");
    Ok(())
}

/// A socket bound to `addr` that does not listen yet: connections to it
/// are refused until [`TcpSocket::listen`]. Address reuse on, as
/// `TcpListener::bind` sets it, so that a restart does not wait for the
/// last run's connections in TIME_WAIT.
fn reserve(addr: SocketAddr) -> std::io::Result<TcpSocket> {
    let socket = match addr {
        SocketAddr::V4(_) => TcpSocket::new_v4()?,
        SocketAddr::V6(_) => TcpSocket::new_v6()?,
    };
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    Ok(socket)
}

/// The admin listener's socket: none when off, or when the default
/// address is taken (another sidecar on the machine has it); a given
/// address that does not bind is an error.
async fn bind_admin(admin: AdminListen) -> anyhow::Result<Option<TcpListener>> {
    match admin {
        AdminListen::Off => Ok(None),
        AdminListen::Given(addr) => TcpListener::bind(addr)
            .await
            .with_context(|| format!("binding {addr}"))
            .context(Setting::ADMIN_LISTEN)
            .map(Some),
        AdminListen::Default(addr) => match TcpListener::bind(addr).await {
            Ok(listener) => Ok(Some(listener)),
            Err(e) => {
                tracing::warn!(
                    error = %e,
                    "the default admin address {addr} is not free: running without /metrics; set --admin-listen"
                );
                Ok(None)
            }
        },
    }
}

/// Raises the soft limit on open files, as far as the hard limit allows,
/// to what `--max-connections` needs (nginx's `worker_rlimit_nofile` does the
/// same): under the common default of 1,024, the kernel would refuse
/// connections before the limit's 503 could. Warns when the hard limit is
/// too low; connections beyond it then wait in the listen backlog.
fn raise_open_file_limit(max_connections: usize) {
    use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    let wanted = (max_connections + OVERLOAD_RESPONDERS) as u64 + FD_RESERVE;
    let current = limit.current.unwrap_or(u64::MAX);
    if current >= wanted {
        return;
    }
    let raised = limit.maximum.map_or(wanted, |hard| hard.min(wanted));
    let new = Rlimit {
        current: Some(raised),
        maximum: limit.maximum,
    };
    let raised = match setrlimit(Resource::Nofile, new) {
        Ok(()) => raised,
        Err(_) => current,
    };
    if raised < wanted {
        tracing::warn!(
            open_files = raised,
            needed = wanted,
            "the open-file limit is below what --max-connections needs; lower --max-connections or raise the hard limit (ulimit -Hn)"
        );
    }
}

/// The state of a serving process on `published`: the database opened (and
/// filled with the sample when asked), the contact form and its outbox
/// started, the live routes, the chat and the MCP endpoint's live-data tools
/// attached.
/// The flag stops the outbox. Used by [`run`], and by the whole-request
/// fuzz target, so both exercise the same state.
pub async fn open_state(
    config: Config,
    published: Published,
    local: SocketAddr,
) -> anyhow::Result<(AppState, Arc<AtomicBool>)> {
    let store = Store::open(config.database.as_deref(), &config.data_dir, config.sample)
        .await
        .context("opening the database")
        .context(match config.database {
            Some(_) => Setting::DATABASE,
            None => Setting::DATA_DIR,
        })?;
    let backend = match store {
        Store::Sqlite(_) => "sqlite",
        Store::Postgres(_) => "postgresql",
    };
    tracing::info!(backend, "database ready");
    let mut state = AppState::new(config, published, local);
    let mut live_config = LiveConfig {
        problem_base: state.problem_base().to_owned(),
        observation_cache_bytes: state.config.live_cache_bytes,
        ..LiveConfig::default()
    };
    let published = state.published.get();
    let service = published.content.service.as_ref();
    if let Some(service) = service {
        live_config = live_config.with_service_information(service);
    }
    let (contact, outbox_stop) = crate::contact::setup::start(
        &state.config,
        store.clone(),
        service,
        state.metrics.send_failures.clone(),
    )
    .context("setting up the contact form")?;
    state.contact = Some(Arc::new(contact));
    let live = Arc::new(Live::new(store.clone(), live_config));
    state
        .mcp
        .set_live_tools(Arc::new(McpLiveTools(live.clone())));
    // The chat counts its questions in the contact form's window, per
    // client as the contact routes see them.
    let limits = &state.config.contact;
    let limiter = RateLimiter::new(
        store,
        Duration::from_secs(limits.contact_rate_window_s),
        state.config.trusted_proxies.clone(),
    );
    let chat = Chat::new(
        limiter,
        limits.chat_rate_limit,
        Some(live.clone()),
        state.metrics.chat.clone(),
    );
    state.chat = Some(Arc::new(chat));
    state.live = Some(live);
    // A filter that silences `access` (`--log warn`) spares the work too.
    if state.config.access_log && tracing::enabled!(target: "access", tracing::Level::INFO) {
        let log = AccessLog::start(state.config.log_format, state.config.log_output)
            .context("starting the request log's writer")?;
        state.access_log = Some(log);
    }
    Ok((state, outbox_stop))
}

/// Accepts until `shutdown` completes, handing each connection to the least
/// loaded worker. Returning drops the listener: new connections are refused.
async fn accept(
    listener: TcpListener,
    state: &AppState,
    workers: &[Worker],
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(state.config.max_connections));
    let overload = Arc::new(Semaphore::new(OVERLOAD_RESPONDERS));
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            biased;
            () = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Usually out of file descriptors: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let (permit, refuse) = match permits.clone().try_acquire_owned() {
            Ok(permit) => (permit, false),
            Err(_) => {
                state.metrics.connection_rejected();
                // Wait, briefly, for a refusal slot: the excess is answered
                // 503 rather than closed, and connections arriving meanwhile
                // wait in the listen backlog. Past the wait, closed.
                let slot = tokio::time::timeout(OVERLOAD_WAIT, overload.clone().acquire_owned());
                let Ok(Ok(permit)) = slot.await else {
                    continue;
                };
                tracing::warn!(%peer, "connection limit reached");
                (permit, true)
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok(stream) = stream.into_std() else {
            continue;
        };
        let worker = workers
            .iter()
            .min_by_key(|w| w.load.load(Ordering::Relaxed))
            .expect("at least one worker");
        worker.load.fetch_add(1, Ordering::Relaxed);
        if worker
            .jobs
            .send(Job {
                stream,
                peer,
                permit,
                refuse,
            })
            .is_err()
        {
            worker.load.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// A worker thread: serves the connections it is handed on its own
/// single-threaded runtime; when the queue closes, finishes them and stops.
fn work(state: Arc<AppState>, mut queue: mpsc::UnboundedReceiver<Job>, load: Arc<AtomicUsize>) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        // Database calls and proof-of-work checks run here; past this many
        // at once they queue (tokio's default would start up to 512 threads).
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!(error = %e, "a worker runtime failed to start");
            return;
        }
    };
    runtime.block_on(async move {
        let graceful = GracefulShutdown::new();
        let mut builder = http1::Builder::new();
        builder
            .timer(SweptTimer::spawn())
            .header_read_timeout(state.config.header_read_timeout)
            .max_buf_size(MAX_HEAD_BYTES)
            // A body goes out beside its head (writev), not copied after it.
            .writev(true);
        let mut refusing = builder.clone();
        refusing
            .keep_alive(false)
            .header_read_timeout(OVERLOAD_HEAD_TIMEOUT.min(state.config.header_read_timeout));
        while let Some(job) = queue.recv().await {
            let Ok(stream) = TcpStream::from_std(job.stream) else {
                load.fetch_sub(1, Ordering::Relaxed);
                continue;
            };
            let io = TokioIo::new(stream);
            let (state, load, permit) = (state.clone(), load.clone(), job.permit);
            let peer = PeerAddr(job.peer.ip());
            if job.refuse {
                let service_state = state.clone();
                let service =
                    service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
                        request.extensions_mut().insert(peer);
                        let response = router::overloaded(&service_state, &request);
                        async move { Ok::<_, Infallible>(response) }
                    });
                let connection = graceful.watch(refusing.serve_connection(io, service));
                tokio::spawn(async move {
                    let _ = connection.await;
                    load.fetch_sub(1, Ordering::Relaxed);
                    drop(permit);
                });
                continue;
            }
            let service_state = state.clone();
            let service = service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
                let state = service_state.clone();
                // Only the API space's routes rate-limit by client: a file
                // request skips the extension map's allocation (the request
                // log is given the peer directly). An escaped path may
                // decode into the API space: it gets the peer too.
                let path = request.uri().path();
                if contract::routes::API_SPACES
                    .iter()
                    .any(|root| path.starts_with(root))
                    || path.contains('%')
                {
                    request.extensions_mut().insert(peer);
                }
                async move {
                    Ok::<_, Infallible>(router::handle_from(&state, request, Some(peer.0)).await)
                }
            });
            let connection = graceful.watch(builder.serve_connection(io, service));
            tokio::spawn(async move {
                state.metrics.connection_opened();
                if let Err(e) = connection.await {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                state.metrics.connection_closed();
                load.fetch_sub(1, Ordering::Relaxed);
                drop(permit);
            });
        }
        if tokio::time::timeout(state.config.shutdown_timeout, graceful.shutdown())
            .await
            .is_err()
        {
            tracing::warn!("shutdown timeout reached; closing the remaining connections");
        }
    });
}

/// Sends on `reload` at every SIGHUP, from a task of the current runtime
/// (call within it): the handler is installed now.
fn forward_hangups(reload: std::sync::mpsc::Sender<()>) -> anyhow::Result<()> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut hup = signal(SignalKind::hangup()).context("installing the SIGHUP handler")?;
    tokio::spawn(async move {
        while hup.recv().await.is_some() {
            tracing::info!(signal = "SIGHUP", "reload requested");
            if reload.send(()).is_err() {
                return;
            }
        }
    });
    Ok(())
}

/// Resolves on the first SIGTERM or SIGINT. The handlers are installed now,
/// not when the future is first polled; call within a runtime.
pub fn shutdown_signal() -> anyhow::Result<impl Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).context("installing the SIGTERM handler")?;
    let mut int = signal(SignalKind::interrupt()).context("installing the SIGINT handler")?;
    Ok(async move {
        let name = tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        };
        tracing::info!(signal = name, "shutdown requested");
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reserved port refuses connections until it listens: what a
    /// client or a load balancer's health check meets while the release
    /// loads.
    #[tokio::test]
    async fn a_reserved_port_refuses_until_it_listens() {
        let socket = reserve("127.0.0.1:0".parse().unwrap()).unwrap();
        let local = socket.local_addr().unwrap();
        assert_ne!(local.port(), 0, "port 0's choice is known before listening");
        let early = TcpStream::connect(local).await.unwrap_err();
        assert_eq!(early.kind(), std::io::ErrorKind::ConnectionRefused);
        let listener = socket.listen(LISTEN_BACKLOG).unwrap();
        // Once it listens, a second sidecar on the port fails at its bind.
        assert!(reserve(local).is_err());
        let (connected, accepted) = tokio::join!(TcpStream::connect(local), listener.accept());
        connected.unwrap();
        accepted.unwrap();
    }
}
