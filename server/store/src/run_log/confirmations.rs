//! Confirmations (created pending, resolved once by compare-and-set) and session grants ("allow
//! for 5 minutes": created, looked up, listed, revoked).

use super::corrupt;
use crate::db::Row;
use crate::{Store, db, from_micros, micros};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::events::{Resolution, ResourceRef, Tier};
use aware_domain::ids::{ConfirmationId, GrantId, RunId, ToolCallId, UserId};
use aware_domain::ports::run_log::Confirmations;
use aware_domain::ports::run_log::{Confirmation, SessionGrant};
use chrono::{DateTime, Utc};

fn confirmation_row(r: &Row) -> Result<Confirmation> {
    let tier: String = r.get("tier");
    let status: String = r.get("status");
    Ok(Confirmation {
        id: ConfirmationId::parse(r.get("id")).ok_or_else(|| corrupt("confirmation id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        run_id: RunId::parse(r.get("run_id")).ok_or_else(|| corrupt("run id"))?,
        tool_call_id: ToolCallId::parse(r.get("tool_call_id")).ok_or_else(|| corrupt("tool call id"))?,
        tool_name: r.get("tool_name"),
        resource: ResourceRef {
            kind: r.get("resource_type"),
            id: r.get("resource_id"),
            display_name: r.get("resource_name"),
        },
        args_sha256: r.get("args_sha256"),
        tier: Tier::parse(&tier).ok_or_else(|| corrupt("tier"))?,
        status: Resolution::parse(&status).ok_or_else(|| corrupt("confirmation status"))?,
        created_at: from_micros(r.get("created_at")),
        expires_at: from_micros(r.get("expires_at")),
        description: r.get("description"),
        edited_args: r.get("edited_args_json"),
        grant_id: r.get::<Option<String>>("grant_id").as_deref().and_then(GrantId::parse),
        bound_version: r.get("bound_version"),
    })
}

fn grant_row(r: &Row) -> Result<SessionGrant> {
    Ok(SessionGrant {
        id: GrantId::parse(r.get("id")).ok_or_else(|| corrupt("grant id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        tool_name: r.get("tool_name"),
        resource_class: r.get("resource_class"),
        confirmation_id: ConfirmationId::parse(r.get("confirmation_id")).ok_or_else(|| corrupt("confirmation id"))?,
        created_at: from_micros(r.get("created_at")),
        expires_at: from_micros(r.get("expires_at")),
    })
}

macro_rules! select_confirmations {
    ($rest:literal) => {
        concat!(
            "SELECT id, owner_id, run_id, tool_call_id, tool_name, resource_type, resource_id, resource_name, ",
            "args_sha256, tier, status, created_at, expires_at, description, edited_args_json, grant_id, ",
            "bound_version ",
            "FROM confirmations ",
            $rest
        )
    };
}

#[async_trait]
impl Confirmations for Store {
    async fn create_confirmation(&self, c: &Confirmation) -> Result<()> {
        self.db
            .query(
                "INSERT INTO confirmations (id, owner_id, run_id, tool_call_id, tool_name, resource_type, resource_id,
                                        resource_name, args_sha256, tier, status, created_at, expires_at,
                                        description, edited_args_json, grant_id, bound_version)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(c.id.as_str())
            .bind(c.owner.as_str())
            .bind(c.run_id.as_str())
            .bind(c.tool_call_id.as_str())
            .bind(&c.tool_name)
            .bind(&c.resource.kind)
            .bind(&c.resource.id)
            .bind(&c.resource.display_name)
            .bind(&c.args_sha256)
            .bind(c.tier.as_str())
            .bind(c.status.as_str())
            .bind(micros(c.created_at))
            .bind(micros(c.expires_at))
            .bind(&c.description)
            .bind(c.edited_args.as_deref())
            .bind(c.grant_id.as_ref().map(GrantId::as_str))
            .bind(c.bound_version.as_deref())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn confirmation(&self, id: &ConfirmationId) -> Result<Option<Confirmation>> {
        self.db
            .query(select_confirmations!("WHERE id = ?"))
            .bind(id.as_str())
            .fetch_optional_map(confirmation_row)
            .await
    }

    async fn confirmation_for_call(&self, call: &ToolCallId) -> Result<Option<Confirmation>> {
        self.db
            .query(select_confirmations!("WHERE tool_call_id = ?"))
            .bind(call.as_str())
            .fetch_optional_map(confirmation_row)
            .await
    }

    async fn pending_confirmations(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<Confirmation>> {
        let rows = self
            .db
            .query(select_confirmations!(
                "WHERE owner_id = ? AND status = 'pending' AND expires_at > ? ORDER BY created_at, id"
            ))
            .bind(owner.as_str())
            .bind(micros(now))
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(confirmation_row).collect()
    }

    async fn resolve_confirmation(
        &self,
        id: &ConfirmationId,
        to: Resolution,
        by: Option<&UserId>,
        edited_args: Option<&str>,
    ) -> Result<bool> {
        let changed = self
            .db
            .query(
                "UPDATE confirmations SET status = ?, resolved_at = ?, resolved_by = ?, edited_args_json = ?
             WHERE id = ? AND status = 'pending'",
            )
            .bind(to.as_str())
            .bind(micros(Utc::now()))
            .bind(by.map(UserId::as_str))
            .bind(edited_args)
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(changed == 1)
    }

    async fn create_grant(&self, g: &SessionGrant) -> Result<()> {
        self.db.query(
            "INSERT INTO session_grants (id, owner_id, tool_name, resource_class, confirmation_id, created_at, expires_at)
             VALUES (?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(g.id.as_str())
        .bind(g.owner.as_str())
        .bind(&g.tool_name)
        .bind(&g.resource_class)
        .bind(g.confirmation_id.as_str())
        .bind(micros(g.created_at))
        .bind(micros(g.expires_at))
        .execute()
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn live_grant(
        &self,
        owner: &UserId,
        tool: &str,
        class: &str,
        now: DateTime<Utc>,
    ) -> Result<Option<SessionGrant>> {
        self.db.query(
            "SELECT id, owner_id, tool_name, resource_class, confirmation_id, created_at, expires_at FROM session_grants
             WHERE owner_id = ? AND tool_name = ? AND resource_class = ? AND expires_at > ? AND revoked_at IS NULL
             ORDER BY expires_at DESC LIMIT 1",
        )
        .bind(owner.as_str())
        .bind(tool)
        .bind(class)
        .bind(micros(now))
        .fetch_optional_map(grant_row)
        .await
    }

    async fn live_grants(&self, owner: &UserId, now: DateTime<Utc>) -> Result<Vec<SessionGrant>> {
        let rows = self.db.query(
            "SELECT id, owner_id, tool_name, resource_class, confirmation_id, created_at, expires_at FROM session_grants
             WHERE owner_id = ? AND expires_at > ? AND revoked_at IS NULL ORDER BY expires_at, id",
        )
        .bind(owner.as_str())
        .bind(micros(now))
        .fetch_all()
        .await
        .map_err(db)?;
        rows.iter().map(grant_row).collect()
    }

    async fn revoke_grant(&self, owner: &UserId, id: &GrantId, now: DateTime<Utc>) -> Result<bool> {
        let changed = self
            .db
            .query(
                "UPDATE session_grants SET revoked_at = ?1
             WHERE id = ?2 AND owner_id = ?3 AND revoked_at IS NULL AND expires_at > ?1",
            )
            .bind(micros(now))
            .bind(id.as_str())
            .bind(owner.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(changed == 1)
    }
}
