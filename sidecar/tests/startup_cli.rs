//! The real binary as a container runs it: `sidecar healthcheck` against a
//! started server and a closed port, and starts that must fail — missing or
//! unreadable `dist/`, an unreachable database, invalid environment values —
//! each exiting non-zero with exactly one error line that names the
//! environment variable at fault.

use std::net::TcpListener;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::Fixture;
use common::client::Server;
use serde_json::Value;

fn sidecar() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sidecar"));
    for (name, _) in std::env::vars() {
        if name.starts_with("SIDECAR_") {
            command.env_remove(name);
        }
    }
    command
}

fn healthcheck(envs: &[(&str, &str)], args: &[&str]) -> Output {
    sidecar()
        .arg("healthcheck")
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .expect("the sidecar binary runs")
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn healthcheck_passes_on_a_running_server_and_fails_on_a_closed_port() {
    let f = Fixture::new();
    let mut server = Server::start(&f.dist, &[]);
    let url = format!("http://{}/healthz", server.addr);

    let by_url = healthcheck(&[], &["--url", &url]);
    assert_eq!(by_url.status.code(), Some(0), "{by_url:?}");
    assert!(String::from_utf8_lossy(&by_url.stdout).contains("answered 200"));

    // The image's HEALTHCHECK passes no argument: the address comes from the
    // server's own SIDECAR_LISTEN.
    let listen = server.addr.to_string();
    let by_env = healthcheck(&[("SIDECAR_LISTEN", &listen)], &[]);
    assert_eq!(by_env.status.code(), Some(0), "{by_env:?}");
    let by_url_env = healthcheck(&[("SIDECAR_HEALTHCHECK_URL", &url)], &[]);
    assert_eq!(by_url_env.status.code(), Some(0), "{by_url_env:?}");

    // A route that does not answer 200 is unhealthy.
    let missing = format!("http://{}/no-such-page", server.addr);
    let not_ok = healthcheck(&[], &["--url", &missing]);
    assert_eq!(not_ok.status.code(), Some(1), "{not_ok:?}");
    assert!(String::from_utf8_lossy(&not_ok.stderr).contains("status 404"));

    server.signal("TERM");
    assert!(server.wait_exit().success());
    let after = healthcheck(&[("SIDECAR_LISTEN", &listen)], &[]);
    assert_eq!(after.status.code(), Some(1), "{after:?}");
    assert!(String::from_utf8_lossy(&after.stderr).starts_with("unhealthy: "));
}

#[test]
fn healthcheck_fails_fast_on_a_closed_port_and_refuses_bad_arguments() {
    let port = closed_port().to_string();
    let started = Instant::now();
    let out = healthcheck(&[("SIDECAR_LISTEN", &format!("0.0.0.0:{port}"))], &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("http://127.0.0.1:{port}/healthz")),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    // A listener that never answers: the timeout bounds the probe.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/healthz", silent.local_addr().unwrap());
    let started = Instant::now();
    let out = healthcheck(&[], &["--url", &url, "--timeout-ms", "300"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(3));

    let out = healthcheck(&[("SIDECAR_HEALTHCHECK_URL", "https://x:1/")], &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("SIDECAR_HEALTHCHECK_URL"));
}

/// Runs `sidecar serve` (loopback, free port) with `envs`; it must exit
/// by itself within 20 s. Returns the output.
fn serve(envs: &[(&str, &str)]) -> Output {
    let mut child = sidecar()
        .args(["serve", "--listen", "127.0.0.1:0", "--sample", "none"])
        .envs(envs.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the sidecar binary runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the sidecar did not exit: {:?}", child.wait_with_output());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The error lines of JSON logs on stdout; stderr must stay empty.
fn json_errors(out: &Output) -> Vec<Value> {
    assert!(
        out.stderr.is_empty(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect();
    lines
        .into_iter()
        .filter(|l| l["level"] == "ERROR")
        .collect()
}

/// Asserts one JSON error line naming `variable`, and returns its message.
fn one_error(out: &Output, code: i32, variable: &str) -> String {
    assert_eq!(out.status.code(), Some(code), "{out:?}");
    let errors = json_errors(out);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["variable"], variable, "{errors:?}");
    let message = errors[0]["message"].as_str().unwrap().to_owned();
    assert!(message.starts_with(variable), "{message}");
    message
}

const JSON_STDOUT: [(&str, &str); 2] = [
    ("SIDECAR_LOG_FORMAT", "json"),
    ("SIDECAR_LOG_OUTPUT", "stdout"),
];

#[test]
fn a_missing_or_unreadable_dist_names_sidecar_dist() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data = data.to_str().unwrap();
    let missing = tmp.path().join("no-dist");
    let mut envs = JSON_STDOUT.to_vec();
    envs.extend([
        ("SIDECAR_DIST", missing.to_str().unwrap()),
        ("SIDECAR_DATA_DIR", data),
    ]);
    let message = one_error(&serve(&envs), 1, "SIDECAR_DIST");
    assert!(message.contains("generate build"), "{message}");

    // A manifest that cannot be read as a file (the same error path as a
    // permission problem, which root would not see).
    let unreadable = tmp.path().join("unreadable");
    std::fs::create_dir_all(unreadable.join("manifest.json")).unwrap();
    envs[2].1 = unreadable.to_str().unwrap();
    one_error(&serve(&envs), 1, "SIDECAR_DIST");
}

#[test]
fn an_unreachable_database_names_sidecar_database_without_its_password() {
    let f = Fixture::new();
    let url = format!(
        "postgres://svc:hunter2-secret@127.0.0.1:{}/db",
        closed_port()
    );
    let mut envs = JSON_STDOUT.to_vec();
    envs.extend([
        ("SIDECAR_DIST", f.dist.to_str().unwrap()),
        ("SIDECAR_DATABASE", url.as_str()),
    ]);
    let out = serve(&envs);
    let message = one_error(&out, 1, "SIDECAR_DATABASE");
    assert!(message.contains("connect"), "{message}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hunter2"));
}

/// While the sidecar is still starting (here: waiting on a database that
/// accepts the connection and never answers), its port refuses
/// connections instead of queueing them: a load balancer's health check
/// fails at once and sends the request elsewhere.
#[test]
fn the_port_refuses_connections_until_the_server_is_ready() {
    let f = Fixture::new();
    let database = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "postgres://svc:pw@127.0.0.1:{}/db?connect_timeout=30",
        database.local_addr().unwrap().port()
    );
    let port = closed_port();
    let listen = format!("127.0.0.1:{port}");
    let mut child = sidecar()
        .args(["serve", "--listen", &listen, "--sample", "none"])
        .envs([
            ("SIDECAR_DIST", f.dist.to_str().unwrap()),
            ("SIDECAR_DATABASE", url.as_str()),
            ("SIDECAR_ADMIN_LISTEN", "off"),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the sidecar binary runs");
    // The database is opened after the port is bound and the release
    // loaded: once it is being connected to, the sidecar is mid-start.
    let (_held, _) = database.accept().unwrap();
    let early = std::net::TcpStream::connect(("127.0.0.1", port));
    let _ = child.kill();
    let _ = child.wait();
    let error = early.expect_err("a starting sidecar accepted a connection");
    assert_eq!(error.kind(), std::io::ErrorKind::ConnectionRefused);
}

#[test]
fn invalid_environment_values_name_their_variable() {
    let f = Fixture::new();
    let dist = f.dist.to_str().unwrap();
    for (name, value, needle) in [
        ("SIDECAR_MAX_CONNECTIONS", "many", "invalid value"),
        ("SIDECAR_MAX_CONNECTIONS", "0", "at least 1"),
        ("SIDECAR_LISTEN", "localhost", "invalid value"),
        ("SIDECAR_SHUTDOWN_TIMEOUT_MS", "0", "between 1 and"),
        ("SIDECAR_DATABASE", "mysql://db", "sqlite: or postgres://"),
        ("SIDECAR_SITE_ORIGIN", "example.org", "scheme://host"),
        ("SIDECAR_SAMPLE", "huge", "possible values"),
        ("SIDECAR_LOG", "[[[", "invalid filter"),
    ] {
        let mut envs = JSON_STDOUT.to_vec();
        envs.extend([("SIDECAR_DIST", dist), (name, value)]);
        // The environment wins here only where no flag is given: `serve()`
        // passes --listen and --sample, so test those through the flags'
        // absence below.
        let out = if name == "SIDECAR_LISTEN" || name == "SIDECAR_SAMPLE" {
            sidecar()
                .arg("serve")
                .envs(envs.iter().copied())
                .output()
                .unwrap()
        } else {
            serve(&envs)
        };
        let message = one_error(&out, 2, name);
        assert!(message.contains(needle), "{name}={value}: {message}");
    }
    // An invalid log format is itself reported, as text on stderr.
    let out = sidecar()
        .args(["serve", "--dist", dist])
        .env("SIDECAR_LOG_FORMAT", "yaml")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("ERROR")
            && stderr.contains("SIDECAR_LOG_FORMAT (--log-format, from the environment)"),
        "{stderr}"
    );
}

/// The soft open-file limit of a running process, from `/proc`.
fn soft_open_files(pid: u32) -> Option<u64> {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

#[test]
fn the_open_file_limit_is_raised_to_what_max_connections_needs() {
    let f = Fixture::new();
    let data = tempfile::tempdir().unwrap();
    // A soft limit of 256, as a cautious shell would leave it; the hard
    // limit stays what it is.
    let mut child = Command::new("sh")
        .args(["-c", "ulimit -Sn 256 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_sidecar"))
        .args(["serve", "--listen", "127.0.0.1:0", "--sample", "none"])
        .args(["--max-connections", "2000", "--dist"])
        .arg(&f.dist)
        .arg("--data-dir")
        .arg(data.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let hard = std::fs::read_to_string("/proc/self/limits")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(4).map(str::to_owned))
        .unwrap();
    let wanted: u64 = 2000 + 64 + 64;
    let expected = hard.parse::<u64>().map_or(wanted, |h| h.min(wanted));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut soft = None;
    let binary = std::fs::canonicalize(env!("CARGO_BIN_EXE_sidecar")).unwrap();
    while Instant::now() < deadline {
        // Read only once the shell has lowered its limit and exec'd.
        let exe = std::fs::read_link(format!("/proc/{}/exe", child.id()));
        if exe.is_ok_and(|exe| exe == binary) {
            soft = soft_open_files(child.id());
            if soft == Some(expected) {
                break;
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(soft, Some(expected), "hard limit {hard}");
}
