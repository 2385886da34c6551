//! `generate host-config`: front-server configurations built from a built
//! site's `manifest.json` and the contract's route table, so nginx, Caddy,
//! Netlify and Cloudflare Pages send the same headers, types and cache
//! policies as the sidecar does when it serves `dist/` itself, and hand the
//! sidecar's routes to it.
//!
//! This module turns the two inputs into one host-neutral [`Plan`] (what
//! each published URL answers with, which paths go to the sidecar, the
//! problem object for unknown API paths); one module per host writes it in
//! that host's syntax. Nothing per file is written by hand: a new file, type
//! or route reaches every host through the plan.

mod caddy;
mod cloudflare;
mod kept_assets;
mod netlify;
mod nginx;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail, ensure};
use contract::headers;
use contract::manifest::{FORMAT, MANIFEST_FILE, Manifest, NOT_FOUND_PAGE};
use contract::routes::{self, Endpoint, Route};
use contract::{ProblemCode, media};

use crate::origin;
pub use crate::origin::{HttpOrigin as SidecarUrl, Listen};

/// The hosts a configuration can be written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Host {
    /// `nginx.conf`: an upstream and one `server {}` to include in `http {}`.
    Nginx,
    /// A complete `Caddyfile` (Caddy 2.6 or later).
    Caddy,
    /// `_headers` and `_redirects` for the publish root.
    Netlify,
    /// `_headers`, `_redirects`, `_routes.json` and a Pages Function.
    Cloudflare,
}

/// How nginx and Caddy send compressed answers of files (`--compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Compression {
    /// The build's twins when its manifest lists any, gzip on the fly
    /// otherwise.
    #[default]
    Auto,
    /// The build's `.br` and `.gz` twins as they are (a build made with
    /// `generate build --precompress`); nothing is compressed per request.
    Twins,
    /// gzip made by the front per answer (nginx's `gzip`, Caddy's
    /// `encode gzip`); the twins, if any, are not used.
    OnTheFly,
}

/// What a configuration does about compression, resolved from
/// [`Compression`], the manifest and the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compress {
    /// The build's twins: the `.gz` ones always, the `.br` ones where the
    /// front can send them: Caddy always, nginx when `brotli_static` (its
    /// module is loaded).
    Twins { brotli_static: bool },
    /// gzip per answer, for compressible files of [`ON_THE_FLY_FROM`] bytes
    /// or more.
    OnTheFly,
}

/// The smallest file compressed on the fly: the size from which the build
/// makes twins and the sidecar makes them on first use.
pub const ON_THE_FLY_FROM: u64 = 256;

/// What `generate host-config` was asked for, validated.
#[derive(Debug, Clone)]
pub struct Options {
    pub host: Host,
    pub dist: PathBuf,
    /// Where the front finds the build (nginx's and Caddy's `root`), when
    /// not where `dist` is read, e.g. a container's mount.
    pub root: Option<PathBuf>,
    /// One sidecar, or several replicas (nginx and Caddy balance them).
    pub sidecars: Vec<SidecarUrl>,
    pub listen: Listen,
    pub compression: Compression,
    /// The nginx that loads the configuration has the brotli_static module.
    pub nginx_brotli_static: bool,
    pub out: PathBuf,
}

/// Reads the built site at `opts.dist`, writes the host's files into
/// `opts.out` and returns their paths.
pub fn write(opts: &Options) -> anyhow::Result<Vec<PathBuf>> {
    let (first, more) = opts
        .sidecars
        .split_first()
        .context("--sidecar-url: give the sidecar's origin")?;
    let mut plan = Plan::load(&opts.dist, first.clone(), opts.listen.clone())?;
    plan.set_replicas(opts.host, more)?;
    if let Some(root) = &opts.root {
        plan.set_root(opts.host, root)?;
    }
    plan.set_compression(opts.host, opts.compression, opts.nginx_brotli_static)?;
    let files = render(opts.host, &plan)?;
    let out = &opts.out;
    if out.exists() {
        let dist = opts.dist.canonicalize()?;
        ensure!(
            out.canonicalize()? != dist,
            "--out {}: write the host files outside --dist (copy them into the publish root when deploying), so the sidecar serving the same dist/ never has them",
            out.display()
        );
    }
    let mut written = Vec::new();
    for (name, text) in files {
        let path = out.join(&name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// The files of one host: relative path and text.
pub fn render(host: Host, plan: &Plan) -> anyhow::Result<Vec<(String, String)>> {
    match host {
        Host::Nginx => Ok(vec![("nginx.conf".into(), nginx::render(plan)?)]),
        Host::Caddy => Ok(vec![("Caddyfile".into(), caddy::render(plan)?)]),
        Host::Netlify => netlify::render(plan),
        Host::Cloudflare => cloudflare::render(plan),
    }
}

/// A published file and what every answer for it carries.
#[derive(Debug, Clone, PartialEq)]
pub struct File {
    /// Manifest key (path relative to `dist/`).
    pub key: String,
    /// The URL paths it answers at: `/<key>`, and for `…/index.html` its
    /// directory URL first.
    pub urls: Vec<String>,
    pub content_type: String,
    pub cache_control: String,
    /// Whether it has precompressed twins.
    pub twins: bool,
    /// Whether its type is worth compressing, by the contract's list.
    pub compressible: bool,
    /// Its size in bytes.
    pub size: u64,
    pub link: Option<&'static str>,
    /// A page with a Markdown twin, or such a twin: its answers vary by
    /// `Accept` ([`contract::twin::negotiated`]).
    pub negotiated: bool,
}

impl File {
    pub fn is_html(&self) -> bool {
        headers::is_html(&self.content_type)
    }

    /// Whether its answers depend on `Accept-Encoding` (`Vary`), as the
    /// sidecar says: it has twins from the build, or it is compressed on
    /// the fly.
    pub fn varies(&self, compress: Compress) -> bool {
        self.twins || (compress == Compress::OnTheFly && self.on_the_fly())
    }

    /// Its `Vary`, as the sidecar sends it: by `Accept-Encoding` when it
    /// [`File::varies`], by `Accept` when it is [`File::negotiated`].
    pub fn vary(&self, compress: Compress) -> Option<&'static str> {
        headers::vary(self.varies(compress), self.negotiated)
    }

    /// Whether the front compresses it when compressing on the fly.
    pub fn on_the_fly(&self) -> bool {
        self.compressible && self.size >= ON_THE_FLY_FROM
    }

    /// Whether it lies where unknown paths are problems, not the 404 page.
    pub fn in_api_space(&self) -> bool {
        self.urls.iter().any(|u| routes::is_api_space(u))
    }
}

/// What every host configuration is written from.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `dist/` as the front sees it: the absolute `--dist`, or `--root`.
    pub root: PathBuf,
    /// How nginx and Caddy send compressed answers.
    pub compress: Compress,
    pub sidecar: SidecarUrl,
    /// Further replicas of the sidecar beside [`Plan::sidecar`], balanced by
    /// the front (nginx and Caddy only).
    pub replicas: Vec<SidecarUrl>,
    pub listen: Listen,
    /// The site's public origin, the base of problem `type` URLs.
    pub site_origin: String,
    /// Every published file, by manifest key.
    pub files: Vec<File>,
    /// Directory URLs without their slash → with it (308), pages only.
    pub redirects: Vec<(String, String)>,
    /// Moved pages (the manifest's `redirects`, from the pages' aliases):
    /// old path → the page's path (301), a directory alias also without
    /// its slash. They win over the HTML page the build writes there.
    pub moved: Vec<(String, String)>,
    /// The Content-Security-Policy of HTML documents (naming the build's
    /// separate API origin, if it has one).
    pub csp: String,
}

/// The headers every answer for a file carries besides its own
/// (CORS for public read-only files and `nosniff`), as the sidecar sends them.
pub const FILE_HEADERS: [(&str, &str); 3] = [
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Expose-Headers", routes::EXPOSE_HEADERS),
    ("X-Content-Type-Options", headers::NOSNIFF),
];

/// The `Allow` of every file (and its preflight's allowed methods).
pub const FILE_ALLOW: &str = routes::Method::Get.allow();

impl Plan {
    /// The security headers of HTML documents, as the sidecar sends them.
    pub fn html_headers(&self) -> [(&'static str, &str); 4] {
        headers::HTML.map(|(name, value)| {
            if name == "Content-Security-Policy" {
                (name, self.csp.as_str())
            } else {
                (name, value)
            }
        })
    }

    /// Reads `dist/manifest.json` (and the site origin from the sitemap).
    pub fn load(dist: &Path, sidecar: SidecarUrl, listen: Listen) -> anyhow::Result<Plan> {
        let root = dist
            .canonicalize()
            .with_context(|| format!("--dist {}: not found", dist.display()))?;
        let path = root.join(MANIFEST_FILE);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {} (run `generate build` first)", path.display()))?;
        let manifest: Manifest =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        ensure!(
            manifest.format == FORMAT,
            "{}: format {} is not the supported format {FORMAT}",
            path.display(),
            manifest.format
        );
        let sitemap = root.join(contract::manifest::SITEMAP);
        let site_origin = origin::site_origin(
            &std::fs::read_to_string(&sitemap)
                .with_context(|| format!("reading {}", sitemap.display()))?,
        )
        .with_context(|| {
            format!(
                "{}: no page URL to take the site origin from",
                sitemap.display()
            )
        })?;
        Plan::new(root, &manifest, sidecar, listen, site_origin)
    }

    pub fn new(
        root: PathBuf,
        manifest: &Manifest,
        sidecar: SidecarUrl,
        listen: Listen,
        site_origin: String,
    ) -> anyhow::Result<Plan> {
        let mut files = Vec::new();
        let mut redirects = Vec::new();
        for (key, entry) in &manifest.files {
            check_key(key)?;
            let url = format!("/{key}");
            let mut urls = Vec::new();
            if let Some(dir) = url.strip_suffix("index.html").filter(|d| d.ends_with('/')) {
                let bare = dir.trim_end_matches('/');
                if !bare.is_empty() && !routes::is_api_space(bare) {
                    redirects.push((bare.to_owned(), dir.to_owned()));
                }
                urls.push(dir.to_owned());
            }
            urls.push(url);
            for u in &urls {
                ensure!(
                    Endpoint::lookup(u).is_none(),
                    "manifest entry {key:?} is at the sidecar route {u}"
                );
            }
            files.push(File {
                key: key.clone(),
                urls,
                content_type: entry.content_type.clone(),
                cache_control: entry.cache_control.clone(),
                twins: !entry.encodings.is_empty(),
                compressible: media::compressible(&entry.content_type),
                size: entry.size,
                link: headers::link(key),
                negotiated: contract::twin::negotiated(key, |k| manifest.files.contains_key(k)),
            });
        }
        ensure!(
            files.iter().any(|f| f.key == NOT_FOUND_PAGE),
            "the manifest has no {NOT_FOUND_PAGE}"
        );
        let mut moved = Vec::new();
        for (from, to) in &manifest.redirects {
            ensure!(
                from.starts_with('/')
                    && !routes::is_api_space(from)
                    && Endpoint::lookup(from).is_none(),
                "manifest redirect {from:?} is not a page path"
            );
            if let Some(bare) = from.strip_suffix('/').filter(|b| !b.is_empty()) {
                moved.push((bare.to_owned(), to.clone()));
            }
            moved.push((from.clone(), to.clone()));
        }
        // A file's own URL wins over a directory redirect of the same path,
        // and a moved page over both.
        redirects.retain(|(from, _)| {
            !files.iter().any(|f| f.urls.contains(from)) && !moved.iter().any(|(m, _)| m == from)
        });
        // `--compression auto` for a front without brotli: the safe default.
        let compress = if files.iter().any(|f| f.twins) {
            Compress::Twins {
                brotli_static: false,
            }
        } else {
            Compress::OnTheFly
        };
        Ok(Plan {
            root,
            compress,
            sidecar,
            replicas: Vec::new(),
            listen,
            site_origin,
            files,
            redirects,
            moved,
            csp: headers::content_security_policy(manifest.api_origin.as_deref()).into_owned(),
        })
    }

    /// Adds replicas beside the first sidecar: the same scheme (and, over
    /// TLS, the same host name, which the front verifies), for a host that
    /// can balance them.
    pub fn set_replicas(&mut self, host: Host, more: &[SidecarUrl]) -> anyhow::Result<()> {
        if more.is_empty() {
            return Ok(());
        }
        ensure!(
            matches!(host, Host::Nginx | Host::Caddy),
            "--sidecar-url: {host:?} proxies to one origin; give it the load balancer's URL in front of the replicas"
        );
        for r in more {
            ensure!(
                r.https == self.sidecar.https && (!r.https || r.host == self.sidecar.host),
                "--sidecar-url {r}: every replica needs the scheme of {} (and, over https, its host name)",
                self.sidecar
            );
            ensure!(
                *r != self.sidecar && !self.replicas.contains(r),
                "--sidecar-url {r}: given twice"
            );
            self.replicas.push(r.clone());
        }
        Ok(())
    }

    /// Serves the build from `root` (nginx and Caddy): where the front sees
    /// it, e.g. a container's mount, apart from where it was read.
    pub fn set_root(&mut self, host: Host, root: &Path) -> anyhow::Result<()> {
        ensure!(
            matches!(host, Host::Nginx | Host::Caddy),
            "--root: {host:?} serves the files copied into its publish root; the flag is for nginx and caddy"
        );
        ensure!(
            root.is_absolute(),
            "--root {}: give the absolute path at which the front sees the build",
            root.display()
        );
        self.root = root.to_owned();
        Ok(())
    }

    /// Resolves `--compression` for `host` against the manifest: `auto`
    /// takes the twins when the build has any, else gzip on the fly; the
    /// twins asked for by name must be there. nginx sends the `.br` twins
    /// only when told that its brotli_static module is loaded.
    pub fn set_compression(
        &mut self,
        host: Host,
        choice: Compression,
        nginx_brotli_static: bool,
    ) -> anyhow::Result<()> {
        let name = match host {
            Host::Nginx => "nginx",
            Host::Caddy => "caddy",
            Host::Netlify | Host::Cloudflare => {
                ensure!(
                    choice == Compression::Auto && !nginx_brotli_static,
                    "--compression, --nginx-brotli-static: {host:?} compresses at its edge; the flags are for nginx and caddy"
                );
                return Ok(());
            }
        };
        ensure!(
            !nginx_brotli_static || host == Host::Nginx,
            "--nginx-brotli-static: Caddy sends the .br twins itself; the flag is for nginx"
        );
        let twins = self.files.iter().any(|f| f.twins);
        let brotli_static = nginx_brotli_static;
        self.compress = match choice {
            Compression::Auto if twins => Compress::Twins { brotli_static },
            Compression::Auto | Compression::OnTheFly => Compress::OnTheFly,
            Compression::Twins => {
                ensure!(
                    twins,
                    "--compression twins: the build at {} has no compressed twins for {name} to send; build it with `generate build --precompress`, or give --compression on-the-fly (or auto)",
                    self.root.display()
                );
                Compress::Twins { brotli_static }
            }
        };
        Ok(())
    }

    /// Essences of the compressible types of the files compressed on the
    /// fly, sorted and each once.
    pub fn on_the_fly_types(&self) -> Vec<&str> {
        let mut types: Vec<&str> = self
            .files
            .iter()
            .filter(|f| f.on_the_fly())
            .map(|f| media::essence(&f.content_type))
            .collect();
        types.sort_unstable();
        types.dedup();
        types
    }

    /// The sidecar and its replicas.
    pub fn upstreams(&self) -> impl Iterator<Item = &SidecarUrl> {
        std::iter::once(&self.sidecar).chain(&self.replicas)
    }

    /// Every URL path the sidecar answers (canonical paths and aliases).
    /// Routes with `{name}` segments are not among them: see
    /// [`Plan::sidecar_prefixes`].
    pub fn sidecar_paths(&self) -> Vec<&'static str> {
        sidecar_routes()
            .filter(|r| !r.is_template())
            .flat_map(|r| r.paths())
            .collect()
    }

    /// The path prefixes (ending in `/`) under which the sidecar answers
    /// routes with `{name}` segments: a front sends every path below them
    /// to it, and the sidecar answers an unknown one with its 404 problem.
    pub fn sidecar_prefixes(&self) -> Vec<&'static str> {
        let mut prefixes: Vec<&'static str> = sidecar_routes()
            .filter(|r| r.is_template())
            .filter_map(|r| r.path.find('{').map(|i| &r.path[..i]))
            .collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        prefixes
    }

    /// Files grouped by a header value they share, in a stable order.
    pub fn group_by<K: Ord>(&self, key: impl Fn(&File) -> K) -> BTreeMap<K, Vec<&File>> {
        let mut groups: BTreeMap<K, Vec<&File>> = BTreeMap::new();
        for f in &self.files {
            groups.entry(key(f)).or_default().push(f);
        }
        groups
    }

    /// The page URLs a request preferring Markdown gets the twin at (nginx
    /// and Caddy), each with its twin's file: the folder URL of every page
    /// with a twin, unless a moved page's redirect takes that path.
    pub fn markdown_pages(&self) -> Vec<(&str, &File)> {
        let twins: BTreeMap<&str, &File> = self
            .files
            .iter()
            .filter(|f| f.negotiated && contract::twin::page_key(&f.key).is_some())
            .map(|f| (f.key.as_str(), f))
            .collect();
        self.files
            .iter()
            .filter(|f| f.negotiated)
            .filter_map(|f| Some((f, twins.get(contract::twin::twin_key(&f.key)?.as_str())?)))
            .filter_map(|(f, twin)| {
                let folder = f.urls.iter().find(|u| u.ends_with('/'))?;
                let moved = self.moved.iter().any(|(from, _)| from == folder);
                (!moved).then_some((folder.as_str(), *twin))
            })
            .collect()
    }

    /// The 404 page.
    pub fn not_found_page(&self) -> &File {
        self.files
            .iter()
            .find(|f| f.key == NOT_FOUND_PAGE)
            .expect("checked in Plan::new")
    }

    /// The problem object a front answers with itself (`code`), as the
    /// sidecar writes it, without `instance` (a front cannot JSON-escape the
    /// request path).
    pub fn problem(&self, code: ProblemCode, detail: &str) -> String {
        serde_json::json!({
            "type": format!("{}/docs/problems/{}/", self.site_origin, code.as_str()),
            "title": code.title(),
            "status": code.status(),
            "detail": detail,
            "code": code.as_str(),
        })
        .to_string()
    }
}

/// The sidecar's routes of the table.
pub fn sidecar_routes() -> impl Iterator<Item = &'static Route> {
    Endpoint::ALL.into_iter().map(Endpoint::route)
}

/// Problems a front answers itself, with the sidecar's wording.
pub mod problems {
    pub const NOT_FOUND: &str = "No API route exists at this path; /openapi.json lists them.";
    pub const METHOD_NOT_ALLOWED: &str = "This route takes GET, HEAD, OPTIONS.";
    /// The sidecar's words for its default body limit.
    pub fn payload_too_large() -> String {
        format!(
            "The request body exceeds this route's limit of {} bytes.",
            contract::routes::MAX_BODY_BYTES
        )
    }
    pub const UNAVAILABLE: &str =
        "The service behind this route did not answer; try again shortly.";
    /// `Retry-After` of the front's own 503, in seconds.
    pub const RETRY_AFTER: u32 = 5;
}

/// `application/problem+json`, the type of every front-made problem.
pub const PROBLEM_JSON: &str = media::PROBLEM_JSON;

/// Manifest keys must be plain relative paths of printable characters, so
/// they can be written into any host's syntax unquoted or quoted.
fn check_key(key: &str) -> anyhow::Result<()> {
    if key.is_empty()
        || key.starts_with('/')
        || key.chars().any(|c| {
            c.is_control()
                || c.is_whitespace()
                || matches!(
                    c,
                    '"' | '\'' | '\\' | '$' | '{' | '}' | ';' | '#' | '*' | '?'
                )
        })
        || key
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
    {
        bail!(
            "manifest entry {key:?}: host configurations take paths without spaces, quotes, backslashes, `$`, braces, `;`, `#`, `*` or `?`"
        );
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;
