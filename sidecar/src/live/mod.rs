//! The three live, read-only data routes, backed by [`crate::store::Store`].
//!
//! # Wiring (for the router and the CLI)
//!
//! - At start: `let store = Store::open(config.database.as_deref(),
//!   &config.data_dir, SampleSize::Default).await?;` then
//!   `let live = Live::new(store.clone(), LiveConfig { problem_base:
//!   state.problem_base().to_owned(), ..LiveConfig::default() });` kept in
//!   the shared state.
//! - `GET|HEAD /api/platform-stats.php`, `/api/observations-data.php` and
//!   `/api/globe-data.php` → [`Live`]'s [`Handler`], which calls
//!   [`platform_stats`], [`observations`] or [`globe`]`(&live, &parts)`.
//!
//!   Each answers 200 (or 304 to a matching `If-None-Match`), 400/503 as
//!   problem objects (rendered here, with the live routes' CORS header);
//!   HEAD bodies are dropped. Other methods are the router's 405.
//! - `sidecar import FILE` → [`crate::store::import::run`]`(&store, path)`;
//!   print the [`crate::store::import::ImportReport`], or the error (its
//!   `Display` is `line N: reason`) and exit non-zero.
//! - `/readyz`: ready only when `live.store().ping().await` is `Ok`.
//!
//! # Published data
//!
//! Coordinates are rounded to [`PRECISION_DECIMALS`] decimal places (about
//! 1 km) in every response, so no volunteer's exact location is published;
//! the `bbox` filter matches those rounded values too, so it cannot be used
//! to narrow a site down below the published precision.
//! Only public sites and their observations are served.

pub(crate) mod csv;
pub(crate) mod encoded;
pub mod features;
mod globe;
mod mcp_globe;
pub mod mcp_tools;
pub mod monthly;
mod observations;
mod page_cache;
pub mod query;
mod stats;
pub mod trend;

use std::time::Duration;

use bytes::Bytes;
use contract::routes::Endpoint;
use contract::service::ServiceInformation;
use http::header::{self, HeaderValue};
use http::request::Parts;
use http::{Method, Response, StatusCode};
use serde::Serialize;

use crate::Body;
use crate::http::handler::{Answer, Call, Handler};
use crate::http::problem::{Code, Problem};
use crate::store::Store;
use encoded::Encoded;

pub use globe::globe;
pub use observations::observations;
pub use query::LiveError;
pub use stats::{PlatformStats, current_stats, platform_stats};

/// The store owns the rounding, so that its location filters match exactly
/// what is published.
pub use crate::store::published::{PRECISION_DECIMALS, coarsen};

/// The licence the live data is published under.
#[derive(Debug, Clone, Serialize)]
pub struct Licence {
    pub id: String,
    pub title: String,
    pub url: String,
}

/// Settings of the live routes.
#[derive(Debug, Clone)]
pub struct LiveConfig {
    /// Base of problem `type` URLs (the site origin).
    pub problem_base: String,
    /// How long computed statistics are served from memory (and their
    /// `max-age`).
    pub stats_max_age: Duration,
    /// `stale-while-revalidate` of the statistics.
    pub stats_stale_while_revalidate: Duration,
    /// How long the globe points are served from memory.
    pub globe_max_age: Duration,
    /// `max-age` of an observation page, and how long the sidecar serves a
    /// rendered page again for the same query.
    pub observations_max_age: Duration,
    /// Observation pages kept (0: no page cache).
    pub observation_pages_cached: usize,
    /// The most the cached observation pages may hold, twins counted
    /// (`--live-cache-bytes`).
    pub observation_cache_bytes: usize,
    /// Longest a database query may take before the route gives up.
    pub query_timeout: Duration,
    /// `Retry-After` of a 503.
    pub retry_after: u32,
    pub licence: Licence,
    pub attribution: String,
}

impl Default for LiveConfig {
    fn default() -> Self {
        LiveConfig {
            problem_base: String::new(),
            stats_max_age: Duration::from_secs(60),
            stats_stale_while_revalidate: Duration::from_secs(30),
            globe_max_age: Duration::from_secs(300),
            observations_max_age: Duration::from_secs(60),
            observation_pages_cached: 1024,
            observation_cache_bytes: 32 << 20,
            query_timeout: Duration::from_secs(5),
            retry_after: 30,
            licence: Licence {
                id: "CC-BY-4.0".into(),
                title: "Creative Commons Attribution 4.0 International".into(),
                url: "https://creativecommons.org/licenses/by/4.0/".into(),
            },
            attribution: "Water-quality observations by citizen-science volunteers.".into(),
        }
    }
}

impl LiveConfig {
    /// Takes the data licence and attribution from the built service
    /// information (`dist/api/service.json`): the licence grant whose
    /// `covers` names `observation_data`. The content decides the licence;
    /// the defaults stand only when the file says nothing.
    pub fn with_service_information(mut self, service: &ServiceInformation) -> LiveConfig {
        let grant = service.guardrails.licences.iter().find(|g| {
            g.covers
                .contains(&contract::service::Material::ObservationData)
        });
        let Some(grant) = grant else {
            return self;
        };
        let id = grant.licence.to_string();
        self.licence = Licence {
            title: grant.title.clone().unwrap_or_else(|| id.clone()),
            id,
            url: grant.url.to_string(),
        };
        if let Some(attribution) = &grant.attribution {
            self.attribution = attribution.clone();
        }
        self
    }
}

/// The live routes' shared state: the store, the settings and the caches.
pub struct Live {
    store: Store,
    cfg: LiveConfig,
    stats: stats::Cache<stats::StatsValue>,
    globe: stats::Cache<globe::GlobeBody>,
    sites: stats::Cache<features::Sites>,
    pages: page_cache::PageCache,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").field("store", &self.store).finish()
    }
}

impl Live {
    pub fn new(store: Store, cfg: LiveConfig) -> Live {
        let pages = page_cache::PageCache::new(
            cfg.observation_pages_cached,
            cfg.observation_cache_bytes,
            cfg.observations_max_age,
        );
        Live {
            store,
            cfg,
            stats: stats::Cache::default(),
            globe: stats::Cache::default(),
            sites: stats::Cache::default(),
            pages,
        }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn config(&self) -> &LiveConfig {
        &self.cfg
    }

    fn unavailable(&self, parts: &Parts, why: &str) -> Response<Body> {
        let problem = Problem::new(
            Code::ServiceUnavailable,
            format!("The live data cannot be read right now ({why}); try again later."),
        )
        .retry_after(self.cfg.retry_after);
        with_cors(problem.into_response(&self.cfg.problem_base, parts.uri.path()))
    }
}

impl Handler for Live {
    /// One of the three data routes; their problems are answered, not
    /// returned, since they carry the routes' own headers.
    async fn handle(&self, call: Call<'_>) -> Answer {
        let parts = call.parts;
        let mut response = match call.endpoint {
            Endpoint::PlatformStats => platform_stats(self, parts).await,
            Endpoint::ObservationsData => observations(self, parts).await,
            Endpoint::GlobeData => globe(self, parts).await,
            Endpoint::ObservationTrend => trend::trend(self, parts).await,
            e => features::features(self, e, parts, call.release).await,
        };
        // Dropped here, the HEAD body leaves no `Content-Length` for the
        // router's `finish` to add.
        if parts.method == Method::HEAD {
            *response.body_mut() = Body::new(Bytes::new());
        }
        Ok(response)
    }
}

/// Unix seconds now.
pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// A rendered 200 answer of a live route: its body (with twins) and the
/// headers that go with it. Cached as a whole; answered per request.
#[derive(Debug)]
pub(crate) struct Rendered {
    pub content_type: &'static str,
    pub body: Encoded,
    pub cache_control: String,
    pub vary: &'static str,
    /// `Link` (licence, next page), if any.
    pub link: Option<HeaderValue>,
}

impl Rendered {
    pub(crate) fn new(
        content_type: &'static str,
        body: Bytes,
        cache_control: String,
        vary: &'static str,
    ) -> Rendered {
        Rendered {
            content_type,
            body: Encoded::new(body),
            cache_control,
            vary,
            link: None,
        }
    }

    /// A 200 in the representation the request accepts (or 304 when
    /// `If-None-Match` matches it), with the caching and CORS headers of the
    /// live routes.
    pub(crate) fn respond(&self, parts: &Parts) -> Response<Body> {
        let chosen = self.body.choose(parts);
        let not_modified = parts.headers.get(header::IF_NONE_MATCH).is_some_and(|h| {
            crate::http::conditional::none_match(h.as_bytes(), chosen.etag.as_bytes())
        });
        let mut response = if not_modified {
            let mut r = Response::new(Body::new(Bytes::new()));
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            r
        } else {
            let mut r = Response::new(Body::new(chosen.body));
            let h = r.headers_mut();
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(self.content_type),
            );
            if let Some(coding) = chosen.encoding {
                h.insert(header::CONTENT_ENCODING, coding);
            }
            r
        };
        let h = response.headers_mut();
        h.insert(header::ETAG, chosen.etag);
        if let Ok(v) = HeaderValue::try_from(&self.cache_control) {
            h.insert(header::CACHE_CONTROL, v);
        }
        h.insert(header::VARY, HeaderValue::from_static(self.vary));
        if let Some(link) = &self.link {
            h.insert(header::LINK, link.clone());
        }
        h.insert(
            header::ACCESS_CONTROL_ALLOW_ORIGIN,
            HeaderValue::from_static("*"),
        );
        response
    }
}

/// Adds the CORS header a public route's problem answers carry too.
pub(crate) fn with_cors(mut response: Response<Body>) -> Response<Body> {
    response.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_licence_comes_from_the_grant_covering_observation_data() {
        let mut service = crate::published::content::tests::service();
        let cfg = LiveConfig::default().with_service_information(&service);
        assert_eq!(cfg.licence.id, "ODbL-1.0");
        assert_eq!(cfg.licence.title, "Open Database License");
        assert_eq!(cfg.licence.url, "https://b.example/odbl");
        assert_eq!(cfg.attribution, "Volunteers of Example");
        service.guardrails.licences.remove(1);
        let untouched = LiveConfig::default().with_service_information(&service);
        assert_eq!(untouched.licence.id, LiveConfig::default().licence.id);
    }
}
