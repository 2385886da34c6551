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

/// Up to `capacity` rendered 200 answers and `max_bytes` of their bodies
/// (counted with their compressed twins), keyed by the request's format and
/// query string. Distinct queries cannot grow it past either bound.
#[derive(Debug)]
pub struct PageCache {
    capacity: usize,
    max_bytes: usize,
    ttl: Duration,
    pages: Mutex<Pages>,
}

#[derive(Debug, Default)]
struct Pages {
    map: HashMap<String, Page>,
    /// The sum of the pages' weights.
    bytes: usize,
}

#[derive(Debug, Clone)]
struct Page {
    stored: Instant,
    rendered: Arc<Rendered>,
}

impl PageCache {
    /// `capacity` or `max_bytes` 0 turns the cache off.
    pub fn new(capacity: usize, max_bytes: usize, ttl: Duration) -> PageCache {
        PageCache {
            capacity: if max_bytes == 0 { 0 } else { capacity },
            max_bytes,
            ttl,
            pages: Mutex::new(Pages::default()),
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
            let page = pages.map.get(key)?;
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
        let weight = rendered.body.weight();
        if weight > self.max_bytes {
            return;
        }
        let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
        let pages = &mut *pages;
        if let Some(old) = pages.map.remove(&key) {
            pages.bytes -= old.rendered.body.weight();
        }
        if pages.map.len() >= self.capacity || pages.bytes + weight > self.max_bytes {
            let ttl = self.ttl;
            pages.map.retain(|_, p| p.stored.elapsed() < ttl);
            pages.bytes = pages.map.values().map(|p| p.rendered.body.weight()).sum();
            if pages.map.len() >= self.capacity || pages.bytes + weight > self.max_bytes {
                pages.map.clear();
                pages.bytes = 0;
            }
        }
        pages.bytes += weight;
        pages.map.insert(
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
        let cache = PageCache::new(2, 1 << 20, Duration::from_millis(200));
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
        assert!(cache.pages.lock().unwrap().map.len() <= 2, "capacity holds");
        std::thread::sleep(Duration::from_millis(250));
        assert!(cache.get("c", &parts(&[])).is_none(), "expired");
        for off in [
            PageCache::new(0, 1 << 20, Duration::from_secs(60)),
            PageCache::new(8, 0, Duration::from_secs(60)),
        ] {
            off.put("a".into(), page());
            assert!(off.get("a", &parts(&[])).is_none());
        }
    }

    #[test]
    fn distinct_queries_stay_within_the_byte_budget() {
        let body = |n: usize| {
            Arc::new(Rendered::new(
                "application/json",
                Bytes::from(vec![b' '; n]),
                "public, max-age=60".into(),
                "Accept-Encoding",
            ))
        };
        // 10 KiB bodies weigh 30 KiB with their twins: four fit in 128 KiB.
        let cache = PageCache::new(1024, 128 << 10, Duration::from_secs(60));
        for i in 0..1000 {
            cache.put(format!("q{i}"), body(10 << 10));
            let pages = cache.pages.lock().unwrap();
            assert!(pages.bytes <= 128 << 10, "{} bytes", pages.bytes);
            assert_eq!(
                pages.bytes,
                pages
                    .map
                    .values()
                    .map(|p| p.rendered.body.weight())
                    .sum::<usize>()
            );
        }
        assert!(
            cache.get("q999", &parts(&[])).is_some(),
            "the newest is kept"
        );
        // Replacing a key does not count it twice; a page over the budget
        // is never kept.
        cache.put("q999".into(), body(10 << 10));
        assert!(cache.pages.lock().unwrap().bytes <= 128 << 10);
        cache.put("huge".into(), body(64 << 10));
        assert!(cache.get("huge", &parts(&[])).is_none());
    }
}
