//! Observation pages of recent queries, kept for the page's own `max-age`.
//!
//! A page may be cached by any client or CDN for `max-age` anyway, so the
//! sidecar serving the same bytes for that long changes nothing a client
//! can observe, and turns a popular query into a map lookup. It also keeps
//! the ETag stable for that time, so revalidation answers 304.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{self, HeaderMap};
use http::request::Parts;
use http::{Response, StatusCode};

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
    headers: HeaderMap,
    body: Bytes,
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
        let etag = page.headers.get(header::ETAG)?;
        let not_modified = parts
            .headers
            .get(header::IF_NONE_MATCH)
            .is_some_and(|h| crate::conditional::none_match(h.as_bytes(), etag.as_bytes()));
        let mut response = if not_modified {
            let mut r = Response::new(Body::new(Bytes::new()));
            *r.status_mut() = StatusCode::NOT_MODIFIED;
            let mut headers = page.headers;
            headers.remove(header::CONTENT_TYPE);
            *r.headers_mut() = headers;
            r
        } else {
            let mut r = Response::new(Body::new(page.body));
            *r.headers_mut() = page.headers;
            r
        };
        response.headers_mut().remove(header::CONTENT_LENGTH);
        Some(response)
    }

    /// Keeps a 200 answer's headers and body under `key`.
    pub fn put(&self, key: String, headers: &HeaderMap, body: Bytes) {
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
                headers: headers.clone(),
                body,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(headers: &[(&str, &str)]) -> Parts {
        let mut b = http::Request::get("/x");
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        b.body(()).unwrap().into_parts().0
    }

    fn headers() -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ETAG, "\"abc\"".parse().unwrap());
        h.insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
        h
    }

    #[test]
    fn serves_stored_pages_then_expires_them() {
        let cache = PageCache::new(2, Duration::from_millis(200));
        assert!(cache.get("a", &parts(&[])).is_none());
        cache.put("a".into(), &headers(), Bytes::from_static(b"{}"));
        let hit = cache.get("a", &parts(&[])).unwrap();
        assert_eq!(hit.status(), 200);
        assert_eq!(hit.headers()[header::ETAG], "\"abc\"");
        let revalidated = cache
            .get("a", &parts(&[("if-none-match", "\"abc\"")]))
            .unwrap();
        assert_eq!(revalidated.status(), 304);
        assert!(!revalidated.headers().contains_key(header::CONTENT_TYPE));
        cache.put("b".into(), &headers(), Bytes::new());
        cache.put("c".into(), &headers(), Bytes::new());
        assert!(cache.pages.lock().unwrap().len() <= 2, "capacity holds");
        std::thread::sleep(Duration::from_millis(250));
        assert!(cache.get("c", &parts(&[])).is_none(), "expired");
        let off = PageCache::new(0, Duration::from_secs(60));
        off.put("a".into(), &headers(), Bytes::new());
        assert!(off.get("a", &parts(&[])).is_none());
    }
}
