//! The passages, held compactly: at 10,000 pages the index holds about
//! 110,000 passages and 35 MB of their text, so a passage is not ten
//! `String`s of its own. Every passage's anchor, heading and text stand
//! back to back in one arena (a [`Span`] says where), and what the
//! passages of a page share (URL, title, section, licence, …) is held
//! once per page ([`Page`]). [`PassageRef`] is a passage read back, by
//! reference.
//!
//! The text itself is needed only to quote the few passages an answer
//! cites: a passage loaded from the build's files keeps, instead of its
//! text, where its JSON object stands in its part ([`TextSource`]), and is
//! read from there again when quoted (at 10,000 pages, 35 MB less held).

use std::borrow::Cow;
use std::sync::Arc;

use bytes::Bytes;
use contract::search::Passage;

/// A file the passages' text can be read from again: bytes of one part of
/// the build's passages.
pub trait TextSource: std::fmt::Debug + Send + Sync {
    fn read_range(&self, bytes: std::ops::Range<usize>) -> std::io::Result<Bytes>;
}

/// The passages, by number.
#[derive(Debug, Default)]
pub struct Passages {
    /// Every passage's anchor, heading and text, back to back.
    arena: String,
    spans: Vec<Span>,
    pages: Vec<Page>,
    /// The files located passages' text is read from.
    parts: Vec<Arc<dyn TextSource>>,
}

/// Where a passage's parts stand in the arena: the anchor from `start`,
/// the heading from `heading`, the text from `text` to `end` (empty when
/// `part` is not [`HELD`]: then `file` is where its JSON object stands in
/// that part).
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    heading: u32,
    text: u32,
    end: u32,
    page: u32,
    part: u32,
    file: (u32, u32),
}

/// [`Span::part`] of a passage whose text the arena holds.
const HELD: u32 = u32::MAX;

/// What the passages of one page share.
#[derive(Debug, PartialEq, Eq)]
struct Page {
    url: Box<str>,
    title: Box<str>,
    section: Box<str>,
    licence: Option<Box<str>>,
    attribution: Option<Box<str>>,
    historical: bool,
    reference: bool,
    developers: bool,
}

/// A passage, read back.
#[derive(Debug, Clone, Copy)]
pub struct PassageRef<'a> {
    /// The page's URL path, ending in `/`.
    pub url: &'a str,
    /// The heading's id on the page; empty before the first heading.
    pub anchor: &'a str,
    pub title: &'a str,
    pub heading: &'a str,
    pub section: &'a str,
    pub historical: bool,
    pub licence: Option<&'a str>,
    pub attribution: Option<&'a str>,
    pub reference: bool,
    /// Written for developers: quoted to a visitor only for a question in
    /// developers' words.
    pub developers: bool,
    text: Text<'a>,
}

/// Where a passage's text is.
#[derive(Debug, Clone, Copy)]
enum Text<'a> {
    Held(&'a str),
    /// The JSON object at `bytes` of `source`.
    Located {
        source: &'a Arc<dyn TextSource>,
        bytes: (u32, u32),
    },
}

impl<'a> PassageRef<'a> {
    /// The passage's text: held, or read again from its part (empty, and
    /// logged, if that fails: a quote goes missing, not the answer).
    pub fn text(&self) -> Cow<'a, str> {
        match self.text {
            Text::Held(text) => Cow::Borrowed(text),
            Text::Located { source, bytes } => {
                let range = bytes.0 as usize..bytes.1 as usize;
                let read = source.read_range(range).map_err(|e| e.to_string());
                let passage = read
                    .and_then(|b| serde_json::from_slice::<Passage>(&b).map_err(|e| e.to_string()));
                match passage {
                    Ok(p) => Cow::Owned(p.text),
                    Err(error) => {
                        tracing::error!(url = self.url, %error, "a passage's text could not be read");
                        Cow::Borrowed("")
                    }
                }
            }
        }
    }
}

impl Passages {
    /// A file located passages' text may be read from; its number.
    pub fn add_part(&mut self, source: Arc<dyn TextSource>) -> u32 {
        self.parts.push(source);
        (self.parts.len() - 1) as u32
    }

    /// Adds `p` as the next passage, its text held.
    pub fn push(&mut self, p: Passage) {
        self.add(p, None);
    }

    /// Adds `p` as the next passage, its text left at `bytes` of part
    /// `part` (its JSON object there).
    pub fn push_located(&mut self, p: Passage, part: u32, bytes: std::ops::Range<usize>) {
        self.add(p, Some((part, bytes)));
    }

    /// A passage that shares its page's fields with the one before shares
    /// their copy (the generator writes a page's passages one after the
    /// other).
    fn add(&mut self, p: Passage, located: Option<(u32, std::ops::Range<usize>)>) {
        let page = Page {
            url: p.url.into(),
            title: p.title.into(),
            section: p.section.into(),
            licence: p.licence.map(Into::into),
            attribution: p.attribution.map(Into::into),
            historical: p.historical,
            reference: p.reference,
            developers: p.developers,
        };
        if self.pages.last() != Some(&page) {
            self.pages.push(page);
        }
        let at = |arena: &String| u32::try_from(arena.len()).expect("passages under 4 GiB");
        let start = at(&self.arena);
        self.arena.push_str(&p.anchor);
        let heading = at(&self.arena);
        self.arena.push_str(&p.heading);
        let text = at(&self.arena);
        let (part, file) = match located {
            None => {
                self.arena.push_str(&p.text);
                (HELD, (0, 0))
            }
            Some((part, bytes)) => {
                let offset = |n: usize| u32::try_from(n).expect("parts under 4 GiB");
                (part, (offset(bytes.start), offset(bytes.end)))
            }
        };
        self.spans.push(Span {
            start,
            heading,
            text,
            end: at(&self.arena),
            page: (self.pages.len() - 1) as u32,
            part,
            file,
        });
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// About how many bytes of the heap the passages take.
    pub fn heap_bytes(&self) -> usize {
        let page = |p: &Page| {
            let opt = |o: &Option<Box<str>>| o.as_ref().map_or(0, |s| s.len());
            p.url.len() + p.title.len() + p.section.len() + opt(&p.licence) + opt(&p.attribution)
        };
        self.arena.capacity()
            + self.spans.capacity() * std::mem::size_of::<Span>()
            + self.pages.capacity() * std::mem::size_of::<Page>()
            + self.pages.iter().map(page).sum::<usize>()
    }

    /// Passage `i`.
    pub fn get(&self, i: usize) -> PassageRef<'_> {
        let s = self.spans[i];
        let page = &self.pages[s.page as usize];
        let slice = |from: u32, to: u32| &self.arena[from as usize..to as usize];
        PassageRef {
            url: &page.url,
            anchor: slice(s.start, s.heading),
            title: &page.title,
            heading: slice(s.heading, s.text),
            section: &page.section,
            historical: page.historical,
            licence: page.licence.as_deref(),
            attribution: page.attribution.as_deref(),
            reference: page.reference,
            developers: page.developers,
            text: match s.part {
                HELD => Text::Held(slice(s.text, s.end)),
                part => Text::Located {
                    source: &self.parts[part as usize],
                    bytes: s.file,
                },
            },
        }
    }

    /// Whether passages `a` and `b` belong to the same page (the same URL).
    pub fn same_url(&self, a: usize, b: usize) -> bool {
        let (pa, pb) = (self.spans[a].page, self.spans[b].page);
        pa == pb || self.pages[pa as usize].url == self.pages[pb as usize].url
    }

    /// Renumbers the passages in (URL, anchor) order, a stable sort;
    /// returns, per passage in the order pushed, its new number.
    pub fn sort(&mut self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.spans.len() as u32).collect();
        order.sort_by(|&a, &b| {
            let (a, b) = (self.get(a as usize), self.get(b as usize));
            a.url.cmp(b.url).then_with(|| a.anchor.cmp(b.anchor))
        });
        let mut number = vec![0u32; order.len()];
        for (id, &at) in order.iter().enumerate() {
            number[at as usize] = id as u32;
        }
        self.spans = order.iter().map(|&at| self.spans[at as usize]).collect();
        self.arena.shrink_to_fit();
        self.pages.shrink_to_fit();
        number
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(url: &str, anchor: &str, text: &str, historical: bool) -> Passage {
        Passage {
            url: url.into(),
            anchor: anchor.into(),
            title: format!("Title of {url}"),
            heading: anchor.to_uppercase(),
            section: "s".into(),
            historical,
            licence: historical.then(|| "CC BY-NC 4.0".into()),
            attribution: historical.then(|| "Someone".into()),
            reference: false,
            developers: false,
            language: None,
            text: text.into(),
        }
    }

    #[test]
    fn reads_back_what_was_pushed_and_shares_page_fields() {
        let mut store = Passages::default();
        let all = [
            passage("/b/", "", "before any heading", false),
            passage("/b/", "two", "second", false),
            passage("/a/", "one", "ünïcode text", true),
            passage("/b/", "", "a page seen again", false),
        ];
        for p in all.clone() {
            store.push(p);
        }
        assert_eq!(store.pages.len(), 3, "adjacent passages share a page");
        for (i, p) in all.iter().enumerate() {
            let got = store.get(i);
            assert_eq!(got.url, p.url);
            assert_eq!(got.anchor, p.anchor);
            assert_eq!(got.heading, p.heading);
            assert_eq!(got.text(), p.text);
            assert_eq!(got.title, p.title);
            assert_eq!(got.licence, p.licence.as_deref());
            assert_eq!(got.attribution, p.attribution.as_deref());
            assert_eq!(got.historical, p.historical);
        }
        assert!(store.same_url(0, 3));
        assert!(!store.same_url(0, 2));
        let number = store.sort();
        assert_eq!(
            number,
            vec![1, 3, 0, 2],
            "stable: /b/'s empty anchors keep their order"
        );
        let texts: Vec<String> = (0..store.len())
            .map(|i| store.get(i).text().into_owned())
            .collect();
        assert_eq!(
            texts,
            [
                "ünïcode text",
                "before any heading",
                "a page seen again",
                "second"
            ]
        );
    }

    /// A part's bytes in memory, read back as a file would be.
    #[derive(Debug)]
    struct Part(Bytes);

    impl TextSource for Part {
        fn read_range(&self, bytes: std::ops::Range<usize>) -> std::io::Result<Bytes> {
            self.0
                .get(bytes.clone())
                .map(|_| self.0.slice(bytes))
                .ok_or_else(|| std::io::Error::other("past the end"))
        }
    }

    #[test]
    fn located_text_is_read_from_its_part() {
        let p = passage("/a/", "one", "text \"quoted\" and ünïcode", false);
        let json = serde_json::to_string(&p).unwrap();
        let file = format!("{{\"passages\":[{json}]}}");
        let start = file.find(&json).unwrap();
        let mut store = Passages::default();
        let part = store.add_part(Arc::new(Part(Bytes::from(file.clone()))));
        store.push_located(p.clone(), part, start..start + json.len());
        store.push_located(p.clone(), part, 0..file.len() + 9);
        assert_eq!(store.get(0).text(), p.text);
        assert_eq!(store.get(0).heading, "ONE");
        assert_eq!(store.get(1).text(), "", "a read that fails quotes nothing");
        assert!(store.arena.len() < p.text.len(), "the text is not held");
    }
}
