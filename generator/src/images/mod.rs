//! The images a document shows: `![alt](kit.png)` beside its Markdown file
//! (or `/files/…` of the file archive) becomes an `<img>` that knows its
//! size, offers narrower copies and, for a PNG, WebP where smaller.
//!
//! Each source file is read and encoded once per build, whichever pages
//! show it and however many render at once ([`Images`] keeps the work);
//! the copies get names from the source's hash under `assets/images/`, so
//! they are cached for good like the other assets. Every image of the
//! Markdown needs a text alternative: an empty one is an error unless the
//! image says it is decorative (title `"decorative"`). See
//! `docs/decisions/0044-images.md`.

mod raster;
mod svg;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Result, anyhow};
use sha2::{Digest, Sha256};

use crate::content::Document;
use crate::markdown::{self, ImageAt, ImageHtml, Rendered};
use crate::output::OutFile;

/// Where the copies are published, under the assets' immutable folder.
pub const FOLDER: &str = "assets/images/";

/// The title that marks an image without alt text as decorative.
pub const DECORATIVE: &str = "decorative";

/// The extensions of image files a document folder may hold.
pub const EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "webp", "svg"];

/// Whether `name` is an image file a document may show.
pub fn is_image(name: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(_, ext)| EXTENSIONS.contains(&ext))
}

/// A source image made ready: its size and published copies.
#[derive(Debug)]
struct Prepared {
    width: u32,
    height: u32,
    /// The copies in the source's format, narrowest first, as
    /// (site path, width); the last is the full width.
    copies: Vec<(String, u32)>,
    /// The same widths in WebP, or none.
    webp: Vec<(String, u32)>,
    /// The files to publish (paths relative to `dist/`).
    files: Vec<(String, Arc<Vec<u8>>)>,
    /// The file as published under its own name beside the page (an SVG
    /// sanitised), for the Markdown twin and a shared link's card.
    original: Arc<Vec<u8>>,
}

type Slot = Arc<OnceLock<Result<Arc<Prepared>, String>>>;

/// The images of one build: each source prepared at most once, and every
/// file to publish.
pub struct Images {
    /// The files of `content/files/` by path under it.
    files: HashMap<String, PathBuf>,
    prepared: Mutex<HashMap<PathBuf, Slot>>,
    /// The copies beside the pages: path under `dist/` → bytes.
    beside: Mutex<BTreeMap<String, Arc<Vec<u8>>>>,
}

impl Images {
    /// The images of a build whose `content/files/` holds `files` (path
    /// under it, source path).
    pub fn new(files: &[(String, PathBuf)]) -> Self {
        Self {
            files: files.iter().cloned().collect(),
            prepared: Mutex::new(HashMap::new()),
            beside: Mutex::new(BTreeMap::new()),
        }
    }

    /// Renders `body`, the Markdown of `d` (as written, or with the same
    /// lines), with its images; an image without alt text, a missing file
    /// or one that cannot be read is an error naming the document's file
    /// and the image's line.
    pub fn render(&self, d: &Document, body: &str) -> Result<Rendered> {
        let mut shown = 0usize;
        markdown::render_with(body, &mut |img: ImageAt<'_>| {
            let line = d.body_line + body[..img.offset].matches('\n').count();
            let at = || format!("{}:{line}", d.source.display());
            let html = self
                .markup(d, &img, shown)
                .map_err(|e| anyhow!("{}: image {}: {e}", at(), img.src))?;
            shown += 1;
            Ok(Some(html))
        })
    }

    /// Every file the rendered pages need, in path order.
    pub fn files(&self) -> Vec<OutFile> {
        let mut out: BTreeMap<String, Arc<Vec<u8>>> = self
            .beside
            .lock()
            .expect("no panic while holding the lock")
            .clone();
        let prepared = self.prepared.lock().expect("no panic holding the lock");
        for slot in prepared.values() {
            if let Some(Ok(p)) = slot.get() {
                out.extend(p.files.iter().cloned());
            }
        }
        out.into_iter()
            .map(|(path, bytes)| OutFile {
                path,
                bytes: bytes.as_ref().clone(),
            })
            .collect()
    }

    /// The HTML of one image, the `index`-th of its page.
    fn markup(&self, d: &Document, img: &ImageAt<'_>, index: usize) -> Result<ImageHtml, String> {
        let decorative = img.title == DECORATIVE;
        if img.alt.trim().is_empty() && !decorative {
            return Err(format!(
                "no alt text; describe the image in the brackets, ![what it shows]({}), or mark \
                 it decorative with an empty alt and the title \"{DECORATIVE}\": ![]({} \"{DECORATIVE}\")",
                img.src, img.src
            ));
        }
        let alt = if decorative { "" } else { img.alt.trim() };
        let caption = (!decorative && !img.title.is_empty()).then_some(img.title);
        let lazy = index > 0;
        let source = self.source(d, img.src)?;
        let tag = match &source {
            Some((path, beside)) => {
                let p = self.prepare(path)?;
                if let Some(beside) = beside {
                    self.beside
                        .lock()
                        .expect("no panic holding the lock")
                        .insert(beside.clone(), Arc::clone(&p.original));
                }
                picture(&p, alt, caption.is_none().then_some(img.title), lazy)
            }
            None => plain(img.src, alt, caption.is_none().then_some(img.title), lazy),
        };
        Ok(match caption {
            Some(text) if img.alone => ImageHtml {
                html: format!(
                    "<figure>{tag}<figcaption>{}</figcaption></figure>\n",
                    escape(text)
                ),
                block: true,
            },
            _ => ImageHtml {
                html: tag,
                block: false,
            },
        })
    }

    /// The file an image names and where its copy beside the page goes:
    /// `None` for a URL the build leaves alone (another site's, a data
    /// URL, a site path outside `/files/`).
    fn source(&self, d: &Document, src: &str) -> Result<Option<(PathBuf, Option<String>)>, String> {
        if let Some(rel) = src.strip_prefix("/files/") {
            let path = self
                .files
                .get(rel)
                .ok_or("no such file in content/files/")?;
            return Ok(is_image(rel).then(|| (path.clone(), None)));
        }
        if src.starts_with('/') || src.contains(':') || src.is_empty() {
            return Ok(None);
        }
        let rel = src.trim_start_matches("./");
        if rel.contains(['?', '#', '\\']) || rel.split('/').any(|s| s.is_empty() || s == "..") {
            return Err(
                "expected a path to a file beside the document or in a folder below it, without `..`, `?` or `#`"
                    .into(),
            );
        }
        if !is_image(rel) {
            return Err(format!(
                "not an image this build reads, expected one of .{}",
                EXTENSIONS.join(", .")
            ));
        }
        let folder = d.source.parent().unwrap_or(Path::new("."));
        let path = folder.join(rel);
        if !path.is_file() {
            return Err(format!("no file {} beside {}", rel, d.source.display()));
        }
        Ok(Some((path, Some(format!("{}{rel}", d.out_dir)))))
    }

    /// The prepared image of `path`, prepared now unless another page did.
    fn prepare(&self, path: &Path) -> Result<Arc<Prepared>, String> {
        let slot = Arc::clone(
            self.prepared
                .lock()
                .expect("no panic holding the lock")
                .entry(path.to_path_buf())
                .or_default(),
        );
        slot.get_or_init(|| prepare(path).map(Arc::new)).clone()
    }
}

/// Reads and encodes one source image.
fn prepare(path: &Path) -> Result<Prepared, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or("file name is not UTF-8")?;
    let (stem, ext) = name.rsplit_once('.').ok_or("no extension")?;
    let hash = hex::encode(&Sha256::digest(&bytes)[..8]);
    let url = |width: Option<u32>, ext: &str| match width {
        Some(w) => format!("{FOLDER}{stem}.{hash}-{w}w.{ext}"),
        None => format!("{FOLDER}{stem}.{hash}.{ext}"),
    };
    if ext == "svg" {
        let svg = svg::sanitise(&bytes)?;
        let bytes = Arc::new(svg.bytes);
        let path = url(None, ext);
        return Ok(Prepared {
            width: svg.width,
            height: svg.height,
            copies: vec![(format!("/{path}"), svg.width)],
            webp: Vec::new(),
            files: vec![(path, Arc::clone(&bytes))],
            original: bytes,
        });
    }
    let format = raster::format(ext).ok_or("not an image this build reads")?;
    let p = raster::picture(&bytes, format)?;
    let mut files = Vec::new();
    let mut named = |copies: Vec<raster::Copy>, ext: &str| {
        copies
            .into_iter()
            .map(|c| {
                let path = url((c.width != p.width).then_some(c.width), ext);
                files.push((path.clone(), Arc::new(c.bytes)));
                (format!("/{path}"), c.width)
            })
            .collect::<Vec<_>>()
    };
    let copies = named(p.copies, ext);
    let webp = named(p.webp, "webp");
    Ok(Prepared {
        width: p.width,
        height: p.height,
        copies,
        webp,
        files,
        original: Arc::new(bytes),
    })
}

/// `<img>` (in a `<picture>` with a WebP source when there is one) for a
/// prepared image.
fn picture(p: &Prepared, alt: &str, title: Option<&str>, lazy: bool) -> String {
    let (src, _) = p.copies.last().expect("at least the full width");
    let srcset = |copies: &[(String, u32)]| {
        copies
            .iter()
            .map(|(url, w)| format!("{url} {w}w"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    // Full width up to the picture's own width, never wider.
    let sizes = format!("(max-width: {w}px) 100vw, {w}px", w = p.width);
    let mut img = format!("<img src=\"{}\"", escape(src));
    if p.copies.len() > 1 {
        img.push_str(&format!(
            " srcset=\"{}\" sizes=\"{sizes}\"",
            escape(&srcset(&p.copies))
        ));
    }
    img.push_str(&format!(" width=\"{}\" height=\"{}\"", p.width, p.height));
    img.push_str(&attributes(alt, title, lazy));
    if p.webp.is_empty() {
        img
    } else {
        format!(
            "<picture><source type=\"image/webp\" srcset=\"{}\" sizes=\"{sizes}\">{img}</picture>",
            escape(&srcset(&p.webp))
        )
    }
}

/// `<img>` for an image the build does not read.
fn plain(src: &str, alt: &str, title: Option<&str>, lazy: bool) -> String {
    format!(
        "<img src=\"{}\"{}",
        escape(src),
        attributes(alt, title, lazy)
    )
}

/// The attributes every image ends with, and its end.
fn attributes(alt: &str, title: Option<&str>, lazy: bool) -> String {
    let mut s = format!(" alt=\"{}\"", escape(alt));
    if let Some(t) = title.filter(|t| !t.is_empty() && *t != DECORATIVE) {
        s.push_str(&format!(" title=\"{}\"", escape(t)));
    }
    // The first image is likely in view when the page opens.
    if lazy {
        s.push_str(" loading=\"lazy\"");
    }
    s.push_str(" decoding=\"async\">");
    s
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_names() {
        assert!(is_image("kit.png") && is_image("a/b.svg") && is_image("x.jpeg"));
        assert!(!is_image("notes.txt") && !is_image("png") && !is_image("x.gif"));
    }

    #[test]
    fn attributes_escape_and_mark_lazy() {
        assert_eq!(
            plain(
                "https://e.org/a.png?a=1&b=2",
                "A \"quoted\" <b>",
                None,
                true
            ),
            "<img src=\"https://e.org/a.png?a=1&amp;b=2\" alt=\"A &quot;quoted&quot; &lt;b&gt;\" loading=\"lazy\" decoding=\"async\">"
        );
        assert_eq!(
            plain("/x.png", "", Some(DECORATIVE), false),
            "<img src=\"/x.png\" alt=\"\" decoding=\"async\">"
        );
    }
}
