//! Serialised results of the methods whose answer depends only on what was
//! loaded at start (`dist/`), the protocol version and the params (and,
//! for the live tools' memo, the content tag of the route's answer).
//!
//! Agents ask the same things over and over (`tools/list` on every
//! connection, the same service section, the same document), and the
//! content cannot change while the process runs, so such a result is
//! serialised once and spliced into each answer with the caller's `id`.
//! Live tools (statistics, observations, globe) are never memoised: their
//! freshness is the live routes' business. Only successful results are kept;
//! the map is bounded and simply emptied when full.

use std::collections::HashMap;
use std::sync::RwLock;

use bytes::Bytes;
use serde_json::Value;

use super::Version;

/// Results kept at most.
const CAPACITY: usize = 512;
/// Bytes of results (keys counted) kept at most.
const MAX_BYTES: usize = 16 << 20;
/// Params longer than this (serialised) are not worth a key.
const MAX_KEY: usize = 2048;

/// The memo of one MCP endpoint.
#[derive(Debug, Default)]
pub(crate) struct Memo {
    results: RwLock<Results>,
}

#[derive(Debug, Default)]
struct Results {
    map: HashMap<String, Bytes>,
    /// Bytes of the keys and results held.
    bytes: usize,
}

impl Memo {
    /// The memo key of a call to the release `release`, when its method's
    /// results may be memoised (for `tools/call`, whether this tool's may
    /// is `tools::is_pure`'s question: only pure results are ever stored).
    /// `params` is text that stands for the params: equal text, equal
    /// params. A new release's calls never meet an old release's results;
    /// those leave when the memo is next emptied.
    pub(crate) fn key(
        release: &str,
        version: Version,
        method: &str,
        params: &str,
    ) -> Option<String> {
        let memoised = matches!(
            method,
            "initialize"
                | "tools/list"
                | "resources/list"
                | "resources/templates/list"
                | "resources/read"
                | "prompts/list"
                | "prompts/get"
                | "tools/call"
        );
        (memoised && params.len() <= MAX_KEY)
            .then(|| [release, version.as_str(), method, params].join("\n"))
    }

    pub(crate) fn get(&self, key: &str) -> Option<Bytes> {
        let results = self.results.read().unwrap_or_else(|e| e.into_inner());
        results.map.get(key).cloned()
    }

    pub(crate) fn put(&self, key: String, result: Bytes) {
        let weight = key.len() + result.len();
        if weight > MAX_BYTES {
            return;
        }
        let mut results = self.results.write().unwrap_or_else(|e| e.into_inner());
        let results = &mut *results;
        if let Some(old) = results.map.remove(&key) {
            results.bytes -= key.len() + old.len();
        }
        if results.map.len() >= CAPACITY || results.bytes + weight > MAX_BYTES {
            results.map.clear();
            results.bytes = 0;
        }
        results.bytes += weight;
        results.map.insert(key, result);
    }
}

/// A JSON-RPC success answer around an already serialised `result`.
pub(crate) fn splice(id: &Value, result: &[u8]) -> Vec<u8> {
    let id = serde_json::to_vec(id).unwrap_or_else(|_| b"null".to_vec());
    let mut out = Vec::with_capacity(result.len() + id.len() + 40);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(&id);
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(result);
    out.push(b'}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spliced_answers_are_the_plain_ones() {
        let result = json!({"tools": [{"name": "a"}]});
        for id in [json!(7), json!("x\"y")] {
            let spliced = splice(&id, &serde_json::to_vec(&result).unwrap());
            let plain = super::super::jsonrpc::response(&id, Ok(result.clone()));
            assert_eq!(serde_json::from_slice::<Value>(&spliced).unwrap(), plain);
        }
    }

    #[test]
    fn only_content_methods_are_memoised() {
        let v = Version::LATEST;
        assert!(Memo::key("r1", v, "tools/list", "{}").is_some());
        assert!(Memo::key("r1", v, "ping", "{}").is_none());
        assert_ne!(
            Memo::key("r1", Version::V2024_11_05, "tools/list", "{}"),
            Memo::key("r1", v, "tools/list", "{}"),
            "versions answer differently"
        );
        assert_ne!(
            Memo::key("r1", v, "resources/read", r#"{"uri":"a"}"#),
            Memo::key("r1", v, "resources/read", r#"{"uri":"b"}"#),
        );
        assert_ne!(
            Memo::key("r1", v, "tools/list", "{}"),
            Memo::key("r2", v, "tools/list", "{}"),
            "releases answer differently"
        );
        let big = format!(r#"{{"cursor":"{}"}}"#, "x".repeat(MAX_KEY));
        assert!(Memo::key("r1", v, "resources/list", &big).is_none());
    }

    #[test]
    fn the_memo_stays_within_its_bounds() {
        let memo = Memo::default();
        let big = Bytes::from(vec![b'x'; 1 << 20]);
        for i in 0..100 {
            memo.put(format!("k{i}"), big.clone());
            memo.put(format!("k{i}"), big.clone());
            let r = memo.results.read().unwrap();
            assert!(r.bytes <= MAX_BYTES, "{}", r.bytes);
            let sum: usize = r.map.iter().map(|(k, v)| k.len() + v.len()).sum();
            assert_eq!(r.bytes, sum);
        }
        assert!(memo.get("k99").is_some());
        memo.put("huge".into(), Bytes::from(vec![0; MAX_BYTES + 1]));
        assert!(memo.get("huge").is_none());
        for i in 0..2 * CAPACITY {
            memo.put(format!("small{i}"), Bytes::from_static(b"{}"));
            assert!(memo.results.read().unwrap().map.len() <= CAPACITY);
        }
    }
}
