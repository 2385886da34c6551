//! The shared state every request sees, behind an `Arc`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use http::{HeaderValue, Response};

use crate::Body;
use crate::chat::Chat;
use crate::config::Config;
use crate::contact::Contact;
use crate::http::access_log::RequestIds;
use crate::http::problem::Problem;
use crate::live::Live;
use crate::logging::access::AccessLog;
use crate::mcp::Mcp;
use crate::metrics::Metrics;
use crate::published::{Current, Published};

#[derive(Debug)]
pub struct AppState {
    pub config: Config,
    /// The release being served: files, documents, service information.
    pub published: Current,
    pub metrics: Metrics,
    /// Makes the ids of requests that come without one.
    pub request_ids: RequestIds,
    /// The MCP endpoint's own state; the live-data tools are added with
    /// [`Mcp::set_live_tools`] before the state is shared.
    pub mcp: Mcp,
    /// The live-data routes' store and caches; `None` in handler tests that
    /// need no database (the routes then answer 503).
    pub live: Option<Arc<Live>>,
    /// The contact routes' state; `None` in handler tests without a
    /// database (the routes then answer 503).
    pub contact: Option<Arc<Contact>>,
    /// The chat route's state (its rate limit needs the database); `None`
    /// in handler tests without one (the route then answers 503).
    pub chat: Option<Arc<Chat>>,
    /// The request log's writer; `None` with the log off (by
    /// `--access-log false` or a filter that silences `access`) and in
    /// handler tests.
    pub access_log: Option<AccessLog>,
    /// Base of problem `type` URLs: the first site origin.
    problem_base: String,
    /// Origins the contact routes accept, as they appear in `Origin`.
    origins: Vec<HeaderValue>,
    shutting_down: AtomicBool,
}

impl AppState {
    /// `local_addr` is the bound address; it stands in for the site origin
    /// when none is configured (a local run is its own origin).
    pub fn new(config: Config, published: Published, local_addr: SocketAddr) -> AppState {
        let origins = effective_origins(&config.site_origins, local_addr);
        let problem_base = origins[0].clone();
        let origins = origins
            .iter()
            .filter_map(|o| HeaderValue::try_from(o.as_str()).ok())
            .collect();
        AppState {
            config,
            published: Current::new(published),
            metrics: Metrics::default(),
            request_ids: RequestIds::default(),
            mcp: Mcp::default(),
            live: None,
            contact: None,
            chat: None,
            access_log: None,
            problem_base,
            origins,
            shutting_down: AtomicBool::new(false),
        }
    }

    /// Loads the release at `config.dist` and makes the state around it.
    pub fn load(config: Config, local_addr: SocketAddr) -> anyhow::Result<AppState> {
        let published = Published::load_within(
            &config.dist,
            &problem_base(&config, local_addr),
            config.files_memory,
        )?;
        Ok(AppState::new(config, published, local_addr))
    }

    /// Renders a problem for the request path `instance`.
    pub fn problem(&self, problem: Problem, instance: &str) -> Response<Body> {
        problem.into_response(&self.problem_base, instance)
    }

    pub fn problem_base(&self) -> &str {
        &self.problem_base
    }

    pub fn site_origins(&self) -> &[HeaderValue] {
        &self.origins
    }

    /// The limits of a request body.
    pub fn body_limits(&self) -> crate::http::body::Limits {
        crate::http::body::Limits {
            max_bytes: self.config.max_body_bytes,
            timeout: self.config.request_timeout,
        }
    }

    /// Marks the process as draining: `/readyz` answers 503 from now on.
    pub fn begin_shutdown(&self) {
        self.shutting_down.store(true, Ordering::Relaxed);
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::Relaxed)
    }
}

/// The base of problem `type` URLs, and the site's origin when a build
/// records none: the first configured origin, or the listen address's.
pub fn problem_base(config: &Config, local: SocketAddr) -> String {
    effective_origins(&config.site_origins, local).swap_remove(0)
}

/// The configured origins, or the listen address's (and `localhost`'s, on
/// loopback) when none are configured.
fn effective_origins(configured: &[String], local: SocketAddr) -> Vec<String> {
    if !configured.is_empty() {
        return configured.to_vec();
    }
    let mut origins = vec![format!("http://{local}")];
    if local.ip().is_loopback() {
        origins.push(format!("http://localhost:{}", local.port()));
    }
    origins
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_origins() {
        let local: SocketAddr = "127.0.0.1:8080".parse().unwrap();
        assert_eq!(
            effective_origins(&[], local),
            ["http://127.0.0.1:8080", "http://localhost:8080"]
        );
        let v6: SocketAddr = "[::1]:9".parse().unwrap();
        assert_eq!(effective_origins(&[], v6)[0], "http://[::1]:9");
        let set = ["https://example.org".to_owned()];
        assert_eq!(effective_origins(&set, local), set);
    }
}
