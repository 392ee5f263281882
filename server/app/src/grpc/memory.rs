//! `aware.v1.MemoryService`: the facts the caller asked aware to keep.

use super::State;
use crate::convert;
use crate::status::to_status;
use aware_domain::ids::MemoryId;
use aware_domain::ports::Memory;
use aware_proto::v1 as pb;
use aware_proto::v1::memory_service_server::MemoryService;
use tonic::{Request, Response, Status};

pub struct Memories {
    pub state: State,
}

fn memory(m: &Memory) -> pb::Memory {
    pb::Memory {
        memory_id: m.id.to_string(),
        text: m.text.clone(),
        source_run_id: m.source_run.as_ref().map(ToString::to_string).unwrap_or_default(),
        created_at: Some(convert::timestamp(m.created_at)),
        last_used_at: m.last_used_at.map(convert::timestamp),
    }
}

#[tonic::async_trait]
impl MemoryService for Memories {
    async fn list_memories(
        &self,
        request: Request<pb::ListMemoriesRequest>,
    ) -> Result<Response<pb::ListMemoriesResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let all = self.state.services.memory.list(&caller).await.map_err(to_status)?;
        Ok(Response::new(pb::ListMemoriesResponse { memories: all.iter().map(memory).collect() }))
    }

    async fn add_memory(
        &self,
        request: Request<pb::AddMemoryRequest>,
    ) -> Result<Response<pb::AddMemoryResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let (added, _) =
            self.state.services.memory.add(&caller, &request.into_inner().text, None).await.map_err(to_status)?;
        Ok(Response::new(pb::AddMemoryResponse { memory: Some(memory(&added)) }))
    }

    async fn delete_memory(
        &self,
        request: Request<pb::DeleteMemoryRequest>,
    ) -> Result<Response<pb::DeleteMemoryResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let raw = request.into_inner().memory_id;
        let id = MemoryId::parse_field(&raw, "memory_id").map_err(to_status)?;
        self.state.services.memory.delete(&caller, &id).await.map_err(to_status)?;
        Ok(Response::new(pb::DeleteMemoryResponse {}))
    }
}
