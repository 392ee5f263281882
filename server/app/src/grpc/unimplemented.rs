//! Services whose capabilities arrive with later issues (the file jail). They are
//! registered now so reflection shows the whole contract; each RPC authenticates the caller and
//! answers UNIMPLEMENTED with `ErrorInfo { reason: "UNIMPLEMENTED" }`.

use super::State;
use crate::status::to_status;
use aware_core::Error;
use aware_proto::v1 as pb;
use aware_proto::v1::files_service_server::FilesService;
use tonic::{Request, Response, Status};

pub fn not_yet(rpc: &str) -> Status {
    to_status(Error::unimplemented(format!("{rpc} is not available in this version of aware yet")))
}

pub struct Files {
    pub state: State,
}

macro_rules! not_yet_rpcs {
    ($service:ident for $ty:ident { $($method:ident($req:ident) -> $resp:ident = $name:literal;)* }) => {
        #[tonic::async_trait]
        impl $service for $ty {
            $(
                async fn $method(&self, request: Request<pb::$req>) -> Result<Response<pb::$resp>, Status> {
                    self.state.caller(request.metadata()).await?;
                    Err(not_yet($name))
                }
            )*
        }
    };
}

not_yet_rpcs!(FilesService for Files {
    list_roots(ListRootsRequest) -> ListRootsResponse = "ListRoots";
    list_directory(ListDirectoryRequest) -> ListDirectoryResponse = "ListDirectory";
    import_files(ImportFilesRequest) -> ImportFilesResponse = "ImportFiles";
});
