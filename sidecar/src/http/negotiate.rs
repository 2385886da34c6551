//! `Accept-Encoding` negotiation between the identity bytes and the
//! precompressed `br` / `gzip` twins (RFC 9110 §12.5.3), and `Accept`
//! negotiation between a page's HTML and its Markdown twin (§12.5.1).
//!
//! Parsing runs on every static request, so it walks the header once without
//! allocating.

/// A content coding the server can answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Identity,
    Br,
    Gzip,
}

/// Chooses the coding for a representation that has the twins marked
/// available. The highest `q` wins; on a tie brotli wins (it is smaller).
/// Identity is the answer when no twin is acceptable — even when the client
/// refused identity, since a 406 helps nobody for a static page.
pub fn choose(accept_encoding: Option<&[u8]>, has_br: bool, has_gzip: bool) -> Coding {
    let Some(header) = accept_encoding else {
        return Coding::Identity;
    };
    if !has_br && !has_gzip {
        return Coding::Identity;
    }
    let (mut q_br, mut q_gzip, mut q_star) = (None, None, None);
    for item in header.split(|b| *b == b',') {
        let mut parts = item.split(|b| *b == b';');
        let name = trim(parts.next().unwrap_or_default());
        let mut q = 1000;
        for param in parts {
            let param = trim(param);
            if param.len() >= 2 && param[0].eq_ignore_ascii_case(&b'q') && param[1] == b'=' {
                q = parse_qvalue(trim(&param[2..]));
            }
        }
        if name.eq_ignore_ascii_case(b"br") {
            q_br = Some(q);
        } else if name.eq_ignore_ascii_case(b"gzip") || name.eq_ignore_ascii_case(b"x-gzip") {
            q_gzip = Some(q);
        } else if name == b"*" {
            q_star = Some(q);
        }
    }
    let br = if has_br {
        q_br.or(q_star).unwrap_or(0)
    } else {
        0
    };
    let gzip = if has_gzip {
        q_gzip.or(q_star).unwrap_or(0)
    } else {
        0
    };
    if br == 0 && gzip == 0 {
        Coding::Identity
    } else if br >= gzip {
        Coding::Br
    } else {
        Coding::Gzip
    }
}

/// Whether a page asked for with `accept` is answered with its Markdown
/// twin rather than its HTML (decision 0046): the header names
/// `text/markdown` itself with a q above 0, and no higher than the q it
/// gives HTML (by its most specific range: `text/html`, `text/*`, `*/*`).
/// A tie goes to Markdown only because it was named: `*/*` or `text/*`
/// alone is a browser or a generic client, answered with HTML. Media-type
/// parameters other than `q` are ignored; a range named twice counts with
/// its highest q.
pub fn prefers_markdown(accept: Option<&[u8]>) -> bool {
    let Some(header) = accept else {
        return false;
    };
    let (mut markdown, mut html, mut text, mut any) = (None, None, None, None);
    for item in header.split(|b| *b == b',') {
        let mut parts = item.split(|b| *b == b';');
        let range = trim(parts.next().unwrap_or_default());
        let slot = if range.eq_ignore_ascii_case(b"text/markdown") {
            &mut markdown
        } else if range.eq_ignore_ascii_case(b"text/html") {
            &mut html
        } else if range.eq_ignore_ascii_case(b"text/*") {
            &mut text
        } else if range == b"*/*" {
            &mut any
        } else {
            continue;
        };
        let q = parts.map(trim).fold(1000, |q, param| {
            if param.len() >= 2 && param[0].eq_ignore_ascii_case(&b'q') && param[1] == b'=' {
                parse_qvalue(trim(&param[2..]))
            } else {
                q
            }
        });
        *slot = Some(slot.map_or(q, |seen: u16| seen.max(q)));
    }
    let html = html.or(text).or(any).unwrap_or(0);
    markdown.is_some_and(|md| md > 0 && md >= html)
}

/// A qvalue in thousandths; anything malformed counts as 0 (not acceptable),
/// the cautious reading.
fn parse_qvalue(v: &[u8]) -> u16 {
    match v {
        [b'1'] | [b'1', b'.'] => 1000,
        [b'1', b'.', rest @ ..] if rest.len() <= 3 && rest.iter().all(|b| *b == b'0') => 1000,
        [b'0'] | [b'0', b'.'] => 0,
        [b'0', b'.', rest @ ..] if rest.len() <= 3 && rest.iter().all(u8::is_ascii_digit) => {
            let mut value = 0u16;
            for i in 0..3 {
                value = value * 10 + rest.get(i).map_or(0, |d| u16::from(d - b'0'));
            }
            value
        }
        _ => 0,
    }
}

fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if first.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if last.is_ascii_whitespace() {
            s = rest;
        } else {
            break;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(h: &str) -> Coding {
        choose(Some(h.as_bytes()), true, true)
    }

    #[test]
    fn browsers_get_brotli() {
        assert_eq!(pick("gzip, deflate, br, zstd"), Coding::Br);
        assert_eq!(pick("br"), Coding::Br);
        assert_eq!(pick("gzip"), Coding::Gzip);
        assert_eq!(pick("GZIP ; Q=1"), Coding::Gzip);
        assert_eq!(pick("x-gzip"), Coding::Gzip);
    }

    #[test]
    fn qvalues_rank_and_refuse() {
        assert_eq!(pick("br;q=0.5, gzip;q=0.8"), Coding::Gzip);
        assert_eq!(pick("br;q=0, gzip"), Coding::Gzip);
        assert_eq!(pick("br;q=0, gzip;q=0"), Coding::Identity);
        assert_eq!(pick("*"), Coding::Br);
        assert_eq!(pick("*;q=0.1, br;q=0"), Coding::Gzip);
        assert_eq!(pick("identity"), Coding::Identity);
        assert_eq!(pick(""), Coding::Identity);
        assert_eq!(pick("br;q=bogus, gzip;q=0.001"), Coding::Gzip);
        assert_eq!(pick("br;q=1.000"), Coding::Br);
        assert_eq!(pick("br;q=1.5"), Coding::Identity);
    }

    #[test]
    fn markdown_when_named_and_not_below_html() {
        let md = |h: &str| prefers_markdown(Some(h.as_bytes()));
        // Browsers, generic clients, no header: HTML.
        assert!(!md(
            "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        ));
        assert!(!md("*/*"));
        assert!(!md("text/*"));
        assert!(!md(""));
        assert!(!prefers_markdown(None));
        // Agents that name Markdown.
        assert!(md("text/markdown"));
        assert!(md("text/markdown, text/html;q=0.5"));
        assert!(md("text/markdown, text/html, */*"));
        assert!(md("text/markdown, text/plain;q=0.9, */*;q=0.8"));
        assert!(md("TEXT/Markdown ; charset=utf-8"));
        assert!(md("text/html;q=0.8, text/markdown;q=0.9"));
        assert!(md("text/markdown;q=0.5, text/plain"));
        // Refused, or below HTML by its most specific range.
        assert!(!md("text/markdown;q=0"));
        assert!(!md("text/markdown;q=0.000, text/html;q=0"));
        assert!(!md("text/markdown;q=0.5, text/html"));
        assert!(!md("text/markdown;q=0.5, text/*;q=0.6"));
        assert!(!md("text/markdown;q=0.5, */*"));
        assert!(
            md("text/markdown;q=0.5, text/html;q=0.1, */*"),
            "text/html is more specific"
        );
        assert!(!md("text/markdown;q=bogus"));
        assert!(
            md("text/markdown;q=0, text/markdown;q=0.3"),
            "the highest q"
        );
    }

    #[test]
    fn only_available_twins() {
        assert_eq!(choose(Some(b"br, gzip"), false, true), Coding::Gzip);
        assert_eq!(choose(Some(b"br"), false, true), Coding::Identity);
        assert_eq!(choose(Some(b"br, gzip"), false, false), Coding::Identity);
        assert_eq!(choose(None, true, true), Coding::Identity);
    }
}
