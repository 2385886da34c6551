//! Cloudflare Pages: `_headers`, `_routes.json` and a Pages Function
//! (`functions/[[path]].js`) that forwards the sidecar's routes to it.
//!
//! Cloudflare's documented limits shape what is written:
//! - `_headers`: at most 100 rules, 2,000 characters a line; every matching
//!   rule applies and a header set by two rules gets both values joined with
//!   a comma. So each URL matches exactly one rule that sets its
//!   `Cache-Control`: a folder whose files all share a policy is one
//!   `/folder/*` rule, other files get a rule each. Headers every file shares
//!   (CORS, `nosniff`, the HTML security headers) are one `/*` rule.
//!   `Content-Type` is written only where a file's type is not its
//!   extension's (the well-known documents), `Link` where the sidecar sends
//!   it.
//! - `_redirects` cannot proxy to another origin, so the sidecar's routes
//!   go through the Function; `_routes.json` (at most 100 include and
//!   exclude rules, 100 characters each) invokes it for those paths only.
//!   `_headers` never applies to the Function's answers: they are the
//!   sidecar's own.
//!
//! A site that needs more rules fails here with the limit named, rather
//! than deploying with headers silently missing.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use anyhow::ensure;
use contract::routes;

use super::{FILE_HEADERS, Plan};

/// Cloudflare Pages' limits (developers.cloudflare.com/pages/platform/limits).
pub const MAX_HEADER_RULES: usize = 100;
pub const MAX_HEADER_LINE: usize = 2000;
pub const MAX_ROUTES_RULES: usize = 100;
pub const MAX_ROUTE_CHARS: usize = 100;

pub fn render(plan: &Plan) -> anyhow::Result<Vec<(String, String)>> {
    let headers = headers_file(plan)?;
    let routes = routes_json(plan)?;
    let function = function(plan);
    Ok(vec![
        ("_headers".into(), headers),
        ("_routes.json".into(), routes),
        ("functions/[[path]].js".into(), function),
    ])
}

/// Rules of `_headers`: pattern → header lines, in order.
fn header_rules(plan: &Plan) -> BTreeMap<String, Vec<(String, String)>> {
    let mut rules: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let all = rules.entry("/*".into()).or_default();
    for (name, value) in FILE_HEADERS.into_iter().chain(plan.html_headers()) {
        all.push((name.into(), value.into()));
    }
    for (pattern, cache) in cache_rules(plan) {
        rules
            .entry(pattern)
            .or_default()
            .push(("Cache-Control".into(), cache));
    }
    for f in &plan.files {
        let by_extension = contract::media::for_path(&format!("x.{}", extension(&f.key)));
        let own_type = f.content_type != by_extension;
        for u in &f.urls {
            let lines = rules.entry(u.clone()).or_default();
            if own_type {
                lines.push(("Content-Type".into(), f.content_type.clone()));
            }
            if let Some(link) = f.link {
                lines.push(("Link".into(), link.into()));
            }
        }
    }
    rules.retain(|_, lines| !lines.is_empty());
    rules
}

fn extension(key: &str) -> &str {
    key.rsplit('/')
        .next()
        .and_then(|n| n.rsplit_once('.'))
        .map_or("", |(_, e)| e)
}

/// One `Cache-Control` rule per URL: `/folder/*` where the whole folder
/// shares a policy (and holds no route of the sidecar), else the URL.
fn cache_rules(plan: &Plan) -> Vec<(String, String)> {
    // Folder → the policies of every file below it.
    let mut below: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for f in &plan.files {
        let mut dir = String::from("/");
        for segment in f
            .key
            .split('/')
            .rev()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            dir.push_str(segment);
            dir.push('/');
            below
                .entry(dir.clone())
                .or_default()
                .insert(&f.cache_control);
        }
    }
    let sidecar = plan.sidecar_paths();
    let uniform = |dir: &str| {
        below.get(dir).is_some_and(|set| set.len() == 1)
            && !sidecar.iter().any(|p| p.starts_with(dir))
            && !routes::is_api_space(dir.trim_end_matches('/'))
    };
    let mut out = Vec::new();
    let mut covered = BTreeSet::new();
    for f in &plan.files {
        // The shallowest uniform folder holding the file.
        let mut dir = String::from("/");
        let mut rule = None;
        for segment in f
            .key
            .split('/')
            .rev()
            .skip(1)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
        {
            dir.push_str(segment);
            dir.push('/');
            if uniform(&dir) {
                rule = Some(format!("{dir}*"));
                break;
            }
        }
        match rule {
            Some(pattern) => {
                if covered.insert(pattern.clone()) {
                    out.push((pattern, f.cache_control.clone()));
                }
            }
            None => {
                for u in &f.urls {
                    out.push((u.clone(), f.cache_control.clone()));
                }
            }
        }
    }
    out
}

fn headers_file(plan: &Plan) -> anyhow::Result<String> {
    let rules = header_rules(plan);
    ensure!(
        rules.len() <= MAX_HEADER_RULES,
        "Cloudflare Pages takes at most {MAX_HEADER_RULES} _headers rules; this site needs {} \
         (its folders mix cache policies). Serve it from nginx or Caddy, or host dist/ on a \
         plain static host with the separate-origin layout.",
        rules.len()
    );
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# Generated by `generate host-config --for cloudflare` from {}/manifest.json:\n\
         # copy into the build output with every build; do not edit. {} of at most\n\
         # {MAX_HEADER_RULES} rules.",
        plan.root.display(),
        rules.len()
    );
    // `/*` first, then by pattern.
    let mut ordered: Vec<_> = rules.iter().collect();
    ordered.sort_by_key(|(p, _)| (p.as_str() != "/*", p.as_str()));
    for (pattern, lines) in ordered {
        let _ = writeln!(o, "{pattern}");
        for (name, value) in lines {
            let _ = writeln!(o, "  {name}: {value}");
        }
    }
    for line in o.lines() {
        ensure!(
            line.len() <= MAX_HEADER_LINE,
            "Cloudflare Pages takes _headers lines of at most {MAX_HEADER_LINE} characters: {line:.80}…"
        );
    }
    Ok(o)
}

fn routes_json(plan: &Plan) -> anyhow::Result<String> {
    // The sidecar's paths; its API-space paths as the whole space, so
    // unknown /api/ and /mcp/ paths get the sidecar's 404 problem.
    let mut include = BTreeSet::new();
    for path in plan.sidecar_paths() {
        if path == "/mcp" || path == "/api" {
            include.insert(path.to_owned());
        } else if path.starts_with("/api/") {
            include.insert("/api/*".to_owned());
        } else if path.starts_with("/mcp/") {
            include.insert("/mcp/*".to_owned());
        } else {
            include.insert(path.to_owned());
        }
    }
    include.insert("/api".into());
    include.insert("/mcp/*".into());
    let exclude: BTreeSet<String> = plan
        .files
        .iter()
        .filter(|f| f.in_api_space())
        .flat_map(|f| f.urls.iter().cloned())
        .collect();
    let total = include.len() + exclude.len();
    ensure!(
        total <= MAX_ROUTES_RULES,
        "Cloudflare Pages takes at most {MAX_ROUTES_RULES} _routes.json rules; this site needs {total} \
         (files of dist/ inside /api/ are excluded one by one)"
    );
    for rule in include.iter().chain(&exclude) {
        ensure!(
            rule.len() <= MAX_ROUTE_CHARS,
            "Cloudflare Pages takes _routes.json rules of at most {MAX_ROUTE_CHARS} characters: {rule}"
        );
    }
    let doc = serde_json::json!({
        "version": 1,
        "include": include,
        "exclude": exclude,
    });
    Ok(serde_json::to_string_pretty(&doc)? + "\n")
}

fn function(plan: &Plan) -> String {
    let origin = plan.sidecar.to_string();
    format!(
        "// Generated by `generate host-config --for cloudflare`: do not edit.\n\
         // Forwards the sidecar's routes (see _routes.json) to {origin} with the\n\
         // method, headers, body and query unchanged, adding the client's address\n\
         // to X-Forwarded-For for the sidecar's --trusted-proxy. Its answer,\n\
         // headers and status included, goes back as it is.\n\
         const SIDECAR = {origin:?};\n\
         \n\
         export async function onRequest({{ request }}) {{\n\
         \x20 const url = new URL(request.url);\n\
         \x20 const target = new URL(url.pathname + url.search, SIDECAR);\n\
         \x20 const headers = new Headers(request.headers);\n\
         \x20 const client = request.headers.get(\"CF-Connecting-IP\");\n\
         \x20 if (client) {{\n\
         \x20   const prior = request.headers.get(\"X-Forwarded-For\");\n\
         \x20   headers.set(\"X-Forwarded-For\", prior ? `${{prior}}, ${{client}}` : client);\n\
         \x20 }}\n\
         \x20 headers.set(\"X-Forwarded-Proto\", url.protocol.replace(\":\", \"\"));\n\
         \x20 headers.set(\"X-Forwarded-Host\", url.host);\n\
         \x20 headers.delete(\"Host\");\n\
         \x20 const init = {{ method: request.method, headers, redirect: \"manual\" }};\n\
         \x20 if (request.method !== \"GET\" && request.method !== \"HEAD\") init.body = request.body;\n\
         \x20 return fetch(target, init);\n\
         }}\n"
    )
}

/// Whether a file's rules name it (used by the tests).
#[cfg(test)]
fn rules_for<'a>(
    rules: &'a BTreeMap<String, Vec<(String, String)>>,
    url: &str,
) -> Vec<&'a (String, String)> {
    rules
        .iter()
        .filter(|(p, _)| match p.strip_suffix('*') {
            Some(prefix) => url.starts_with(prefix),
            None => p.as_str() == url,
        })
        .flat_map(|(_, lines)| lines)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host_config::fixture;

    #[test]
    fn snapshot() {
        for (name, text) in render(&fixture::plan()).unwrap() {
            insta::assert_snapshot!(name.replace(['[', ']', '/'], "_"), text);
        }
    }

    #[test]
    fn every_url_gets_its_cache_policy_once_and_its_own_type() {
        let plan = fixture::plan();
        let rules = header_rules(&plan);
        for f in &plan.files {
            for u in &f.urls {
                let lines = rules_for(&rules, u);
                let cache: Vec<_> = lines.iter().filter(|(n, _)| n == "Cache-Control").collect();
                assert_eq!(cache.len(), 1, "{u}: {cache:?}");
                assert_eq!(cache[0].1, f.cache_control, "{u}");
                let types: Vec<_> = lines.iter().filter(|(n, _)| n == "Content-Type").collect();
                assert!(types.len() <= 1, "{u}");
                if f.key.starts_with(".well-known/a") {
                    assert_eq!(types[0].1, f.content_type, "{u}");
                }
            }
        }
    }

    #[test]
    fn limits_hold_for_the_fixture_and_fail_past_them() {
        let plan = fixture::plan();
        let files = render(&plan).unwrap();
        let headers = &files[0].1;
        let rules = headers.lines().filter(|l| l.starts_with('/')).count();
        assert!(rules <= MAX_HEADER_RULES);
        assert!(headers.lines().all(|l| l.len() <= MAX_HEADER_LINE));
        let routes: serde_json::Value = serde_json::from_str(&files[1].1).unwrap();
        assert_eq!(routes["version"], 1);
        let include: Vec<&str> = routes["include"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for want in ["/api/*", "/mcp", "/mcp/*", "/healthz", "/readyz"] {
            assert!(include.contains(&want), "{want}: {include:?}");
        }
        // Metrics are the admin listener's, never routed from the public side.
        assert!(!include.contains(&"/metrics"), "{include:?}");
        assert_eq!(routes["exclude"], serde_json::json!(["/api/service.json"]));

        // 150 root files with different policies cannot fit in 100 rules.
        let mut manifest = fixture::manifest();
        let template = manifest.files["files/data.csv"].clone();
        for i in 0..150 {
            let mut e = template.clone();
            e.cache_control = format!("public, max-age={i}");
            manifest.files.insert(format!("page{i}.txt"), e);
        }
        let big = Plan::new(
            plan.root.clone(),
            &manifest,
            plan.sidecar.clone(),
            plan.listen.clone(),
            plan.site_origin.clone(),
        )
        .unwrap();
        let e = render(&big).unwrap_err().to_string();
        assert!(e.contains("at most 100 _headers rules"), "{e}");
    }

    #[test]
    fn function_forwards_to_the_sidecar() {
        let f = function(&fixture::plan());
        assert!(f.contains("const SIDECAR = \"http://127.0.0.1:8081\";"));
        assert!(f.contains("export async function onRequest"));
    }
}
