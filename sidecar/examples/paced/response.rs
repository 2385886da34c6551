//! Reading HTTP/1.1 responses as they arrive, for `paced`: where each one
//! ends and its status, keeping none of the body.

/// A response read in full, as far as this tool cares.
#[derive(Debug, PartialEq)]
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) close: bool,
}

/// Where the parser is within a response.
#[derive(Clone, Copy, Debug, Default)]
enum Phase {
    #[default]
    Head,
    Body(u64),
    ChunkSize,
    ChunkData(u64),
    /// The line break after a chunk's data.
    ChunkEnd,
    Trailer,
}

/// An incremental HTTP/1.1 response parser that keeps no body bytes.
#[derive(Debug, Default)]
pub(crate) struct ResponseParser {
    phase: Phase,
    status: u16,
    close: bool,
    /// The requests are HEADs: no answer has a body.
    head: bool,
}

/// How the body of a response is delimited.
enum Framing {
    /// A 1xx response: the real one follows.
    Interim,
    Empty,
    Length(u64),
    Chunked,
}

impl ResponseParser {
    /// A parser of answers to GETs, or to HEADs when `head`.
    pub(crate) fn new(head: bool) -> Self {
        Self {
            head,
            ..Self::default()
        }
    }

    /// Consumes what it can of `input`; returns how many bytes it used and,
    /// if a response ended within them, that response (whatever follows it
    /// is left for the next call).
    pub(crate) fn feed(&mut self, input: &[u8]) -> Result<(usize, Option<Response>), String> {
        let mut pos = 0;
        loop {
            let rest = &input[pos..];
            match self.phase {
                Phase::Head => {
                    let Some(end) = find_head_end(rest) else {
                        return Ok((pos, None));
                    };
                    let (status, close, mut framing) = parse_head(&rest[..end])?;
                    if self.head && !matches!(framing, Framing::Interim) {
                        framing = Framing::Empty;
                    }
                    pos += end + 4;
                    self.status = status;
                    self.close = close;
                    match framing {
                        Framing::Interim => {}
                        Framing::Empty | Framing::Length(0) => {
                            return Ok((pos, Some(self.finish())));
                        }
                        Framing::Length(n) => self.phase = Phase::Body(n),
                        Framing::Chunked => self.phase = Phase::ChunkSize,
                    }
                }
                Phase::Body(left) | Phase::ChunkData(left) => {
                    let take = left.min(rest.len() as u64);
                    pos += take as usize;
                    let left = left - take;
                    self.phase = match self.phase {
                        Phase::Body(_) if left == 0 => return Ok((pos, Some(self.finish()))),
                        Phase::Body(_) => Phase::Body(left),
                        _ if left == 0 => Phase::ChunkEnd,
                        _ => Phase::ChunkData(left),
                    };
                    if left > 0 {
                        return Ok((pos, None));
                    }
                }
                Phase::ChunkSize => {
                    let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") else {
                        return Ok((pos, None));
                    };
                    let line = &rest[..eol];
                    let digits = line.split(|&b| b == b';').next().unwrap_or_default();
                    let size = std::str::from_utf8(digits.trim_ascii())
                        .ok()
                        .and_then(|s| u64::from_str_radix(s, 16).ok())
                        .ok_or("bad chunk size")?;
                    pos += eol + 2;
                    self.phase = if size == 0 {
                        Phase::Trailer
                    } else {
                        Phase::ChunkData(size)
                    };
                }
                Phase::ChunkEnd => {
                    if rest.len() < 2 {
                        return Ok((pos, None));
                    }
                    if &rest[..2] != b"\r\n" {
                        return Err("chunk longer than its size".to_owned());
                    }
                    pos += 2;
                    self.phase = Phase::ChunkSize;
                }
                Phase::Trailer => {
                    let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") else {
                        return Ok((pos, None));
                    };
                    pos += eol + 2;
                    if eol == 0 {
                        return Ok((pos, Some(self.finish())));
                    }
                }
            }
        }
    }

    fn finish(&mut self) -> Response {
        self.phase = Phase::Head;
        Response {
            status: self.status,
            close: self.close,
        }
    }
}

/// Where the blank line ending a response head starts.
fn find_head_end(buf: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = buf[from..].iter().position(|&b| b == b'\n') {
        let at = from + i;
        if at >= 3 && &buf[at - 3..=at] == b"\r\n\r\n" {
            return Some(at - 3);
        }
        from = at + 1;
    }
    None
}

/// Reads the status, whether the server will close the connection and how
/// the body is delimited from a response head (without its blank line).
fn parse_head(head: &[u8]) -> Result<(u16, bool, Framing), String> {
    let mut lines = head
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let status_line = lines.next().unwrap_or_default();
    let version = status_line.get(..8).filter(|v| v.starts_with(b"HTTP/1."));
    let status = status_line
        .get(9..12)
        .filter(|s| status_line.get(8) == Some(&b' ') && s.iter().all(u8::is_ascii_digit))
        .and_then(|s| std::str::from_utf8(s).ok()?.parse::<u16>().ok());
    let (Some(version), Some(status)) = (version, status) else {
        return Err(format!(
            "bad status line {:?}",
            String::from_utf8_lossy(status_line)
        ));
    };
    let mut close = version == b"HTTP/1.0";
    let mut length = None;
    let mut chunked = false;
    for line in lines {
        let colon = line
            .iter()
            .position(|&b| b == b':')
            .ok_or("header line without a colon")?;
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if name.eq_ignore_ascii_case(b"content-length") {
            let n = std::str::from_utf8(value).ok().and_then(|v| v.parse().ok());
            length = Some(n.ok_or("bad content-length")?);
        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
            let last = value.rsplit(|&b| b == b',').next().unwrap_or_default();
            chunked = last.trim_ascii().eq_ignore_ascii_case(b"chunked");
        } else if name.eq_ignore_ascii_case(b"connection") {
            for token in value.split(|&b| b == b',').map(<[u8]>::trim_ascii) {
                if token.eq_ignore_ascii_case(b"close") {
                    close = true;
                } else if token.eq_ignore_ascii_case(b"keep-alive") {
                    close = false;
                }
            }
        }
    }
    let framing = match (status, chunked, length) {
        (100..=199, _, _) => Framing::Interim,
        (204 | 304, _, _) => Framing::Empty,
        (_, true, _) => Framing::Chunked,
        (_, false, Some(n)) => Framing::Length(n),
        (_, false, None) => return Err("neither content-length nor chunked".to_owned()),
    };
    Ok((status, close, framing))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `input` one byte at a time, as the worst split across reads.
    fn bytewise(input: &[u8]) -> Vec<Response> {
        let mut parser = ResponseParser::default();
        let mut done = Vec::new();
        let mut buf = Vec::new();
        for &b in input {
            buf.push(b);
            let (used, response) = parser.feed(&buf).expect("well-formed");
            buf.drain(..used);
            done.extend(response);
        }
        assert!(buf.is_empty(), "unparsed bytes left");
        done
    }

    #[test]
    fn content_length_and_empty_bodies() {
        let input = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello\
                      HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n\
                      HTTP/1.1 100 Continue\r\n\r\n\
                      HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n";
        let expected = [(200, false), (304, false), (204, true)]
            .map(|(status, close)| Response { status, close });
        assert_eq!(bytewise(input), expected);
    }

    #[test]
    fn answers_to_heads_have_no_body() {
        let mut parser = ResponseParser::new(true);
        let input = b"HTTP/1.1 200 OK\r\nContent-Length: 15555\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n";
        let (used, first) = parser.feed(input).unwrap();
        assert_eq!(first.map(|r| r.status), Some(200));
        let (_, second) = parser.feed(&input[used..]).unwrap();
        assert_eq!(second.map(|r| r.status), Some(200));
    }

    #[test]
    fn chunked_with_extensions_and_trailers() {
        let input = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\
                      5;x=y\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\n\
                      HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n";
        let expected =
            [(200, false), (200, true)].map(|(status, close)| Response { status, close });
        assert_eq!(bytewise(input), expected);
        let mut parser = ResponseParser::default();
        assert_eq!(
            parser.feed(input).unwrap().1,
            Some(Response {
                status: 200,
                close: false
            })
        );
    }

    #[test]
    fn rejects_malformed() {
        for input in [
            &b"HTTP/1.1 200 OK\r\n\r\n"[..],
            b"HTTP/2 200\r\ncontent-length: 0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
            b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1\r\nab\r\n",
        ] {
            assert!(ResponseParser::default().feed(input).is_err());
        }
    }
}
