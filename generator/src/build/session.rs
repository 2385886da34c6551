//! A build kept in memory between rebuilds, for `generate serve`.
//!
//! The first build is a whole one, and the session keeps what it loaded
//! and derived (content, contract, templates, assets) and what each page
//! was rendered from (its [`Neighbours`]) and gave the search files. When
//! only Markdown documents changed, a rebuild reads just those files,
//! renders just the pages whose own source or neighbours changed (the
//! edited page, a section listing that shows its title, the pages whose
//! previous/next or breadcrumbs name it), regenerates the files that list
//! every page (search index and passages, sitemap, feed, llms.txt, the
//! fixed pages) and publishes all that against the previous manifest, so
//! only files whose bytes changed are written and compressed. Any other
//! change (a template, an asset, a TOML file, a download, a document added
//! or removed) makes a whole build. Either way the folder ends as a whole
//! build of the same inputs would leave it, byte for byte
//! (`generator/tests/incremental.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use rayon::prelude::*;

use super::{
    BuildOptions, PageMemo, Prepared, Rendered, Summary, build_keeping, neighbours,
    render_document, siblings, substitute_origins,
};
use crate::content;
use crate::manifest::Manifest;
use crate::output::{self, ChunkMemo, OutFile};
use crate::twin_cache::TwinCache;

/// What one rebuild did.
#[derive(Debug, Clone)]
pub struct Rebuilt {
    pub summary: Summary,
    /// Whether only what the changed documents touch was rendered.
    pub incremental: bool,
    /// The pages of the site (`summary.pages` were rendered).
    pub site_pages: usize,
}

impl Rebuilt {
    /// The one line printed after a rebuild.
    pub fn line(&self) -> String {
        if self.incremental {
            format!(
                "rebuilt {} of {} pages, {} files written, in {:.0} ms",
                self.summary.pages,
                self.site_pages,
                self.summary.stats.written,
                self.summary.seconds * 1000.0
            )
        } else {
            self.summary.line()
        }
    }
}

/// Builds into one output folder again and again, keeping the last build.
pub struct Session {
    opts: BuildOptions,
    kept: Option<Kept>,
    /// The chunks of the large files' twins of the last build.
    chunks: ChunkMemo,
}

struct Kept {
    prepared: Prepared,
    memo: Vec<PageMemo>,
    manifest: Manifest,
    /// A document's source file (canonical path) → its index.
    sources: HashMap<PathBuf, usize>,
    docs_dir: PathBuf,
    /// `content/` and `templates/`, canonical.
    roots: [PathBuf; 2],
}

/// What each page is rendered from and gives the search files.
fn memo_of(prepared: &Prepared) -> Result<Vec<PageMemo>> {
    let site = prepared.site();
    let near = siblings(&site);
    prepared
        .content
        .documents
        .par_iter()
        .map(|d| {
            let neighbours = neighbours(&site, d, &near);
            render_document(&site, &prepared.renderer, d, &neighbours).map(|r| PageMemo {
                neighbours,
                entry: r.entry,
                passages: r.passages,
            })
        })
        .collect()
}

impl Session {
    pub fn new(opts: BuildOptions) -> Self {
        Self {
            opts,
            kept: None,
            chunks: ChunkMemo::default(),
        }
    }

    /// Rebuilds after `changed` (the paths a watcher reported; none for the
    /// first build). A failed build keeps the last good one in the folder,
    /// and the next rebuild is a whole one.
    pub fn rebuild(&mut self, changed: &[PathBuf]) -> Result<Rebuilt> {
        let started = Instant::now();
        let edited = self.kept.as_ref().and_then(|k| k.edited(changed));
        self.chunks.begin();
        let outcome = match edited {
            Some(docs) => self.incremental(&docs, started),
            None => self.whole(),
        };
        self.chunks.sweep();
        if outcome.is_err() {
            self.kept = None;
        }
        outcome
    }

    fn whole(&mut self) -> Result<Rebuilt> {
        self.kept = None;
        // Through the build of `generate build`: the first build of a
        // session takes its no-change shortcut and records its stamp.
        let (summary, kept) = build_keeping(&self.opts, Some(&self.chunks))?;
        let (prepared, memo) = match kept {
            Some(kept) => kept,
            None => {
                // Nothing was rendered: what the pages were rendered from
                // is taken again.
                let prepared = Prepared::load(&self.opts)?;
                let memo = memo_of(&prepared)?;
                (prepared, memo)
            }
        };
        let roots = [&self.opts.content, &self.opts.templates]
            .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()));
        let docs_dir = roots[0].join("docs");
        let sources = prepared
            .content
            .documents
            .iter()
            .enumerate()
            .filter_map(|(i, d)| Some((std::fs::canonicalize(&d.source).ok()?, i)))
            .filter(|(path, _)| path.starts_with(&docs_dir))
            .collect();
        self.kept = Some(Kept {
            prepared,
            memo,
            manifest: summary.manifest.clone(),
            sources,
            docs_dir,
            roots,
        });
        let site_pages = self.kept.as_ref().map_or(0, |k| k.prepared.page_count());
        Ok(Rebuilt {
            summary,
            incremental: false,
            site_pages,
        })
    }

    fn incremental(&mut self, edited: &[(usize, PathBuf)], started: Instant) -> Result<Rebuilt> {
        let kept = self
            .kept
            .as_mut()
            .expect("an incremental rebuild follows a build");
        let mut reloaded = Vec::with_capacity(edited.len());
        for (i, path) in edited {
            let mut d = content::load_document(&kept.docs_dir, path.clone())?;
            substitute_origins(&mut d.body, &kept.prepared.origins);
            // Keep the source as the whole build named it (error messages).
            d.source = kept.prepared.content.documents[*i].source.clone();
            reloaded.push((*i, d));
        }
        // Other pages show a document's title, summary and place (weight):
        // when no edit changed those, only the edited pages can change.
        let others_unchanged = reloaded.iter().all(|(i, d)| {
            let old = &kept.prepared.content.documents[*i].front;
            (&old.title, &old.summary, old.weight)
                == (&d.front.title, &d.front.summary, d.front.weight)
        });
        let mut dirty = vec![false; kept.prepared.content.documents.len()];
        for (i, d) in reloaded {
            dirty[i] = true;
            kept.prepared.content.documents[i] = d;
        }
        let prepared = &kept.prepared;
        let site = prepared.site();
        let near = siblings(&site);
        let memo = &kept.memo;
        let rendered: Vec<Option<(usize, Rendered<OutFile>, _)>> = prepared
            .content
            .documents
            .par_iter()
            .enumerate()
            .map(|(i, d)| {
                if others_unchanged && !dirty[i] {
                    return Ok(None);
                }
                let neighbours = neighbours(&site, d, &near);
                if !dirty[i] && neighbours == memo[i].neighbours {
                    return Ok(None);
                }
                render_document(&site, &prepared.renderer, d, &neighbours)
                    .map(|r| Some((i, r, neighbours)))
            })
            .collect::<Result<_>>()?;
        let mut files = Vec::new();
        let mut pages = 0;
        for (i, r, neighbours) in rendered.into_iter().flatten() {
            pages += 1;
            files.extend(r.files);
            kept.memo[i] = PageMemo {
                neighbours,
                entry: r.entry,
                passages: r.passages,
            };
        }
        files.extend(prepared.whole_site_files(&site, &kept.memo, false)?);
        drop(site);
        let cache = self.opts.cache.as_deref().map(TwinCache::new);
        let stats = output::republish(
            &self.opts.out,
            &mut kept.manifest,
            files,
            cache.as_ref(),
            &self.chunks,
        )?;
        Ok(Rebuilt {
            summary: Summary {
                pages,
                unchanged: false,
                stats,
                seconds: started.elapsed().as_secs_f64(),
                manifest: kept.manifest.clone(),
            },
            incremental: true,
            site_pages: kept.prepared.page_count(),
        })
    }
}

impl Kept {
    /// The documents `changed` edited, when nothing else changed: each
    /// path an existing document's source. A file or folder whose name
    /// starts with `.` under `content/` or `templates/` (which the build
    /// skips, such as an editor's swap file) does not count. `None` asks
    /// for a whole build.
    fn edited(&self, changed: &[PathBuf]) -> Option<Vec<(usize, PathBuf)>> {
        let mut edited: Vec<(usize, PathBuf)> = Vec::new();
        for path in changed {
            if self.hidden(path) {
                continue;
            }
            let canonical = std::fs::canonicalize(path).ok()?;
            let i = *self.sources.get(&canonical)?;
            if !edited.iter().any(|(j, _)| *j == i) {
                edited.push((i, canonical));
            }
        }
        Some(edited)
    }

    fn hidden(&self, path: &Path) -> bool {
        let canonical_dir = path
            .parent()
            .and_then(|p| std::fs::canonicalize(p).ok())
            .zip(path.file_name())
            .map(|(dir, name)| dir.join(name));
        let inside = canonical_dir
            .as_deref()
            .and_then(|p| self.roots.iter().find_map(|r| p.strip_prefix(r).ok()));
        match inside {
            Some(rel) => rel
                .components()
                .any(|c| c.as_os_str().to_string_lossy().starts_with('.')),
            None => path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.')),
        }
    }
}
