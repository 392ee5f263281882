//! `aware.v1.AuditService`: the audit log, read (an admin's: all of it; anyone else's: their own).

use super::State;
use crate::convert;
use crate::status::to_status;
use aware_core::audit::{AuditQuery, list_entries};
use aware_domain::ports::StoredAuditEntry;
use aware_proto::v1 as pb;
use aware_proto::v1::audit_service_server::AuditService;
use tonic::{Request, Response, Status};

pub struct Audit {
    pub state: State,
}

fn entry(e: &StoredAuditEntry) -> pb::AuditEntry {
    pb::AuditEntry {
        entry_id: e.id,
        at: Some(convert::timestamp(e.at)),
        user_id: e.entry.user_id.to_string(),
        source: e.entry.source.as_str().to_owned(),
        action: e.entry.action.clone(),
        resource_type: e.entry.resource_type.clone(),
        resource_id: e.entry.resource_id.clone(),
        outcome: e.entry.outcome.clone(),
        details_json: e.entry.details.to_string(),
    }
}

#[tonic::async_trait]
impl AuditService for Audit {
    async fn list_audit_entries(
        &self,
        request: Request<pb::ListAuditEntriesRequest>,
    ) -> Result<Response<pb::ListAuditEntriesResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let query = AuditQuery {
            user_id: req.user_id,
            source: req.source,
            action: req.action,
            since: req.since.as_ref().map(|t| convert::timestamp_in(t, "since")).transpose().map_err(to_status)?,
            until: req.until.as_ref().map(|t| convert::timestamp_in(t, "until")).transpose().map_err(to_status)?,
            page_size: req.page_size,
            page_token: req.page_token,
        };
        let page = list_entries(self.state.services.audit.as_ref(), &caller, query).await.map_err(to_status)?;
        Ok(Response::new(pb::ListAuditEntriesResponse {
            entries: page.entries.iter().map(entry).collect(),
            next_page_token: page.next.unwrap_or_default(),
        }))
    }
}
