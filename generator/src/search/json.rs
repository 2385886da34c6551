//! The search files' long texts written as JSON string literals, byte for
//! byte as `serde_json` writes them, eight bytes at a time where nothing
//! needs escaping (nearly everywhere in prose). `serde_json` looks at each
//! byte in turn: the index and the passages hold every page's text twice,
//! and escaping it was the largest single cost of making them.

use crate::eight;

/// Appends `s` as a JSON string literal: `"` and `\` escaped with a
/// backslash, the control characters as `\b`, `\t`, `\n`, `\f`, `\r` or
/// `\u00xx`, everything else as it is.
pub fn push_literal(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let (mut clean, mut i) = (0, 0);
    loop {
        i = eight::skip_clean(b, i, any_to_escape);
        let Some(&byte) = b.get(i) else { break };
        if let Some(escaped) = escape(byte) {
            out.extend_from_slice(&b[clean..i]);
            out.extend_from_slice(&escaped.bytes[..escaped.len]);
            clean = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&b[clean..]);
    out.push(b'"');
}

/// Whether any of the eight bytes of `word` is a control character, `"`
/// or `\` (a byte from 0x80 up is none of them).
fn any_to_escape(word: u64) -> bool {
    eight::has_below(word, 0x20) | eight::has_byte(word, b'"') | eight::has_byte(word, b'\\')
}

/// An escape sequence of at most six bytes.
struct Escaped {
    bytes: [u8; 6],
    len: usize,
}

/// How `serde_json` escapes byte `b`; `None` when it writes it as it is.
fn escape(b: u8) -> Option<Escaped> {
    let short = |c: u8| Escaped {
        bytes: [b'\\', c, 0, 0, 0, 0],
        len: 2,
    };
    const HEX: &[u8; 16] = b"0123456789abcdef";
    Some(match b {
        b'"' => short(b'"'),
        b'\\' => short(b'\\'),
        0x08 => short(b'b'),
        0x09 => short(b't'),
        0x0a => short(b'n'),
        0x0c => short(b'f'),
        0x0d => short(b'r'),
        0x00..=0x1f => Escaped {
            bytes: [
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ],
            len: 6,
        },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(s: &str) -> String {
        let mut out = Vec::new();
        push_literal(&mut out, s);
        String::from_utf8(out).expect("UTF-8 in, UTF-8 out")
    }

    #[test]
    fn every_ascii_character_is_written_as_serde_json_writes_it() {
        for b in 0u8..128 {
            let c = char::from(b);
            // Alone, and at each place of an eight-byte run.
            let mut cases = vec![c.to_string()];
            for at in 0..17 {
                let mut s: String = "abcdefghijklmnopq".chars().take(17).collect();
                s.replace_range(at..=at, &c.to_string());
                cases.push(s);
            }
            for s in cases {
                assert_eq!(ours(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
            }
        }
    }

    #[test]
    fn text_is_written_as_serde_json_writes_it() {
        for s in [
            "",
            "plain words",
            "Qualité de l'eau — \"quoted\" and back\\slash\nnew line\ttab\r\u{1}\u{1f}\u{7f}",
            "élan vital, ünïcödé, 水 and 🌊 between\nlines of a passage",
            "\"\"\"\"\"\"\"\"\\\\\\\\\\\\\\\\\n\n\n\n\n\n\n\n",
        ] {
            assert_eq!(ours(s), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }
}
