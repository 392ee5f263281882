//! Approvals: the confirmations and questions back a person answers — the pending list, an
//! answer (approve, approve with edits, for a while, deny; a choice among options), checked
//! against who the person is now and what the call was prepared to do — and the session grants
//! ("allow for 5 minutes") that answer later STANDARD calls of the same class.

use super::engine::{Answer, RunEngine, Scope};
use super::tools::ToolContext;
use super::tools::ask::{chosen, is_clarification};
use crate::policy::{Policy, Refusal};
use crate::{Error, ErrorCode, Result};
use aware_domain::auth::{Caller, Source};
use aware_domain::events::{EventPayload, Resolution, Tier};
use aware_domain::ids::{ConfirmationId, GrantId, RunId};
use aware_domain::ports::AuditEntry;
use aware_domain::ports::run_log::{Confirmation, SessionGrant};
use chrono::Utc;
use std::time::Duration;

impl RunEngine {
    /// The caller's confirmations waiting for an answer, oldest first (whatever started them: a
    /// chat run, an MCP client's call).
    pub async fn pending_confirmations(&self, caller: &Caller) -> Result<Vec<Confirmation>> {
        let mut pending = self.deps.log.pending_confirmations(&caller.principal.user_id, Utc::now()).await?;
        // A question back is answered in its run's own view, with its options.
        pending.retain(|c| !is_clarification(&c.tool_name));
        Ok(pending)
    }

    /// A person's answer to a confirmation. Only its owner, only while pending and unexpired;
    /// the same answer twice is idempotent, a different one is ALREADY_RESOLVED. An approval may
    /// reach further (a session grant: STANDARD tools only) or narrower (edited arguments, checked
    /// by the tool to only narrow the call). Returns the run, the resolution and the grant made.
    pub async fn resolve_confirmation(
        &self,
        caller: &Caller,
        cid: &ConfirmationId,
        answer: Answer,
    ) -> Result<(RunId, Resolution, Option<GrantId>)> {
        self.resolve(caller, cid, answer, false).await
    }

    /// A person's answer to a clarification: one of its options (`None` dismisses it), and
    /// whether to keep the answer as a rule of the dataset. A choice that is not an option is
    /// BAD_REQUEST and the question stays open.
    pub async fn resolve_clarification(
        &self,
        caller: &Caller,
        cid: &ConfirmationId,
        choice: Option<&str>,
        remember: bool,
    ) -> Result<(RunId, Resolution)> {
        let answer = match choice {
            Some(choice) => Answer {
                approved: true,
                scope: Scope::Once,
                edited_args: Some(super::tools::ask::answer(choice, remember)),
            },
            None => Answer::once(false),
        };
        let (run, resolution, _) = self.resolve(caller, cid, answer, true).await?;
        Ok((run, resolution))
    }

    async fn resolve(
        &self,
        caller: &Caller,
        cid: &ConfirmationId,
        answer: Answer,
        clarification: bool,
    ) -> Result<(RunId, Resolution, Option<GrantId>)> {
        let noun = if clarification { "clarification" } else { "confirmation" };
        let field = if clarification { "clarification_id" } else { "confirmation_id" };
        let not_found = || Error::not_found(noun, cid).with_field(field);
        let conf = self.deps.log.confirmation(cid).await?.ok_or_else(not_found)?;
        if conf.owner != caller.principal.user_id {
            return Err(not_found());
        }
        match (clarification, is_clarification(&conf.tool_name)) {
            (false, true) => {
                return Err(Error::new(
                    ErrorCode::BadRequest,
                    "this is a clarification: answer it with one of its options (ClarificationResponse or SubmitClarification)",
                ));
            }
            (true, false) => {
                return Err(Error::new(
                    ErrorCode::BadRequest,
                    "this is a confirmation, not a clarification: approve or deny it (ConfirmationResponse or SubmitConfirmation)",
                ));
            }
            (true, true) | (false, false) => {}
        }
        if !answer.approved && (answer.scope != Scope::Once || answer.edited_args.is_some()) {
            return Err(Error::validation("scope", "a session scope and edited arguments go with an approval"));
        }
        if let Scope::Session(_) = answer.scope
            && !self.grantable(&conf)
        {
            let why = match conf.tier {
                Tier::Elevated => "an ELEVATED action is approved once, never for a session".to_owned(),
                Tier::Standard => format!("{} always asks: it is approved once, never for a session", conf.tool_name),
            };
            return Err(Error::new(ErrorCode::PermissionDenied, format!("{why}; approve it with scope ONCE")));
        }
        let wanted = if answer.approved { Resolution::Approved } else { Resolution::Denied };
        let mut stored = conf.clone();
        if stored.status == Resolution::Pending {
            if Utc::now() >= conf.expires_at {
                self.deps.log.resolve_confirmation(cid, Resolution::Expired, None, None).await?;
                self.poke(&conf.run_id, None).await?;
                return Err(Error::new(ErrorCode::ConfirmationExpired, format!("this {noun} has expired")));
            }
            if answer.approved
                && !clarification
                && let Some(refusal) = self.withdrawn(&conf).await?
            {
                // Refused for good, as an answer is final: the card closes, and the run (which
                // checks its owner again) says why nothing was done.
                self.deps.log.resolve_confirmation(cid, Resolution::Denied, None, None).await?;
                self.poke(&conf.run_id, None).await?;
                return Err(Error::permission_denied(refusal.to_string()));
            }
            let edited = match &answer.edited_args {
                Some(edited) => Some(self.narrowed(caller, &conf, edited).await?.to_string()),
                None => None,
            };
            let by = Some(&caller.principal.user_id);
            if self.deps.log.resolve_confirmation(cid, wanted, by, edited.as_deref()).await? {
                let grant = match answer.scope {
                    Scope::Session(duration) => Some(self.grant(caller, &conf, duration).await?),
                    Scope::Once => None,
                };
                self.poke(&conf.run_id, None).await?;
                return Ok((conf.run_id, wanted, grant));
            }
            // Answered meanwhile (elsewhere): compare with what was stored.
            stored = self.deps.log.confirmation(cid).await?.unwrap_or(stored);
        }
        // The same answer again is idempotent; for a clarification, only the same choice.
        let choice = |args: Option<&serde_json::Value>| args.and_then(|a| chosen(a).0).map(str::to_lowercase);
        let stored_args = stored.edited_args.as_deref().and_then(|j| serde_json::from_str(j).ok());
        let same = !clarification
            || wanted != Resolution::Approved
            || choice(stored_args.as_ref()) == choice(answer.edited_args.as_ref());
        if stored.status == wanted && same {
            return Ok((conf.run_id, wanted, None));
        }
        match stored.status {
            Resolution::Expired => Err(Error::new(ErrorCode::ConfirmationExpired, format!("this {noun} has expired"))),
            s @ (Resolution::Pending
            | Resolution::Approved
            | Resolution::Denied
            | Resolution::Cancelled
            | Resolution::Superseded) => {
                Err(Error::new(ErrorCode::AlreadyResolved, format!("this {noun} was already {}", s.as_str())))
            }
        }
    }

    /// Why the owner of `conf`'s run, as they stand now, may no longer have its call take effect
    /// (`Policy::may_still`); `None` while they may. The approver is that owner, authenticated
    /// just now; what this adds is the role the run started with, the owner's role and active
    /// state as stored now, and the key the run came with.
    async fn withdrawn(&self, conf: &Confirmation) -> Result<Option<Refusal>> {
        let Some(tool) = self.deps.policy.tool(&conf.tool_name) else { return Ok(None) };
        let Some(run) = self.deps.log.chat_run(&conf.run_id).await? else { return Ok(None) };
        let now = self.deps.services.admin.standing(&conf.owner, run.key.as_ref()).await?;
        Ok(Policy::may_still(tool.meta(), Some(run.role), now).err())
    }

    /// The edited arguments of an approval, if the tool agrees they only narrow the call as it
    /// was prepared for the confirmation (BAD_REQUEST otherwise).
    async fn narrowed(
        &self,
        caller: &Caller,
        conf: &Confirmation,
        edited: &serde_json::Value,
    ) -> Result<serde_json::Value> {
        let tool = self.deps.policy.tool(&conf.tool_name).ok_or_else(|| {
            Error::new(ErrorCode::BadRequest, format!("{} is no longer available to edit", conf.tool_name))
        })?;
        // The call as the person was asked about it: its arguments in the run's log.
        let asked = self
            .deps
            .log
            .events(&conf.run_id, 0, u32::MAX)
            .await?
            .into_iter()
            .find_map(|e| {
                if let EventPayload::ConfirmationRequired { confirmation_id, arguments_json, .. } = &e.payload
                    && *confirmation_id == conf.id
                {
                    return serde_json::from_str::<serde_json::Value>(arguments_json).ok().map(Ok);
                }
                // A clarification's choice is checked against the options as they were shown.
                if let EventPayload::ClarificationRequired { clarification_id, question, .. } = e.payload
                    && clarification_id == conf.id
                {
                    return Some(Err(question));
                }
                None
            })
            .ok_or_else(|| Error::internal("the confirmed call's arguments are not in its log"))?;
        let asked = match asked {
            Ok(asked) => asked,
            Err(question) => return tool.narrow(&serde_json::to_value(question).map_err(Error::internal)?, edited),
        };
        let ctx = ToolContext {
            caller: Caller { principal: caller.principal.clone(), source: Source::AiAssistant },
            services: self.deps.services.clone(),
            run_id: Some(conf.run_id.clone()),
            approved: false,
        };
        let prepared = tool.prepare(&ctx, &asked).await?;
        tool.narrow(&prepared.pinned.unwrap_or(asked), edited)
    }

    /// The class a session grant answering `conf` would cover; `None` when it always asks (also
    /// when its tool is no longer offered).
    fn grant_class(&self, conf: &Confirmation) -> Option<String> {
        let tool = self.deps.policy.tool(&conf.tool_name)?;
        super::tools::grant_class_for(tool.as_ref(), conf.tier, &conf.resource)
    }

    /// Whether `conf` may be approved for a while ("Allow for 5 minutes").
    pub fn grantable(&self, conf: &Confirmation) -> bool {
        self.grant_class(conf).is_some()
    }

    /// Creates the session grant an approval asked for, and audits it.
    async fn grant(&self, caller: &Caller, conf: &Confirmation, duration: Duration) -> Result<GrantId> {
        let class = self.grant_class(conf).ok_or_else(|| Error::internal("a grant for a call that always asks"))?;
        let now = Utc::now();
        let grant = SessionGrant {
            id: GrantId::generate(),
            owner: caller.principal.user_id.clone(),
            tool_name: conf.tool_name.clone(),
            resource_class: class,
            confirmation_id: conf.id.clone(),
            created_at: now,
            expires_at: now + chrono::Duration::from_std(duration).unwrap_or(chrono::Duration::minutes(5)),
        };
        self.deps.log.create_grant(&grant).await?;
        self.audit_grant(caller, "grant.create", &grant).await;
        Ok(grant.id)
    }

    async fn audit_grant(&self, caller: &Caller, action: &str, grant: &SessionGrant) {
        let entry = AuditEntry::by(caller, action, "grant", grant.id.to_string()).details(serde_json::json!({
            "tool": grant.tool_name,
            "resource_class": grant.resource_class,
            "confirmation_id": grant.confirmation_id.as_str(),
            "expires_at": grant.expires_at.to_rfc3339(),
        }));
        aware_domain::ports::record_or_log(self.deps.services.audit.as_ref(), entry).await;
    }

    /// The caller's session grants in force, soonest to expire first. A grant whose tool the
    /// caller's role (as stored now) no longer allows has ended: it is revoked here, audited as
    /// the server's doing, and not listed.
    pub async fn grants(&self, caller: &Caller) -> Result<Vec<SessionGrant>> {
        let owner = &caller.principal.user_id;
        let now = Utc::now();
        let standing = self.deps.services.admin.standing(owner, caller.principal.key.as_ref()).await?;
        let mut kept = Vec::new();
        for grant in self.deps.log.live_grants(owner, now).await? {
            let tool = self.deps.policy.tool(&grant.tool_name);
            match tool.map(|t| Policy::may_still(t.meta(), None, standing)) {
                Some(Ok(())) => kept.push(grant),
                // No such tool now: an external tool's grant, which aware no longer makes.
                Some(Err(_)) | None => {
                    if self.deps.log.revoke_grant(owner, &grant.id, now).await? {
                        let server = Caller { principal: caller.principal.clone(), source: Source::System };
                        self.audit_grant(&server, "grant.end", &grant).await;
                    }
                }
            }
        }
        Ok(kept)
    }

    /// Ends one of the caller's session grants now (NOT_FOUND when none is in force).
    pub async fn revoke_grant(&self, caller: &Caller, id: &GrantId) -> Result<()> {
        let owner = &caller.principal.user_id;
        let now = Utc::now();
        let grant = self.deps.log.live_grants(owner, now).await?.into_iter().find(|g| &g.id == id);
        let not_found = || Error::not_found("grant", id).with_field("grant_id");
        let grant = grant.ok_or_else(not_found)?;
        if !self.deps.log.revoke_grant(owner, id, now).await? {
            return Err(not_found());
        }
        self.audit_grant(caller, "grant.revoke", &grant).await;
        Ok(())
    }
}
