#![allow(clippy::unwrap_used)]
//! The generated clients outside Rust, driven against the real binary: the Python example (stubs
//! from `clients/python/generate`, grpcio from `.tools/python`) lists datasets and streams a run.
//! (The TypeScript client has its own Node suite: `clients/ts/test`.)

use aware_e2e::{TestServer, workspace_root};
use std::process::Command;

/// The README's Python example works as written: it prints the user's real datasets, the tool the
/// assistant ran, the streamed answer and the run's final status.
#[test]
fn the_python_example_lists_datasets_and_streams_a_run() {
    let python = workspace_root().join(".tools/python/bin/python");
    assert!(python.exists(), "{} is missing: run scripts/install-tools", python.display());
    let server = TestServer::start(&[]);
    let out = Command::new(&python)
        .arg(workspace_root().join("clients/python/example.py"))
        .arg(server.addr.to_string())
        .arg("what are my files?")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("dataset barcelona_apartments: 240 rows"), "{stdout}");
    assert!(stdout.contains("[List datasets]"), "{stdout}");
    assert!(stdout.contains("customer_churn.csv (table `customer_churn`"), "the streamed answer: {stdout}");
    assert!(stdout.trim_end().ends_with("RUN_STATUS_SUCCEEDED"), "{stdout}");

    // An answer about a table comes with the table, printed above the text that refers to it.
    let out = Command::new(&python)
        .arg(workspace_root().join("clients/python/example.py"))
        .arg(server.addr.to_string())
        .arg("average price by neighbourhood")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    let header =
        lines.iter().position(|l| l.starts_with("neighbourhood | ")).unwrap_or_else(|| panic!("no table: {stdout}"));
    let rows = lines[header + 1..].iter().take_while(|l| l.matches(" | ").count() == 1).count();
    assert!(rows >= 3, "the table's rows: {stdout}");
    assert!(lines[header + 1].split(" | ").nth(1).is_some_and(|v| v.parse::<f64>().is_ok()), "{stdout}");
    assert!(stdout.trim_end().ends_with("RUN_STATUS_SUCCEEDED"), "{stdout}");
}

/// A plain `GET` over HTTP/1.1 to the server's one port; returns the head (the status line and
/// the headers, names in lower case) and the body.
fn http_get(server: &TestServer, path: &str) -> (String, String) {
    http_get_with(server, path, "")
}

/// `http_get` with `extra` header lines (each ending in CRLF).
fn http_get_with(server: &TestServer, path: &str, extra: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut conn = std::net::TcpStream::connect(server.addr).unwrap();
    write!(conn, "GET {path} HTTP/1.1\r\nHost: {}\r\n{extra}Connection: close\r\n\r\n", server.addr).unwrap();
    let mut bytes = Vec::new();
    conn.read_to_end(&mut bytes).unwrap();
    let raw = String::from_utf8_lossy(&bytes).into_owned();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let mut lines = head.lines();
    let status = lines.next().unwrap().to_owned();
    let headers: Vec<String> = lines
        .map(|l| match l.split_once(':') {
            Some((name, value)) => format!("{}:{value}", name.to_ascii_lowercase()),
            None => l.to_owned(),
        })
        .collect();
    (format!("{status}\n{}", headers.join("\n")), body.to_owned())
}

/// The value of one header in a head from `http_get`.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(':')).map(str::trim)
}

/// The web UI is served on the API's port: files from `--web-dir`, the app's own routes get
/// `index.html`; without a built UI, a page request says how to get one — and gRPC is untouched.
#[test]
fn the_web_ui_is_served_on_the_api_port() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<title>aware</title>").unwrap();
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join("assets/app.js"), "console.log(1)").unwrap();
    let server = TestServer::start(&["--web-dir", dir.path().to_str().unwrap()]);
    let (status, body) = http_get(&server, "/");
    assert!(status.starts_with("HTTP/1.1 200") && body.contains("<title>aware</title>"), "{status} {body}");
    // The page may run only the app's own scripts and talk only to its own server, in no frame;
    // it is checked again on every load, so a new release is what a reload gets.
    let policy = header(&status, "content-security-policy").unwrap_or_else(|| panic!("no CSP: {status}"));
    for directive in
        ["default-src 'self'", "script-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'"]
    {
        assert!(policy.split(';').any(|d| d.trim() == directive), "{directive} in {policy}");
    }
    assert!(!policy.contains("unsafe-"), "{policy}");
    assert_eq!(header(&status, "x-content-type-options"), Some("nosniff"), "{status}");
    assert_eq!(header(&status, "cache-control"), Some("no-cache"), "{status}");
    let (status, body) = http_get(&server, "/assets/app.js");
    assert!(status.starts_with("HTTP/1.1 200") && body.contains("console.log(1)"), "{status} {body}");
    assert_eq!(header(&status, "cache-control"), Some("public, max-age=31536000, immutable"), "a bundle: {status}");
    assert!(header(&status, "content-security-policy").is_some(), "{status}");
    let (status, body) = http_get(&server, "/runs/run_123");
    assert!(status.starts_with("HTTP/1.1 200") && body.contains("<title>aware</title>"), "an app route: {status}");
    assert!(header(&status, "content-security-policy").is_some(), "{status}");
    // A bundle with compressed copies beside it goes out as the one the browser accepts.
    let script = "console.log('a bundle long enough to be worth compressing');\n".repeat(40);
    std::fs::write(dir.path().join("assets/big.js"), &script).unwrap();
    std::fs::write(dir.path().join("assets/big.js.br"), b"BROTLI-COPY").unwrap();
    std::fs::write(dir.path().join("assets/big.js.gz"), b"GZIP-COPY").unwrap();
    let (status, body) = http_get_with(&server, "/assets/big.js", "Accept-Encoding: gzip, deflate, br\r\n");
    assert_eq!((header(&status, "content-encoding"), body.as_str()), (Some("br"), "BROTLI-COPY"), "{status}");
    assert!(header(&status, "content-type").is_some_and(|t| t.contains("javascript")), "{status}");
    assert_eq!(header(&status, "vary"), Some("accept-encoding"), "{status}");
    let (status, body) = http_get_with(&server, "/assets/big.js", "Accept-Encoding: gzip\r\n");
    assert_eq!((header(&status, "content-encoding"), body.as_str()), (Some("gzip"), "GZIP-COPY"), "{status}");
    let (status, body) = http_get(&server, "/assets/big.js");
    assert!(header(&status, "content-encoding").is_none() && body == script, "no Accept-Encoding: as stored");
    // A bundle that is not there gets the app's page, which is never kept as if it were one.
    let (status, body) = http_get(&server, "/assets/gone-1234.js");
    assert!(body.contains("<title>aware</title>"), "{status} {body}");
    assert_eq!(header(&status, "cache-control"), Some("no-cache"), "{status}");

    let bare = TestServer::start(&[]);
    let (status, body) = http_get(&bare, "/");
    assert!(status.starts_with("HTTP/1.1 404") && body.contains("scripts/serve"), "{status} {body}");

    // At start the server says where the web app is; its log, written to a file, has no colour codes.
    let data = tempfile::tempdir().unwrap();
    let log = std::fs::File::create(data.path().join("stderr.log")).unwrap();
    let mut started = Command::new(aware_e2e::server_bin())
        .args(["serve", "--listen", "127.0.0.1:0", "--web-dir", dir.path().to_str().unwrap(), "--data-dir"])
        .arg(data.path().join("data"))
        .env("AWARE_LOG_LEVEL", "info")
        .env_remove("AWARE_SERVER_BIN")
        .stdout(std::process::Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(started.stdout.take().unwrap()));
    let listening = lines.next().unwrap().unwrap();
    let addr = listening.strip_prefix("aware-server listening on ").unwrap_or_else(|| panic!("{listening}"));
    assert_eq!(lines.next().unwrap().unwrap(), format!("aware-server web app at http://{addr}/"));
    let pid = rustix::process::Pid::from_raw(started.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    let stopped = started.wait().unwrap();
    let logged = std::fs::read_to_string(data.path().join("stderr.log")).unwrap();
    assert!(stopped.success(), "a graceful stop ({stopped:?}): {logged}");
    assert!(logged.contains("INFO"), "the log has lines: {logged}");
    assert!(!logged.contains('\x1b'), "no ANSI escapes in a log file: {logged:?}");

    let missing = Command::new(aware_e2e::server_bin())
        .args(["serve", "--listen", "127.0.0.1:0", "--web-dir", "/nonexistent/ui"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("has no index.html"));
}
