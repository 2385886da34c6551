//! A build kept in memory between rebuilds, for `generate serve`.
//!
//! The first build is a whole one, and the session keeps what it loaded and
//! derived (content, contract, templates, assets) and what each page was
//! rendered from (its [`Neighbours`]) and gave the search files. When only
//! Markdown documents changed, a rebuild reads just those files. If their
//! front matter is unchanged (a text-only edit), it renders just the edited
//! pages and remakes the parts of the search files that hold them (and
//! their heads); if front matter changed, it also renders the pages whose
//! neighbours changed (a section listing that shows the title, the pages
//! whose previous/next or breadcrumbs name it) and regenerates the files
//! that list every page (sitemap, feed, llms.txt, the fixed pages). It
//! publishes against the previous manifest, so only files whose bytes
//! changed are written and compressed. Any other change (a template, an
//! asset, a TOML file, a download, a document added or removed) makes a
//! whole build. Either way the folder ends as a whole build of the same
//! inputs would leave it, byte for byte (`generator/tests/incremental.rs`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::{
    BuildOptions, FixedEntries, Loaded, Neighbours, PageMemo, Prepared, Rendered, Summary,
    build_keeping, fixed_entries, listing_pages, neighbours, render_document, render_fixed_pages,
    siblings, substitute_origins,
};
use crate::content;
use crate::manifest::Manifest;
use crate::output::{self, ChunkMemo, ManifestJson, OutFile, Twins};
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
    /// The last manifest's JSON, entry by entry.
    json: ManifestJson,
}

struct Kept {
    prepared: Prepared,
    memo: Vec<PageMemo>,
    fixed: FixedEntries,
    /// The last build's manifest (shared with the summary given out: a
    /// rebuild copies it only while a summary is still held).
    manifest: Arc<Manifest>,
    /// A document's source file (canonical path) → its index.
    sources: HashMap<PathBuf, usize>,
    content_dir: PathBuf,
    /// `content/` and `templates/`, canonical.
    roots: [PathBuf; 2],
}

/// What each page is rendered from and gives the search files, and the
/// fixed pages' search entries.
fn memo_of(prepared: &Prepared) -> Result<(Vec<PageMemo>, FixedEntries)> {
    let site = prepared.site();
    let near = siblings(&site);
    let (_, mut fixed) = render_fixed_pages(&site, &prepared.renderer)?;
    fixed.extend(listing_pages(&site, &prepared.renderer)?.entries);
    let fixed = fixed_entries(fixed);
    let memo = prepared
        .content
        .documents
        .par_iter()
        .map(|d| {
            let neighbours = neighbours(&site, d, &near);
            render_document(&site, &prepared.renderer, d, &neighbours).map(|r| PageMemo {
                neighbours,
                entry: r.entry,
                passages: r.passages,
                browser: r.browser,
            })
        })
        .collect::<Result<_>>()?;
    Ok((memo, fixed))
}

impl Session {
    pub fn new(opts: BuildOptions) -> Self {
        Self {
            opts,
            kept: None,
            chunks: ChunkMemo::default(),
            json: ManifestJson::default(),
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
        self.json = ManifestJson::default();
        // Through the build of `generate build`: the first build of a
        // session takes its no-change shortcut and records its stamp.
        let (summary, kept) = build_keeping(&self.opts, Some(&self.chunks))?;
        let Loaded {
            prepared,
            memo,
            fixed,
        } = match kept {
            Some(kept) => kept,
            None => {
                // Nothing was rendered: what the pages were rendered from
                // is taken again.
                let prepared = Prepared::load(&self.opts)?;
                let (memo, fixed) = memo_of(&prepared)?;
                Loaded {
                    prepared,
                    memo,
                    fixed,
                }
            }
        };
        // An unchanged build did not read its manifest.
        let manifest = match &summary.manifest {
            Some(m) => Arc::clone(m),
            None => Arc::new(
                output::read_manifest(&self.opts.out)
                    .context("the unchanged build's manifest could not be read")?,
            ),
        };
        let roots = [&self.opts.content, &self.opts.templates]
            .map(|dir| std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone()));
        let content_dir = roots[0].clone();
        let trees = content::DOCUMENT_TREES.map(|(folder, _)| content_dir.join(folder));
        let sources = prepared
            .content
            .documents
            .iter()
            .enumerate()
            .filter_map(|(i, d)| Some((std::fs::canonicalize(&d.source).ok()?, i)))
            .filter(|(path, _)| trees.iter().any(|tree| path.starts_with(tree)))
            .collect();
        self.kept = Some(Kept {
            prepared,
            memo,
            fixed,
            manifest,
            sources,
            content_dir,
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
            let site = &kept.prepared.content.site;
            let mut d = content::load_document(&kept.content_dir, path.clone(), site)?;
            substitute_origins(&mut d.body, &kept.prepared.origins);
            // Keep the source as the whole build named it (error messages).
            d.source = kept.prepared.content.documents[*i].source.clone();
            reloaded.push((*i, d));
        }
        // Other pages and files show a document's front matter (its title,
        // summary, place, date, licence): when no edit changed it, only the
        // edited pages and the search files can change.
        let text_only = reloaded
            .iter()
            .all(|(i, d)| kept.prepared.content.documents[*i].front == d.front);
        let mut dirty = vec![false; kept.prepared.content.documents.len()];
        for (i, d) in reloaded {
            dirty[i] = true;
            kept.prepared.content.documents[i] = d;
        }
        let prepared = &kept.prepared;
        let site = prepared.site();
        let near = (!text_only).then(|| siblings(&site));
        let memo = &kept.memo;
        let rendered: Vec<Option<(usize, Rendered<OutFile>, Neighbours)>> = prepared
            .content
            .documents
            .par_iter()
            .enumerate()
            .map(|(i, d)| {
                let neighbours = match &near {
                    Some(near) => neighbours(&site, d, near),
                    None if dirty[i] => memo[i].neighbours.clone(),
                    None => return Ok(None),
                };
                if !dirty[i] && neighbours == memo[i].neighbours {
                    return Ok(None);
                }
                render_document(&site, &prepared.renderer, d, &neighbours)
                    .map(|r| Some((i, r, neighbours)))
            })
            .collect::<Result<_>>()?;
        let mut files = Vec::new();
        let mut again = HashSet::new();
        for (i, r, neighbours) in rendered.into_iter().flatten() {
            again.insert(prepared.content.documents[i].url.as_str());
            files.extend(r.files);
            kept.memo[i] = PageMemo {
                neighbours,
                entry: r.entry,
                passages: r.passages,
                browser: r.browser,
            };
        }
        let pages = again.len();
        // Only the parts of the search files that hold a page rendered again.
        let rendered_again = |url: &str| again.contains(url);
        if text_only {
            files.extend(prepared.search_files(&kept.memo, &kept.fixed, Some(&rendered_again)));
        } else {
            let (more, fixed) = prepared.whole_site_files(&site, false)?;
            files.extend(more);
            files.extend(prepared.search_since(&kept.memo, &fixed, &rendered_again, &kept.fixed));
            kept.fixed = fixed;
        }
        files.extend(site.images.files());
        drop(site);
        let cache = self.opts.cache.as_deref().map(TwinCache::new);
        let stats = output::republish(
            &self.opts.out,
            Arc::make_mut(&mut kept.manifest),
            files,
            Twins {
                precompress: self.opts.precompress,
                cache: cache.as_ref(),
                memo: Some(&self.chunks),
            },
            &mut self.json,
        )?;
        Ok(Rebuilt {
            summary: Summary {
                pages,
                unchanged: false,
                stats,
                seconds: started.elapsed().as_secs_f64(),
                manifest: Some(Arc::clone(&kept.manifest)),
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
