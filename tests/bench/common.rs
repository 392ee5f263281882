//! What the benches share: percentiles, process accounting from `/proc`, and `Chat` requests.

pub(crate) use aware_e2e::rss_kib;
use aware_e2e::{TestServer, proc_stat};
use aware_proto::v1 as pb;
use aware_proto::v1::chat_service_client::ChatServiceClient;
use std::collections::HashMap;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

/// A `Chat` request carrying a user message `text` on `thread`.
pub(crate) fn chat_message(id: &str, thread: &str, text: &str) -> pb::ChatRequest {
    pb::ChatRequest {
        client_msg_id: id.to_owned(),
        kind: Some(pb::chat_request::Kind::Message(pb::UserMessage {
            thread_id: thread.to_owned(),
            text: text.to_owned(),
            on_busy: 0,
        })),
    }
}

/// An open idle `Chat` stream: dropping it closes it.
pub(crate) type IdleStream = (mpsc::Sender<pb::ChatRequest>, tonic::Streaming<pb::ChatResponse>);

/// Opens `n` idle `Chat` streams, each a `Hello` whose answer is read, 100 per connection as many
/// clients would spread them.
pub(crate) async fn idle_chat_streams(server: &TestServer, n: usize) -> anyhow::Result<Vec<IdleStream>> {
    let mut channels = Vec::new();
    for _ in 0..n.div_ceil(100) {
        channels.push(server.channel().await);
    }
    let mut held = Vec::with_capacity(n);
    for i in 0..n {
        let (tx, rx) = mpsc::channel(1);
        tx.send(pb::ChatRequest {
            client_msg_id: format!("hello-{i}"),
            kind: Some(pb::chat_request::Kind::Hello(pb::Hello {
                protocol_version: 1,
                client_instance_id: String::new(),
                resume: vec![],
            })),
        })
        .await?;
        let mut s = ChatServiceClient::new(channels[i / 100].clone()).chat(ReceiverStream::new(rx)).await?.into_inner();
        s.message().await?.expect("accepted");
        held.push((tx, s));
    }
    Ok(held)
}

/// Nearest-rank percentile of sorted values, `p` in 0..=1 (the definition the peer harness uses).
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A process and every descendant: aware's SQL and file workers are child processes, so their
/// CPU and memory are the server's cost too.
pub(crate) struct ProcessTree {
    pub pid: u32,
    ticks: f64,
}

impl ProcessTree {
    pub(crate) fn new(pid: u32) -> Self {
        Self { pid, ticks: rustix::param::clock_ticks_per_second() as f64 }
    }

    fn members(&self) -> Vec<u32> {
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else { continue };
            if let Some(f) = proc_stat(pid) {
                children.entry(f[1] as u32).or_default().push(pid);
            }
        }
        let mut all = vec![self.pid];
        let mut i = 0;
        while i < all.len() {
            all.extend(children.get(&all[i]).into_iter().flatten());
            i += 1;
        }
        all
    }

    /// CPU seconds (user + system) of the tree, counting children that already exited and were
    /// reaped (a restarted worker's time stays counted).
    pub(crate) fn cpu_s(&self) -> f64 {
        let mut ticks = 0;
        for (i, pid) in self.members().into_iter().enumerate() {
            if let Some(f) = proc_stat(pid) {
                // After ')': [0] state, [1] ppid, … [11] utime, [12] stime, [13] cutime, [14] cstime.
                ticks += f[11] + f[12] + if i == 0 { f[13] + f[14] } else { 0 };
            }
        }
        ticks as f64 / self.ticks
    }

    /// Resident memory of the tree, MiB (summed over its processes).
    pub(crate) fn rss_mib(&self) -> f64 {
        self.members().into_iter().map(rss_kib).sum::<u64>() as f64 / 1024.0
    }
}

/// CPU seconds this process has used (the load generator shares the machine with the server).
pub(crate) fn own_cpu_s() -> f64 {
    let ticks = rustix::param::clock_ticks_per_second() as f64;
    proc_stat(std::process::id()).map_or(0.0, |f| (f[11] + f[12]) as f64 / ticks)
}

/// A process's peak RSS, sampled on a thread of its own every `every` until [`PeakRss::stop`].
pub(crate) struct PeakRss {
    sampling: std::sync::Arc<std::sync::atomic::AtomicBool>,
    sampler: std::thread::JoinHandle<u64>,
}

impl PeakRss {
    pub(crate) fn start(pid: u32, every: std::time::Duration) -> Self {
        let sampling = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
        let on = sampling.clone();
        let sampler = std::thread::spawn(move || {
            let mut peak = 0;
            while on.load(std::sync::atomic::Ordering::Relaxed) {
                peak = peak.max(rss_kib(pid));
                std::thread::sleep(every);
            }
            peak
        });
        Self { sampling, sampler }
    }

    /// The highest RSS seen, in KiB.
    pub(crate) fn stop(self) -> u64 {
        self.sampling.store(false, std::sync::atomic::Ordering::Relaxed);
        self.sampler.join().expect("sampler")
    }
}
