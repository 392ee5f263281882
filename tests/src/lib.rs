//! Test harness for the end-to-end suites: starts the real `aware-server` binary on port 0 with a
//! fresh data dir, waits for its "listening" line, and stops it (SIGTERM, then SIGKILL) when
//! dropped. Every test stops what it started.

#![allow(clippy::wildcard_enum_match_arm)] // a test names the kind it expects: any other kind fails it, or is skipped

pub mod events;
pub mod fake_llm;
pub mod storage;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;

/// The server binary: `$AWARE_SERVER_BIN`, or `aware-server` in the profile directory of the running
/// executable (a test in `debug/deps/` or a bench binary in `debug/`), where `cargo build -p
/// aware-server` puts it.
pub fn server_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("AWARE_SERVER_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test executable path");
    let mut dir = exe.parent().expect("target profile dir");
    if dir.ends_with("deps") {
        dir = dir.parent().expect("target profile dir");
    }
    let bin = dir.join("aware-server");
    assert!(bin.exists(), "{} is missing: run `cargo build -p aware-server` first (scripts/test does)", bin.display());
    bin
}

/// The checkout these suites belong to.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_owned()
}

/// A file `scripts/install-tools` puts in the checkout (`.tools/…`, `tests/mcp/node_modules/…`).
pub fn installed(path: &str) -> PathBuf {
    let p = workspace_root().join(path);
    assert!(p.exists(), "{} is missing: run scripts/install-tools (scripts/test does)", p.display());
    p
}

/// The `aware` CLI, beside the server's binary.
pub fn cli_bin() -> PathBuf {
    let bin = server_bin().with_file_name("aware");
    assert!(bin.exists(), "{} is missing: cargo build --workspace --bins", bin.display());
    bin
}

/// The search embedding model `scripts/install-tools` puts in the checkout (all-MiniLM-L6-v2):
/// `$E2E_MODEL_DIR` (set by `scripts/env.sh`, so a binary built from another checkout sharing the
/// target directory still finds this one's model), else beside the crate that was compiled.
/// Servers get it only when a test passes it (`AWARE_SEARCH__MODEL_DIR`): embedding the samples
/// costs CPU that most suites do not need.
pub fn model_dir() -> String {
    let dir = std::env::var_os("E2E_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.tools/models/all-minilm-l6-v2"));
    assert!(dir.join("model.safetensors").exists(), "{} is missing: run scripts/install-tools", dir.display());
    dir.canonicalize().expect("model dir").display().to_string()
}

/// The reply file of the scripted model (`agent.model = "script"`), removed when dropped.
pub struct ScriptFile {
    path: String,
    _dir: tempfile::TempDir,
}

impl ScriptFile {
    pub fn new(script: &serde_json::Value) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("script.json");
        std::fs::write(&path, script.to_string()).expect("write the script");
        Self { path: path.to_str().expect("utf-8 path").to_owned(), _dir: dir }
    }

    /// The server environment that selects this script as the model.
    pub fn env(&self) -> [(&'static str, &str); 2] {
        [("AWARE_AGENT__MODEL", "script"), ("AWARE_AGENT__SCRIPT", self.path.as_str())]
    }
}

/// Uploads `bytes` as `filename` through `UploadDataset`, in 1 MiB chunks.
pub async fn upload(
    server: &TestServer,
    filename: &str,
    bytes: Vec<u8>,
) -> Result<aware_proto::v1::Dataset, tonic::Status> {
    use aware_proto::v1::UploadDatasetRequest;
    let size = bytes.len() as u64;
    let chunks: Vec<UploadDatasetRequest> = bytes
        .chunks(1 << 20)
        .enumerate()
        .map(|(i, c)| UploadDatasetRequest {
            filename: if i == 0 { filename.into() } else { String::new() },
            size_bytes: if i == 0 { size } else { 0 },
            chunk: c.to_vec().into(),
            ..Default::default()
        })
        .collect();
    let response = server.datasets().await.upload_dataset(futures::stream::iter(chunks)).await?;
    Ok(response.into_inner().dataset.unwrap_or_default())
}

/// Uploads a small file (one message) as the user `client` acts for, and returns its dataset.
pub async fn upload_as(client: &aware_client::AwareClient, filename: &str, bytes: &[u8]) -> aware_proto::v1::Dataset {
    let upload = aware_proto::v1::UploadDatasetRequest {
        filename: filename.into(),
        size_bytes: bytes.len() as u64,
        chunk: bytes.to_vec().into(),
        ..Default::default()
    };
    let response = client.datasets().upload_dataset(futures::stream::iter([upload])).await.expect("upload");
    response.into_inner().dataset.unwrap_or_default()
}

/// The fields of `/proc/PID/stat` after the command name (field 3 onwards; the state letter reads
/// as 0): `[1]` is the parent pid, `[11]`/`[12]` user/system CPU ticks, `[13]`/`[14]` those of reaped
/// children. `None` once the process is gone.
pub fn proc_stat(pid: u32) -> Option<Vec<u64>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = stat.rsplit_once(')')?.1;
    Some(rest.split_whitespace().map(|f| f.parse().unwrap_or(0)).collect())
}

/// Resident memory of a process, KiB (0 once it is gone).
pub fn rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).map(str::to_owned))
        .and_then(|l| l.split_whitespace().nth(1).and_then(|n| n.parse().ok()))
        .unwrap_or(0)
}

/// A running server.
pub struct TestServer {
    child: Option<Child>,
    pub addr: SocketAddr,
    /// The admin port (`/metrics`, `/healthz`, `/readyz`) when started with `--admin-listen`.
    pub admin: Option<SocketAddr>,
    pub data_dir: PathBuf,
    _tmp: Option<tempfile::TempDir>,
    stderr_log: PathBuf,
    /// Names the server among replicas sharing its data dir (its log file is its own).
    replica: String,
}

impl TestServer {
    /// Starts a server on a fresh data dir.
    pub fn start(args: &[&str]) -> Self {
        Self::start_with_env(args, &[])
    }

    pub fn start_with_env(args: &[&str], env: &[(&str, &str)]) -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data_dir = tmp.path().join("data");
        let mut server = Self::start_in(&data_dir, args, env);
        server._tmp = Some(tmp);
        server
    }

    /// Starts a server on an existing (or new) data dir that the caller keeps.
    pub fn start_in(data_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::start_at(data_dir, "127.0.0.1:0", args, env)
    }

    /// Starts a server listening on `listen` (`127.0.0.1:0` picks a free port).
    pub fn start_at(data_dir: &Path, listen: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::spawn(Command::new(server_bin()), data_dir, listen, "", args, env)
    }

    /// Starts `replica`, one of several servers sharing `data_dir` (and, through `env`, one
    /// PostgreSQL database); each keeps a log of its own.
    pub fn start_replica(data_dir: &Path, replica: &str, args: &[&str], env: &[(&str, &str)]) -> Self {
        Self::spawn(Command::new(server_bin()), data_dir, "127.0.0.1:0", replica, args, env)
    }

    /// Starts a server whose data dir is a `size_mb` MiB tmpfs of its own (a private mount
    /// namespace through `unshare`), so a test can fill the disk without touching the machine.
    pub fn start_on_small_disk(size_mb: u32, args: &[&str], env: &[(&str, &str)]) -> Self {
        let tmp = tempfile::tempdir().expect("temp dir");
        let data_dir = tmp.path().join("data");
        std::fs::create_dir_all(&data_dir).expect("data dir");
        let mut cmd = Command::new("unshare");
        cmd.args(["--user", "--map-root-user", "--mount", "sh", "-c"])
            .arg(format!("mount -t tmpfs -o size={size_mb}m aware-test \"$0\" && exec \"$@\""))
            .arg(&data_dir)
            .arg(server_bin());
        let mut server = Self::spawn(cmd, &data_dir, "127.0.0.1:0", "", args, env);
        server._tmp = Some(tmp);
        server
    }

    /// Runs `cmd` (the server binary, or a wrapper that execs it with the arguments appended).
    fn spawn(
        mut cmd: Command,
        data_dir: &Path,
        listen: &str,
        replica: &str,
        args: &[&str],
        env: &[(&str, &str)],
    ) -> Self {
        std::fs::create_dir_all(data_dir).expect("data dir");
        let tag = if replica.is_empty() { String::new() } else { format!("{replica}.") };
        let stderr_log = data_dir.with_extension(format!("stderr.{tag}{}.log", std::process::id()));
        let stderr = std::fs::File::create(&stderr_log).expect("stderr log");
        cmd.args(["serve", "--listen", listen, "--data-dir"])
            .arg(data_dir)
            .args(args)
            .env_remove("AWARE_LISTEN")
            // The harness's own setting, not the server's (it would be an unknown config key).
            .env_remove("AWARE_SERVER_BIN")
            .env_remove("AWARE_E2E_STORE")
            // Nor does a developer's trace collector belong in a test's server.
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
            .env_remove("OTEL_EXPORTER_OTLP_HEADERS")
            .env("AWARE_LOG_LEVEL", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr);
        if let Some(url) = storage::url_for(data_dir) {
            cmd.env("AWARE_STORAGE__URL", url);
            // A server killed and restarted continues its runs once its old lease expires.
            cmd.env("AWARE_STORAGE__LEASE_MS", "2000");
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn aware-server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            // The admin line, when there is one, comes first.
            let mut admin = None;
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(addr) = line.strip_prefix("aware-server admin listening on ") {
                    admin = addr.trim().parse::<SocketAddr>().ok();
                } else if let Some(addr) = line.strip_prefix("aware-server listening on ") {
                    let _ = tx.send((addr.trim().to_owned(), admin));
                }
            }
        });
        let (addr, admin) = match rx.recv_timeout(Duration::from_secs(120)) {
            Ok((a, admin)) => (a.parse().expect("listening address"), admin),
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("server did not start; stderr:\n{}", std::fs::read_to_string(&stderr_log).unwrap_or_default());
            }
        };
        if storage::postgres() {
            assert!(!data_dir.join("aware.db").exists(), "a server told to use PostgreSQL made a SQLite database");
        }
        Self {
            child: Some(child),
            addr,
            admin,
            data_dir: data_dir.to_owned(),
            _tmp: None,
            stderr_log,
            replica: replica.to_owned(),
        }
    }

    /// `GET path` on the admin port: (HTTP status, body).
    pub fn admin_get(&self, path: &str) -> (u16, String) {
        use std::io::{Read, Write};
        let addr = self.admin.expect("started with --admin-listen");
        let mut conn = std::net::TcpStream::connect(addr).expect("connect to the admin port");
        write!(conn, "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").expect("request");
        let mut raw = String::new();
        conn.read_to_string(&mut raw).expect("response");
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
        let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        (status, body.to_owned())
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn channel(&self) -> Channel {
        Channel::from_shared(self.url()).expect("url").connect().await.expect("connect")
    }

    pub async fn datasets(&self) -> DatasetsServiceClient<Channel> {
        DatasetsServiceClient::new(self.channel().await).max_decoding_message_size(64 << 20)
    }

    /// The server's stderr so far (its logs).
    pub fn logs(&self) -> String {
        std::fs::read_to_string(&self.stderr_log).unwrap_or_default()
    }

    /// The server's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        self.child.as_mut().is_some_and(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// SIGTERM, then waits for a graceful exit (SIGKILL after 20 s). Returns the exit success.
    pub fn stop(&mut self) -> bool {
        let Some(mut child) = self.child.take() else { return true };
        let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => return status.success(),
                Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
                _ => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return false;
                }
            }
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_file(&self.stderr_log);
    }
}

/// Runs `aware-server users add` and returns the printed token (the last word of its output).
pub fn add_user(data_dir: &Path, name: &str, role: &str, extra: &[&str]) -> String {
    let mut command = Command::new(server_bin());
    // The harness's own settings, not the server's (unknown config keys).
    command.env_remove("AWARE_E2E_STORE").env_remove("AWARE_SERVER_BIN");
    if let Some(url) = storage::url_for(data_dir) {
        command.env("AWARE_STORAGE__URL", url);
    }
    let out = command
        .args(["users", "add", "--data-dir"])
        .arg(data_dir)
        .args(["--name", name, "--role", role])
        .args(extra)
        .output()
        .expect("run users add");
    assert!(out.status.success(), "users add failed: {}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).expect("utf-8 output");
    stdout.split_whitespace().last().expect("a token").to_owned()
}

/// Wraps a message in a request carrying a bearer token (and optionally a source header).
pub fn authed<T>(message: T, token: &str) -> tonic::Request<T> {
    let mut req = tonic::Request::new(message);
    let value: MetadataValue<_> = format!("Bearer {token}").parse().expect("header value");
    req.metadata_mut().insert("authorization", value);
    req
}

/// The `ErrorInfo.reason` of a failed call.
/// A cell as text, for comparing rows: `NULL`, numbers as Rust prints them, `date:<days>`.
pub fn cell(v: &aware_proto::v1::Value) -> String {
    use aware_proto::v1::value::Kind;
    match v.kind.as_ref().expect("cell") {
        Kind::NullValue(_) => "NULL".into(),
        Kind::BoolValue(b) => b.to_string(),
        Kind::IntValue(n) => n.to_string(),
        Kind::DoubleValue(x) => x.to_string(),
        Kind::StringValue(s) | Kind::DecimalValue(s) | Kind::TextValue(s) => s.clone(),
        Kind::DateValue(d) => format!("date:{d}"),
        other @ (Kind::TimestampValue(_) | Kind::TimeValue(_) | Kind::BytesValue(_)) => format!("{other:?}"),
    }
}

pub fn reason(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default()
}

/// The field named by a failed call's `BadRequest` detail.
pub fn bad_field(status: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    status
        .get_error_details()
        .bad_request()
        .and_then(|b| b.field_violations.first().map(|v| v.field.clone()))
        .unwrap_or_default()
}

impl TestServer {
    /// An `aware-client` for this server (as the API source), with `token` in api-key mode.
    pub async fn client(&self, token: Option<&str>) -> aware_client::AwareClient {
        aware_client::AwareClient::connect(&self.url(), token, "api").await.expect("connect aware-client")
    }

    /// A ChatService client on a new connection.
    pub async fn chat(&self) -> aware_proto::v1::chat_service_client::ChatServiceClient<Channel> {
        aware_proto::v1::chat_service_client::ChatServiceClient::new(self.channel().await)
            .max_decoding_message_size(64 << 20)
    }

    /// A RunsService client on a new connection.
    pub async fn runs(&self) -> aware_proto::v1::runs_service_client::RunsServiceClient<Channel> {
        aware_proto::v1::runs_service_client::RunsServiceClient::new(self.channel().await)
            .max_decoding_message_size(64 << 20)
    }

    /// A QueryService client on a new connection.
    pub async fn query(&self) -> aware_proto::v1::query_service_client::QueryServiceClient<Channel> {
        aware_proto::v1::query_service_client::QueryServiceClient::new(self.channel().await)
            .max_decoding_message_size(64 << 20)
    }

    /// SIGKILL, then waits for the process to be gone: a crash, with no chance to flush or clean up.
    pub fn kill9(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        let pid = rustix::process::Pid::from_raw(child.id() as i32).expect("pid");
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        let _ = child.wait();
    }

    /// Starts a new server process on this server's data dir after `stop` or `kill9` (the temp dir
    /// it owns, if any, stays alive). The address changes: make new clients.
    pub fn restart(&mut self, args: &[&str], env: &[(&str, &str)]) {
        self.restart_on("127.0.0.1:0", args, env);
    }

    /// As `restart`, on `listen` — e.g. the old address, so clients that reconnect find it.
    pub fn restart_on(&mut self, listen: &str, args: &[&str], env: &[(&str, &str)]) {
        assert!(self.child.is_none(), "stop or kill9 the server before restarting it");
        let mut next = Self::spawn(Command::new(server_bin()), &self.data_dir, listen, &self.replica, args, env);
        next._tmp = self._tmp.take();
        // The new process writes the same log file: the old handle must not remove it when dropped.
        self.stderr_log = PathBuf::new();
        *self = next;
    }
}
