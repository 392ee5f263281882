//! The store's side of replicas (`aware_domain::ports::fleet`). On PostgreSQL, replicas talk on one
//! notification channel: a group commit that appends events also announces, in the same
//! transaction, how far each run's log now reaches (so the notice is delivered after the commit,
//! never before), and a cancel or an answer given through one replica wakes the replica driving
//! the run. Every replica listens on its own connection and forwards what it hears to its feed.
//! On SQLite the store has one server: [`OneProcess`].

use super::db::Db;
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::events::Resolution;
use aware_domain::ids::RunId;
use aware_domain::ports::fleet::{Fleet, OneProcess, Signal};
use sqlx::postgres::{PgListener, PgPool};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast;

/// The channel replicas share.
const CHANNEL: &str = "aware_runs";
/// Sends one notice on it.
pub(crate) const NOTIFY: &str = "SELECT pg_notify('aware_runs', ?)";
/// PostgreSQL refuses payloads of 8,000 bytes or more.
const MAX_NOTICE: usize = 7_000;

/// The notices announcing appends: each run's last seq (`a <run> <seq>` per line), in as few
/// payloads as fit under PostgreSQL's limit.
pub(crate) fn appended<'a>(events: impl Iterator<Item = (&'a str, i64)>) -> Vec<String> {
    let mut last: BTreeMap<&str, i64> = BTreeMap::new();
    for (run, seq) in events {
        let last = last.entry(run).or_insert(seq);
        *last = (*last).max(seq);
    }
    let mut notices = Vec::new();
    let mut notice = String::new();
    for (run, seq) in last {
        let line = format!("a {run} {seq}\n");
        if notice.len() + line.len() > MAX_NOTICE {
            notices.push(std::mem::take(&mut notice));
        }
        notice.push_str(&line);
    }
    if !notice.is_empty() {
        notices.push(notice);
    }
    notices
}

/// A wake-up's cancel as notice text (empty: an answer).
fn wake_text(cancel: Option<Resolution>) -> &'static str {
    cancel.map_or("", Resolution::as_str)
}

/// The cancel a wake-up's text names (`None`: an answer, or text this version does not know).
fn wake_cancel(text: &str) -> Option<Resolution> {
    Resolution::parse(text).filter(|r| matches!(r, Resolution::Cancelled | Resolution::Superseded))
}

/// The signals one notice carries; lines this version does not understand are skipped.
fn signals(payload: &str) -> Vec<Signal> {
    payload
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(3, ' ');
            let (kind, run) = (parts.next()?, RunId::parse(parts.next()?)?);
            let rest = parts.next().unwrap_or_default();
            match kind {
                "a" => Some(Signal::Appended { run, seq: rest.parse().ok()? }),
                "w" => Some(Signal::Wake { run, cancel: wake_cancel(rest) }),
                _ => None,
            }
        })
        .collect()
}

/// Replicas on one PostgreSQL database.
struct Postgres {
    db: Db,
    pool: PgPool,
}

#[async_trait]
impl Fleet for Postgres {
    fn shared(&self) -> bool {
        true
    }

    async fn wake(&self, run: &RunId, cancel: Option<Resolution>) -> Result<()> {
        self.db.query(NOTIFY).bind(format!("w {run} {}", wake_text(cancel))).execute().await.map_err(super::db)?;
        Ok(())
    }

    fn forward(&self, feed: broadcast::Sender<Signal>) {
        tokio::spawn(listen(self.pool.clone(), feed));
    }
}

/// Listens on the channel for as long as the process lives, reconnecting after a failure; every
/// (re)connection and every lost connection says `Missed`, so followers read the log again.
async fn listen(pool: PgPool, feed: broadcast::Sender<Signal>) {
    loop {
        let mut listener = match PgListener::connect_with(&pool).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for other replicas' runs; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if let Err(e) = listener.listen(CHANNEL).await {
            tracing::warn!(error = %e, "cannot listen for other replicas' runs; retrying");
            tokio::time::sleep(Duration::from_secs(1)).await;
            continue;
        }
        let _ = feed.send(Signal::Missed);
        loop {
            match listener.try_recv().await {
                Ok(Some(notice)) => {
                    for signal in signals(notice.payload()) {
                        let _ = feed.send(signal);
                    }
                }
                // The connection dropped (the listener reconnects on the next call).
                Ok(None) => {
                    let _ = feed.send(Signal::Missed);
                }
                Err(e) => {
                    tracing::warn!(error = %e, "lost the connection that hears other replicas; reconnecting");
                    let _ = feed.send(Signal::Missed);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    break;
                }
            }
        }
    }
}

impl super::Store {
    /// How this store's replicas reach each other: notifications on PostgreSQL; nobody else on
    /// SQLite.
    pub fn fleet(&self) -> Arc<dyn Fleet> {
        match &self.db {
            Db::Postgres(pool) => Arc::new(Postgres { db: self.db.clone(), pool: pool.clone() }),
            Db::Sqlite(_) => Arc::new(OneProcess),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_notice_names_each_runs_last_seq_and_stays_under_the_limit() {
        let runs: Vec<String> = (0..400).map(|_| RunId::generate().to_string()).collect();
        let notices = appended(runs.iter().flat_map(|run| (1..=3).map(move |seq| (run.as_str(), seq))));
        assert!(notices.len() > 1, "400 runs do not fit one notice");
        let mut heard = Vec::new();
        for n in &notices {
            assert!(n.len() < 8_000, "a notice of {} bytes", n.len());
            heard.extend(n.lines().map(str::to_owned));
        }
        assert_eq!(heard.len(), 400, "one line per run");
        assert!(heard.iter().all(|l| l.ends_with(" 3")), "each run's last seq: {heard:?}");
    }

    #[test]
    fn signals_are_read_back_and_unknown_lines_are_skipped() {
        let run = RunId::generate();
        let payload = format!("a {run} 7\nw {run} superseded\nw {run} \nz {run} 1\na {run} soon\n");
        assert_eq!(
            signals(&payload),
            vec![
                Signal::Appended { run: run.clone(), seq: 7 },
                Signal::Wake { run: run.clone(), cancel: Some(Resolution::Superseded) },
                Signal::Wake { run, cancel: None },
            ]
        );
    }
}
