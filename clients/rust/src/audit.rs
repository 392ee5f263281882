//! `aware audit`: the audit log from the terminal — who changed what, from where (web, cli, api,
//! ai_assistant, mcp, system), newest first. An admin reads everyone's; anyone else their own.

use crate::render::time_text;
use crate::say;
use aware_client::AwareClient;
use aware_client::v1 as pb;
use serde_json::{Value as Json, json};

#[derive(clap::Args)]
pub(crate) struct AuditArgs {
    /// Only this user's entries (admins).
    #[arg(long)]
    user: Option<String>,
    /// Only entries from web, cli, api, ai_assistant, mcp or system.
    #[arg(long)]
    source: Option<String>,
    /// Only this action, or every action under a prefix ending with a dot (`dataset.`).
    #[arg(long)]
    action: Option<String>,
    /// How many entries to show.
    #[arg(long, default_value_t = 50)]
    limit: u32,
}

pub(crate) async fn audit(client: &AwareClient, args: AuditArgs, json: bool) -> anyhow::Result<()> {
    let mut all = Vec::new();
    let mut page_token = String::new();
    while all.len() < args.limit as usize {
        let req = pb::ListAuditEntriesRequest {
            user_id: args.user.clone().unwrap_or_default(),
            source: args.source.clone().unwrap_or_default(),
            action: args.action.clone().unwrap_or_default(),
            page_size: (args.limit as usize - all.len()).min(100) as u32,
            page_token,
            ..Default::default()
        };
        let page = client.audit().list_audit_entries(req).await?.into_inner();
        all.extend(page.entries);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    if json {
        let items: Vec<Json> = all
            .iter()
            .map(|e| {
                json!({"entry_id": e.entry_id, "at": e.at.map(|t| t.seconds), "user_id": e.user_id, "source": e.source,
                       "action": e.action, "resource_type": e.resource_type, "resource_id": e.resource_id,
                       "outcome": e.outcome, "details": serde_json::from_str::<Json>(&e.details_json).unwrap_or(Json::Null)})
            })
            .collect();
        say!("{}", Json::Array(items));
    } else if all.is_empty() {
        say!("No audit entries match.");
    } else {
        for e in &all {
            say!(
                "{}  {:<12} {:<18} {} {} · {} · {}",
                e.at.map_or_else(String::new, |t| time_text(t.seconds)),
                e.source,
                e.action,
                e.resource_type,
                e.resource_id,
                e.outcome,
                e.user_id
            );
        }
    }
    Ok(())
}
