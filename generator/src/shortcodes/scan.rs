//! Finding the calls in a body: `{{ name(key=value, …) }}` and
//! `{% name(key=value, …) %}…{% end %}`, outside fenced code blocks and
//! code spans. Arguments are named; a value is a string (`"…"` or `'…'`,
//! with `\` escaping the next character and `\n`, `\t`), a number, `true`,
//! `false` or a list of values in `[…]`.

use std::collections::BTreeMap;

use minijinja::Value;

use super::{Call, Source};
use crate::content::ContentError;

/// Where a `{% end %}` stopped a scan: its start and the offset after it.
type Stop = Option<(usize, usize)>;

/// The calls of `src.text[start..end]` in order, and where a `{% end %}`
/// stops the scan (the end of an enclosing call's body), if one does.
pub(super) fn scan(
    src: Source<'_>,
    start: usize,
    end: usize,
) -> Result<(Vec<Call>, Stop), ContentError> {
    let text = src.text;
    // Every call and every `{% end %}` opens with `{{` or `{%`: a text with
    // neither (most pages) has nothing to find.
    if !text[start..end].contains("{{") && !text[start..end].contains("{%") {
        return Ok((Vec::new(), None));
    }
    let b = text.as_bytes();
    let mut calls = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut pos = start;
    while pos < end {
        let mut line_end = line_end_of(text, pos, end);
        let line = &text[pos..line_end];
        if let Some((ch, n)) = fence_of(line) {
            match fence {
                None => fence = Some((ch, n)),
                Some((c, m)) if c == ch && n >= m && closes(line, ch) => fence = None,
                _ => {}
            }
            pos = line_end + 1;
            continue;
        }
        if fence.is_some() {
            pos = line_end + 1;
            continue;
        }
        let mut i = pos;
        while i < line_end {
            match b[i] {
                b'`' => {
                    let n = run(b, i, end, b'`');
                    i = match closing_ticks(b, i + n, n, end) {
                        Some(j) => j + n,
                        None => i + n,
                    };
                }
                b'{' if i + 1 < end && matches!(b[i + 1], b'{' | b'%') => {
                    match parse_call(src, i, end)? {
                        Parsed::Call(call) => {
                            i = call.end;
                            calls.push(call);
                        }
                        Parsed::End(after) => return Ok((calls, Some((i, after)))),
                        Parsed::Text => i += 2,
                    }
                }
                _ => i += 1,
            }
            if i > line_end {
                line_end = line_end_of(text, i, end);
            }
        }
        pos = line_end + 1;
    }
    Ok((calls, None))
}

enum Parsed {
    Call(Call),
    /// `{% end %}`, and the offset after it.
    End(usize),
    /// Braces that start no call.
    Text,
}

/// The offset of the line break ending the line at `pos` (or `end`).
fn line_end_of(text: &str, pos: usize, end: usize) -> usize {
    text[pos..end].find('\n').map_or(end, |p| pos + p)
}

/// A fence's character and length when `line` opens or closes one.
fn fence_of(line: &str) -> Option<(u8, usize)> {
    let t = line.trim_start().as_bytes();
    let ch = *t.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let n = t.iter().take_while(|&&c| c == ch).count();
    (n >= 3).then_some((ch, n))
}

/// Whether a fence line has nothing after its fence characters.
fn closes(line: &str, ch: u8) -> bool {
    line.trim_start()
        .trim_start_matches(ch as char)
        .trim()
        .is_empty()
}

fn run(b: &[u8], i: usize, end: usize, c: u8) -> usize {
    b[i..end].iter().take_while(|&&x| x == c).count()
}

/// The start of the next run of exactly `n` backticks from `from`, within
/// the paragraph (a blank line ends the search).
fn closing_ticks(b: &[u8], from: usize, n: usize, end: usize) -> Option<usize> {
    let mut j = from;
    while j < end {
        match b[j] {
            b'`' => {
                let m = run(b, j, end, b'`');
                if m == n {
                    return Some(j);
                }
                j += m;
            }
            b'\n' => {
                let rest = &b[j + 1..end];
                let next = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                if rest[..next].iter().all(|c| c.is_ascii_whitespace()) {
                    return None;
                }
                j += 1;
            }
            _ => j += 1,
        }
    }
    None
}

fn skip_ws(b: &[u8], mut j: usize, end: usize) -> usize {
    while j < end && matches!(b[j], b' ' | b'\t' | b'\n' | b'\r') {
        j += 1;
    }
    j
}

fn ident_end(b: &[u8], mut j: usize, end: usize) -> usize {
    if j < end && b[j].is_ascii_digit() {
        return j;
    }
    while j < end && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
        j += 1;
    }
    j
}

/// What starts at `i` (`{{` or `{%`).
fn parse_call(src: Source<'_>, i: usize, end: usize) -> Result<Parsed, ContentError> {
    let text = src.text;
    let b = text.as_bytes();
    let block_form = b[i + 1] == b'%';
    let name_start = skip_ws(b, i + 2, end);
    let name_end = ident_end(b, name_start, end);
    if name_end == name_start {
        return Ok(Parsed::Text);
    }
    let name = &text[name_start..name_end];
    let k = skip_ws(b, name_end, end);
    if block_form && name == "end" {
        return Ok(if text[k..end].starts_with("%}") {
            Parsed::End(k + 2)
        } else {
            Parsed::Text
        });
    }
    if k >= end || b[k] != b'(' {
        return Ok(Parsed::Text);
    }
    let (args, after) = parse_args(src, k, end)?;
    let m = skip_ws(b, after, end);
    let close = if block_form { "%}" } else { "}}" };
    if !text[m..end].starts_with(close) {
        return Err(src.error(
            m,
            format!("expected `{close}` to end the call of shortcode `{name}`"),
        ));
    }
    let mut call_end = m + 2;
    let body = if block_form {
        let body_start = call_end;
        let (_, stop) = scan(src, body_start, end)?;
        let Some((end_at, after_end)) = stop else {
            return Err(src.error(
                i,
                format!("`{{% {name}(…) %}}` has no `{{% end %}}` to close it"),
            ));
        };
        call_end = after_end;
        Some((body_start, end_at))
    } else {
        None
    };
    let line_start = text[..i].rfind('\n').map_or(0, |p| p + 1);
    let line_end = text[call_end..]
        .find('\n')
        .map_or(text.len(), |p| call_end + p);
    let block = text[line_start..i].trim().is_empty() && text[call_end..line_end].trim().is_empty();
    Ok(Parsed::Call(Call {
        name: name.to_owned(),
        args,
        start: i,
        end: call_end,
        body,
        block,
    }))
}

/// The named arguments from the `(` at `k`, and the offset after the `)`.
fn parse_args(
    src: Source<'_>,
    k: usize,
    end: usize,
) -> Result<(BTreeMap<String, Value>, usize), ContentError> {
    let text = src.text;
    let b = text.as_bytes();
    let mut args = BTreeMap::new();
    let mut j = skip_ws(b, k + 1, end);
    if j < end && b[j] == b')' {
        return Ok((args, j + 1));
    }
    loop {
        if j >= end {
            return Err(src.error(k, "this `(` has no `)` to close it"));
        }
        let key_start = j;
        j = ident_end(b, j, end);
        if j == key_start {
            return Err(src.error(
                j,
                "expected an argument name: arguments are named, as key=\"value\"",
            ));
        }
        let key = &text[key_start..j];
        j = skip_ws(b, j, end);
        if j >= end || b[j] != b'=' {
            return Err(src.error(
                j,
                format!("expected `=` after `{key}`: arguments are named, as {key}=\"value\""),
            ));
        }
        let (value, after) = parse_value(src, skip_ws(b, j + 1, end), end)?;
        if args.insert(key.to_owned(), value).is_some() {
            return Err(src.error(key_start, format!("argument `{key}` given twice")));
        }
        j = skip_ws(b, after, end);
        match b.get(j) {
            Some(b',') if j < end => {
                j = skip_ws(b, j + 1, end);
                if j < end && b[j] == b')' {
                    return Ok((args, j + 1));
                }
            }
            Some(b')') if j < end => return Ok((args, j + 1)),
            _ => {
                return Err(src.error(j, format!("expected `,` or `)` after the value of `{key}`")));
            }
        }
    }
}

/// The value at `j`, and the offset after it.
fn parse_value(src: Source<'_>, j: usize, end: usize) -> Result<(Value, usize), ContentError> {
    let text = src.text;
    let b = text.as_bytes();
    let expected = "expected a value: a \"string\", a number, true, false or a [list] of values";
    let Some(&first) = b.get(j).filter(|_| j < end) else {
        return Err(src.error(j, expected));
    };
    match first {
        b'"' | b'\'' => {
            let mut s = String::new();
            let mut chars = text[j + 1..end].char_indices();
            while let Some((o, c)) = chars.next() {
                match c {
                    '\\' => match chars.next() {
                        Some((_, 'n')) => s.push('\n'),
                        Some((_, 't')) => s.push('\t'),
                        Some((_, other)) => s.push(other),
                        None => break,
                    },
                    c if c == first as char => return Ok((Value::from(s), j + 1 + o + 1)),
                    c => s.push(c),
                }
            }
            Err(src.error(j, "this string has no closing quote"))
        }
        b'[' => {
            let mut items = Vec::new();
            let mut k = skip_ws(b, j + 1, end);
            loop {
                if k < end && b[k] == b']' {
                    return Ok((Value::from(items), k + 1));
                }
                let (v, after) = parse_value(src, k, end)?;
                items.push(v);
                k = skip_ws(b, after, end);
                match b.get(k) {
                    Some(b',') if k < end => k = skip_ws(b, k + 1, end),
                    Some(b']') if k < end => return Ok((Value::from(items), k + 1)),
                    _ => return Err(src.error(k, "expected `,` or `]` in this list")),
                }
            }
        }
        b'-' | b'0'..=b'9' => {
            let len = b[j..end]
                .iter()
                .take_while(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E'))
                .count();
            let number = &text[j..j + len];
            if let Ok(n) = number.parse::<i64>() {
                Ok((Value::from(n), j + len))
            } else if let Ok(x) = number.parse::<f64>() {
                Ok((Value::from(x), j + len))
            } else {
                Err(src.error(j, format!("`{number}` is not a number")))
            }
        }
        _ => {
            let word_end = ident_end(b, j, end);
            match &text[j..word_end] {
                "true" => Ok((Value::from(true), word_end)),
                "false" => Ok((Value::from(false), word_end)),
                _ => Err(src.error(j, expected)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn calls(text: &str) -> Result<Vec<(String, bool)>, String> {
        let src = Source {
            path: Path::new("t.md"),
            text,
            first_line: 1,
        };
        let (calls, stop) = scan(src, 0, text.len()).map_err(|e| e.to_string())?;
        assert!(stop.is_none());
        Ok(calls.into_iter().map(|c| (c.name, c.block)).collect())
    }

    #[test]
    fn finds_calls_outside_code() {
        let text = "a {{ x() }} b\n\n{{ y(v=[1, 'é']) }}\n\n```\n{{ z() }}\n```\n\n`{{ z() }}` {{ not a call }} {%end";
        assert_eq!(
            calls(text).unwrap(),
            [("x".to_owned(), false), ("y".to_owned(), true)]
        );
    }

    #[test]
    fn never_panics_on_cut_or_odd_input() {
        let pieces = [
            "{{", "{%", "}}", "%}", "(", ")", "x", "=", "\"", "'", "\\", "[", "]", ",", "é", "`",
            "```", "\n", " ", "1", "-", "end", "true",
        ];
        // Every sequence of three pieces, and every cut of a long call.
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let _ = calls(&format!("{{{{ n({a}{b}{c}"));
                    let _ = calls(&format!("{{% n(k={a}{b}) %}}{c}"));
                }
            }
        }
        let call = "{% n(a=\"é\\\"\", b=[1, 2.5, true], c='x') %}\n`é` {{ m() }}\n{% end %}";
        for cut in (0..=call.len()).filter(|&i| call.is_char_boundary(i)) {
            let _ = calls(&call[..cut]);
        }
        assert_eq!(calls(call).unwrap(), [("n".to_owned(), true)]);
    }
}
