//! A raw HTTP/1.1 client over `std::net::TcpStream` and a handle on the
//! sidecar binary, for the real-socket tests: requests go out exactly as
//! written, hostile targets included.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const TIMEOUT: Duration = Duration::from_secs(10);

/// The `sidecar` binary cargo built for the tests. Cargo names it in
/// `CARGO_BIN_EXE_sidecar` at compile time only to the test binaries (this
/// library is not one); recent cargo also sets it when it runs them. Without
/// it, the binary is where cargo puts it: beside the `deps/` folder that
/// holds the running test binary.
pub fn sidecar_bin() -> PathBuf {
    if let Some(path) = std::env::var_os("CARGO_BIN_EXE_sidecar") {
        return path.into();
    }
    let test = std::env::current_exe().expect("the test binary's path");
    let profile = test
        .parent()
        .and_then(Path::parent)
        .expect("the test binary is in target/<profile>/deps");
    profile.join(format!("sidecar{}", std::env::consts::EXE_SUFFIX))
}

pub struct Server {
    pub child: Child,
    pub addr: SocketAddr,
    /// The admin listener's address (port 0 unless `extra` sets one).
    pub admin: Option<SocketAddr>,
    /// Every line the server has logged so far.
    pub log: Arc<Mutex<Vec<String>>>,
}

/// The address a log line announces after `marker`.
fn announced(line: &str, marker: &str) -> Option<String> {
    let i = line.find(marker)?;
    let rest = &line[i + marker.len()..];
    let end = rest
        .find(|c: char| c == '"' || c.is_whitespace())
        .unwrap_or(rest.len());
    Some(rest[..end].to_owned())
}

impl Server {
    /// Starts the binary on `dist`, with its database beside `dist` (never
    /// in the source tree) and no sample data unless `extra` says otherwise.
    pub fn start(dist: &Path, extra: &[&str]) -> Server {
        let mut command = Command::new(sidecar_bin());
        command
            .args(["serve", "--listen", "127.0.0.1:0", "--dist"])
            .arg(dist)
            .args(extra);
        if !extra.contains(&"--data-dir") {
            let parent = dist.parent().unwrap_or(dist);
            command.arg("--data-dir").arg(parent.join("sidecar-data"));
        }
        if !extra.contains(&"--sample") {
            command.args(["--sample", "none"]);
        }
        let admin_wanted = !extra.contains(&"off");
        if !extra.contains(&"--admin-listen") {
            command.args(["--admin-listen", "127.0.0.1:0"]);
        }
        let mut child = command
            .env_remove("SIDECAR_DATABASE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the sidecar binary starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        let log = Arc::new(Mutex::new(Vec::new()));
        let lines = log.clone();
        std::thread::spawn(move || {
            // Keep draining so the server never blocks on a full pipe.
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(addr) = announced(&line, "admin listener on http://") {
                    let _ = tx.send((true, addr));
                } else if let Some(addr) = announced(&line, "listening on http://") {
                    let _ = tx.send((false, addr));
                }
                lines.lock().unwrap().push(line);
            }
        });
        let (mut addr, mut admin) = (None, None);
        while addr.is_none() || (admin_wanted && admin.is_none()) {
            let (is_admin, a) = rx
                .recv_timeout(TIMEOUT)
                .expect("the server logs its addresses");
            let a = Some(a.parse().unwrap());
            if is_admin { admin = a } else { addr = a }
        }
        Server {
            child,
            addr: addr.unwrap(),
            admin,
            log,
        }
    }

    /// `GET target` on the admin listener.
    pub fn admin_get(&self, target: &str) -> Reply {
        let admin = self.admin.expect("the admin listener is on");
        let mut s = TcpStream::connect(admin).unwrap();
        s.set_read_timeout(Some(TIMEOUT)).unwrap();
        let raw = format!("GET {target} HTTP/1.1\r\nHost: {admin}\r\nConnection: close\r\n\r\n");
        s.write_all(raw.as_bytes()).unwrap();
        read_reply(&mut s, false)
    }

    /// The lines logged so far that contain `needle`.
    pub fn logged(&self, needle: &str) -> Vec<String> {
        let log = self.log.lock().unwrap();
        log.iter().filter(|l| l.contains(needle)).cloned().collect()
    }

    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .arg(format!("-{name}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(Instant::now() < deadline, "the server did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn connect(&self) -> TcpStream {
        let s = TcpStream::connect(self.addr).unwrap();
        s.set_read_timeout(Some(TIMEOUT)).unwrap();
        s.set_write_timeout(Some(TIMEOUT)).unwrap();
        s
    }

    /// One request on a fresh connection (`Connection: close`).
    pub fn request(&self, method: &str, target: &str, headers: &[(&str, &str)]) -> Reply {
        let mut raw = format!(
            "{method} {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        for (k, v) in headers {
            raw.push_str(&format!("{k}: {v}\r\n"));
        }
        raw.push_str("\r\n");
        self.raw(raw.as_bytes(), method == "HEAD")
    }

    pub fn get(&self, target: &str, headers: &[(&str, &str)]) -> Reply {
        self.request("GET", target, headers)
    }

    /// One request with a body (`headers` name its length).
    pub fn send(&self, method: &str, target: &str, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let mut raw = format!(
            "{method} {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        for (k, v) in headers {
            raw.push_str(&format!("{k}: {v}\r\n"));
        }
        raw.push_str("\r\n");
        let mut bytes = raw.into_bytes();
        bytes.extend_from_slice(body);
        self.raw(&bytes, false)
    }

    pub fn raw(&self, bytes: &[u8], head: bool) -> Reply {
        let mut s = self.connect();
        s.write_all(bytes).unwrap();
        read_reply(&mut s, head)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn must(&self, name: &str) -> &str {
        self.header(name)
            .unwrap_or_else(|| panic!("no {name} in {:?}", self.headers))
    }

    pub fn problem(&self, code: &str) -> Value {
        assert_eq!(self.must("content-type"), "application/problem+json");
        let v: Value = serde_json::from_slice(&self.body).expect("a problem body");
        assert_eq!(v["code"], code);
        assert_eq!(v["status"], self.status);
        assert!(
            v["type"]
                .as_str()
                .unwrap()
                .ends_with(&format!("/docs/problems/{code}/"))
        );
        v
    }
}

/// Reads one response: head, then a Content-Length body (or to EOF).
pub fn read_reply(s: &mut TcpStream, head: bool) -> Reply {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = s.read(&mut chunk).expect("reading a response");
        assert!(
            n > 0,
            "connection closed before a response head: {:?}",
            String::from_utf8_lossy(&buf)
        );
        buf.extend_from_slice(&chunk[..n]);
    };
    let text = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = text.split("\r\n");
    let status: u16 = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, v) = l.split_once(':').unwrap();
            (k.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    let mut body = buf[head_end..].to_vec();
    let no_body = head || status == 204 || status == 304;
    let length = headers
        .iter()
        .find(|(k, _)| k == "content-length")
        .map(|(_, v)| v.parse::<usize>().unwrap());
    if !no_body {
        match length {
            Some(len) => {
                while body.len() < len {
                    let n = s.read(&mut chunk).unwrap();
                    assert!(n > 0, "body cut short");
                    body.extend_from_slice(&chunk[..n]);
                }
                body.truncate(len);
            }
            None => {
                s.read_to_end(&mut body).unwrap();
            }
        }
    }
    Reply {
        status,
        headers,
        body,
    }
}
