//! A throwaway PostgreSQL cluster for tests and benches. [`PgCluster::start`] runs `initdb` in a
//! temporary directory (as the `postgres` user when the caller is root: PostgreSQL refuses to run
//! as root), starts the server on a free loopback port with trust authentication for local
//! connections only, and [`Drop`] stops that server by its PID and removes the directory (a
//! watchdog stops it too if this process ends without dropping it).
//!
//! The binaries come from `$AWARE_POSTGRES_BIN`, else `pg_config --bindir`, else the newest
//! `/usr/lib/postgresql/<version>/bin` (Debian's layout); `scripts/install-tools` installs them
//! where missing.

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A running cluster; stopped and deleted when dropped.
#[derive(Debug)]
pub struct PgCluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    port: u16,
    pid: u32,
    as_postgres: bool,
}

/// How the cluster trades durability for speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// PostgreSQL's defaults (`fsync = on`): what a deployment runs, for benchmarks.
    Default,
    /// `fsync = off`, `synchronous_commit = off`, `full_page_writes = off`: a crash of the
    /// machine could lose commits, which no test simulates; a crash of an aware process loses
    /// nothing either way.
    Fast,
}

impl PgCluster {
    /// Starts a cluster, or says why it could not.
    pub fn start(durability: Durability) -> Result<Self, String> {
        let bin = binaries()?;
        let as_postgres = is_root();
        let dir = tempfile::Builder::new().prefix("aware-pg-").tempdir().map_err(|e| format!("temp dir: {e}"))?;
        if as_postgres {
            run(Command::new("chown").args(["-R", "postgres:postgres"]).arg(dir.path()))?;
        }
        let data = dir.path().join("data");
        let mut cluster = Self { dir, bin, port: 0, pid: 0, as_postgres };
        let mut initdb = cluster.pg("initdb")?;
        initdb.args(["--auth=trust", "--encoding=UTF8", "--locale=C", "--username=postgres", "-D"]).arg(&data);
        run(&mut initdb)?;
        let mut settings = vec!["listen_addresses=127.0.0.1".to_owned(), "max_connections=300".to_owned()];
        if durability == Durability::Fast {
            settings.extend(["fsync=off", "synchronous_commit=off", "full_page_writes=off"].map(str::to_owned));
        }
        // A port is free when probed, and may be taken before the server binds it: try again.
        let mut last = String::new();
        for _ in 0..5 {
            let port = free_port()?;
            let mut options = format!("-p {port} -k {}", cluster.dir.path().display());
            for s in &settings {
                options.push_str(&format!(" -c {s}"));
            }
            let mut start = cluster.pg("pg_ctl")?;
            start.arg("-D").arg(&data).arg("-l").arg(cluster.dir.path().join("log")).args(["-w", "-t", "60", "-o"]);
            start.arg(&options).arg("start");
            match run(&mut start) {
                Ok(_) => {
                    cluster.port = port;
                    cluster.pid = postmaster_pid(&data)?;
                    cluster.watch();
                    return Ok(cluster);
                }
                Err(e) => {
                    last =
                        format!("{e}\n{}", std::fs::read_to_string(cluster.dir.path().join("log")).unwrap_or_default())
                }
            }
        }
        Err(format!("PostgreSQL did not start: {last}"))
    }

    /// A watchdog that stops the server once this process is gone, however it ends (a panic that
    /// aborts, a SIGKILL, a cluster held in a `static` that is never dropped), then deletes the
    /// cluster's directory (~40 MB, which `Drop` would have deleted); it ends by itself when the
    /// server stops first.
    fn watch(&self) {
        let script = r#"while kill -0 "$0" 2>/dev/null && kill -0 "$1" 2>/dev/null; do sleep 0.5; done
kill -0 "$0" 2>/dev/null && exit 0
kill -QUIT "$1" 2>/dev/null
n=0; while kill -0 "$1" 2>/dev/null && [ $n -lt 100 ]; do sleep 0.2; n=$((n+1)); done
rm -rf "$2""#;
        // In a process group of its own: a test runner that ends a test by killing its process
        // group (nextest on a timeout) must not take the watchdog with it.
        let spawned = Command::new("sh")
            .args(["-c", script, &std::process::id().to_string(), &self.pid.to_string()])
            .arg(self.dir.path())
            .process_group(0)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        // Not waited for: it outlives this process on purpose.
        drop(spawned);
    }

    /// The postmaster's PID (its backends are its children).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of `database` as the `postgres` superuser.
    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates `database` (a name of letters, digits and `_`); its URL.
    pub fn create_database(&self, database: &str) -> Result<String, String> {
        if database.is_empty() || !database.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(format!("{database:?} is not a plain database name"));
        }
        let mut createdb = self.pg("createdb")?;
        createdb.args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", "postgres", database]);
        run(&mut createdb)?;
        Ok(self.url(database))
    }

    /// A PostgreSQL program, run as the user that owns the cluster.
    fn pg(&self, program: &str) -> Result<Command, String> {
        let path = self.bin.join(program);
        if !path.exists() {
            return Err(format!("{} is missing", path.display()));
        }
        let mut command = if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        };
        // Somewhere the cluster's owner may enter.
        command.current_dir(self.dir.path());
        Ok(command)
    }
}

impl Drop for PgCluster {
    fn drop(&mut self) {
        if self.pid == 0 {
            return;
        }
        // Immediate shutdown (SIGQUIT to the postmaster), then wait for it to be gone.
        let _ = Command::new("kill").args(["-QUIT", &self.pid.to_string()]).output();
        let until = Instant::now() + Duration::from_secs(10);
        while Path::new(&format!("/proc/{}", self.pid)).exists() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        if Path::new(&format!("/proc/{}", self.pid)).exists() {
            let _ = Command::new("kill").args(["-KILL", &self.pid.to_string()]).output();
        }
    }
}

fn binaries() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os("AWARE_POSTGRES_BIN") {
        return Ok(PathBuf::from(dir));
    }
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").exists() {
            return Ok(dir);
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Some((e.file_name().to_str()?.parse().ok()?, e.path().join("bin"))))
        .filter(|(_, bin): &(u32, PathBuf)| bin.join("initdb").exists())
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin).ok_or_else(|| {
        "PostgreSQL's server binaries (initdb, pg_ctl) are not installed: run scripts/install-tools, \
         or set AWARE_POSTGRES_BIN to their directory"
            .to_owned()
    })
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| m.uid() == 0).unwrap_or(false)
}

fn free_port() -> Result<u16, String> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port: {e}"))?;
    listener.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

fn postmaster_pid(data: &Path) -> Result<u32, String> {
    let text = std::fs::read_to_string(data.join("postmaster.pid")).map_err(|e| format!("postmaster.pid: {e}"))?;
    text.lines().next().and_then(|l| l.trim().parse().ok()).ok_or_else(|| "postmaster.pid has no PID".to_owned())
}

fn run(command: &mut Command) -> Result<Output, String> {
    let out = command.output().map_err(|e| format!("{command:?}: {e}"))?;
    if out.status.success() {
        return Ok(out);
    }
    Err(format!(
        "{command:?} failed ({}): {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}
