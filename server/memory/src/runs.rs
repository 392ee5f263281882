//! The runs, in memory: the state the run log and the run records share, and the run records
//! ([`RunStore`]).

use crate::lock;
use async_trait::async_trait;
use aware_domain::events::RunEvent;
use aware_domain::grounding::Grounding;
use aware_domain::ids::{ConfirmationId, RunId, ThreadId, UserId};
use aware_domain::ports::RunStore;
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::{ChatRun, Confirmation, Lease, SessionGrant, Snapshot, SpanRecord, ThreadSummary};
use aware_domain::run::ToolCallRow;
use aware_domain::run::{Capsule, Feedback, Rating, RunError, RunKind, RunOutcome, RunRecord, RunStatus, Usage};
use aware_domain::{Error, Result};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

/// The runs, in memory: the run engine's log ([`RunLog`]) and the run records ([`RunStore`]),
/// which share them as the SQLite adapter's `runs` table does.
#[derive(Default)]
pub struct MemoryRuns {
    pub(crate) state: Mutex<State>,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) threads: HashMap<ThreadId, StoredThread>,
    pub(crate) snapshots: HashMap<ThreadId, Snapshot>,
    pub(crate) grants: Vec<(SessionGrant, Option<DateTime<Utc>>)>,
    /// By id: run ids sort by creation, so this is oldest first.
    pub(crate) runs: BTreeMap<RunId, StoredRun>,
    pub(crate) events: HashMap<RunId, BTreeMap<u64, RunEvent>>,
    pub(crate) messages: HashMap<RunId, BTreeMap<u32, Message>>,
    /// Per run, in the order calls were first recorded.
    pub(crate) tool_calls: HashMap<RunId, Vec<ToolCallRow>>,
    pub(crate) confirmations: HashMap<ConfirmationId, Confirmation>,
    pub(crate) spans: HashMap<RunId, Vec<SpanRecord>>,
    pub(crate) capsules: HashMap<RunId, Capsule>,
    /// Each finished chat run's answer grounding.
    pub(crate) groundings: HashMap<RunId, Grounding>,
}

pub(crate) struct StoredThread {
    pub(crate) owner: UserId,
    pub(crate) title: Option<String>,
    pub(crate) created_at: DateTime<Utc>,
    pub(crate) forked_from: Option<(ThreadId, RunId)>,
}

pub(crate) struct StoredRun {
    pub(crate) run: ChatRun,
    pub(crate) route_json: Option<String>,
    /// Who drives it, until when.
    pub(crate) lease: Option<Lease>,
    /// Its place in its thread's queue (lowest first).
    pub(crate) queue_rank: i64,
}

impl StoredRun {
    pub(crate) fn new(run: ChatRun, route_json: Option<String>) -> Self {
        Self { run, route_json, lease: None, queue_rank: 0 }
    }

    /// Whether it holds its thread.
    pub(crate) fn holds_thread(&self) -> bool {
        self.run.record.kind.is_driven()
            && matches!(self.run.record.status, RunStatus::Running | RunStatus::AwaitingConfirmation)
    }
}

pub(crate) fn active(status: RunStatus) -> bool {
    matches!(status, RunStatus::Queued | RunStatus::Running | RunStatus::AwaitingConfirmation)
}

impl MemoryRuns {
    pub(crate) fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }
}

impl State {
    pub(crate) fn summary(&self, id: &ThreadId) -> Option<ThreadSummary> {
        let t = self.threads.get(id)?;
        let runs: Vec<&RunRecord> = self
            .runs
            .values()
            .map(|x| &x.run.record)
            .filter(|r| r.thread_id.as_ref() == Some(id) && r.kind == RunKind::Chat)
            .collect();
        Some(ThreadSummary {
            id: id.clone(),
            owner: t.owner.clone(),
            title: t.title.clone(),
            created_at: t.created_at,
            last_activity_at: runs.iter().map(|r| r.created_at).max().unwrap_or(t.created_at),
            run_count: u32::try_from(runs.len()).unwrap_or(u32::MAX),
            last_run_status: runs.last().map(|r| r.status),
            last_run_outcome: runs.last().and_then(|r| r.outcome),
            forked_from: t.forked_from.clone(),
        })
    }

    /// Whether the thread's title or one of its chat questions holds `text` (lower case).
    pub(crate) fn thread_holds(&self, id: &ThreadId, text: &str) -> bool {
        let title = self.threads.get(id).and_then(|t| t.title.as_deref()).unwrap_or_default();
        title.to_lowercase().contains(text)
            || self.runs.values().map(|x| &x.run.record).any(|r| {
                r.thread_id.as_ref() == Some(id) && r.kind == RunKind::Chat && r.question.to_lowercase().contains(text)
            })
    }

    /// The run holding `thread`.
    pub(crate) fn holder(&self, thread: Option<&ThreadId>) -> Option<RunId> {
        let thread = thread?;
        self.runs
            .values()
            .find(|x| x.run.record.thread_id.as_ref() == Some(thread) && x.holds_thread())
            .map(|x| x.run.record.id.clone())
    }

    /// How many of `owner`'s runs (chat and tool) have not finished.
    pub(crate) fn unfinished_of(&self, owner: &UserId) -> usize {
        self.runs
            .values()
            .filter(|x| x.run.record.kind.is_driven() && &x.run.record.owner == owner && active(x.run.record.status))
            .count()
    }

    pub(crate) fn run_mut(&mut self, id: &RunId) -> Option<&mut ChatRun> {
        self.runs.get_mut(id).map(|r| &mut r.run)
    }

    /// Appends an event to its run's log; a seq is written once.
    pub(crate) fn append(&mut self, event: &RunEvent) -> Result<()> {
        let log = self.events.entry(event.run_id.clone()).or_default();
        if log.contains_key(&event.seq) {
            return Err(Error::internal(format!("event {} of run {} is already stored", event.seq, event.run_id)));
        }
        log.insert(event.seq, event.clone());
        Ok(())
    }
}

#[async_trait]
impl RunStore for MemoryRuns {
    async fn insert_run(&self, run: &RunRecord) -> Result<()> {
        let mut s = self.state();
        if s.runs.contains_key(&run.id) {
            return Err(Error::internal(format!("run {} exists already", run.id)));
        }
        // Query runs carry no role; a chat run is created through the run log.
        let stored = ChatRun { record: run.clone(), role: aware_domain::auth::Role::Viewer, key: None, cancel: None };
        s.runs.insert(run.id.clone(), StoredRun::new(stored, None));
        Ok(())
    }

    async fn finish_run(&self, id: &RunId, status: RunStatus, error: Option<&RunError>, usage: &Usage) -> Result<()> {
        if let Some(run) = self.state().run_mut(id) {
            run.record.status = status;
            run.record.outcome = RunOutcome::of_status(status);
            run.record.error = error.cloned();
            run.record.usage = *usage;
            run.record.completed_at = Some(Utc::now());
        }
        Ok(())
    }

    async fn save_capsule(&self, id: &RunId, capsule: &Capsule) -> Result<()> {
        let stored = Capsule { tool_calls: Vec::new(), ..capsule.clone() };
        self.state().capsules.insert(id.clone(), stored);
        Ok(())
    }

    async fn query_runs_of(&self, owner: &UserId, parent: &RunId) -> Result<Vec<(RunRecord, Capsule)>> {
        let s = self.state();
        let mut runs: Vec<(RunRecord, Capsule)> = s
            .runs
            .values()
            .map(|x| &x.run.record)
            .filter(|r| {
                &r.owner == owner
                    && r.parent_run_id.as_ref() == Some(parent)
                    && matches!(r.kind, RunKind::Sql | RunKind::QueryPlan)
            })
            .map(|r| (r.clone(), s.capsules.get(&r.id).cloned().unwrap_or_default()))
            .collect();
        runs.sort_by(|a, b| a.0.id.as_str().cmp(b.0.id.as_str()));
        Ok(runs)
    }

    async fn get_run(&self, owner: &UserId, id: &RunId) -> Result<Option<(RunRecord, Capsule)>> {
        let s = self.state();
        let Some(run) = s.runs.get(id).map(|x| &x.run.record).filter(|r| &r.owner == owner) else {
            return Ok(None);
        };
        let mut capsule = s.capsules.get(id).cloned().unwrap_or_default();
        if run.kind.is_driven() {
            // The queries its tools ran, oldest first (ids sort by creation).
            let children = s.runs.values().map(|x| &x.run.record).filter(|r| {
                r.parent_run_id.as_ref() == Some(id) && matches!(r.kind, RunKind::Sql | RunKind::QueryPlan)
            });
            for child in children.filter_map(|r| s.capsules.get(&r.id)) {
                for d in &child.datasets {
                    if !capsule.datasets.contains(d) {
                        capsule.datasets.push(d.clone());
                    }
                }
                capsule.query_mode = child.query_mode;
                capsule.plan_json.clone_from(&child.plan_json);
                capsule.compiled_sql.clone_from(&child.compiled_sql);
                capsule.result_summary.clone_from(&child.result_summary);
                if child.verified_query.is_some() {
                    capsule.verified_query.clone_from(&child.verified_query);
                }
                capsule.exec_time_ms = Some(capsule.exec_time_ms.unwrap_or(0) + child.exec_time_ms.unwrap_or(0));
            }
            capsule.error.clone_from(&run.error);
            capsule.tool_calls = s.tool_calls.get(id).cloned().unwrap_or_default();
            capsule.grounding = s.groundings.get(id).cloned();
        }
        Ok(Some((run.clone(), capsule)))
    }

    async fn list_runs(
        &self,
        owner: &UserId,
        thread: Option<&ThreadId>,
        rating: Option<Rating>,
        outcome: Option<RunOutcome>,
        before: Option<&RunId>,
        limit: u32,
    ) -> Result<Vec<RunRecord>> {
        let s = self.state();
        Ok(s.runs
            .values()
            .rev()
            .map(|x| &x.run.record)
            .filter(|r| &r.owner == owner)
            .filter(|r| thread.is_none_or(|t| r.thread_id.as_ref() == Some(t)))
            .filter(|r| rating.is_none_or(|want| r.feedback.as_ref().is_some_and(|f| f.rating == want)))
            .filter(|r| outcome.is_none_or(|want| r.outcome == Some(want)))
            .filter(|r| before.is_none_or(|b| &r.id < b))
            .take(limit as usize)
            .cloned()
            .collect())
    }

    async fn set_feedback(&self, owner: &UserId, id: &RunId, feedback: &Feedback) -> Result<bool> {
        match self.state().run_mut(id) {
            Some(run) if &run.record.owner == owner => {
                run.record.feedback = Some(feedback.clone());
                Ok(true)
            }
            Some(_) | None => Ok(false),
        }
    }

    async fn usage_since(&self, owner: &UserId, since: Option<DateTime<Utc>>) -> Result<(Usage, u32)> {
        let s = self.state();
        let mut total = Usage::default();
        let mut runs = 0u32;
        for r in s.runs.values().map(|x| &x.run.record) {
            if &r.owner != owner || since.is_some_and(|t| r.created_at < t) {
                continue;
            }
            runs += 1;
            total.input_tokens += r.usage.input_tokens;
            total.output_tokens += r.usage.output_tokens;
            total.cache_read_tokens += r.usage.cache_read_tokens;
            total.cache_write_tokens += r.usage.cache_write_tokens;
            total.model_calls += r.usage.model_calls;
            total.partial |= r.usage.partial;
        }
        Ok((total, runs))
    }
}
