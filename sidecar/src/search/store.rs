//! The passages, held compactly: at 10,000 pages the index holds about
//! 110,000 passages and 35 MB of their text, so a passage is not ten
//! `String`s of its own. Every passage's anchor, heading and text stand
//! back to back in one arena (a [`Span`] says where), and what the
//! passages of a page share (URL, title, section, licence, …) is held
//! once per page ([`Page`]). [`PassageRef`] is a passage read back, by
//! reference.

use contract::search::Passage;

/// The passages, by number.
#[derive(Debug, Default)]
pub struct Passages {
    /// Every passage's anchor, heading and text, back to back.
    arena: String,
    spans: Vec<Span>,
    pages: Vec<Page>,
}

/// Where a passage's parts stand in the arena: the anchor from `start`,
/// the heading from `heading`, the text from `text` to `end`.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: u32,
    heading: u32,
    text: u32,
    end: u32,
    page: u32,
}

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
}

/// A passage, read back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    pub text: &'a str,
}

impl Passages {
    /// Adds `p` as the next passage. A passage that shares its page's
    /// fields with the one before shares their copy (the generator writes
    /// a page's passages one after the other).
    pub fn push(&mut self, p: Passage) {
        let page = Page {
            url: p.url.into(),
            title: p.title.into(),
            section: p.section.into(),
            licence: p.licence.map(Into::into),
            attribution: p.attribution.map(Into::into),
            historical: p.historical,
            reference: p.reference,
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
        self.arena.push_str(&p.text);
        self.spans.push(Span {
            start,
            heading,
            text,
            end: at(&self.arena),
            page: (self.pages.len() - 1) as u32,
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
            text: slice(s.text, s.end),
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
            assert_eq!(got.text, p.text);
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
        let texts: Vec<&str> = (0..store.len()).map(|i| store.get(i).text).collect();
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
}
