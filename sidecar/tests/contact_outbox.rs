//! The outbox's claims on SQLite and a real PostgreSQL server: a claimed
//! row is invisible to other claimants until its lease ends, only the
//! holder can settle it, a sent row is never claimed again, and a retried
//! row comes back when it is due. And the mail itself: an enquiry sent
//! from the Dutch form, through the route, reaches a local SMTP server
//! from the worker saying its language.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::both_backends;
use common::contact::{env, post_json, solved};
use common::live::{Backend, open};
use sidecar::contact::failures::SendFailures;
use sidecar::contact::outbox::{self, MailConfig};
use sidecar::contact::retention::Retention;
use sidecar::store::SampleSize;
use sidecar::store::contact::{NewEnquiry, Settle, Stored};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

fn enquiry(reference: &str, at: i64) -> NewEnquiry {
    NewEnquiry {
        reference: reference.into(),
        received_at: at,
        name: "Ada".into(),
        email: "ada@visitor.example".into(),
        organisation: None,
        topic: "other".into(),
        message: "Hello".into(),
        language: "en".into(),
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

/// A local SMTP server that accepts every command and sends each message
/// it receives (its DATA, headers and body) to the channel; its address.
async fn smtp_server() -> (String, mpsc::UnboundedReceiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("smtp://{}", listener.local_addr().unwrap());
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let tx = tx.clone();
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut lines = BufReader::new(read).lines();
                write.write_all(b"220 test ESMTP\r\n").await.unwrap();
                while let Ok(Some(line)) = lines.next_line().await {
                    let command = line.to_ascii_uppercase();
                    let answer: &[u8] = if command.starts_with("DATA") {
                        write.write_all(b"354 go ahead\r\n").await.unwrap();
                        let mut data = String::new();
                        while let Ok(Some(l)) = lines.next_line().await {
                            if l == "." {
                                break;
                            }
                            data.push_str(&l);
                            data.push_str("\r\n");
                        }
                        let _ = tx.send(data);
                        b"250 queued\r\n"
                    } else if command.starts_with("QUIT") {
                        let _ = write.write_all(b"221 bye\r\n").await;
                        return;
                    } else {
                        b"250 ok\r\n"
                    };
                    if write.write_all(answer).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, rx)
}

async fn a_dutch_enquiry_is_mailed_saying_its_language(backend: Backend) {
    let Some(e) = env(backend, "contact_mail_language", |_| {}).await else {
        return;
    };
    let peer = "192.0.2.20";
    let altcha = solved(&e.state, peer).await;
    let mut body = common::contact::enquiry(&altcha);
    body["language"] = "nl".into();
    body["message"] = "Hoe kan onze school meedoen aan het nitraatonderzoek?".into();
    let a = post_json(&e.state, peer, &body).await;
    assert_eq!(a.status, 201, "{:?}", a.body);
    let reference = a.json()["reference"].as_str().unwrap().to_owned();

    let (url, mut mails) = smtp_server().await;
    let mail = MailConfig {
        smtp_url: url,
        to: "Office <office@org.example>".parse().unwrap(),
        from: "Website <web@org.example>".parse().unwrap(),
        timeout: Duration::from_secs(5),
        lease: Duration::from_secs(30),
        poll: Duration::from_millis(50),
        retry_base: Duration::from_millis(100),
        retry_max: Duration::from_secs(1),
    };
    let retention = Retention {
        period: Duration::from_secs(365 * 86_400),
        published: Duration::from_secs(365 * 86_400),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let worker = tokio::spawn(outbox::run(
        e.db.store.clone(),
        Some(mail),
        retention,
        Arc::clone(&stop),
        Arc::new(SendFailures::default()),
    ));
    let message = tokio::time::timeout(Duration::from_secs(20), mails.recv())
        .await
        .expect("the worker mails the enquiry")
        .unwrap();
    let (head, text) = message.split_once("\r\n\r\n").unwrap();
    assert!(
        head.contains("\r\nContent-Language: nl\r\n")
            || head.starts_with("Content-Language: nl\r\n"),
        "{head}"
    );
    assert!(
        head.contains(&format!("Subject: Enquiry {reference}")),
        "{head}"
    );
    assert!(
        text.contains("Language: nl (Dutch): please answer in Dutch\r\n"),
        "{text}"
    );
    assert!(text.contains("nitraatonderzoek"), "{text}");
    // Settled as sent once the server took it.
    for _ in 0..100 {
        let state = e.db.store.outbox_state(reference.clone()).await.unwrap();
        if state.is_some_and(|s| s.status == "sent") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let state = e.db.store.outbox_state(reference).await.unwrap().unwrap();
    assert_eq!(state.status, "sent");
    stop.store(true, Ordering::Relaxed);
    worker.await.unwrap();
}

both_backends!(
    claims_are_leased_and_settled_once,
    rate_windows_count_and_reset,
    a_dutch_enquiry_is_mailed_saying_its_language,
);
