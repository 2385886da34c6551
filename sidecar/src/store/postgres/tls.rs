//! TLS to PostgreSQL, asked for in the database URL with libpq's words.
//!
//! `sslmode=require`, `verify-ca` or `verify-full` makes every connection
//! encrypted. The server's certificate is always checked, chain and host
//! name, against the Mozilla roots built into the binary or, with
//! `sslrootcert=FILE`, against the certificates in that PEM file. libpq's
//! `require` checks nothing. Here it checks as much as `verify-full`,
//! because an unchecked certificate protects against nobody who can
//! intercept the connection. Without `sslmode`, or with `disable`, `allow`
//! or `prefer`, connections are plain TCP, as before TLS was supported: a
//! preference for encryption that falls back silently is not asked for
//! here.
//!
//! tokio-postgres reads `sslmode` as `disable`, `prefer` or `require` and
//! rejects `sslrootcert`, so both are taken out of the URL before it is
//! parsed. Decision record 0052 explains this.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use anyhow::{Context, bail};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres::Config;
use tokio_postgres::config::SslMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// What a database URL asks of the connection's security.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Security {
    /// Plain TCP.
    Plain,
    /// TLS with the server's certificate checked against these roots
    /// (`None`: the Mozilla roots).
    Verified(Option<PathBuf>),
}

/// The connection settings of `url` and the connector they need.
pub fn target(url: &str) -> anyhow::Result<(Config, MakeRustlsConnect)> {
    let (rest, security) = split(url)?;
    let mut config = Config::from_str(&rest).context("parsing the PostgreSQL URL")?;
    let client = match &security {
        Security::Plain => {
            config.ssl_mode(SslMode::Disable);
            client_config(rustls::RootCertStore::empty())?
        }
        Security::Verified(roots) => {
            config.ssl_mode(SslMode::Require);
            let store = match roots {
                Some(file) => roots_from(file)?,
                None => rustls::RootCertStore {
                    roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
                },
            };
            client_config(store)?
        }
    };
    Ok((config, MakeRustlsConnect::new(client)))
}

fn client_config(roots: rustls::RootCertStore) -> anyhow::Result<rustls::ClientConfig> {
    Ok(rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .context("setting up TLS")?
    .with_root_certificates(roots)
    .with_no_client_auth())
}

/// The certificates of the PEM file `file`, as trust roots.
fn roots_from(file: &Path) -> anyhow::Result<rustls::RootCertStore> {
    let name = file.display();
    let mut store = rustls::RootCertStore::empty();
    for cert in CertificateDer::pem_file_iter(file)
        .with_context(|| format!("reading sslrootcert {name}"))?
    {
        let cert = cert.with_context(|| format!("reading sslrootcert {name}"))?;
        store
            .add(cert)
            .with_context(|| format!("sslrootcert {name} holds a certificate rustls refuses"))?;
    }
    if store.is_empty() {
        bail!("sslrootcert {name} holds no PEM certificate");
    }
    Ok(store)
}

/// `url` without `sslmode` and `sslrootcert`, and what they asked for
/// (the store takes only `postgres://` and `postgresql://` URLs).
fn split(url: &str) -> anyhow::Result<(String, Security)> {
    let (mut mode, mut root) = (None, None);
    let rest = match url.split_once('?') {
        None => url.to_owned(),
        Some((base, query)) => {
            let mut kept = Vec::new();
            for pair in query.split('&') {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                let value = || {
                    percent_encoding::percent_decode_str(value)
                        .decode_utf8_lossy()
                        .into_owned()
                };
                match key {
                    "sslmode" => mode = Some(value()),
                    "sslrootcert" => root = Some(value()),
                    _ => kept.push(pair),
                }
            }
            if kept.is_empty() {
                base.to_owned()
            } else {
                format!("{base}?{}", kept.join("&"))
            }
        }
    };
    let verify = match mode.as_deref() {
        None => root.is_some(),
        Some("disable" | "allow" | "prefer") => {
            if root.is_some() {
                bail!(
                    "sslrootcert is given but sslmode={} turns TLS off; use sslmode=verify-full",
                    mode.unwrap_or_default()
                );
            }
            false
        }
        Some("require" | "verify-ca" | "verify-full") => true,
        Some(other) => bail!(
            "sslmode={other} is not one of disable, allow, prefer, require, verify-ca, verify-full"
        ),
    };
    let security = match (verify, root) {
        (false, _) => Security::Plain,
        (true, Some(root)) if root != "system" => Security::Verified(Some(PathBuf::from(root))),
        (true, _) => Security::Verified(None),
    };
    Ok((rest, security))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_ok(url: &str) -> (String, Security) {
        split(url).unwrap()
    }

    #[test]
    fn urls_without_tls_settings_pass_through_as_plain() {
        for url in [
            "postgres://u:p@db:5432/app",
            "postgres://u@db/app?connect_timeout=3",
        ] {
            assert_eq!(split_ok(url), (url.to_owned(), Security::Plain));
        }
    }

    #[test]
    fn libpq_modes_are_read_and_taken_out() {
        assert_eq!(
            split_ok("postgres://u@db/app?sslmode=require&connect_timeout=3"),
            (
                "postgres://u@db/app?connect_timeout=3".into(),
                Security::Verified(None)
            )
        );
        assert_eq!(
            split_ok("postgresql://u@db/app?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem"),
            (
                "postgresql://u@db/app".into(),
                Security::Verified(Some("/etc/ca.pem".into()))
            )
        );
        assert_eq!(
            split_ok("postgres://db/app?sslmode=prefer").1,
            Security::Plain
        );
        assert_eq!(
            split_ok("postgres://db/app?sslmode=disable").1,
            Security::Plain
        );
        // A root file alone asks for checking; `system` names the built-in roots.
        assert_eq!(
            split_ok("postgres://db/app?sslrootcert=/ca.pem").1,
            Security::Verified(Some("/ca.pem".into()))
        );
        assert_eq!(
            split_ok("postgres://db/app?sslmode=require&sslrootcert=system").1,
            Security::Verified(None)
        );
    }

    #[test]
    fn contradictions_and_unknown_modes_are_errors() {
        let err = split("postgres://db/app?sslmode=verify").unwrap_err();
        assert!(
            err.to_string().contains("sslmode=verify is not one of"),
            "{err}"
        );
        let err = split("postgres://db/app?sslmode=disable&sslrootcert=/ca.pem").unwrap_err();
        assert!(err.to_string().contains("turns TLS off"), "{err}");
    }

    #[test]
    fn a_missing_or_empty_root_file_is_named() {
        let err = target("postgres://db/app?sslmode=require&sslrootcert=/nonexistent/ca.pem")
            .err()
            .unwrap();
        assert!(
            format!("{err:#}").contains("/nonexistent/ca.pem"),
            "{err:#}"
        );
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let url = format!(
            "postgres://db/app?sslmode=require&sslrootcert={}",
            empty.display()
        );
        let err = target(&url).err().unwrap();
        assert!(
            format!("{err:#}").contains("holds no PEM certificate"),
            "{err:#}"
        );
    }

    #[test]
    fn the_mode_reaches_the_connection_settings() {
        let (config, _) = target("postgres://db/app?sslmode=verify-full").unwrap();
        assert_eq!(config.get_ssl_mode(), SslMode::Require);
        let (config, _) = target("postgres://db/app").unwrap();
        assert_eq!(config.get_ssl_mode(), SslMode::Disable);
    }
}
