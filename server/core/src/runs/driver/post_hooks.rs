//! Post-hooks: deterministic work after a run's last tool call and before its `RunCompleted`,
//! never inside the loop. Here, memory: what the user asked to remember in so many words (a
//! finished chat run's own message), and what a person approved remembering or forgetting (the
//! run's approved `remember` / `forget_memory` calls, bound to what the confirmation showed).
//! Nothing a tool returned or a dataset holds is read. Each change is announced once
//! (`MemorySaved`, `MemoryForgotten`); after a restart a hook finds its work done (the same text
//! is the same memory; a forgotten memory is gone) and announces nothing twice.

use super::Driver;
use crate::Result;
use crate::memory::{Explicit, explicit_request};
use crate::runs::tools::ToolName;
use aware_domain::events::EventPayload;
use aware_domain::ids::MemoryId;
use aware_domain::ports::model::Message;
use aware_domain::run::RunStatus;
use aware_domain::run::ToolPhase;

impl Driver {
    pub(super) async fn post_hooks(&mut self, status: RunStatus) -> Result<()> {
        if status == RunStatus::Cancelled {
            return Ok(());
        }
        let mut remember = Vec::new();
        let mut forget = Vec::new();
        if status == RunStatus::Succeeded
            && !self.is_tool_run()
            && let Some(Explicit::Remember(fact)) = explicit_request(&self.run.record.question)
        {
            remember.push(fact);
        }
        // Most runs call no memory tool: their end reads nothing more.
        let is_memory_tool =
            |name: &str| matches!(ToolName::parse(name), Some(ToolName::Remember | ToolName::ForgetMemory));
        let proposed = self.messages.iter().any(|m| match m {
            Message::Assistant { tool_calls, .. } => tool_calls.iter().any(|c| is_memory_tool(&c.name)),
            Message::User { .. } | Message::Tool { .. } => false,
        });
        let rows = if proposed { self.deps.log.tool_calls(&self.run.record.id).await? } else { Vec::new() };
        for row in rows.into_iter().filter(|r| r.phase == ToolPhase::Succeeded && is_memory_tool(&r.tool_name)) {
            let Some(conf) = self.deps.log.confirmation_for_call(&row.id).await? else { continue };
            if ToolName::parse(&row.tool_name) == Some(ToolName::Remember) {
                // The text the person saw in "Remember: …?".
                remember.push(conf.resource.display_name);
            } else if let Some(id) = MemoryId::parse(&conf.resource.id) {
                forget.push((id, conf.resource.display_name));
            }
        }
        let caller = self.ctx.caller.clone();
        let run_id = self.run.record.id.clone();
        for fact in remember {
            match self.deps.services.memory.add(&caller, &fact, Some(&run_id)).await {
                Ok((memory, _)) => {
                    self.emit(EventPayload::MemorySaved { memory_id: memory.id, text: memory.text }).await?
                }
                Err(e) => tracing::warn!(error = %e, "a memory could not be stored"),
            }
        }
        for (id, text) in forget {
            match self.deps.services.memory.delete(&caller, &id).await {
                Ok(memory) => {
                    self.emit(EventPayload::MemoryForgotten { memory_id: memory.id, text: memory.text }).await?
                }
                Err(e) if e.code == crate::ErrorCode::NotFound => {
                    tracing::debug!(memory = %id, text, "already forgotten");
                }
                Err(e) => tracing::warn!(error = %e, "a memory could not be forgotten"),
            }
        }
        Ok(())
    }
}
