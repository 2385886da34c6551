//! Request bodies: read whole within the size limit and the request
//! timeout, of the media types a route takes, or read and dropped when a
//! route refuses the request unread. The same rules for every route that
//! takes a body (contact, chat, MCP) and for the ones that take none.

use std::error::Error as StdError;
use std::time::Duration;

use bytes::Bytes;
use http::header::{self, HeaderValue};
use http::{HeaderMap, Response};
use http_body_util::BodyExt;
use hyper::body::Body as HttpBody;

use crate::Body;
use crate::http::problem::{Code, Problem};

/// How much of a body is read, and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_bytes: usize,
    pub timeout: Duration,
}

/// Reads and drops what is left of a request body answered without being
/// read (a refusal), within the body limit and the request timeout. Closing
/// a connection with unread bytes sends the peer a reset, which can destroy
/// the answer before the peer reads it; a proxy in front then reports its
/// own 502 instead. False when the body was too large or too slow: the
/// answer then closes the connection.
pub async fn discard<B>(limits: Limits, body: B) -> bool
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    if body.is_end_stream() {
        return true;
    }
    let drained = read_within(body, limits.max_bytes, false);
    matches!(
        tokio::time::timeout(limits.timeout, drained).await,
        Ok(Ok(_))
    )
}

/// Why a body could not be read whole.
enum BodyError {
    TooLarge,
    Broken,
}

/// Reads a body of at most `max` bytes, copying each chunk (`keep`) or
/// dropping it at once. A chunk of a body that trickles in is a slice of the
/// connection's read buffer and keeps that whole buffer alive while it is
/// held; copying bounds what a slow body holds by its own length.
async fn read_within<B>(body: B, max: usize, keep: bool) -> Result<Bytes, BodyError>
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let hint = usize::try_from(body.size_hint().lower()).unwrap_or(max);
    let mut out = Vec::with_capacity(if keep { hint.min(max) } else { 0 });
    let mut seen = 0usize;
    let mut body = std::pin::pin!(body);
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|_| BodyError::Broken)?;
        if let Ok(data) = frame.into_data() {
            seen = seen.saturating_add(data.len());
            if seen > max {
                return Err(BodyError::TooLarge);
            }
            if keep {
                out.extend_from_slice(&data);
            }
        }
    }
    Ok(Bytes::from(out))
}

/// Asks the client to close the connection after this answer.
pub fn close(response: &mut Response<Body>) {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
}

/// Checks and reads a request body of one of `types` within the size limit
/// and the request timeout.
pub async fn read_body<B>(
    limits: Limits,
    types: &[&str],
    headers: &HeaderMap,
    body: B,
) -> Result<Bytes, Problem>
where
    B: HttpBody<Data = Bytes>,
    B::Error: Into<Box<dyn StdError + Send + Sync>>,
{
    let max = limits.max_bytes;
    let too_large = || {
        Problem::new(
            Code::PayloadTooLarge,
            format!("The request body exceeds this route's limit of {max} bytes."),
        )
        .close()
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > max as u64) {
        return Err(too_large());
    }
    let media_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(contract::media::essence);
    if !media_type.is_some_and(|m| types.iter().any(|t| t.eq_ignore_ascii_case(m))) {
        let detail = format!("This route accepts a body of type {}.", types.join(" or "));
        let problem = Problem::new(Code::UnsupportedMediaType, detail);
        // Refused unread: read and drop it, as every refusal does.
        return Err(if discard(limits, body).await {
            problem
        } else {
            problem.close()
        });
    }
    match tokio::time::timeout(limits.timeout, read_within(body, max, true)).await {
        Ok(Ok(bytes)) => Ok(bytes),
        Ok(Err(BodyError::TooLarge)) => Err(too_large()),
        Ok(Err(BodyError::Broken)) => {
            Err(Problem::new(Code::BadRequest, "The request body could not be read.").close())
        }
        Err(_) => Err(Problem::new(
            Code::RequestTimeout,
            format!(
                "The request body did not arrive within {} ms.",
                limits.timeout.as_millis()
            ),
        )
        .close()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::body::Frame;
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::{Context, Poll};

    /// A read buffer of the connection: counts how many are alive.
    struct ReadBuffer(Vec<u8>, Arc<AtomicUsize>);

    impl AsRef<[u8]> for ReadBuffer {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }

    impl Drop for ReadBuffer {
        fn drop(&mut self) {
            self.1.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// A body trickled in one byte at a time, each byte a slice of its own
    /// 8 KiB read buffer, as a slow client's body arrives; records the most
    /// read buffers alive at once.
    struct Trickle {
        left: usize,
        alive: Arc<AtomicUsize>,
        most: usize,
    }

    impl HttpBody for Trickle {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            let now = self.alive.load(Ordering::SeqCst);
            self.most = self.most.max(now);
            if self.left == 0 {
                return Poll::Ready(None);
            }
            self.left -= 1;
            self.alive.fetch_add(1, Ordering::SeqCst);
            let buffer = ReadBuffer(vec![b'x'; 8192], self.alive.clone());
            Poll::Ready(Some(Ok(Frame::data(Bytes::from_owner(buffer).slice(0..1)))))
        }
    }

    fn trickled(n: usize) -> Trickle {
        Trickle {
            left: n,
            alive: Arc::new(AtomicUsize::new(0)),
            most: 0,
        }
    }

    #[tokio::test]
    async fn a_body_read_holds_its_own_bytes_not_the_read_buffers() {
        let mut body = trickled(30);
        let bytes = read_within(&mut body, 64, true).await.ok().unwrap();
        assert_eq!(&bytes[..], &[b'x'; 30][..]);
        // Each chunk is copied and its buffer let go before the next.
        assert!(body.most <= 1, "{} read buffers held at once", body.most);
        assert_eq!(body.alive.load(Ordering::SeqCst), 0);
        assert!(matches!(
            read_within(trickled(65), 64, true).await,
            Err(BodyError::TooLarge)
        ));
        let mut drained = trickled(30);
        assert!(read_within(&mut drained, 64, false).await.is_ok());
        assert!(drained.most <= 1);
    }
}
