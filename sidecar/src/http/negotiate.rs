//! `Accept-Encoding` negotiation between the identity bytes and the
//! precompressed `br` / `gzip` twins (RFC 9110 §12.5.3).
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
    fn only_available_twins() {
        assert_eq!(choose(Some(b"br, gzip"), false, true), Coding::Gzip);
        assert_eq!(choose(Some(b"br"), false, true), Coding::Identity);
        assert_eq!(choose(Some(b"br, gzip"), false, false), Coding::Identity);
        assert_eq!(choose(None, true, true), Coding::Identity);
    }
}
