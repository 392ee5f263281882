//! In-memory adapters of aware-core's storage ports. They hold what the SQLite adapter holds, in
//! maps behind one lock each, and keep the same contracts (`aware_core::contract`, checked by this
//! crate's tests): the second implementation that keeps a contract honest, and a store for tests
//! that need no disk. Nothing here survives the process, so the server never uses them.
//!
//! Depends on `aware-core` only (`deny.toml`).

use async_trait::async_trait;
use aware_core::auth::{Principal, Role};
use aware_core::dataset::{Dataset, DatasetStatus, IngestOutcome, table_name_candidate};
use aware_core::ids::ApiKeyId;
use aware_core::ids::{
    ConfirmationId, DatasetId, GrantId, MemoryId, RunId, SavedQueryId, ThreadId, ToolCallId, UploadId, UserId,
};
use aware_core::ports::{
    ApiKey, ApiKeyGrant, Catalog, DatasetUpdate, Memory, MemoryStore, NewContent, NewDataset, RunStore, SavedQueries,
    SavedQuery, UploadSession, Uploads, User, Users,
};
use aware_core::run::{Capsule, Feedback, Rating, RunError, RunKind, RunOutcome, RunRecord, RunStatus, Usage};
use aware_core::runs::events::{Resolution, RunEvent};
use aware_core::runs::grounding::Grounding;
use aware_core::runs::model::Message;
use aware_core::runs::store::{
    ChatRun, Claim, Confirmation, Created, Lease, Place, QueuedAppend, RunLog, SessionGrant, Snapshot, SpanRecord,
    ThreadCursor, ThreadState, ThreadSummary, TitleIf, ToolCallRow,
};
use aware_core::{Error, ErrorCode, Result};
use chrono::{DateTime, Utc};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, MutexGuard};

/// A poisoned lock still guards maps that are each consistent: every change here is one insert,
/// update or removal.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Users and their API keys, in memory.
#[derive(Default)]
pub struct MemoryUsers {
    state: Mutex<UsersState>,
}

#[derive(Default)]
struct UsersState {
    /// In creation order.
    users: Vec<User>,
    /// In creation order, each with its token's hash.
    keys: Vec<(String, ApiKey)>,
}

impl UsersState {
    fn user_mut(&mut self, id: &UserId) -> Option<&mut User> {
        self.users.iter_mut().find(|u| &u.id == id)
    }
}

#[async_trait]
impl Users for MemoryUsers {
    async fn create_user(&self, name: &str, role: Role) -> Result<User> {
        let user =
            User { id: UserId::generate(), name: name.to_owned(), role, created_at: Utc::now(), deactivated_at: None };
        lock(&self.state).users.push(user.clone());
        Ok(user)
    }

    async fn ensure_user(&self, principal: &Principal) -> Result<()> {
        let mut s = lock(&self.state);
        if !s.users.iter().any(|u| u.id == principal.user_id) {
            let user = User {
                id: principal.user_id.clone(),
                name: principal.name.clone(),
                role: principal.role,
                created_at: Utc::now(),
                deactivated_at: None,
            };
            s.users.push(user);
        }
        Ok(())
    }

    async fn add_api_key(
        &self,
        user: &UserId,
        token_sha256: &str,
        prefix: &str,
        expires_at: Option<DateTime<Utc>>,
    ) -> Result<ApiKey> {
        let mut s = lock(&self.state);
        if !s.users.iter().any(|u| &u.id == user) {
            return Err(Error::not_found("user", user));
        }
        if s.keys.iter().any(|(hash, _)| hash == token_sha256) {
            return Err(Error::internal("an API key with this token exists already"));
        }
        let key = ApiKey {
            id: ApiKeyId::generate(),
            user: user.clone(),
            prefix: prefix.to_owned(),
            created_at: Utc::now(),
            expires_at,
            revoked_at: None,
        };
        s.keys.push((token_sha256.to_owned(), key.clone()));
        Ok(key)
    }

    async fn find_api_key(&self, token_sha256: &str) -> Result<Option<ApiKeyGrant>> {
        let s = lock(&self.state);
        let Some((_, key)) = s.keys.iter().find(|(hash, _)| hash == token_sha256) else { return Ok(None) };
        let Some(user) = s.users.iter().find(|u| u.id == key.user) else { return Ok(None) };
        Ok(Some(ApiKeyGrant {
            key_id: key.id.clone(),
            principal: Principal {
                user_id: user.id.clone(),
                name: user.name.clone(),
                role: user.role,
                key: Some(key.id.clone()),
            },
            expires_at: key.expires_at,
            revoked: key.revoked_at.is_some(),
            deactivated: user.deactivated_at.is_some(),
        }))
    }

    async fn list_users(&self) -> Result<Vec<User>> {
        Ok(lock(&self.state).users.clone())
    }

    async fn user(&self, id: &UserId) -> Result<Option<User>> {
        Ok(lock(&self.state).users.iter().find(|u| &u.id == id).cloned())
    }

    async fn set_role(&self, id: &UserId, role: Role) -> Result<bool> {
        Ok(lock(&self.state).user_mut(id).map(|u| u.role = role).is_some())
    }

    async fn set_deactivated(&self, id: &UserId, at: Option<DateTime<Utc>>) -> Result<bool> {
        Ok(lock(&self.state).user_mut(id).map(|u| u.deactivated_at = at).is_some())
    }

    async fn api_keys(&self, user: Option<&UserId>) -> Result<Vec<ApiKey>> {
        let s = lock(&self.state);
        Ok(s.keys.iter().map(|(_, k)| k).filter(|k| user.is_none_or(|u| &k.user == u)).cloned().collect())
    }

    async fn revoke_api_key(&self, id: &ApiKeyId, at: DateTime<Utc>) -> Result<Option<ApiKey>> {
        let mut s = lock(&self.state);
        let Some((_, key)) = s.keys.iter_mut().find(|(_, k)| &k.id == id) else { return Ok(None) };
        key.revoked_at.get_or_insert(at);
        Ok(Some(key.clone()))
    }
}

/// The dataset catalog, in memory.
#[derive(Default)]
pub struct MemoryCatalog {
    datasets: Mutex<HashMap<DatasetId, Dataset>>,
    /// Each owner's catalog version, moved on by every change to their datasets.
    versions: Mutex<HashMap<UserId, u64>>,
}

impl MemoryCatalog {
    fn moved(&self, owner: &UserId) {
        *lock(&self.versions).entry(owner.clone()).or_default() += 1;
    }
}

#[async_trait]
impl Catalog for MemoryCatalog {
    async fn insert_processing(&self, new: NewDataset) -> Result<Dataset> {
        let mut all = lock(&self.datasets);
        let taken = |name: &str| all.values().any(|d| d.owner == new.owner && d.table_name == name);
        let Some(table_name) = (1..=1000).map(|n| table_name_candidate(&new.base_table_name, n)).find(|t| !taken(t))
        else {
            return Err(Error::resource_exhausted(format!(
                "too many datasets are named like {}; delete some first",
                new.base_table_name
            )));
        };
        let now = Utc::now();
        let dataset = Dataset {
            id: new.id.clone(),
            owner: new.owner,
            name: new.name,
            table_name,
            format: new.format,
            status: DatasetStatus::Processing,
            row_count: 0,
            columns: Vec::new(),
            size_bytes: new.size_bytes,
            version_hash: new.version_hash,
            error: None,
            created_at: now,
            updated_at: now,
            description: String::new(),
            column_notes: Vec::new(),
            lineage: new.lineage,
            origin: new.origin,
        };
        all.insert(new.id, dataset.clone());
        self.moved(&dataset.owner);
        Ok(dataset)
    }

    async fn get(&self, owner: &UserId, id: &DatasetId) -> Result<Option<Dataset>> {
        Ok(lock(&self.datasets).get(id).filter(|d| &d.owner == owner).cloned())
    }

    async fn list(&self, owner: &UserId, status: Option<DatasetStatus>) -> Result<Vec<Dataset>> {
        let mut mine: Vec<Dataset> = lock(&self.datasets)
            .values()
            .filter(|d| &d.owner == owner && status.is_none_or(|s| d.status == s))
            .cloned()
            .collect();
        mine.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        Ok(mine)
    }

    async fn mark_ready(&self, id: &DatasetId, outcome: &IngestOutcome) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        Ok(all.get_mut(id).filter(|d| d.status == DatasetStatus::Processing).map(|d| {
            d.status = DatasetStatus::Ready;
            d.row_count = outcome.row_count;
            d.columns.clone_from(&outcome.columns);
            d.error = None;
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn mark_error(&self, id: &DatasetId, reason: &str) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        Ok(all.get_mut(id).filter(|d| d.status == DatasetStatus::Processing).map(|d| {
            d.status = DatasetStatus::Error;
            d.error = Some(reason.to_owned());
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn update(&self, owner: &UserId, id: &DatasetId, update: &DatasetUpdate) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        if let Some(wanted) = &update.table_name
            && all.values().any(|d| &d.owner == owner && &d.table_name == wanted && &d.id != id)
        {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("you already have a dataset named {wanted}; choose another name"),
            )
            .with_field("table_name"));
        }
        Ok(all.get_mut(id).filter(|d| &d.owner == owner).map(|d| {
            if let Some(name) = &update.name {
                d.name.clone_from(name);
            }
            if let Some(table_name) = &update.table_name {
                d.table_name.clone_from(table_name);
            }
            if let Some(description) = &update.description {
                d.description.clone_from(description);
            }
            if let Some(notes) = &update.column_notes {
                d.column_notes.clone_from(notes);
            }
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn replace_content(&self, owner: &UserId, id: &DatasetId, content: &NewContent) -> Result<Option<Dataset>> {
        let mut all = lock(&self.datasets);
        Ok(all.get_mut(id).filter(|d| &d.owner == owner && d.status == DatasetStatus::Ready).map(|d| {
            d.version_hash.clone_from(&content.version_hash);
            d.size_bytes = content.size_bytes;
            d.row_count = content.outcome.row_count;
            d.columns.clone_from(&content.outcome.columns);
            d.column_notes.clone_from(&content.column_notes);
            d.updated_at = Utc::now();
            self.moved(&d.owner);
            d.clone()
        }))
    }

    async fn delete(&self, owner: &UserId, id: &DatasetId) -> Result<bool> {
        let mut all = lock(&self.datasets);
        if all.get(id).is_some_and(|d| &d.owner == owner) {
            all.remove(id);
            self.moved(owner);
            return Ok(true);
        }
        Ok(false)
    }

    async fn list_processing(&self) -> Result<Vec<Dataset>> {
        Ok(lock(&self.datasets).values().filter(|d| d.status == DatasetStatus::Processing).cloned().collect())
    }

    async fn count(&self, owner: &UserId) -> Result<u64> {
        Ok(lock(&self.datasets).values().filter(|d| &d.owner == owner).count() as u64)
    }

    async fn version(&self, owner: &UserId) -> Result<u64> {
        Ok(lock(&self.versions).get(owner).copied().unwrap_or(0))
    }
}

/// Chunked-upload bookkeeping, in memory.
#[derive(Default)]
pub struct MemoryUploads {
    sessions: Mutex<HashMap<UploadId, UploadSession>>,
}

#[async_trait]
impl Uploads for MemoryUploads {
    async fn create_session(&self, session: &UploadSession) -> Result<()> {
        let mut all = lock(&self.sessions);
        if all.contains_key(&session.id) {
            return Err(Error::internal(format!("upload {} already exists", session.id)));
        }
        all.insert(session.id.clone(), session.clone());
        Ok(())
    }

    async fn session(&self, owner: &UserId, id: &UploadId) -> Result<Option<UploadSession>> {
        Ok(lock(&self.sessions).get(id).filter(|s| &s.owner == owner).cloned())
    }

    async fn set_received(&self, id: &UploadId, received_bytes: u64) -> Result<()> {
        if let Some(s) = lock(&self.sessions).get_mut(id) {
            s.received_bytes = received_bytes;
        }
        Ok(())
    }

    async fn remove_session(&self, id: &UploadId) -> Result<()> {
        lock(&self.sessions).remove(id);
        Ok(())
    }

    async fn count_open(&self, owner: &UserId) -> Result<u64> {
        Ok(lock(&self.sessions).values().filter(|s| &s.owner == owner).count() as u64)
    }

    async fn take_expired(&self, cutoff: DateTime<Utc>) -> Result<Vec<UploadId>> {
        let mut all = lock(&self.sessions);
        let expired: Vec<UploadId> = all.values().filter(|s| s.created_at < cutoff).map(|s| s.id.clone()).collect();
        for id in &expired {
            all.remove(id);
        }
        Ok(expired)
    }
}

/// The runs, in memory: the run engine's log ([`RunLog`]) and the run records ([`RunStore`]),
/// which share them as the SQLite adapter's `runs` table does.
#[derive(Default)]
pub struct MemoryRuns {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    threads: HashMap<ThreadId, StoredThread>,
    snapshots: HashMap<ThreadId, Snapshot>,
    grants: Vec<(SessionGrant, Option<DateTime<Utc>>)>,
    /// By id: run ids sort by creation, so this is oldest first.
    runs: BTreeMap<RunId, StoredRun>,
    events: HashMap<RunId, BTreeMap<u64, RunEvent>>,
    messages: HashMap<RunId, BTreeMap<u32, Message>>,
    /// Per run, in the order calls were first recorded.
    tool_calls: HashMap<RunId, Vec<ToolCallRow>>,
    confirmations: HashMap<ConfirmationId, Confirmation>,
    spans: HashMap<RunId, Vec<SpanRecord>>,
    capsules: HashMap<RunId, Capsule>,
    /// Each finished chat run's answer grounding.
    groundings: HashMap<RunId, Grounding>,
}

struct StoredThread {
    owner: UserId,
    title: Option<String>,
    created_at: DateTime<Utc>,
    forked_from: Option<(ThreadId, RunId)>,
}

struct StoredRun {
    run: ChatRun,
    route_json: Option<String>,
    /// Who drives it, until when.
    lease: Option<Lease>,
    /// Its place in its thread's queue (lowest first).
    queue_rank: i64,
}

impl StoredRun {
    fn new(run: ChatRun, route_json: Option<String>) -> Self {
        Self { run, route_json, lease: None, queue_rank: 0 }
    }

    /// Whether it holds its thread.
    fn holds_thread(&self) -> bool {
        self.run.record.kind.is_driven()
            && matches!(self.run.record.status, RunStatus::Running | RunStatus::AwaitingConfirmation)
    }
}

fn active(status: RunStatus) -> bool {
    matches!(status, RunStatus::Queued | RunStatus::Running | RunStatus::AwaitingConfirmation)
}

impl MemoryRuns {
    fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }
}

impl State {
    fn summary(&self, id: &ThreadId) -> Option<ThreadSummary> {
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
    fn thread_holds(&self, id: &ThreadId, text: &str) -> bool {
        let title = self.threads.get(id).and_then(|t| t.title.as_deref()).unwrap_or_default();
        title.to_lowercase().contains(text)
            || self.runs.values().map(|x| &x.run.record).any(|r| {
                r.thread_id.as_ref() == Some(id) && r.kind == RunKind::Chat && r.question.to_lowercase().contains(text)
            })
    }

    /// The run holding `thread`.
    fn holder(&self, thread: Option<&ThreadId>) -> Option<RunId> {
        let thread = thread?;
        self.runs
            .values()
            .find(|x| x.run.record.thread_id.as_ref() == Some(thread) && x.holds_thread())
            .map(|x| x.run.record.id.clone())
    }

    /// How many of `owner`'s runs (chat and tool) have not finished.
    fn unfinished_of(&self, owner: &UserId) -> usize {
        self.runs
            .values()
            .filter(|x| x.run.record.kind.is_driven() && &x.run.record.owner == owner && active(x.run.record.status))
            .count()
    }

    fn run_mut(&mut self, id: &RunId) -> Option<&mut ChatRun> {
        self.runs.get_mut(id).map(|r| &mut r.run)
    }

    /// Appends an event to its run's log; a seq is written once.
    fn append(&mut self, event: &RunEvent) -> Result<()> {
        let log = self.events.entry(event.run_id.clone()).or_default();
        if log.contains_key(&event.seq) {
            return Err(Error::internal(format!("event {} of run {} is already stored", event.seq, event.run_id)));
        }
        log.insert(event.seq, event.clone());
        Ok(())
    }
}

#[async_trait]
impl RunLog for MemoryRuns {
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
impl RunStore for MemoryRuns {
    async fn insert_run(&self, run: &RunRecord) -> Result<()> {
        let mut s = self.state();
        if s.runs.contains_key(&run.id) {
            return Err(Error::internal(format!("run {} exists already", run.id)));
        }
        // Query runs carry no role; a chat run is created through the run log.
        let stored = ChatRun { record: run.clone(), role: aware_core::auth::Role::Viewer, key: None, cancel: None };
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

/// Users' memories, in memory.
#[derive(Default)]
pub struct MemoryMemories {
    /// Oldest first.
    all: Mutex<Vec<Memory>>,
}

#[async_trait]
impl MemoryStore for MemoryMemories {
    async fn add_memory(&self, memory: &Memory) -> Result<()> {
        lock(&self.all).push(memory.clone());
        Ok(())
    }

    async fn memories(&self, owner: &UserId) -> Result<Vec<Memory>> {
        Ok(lock(&self.all).iter().rev().filter(|m| &m.owner == owner).cloned().collect())
    }

    async fn delete_memory(&self, owner: &UserId, id: &MemoryId) -> Result<bool> {
        let mut all = lock(&self.all);
        let before = all.len();
        all.retain(|m| !(&m.id == id && &m.owner == owner));
        Ok(all.len() < before)
    }

    async fn touch_memories(&self, owner: &UserId, ids: &[MemoryId], at: DateTime<Utc>) -> Result<()> {
        for m in lock(&self.all).iter_mut().filter(|m| &m.owner == owner && ids.contains(&m.id)) {
            m.last_used_at = Some(at);
        }
        Ok(())
    }
}

/// Verified queries, in memory.
#[derive(Default)]
pub struct MemorySavedQueries {
    all: Mutex<Vec<SavedQuery>>,
}

#[async_trait]
impl SavedQueries for MemorySavedQueries {
    async fn insert_saved_query(&self, query: &SavedQuery) -> Result<()> {
        let mut all = lock(&self.all);
        if all.iter().any(|q| q.owner == query.owner && q.name.to_lowercase() == query.name.to_lowercase()) {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("you already have a saved query named {:?}", query.name),
            )
            .with_field("name"));
        }
        all.push(query.clone());
        Ok(())
    }

    async fn saved_queries(&self, owner: &UserId) -> Result<Vec<SavedQuery>> {
        let mut mine: Vec<SavedQuery> = lock(&self.all).iter().filter(|q| &q.owner == owner).cloned().collect();
        mine.sort_by(|a, b| (a.name.to_lowercase(), &a.id).cmp(&(b.name.to_lowercase(), &b.id)));
        Ok(mine)
    }

    async fn delete_saved_query(&self, owner: &UserId, id: &SavedQueryId) -> Result<bool> {
        let mut all = lock(&self.all);
        let before = all.len();
        all.retain(|q| !(&q.id == id && &q.owner == owner));
        Ok(all.len() < before)
    }

    async fn set_saved_query_sql(&self, owner: &UserId, id: &SavedQueryId, sql: &str) -> Result<()> {
        for q in lock(&self.all).iter_mut().filter(|q| &q.id == id && &q.owner == owner) {
            q.sql = sql.to_owned();
            q.updated_at = Utc::now();
        }
        Ok(())
    }
}
