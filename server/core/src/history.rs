//! Reading runs after the fact (RunsService): capsules and paging, scoped to the caller.

use aware_domain::auth::{Caller, Capability};
use aware_domain::dataset::DatasetVersion;
use aware_domain::error::{Error, Result};
use aware_domain::ids::{RunId, ThreadId, UserId};
use aware_domain::ports::{AuditEntry, AuditLog, Catalog, RunStore};
use aware_domain::run::{Capsule, Feedback, MAX_FEEDBACK_REASON, Rating, RunOutcome, RunRecord, Usage};
use chrono::{DateTime, Utc};
use std::sync::Arc;

/// Default and largest page of ListRuns.
pub const DEFAULT_PAGE: u32 = 20;
pub const MAX_PAGE: u32 = 100;

#[derive(Clone)]
pub struct RunHistory {
    runs: Arc<dyn RunStore>,
    audit: Arc<dyn AuditLog>,
    /// The datasets as they are now, to say whether a run's answer is stale.
    catalog: Arc<dyn Catalog>,
}

/// One page of runs; `next` is the token for the following page.
pub struct RunPage {
    pub runs: Vec<RunRecord>,
    pub next: Option<RunId>,
}

/// Of the dataset versions `read`, those that are another version now, with the current version
/// hash (empty when the dataset is gone).
pub async fn changed_since(
    catalog: &dyn Catalog,
    owner: &UserId,
    read: &[DatasetVersion],
) -> Result<Vec<DatasetVersion>> {
    let mut changed = Vec::new();
    for was in read {
        let hash = catalog.get(owner, &was.dataset_id).await?.map(|d| d.version_hash).unwrap_or_default();
        if hash != was.version_hash {
            changed.push(DatasetVersion { version_hash: hash, ..was.clone() });
        }
    }
    Ok(changed)
}

/// A page size a listing request asks for: 0 is [`DEFAULT_PAGE`], above [`MAX_PAGE`] is refused.
pub fn page_size_in(page_size: u32) -> Result<u32> {
    match page_size {
        0 => Ok(DEFAULT_PAGE),
        n if n > MAX_PAGE => Err(Error::validation("page_size", format!("page_size must be at most {MAX_PAGE}"))),
        n => Ok(n),
    }
}

impl RunHistory {
    pub fn new(runs: Arc<dyn RunStore>, audit: Arc<dyn AuditLog>, catalog: Arc<dyn Catalog>) -> Self {
        Self { runs, audit, catalog }
    }

    /// A run with its capsule; another user's run is NOT_FOUND like a missing one. The capsule
    /// says which of the dataset versions the run read have changed since (its answer is stale).
    pub async fn get(&self, caller: &Caller, id: &RunId) -> Result<(RunRecord, Capsule)> {
        caller.principal.require(Capability::DatasetRead)?;
        let (run, mut capsule) = self
            .runs
            .get_run(&caller.principal.user_id, id)
            .await?
            .ok_or_else(|| Error::not_found("run", id).with_field("run_id"))?;
        capsule.changed_datasets =
            changed_since(self.catalog.as_ref(), &caller.principal.user_id, &capsule.datasets).await?;
        Ok((run, capsule))
    }

    /// The caller's runs, newest first; `thread` empty for all, `rating` to list only runs rated
    /// so, `outcome` only runs that came to it, `page_token` from the last page.
    pub async fn list(
        &self,
        caller: &Caller,
        thread: &str,
        (rating, outcome): (Option<Rating>, Option<RunOutcome>),
        page_size: u32,
        page_token: &str,
    ) -> Result<RunPage> {
        caller.principal.require(Capability::DatasetRead)?;
        let size = page_size_in(page_size)?;
        let thread = match thread.trim() {
            "" => None,
            t => Some(
                ThreadId::for_user(&caller.principal.user_id, t)
                    .ok_or_else(|| Error::validation("thread_id", "malformed thread id"))?,
            ),
        };
        let before = match page_token.trim() {
            "" => None,
            t => Some(RunId::parse(t).ok_or_else(|| Error::validation("page_token", "malformed page token"))?),
        };
        let mut runs = self
            .runs
            .list_runs(&caller.principal.user_id, thread.as_ref(), rating, outcome, before.as_ref(), size + 1)
            .await?;
        let next = if runs.len() > size as usize {
            runs.truncate(size as usize);
            runs.last().map(|r| r.id.clone())
        } else {
            None
        };
        Ok(RunPage { runs, next })
    }

    /// Rates a run's answer (its owner only; a second rating replaces the first). Audited and
    /// counted (`aware_feedback_total`).
    pub async fn submit_feedback(&self, caller: &Caller, id: &RunId, rating: Rating, reason: &str) -> Result<Feedback> {
        caller.principal.require(Capability::DatasetRead)?;
        let reason = reason.trim();
        if reason.chars().count() > MAX_FEEDBACK_REASON {
            return Err(Error::validation("reason", format!("a reason is at most {MAX_FEEDBACK_REASON} characters")));
        }
        let feedback = Feedback { rating, reason: reason.to_owned(), at: Utc::now() };
        if !self.runs.set_feedback(&caller.principal.user_id, id, &feedback).await? {
            return Err(Error::not_found("run", id).with_field("run_id"));
        }
        metrics::counter!("aware_feedback_total", "rating" => rating.as_str()).increment(1);
        let entry = AuditEntry::by(caller, "run.feedback", "run", id.to_string())
            .details(serde_json::json!({"rating": rating.as_str(), "reason": feedback.reason}));
        aware_domain::ports::record_or_log(self.audit.as_ref(), entry).await;
        Ok(feedback)
    }

    /// Model usage metered per user: the caller's own, or (admins only) another user's.
    pub async fn usage(
        &self,
        caller: &Caller,
        user: &str,
        since: Option<DateTime<Utc>>,
    ) -> Result<(UserId, Usage, u32)> {
        caller.principal.require(Capability::DatasetRead)?;
        let user = match user.trim() {
            "" => caller.principal.user_id.clone(),
            u => {
                let id = UserId::parse(u).ok_or_else(|| Error::validation("user_id", "malformed user id"))?;
                if id != caller.principal.user_id {
                    caller.principal.require(Capability::SystemAdmin)?;
                }
                id
            }
        };
        let (usage, runs) = self.runs.usage_since(&user, since).await?;
        Ok((user, usage, runs))
    }
}
