//! `aware.v1.AuditService`: the audit log, read (an admin's: all of it; anyone else's: their own).

use super::State;
use crate::convert;
use crate::status::to_status;
use aware_core::audit::{AuditQuery, list_entries};
use aware_proto::v1 as pb;
use aware_proto::v1::audit_service_server::AuditService;
use tonic::{Request, Response, Status};

pub struct Audit {
    pub state: State,
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
            entries: page.entries.iter().map(convert::audit_entry).collect(),
            next_page_token: page.next.unwrap_or_default(),
        }))
    }
}
