//! The run engine's log ([`RunLog`]) over the shared run state.

use crate::runs::{MemoryRuns, StoredRun, StoredThread, active};
use async_trait::async_trait;
use aware_domain::events::{Resolution, RunEvent};
use aware_domain::grounding::Grounding;
use aware_domain::ids::{ConfirmationId, GrantId, RunId, ThreadId, ToolCallId, UserId};
use aware_domain::ports::model::Message;
use aware_domain::ports::run_log::{
    ChatRun, ChatRuns, Claim, Confirmation, Confirmations, Created, Lease, Place, QueuedAppend, RunEvents, RunLeases,
    SessionGrant, Snapshot, Snapshots, SpanRecord, ThreadCursor, ThreadState, ThreadSummary, Threads, TitleIf,
    ToolCalls,
};
use aware_domain::run::ToolCallRow;
use aware_domain::run::{RunError, RunKind, RunStatus, Usage};
use aware_domain::{Error, Result};
use chrono::{DateTime, Utc};
use std::collections::BTreeMap;

#[async_trait]
impl ChatRuns for MemoryRuns {
    async fn create_chat_run(&self, run: &ChatRun, place: Place<'_>, max_unfinished: u32) -> Result<Created> {
        let mut s = self.state();
        let r = &run.record;
        if let Some(key) = r.client_msg_id.as_deref()
            && let Some(existing) = s
                .runs
                .values()
                .find(|x| x.run.record.owner == r.owner && x.run.record.client_msg_id.as_deref() == Some(key))
        {
            return Ok(Created::Existing(existing.run.record.id.clone()));
        }
        if s.runs.contains_key(&r.id) {
            return Err(Error::internal(format!("duplicate run id {}", r.id)));
        }
        let mut stored = StoredRun::new(run.clone(), None);
        match place {
            Place::Drive(lease) => {
                if let Some(holder) = s.holder(r.thread_id.as_ref()) {
                    return Ok(Created::Busy(holder));
                }
                stored.lease = Some(lease.clone());
            }
            Place::Queue { first } => {
                let at = r.created_at.timestamp_micros();
                stored.queue_rank = if first { -at } else { at };
            }
        }
        if s.unfinished_of(&r.owner) >= max_unfinished as usize {
            return Ok(Created::Full);
        }
        s.runs.insert(r.id.clone(), stored);
        Ok(Created::New)
    }

    async fn thread_state(&self, thread: &ThreadId, owner: &UserId) -> Result<ThreadState> {
        let s = self.state();
        let driven = || s.runs.values().filter(|x| x.run.record.kind.is_driven());
        let unfinished = s.unfinished_of(owner);
        Ok(ThreadState {
            holder: s.holder(Some(thread)),
            waiting: driven().any(|x| {
                x.run.record.thread_id.as_ref() == Some(thread)
                    && x.run.record.status == RunStatus::Queued
                    && x.run.cancel.is_none()
            }),
            unfinished_of_owner: u32::try_from(unfinished).unwrap_or(u32::MAX),
        })
    }

    async fn run_by_client_msg(&self, owner: &UserId, client_msg_id: &str) -> Result<Option<RunId>> {
        Ok(self
            .state()
            .runs
            .values()
            .find(|x| &x.run.record.owner == owner && x.run.record.client_msg_id.as_deref() == Some(client_msg_id))
            .map(|x| x.run.record.id.clone()))
    }

    async fn chat_run(&self, id: &RunId) -> Result<Option<ChatRun>> {
        Ok(self.state().runs.get(id).filter(|x| x.run.record.kind.is_driven()).map(|x| x.run.clone()))
    }

    async fn set_run_status(&self, id: &RunId, status: RunStatus) -> Result<()> {
        if let Some(run) = self.state().run_mut(id).filter(|r| active(r.record.status)) {
            run.record.status = status;
        }
        Ok(())
    }

    async fn set_run_progress(&self, id: &RunId, iterations: u32, usage: &Usage) -> Result<()> {
        if let Some(run) = self.state().run_mut(id) {
            run.record.iterations = iterations;
            run.record.usage = *usage;
        }
        Ok(())
    }

    async fn set_run_route(&self, id: &RunId, route_json: &str) -> Result<()> {
        if let Some(stored) = self.state().runs.get_mut(id) {
            stored.route_json = Some(route_json.to_owned());
        }
        Ok(())
    }

    async fn run_route(&self, id: &RunId) -> Result<Option<String>> {
        Ok(self.state().runs.get(id).and_then(|x| x.route_json.clone()))
    }

    async fn start_run(&self, first: &RunEvent, ui_state_version: u64) -> Result<()> {
        let mut s = self.state();
        s.append(first)?;
        if let Some(run) = s.run_mut(&first.run_id).filter(|r| active(r.record.status)) {
            // A queued run being cancelled never holds its thread.
            if !(run.record.status == RunStatus::Queued && run.cancel.is_some()) {
                run.record.status = RunStatus::Running;
            }
            run.record.ui_state_version = ui_state_version;
        }
        Ok(())
    }

    async fn complete_chat_run(
        &self,
        last: &RunEvent,
        status: RunStatus,
        error: Option<&RunError>,
        usage: &Usage,
        final_text: &str,
        grounding: Option<&Grounding>,
    ) -> Result<()> {
        let mut s = self.state();
        s.append(last)?;
        if let Some(g) = grounding {
            s.groundings.insert(last.run_id.clone(), g.clone());
        }
        if let Some(run) = s.run_mut(&last.run_id) {
            run.record.status = status;
            run.record.outcome = last.outcome();
            run.record.error = error.cloned();
            run.record.usage = *usage;
            run.record.final_text = final_text.to_owned();
            run.record.last_seq = last.seq;
            run.record.completed_at = Some(last.time);
        }
        Ok(())
    }

    async fn request_cancel(&self, id: &RunId, why: Resolution) -> Result<()> {
        if let Some(run) = self.state().run_mut(id) {
            run.cancel.get_or_insert(why);
        }
        Ok(())
    }

    async fn thread_history(&self, thread: &ThreadId, before: &RunId, runs: u32) -> Result<Vec<Message>> {
        let s = self.state();
        let mut earlier: Vec<&RunId> = s
            .runs
            .range(..before.clone())
            .filter(|(_, x)| {
                let r = &x.run.record;
                r.thread_id.as_ref() == Some(thread) && r.kind == RunKind::Chat && !active(r.status)
            })
            .map(|(id, _)| id)
            .rev()
            .take(runs as usize)
            .collect();
        earlier.reverse();
        Ok(earlier
            .into_iter()
            .flat_map(|id| s.messages.get(id).into_iter().flat_map(|m| m.values().cloned()))
            .collect())
    }
}

#[async_trait]
impl RunLeases for MemoryRuns {
    async fn queued_runs(&self) -> Result<u32> {
        let s = self.state();
        let n = s
            .runs
            .values()
            .filter(|x| {
                x.run.record.kind.is_driven() && x.run.record.status == RunStatus::Queued && x.run.cancel.is_none()
            })
            .count();
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    async fn promote_queued(&self, thread: Option<&ThreadId>, lease: &Lease) -> Result<Vec<RunId>> {
        let mut s = self.state();
        // The first in line of each thread no run holds.
        let mut first: BTreeMap<ThreadId, (i64, RunId)> = BTreeMap::new();
        for x in s.runs.values() {
            let r = &x.run.record;
            let Some(t) = &r.thread_id else { continue };
            if !r.kind.is_driven() || r.status != RunStatus::Queued || x.run.cancel.is_some() {
                continue;
            }
            if thread.is_some_and(|want| want != t) {
                continue;
            }
            let candidate = (x.queue_rank, r.id.clone());
            match first.get(t) {
                Some(best) if *best <= candidate => {}
                _ => {
                    first.insert(t.clone(), candidate);
                }
            }
        }
        let mut promoted = Vec::new();
        for (t, (_, id)) in first {
            if s.holder(Some(&t)).is_some() {
                continue;
            }
            if let Some(x) = s.runs.get_mut(&id) {
                x.run.record.status = RunStatus::Running;
                x.lease = Some(lease.clone());
                promoted.push(id);
            }
        }
        Ok(promoted)
    }

    async fn claim_runs(&self, lease: &Lease, now: DateTime<Utc>, which: Claim<'_>) -> Result<Vec<ChatRun>> {
        let mut s = self.state();
        let mut claimed = Vec::new();
        for (id, x) in &mut s.runs {
            let needs_driver = x.holds_thread()
                || (x.run.record.kind.is_driven()
                    && x.run.record.status == RunStatus::Queued
                    && x.run.cancel.is_some());
            let free = x.lease.as_ref().is_none_or(|l| l.until < now);
            let wanted = match which {
                Claim::Expired => free,
                Claim::Every => true,
                Claim::Run(want) => free && want == id,
            };
            if needs_driver && wanted {
                x.lease = Some(lease.clone());
                claimed.push(x.run.clone());
            }
        }
        Ok(claimed)
    }

    async fn renew_leases(&self, lease: &Lease) -> Result<Vec<(RunId, Option<Resolution>)>> {
        let mut s = self.state();
        let mut held = Vec::new();
        for (id, x) in &mut s.runs {
            if let Some(l) = x.lease.as_mut().filter(|l| l.replica == lease.replica)
                && x.run.record.kind.is_driven()
                && active(x.run.record.status)
            {
                l.until = lease.until;
                held.push((id.clone(), x.run.cancel));
            }
        }
        Ok(held)
    }

    async fn release_leases(&self, replica: &str) -> Result<()> {
        for x in self.state().runs.values_mut() {
            if x.lease.as_ref().is_some_and(|l| l.replica == replica) {
                x.lease = None;
            }
        }
        Ok(())
    }
}

#[async_trait]
impl RunEvents for MemoryRuns {
    async fn append_event(&self, event: &RunEvent) -> Result<()> {
        self.state().append(event)
    }

    fn queue_event(&self, event: &RunEvent) -> QueuedAppend {
        // Appending here is immediate, so a queued append is already done.
        Box::pin(std::future::ready(self.state().append(event)))
    }

    async fn events(&self, run: &RunId, after_seq: u64, limit: u32) -> Result<Vec<RunEvent>> {
        let s = self.state();
        let Some(log) = s.events.get(run) else { return Ok(Vec::new()) };
        let Some(from) = after_seq.checked_add(1) else { return Ok(Vec::new()) };
        Ok(log.range(from..).take(limit as usize).map(|(_, e)| e.clone()).collect())
    }

    async fn last_seq(&self, run: &RunId) -> Result<u64> {
        Ok(self.state().events.get(run).and_then(|log| log.keys().next_back().copied()).unwrap_or(0))
    }

    async fn append_message(&self, run: &RunId, idx: u32, message: &Message) -> Result<()> {
        let mut s = self.state();
        let transcript = s.messages.entry(run.clone()).or_default();
        if transcript.contains_key(&idx) {
            return Err(Error::internal(format!("message {idx} of run {run} is already stored")));
        }
        transcript.insert(idx, message.clone());
        Ok(())
    }

    async fn messages(&self, run: &RunId) -> Result<Vec<Message>> {
        Ok(self.state().messages.get(run).map(|m| m.values().cloned().collect()).unwrap_or_default())
    }
}

#[async_trait]
impl ToolCalls for MemoryRuns {
    async fn record_tool_intent(&self, row: &ToolCallRow) -> Result<()> {
        let mut s = self.state();
        let rows = s.tool_calls.entry(row.run_id.clone()).or_default();
        if rows.iter().any(|r| r.id == row.id) {
            return Err(Error::internal(format!("tool call {} already has an intent", row.id)));
        }
        rows.push(row.clone());
        Ok(())
    }

    async fn record_tool_result(&self, row: &ToolCallRow) -> Result<()> {
        let mut s = self.state();
        let rows = s.tool_calls.entry(row.run_id.clone()).or_default();
        match rows.iter_mut().find(|r| r.id == row.id) {
            Some(stored) => {
                stored.phase = row.phase;
                stored.llm_summary.clone_from(&row.llm_summary);
                stored.result_json.clone_from(&row.result_json);
                stored.duration_ms = row.duration_ms;
            }
            None => rows.push(row.clone()),
        }
        Ok(())
    }

    async fn tool_calls(&self, run: &RunId) -> Result<Vec<ToolCallRow>> {
        Ok(self.state().tool_calls.get(run).cloned().unwrap_or_default())
    }

    async fn insert_span(&self, run: &RunId, span: &SpanRecord) -> Result<()> {
        let mut s = self.state();
        let spans = s.spans.entry(run.clone()).or_default();
        spans.retain(|x| x.span_id != span.span_id);
        spans.push(span.clone());
        spans.sort_by(|a, b| (a.start, &a.span_id).cmp(&(b.start, &b.span_id)));
        Ok(())
    }

    async fn spans(&self, run: &RunId) -> Result<Vec<SpanRecord>> {
        Ok(self.state().spans.get(run).cloned().unwrap_or_default())
    }
}

#[async_trait]
impl Confirmations for MemoryRuns {
    async fn create_confirmation(&self, confirmation: &Confirmation) -> Result<()> {
        let mut s = self.state();
        if s.confirmations.values().any(|c| c.id == confirmation.id || c.tool_call_id == confirmation.tool_call_id) {
            return Err(Error::internal(format!("confirmation {} already exists", confirmation.id)));
        }
        s.confirmations.insert(confirmation.id.clone(), confirmation.clone());
        Ok(())
    }

    async fn confirmation(&self, id: &ConfirmationId) -> Result<Option<Confirmation>> {
        Ok(self.state().confirmations.get(id).cloned())
    }

    async fn confirmation_for_call(&self, call: &ToolCallId) -> Result<Option<Confirmation>> {
        Ok(self.state().confirmations.values().find(|c| &c.tool_call_id == call).cloned())
    }

    async fn pending_confirmations(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<Confirmation>> {
        let mut pending: Vec<Confirmation> = self
            .state()
            .confirmations
            .values()
            .filter(|c| &c.owner == owner && c.status == Resolution::Pending && c.expires_at > now)
            .cloned()
            .collect();
        pending.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
        Ok(pending)
    }

    async fn resolve_confirmation(
        &self,
        id: &ConfirmationId,
        to: Resolution,
        _by: Option<&UserId>,
        edited_args: Option<&str>,
    ) -> Result<bool> {
        let mut s = self.state();
        match s.confirmations.get_mut(id) {
            Some(c) if c.status == Resolution::Pending => {
                c.status = to;
                c.edited_args = edited_args.map(str::to_owned);
                Ok(true)
            }
            Some(_) | None => Ok(false),
        }
    }

    async fn create_grant(&self, grant: &SessionGrant) -> Result<()> {
        self.state().grants.push((grant.clone(), None));
        Ok(())
    }

    async fn live_grant(
        &self,
        owner: &UserId,
        tool: &str,
        class: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<SessionGrant>> {
        Ok(self
            .state()
            .grants
            .iter()
            .filter(|(g, revoked)| {
                revoked.is_none()
                    && &g.owner == owner
                    && g.tool_name == tool
                    && g.resource_class == class
                    && g.expires_at > now
            })
            .map(|(g, _)| g)
            .max_by_key(|g| g.expires_at)
            .cloned())
    }

    async fn live_grants(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<SessionGrant>> {
        let mut live: Vec<SessionGrant> = self
            .state()
            .grants
            .iter()
            .filter(|(g, revoked)| revoked.is_none() && &g.owner == owner && g.expires_at > now)
            .map(|(g, _)| g.clone())
            .collect();
        live.sort_by(|a, b| (a.expires_at, &a.id).cmp(&(b.expires_at, &b.id)));
        Ok(live)
    }

    async fn revoke_grant(&self, owner: &UserId, id: &GrantId, now: DateTime<Utc>) -> Result<bool> {
        let mut s = self.state();
        match s.grants.iter_mut().find(|(g, revoked)| &g.id == id && &g.owner == owner && revoked.is_none()) {
            Some((g, revoked)) if g.expires_at > now => {
                *revoked = Some(now);
                Ok(true)
            }
            Some(_) | None => Ok(false),
        }
    }
}

#[async_trait]
impl Threads for MemoryRuns {
    async fn ensure_thread(&self, owner: &UserId, thread: &ThreadId) -> Result<bool> {
        let mut s = self.state();
        let stored = s.threads.entry(thread.clone()).or_insert_with(|| StoredThread {
            owner: owner.clone(),
            title: None,
            created_at: Utc::now(),
            forked_from: None,
        });
        Ok(&stored.owner == owner)
    }

    async fn thread_summary(&self, thread: &ThreadId) -> Result<Option<ThreadSummary>> {
        let s = self.state();
        Ok(s.summary(thread))
    }

    async fn threads(
        &self,
        owner: &UserId,
        matching: Option<&str>,
        after: Option<&ThreadCursor>,
        limit: u32,
    ) -> Result<Vec<ThreadSummary>> {
        let s = self.state();
        let matching = matching.map(str::to_lowercase);
        let mut all: Vec<ThreadSummary> = s
            .threads
            .iter()
            .filter(|(_, t)| &t.owner == owner)
            .filter(|(id, _)| matching.as_deref().is_none_or(|m| s.thread_holds(id, m)))
            .filter_map(|(id, _)| s.summary(id))
            .filter(|t| t.run_count > 0)
            .filter(|t| after.is_none_or(|c| (t.last_activity_at, &t.id) < (c.last_activity_at, &c.thread)))
            .collect();
        all.sort_by(|a, b| (b.last_activity_at, &b.id).cmp(&(a.last_activity_at, &a.id)));
        all.truncate(limit as usize);
        Ok(all)
    }

    async fn set_thread_title(&self, thread: &ThreadId, title: &str, when: TitleIf<'_>) -> Result<bool> {
        let mut state = self.state();
        let Some(t) = state.threads.get_mut(thread) else { return Ok(false) };
        let write = match when {
            TitleIf::Untitled => t.title.is_none(),
            TitleIf::Still(current) => t.title.as_deref() == Some(current),
            TitleIf::Any => true,
        };
        if write {
            t.title = Some(title.to_owned());
        }
        Ok(write)
    }

    async fn set_thread_fork(&self, thread: &ThreadId, from_thread: &ThreadId, from_run: &RunId) -> Result<()> {
        if let Some(t) = self.state().threads.get_mut(thread) {
            t.forked_from = Some((from_thread.clone(), from_run.clone()));
        }
        Ok(())
    }

    async fn thread_runs(&self, thread: &ThreadId, limit: u32) -> Result<Vec<ChatRun>> {
        let s = self.state();
        let mut runs: Vec<ChatRun> = s
            .runs
            .values()
            .rev()
            .filter(|x| x.run.record.thread_id.as_ref() == Some(thread) && x.run.record.kind == RunKind::Chat)
            .take(limit as usize)
            .map(|x| x.run.clone())
            .collect();
        runs.reverse();
        Ok(runs)
    }

    async fn delete_thread(&self, thread: &ThreadId) -> Result<u32> {
        let mut s = self.state();
        let of_thread: Vec<RunId> = s
            .runs
            .values()
            .filter(|x| x.run.record.thread_id.as_ref() == Some(thread))
            .map(|x| x.run.record.id.clone())
            .collect();
        let children: Vec<RunId> = s
            .runs
            .values()
            .filter(|x| {
                x.run.record.thread_id.is_none()
                    && x.run.record.parent_run_id.as_ref().is_some_and(|p| of_thread.contains(p))
            })
            .map(|x| x.run.record.id.clone())
            .collect();
        let chat = s
            .runs
            .values()
            .filter(|x| x.run.record.thread_id.as_ref() == Some(thread) && x.run.record.kind == RunKind::Chat)
            .count();
        for id in of_thread.iter().chain(&children) {
            s.runs.remove(id);
            s.events.remove(id);
            s.messages.remove(id);
            s.tool_calls.remove(id);
            s.spans.remove(id);
            s.capsules.remove(id);
            s.confirmations.retain(|_, c| &c.run_id != id);
        }
        s.threads.remove(thread);
        s.snapshots.remove(thread);
        Ok(u32::try_from(chat).unwrap_or(u32::MAX))
    }

    async fn copy_run(&self, from: &RunId, to: &RunId, thread: &ThreadId) -> Result<()> {
        let mut s = self.state();
        let Some(original) = s.runs.get(from) else { return Err(Error::internal(format!("no run {from} to copy"))) };
        let mut run = original.run.clone();
        let route_json = original.route_json.clone();
        run.record.id = to.clone();
        run.record.thread_id = Some(thread.clone());
        run.record.client_msg_id = None;
        run.record.parent_run_id = None;
        run.record.feedback = None;
        run.cancel = None;
        s.runs.insert(to.clone(), StoredRun::new(run, route_json));
        if let Some(messages) = s.messages.get(from).cloned() {
            s.messages.insert(to.clone(), messages);
        }
        if let Some(events) = s.events.get(from).cloned() {
            let renamed = events
                .into_iter()
                .map(|(seq, e)| (seq, RunEvent { run_id: to.clone(), thread_id: thread.clone(), ..e }))
                .collect();
            s.events.insert(to.clone(), renamed);
        }
        if let Some(capsule) = s.capsules.get(from).cloned() {
            s.capsules.insert(to.clone(), capsule);
        }
        Ok(())
    }
}

#[async_trait]
impl Snapshots for MemoryRuns {
    async fn save_snapshot(&self, thread: &ThreadId, snapshot: &Snapshot) -> Result<u64> {
        let mut s = self.state();
        let stored = s.snapshots.entry(thread.clone()).or_insert_with(|| snapshot.clone());
        if snapshot.ui_state_version >= stored.ui_state_version {
            *stored = snapshot.clone();
        }
        Ok(stored.ui_state_version)
    }

    async fn snapshot(&self, thread: &ThreadId) -> Result<Option<Snapshot>> {
        Ok(self.state().snapshots.get(thread).cloned())
    }
}
