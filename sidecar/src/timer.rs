//! The connections' header-read timer: hyper's [`Timer`] with one sweep per
//! worker instead of one tokio timer per request.
//!
//! hyper arms a new sleep for every request head it waits for, and drops it
//! as soon as the head has arrived, which nearly every head does at once.
//! With tokio's timer that is a timer-wheel insert and removal per request.
//! Here a sleep costs an entry in a slab, made the first time it is polled,
//! and a sweep every [`TICK`] wakes the ones past their deadline: a 304
//! went from 15,221 to 14,829 instructions (callgrind, one connection). A
//! timeout therefore fires up to one tick late, never early: fine for a
//! limit measured in seconds.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};
use slab::Slab;
use tokio::sync::Notify;

/// How often a worker's sweep looks for sleeps past their deadline.
pub const TICK: Duration = Duration::from_millis(100);

/// A worker's timer; clones share the sweep.
#[derive(Clone)]
pub struct SweptTimer {
    shared: Arc<Shared>,
}

struct Shared {
    origin: Instant,
    /// Milliseconds from `origin` to the last sweep: a sleep whose
    /// deadline is not after it has fired.
    swept: AtomicU64,
    /// Each waiting sleep's deadline (milliseconds from `origin`) and
    /// waker; the waker is taken when the sweep wakes it.
    waiting: Mutex<Slab<(u64, Option<Waker>)>>,
    /// Wakes the sweep when the first sleep starts waiting.
    started: Notify,
}

impl SweptTimer {
    /// A timer and its sweep, spawned on the current tokio runtime, where it
    /// runs for the runtime's life, idle while nothing waits.
    pub fn spawn() -> Self {
        Self::spawn_with_tick(TICK)
    }

    fn spawn_with_tick(tick: Duration) -> Self {
        let shared = Arc::new(Shared {
            origin: Instant::now(),
            swept: AtomicU64::new(0),
            waiting: Mutex::new(Slab::new()),
            started: Notify::new(),
        });
        tokio::spawn(sweep(shared.clone(), tick));
        Self { shared }
    }
}

/// Every `tick` while sleeps wait: records the time and wakes those whose
/// deadline has passed.
async fn sweep(shared: Arc<Shared>, tick: Duration) {
    let mut due = Vec::new();
    loop {
        if shared.lock().is_empty() {
            // A sleep starting meanwhile leaves a permit: no wake is lost.
            shared.started.notified().await;
            continue;
        }
        tokio::time::sleep(tick).await;
        let now = shared.millis(Instant::now());
        shared.swept.store(now, Ordering::Release);
        due.extend(
            shared
                .lock()
                .iter_mut()
                .filter(|(_, (deadline, _))| *deadline <= now)
                .filter_map(|(_, (_, waker))| waker.take()),
        );
        due.drain(..).for_each(Waker::wake);
    }
}

impl Shared {
    fn millis(&self, at: Instant) -> u64 {
        u64::try_from(at.saturating_duration_since(self.origin).as_millis()).unwrap_or(u64::MAX)
    }

    fn lock(&self) -> MutexGuard<'_, Slab<(u64, Option<Waker>)>> {
        // A panic while holding the lock leaves the slab consistent.
        self.waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Timer for SweptTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(Instant::now() + duration)
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        Box::pin(SweptSleep {
            // Rounded up: never early.
            deadline: self.shared.millis(deadline).saturating_add(1),
            key: None,
            shared: self.shared.clone(),
        })
    }
}

struct SweptSleep {
    deadline: u64,
    /// Its entry in the waiting slab, once polled.
    key: Option<usize>,
    shared: Arc<Shared>,
}

impl Future for SweptSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.deadline <= self.shared.swept.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        let waker = Some(cx.waker().clone());
        let mut waiting = self.shared.lock();
        match self.key {
            Some(key) => waiting[key].1 = waker,
            None => {
                let first = waiting.is_empty();
                let key = waiting.insert((self.deadline, waker));
                drop(waiting);
                self.key = Some(key);
                if first {
                    self.shared.started.notify_one();
                }
            }
        }
        Poll::Pending
    }
}

impl Drop for SweptSleep {
    fn drop(&mut self) {
        if let Some(key) = self.key {
            self.shared.lock().remove(key);
        }
    }
}

impl Sleep for SweptSleep {}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn a_sleep_fires_after_its_deadline_and_not_before() {
        let timer = SweptTimer::spawn_with_tick(Duration::from_millis(10));
        let started = Instant::now();
        timer.sleep(Duration::from_millis(50)).await;
        let waited = started.elapsed();
        assert!(waited >= Duration::from_millis(50), "early: {waited:?}");
        assert!(waited < Duration::from_secs(2), "late: {waited:?}");
        assert!(
            timer.shared.lock().is_empty(),
            "a fired sleep left its entry"
        );
    }

    #[tokio::test(flavor = "current_thread")]
    async fn dropped_sleeps_leave_nothing_and_others_still_fire() {
        let timer = SweptTimer::spawn_with_tick(Duration::from_millis(10));
        for _ in 0..100 {
            let mut sleep = timer.sleep(Duration::from_secs(60));
            // Polled once (registered), then dropped, as hyper does when a
            // head arrives.
            assert!(
                futures_poll_once(&mut sleep).is_pending(),
                "a 60 s sleep fired"
            );
        }
        assert!(timer.shared.lock().is_empty());
        let near = timer.sleep(Duration::from_millis(20));
        let far = timer.sleep(Duration::from_secs(60));
        let mut far = far;
        assert!(futures_poll_once(&mut far).is_pending());
        near.await;
        assert!(
            futures_poll_once(&mut far).is_pending(),
            "the far one fired"
        );
        assert_eq!(timer.shared.lock().len(), 1);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_sweep_rests_while_nothing_waits_and_wakes_for_a_new_sleep() {
        let timer = SweptTimer::spawn_with_tick(Duration::from_millis(10));
        tokio::time::sleep(Duration::from_millis(50)).await;
        let swept = timer.shared.swept.load(Ordering::Acquire);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            timer.shared.swept.load(Ordering::Acquire),
            swept,
            "swept with nothing waiting"
        );
        let started = Instant::now();
        timer.sleep(Duration::from_millis(30)).await;
        assert!(started.elapsed() >= Duration::from_millis(30));
    }

    fn futures_poll_once(sleep: &mut Pin<Box<dyn Sleep>>) -> Poll<()> {
        let mut cx = Context::from_waker(Waker::noop());
        sleep.as_mut().poll(&mut cx)
    }
}
