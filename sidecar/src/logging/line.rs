//! A request's log line, formatted by hand: the text or JSON shape of
//! `tracing`'s formatter, without its formatting machinery (which cost more
//! than the rest of the request's logging).

use std::io::Write;
use std::net::IpAddr;
use std::time::{Duration, Instant};

use super::LogFormat;

/// One request's line.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    pub method: &'a str,
    /// With its query string unless the route is private.
    pub path: &'a str,
    pub route: &'a str,
    pub status: u16,
    pub bytes: u64,
    pub duration: Duration,
    /// When the answer was made: the line's timestamp.
    pub at: Instant,
    pub client: IpAddr,
    /// Visible ASCII without a quote or backslash (the request's id as
    /// `RequestIds` keeps or makes it): written as it is.
    pub request_id: &'a [u8],
}

/// What consecutive lines of one buffer share, worked out again only when
/// it changes: the timestamp's second, and the client's IPv4 address (a
/// connection's requests come from one). Kept beside each worker's buffer,
/// under the lock its lines are written with.
#[derive(Debug)]
pub(super) struct Recent {
    /// The second, and `YYYY-MM-DDTHH:MM:SS.` for it.
    second: u64,
    prefix: [u8; 20],
    /// The address, and its text.
    v4: Option<u32>,
    v4_text: Vec<u8>,
}

impl Default for Recent {
    fn default() -> Self {
        Recent {
            second: u64::MAX,
            prefix: [0; 20],
            v4: None,
            v4_text: Vec::new(),
        }
    }
}

/// Appends `line` in the shape `tracing`'s formatter gives the other
/// lines: `2026-12-02T21:48:41.123456Z  INFO access: request method="GET" …`
/// or one JSON object; `now` is the time since the Unix epoch. Digits are
/// written by hand: the formatting machinery cost more than the rest of
/// the line.
pub(super) fn format_line(
    out: &mut Vec<u8>,
    recent: &mut Recent,
    format: LogFormat,
    line: &Line<'_>,
    now: Duration,
) {
    // Room for the whole line unless a field needs escaping: the buffer
    // then grows once, not at each field.
    out.reserve(LINE_ROOM + line.path.len() + line.route.len() + line.request_id.len());
    match format {
        LogFormat::Json => fields::<true>(out, recent, line, now),
        LogFormat::Text => fields::<false>(out, recent, line, now),
    }
}

/// The fixed part of a JSON line (the longer shape) and the longest
/// values of its numbers and address, with room to spare.
const LINE_ROOM: usize = 256;

/// The line, its shape chosen at compile time so that each run of fixed
/// text between two fields is one copy of a known length.
fn fields<const JSON: bool>(
    out: &mut Vec<u8>,
    recent: &mut Recent,
    line: &Line<'_>,
    now: Duration,
) {
    let text = |text: &'static [u8], json: &'static [u8]| if JSON { json } else { text };
    if JSON {
        out.extend_from_slice(b"{\"timestamp\":\"");
    }
    timestamp(out, recent, now);
    out.extend_from_slice(text(
        b"  INFO access: request method=\"",
        b"\",\"level\":\"INFO\",\"message\":\"request\",\"method\":\"",
    ));
    // A method is an HTTP token, a route's name one of ours: neither has
    // a quote, backslash or control character.
    debug_assert!(!needs_escape(line.method.as_bytes()), "{:?}", line.method);
    debug_assert!(!needs_escape(line.route.as_bytes()), "{:?}", line.route);
    out.extend_from_slice(line.method.as_bytes());
    out.extend_from_slice(text(b"\" path=", b"\",\"path\":"));
    quoted(out, line.path.as_bytes());
    out.extend_from_slice(text(b" route=\"", b",\"route\":\""));
    out.extend_from_slice(line.route.as_bytes());
    out.extend_from_slice(text(b"\" status=", b"\",\"status\":"));
    number(out, u64::from(line.status));
    out.extend_from_slice(text(b" bytes=", b",\"bytes\":"));
    number(out, line.bytes);
    out.extend_from_slice(text(b" duration_ms=", b",\"duration_ms\":"));
    millis(out, line.duration);
    // The address is a string in JSON, bare in text (as `tracing` prints
    // a `Display` field).
    out.extend_from_slice(text(b" client=", b",\"client\":\""));
    address(out, recent, line.client);
    out.extend_from_slice(text(b" request_id=", b"\",\"request_id\":"));
    debug_assert!(
        line.request_id.is_ascii() && !needs_escape(line.request_id),
        "{:?}",
        line.request_id
    );
    out.push(b'"');
    out.extend_from_slice(line.request_id);
    out.extend_from_slice(text(b"\"\n", b"\",\"target\":\"access\"}\n"));
}

/// `s` in double quotes, escaped for JSON (which the text format's
/// quoting also reads as). Bytes of UTF-8 sequences are all 0x80 or
/// more, so escaping by byte keeps them whole. A field that needs no
/// escape (almost every one) is copied at once.
fn quoted(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    if !needs_escape(bytes) {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    out.reserve(bytes.len() * 6 + 1);
    for &b in bytes {
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..0x20 | 0x7f => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
            _ => out.push(b),
        }
    }
    out.push(b'"');
}

/// Whether any byte of `bytes` is a control character, `"` or `\\`:
/// eight bytes at a time, by the bit tricks that find a byte below a
/// value, or equal to one, in a word.
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let word = |w: u64| {
        let below_space = w.wrapping_sub(ONES * 0x20) & !w;
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let delete = w ^ (ONES * 0x7f);
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        (below_space | zero(quote) | zero(backslash) | zero(delete)) & HIGH != 0
    };
    let (words, rest) = bytes.as_chunks::<8>();
    words.iter().any(|w| word(u64::from_le_bytes(*w)))
        || rest.iter().any(|&b| ESCAPED[usize::from(b)])
}

/// The bytes a quoted field escapes.
const ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b < 0x20 || b == b'"' as usize || b == b'\\' as usize || b == 0x7f;
        b += 1;
    }
    table
};

/// "00" to "99", for writing two digits at a time.
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `n` in decimal, zero-padded to `width` digits.
fn padded(out: &mut Vec<u8>, mut n: u64, width: usize) {
    let mut buf = [b'0'; 20];
    let mut at = buf.len();
    while n >= 100 {
        let pair = usize::try_from(n % 100).unwrap_or(0) * 2;
        n /= 100;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if n >= 10 {
        let pair = usize::try_from(n).unwrap_or(0) * 2;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        buf[at] = b'0' + n as u8;
    }
    let start = at.min(buf.len() - width.min(buf.len()));
    out.extend_from_slice(&buf[start..]);
}

/// The last `W` decimal digits of `n`, zero-padded: a copy of a known
/// length, for the fields whose width is fixed.
fn fixed<const W: usize>(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(&digits::<W>(n));
}

/// The last `W` decimal digits of `n`.
fn digits<const W: usize>(mut n: u64) -> [u8; W] {
    let mut buf = [b'0'; W];
    let mut at = W;
    while at >= 2 {
        let pair = (n % 100) as usize * 2;
        n /= 100;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if at == 1 {
        buf[0] = b'0' + (n % 10) as u8;
    }
    buf
}

/// `n` in decimal; up to seven digits (a status, the size of most
/// answers, a duration's milliseconds) as a copy of a known length,
/// without the general loop.
fn number(out: &mut Vec<u8>, n: u64) {
    match n {
        0..10 => out.push(b'0' + n as u8),
        10..100 => fixed::<2>(out, n),
        100..1_000 => fixed::<3>(out, n),
        1_000..10_000 => fixed::<4>(out, n),
        10_000..100_000 => fixed::<5>(out, n),
        100_000..1_000_000 => fixed::<6>(out, n),
        1_000_000..10_000_000 => fixed::<7>(out, n),
        _ => padded(out, n, 1),
    }
}

/// Milliseconds with three decimals.
fn millis(out: &mut Vec<u8>, d: Duration) {
    let micros = d
        .as_secs()
        .saturating_mul(1_000_000)
        .saturating_add(u64::from(d.subsec_micros()));
    number(out, micros / 1000);
    out.push(b'.');
    fixed::<3>(out, micros % 1000);
}

/// The client's address; an IPv4 address is worked out again only when
/// it is not the previous line's.
fn address(out: &mut Vec<u8>, recent: &mut Recent, ip: IpAddr) {
    match ip {
        IpAddr::V4(v4) => {
            let bits = v4.to_bits();
            if recent.v4 != Some(bits) {
                // Written into the kept text's room: no allocation after
                // the first address.
                recent.v4_text.clear();
                for (i, octet) in v4.octets().into_iter().enumerate() {
                    if i > 0 {
                        recent.v4_text.push(b'.');
                    }
                    number(&mut recent.v4_text, u64::from(octet));
                }
                recent.v4 = Some(bits);
            }
            out.extend_from_slice(&recent.v4_text);
        }
        IpAddr::V6(v6) => {
            let _ = write!(out, "{v6}");
        }
    }
}

/// RFC 3339 in UTC with microseconds, as `tracing`'s default timer; the
/// date and time of day are worked out again only in a new second.
fn timestamp(out: &mut Vec<u8>, recent: &mut Recent, since: Duration) {
    let secs = since.as_secs();
    if recent.second != secs {
        let prefix = &mut recent.prefix;
        let (y, mo, d) = civil(secs / 86_400);
        let t = secs % 86_400;
        // Years past 9999 would need a fifth digit; RFC 3339 has four.
        prefix[..4].copy_from_slice(&digits::<4>(y));
        prefix[5..7].copy_from_slice(&digits::<2>(mo));
        prefix[8..10].copy_from_slice(&digits::<2>(d));
        prefix[11..13].copy_from_slice(&digits::<2>(t / 3600));
        prefix[14..16].copy_from_slice(&digits::<2>(t / 60 % 60));
        prefix[17..19].copy_from_slice(&digits::<2>(t % 60));
        (prefix[4], prefix[7], prefix[10]) = (b'-', b'-', b'T');
        (prefix[13], prefix[16], prefix[19]) = (b':', b':', b'.');
        recent.second = secs;
    }
    out.extend_from_slice(&recent.prefix);
    fixed::<6>(out, u64::from(since.subsec_micros()));
    out.push(b'Z');
}

/// The proleptic Gregorian date of a day counted from 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
fn civil(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

/// A line for tests.
#[cfg(test)]
pub(super) fn sample(id: &str) -> Line<'_> {
    Line {
        method: "GET",
        path: "/docs/?q=\"x\"",
        route: "file",
        status: 200,
        bytes: 1234,
        duration: Duration::from_micros(1500),
        at: Instant::now(),
        client: "127.0.0.1".parse().unwrap(),
        request_id: id.as_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logging::line::sample as line;

    #[test]
    fn json_lines_parse_with_every_field() {
        let mut out = Vec::new();
        let mut recent = Recent::default();
        let at = Duration::from_micros(1_796_247_321_123_456);
        format_line(&mut out, &mut recent, LogFormat::Json, &line("a-b.c"), at);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["timestamp"], "2026-12-02T21:35:21.123456Z");
        assert_eq!(v["level"], "INFO");
        assert_eq!(v["target"], "access");
        assert_eq!(v["path"], "/docs/?q=\"x\"");
        assert_eq!(v["status"], 200);
        assert_eq!(v["bytes"], 1234);
        assert_eq!(v["duration_ms"], 1.5);
        assert_eq!(v["client"], "127.0.0.1");
        assert_eq!(v["request_id"], "a-b.c");
        // The buffer's cached second is left behind: a line of another
        // day, and then of the first second again.
        for (micros, stamp) in [
            (951_782_400_000_007, "2000-02-29T00:00:00.000007Z"),
            (1_796_247_321_999_999, "2026-12-02T21:35:21.999999Z"),
        ] {
            let mut out = Vec::new();
            let when = Duration::from_micros(micros);
            format_line(&mut out, &mut recent, LogFormat::Json, &line("x"), when);
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["timestamp"], stamp);
        }
        let mut text = Vec::new();
        format_line(&mut text, &mut recent, LogFormat::Text, &line("r-1"), at);
        assert_eq!(
            String::from_utf8(text).unwrap(),
            "2026-12-02T21:35:21.123456Z  INFO access: request method=\"GET\" \
             path=\"/docs/?q=\\\"x\\\"\" route=\"file\" status=200 bytes=1234 \
             duration_ms=1.500 client=127.0.0.1 request_id=\"r-1\"\n"
        );
    }

    #[test]
    fn each_line_has_its_own_client_and_status() {
        let mut recent = Recent::default();
        let mut out = Vec::new();
        let clients = [
            "127.0.0.1",
            "255.255.255.255",
            "127.0.0.1",
            "0.0.0.0",
            "2001:db8::1",
        ];
        for (client, status) in clients.into_iter().zip([200, 304, 404, 599, 99]) {
            let l = Line {
                client: client.parse().unwrap(),
                status,
                ..line("x")
            };
            format_line(&mut out, &mut recent, LogFormat::Json, &l, Duration::ZERO);
        }
        let lines: Vec<serde_json::Value> = out
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        let got: Vec<(&str, u64)> = lines
            .iter()
            .map(|v| (v["client"].as_str().unwrap(), v["status"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("127.0.0.1", 200),
                ("255.255.255.255", 304),
                ("127.0.0.1", 404),
                ("0.0.0.0", 599),
                ("2001:db8::1", 99)
            ]
        );
    }

    #[test]
    fn digits_by_hand() {
        let mut out = Vec::new();
        millis(&mut out, Duration::from_micros(60));
        out.push(b' ');
        millis(&mut out, Duration::from_micros(12_345_678));
        out.push(b' ');
        address(
            &mut out,
            &mut Recent::default(),
            "2001:db8::7".parse().unwrap(),
        );
        out.push(b' ');
        quoted(&mut out, "tab\there é".as_bytes());
        let widths = [
            9_999, 99_999, 100_000, 999_999, 1_000_000, 9_999_999, 10_000_000,
        ];
        for n in [0, 7, 10, 99, 100, 404, 999, 1000, 12_345]
            .into_iter()
            .chain(widths)
            .chain([u64::MAX])
        {
            out.push(b' ');
            number(&mut out, n);
        }
        out.push(b' ');
        padded(&mut out, 42, 6);
        out.push(b' ');
        padded(&mut out, 1_234_567, 6);
        out.push(b' ');
        fixed::<6>(&mut out, 42);
        out.push(b' ');
        fixed::<3>(&mut out, 7);
        out.push(b' ');
        fixed::<1>(&mut out, 1_234_567);
        quoted(&mut out, "\"q\\\u{7f}".as_bytes());
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "0.060 12345.678 2001:db8::7 \"tab\\u0009here é\" 0 7 10 99 100 404 999 1000 12345 \
             9999 99999 100000 999999 1000000 9999999 10000000 18446744073709551615 000042 1234567 000042 007 7\"\\\"q\\\\\\u007f\""
        );
    }

    #[test]
    fn escapes_are_found_in_every_place_of_a_word() {
        let naive = |b: &[u8]| {
            b.iter()
                .any(|&c| c < 0x20 || c == b'"' || c == b'\\' || c == 0x7f)
        };
        for len in 0..20 {
            for at in 0..len {
                for c in 0..=255u8 {
                    let mut bytes = vec![b'a'; len];
                    bytes[at] = c;
                    // Neighbours that are UTF-8 bytes or a space, to catch
                    // borrows between bytes.
                    if at + 1 < len {
                        bytes[at + 1] = 0xc3;
                    }
                    if at > 0 {
                        bytes[at - 1] = b' ';
                    }
                    assert_eq!(needs_escape(&bytes), naive(&bytes), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn civil_dates_across_leap_years_and_centuries() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(11_016), (2000, 2, 29));
        assert_eq!(civil(19_782), (2024, 2, 29));
        assert_eq!(civil(20_789), (2026, 12, 2));
    }
}
