//! Observation pages of recent queries, kept for the page's own `max-age`.
//!
//! A page may be cached by any client or CDN for `max-age` anyway, so the
//! sidecar serving the same bytes for that long changes nothing a client
//! can observe, and turns a popular query into a map lookup. It also keeps
//! the ETag stable for that time, so revalidation answers 304, and the
//! compressed twins are made once per page rather than once per request. A
//! page served from here carries `Age`, so the freshness a client computes
//! ends when the sidecar's copy expires (RFC 9111 §4.2.3).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http::Response;
use http::header::{self, HeaderValue};
use http::request::Parts;

use super::Rendered;
use crate::Body;

/// Up to `capacity` rendered 200 answers, keyed by the request's format and
/// query string.
#[derive(Debug)]
pub struct PageCache {
    capacity: usize,
    ttl: Duration,
    pages: Mutex<HashMap<String, Page>>,
}

#[derive(Debug, Clone)]
struct Page {
    stored: Instant,
    rendered: Arc<Rendered>,
}

impl PageCache {
    /// `capacity` 0 turns the cache off.
    pub fn new(capacity: usize, ttl: Duration) -> PageCache {
        PageCache {
            capacity,
            ttl,
            pages: Mutex::new(HashMap::new()),
        }
    }

    /// The cached answer for `key`, conditional on the request's
    /// `If-None-Match` like a fresh one.
    pub fn get(&self, key: &str, parts: &Parts) -> Option<Response<Body>> {
        if self.capacity == 0 {
            return None;
        }
        let page = {
            let pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
            let page = pages.get(key)?;
            (page.stored.elapsed() < self.ttl).then(|| page.clone())?
        };
        let mut response = page.rendered.respond(parts);
        let age = page.stored.elapsed().as_secs();
        if age > 0 {
            response
                .headers_mut()
                .insert(header::AGE, HeaderValue::from(age));
        }
        Some(response)
    }

    /// Keeps a rendered 200 answer under `key`.
    pub fn put(&self, key: String, rendered: Arc<Rendered>) {
        if self.capacity == 0 {
            return;
        }
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        if pages.len() >= self.capacity {
            let ttl = self.ttl;
            pages.retain(|_, p| p.stored.elapsed() < ttl);
            if pages.len() >= self.capacity {
                pages.clear();
            }
        }
        pages.insert(
            key,
            Page {
                stored: Instant::now(),
                rendered,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn parts(headers: &[(&str, &str)]) -> Parts {
        let mut b = http::Request::get("/x");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn page() -> Arc<Rendered> {
        Arc::new(Rendered::new(
            "application/json",
            Bytes::from_static(b"{}"),
            "public, max-age=60".into(),
            "Accept-Encoding",
        ))
    }

    #[test]
    fn serves_stored_pages_then_expires_them() {
        let cache = PageCache::new(2, Duration::from_millis(200));
        assert!(cache.get("a", &parts(&[])).is_none());
        cache.put("a".into(), page());
        let hit = cache.get("a", &parts(&[])).unwrap();
        assert_eq!(hit.status(), 200);
        let tag = hit.headers()[header::ETAG].to_str().unwrap().to_owned();
        let revalidated = cache.get("a", &parts(&[("if-none-match", &tag)])).unwrap();
        assert_eq!(revalidated.status(), 304);
        assert!(!revalidated.headers().contains_key(header::CONTENT_TYPE));
        cache.put("b".into(), page());
        cache.put("c".into(), page());
        assert!(cache.pages.lock().unwrap().len() <= 2, "capacity holds");
        std::thread::sleep(Duration::from_millis(250));
        assert!(cache.get("c", &parts(&[])).is_none(), "expired");
        let off = PageCache::new(0, Duration::from_secs(60));
        off.put("a".into(), page());
        assert!(off.get("a", &parts(&[])).is_none());
    }
}
