//! A confirmation: created once per call (with a hash of its arguments and what it will touch),
//! announced once, then waited on — a person's answer, the expiry or a cancel, whichever comes
//! first. After a restart the wait resumes on the stored confirmation. A session grant for the
//! tool and the call's resource class answers a STANDARD confirmation at once (no card; the
//! log shows `ConfirmationResolved` with the grant); an approval with edits runs the narrowed
//! arguments it was bound to.

use super::tool_step::{Outcome, ToolStep};
use super::{Approval, Driver, Stop};
use crate::runs::model_view::outcomes;
use crate::runs::tools::ask::{chosen, is_clarification};
use crate::runs::tools::{BOUND_VERSION, Prepared, Tool, grant_class_for};
use aware_domain::events::Clarification;
use aware_domain::events::{EventPayload, Resolution, RunPhase, Tier};
use aware_domain::ids::ConfirmationId;
use aware_domain::ports::AuditEntry;
use aware_domain::ports::model::ToolCallRequest;
use aware_domain::ports::run_log::{Confirmation, SessionGrant};
use aware_domain::run::RunStatus;
use aware_domain::run::ToolPhase;
use chrono::Utc;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use tracing::Instrument;

impl Driver {
    /// Waits for a person (or finds a session grant that answers for them); what was answered
    /// decides the next step.
    pub(super) async fn confirm(
        &mut self,
        call: &ToolCallRequest,
        tool: Arc<dyn Tool>,
        tier: Tier,
        prepared: Prepared,
    ) -> std::result::Result<ToolStep, Stop> {
        let conf = match self.deps.log.confirmation_for_call(&call.id).await? {
            Some(c) => c,
            None => {
                let ttl = chrono::Duration::from_std(self.deps.config.confirmation_ttl)
                    .unwrap_or(chrono::Duration::seconds(60));
                let now = Utc::now();
                let owner = &self.run.record.owner;
                // "Allow for 5 minutes": a STANDARD call on a class the user granted runs without
                // asking. ELEVATED calls, and tools that are never granted, always ask.
                let grant = match grant_class_for(tool.as_ref(), tier, &prepared.resource) {
                    Some(class) => self.deps.log.live_grant(owner, &call.name, &class, now).await?,
                    None => None,
                };
                let c = Confirmation {
                    id: ConfirmationId::generate(),
                    owner: owner.clone(),
                    run_id: self.run.record.id.clone(),
                    tool_call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    resource: prepared.resource.clone(),
                    args_sha256: hex::encode(Sha256::digest(canonical_json(&call.arguments).as_bytes())),
                    tier,
                    status: if grant.is_some() { Resolution::Approved } else { Resolution::Pending },
                    created_at: now,
                    expires_at: now + ttl,
                    description: prepared.description.clone(),
                    edited_args: None,
                    grant_id: grant.as_ref().map(|g| g.id.clone()),
                    bound_version: prepared.blast_radius.as_ref().map(|b| b.version_hash.clone()),
                };
                self.deps.log.create_confirmation(&c).await?;
                if let Some(grant) = &grant {
                    self.audit_grant_use(call, grant).await;
                }
                c
            }
        };
        let approved_resource = conf.resource.clone();
        let bound_version = conf.bound_version.clone();
        let span = tracing::info_span!("confirmation_wait", tool = %call.name);
        let grantable = grant_class_for(tool.as_ref(), tier, &prepared.resource).is_some();
        let answered = self.await_confirmation(call, conf, &prepared, grantable).instrument(span).await?;
        // An answer counts only while its owner still may: a person demoted (or deactivated, or
        // whose key this run came with was revoked) since the card was shown gets nothing done,
        // approved or not, and the run is told why. A grant that answered ends with that.
        if matches!(answered.status, Resolution::Approved | Resolution::Denied)
            && !is_clarification(&call.name)
            && let Some(refusal) = self.withdrawn(tool.as_ref()).await?
        {
            if let Some(grant) = &answered.grant_id {
                self.deps.log.revoke_grant(&self.run.record.owner, grant, Utc::now()).await?;
            }
            return Ok(ToolStep::Refuse(refusal));
        }
        Ok(match answered.status {
            // After a restart the call is prepared anew; if the names now point at something
            // else than what the person approved, or its content changed since it was asked,
            // nothing is done.
            Resolution::Approved
                if approved_resource != prepared.resource
                    || bound_version != prepared.blast_radius.as_ref().map(|b| b.version_hash.clone()) =>
            {
                let e = outcomes::approval_outdated(&approved_resource.display_name);
                ToolStep::done(Outcome::failed(outcomes::not_done(&e), &e))
            }
            Resolution::Approved => {
                // Edits were checked to narrow the call when the person sent them.
                let edited = answered.edited_args.as_deref().and_then(|j| serde_json::from_str(j).ok());
                self.approvals.insert(call.id.clone(), Approval { edited: edited.clone(), grant: answered.grant_id });
                let mut args = edited.or(prepared.pinned).unwrap_or_else(|| call.arguments.clone());
                // The tool checks the bound version again where the change is made (under the
                // dataset's lock), so a change between this check and the write is refused too.
                if let (Some(version), Some(obj)) = (bound_version, args.as_object_mut()) {
                    obj.insert(BOUND_VERSION.to_owned(), serde_json::Value::String(version));
                }
                ToolStep::Execute(tool, args)
            }
            Resolution::Denied if is_clarification(&call.name) => {
                ToolStep::done(Outcome::new(ToolPhase::Denied, outcomes::UNCLARIFIED))
            }
            Resolution::Expired if is_clarification(&call.name) => {
                ToolStep::done(Outcome::new(ToolPhase::Expired, outcomes::UNCLARIFIED))
            }
            Resolution::Denied => ToolStep::done(Outcome::new(ToolPhase::Denied, outcomes::DENIED)),
            Resolution::Expired => ToolStep::done(Outcome::new(ToolPhase::Expired, outcomes::EXPIRED)),
            Resolution::Pending | Resolution::Cancelled | Resolution::Superseded => {
                ToolStep::done(Outcome::cancelled(outcomes::CANCELLED))
            }
        })
    }

    /// Each call a session grant lets through is audited with the grant.
    async fn audit_grant_use(&self, call: &ToolCallRequest, grant: &SessionGrant) {
        let entry = AuditEntry {
            user_id: self.run.record.owner.clone(),
            source: self.ctx.caller.source,
            action: "grant.use".to_owned(),
            resource_type: "grant".to_owned(),
            resource_id: grant.id.to_string(),
            outcome: "approved".to_owned(),
            details: serde_json::json!({
                "run_id": self.run.record.id.as_str(),
                "tool_call_id": call.id.as_str(),
                "tool": call.name,
                "resource_class": grant.resource_class,
            }),
        };
        aware_domain::ports::record_or_log(self.deps.services.audit.as_ref(), entry).await;
    }

    /// Emits the confirmation (once) and waits for a person, the expiry or a cancel. Returns the
    /// confirmation as it was answered.
    async fn await_confirmation(
        &mut self,
        call: &ToolCallRequest,
        conf: Confirmation,
        prepared: &Prepared,
        grantable: bool,
    ) -> std::result::Result<Confirmation, Stop> {
        let description = prepared.description.clone();
        let wait_started = Utc::now();
        let asks = conf.status == Resolution::Pending;
        if asks {
            self.emit(EventPayload::ToolStatus {
                tool_call_id: call.id.clone(),
                phase: ToolPhase::AwaitingConfirmation,
                message: description.clone(),
            })
            .await?;
            let clarification = is_clarification(&call.name)
                .then(|| prepared.pinned.clone().and_then(|p| serde_json::from_value::<Clarification>(p).ok()))
                .flatten();
            // Counted as waiting before anyone can see the question: a client that reads the
            // metrics on seeing it finds the run among them.
            self.set_phase(RunPhase::AwaitingConfirmation, Some(conf.expires_at));
            if let Some(question) = clarification {
                self.emit(EventPayload::ClarificationRequired {
                    clarification_id: conf.id.clone(),
                    tool_call_id: call.id.clone(),
                    question,
                    expires_at: conf.expires_at,
                })
                .await?;
            } else {
                self.emit(EventPayload::ConfirmationRequired {
                    confirmation_id: conf.id.clone(),
                    tool_call_id: call.id.clone(),
                    tool_name: call.name.clone(),
                    resource: conf.resource.clone(),
                    description,
                    tier: conf.tier,
                    expires_at: conf.expires_at,
                    arguments_json: call.arguments.to_string(),
                    grantable,
                    resolved_arguments_json: prepared.pinned.as_ref().map(ToString::to_string).unwrap_or_default(),
                    blast_radius: prepared.blast_radius.clone(),
                })
                .await?;
            }
            self.deps.log.set_run_status(&self.run.record.id, RunStatus::AwaitingConfirmation).await?;
        }
        let answered = loop {
            let current = self.deps.log.confirmation(&conf.id).await?;
            let status = current.as_ref().map_or(Resolution::Expired, |c| c.status);
            if status != Resolution::Pending {
                break Confirmation { status, ..current.unwrap_or_else(|| conf.clone()) };
            }
            if let Some(why) = self.cancel_reason() {
                self.deps.log.resolve_confirmation(&conf.id, why, None, None).await?;
                continue;
            }
            let left = (conf.expires_at - Utc::now()).to_std().unwrap_or_default();
            if left.is_zero() {
                self.deps.log.resolve_confirmation(&conf.id, Resolution::Expired, None, None).await?;
                continue;
            }
            // An answer given through another replica arrives as a wake-up; should that be lost,
            // the stored confirmation is read again every second.
            let wait = if self.deps.fleet.shared() { left.min(std::time::Duration::from_secs(1)) } else { left };
            tokio::select! {
                () = self.live.confirm.notified() => {}
                () = tokio::time::sleep(wait) => {}
                () = self.cancelled() => {}
            }
        };
        let resolution = answered.status;
        if is_clarification(&call.name) {
            let answer: serde_json::Value =
                answered.edited_args.as_deref().and_then(|j| serde_json::from_str(j).ok()).unwrap_or_default();
            let (choice, remembered) = chosen(&answer);
            self.emit(EventPayload::ClarificationResolved {
                clarification_id: conf.id.clone(),
                tool_call_id: call.id.clone(),
                resolution,
                choice: choice.unwrap_or_default().to_owned(),
                remembered,
            })
            .await?;
        } else {
            self.emit(EventPayload::ConfirmationResolved {
                confirmation_id: conf.id.clone(),
                tool_call_id: call.id.clone(),
                resolution,
                grant_id: answered.grant_id.clone(),
                edited_arguments_json: answered.edited_args.clone().unwrap_or_default(),
            })
            .await?;
        }
        metrics::counter!("aware_confirmations_total", "outcome" => resolution.as_str()).increment(1);
        if asks {
            self.set_phase(RunPhase::ExecutingTool, None);
            self.deps.log.set_run_status(&self.run.record.id, RunStatus::Running).await?;
            self.span(
                "confirmation_wait",
                &call.name,
                wait_started,
                serde_json::json!({"confirmation_id": conf.id.as_str(), "resolution": resolution.as_str()}),
            )
            .await;
        }
        Ok(answered)
    }
}

/// JSON with object keys sorted, so equal arguments hash equally.
fn canonical_json(v: &serde_json::Value) -> String {
    fn sort(v: &serde_json::Value) -> serde_json::Value {
        match v {
            serde_json::Value::Object(m) => {
                let sorted: std::collections::BTreeMap<_, _> = m.iter().map(|(k, v)| (k.clone(), sort(v))).collect();
                serde_json::to_value(sorted).unwrap_or_default()
            }
            serde_json::Value::Array(a) => serde_json::Value::Array(a.iter().map(sort).collect()),
            scalar @ (serde_json::Value::Null
            | serde_json::Value::Bool(_)
            | serde_json::Value::Number(_)
            | serde_json::Value::String(_)) => scalar.clone(),
        }
    }
    sort(v).to_string()
}
