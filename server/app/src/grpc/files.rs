//! `FilesService`: approved folders, listed and imported through the file jail.

use super::State;
use crate::convert;
use crate::status::to_status;
use aware_proto::v1 as pb;
use aware_proto::v1::files_service_server::FilesService;
use tonic::{Request, Response, Status};

pub struct Files {
    pub state: State,
}

#[tonic::async_trait]
impl FilesService for Files {
    async fn list_roots(
        &self,
        request: Request<pb::ListRootsRequest>,
    ) -> Result<Response<pb::ListRootsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let roots = self.state.services.files.roots(&caller).map_err(to_status)?;
        let roots = roots
            .into_iter()
            .map(|r| pb::FileRoot { description: r.path.display().to_string(), name: r.name })
            .collect();
        Ok(Response::new(pb::ListRootsResponse { roots }))
    }

    async fn list_directory(
        &self,
        request: Request<pb::ListDirectoryRequest>,
    ) -> Result<Response<pb::ListDirectoryResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let listing =
            self.state.services.files.list(&caller, &req.root, &req.path, &req.pattern).await.map_err(to_status)?;
        Ok(Response::new(pb::ListDirectoryResponse { listing: Some(convert::listing(&listing)) }))
    }

    async fn import_files(
        &self,
        request: Request<pb::ImportFilesRequest>,
    ) -> Result<Response<pb::ImportFilesResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let report = self.state.services.files.import(&caller, &req.root, &req.paths).await.map_err(to_status)?;
        Ok(Response::new(pb::ImportFilesResponse { report: Some(convert::import_report(&report)) }))
    }
}
