//! PostgreSQL over TLS, through the binary as an operator runs it:
//! `sidecar migrate` with `sslmode` in the database URL, against the test
//! server of `scripts/pg-test-server`. Its role `tls_only` may connect over
//! TLS only, and its certificate names 127.0.0.1 alone, signed by a CA of
//! its own (`TEST_DATABASE_CA`, from `scripts/pg-test-server ca`). So a
//! run that succeeds was encrypted, and each check the client makes (the
//! issuer, the name) has a URL that fails it.

use std::process::{Command, Output};

fn sidecar(args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sidecar"));
    for (name, _) in std::env::vars() {
        if name.starts_with("SIDECAR_") {
            command.env_remove(name);
        }
    }
    command.args(args).output().unwrap()
}

/// The server's URL for `tls_only`, with `query` and the test's schema,
/// and the CA file; `None` when PostgreSQL is skipped.
struct Server {
    url: String,
    ca: String,
}

impl Server {
    fn get() -> Option<Server> {
        let url = common::live::pg_url()?;
        let ca = std::env::var("TEST_DATABASE_CA").expect(
            "TEST_DATABASE_CA is unset: run `TEST_DATABASE_CA=$(scripts/pg-test-server ca)` \
             beside TEST_DATABASE_URL",
        );
        Some(Server { url, ca })
    }

    /// The URL as `tls_only` on `host`, working in the test's schema, with
    /// `tls` added to its query.
    fn url(&self, host: &str, tls: &str) -> String {
        let rest = self
            .url
            .split_once('@')
            .expect("a URL with a user")
            .1
            .replacen("127.0.0.1", host, 1);
        format!("postgres://tls_only@{rest}?options=-c%20search_path%3Dt_tls_cli&{tls}")
    }
}

fn text(out: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `sidecar migrate --check` on `url` fails (exit 1) with `says` in its
/// error.
fn refused(url: &str, says: &str) {
    let out = sidecar(&["migrate", "--check", "--database", url]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(says),
        "{}",
        text(&out)
    );
}

async fn fresh_schema(url: &str) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let task = tokio::spawn(conn);
    client
        .batch_execute("DROP SCHEMA IF EXISTS t_tls_cli CASCADE; CREATE SCHEMA t_tls_cli")
        .await
        .unwrap();
    drop(client);
    let _ = task.await;
}

#[tokio::test]
async fn migrate_runs_over_verified_tls_and_refuses_what_fails_a_check() {
    let Some(server) = Server::get() else { return };
    fresh_schema(&server.url).await;

    // The server refuses `tls_only` in plain text, so the runs below that
    // succeed were encrypted.
    refused(&server.url("127.0.0.1", ""), "no encryption");

    let good = server.url(
        "127.0.0.1",
        &format!("sslmode=verify-full&sslrootcert={}", server.ca),
    );
    // Pending migrations found over TLS (exit 3), applied through the
    // pool, then none pending.
    let check = sidecar(&["migrate", "--check", "--database", &good]);
    assert_eq!(check.status.code(), Some(3), "{}", text(&check));
    let apply = sidecar(&["migrate", "--database", &good]);
    assert_eq!(apply.status.code(), Some(0), "{}", text(&apply));
    let again = sidecar(&["migrate", "--check", "--database", &good]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again));

    // libpq's `require` checks the certificate here too: against the
    // built-in roots, which do not know the test CA.
    refused(&server.url("127.0.0.1", "sslmode=require"), "UnknownIssuer");

    // The right CA, the wrong name: the certificate is for 127.0.0.1.
    refused(
        &server.url(
            "localhost",
            &format!("sslmode=verify-full&sslrootcert={}", server.ca),
        ),
        "not valid for name \"localhost\"",
    );

    // A root file that is not there is named.
    refused(
        &server.url(
            "127.0.0.1",
            "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem",
        ),
        "sslrootcert /nonexistent/ca.pem",
    );
}
