//! The assistant's ELEVATED tools: users, roles and API keys (`crate::admin::AdminService`).
//! Admins only, every call waits for a person's approval on a warning card, and none can be
//! allowed for a while (an ELEVATED call never makes a session grant: `tools::grant_class_for`).
//! A new key's token reaches the person once, in the rich result; the model is told only that a
//! key was made and its prefix.

use super::{Gate, Prepared, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput, string_arg};
use crate::admin::UserChange;
use crate::runs::model_view::changes;
use crate::runs::router::Intent;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::{Capability, Role};
use aware_domain::events::{ResourceRef, RichResult, Tier, ToolRisk};
use aware_domain::ports::User;
use serde_json::{Value, json};
use std::borrow::Cow;

const ELEVATED: ToolRisk = ToolRisk { read_only: false, destructive: false, confirmation: Some(Tier::Elevated) };
const ACCOUNTS: &[Intent] = &[Intent::AccountAdmin];
const ADMIN_ONLY: Gate = Gate::Capability(Capability::SystemAdmin);

fn role_arg(args: &Value) -> Result<Role> {
    let raw = string_arg(args, "role")?.trim().to_lowercase();
    raw.parse::<Role>().ok().ok_or_else(|| Error::validation("role", "role is viewer, analyst or admin"))
}

fn user_ref(user: &User) -> ResourceRef {
    ResourceRef { kind: "user".to_owned(), id: user.id.to_string(), display_name: user.name.clone() }
}

async fn user_arg(ctx: &ToolContext, args: &Value) -> Result<User> {
    ctx.services.admin.find_user(&ctx.caller, string_arg(args, "user")?).await
}

fn user_schema(extra: Value) -> Value {
    let mut properties = json!({"user": {"type": "string", "description": "the user's id or name"}});
    if let (Some(p), Value::Object(more)) = (properties.as_object_mut(), extra) {
        p.extend(more);
    }
    json!({"type": "object", "properties": properties, "required": ["user"], "additionalProperties": false})
}

fn account(
    change: &str,
    user: Option<User>,
    api_key: Option<aware_domain::ports::ApiKey>,
    token: String,
) -> RichResult {
    RichResult::Account { change: change.to_owned(), user, api_key, token }
}

pub(super) struct CreateUser;

static CREATEUSER: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::CreateUser),
    title: Cow::Borrowed("Create a user"),
    activity: Cow::Borrowed("Creating the user…"),
    description: Cow::Borrowed(
        "Create a user account with a name (e.g. an email address) and a role: viewer, analyst or admin. Admins only; \
         a person approves it first.",
    ),
    risk: ELEVATED,
    gate: ADMIN_ONLY,
    intents: ACCOUNTS,
};

#[async_trait]
impl Tool for CreateUser {
    fn meta(&self) -> &ToolMeta {
        &CREATEUSER
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "role": {"type": "string", "enum": ["viewer", "analyst", "admin"]}
            },
            "required": ["name", "role"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let name = crate::admin::user_name(string_arg(args, "name")?)?.to_owned();
        let role = role_arg(args)?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Create the user “{name}” with the role {}. They can sign in once given a key.",
                role.as_str()
            ),
            resource: ResourceRef { kind: "user".to_owned(), id: String::new(), display_name: name.clone() },
            pinned: Some(json!({"name": name, "role": role.as_str()})),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let user = ctx.services.admin.create_user(&ctx.caller, string_arg(args, "name")?, role_arg(args)?).await?;
        Ok(ToolOutput {
            llm_summary: changes::user_created(&user),
            rich: Some(account("user_created", Some(user), None, String::new())),
        })
    }
}

pub(super) struct ChangeUserRole;

static CHANGEROLE: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ChangeUserRole),
    title: Cow::Borrowed("Change a user's role"),
    activity: Cow::Borrowed("Changing the role…"),
    description: Cow::Borrowed(
        "Change a user's role (viewer, analyst or admin); it applies to their next request. Admins only; a person \
         approves it first.",
    ),
    risk: ELEVATED,
    gate: ADMIN_ONLY,
    intents: ACCOUNTS,
};

#[async_trait]
impl Tool for ChangeUserRole {
    fn meta(&self) -> &ToolMeta {
        &CHANGEROLE
    }
    fn input_schema(&self) -> Value {
        user_schema(json!({"role": {"type": "string", "enum": ["viewer", "analyst", "admin"]}}))
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let user = user_arg(ctx, args).await?;
        let role = role_arg(args)?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Change the role of “{}” from {} to {}. It applies from their next request.",
                user.name,
                user.role.as_str(),
                role.as_str()
            ),
            pinned: Some(json!({"user": user.id.as_str(), "role": role.as_str()})),
            resource: user_ref(&user),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let user = user_arg(ctx, args).await?;
        let change = UserChange { role: Some(role_arg(args)?), active: None };
        let updated = ctx.services.admin.update_user(&ctx.caller, user.id.as_str(), change).await?;
        Ok(ToolOutput {
            llm_summary: changes::role_changed(&user, &updated),
            rich: Some(account("role_changed", Some(updated), None, String::new())),
        })
    }
}

/// Deactivating and reactivating: one tool each, so a card says exactly which.
pub(super) struct SetActive {
    active: bool,
}

impl SetActive {
    pub(super) const DEACTIVATE: Self = Self { active: false };
    pub(super) const REACTIVATE: Self = Self { active: true };
}

static DEACTIVATE: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::DeactivateUser),
    title: Cow::Borrowed("Deactivate a user"),
    activity: Cow::Borrowed("Deactivating the user…"),
    description: Cow::Borrowed(
        "Deactivate a user: every key of theirs is refused from their next request and their open streams end; \
         nothing of theirs is deleted. Admins only; a person approves it first.",
    ),
    risk: ELEVATED,
    gate: ADMIN_ONLY,
    intents: ACCOUNTS,
};

static REACTIVATE: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ReactivateUser),
    title: Cow::Borrowed("Reactivate a user"),
    activity: Cow::Borrowed("Reactivating the user…"),
    description: Cow::Borrowed(
        "Reactivate a deactivated user: their keys that are not revoked or expired work again. Admins only; a person \
         approves it first.",
    ),
    risk: ELEVATED,
    gate: ADMIN_ONLY,
    intents: ACCOUNTS,
};

#[async_trait]
impl Tool for SetActive {
    fn meta(&self) -> &ToolMeta {
        if self.active { &REACTIVATE } else { &DEACTIVATE }
    }
    fn input_schema(&self) -> Value {
        user_schema(json!({}))
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let user = user_arg(ctx, args).await?;
        let description = if self.active {
            format!("Reactivate “{}” ({}): their keys work again.", user.name, user.role.as_str())
        } else {
            format!(
                "Deactivate “{}” ({}): their keys stop working at once and their open sessions end. Their data stays.",
                user.name,
                user.role.as_str()
            )
        };
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description,
            pinned: Some(json!({"user": user.id.as_str()})),
            resource: user_ref(&user),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let user = user_arg(ctx, args).await?;
        let change = UserChange { role: None, active: Some(self.active) };
        let updated = ctx.services.admin.update_user(&ctx.caller, user.id.as_str(), change).await?;
        let change = if self.active { "reactivated" } else { "deactivated" };
        Ok(ToolOutput {
            llm_summary: changes::activity_changed(&updated, self.active),
            rich: Some(account(change, Some(updated), None, String::new())),
        })
    }
}

pub(super) struct CreateApiKey;

static CREATEKEY: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::CreateApiKey),
    title: Cow::Borrowed("Create an API key"),
    activity: Cow::Borrowed("Creating the key…"),
    description: Cow::Borrowed(
        "Create an API key for a user, optionally expiring after `expires_in_days`. The token is shown once to the \
         person in the app; you never see it. Admins only; a person approves it first.",
    ),
    risk: ELEVATED,
    gate: ADMIN_ONLY,
    intents: ACCOUNTS,
};

fn expiry_arg(args: &Value) -> Result<Option<u64>> {
    match args.get("expires_in_days") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(days @ 1..=3650) => Ok(Some(days)),
            _ => Err(Error::validation("expires_in_days", "expires_in_days is a whole number of days, 1 to 3650")),
        },
    }
}

#[async_trait]
impl Tool for CreateApiKey {
    fn meta(&self) -> &ToolMeta {
        &CREATEKEY
    }
    fn input_schema(&self) -> Value {
        user_schema(json!({"expires_in_days": {"type": "integer", "minimum": 1, "maximum": 3650}}))
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let user = user_arg(ctx, args).await?;
        let days = expiry_arg(args)?;
        let mut pinned = json!({"user": user.id.as_str()});
        if let Some(days) = days {
            pinned["expires_in_days"] = json!(days);
        }
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Create an API key for “{}” ({}){}. Its token is shown to you once, here; anyone holding it acts as them.",
                user.name,
                user.role.as_str(),
                days.map(|d| format!(", expiring in {d} days")).unwrap_or_else(|| ", without expiry".to_owned())
            ),
            pinned: Some(pinned),
            resource: user_ref(&user),
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let user = user_arg(ctx, args).await?;
        let expires =
            expiry_arg(args)?.map(|d| chrono::Utc::now() + chrono::Duration::days(i64::try_from(d).unwrap_or(3650)));
        let (key, token) = ctx.services.admin.create_api_key(&ctx.caller, user.id.as_str(), expires).await?;
        Ok(ToolOutput {
            llm_summary: changes::key_created(&key, &user),
            rich: Some(account("key_created", Some(user), Some(key), token)),
        })
    }
}

pub(super) struct RevokeApiKey;

static REVOKEKEY: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::RevokeApiKey),
    title: Cow::Borrowed("Revoke an API key"),
    activity: Cow::Borrowed("Revoking the key…"),
    description: Cow::Borrowed(
        "Revoke an API key by its id (key_…) or the prefix people see (aw_…): it is refused from its next request and \
         its open streams end. Cannot be undone. Admins only; a person approves it first.",
    ),
    risk: ToolRisk { read_only: false, destructive: true, confirmation: Some(Tier::Elevated) },
    gate: ADMIN_ONLY,
    intents: ACCOUNTS,
};

#[async_trait]
impl Tool for RevokeApiKey {
    fn meta(&self) -> &ToolMeta {
        &REVOKEKEY
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"key": {"type": "string", "description": "the key's id (key_…) or prefix (aw_…)"}},
            "required": ["key"],
            "additionalProperties": false
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let key = ctx.services.admin.find_key(&ctx.caller, string_arg(args, "key")?).await?;
        let owner = ctx.services.admin.find_user(&ctx.caller, key.user.as_str()).await?;
        if key.revoked_at.is_some() {
            return Err(Error::validation("key", format!("the key {} ({}) is already revoked", key.id, key.prefix)));
        }
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Revoke the API key {} of “{}” (starts {}): anything using it stops working at once. This cannot be undone.",
                key.id, owner.name, key.prefix
            ),
            pinned: Some(json!({"key": key.id.as_str()})),
            resource: ResourceRef { kind: "api_key".to_owned(), id: key.id.to_string(), display_name: key.prefix },
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let key = ctx.services.admin.find_key(&ctx.caller, string_arg(args, "key")?).await?;
        let revoked = ctx.services.admin.revoke_api_key(&ctx.caller, key.id.as_str()).await?;
        Ok(ToolOutput {
            llm_summary: changes::key_revoked(&revoked),
            rich: Some(account("key_revoked", None, Some(revoked), String::new())),
        })
    }
}
