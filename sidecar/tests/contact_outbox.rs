//! The outbox's claims on SQLite and a real PostgreSQL server: a claimed
//! row is invisible to other claimants until its lease ends, only the
//! holder can settle it, a sent row is never claimed again, and a retried
//! row comes back when it is due.

use common::both_backends;
use common::live::{Backend, open};
use sidecar::store::SampleSize;
use sidecar::store::contact::{NewEnquiry, Settle, Stored};

fn enquiry(reference: &str, at: i64) -> NewEnquiry {
    NewEnquiry {
        reference: reference.into(),
        received_at: at,
        name: "Ada".into(),
        email: "ada@visitor.example".into(),
        organisation: None,
        topic: "other".into(),
        message: "Hello".into(),
    }
}

async fn claims_are_leased_and_settled_once(backend: Backend) {
    let Some(db) = open(backend, "contact_outbox_lease", SampleSize::None).await else {
        return;
    };
    let s = &db.store;
    let t0 = 1_000_000;
    for (i, r) in ["ENQ-A", "ENQ-B"].iter().enumerate() {
        let stored = s
            .insert_enquiry(
                enquiry(r, t0 + i as i64),
                format!("nonce-{r}"),
                t0 + 600_000,
            )
            .await
            .unwrap();
        assert_eq!(stored, Stored::Committed);
    }
    // The same nonce again: nothing written.
    let replay = s
        .insert_enquiry(enquiry("ENQ-C", t0), "nonce-ENQ-A".into(), t0 + 600_000)
        .await
        .unwrap();
    assert_eq!(replay, Stored::Replayed);
    assert_eq!(s.enquiry_count().await.unwrap(), 2);

    let now = t0 + 10;
    let a = s.claim_outbox(now, 5_000, 10, "a".into()).await.unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(a[0].enquiry, enquiry("ENQ-A", t0));
    assert_eq!(a[0].attempts, 1);
    // Held by `a`: another replica finds nothing until the lease ends.
    assert!(
        s.claim_outbox(now + 1, 5_000, 10, "b".into())
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        !s.settle_outbox("ENQ-A".into(), "b".into(), Settle::Sent { at: now })
            .await
            .unwrap()
    );
    assert!(
        s.settle_outbox("ENQ-A".into(), "a".into(), Settle::Sent { at: now })
            .await
            .unwrap()
    );
    // `a` died holding ENQ-B: after the lease, `b` claims it (attempt 2).
    let b = s
        .claim_outbox(now + 5_001, 5_000, 10, "b".into())
        .await
        .unwrap();
    assert_eq!(b.len(), 1);
    assert_eq!(
        (b[0].enquiry.reference.as_str(), b[0].attempts),
        ("ENQ-B", 2)
    );
    // The dead holder's late settlement is ignored.
    assert!(
        !s.settle_outbox("ENQ-B".into(), "a".into(), Settle::Sent { at: now })
            .await
            .unwrap()
    );
    let retry = Settle::Retry {
        after: now + 60_000,
        error: "421 try later".into(),
    };
    assert!(
        s.settle_outbox("ENQ-B".into(), "b".into(), retry)
            .await
            .unwrap()
    );
    assert!(
        s.claim_outbox(now + 59_000, 5_000, 10, "c".into())
            .await
            .unwrap()
            .is_empty()
    );
    let c = s
        .claim_outbox(now + 60_000, 5_000, 10, "c".into())
        .await
        .unwrap();
    assert_eq!(c.len(), 1);
    let parked = Settle::Parked {
        error: "550 no such user".into(),
    };
    assert!(
        s.settle_outbox("ENQ-B".into(), "c".into(), parked)
            .await
            .unwrap()
    );
    // Sent and parked rows are never claimed again.
    assert!(
        s.claim_outbox(now + 10_000_000, 5_000, 10, "d".into())
            .await
            .unwrap()
            .is_empty()
    );
    let a = s.outbox_state("ENQ-A".into()).await.unwrap().unwrap();
    let b = s.outbox_state("ENQ-B".into()).await.unwrap().unwrap();
    assert_eq!((a.status.as_str(), a.attempts), ("sent", 1));
    assert_eq!((b.status.as_str(), b.attempts), ("parked", 3));
}

async fn rate_windows_count_and_reset(backend: Backend) {
    let Some(db) = open(backend, "contact_rate_window", SampleSize::None).await else {
        return;
    };
    let s = &db.store;
    assert_eq!(
        s.rate_hit("submit", "1.2.3.4".into(), 1000, 0)
            .await
            .unwrap(),
        (1, 1000)
    );
    assert_eq!(
        s.rate_hit("submit", "1.2.3.4".into(), 1000, 500)
            .await
            .unwrap(),
        (2, 1000)
    );
    assert_eq!(
        s.rate_hit("challenge", "1.2.3.4".into(), 1000, 500)
            .await
            .unwrap(),
        (1, 1500)
    );
    // The window has passed: a new one starts.
    assert_eq!(
        s.rate_hit("submit", "1.2.3.4".into(), 1000, 1000)
            .await
            .unwrap(),
        (1, 2000)
    );
    s.contact_cleanup(5000).await.unwrap();
    assert_eq!(
        s.rate_hit("submit", "1.2.3.4".into(), 1000, 5000)
            .await
            .unwrap(),
        (1, 6000)
    );
}

both_backends!(
    claims_are_leased_and_settled_once,
    rate_windows_count_and_reset
);
