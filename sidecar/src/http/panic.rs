//! The panic guard: a bug in one handler becomes an error value (and so a
//! 500 problem or a JSON-RPC internal error) instead of a dropped
//! connection.

use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

/// Turns a panic while polling the inner future into an error. The box
/// makes the inner future `Unpin`, which keeps this free of `unsafe`.
pub struct CatchPanic<F>(pub Pin<Box<F>>);

impl<F: Future> Future for CatchPanic<F> {
    type Output = Result<F::Output, Box<dyn std::any::Any + Send>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.get_mut().0;
        match panic::catch_unwind(AssertUnwindSafe(|| inner.as_mut().poll(cx))) {
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    #[tokio::test]
    async fn panics_become_errors() {
        let ok = CatchPanic(Box::pin(async { 7 })).await;
        assert_eq!(ok.ok(), Some(7));
        let panicking = CatchPanic(Box::pin(async {
            if Instant::now().elapsed().as_secs() < 3600 {
                panic!("handler bug");
            }
            7
        }));
        assert!(panicking.await.is_err());
    }
}
