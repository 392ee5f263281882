//! MCP sessions under a flood: the server's memory while users open `/mcp` sessions as fast as
//! they can, and after. In api-key mode, `--users` viewer keys (default 1, the reproduction of
//! issue 54: one key from 8 threads for 60 s) loop `initialize` + `notifications/initialized`
//! over `--threads` threads for `--secs` seconds (each request a new HTTP/1.1 connection, as a
//! script would). Prints the server's RSS before (baseline), at its peak, at the end and
//! `--settle-secs` later, and how many sessions were opened and how many `initialize`s were
//! refused: 429 (the user's request rate or session cap) or 503 (the server's session cap).
//! Default limits unless `--env KEY=VALUE` sets others (e.g. `AWARE_MCP__MAX_SESSIONS=4096`).
//!
//! Run: `scripts/bench mcp [--secs 60] [--threads 8] [--users 1] [--settle-secs 0]`.

use crate::common::{PeakRss, rss_kib};
use aware_e2e::{TestServer, add_user};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub(crate) struct Opts {
    /// How long the flood lasts.
    #[arg(long, default_value_t = 60)]
    secs: u64,
    /// Threads looping `initialize`.
    #[arg(long, default_value_t = 8)]
    threads: usize,
    /// Viewer keys the threads take turns with.
    #[arg(long, default_value_t = 1)]
    users: usize,
    /// How long to wait after the flood before the last RSS sample.
    #[arg(long, default_value_t = 0)]
    settle_secs: u64,
    /// Server environment, `KEY=VALUE` (repeatable).
    #[arg(long = "env")]
    env: Vec<String>,
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"flood","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// One POST to `/mcp`; the answer's status and its session id, if any.
fn post(addr: SocketAddr, token: &str, body: &str, session: Option<&str>) -> std::io::Result<(u16, Option<String>)> {
    let mut conn = TcpStream::connect(addr)?;
    conn.set_read_timeout(Some(Duration::from_secs(30)))?;
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2025-11-25\r\n\
         Authorization: Bearer {token}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(s) = session {
        head.push_str(&format!("Mcp-Session-Id: {s}\r\n"));
    }
    write!(conn, "{head}\r\n{body}")?;
    let mut answer = Vec::new();
    conn.read_to_end(&mut answer)?;
    let answer = String::from_utf8_lossy(&answer);
    let status = answer.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let session = answer.lines().take_while(|l| !l.is_empty()).find_map(|l| {
        let (name, value) = l.split_once(':')?;
        name.eq_ignore_ascii_case("mcp-session-id").then(|| value.trim().to_owned())
    });
    Ok((status, session))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

pub(crate) async fn main(opts: Opts) -> anyhow::Result<()> {
    let env: Vec<(&str, &str)> = opts.env.iter().filter_map(|kv| kv.split_once('=')).collect();
    let server = TestServer::start_with_env(&["--auth", "api-key", "--no-samples"], &env);
    let pid = server.pid().expect("the server runs");
    let tokens: Vec<String> =
        (0..opts.users.max(1)).map(|i| add_user(&server.data_dir, &format!("flood{i}"), "viewer", &[])).collect();
    // Warm up: one session each, so the baseline includes what a first request allocates.
    for token in &tokens {
        if let (200, Some(s)) = post(server.addr, token, INITIALIZE, None)? {
            post(server.addr, token, INITIALIZED, Some(&s))?;
        }
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let baseline = rss_kib(pid);

    let peak = PeakRss::start(pid, Duration::from_millis(200));
    let stop = Arc::new(AtomicBool::new(false));
    let counter = || Arc::new(AtomicUsize::new(0));
    let (opened, refused, full, other) = (counter(), counter(), counter(), counter());
    let started = Instant::now();
    let mut threads = Vec::new();
    for t in 0..opts.threads {
        let (stop, opened, refused, full, other) =
            (stop.clone(), opened.clone(), refused.clone(), full.clone(), other.clone());
        let (addr, tokens) = (server.addr, tokens.clone());
        threads.push(std::thread::spawn(move || {
            let mut i = t;
            while !stop.load(Ordering::Relaxed) {
                let token = &tokens[i % tokens.len()];
                i += 1;
                match post(addr, token, INITIALIZE, None) {
                    Ok((200, Some(s))) => {
                        opened.fetch_add(1, Ordering::Relaxed);
                        let _ = post(addr, token, INITIALIZED, Some(&s));
                    }
                    Ok((429, _)) => {
                        refused.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok((503, _)) => {
                        full.fetch_add(1, Ordering::Relaxed);
                    }
                    Ok(_) | Err(_) => {
                        other.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(opts.secs)).await;
    stop.store(true, Ordering::Relaxed);
    for t in threads {
        t.join().expect("a flood thread");
    }
    let secs = started.elapsed().as_secs_f64();
    let at_end = rss_kib(pid);
    let peak = peak.stop();
    println!(
        "MCP session flood: {} viewer key(s), {} threads, {secs:.0} s: {} sessions opened, {} refused with 429, {} with \
         503, {} other",
        tokens.len(),
        opts.threads,
        opened.load(Ordering::Relaxed),
        refused.load(Ordering::Relaxed),
        full.load(Ordering::Relaxed),
        other.load(Ordering::Relaxed)
    );
    println!(
        "server RSS: baseline {:.0} MiB, peak {:.0} MiB (+{:.0}), at the end {:.0} MiB (+{:.0})",
        mib(baseline),
        mib(peak),
        mib(peak.saturating_sub(baseline)),
        mib(at_end),
        mib(at_end.saturating_sub(baseline))
    );
    if opts.settle_secs > 0 {
        tokio::time::sleep(Duration::from_secs(opts.settle_secs)).await;
        let settled = rss_kib(pid);
        println!(
            "server RSS {} s after the flood: {:.0} MiB (+{:.0})",
            opts.settle_secs,
            mib(settled),
            mib(settled.saturating_sub(baseline))
        );
    }
    Ok(())
}
