//! The Markdown documents of `content/docs/` and `content/pages/`: front
//! matter, the folder walk, URL-safe paths, and the listed files of the file
//! archive.

use super::dates::LastChanges;
use super::*;
use crate::walk;
use rayon::prelude::*;
use std::collections::HashMap;

/// Splits `+++` TOML front matter from a Markdown body.
pub fn split_front_matter(
    file: &Path,
    text: &str,
) -> Result<(FrontMatter, String, usize), ContentError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("+++\n")
        .or_else(|| text.strip_prefix("+++\r\n"))
    else {
        return Err(ContentError {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
            message: "expected front matter: a first line `+++`, TOML, then a line `+++`".into(),
        });
    };
    let end = rest
        .match_indices("+++")
        .find(|&(i, _)| {
            (i == 0 || rest.as_bytes()[i - 1] == b'\n') && {
                let after = &rest[i + 3..];
                after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n")
            }
        })
        .map(|(i, _)| i)
        .ok_or_else(|| ContentError {
            file: file.to_path_buf(),
            line: 1,
            column: 1,
            message: "front matter is not closed: expected a line `+++` after it".into(),
        })?;
    let toml_text = &rest[..end];
    let front: FrontMatter = parse_toml(file, toml_text, 1)?;
    if front.title.trim().is_empty() {
        return Err(error_at_value(
            file,
            text,
            "title",
            "title must not be empty",
        ));
    }
    let body_start = &rest[end + 3..];
    let body = body_start
        .strip_prefix("\r\n")
        .or_else(|| body_start.strip_prefix('\n'))
        .unwrap_or(body_start);
    let body_line = 2 + toml_text.matches('\n').count() + 1;
    Ok((front, body.to_owned(), body_line))
}

/// The regular files under `dir`, in name order, without hidden ones; an
/// absent `dir` holds none.
pub(super) fn files_under(dir: &Path) -> Result<Vec<PathBuf>, ContentError> {
    let mut out = Vec::new();
    for entry in walk::visible(dir, &[]) {
        match entry {
            Ok(entry) if entry.file_type().is_file() => out.push(entry.into_path()),
            Ok(_) => {}
            Err(f) if f.error.kind() == std::io::ErrorKind::NotFound => {}
            Err(f) => {
                return Err(ContentError::whole(
                    &f.path,
                    format!("cannot list: {}", f.error),
                ));
            }
        }
    }
    Ok(out)
}

pub(super) fn relative_slash(base: &Path, path: &Path) -> Result<String, ContentError> {
    let rel = path
        .strip_prefix(base)
        .map_err(|_| ContentError::whole(path, "file outside its content folder"))?;
    let mut parts = Vec::new();
    for part in rel.components() {
        let s = part.as_os_str().to_str().ok_or_else(|| {
            ContentError::whole(path, "file name is not UTF-8, expected a UTF-8 name")
        })?;
        parts.push(s.to_owned());
    }
    Ok(parts.join("/"))
}

pub(super) fn is_url_safe_segment(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.')
        })
}

/// The folders of `content/` that hold documents, and the site path each
/// publishes under: `docs/` under `/docs/`, `pages/` at the top of the site
/// (`pages/imprint.md` is `/imprint/`).
pub const DOCUMENT_TREES: [(&str, &str); 2] = [("docs", "/docs/"), ("pages", "/")];

/// First segments a page of `pages/` cannot take: folders the site's own
/// files and routes live in.
const RESERVED: [&str; 6] = ["docs", "files", "api", "assets", "search", "mcp"];

/// Every document of the trees of `content` (see [`DOCUMENT_TREES`]).
pub(super) fn load_documents(content: &Path, site: &Site) -> Result<Vec<Document>, ContentError> {
    // The git history is asked for on a thread of its own while the
    // documents are listed and read: its commands wait on other processes.
    let (loaded, history) = std::thread::scope(|scope| {
        let history = scope.spawn(|| LastChanges::of(content));
        (read_documents(content, site), history.join())
    });
    let mut docs = loaded?;
    if docs.iter().any(|d| d.front.updated.is_none()) {
        let history = history.unwrap_or_default();
        // A file system call or two for each document: in parallel.
        docs.par_iter_mut()
            .filter(|d| d.front.updated.is_none())
            .for_each(|d| d.front.updated = history.day(&d.source));
    }
    apply_slugs(&mut docs)?;
    docs.sort_by(|a, b| a.url.cmp(&b.url));
    for pair in docs.windows(2) {
        if pair[0].url == pair[1].url {
            return Err(ContentError::whole(
                &pair[1].source,
                format!(
                    "publishes at {} like {}, expected one document per URL",
                    pair[1].url,
                    pair[0].source.display()
                ),
            ));
        }
    }
    check_translations(&docs)?;
    check_aliases(&docs)?;
    check_tags(&docs)?;
    Ok(docs)
}

/// Translated slugs: a translation's URL takes, for itself and for each
/// page above it, the `slug` that page's translation into its language
/// gives (`/nl/docs/gegevens/statistieken/`); without one, the original's
/// segment.
fn apply_slugs(docs: &mut [Document]) -> Result<(), ContentError> {
    let mut slugs: HashMap<(String, String), String> = HashMap::new();
    for d in docs.iter() {
        let Some(slug) = &d.front.slug else { continue };
        let Some(t) = &d.translation else {
            return Err(ContentError::whole(
                &d.source,
                format!(
                    "slug `{slug}` on a page in the default language, whose address is its file's; \
                     expected `slug` only in a translation (rename the file to move the page)"
                ),
            ));
        };
        if !is_url_safe_segment(slug) || slug.contains('.') || t.of == "/" {
            return Err(ContentError::whole(
                &d.source,
                format!(
                    "slug `{slug}`: expected one URL segment of lowercase letters, digits, `-` and `_`, \
                     on a page below the site's root"
                ),
            ));
        }
        slugs.insert((t.language.clone(), t.of.clone()), slug.clone());
    }
    if slugs.is_empty() {
        return Ok(());
    }
    for d in docs.iter_mut() {
        let Some(t) = &d.translation else { continue };
        let mut url = format!("/{}/", t.language);
        let mut prefix = String::from("/");
        for segment in t.of.split('/').filter(|s| !s.is_empty()) {
            prefix.push_str(segment);
            prefix.push('/');
            let key = (t.language.clone(), prefix.clone());
            url.push_str(slugs.get(&key).map_or(segment, String::as_str));
            url.push('/');
        }
        d.out_dir = url.trim_start_matches('/').to_owned();
        d.url = url;
    }
    Ok(())
}

/// Each translation has its page in the default language.
fn check_translations(docs: &[Document]) -> Result<(), ContentError> {
    let originals: std::collections::HashSet<&str> = docs
        .iter()
        .filter(|d| d.translation.is_none())
        .map(|d| d.url.as_str())
        .collect();
    for d in docs {
        if let Some(t) = &d.translation
            && !originals.contains(t.of.as_str())
        {
            return Err(ContentError::whole(
                &d.source,
                format!(
                    "a translation into `{}` of the page at {}, which no document publishes; \
                     expected the page in the default language beside it (the same name without `.{}`)",
                    t.language, t.of, t.language
                ),
            ));
        }
    }
    Ok(())
}

/// Every document under the content folder's document trees, in path order.
fn read_documents(content: &Path, site: &Site) -> Result<Vec<Document>, ContentError> {
    let mut paths = Vec::new();
    for (folder, _) in DOCUMENT_TREES {
        paths.extend(files_under(&content.join(folder))?);
    }
    // Images beside the documents are no documents: the pages that show
    // them read them ([`crate::images`]).
    paths.retain(|p| !is_image_beside(p));
    paths.sort();
    // Read and parsed in parallel; the first error in path order is the
    // one reported, as a sequential load would.
    let loaded: Vec<Result<Document, ContentError>> = paths
        .into_par_iter()
        .with_max_len(1)
        .map(|path| read_document(content, path, site))
        .collect();
    loaded.into_iter().collect()
}

/// Whether `path` is an image a document may show, named as a URL
/// segment must be.
fn is_image_beside(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| crate::images::is_image(n) && is_url_safe_segment(n))
}

/// Every alias names a path of its own: not a document's URL, not another
/// alias (of the same or another document).
fn check_aliases(docs: &[Document]) -> Result<(), ContentError> {
    let pages: std::collections::HashMap<&str, &Document> =
        docs.iter().map(|d| (d.url.as_str(), d)).collect();
    let mut seen: std::collections::HashMap<&str, &Document> = std::collections::HashMap::new();
    for d in docs {
        for alias in &d.front.aliases {
            if let Some(page) = pages.get(alias.as_str()) {
                return Err(ContentError::whole(
                    &d.source,
                    format!(
                        "alias {alias} is the address of {}, expected an address no page has",
                        page.source.display()
                    ),
                ));
            }
            if let Some(other) = seen.insert(alias.as_str(), d) {
                return Err(ContentError::whole(
                    &d.source,
                    format!(
                        "alias {alias} is also an alias in {}, expected each alias once",
                        other.source.display()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// An alias as the path it is served at: a site path that starts with
/// `/`, with no empty, `.` or `..` segment, no query, fragment, backslash,
/// space or control character; a last segment without a dot gets a
/// trailing `/` (`/old/page` → `/old/page/`). `None` when it is not one.
pub fn alias_path(alias: &str) -> Option<String> {
    let rest = alias.strip_prefix('/')?;
    if alias
        .chars()
        .any(|c| c.is_whitespace() || c.is_control() || "?#\\%\"<>".contains(c))
    {
        return None;
    }
    let trimmed = rest.strip_suffix('/').unwrap_or(rest);
    if trimmed.is_empty() {
        return None;
    }
    if trimmed
        .split('/')
        .any(|seg| seg.is_empty() || seg == "." || seg == "..")
    {
        return None;
    }
    let last = trimmed.rsplit('/').next().unwrap_or(trimmed);
    Some(if rest.ends_with('/') || !last.contains('.') {
        format!("/{trimmed}/")
    } else {
        format!("/{trimmed}")
    })
}

/// One document of `content` (the content folder), read from `path` in
/// one of its [`DOCUMENT_TREES`]; without `updated` in its front matter,
/// the day its file last changed (see [`LastChanges`]).
pub fn load_document(content: &Path, path: PathBuf, site: &Site) -> Result<Document, ContentError> {
    let mut d = read_document(content, path, site)?;
    if d.front.updated.is_none() {
        let folder = d.source.parent().unwrap_or(content);
        d.front.updated = LastChanges::of(folder).day(&d.source);
    }
    Ok(d)
}

/// [`load_document`] without the last-change day.
fn read_document(content: &Path, path: PathBuf, site: &Site) -> Result<Document, ContentError> {
    let Some((folder, prefix)) = DOCUMENT_TREES
        .into_iter()
        .find(|(folder, _)| path.starts_with(content.join(folder)))
    else {
        return Err(ContentError::whole(
            &path,
            "document outside docs/ and pages/, expected it in one of them",
        ));
    };
    let rel = relative_slash(&content.join(folder), &path)?;
    let Some(stem) = rel.strip_suffix(".md") else {
        return Err(ContentError::whole(
            &path,
            format!(
                "unexpected file in {folder}/, expected Markdown (.md) documents and the images they show \
                 (.{}, named in lowercase letters, digits, `-`, `_` and `.`); put downloads in files/",
                crate::images::EXTENSIONS.join(", .")
            ),
        ));
    };
    let (stem, language) = split_language(&path, stem, site)?;
    let (segments, is_index) = match stem.strip_suffix("_index") {
        Some(prefix) => (prefix.trim_end_matches('/').to_owned(), true),
        None => (stem.to_owned(), false),
    };
    if !segments.is_empty() && !segments.split('/').all(is_url_safe_segment) {
        return Err(ContentError::whole(
            &path,
            "invalid document path, expected lowercase letters, digits, `-`, `_` and `.` in every folder and file name",
        ));
    }
    if prefix == "/" {
        let first = segments.split('/').next().unwrap_or("");
        if first.is_empty() {
            return Err(ContentError::whole(
                &path,
                "pages/_index.md would publish at /, the home page the build writes; \
                 expected pages in files or folders of their own, such as pages/imprint.md",
            ));
        }
        let a_language = site.languages.iter().any(|l| l.code == first);
        if RESERVED.contains(&first) || first.starts_with('.') || a_language {
            return Err(ContentError::whole(
                &path,
                format!(
                    "a page under pages/{first}/ would publish inside /{first}/, which the site \
                     uses for its own files; expected another name"
                ),
            ));
        }
    }
    let text = read(&path)?;
    let (mut front, body, body_line) = split_front_matter(&path, &text)?;
    front.aliases = front
        .aliases
        .iter()
        .map(|a| {
            alias_path(a).ok_or_else(|| {
                let at = text.find(&format!("\"{a}\"")).unwrap_or(0);
                ContentError::at(
                    &path,
                    &text,
                    at,
                    format!(
                        "alias `{a}` is not a site path, expected one that starts with / and has no \
                         `..`, `//`, `?`, `#`, `\\` or spaces, such as /old/page/"
                    ),
                )
            })
        })
        .collect::<Result<_, _>>()?;
    let original = if segments.is_empty() {
        prefix.to_owned()
    } else {
        format!("{prefix}{segments}/")
    };
    // A translation publishes under its language's folder.
    let (url, translation) = match language {
        Some(language) => (
            format!("/{language}{original}"),
            Some(Translation {
                language: language.to_owned(),
                of: original,
            }),
        ),
        None => (original, None),
    };
    let out_dir = url.trim_start_matches('/').to_owned();
    // The documentation's sections are its first folders; the top-level
    // pages are one group of their own.
    let section = if prefix == "/" {
        folder.to_owned()
    } else {
        segments.split('/').next().unwrap_or("").to_owned()
    };
    Ok(Document {
        file: Some(format!("{folder}/{rel}")),
        source: path,
        url,
        out_dir,
        section,
        is_index,
        front,
        body,
        body_line,
        translation,
    })
}

/// A document's stem (its path under its tree without `.md`) without the
/// language its file name ends with (`statistics.nl` is `statistics` in
/// `nl`), when it names one: the last `.`-part of the file name when it
/// looks like a language code. The language must be one `site.toml`
/// declares, and not the default one (whose pages carry no suffix).
fn split_language<'a>(
    path: &Path,
    stem: &'a str,
    site: &'a Site,
) -> Result<(&'a str, Option<&'a str>), ContentError> {
    let name_start = stem.rfind('/').map_or(0, |i| i + 1);
    let Some(dot) = stem[name_start..].rfind('.').map(|i| name_start + i) else {
        return Ok((stem, None));
    };
    let code = &stem[dot + 1..];
    if !super::is_language_code(code) {
        return Ok((stem, None));
    }
    if code == site.language {
        return Err(ContentError::whole(
            path,
            format!(
                "`.{code}` names the default language, whose pages carry no language in their \
                 file name; expected {}.md",
                &stem[name_start..dot]
            ),
        ));
    }
    match site.translations().find(|l| l.code == code) {
        Some(l) => Ok((&stem[..dot], Some(l.code.as_str()))),
        None => {
            let declared: Vec<&str> = site.translations().map(|l| l.code.as_str()).collect();
            Err(ContentError::whole(
                path,
                format!(
                    "a page in `{code}`, a language site.toml does not declare; expected one of its \
                     [[languages]] ({}) or a file name that does not end in `.{code}.md`",
                    if declared.is_empty() {
                        "none but the default".to_owned()
                    } else {
                        declared.join(", ")
                    }
                ),
            ))
        }
    }
}

pub(super) fn list_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, ContentError> {
    let paths = files_under(dir)?;
    let mut out = Vec::new();
    for path in paths {
        let rel = relative_slash(dir, &path)?;
        if !rel.split('/').all(is_url_safe_segment) {
            return Err(ContentError::whole(
                &path,
                "invalid file name, expected lowercase letters, digits, `-`, `_` and `.`",
            ));
        }
        out.push((rel, path));
    }
    out.sort();
    Ok(out)
}
