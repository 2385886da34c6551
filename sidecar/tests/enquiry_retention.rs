//! Retention and data-subject requests over the store, on SQLite and a real
//! PostgreSQL server: a sweep deletes enquiries delivered longer ago than
//! the period, and those never delivered (pending or parked) received
//! longer ago, each with its outbox row, and nothing younger or being sent;
//! an erasure by address removes every row of that address, in any letter
//! case, and an export returns every stored field.

use std::time::Duration;

use common::both_backends;
use common::live::{Backend, TestDb, open};
use sidecar::contact::retention::sweep;
use sidecar::store::SampleSize;
use sidecar::store::Store;
use sidecar::store::contact::{NewEnquiry, Selection, Settle, Stored};

fn enquiry(reference: &str, email: &str, at: i64) -> NewEnquiry {
    NewEnquiry {
        reference: reference.into(),
        received_at: at,
        name: format!("Name of {reference}"),
        email: email.into(),
        organisation: Some("Org".into()),
        topic: "other".into(),
        message: format!("Message of {reference}"),
        language: "en".into(),
    }
}

async fn insert(s: &Store, e: NewEnquiry) {
    let nonce = format!("nonce-{}", e.reference);
    let at = e.received_at;
    assert_eq!(
        s.insert_enquiry(e, nonce, at + 600_000).await.unwrap(),
        Stored::Committed
    );
}

/// Claims `reference` alone (it must be the only due row) and settles it.
async fn settle(s: &Store, reference: &str, now: i64, outcome: Settle) {
    let claimed = s.claim_outbox(now, 5_000, 1, "t".into()).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].enquiry.reference, reference);
    assert!(
        s.settle_outbox(reference.into(), "t".into(), outcome)
            .await
            .unwrap()
    );
}

async fn references(s: &Store) -> Vec<String> {
    s.enquiries(Selection::All)
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.reference)
        .collect()
}

const DAY: i64 = 86_400_000;

/// A count read straight from the database, past the store's code.
async fn count(db: &TestDb, sql: &str) -> i64 {
    match &db.pg {
        Some((url, schema)) => {
            let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .unwrap();
            let task = tokio::spawn(conn);
            client
                .batch_execute(&format!("SET search_path = {schema}"))
                .await
                .unwrap();
            let n = client.query_one(sql, &[]).await.unwrap().get(0);
            drop(client);
            let _ = task.await;
            n
        }
        None => rusqlite::Connection::open(db.file.as_ref().unwrap())
            .unwrap()
            .query_row(sql, [], |r| r.get(0))
            .unwrap(),
    }
}

async fn a_sweep_deletes_what_is_past_retention(backend: Backend) {
    let Some(db) = open(backend, "enq_retention_sweep", SampleSize::None).await else {
        return;
    };
    let s = &db.store;
    let t0 = 1_700_000_000_000;
    // Delivered 40 days ago (received 41): past a 30-day period.
    insert(s, enquiry("ENQ-OLD-SENT", "a@x.example", t0 - 41 * DAY)).await;
    settle(
        s,
        "ENQ-OLD-SENT",
        t0 - 41 * DAY,
        Settle::Sent { at: t0 - 40 * DAY },
    )
    .await;
    // Received 100 days ago, delivered 10 days ago: kept (counted from
    // delivery).
    insert(s, enquiry("ENQ-LATE-SENT", "b@x.example", t0 - 100 * DAY)).await;
    settle(
        s,
        "ENQ-LATE-SENT",
        t0 - 10 * DAY,
        Settle::Sent { at: t0 - 10 * DAY },
    )
    .await;
    // Parked 31 days ago: never delivered, past the period from receipt.
    insert(s, enquiry("ENQ-OLD-PARKED", "c@x.example", t0 - 31 * DAY)).await;
    settle(
        s,
        "ENQ-OLD-PARKED",
        t0 - 31 * DAY,
        Settle::Parked {
            error: "550 no such mailbox".into(),
        },
    )
    .await;
    // Pending for 35 days and due far later: past the period.
    insert(s, enquiry("ENQ-OLD-PENDING", "d@x.example", t0 - 35 * DAY)).await;
    settle(
        s,
        "ENQ-OLD-PENDING",
        t0 - 35 * DAY,
        Settle::Retry {
            after: t0 + DAY,
            error: "451 try later".into(),
        },
    )
    .await;
    // Pending for 32 days but being sent right now (claimed): left alone.
    insert(s, enquiry("ENQ-OLD-CLAIMED", "e@x.example", t0 - 32 * DAY)).await;
    let claimed = s
        .claim_outbox(t0 - 1_000, 60_000, 1, "w".into())
        .await
        .unwrap();
    assert_eq!(claimed[0].enquiry.reference, "ENQ-OLD-CLAIMED");
    // Received yesterday, pending: kept.
    insert(s, enquiry("ENQ-NEW", "f@x.example", t0 - DAY)).await;

    let purged = sweep(s, Duration::from_secs(30 * 86_400), t0)
        .await
        .unwrap();
    assert_eq!((purged.delivered, purged.undelivered), (1, 2));
    assert_eq!(
        references(s).await,
        ["ENQ-LATE-SENT", "ENQ-OLD-CLAIMED", "ENQ-NEW"]
    );
    for gone in ["ENQ-OLD-SENT", "ENQ-OLD-PARKED", "ENQ-OLD-PENDING"] {
        assert_eq!(s.outbox_state(gone.into()).await.unwrap(), None, "{gone}");
    }
    // Nothing else is left in either table: counted directly.
    assert_eq!(count(&db, "SELECT count(*) FROM outbox").await, 3);
    assert_eq!(
        count(&db, "SELECT count(*) FROM enquiries WHERE email IN ('a@x.example', 'c@x.example', 'd@x.example')")
            .await,
        0
    );

    // Once the claim has lapsed, the next sweep takes the claimed one too;
    // a second sweep at the same time finds nothing more.
    let later = t0 + 120_000;
    let purged = sweep(s, Duration::from_secs(30 * 86_400), later)
        .await
        .unwrap();
    assert_eq!((purged.delivered, purged.undelivered), (0, 1));
    let purged = sweep(s, Duration::from_secs(30 * 86_400), later)
        .await
        .unwrap();
    assert_eq!((purged.delivered, purged.undelivered), (0, 0));
    assert_eq!(references(s).await, ["ENQ-LATE-SENT", "ENQ-NEW"]);
    assert_eq!(count(&db, "SELECT count(*) FROM outbox").await, 2);
}

async fn more_than_a_batch_is_swept_in_one_call(backend: Backend) {
    let Some(db) = open(backend, "enq_retention_batch", SampleSize::None).await else {
        return;
    };
    let s = &db.store;
    let t0 = 1_700_000_000_000;
    let n = sidecar::store::contact::PURGE_BATCH + 7;
    for i in 0..n {
        insert(
            s,
            enquiry(&format!("ENQ-B{i:04}"), "x@x.example", t0 - 2 * DAY + i),
        )
        .await;
    }
    let purged = sweep(s, Duration::from_secs(86_400), t0).await.unwrap();
    assert_eq!(purged.undelivered, n as u64);
    assert_eq!(count(&db, "SELECT count(*) FROM enquiries").await, 0);
    assert_eq!(count(&db, "SELECT count(*) FROM outbox").await, 0);
}

async fn export_and_erase_by_address(backend: Backend) {
    let Some(db) = open(backend, "enq_subject", SampleSize::None).await else {
        return;
    };
    let s = &db.store;
    let t0 = 1_700_000_000_000;
    insert(s, enquiry("ENQ-ADA-1", "Ada@Visitor.example", t0)).await;
    settle(s, "ENQ-ADA-1", t0, Settle::Sent { at: t0 + 5 }).await;
    insert(s, enquiry("ENQ-ADA-2", "ada@visitor.example", t0 + 1)).await;
    insert(s, enquiry("ENQ-BOB-1", "bob@visitor.example", t0 + 2)).await;

    let ada = s
        .enquiries(Selection::Email("ADA@visitor.EXAMPLE".into()))
        .await
        .unwrap();
    assert_eq!(ada.len(), 2);
    assert_eq!(ada[0].reference, "ENQ-ADA-1");
    assert_eq!(ada[0].name, "Name of ENQ-ADA-1");
    assert_eq!(ada[0].organisation.as_deref(), Some("Org"));
    assert_eq!(ada[0].message, "Message of ENQ-ADA-1");
    assert_eq!(ada[0].status.as_deref(), Some("sent"));
    assert_eq!(ada[0].sent_at, Some(t0 + 5));
    assert_eq!(ada[1].status.as_deref(), Some("pending"));

    let d = s
        .delete_enquiries(Selection::Email("ada@VISITOR.example".into()))
        .await
        .unwrap();
    assert_eq!((d.enquiries, d.outbox), (2, 2));
    assert_eq!(references(s).await, ["ENQ-BOB-1"]);
    assert_eq!(
        count(
            &db,
            "SELECT count(*) FROM enquiries WHERE lower(email) LIKE '%ada%'"
        )
        .await,
        0
    );
    assert_eq!(count(&db, "SELECT count(*) FROM outbox").await, 1);
    // By reference; then nothing left to delete.
    let d = s
        .delete_enquiries(Selection::Reference("ENQ-BOB-1".into()))
        .await
        .unwrap();
    assert_eq!((d.enquiries, d.outbox), (1, 1));
    let d = s
        .delete_enquiries(Selection::Reference("ENQ-BOB-1".into()))
        .await
        .unwrap();
    assert_eq!((d.enquiries, d.outbox), (0, 0));
    assert_eq!(count(&db, "SELECT count(*) FROM outbox").await, 0);
}

both_backends!(
    a_sweep_deletes_what_is_past_retention,
    more_than_a_batch_is_swept_in_one_call,
    export_and_erase_by_address
);
