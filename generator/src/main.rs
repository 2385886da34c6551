//! `generate`: builds and checks the static site. Thin: parse, run, report.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The build allocates and frees a compressor's tables per file; glibc's
/// allocator returns those to the kernel each time (page faults, zeroing),
/// mimalloc keeps and reuses them. Measured at 10,000 pages: system time
/// from 3.8 s to about 1 s, wall time a fifth lower.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Builds the public-information site, its contract and discovery documents.
#[derive(Parser)]
#[command(name = "generate", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the output tree from content and templates.
    Build {
        /// Folder of the organisation's content.
        #[arg(long, env = "GENERATE_CONTENT", default_value = "content")]
        content: PathBuf,
        /// Folder of the templates and source assets.
        #[arg(long, env = "GENERATE_TEMPLATES", default_value = "templates")]
        templates: PathBuf,
        /// Output folder (replaced; must be empty or an earlier build).
        #[arg(long, env = "GENERATE_OUT", default_value = "dist")]
        out: PathBuf,
        /// Public origin of the site, e.g. https://example.org (default: site.toml's base_url).
        #[arg(long, env = "GENERATE_BASE_URL")]
        base_url: Option<String>,
        /// Origin of the sidecar when it is not the site's, e.g.
        /// https://api.example.org (the separate-origin layout, for static
        /// hosts that cannot proxy): pages, their scripts, the CSP and the
        /// discovery documents then name it for the live, MCP, contact and
        /// chat routes; run the sidecar with --site-origin set to the site.
        #[arg(long, env = "GENERATE_API_ORIGIN")]
        api_origin: Option<String>,
        /// Never draw a progress bar.
        #[arg(long, env = "GENERATE_QUIET")]
        quiet: bool,
        /// Folder of compressed twins kept between builds, by the SHA-256
        /// of what they compress (safe to delete at any time; entries
        /// unused for 14 days are removed).
        #[arg(long, env = "GENERATE_CACHE", default_value = ".cache/generate")]
        cache: PathBuf,
        /// Compress every twin again, reading and writing no cache.
        #[arg(long, env = "GENERATE_NO_CACHE")]
        no_cache: bool,
        /// Also write a `.br` and a `.gz` twin of every compressible file
        /// where smaller, listed in the manifest: for nginx, Caddy and other
        /// fronts that serve twins as they are (`generate host-config` asks
        /// for them). The sidecar needs none: it compresses each file the
        /// first time it is asked for it.
        #[arg(long, env = "GENERATE_PRECOMPRESS")]
        precompress: bool,
        /// Folder of citable data snapshots (`sidecar export --to DIR`):
        /// each `DIR/VERSION/` is checked against its SHA256SUMS, published
        /// under /snapshots/VERSION/ and listed on the open-data page.
        #[arg(long, env = "GENERATE_SNAPSHOTS")]
        snapshots: Option<PathBuf>,
    },
    /// Preview the site while writing it: build into a temporary folder,
    /// serve it on loopback, rebuild on every change to the content or the
    /// templates and reload open pages; a failed build shows its error in
    /// the page. The sidecar's routes go to --sidecar-url when given (run
    /// that sidecar with --site-origin set to the preview's URL).
    Serve {
        /// Folder of the organisation's content.
        #[arg(long, env = "GENERATE_CONTENT", default_value = "content")]
        content: PathBuf,
        /// Folder of the templates and source assets.
        #[arg(long, env = "GENERATE_TEMPLATES", default_value = "templates")]
        templates: PathBuf,
        /// Address to listen on (port 0: any free port).
        #[arg(long, env = "GENERATE_SERVE_LISTEN", default_value = "127.0.0.1:1313")]
        listen: std::net::SocketAddr,
        /// A running sidecar (http://host:port) for the live routes, MCP,
        /// the contact form and the chat.
        #[arg(long, env = "GENERATE_SIDECAR_URL", value_parser = generator::origin::sidecar_url)]
        sidecar_url: Option<generator::origin::HttpOrigin>,
        /// Ignored: the preview makes no compressed twins, so it keeps no
        /// cache (accepted so that earlier scripts keep working).
        #[arg(long, env = "GENERATE_CACHE", hide = true)]
        cache: Option<PathBuf>,
    },
    /// Validate the content and every internal link and anchor of a built site.
    Check {
        /// Folder of the organisation's content.
        #[arg(long, env = "GENERATE_CONTENT", default_value = "content")]
        content: PathBuf,
        /// The built output folder to check.
        #[arg(long, env = "GENERATE_OUT", default_value = "dist")]
        out: PathBuf,
        /// Fail, rather than warn, when a page lacks a translation into one
        /// of the site's languages or a translation is older than its page.
        #[arg(long)]
        strict_translations: bool,
    },
    /// Write a front server's configuration (nginx, Caddy, Netlify or
    /// Cloudflare Pages) from a built site's manifest and the route table:
    /// the sidecar's headers, types and cache policies on every file of
    /// dist/, the sidecar's routes proxied to --sidecar-url, other /api/ and
    /// /mcp/ paths answered with a 404 problem object. Regenerate it with
    /// every build.
    HostConfig {
        /// The host to write for: nginx (OUT/nginx.conf, to include in
        /// `http {}`), caddy (OUT/Caddyfile), netlify (OUT/_headers,
        /// OUT/_redirects) or cloudflare (OUT/_headers, OUT/_redirects,
        /// OUT/_routes.json, OUT/functions/); copy the Netlify and Cloudflare
        /// files into the published copy of dist/.
        #[arg(long = "for", env = "GENERATE_HOST", value_enum)]
        host: generator::host_config::Host,
        /// The built site (its manifest.json is read; nginx and Caddy serve
        /// it from this absolute path unless --root says otherwise).
        #[arg(long, env = "GENERATE_DIST", default_value = "dist")]
        dist: PathBuf,
        /// Where nginx or Caddy finds the built site, when not at --dist: an
        /// absolute path as the front sees it, e.g. /srv/dist where a front
        /// container mounts dist/ (default: the absolute path of --dist).
        #[arg(long, env = "GENERATE_ROOT")]
        root: Option<PathBuf>,
        /// Origin of the running sidecar, e.g. http://127.0.0.1:8081 or
        /// https://api.example.org (no path, query or credentials). nginx
        /// and Caddy take several replicas (repeat the flag, or separate
        /// them with commas) and balance them.
        #[arg(long, env = "GENERATE_SIDECAR_URL", required = true, value_delimiter = ',',
              value_parser = generator::origin::sidecar_url)]
        sidecar_url: Vec<generator::host_config::SidecarUrl>,
        /// Address the front listens on (nginx and Caddy): IP:PORT or a port.
        #[arg(long, env = "GENERATE_LISTEN", default_value = "80")]
        listen: generator::host_config::Listen,
        /// How nginx and Caddy send compressed files: `twins` sends the
        /// build's .gz (and .br) twins as they are (needs `generate build
        /// --precompress`); `on-the-fly` gzips each answer (nginx's gzip,
        /// Caddy's encode gzip), for a build without twins; `auto` takes
        /// twins when the manifest lists any, on-the-fly otherwise. Each
        /// works on the official nginx image (see --nginx-brotli-static);
        /// Netlify and Cloudflare compress at their edge and take only
        /// `auto`.
        #[arg(long, env = "GENERATE_COMPRESSION", value_enum, default_value_t)]
        compression: generator::host_config::Compression,
        /// nginx only: the nginx that loads the configuration has Debian's
        /// brotli_static module (libnginx-mod-http-brotli-static), so the
        /// .br twins are sent too. Without it (the official nginx image has
        /// no brotli module) only the .gz twins are, through gzip_static.
        #[arg(long, env = "GENERATE_NGINX_BROTLI_STATIC")]
        nginx_brotli_static: bool,
        /// Folder the files are written into (created; outside --dist).
        #[arg(long, env = "GENERATE_HOST_OUT")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Build {
            content,
            templates,
            out,
            base_url,
            api_origin,
            quiet,
            cache,
            no_cache,
            precompress,
            snapshots,
        } => {
            let summary = generator::build(&generator::BuildOptions {
                content,
                templates,
                out,
                base_url,
                api_origin,
                progress: !quiet,
                cache: (!no_cache).then_some(cache),
                precompress,
                drafts: false,
                snapshots,
            })?;
            println!("{}", summary.line());
            Ok(ExitCode::SUCCESS)
        }
        Command::Serve {
            content,
            templates,
            listen,
            sidecar_url,
            cache: _,
        } => {
            generator::serve::serve(generator::serve::ServeOptions {
                content,
                templates,
                listen,
                sidecar: sidecar_url,
            })?;
            Ok(ExitCode::SUCCESS)
        }
        Command::HostConfig {
            host,
            dist,
            root,
            sidecar_url,
            listen,
            compression,
            nginx_brotli_static,
            out,
        } => {
            let written = generator::host_config::write(&generator::host_config::Options {
                host,
                dist,
                root,
                sidecars: sidecar_url,
                listen,
                compression,
                nginx_brotli_static,
                out,
            })?;
            for path in written {
                println!("wrote {}", path.display());
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Check {
            content,
            out,
            strict_translations,
        } => {
            let loaded = generator::content::load_content(&content)?;
            let gaps = loaded.translation_gaps();
            let level = if strict_translations {
                "error"
            } else {
                "warning"
            };
            for gap in &gaps {
                eprintln!("{level}: {gap}");
            }
            for l in loaded.site.translations() {
                let (missing, outdated): (Vec<_>, Vec<_>) = gaps
                    .iter()
                    .filter(|g| g.language() == l.code)
                    .partition(|g| matches!(g, generator::content::TranslationGap::Missing { .. }));
                let (missing, outdated) = (missing.len(), outdated.len());
                println!(
                    "check: `{}` ({}): {missing} pages without a translation, {outdated} translations older than their page",
                    l.code, l.name
                );
            }
            let untranslated = if strict_translations { gaps.len() } else { 0 };
            let mut broken = generator::check::check_links(&out)?;
            // A link to a draft is broken in a published build: say so.
            for b in &mut broken {
                let path = b.target.split(['#', '?']).next().unwrap_or("");
                if let Some(draft) = loaded
                    .documents
                    .iter()
                    .find(|d| d.front.draft && d.url == path)
                {
                    b.reason = format!(
                        "a draft, {}: publish it or remove the link",
                        draft.source.display()
                    );
                }
            }
            for b in &broken {
                eprintln!("{b}");
            }
            let facts = generator::data_facts::claims::check(&out, &loaded)?;
            let false_claims = match &facts {
                generator::data_facts::claims::Outcome::Checked {
                    version,
                    claims,
                    false_claims,
                } => {
                    for c in false_claims {
                        eprintln!("{c}");
                    }
                    println!(
                        "check: {claims} statements about the data's countries held against snapshot {version}"
                    );
                    false_claims.len()
                }
                generator::data_facts::claims::Outcome::NoFacts { claims } => {
                    println!(
                        "check: the build publishes no snapshot naming its sites' countries, \
                         so {claims} statements about the data's countries were not verified"
                    );
                    0
                }
            };
            if broken.is_empty() && false_claims == 0 && untranslated == 0 {
                println!("check: content valid, every internal link and anchor resolves");
                Ok(ExitCode::SUCCESS)
            } else {
                if !broken.is_empty() {
                    eprintln!("check: {} broken links", broken.len());
                }
                if false_claims > 0 {
                    eprintln!("check: {false_claims} statements the data contradict");
                }
                if untranslated > 0 {
                    eprintln!(
                        "check: {untranslated} pages without an up-to-date translation (--strict-translations)"
                    );
                }
                Ok(ExitCode::from(1))
            }
        }
    }
}
