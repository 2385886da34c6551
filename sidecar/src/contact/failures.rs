//! Failed mail sends of the outbox, counted by kind for the metrics: an
//! SMTP outage shows as `connect` or `timeout`, a full mailbox as
//! `temporary`, a refused address as `permanent`.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Why a send failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No SMTP session: the server could not be reached, TLS failed.
    Connect,
    /// The exchange did not finish within the SMTP timeout.
    Timeout,
    /// A 4xx answer: retried later.
    Temporary,
    /// A 5xx answer: the row is parked.
    Permanent,
    /// The enquiry could not be made into a mail: parked.
    Message,
}

impl Failure {
    pub const ALL: [Failure; 5] = [
        Failure::Connect,
        Failure::Timeout,
        Failure::Temporary,
        Failure::Permanent,
        Failure::Message,
    ];

    /// Its `kind` label.
    pub fn label(self) -> &'static str {
        match self {
            Failure::Connect => "connect",
            Failure::Timeout => "timeout",
            Failure::Temporary => "temporary",
            Failure::Permanent => "permanent",
            Failure::Message => "message",
        }
    }

    /// The kind of a failed SMTP exchange.
    pub fn of(e: &lettre::transport::smtp::Error) -> Failure {
        if e.is_permanent() {
            Failure::Permanent
        } else if e.is_transient() {
            Failure::Temporary
        } else if e.is_timeout() {
            Failure::Timeout
        } else {
            Failure::Connect
        }
    }
}

/// Failed sends since start, by kind.
#[derive(Debug, Default)]
pub struct SendFailures([AtomicU64; Failure::ALL.len()]);

impl SendFailures {
    pub fn count(&self, failure: Failure) {
        self.0[failure as usize].fetch_add(1, Relaxed);
    }

    pub fn get(&self, failure: Failure) -> u64 {
        self.0[failure as usize].load(Relaxed)
    }
}
