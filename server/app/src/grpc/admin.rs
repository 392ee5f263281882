//! `aware.v1.AdminService`: users and API keys over the API (admins only; the rules are in
//! `aware_core::admin`). After a change that can end access, the auth cache forgets what it
//! looked up, so the change holds from the next call.

use super::State;
use crate::convert::{self, api_key as key, role_in, user};
use crate::status::to_status;
use aware_core::Error;
use aware_core::admin::UserChange;
use aware_proto::v1 as pb;
use aware_proto::v1::admin_service_server::AdminService;
use tonic::{Request, Response, Status};

pub struct Admin {
    pub state: State,
}

#[tonic::async_trait]
impl AdminService for Admin {
    async fn list_users(
        &self,
        request: Request<pb::ListUsersRequest>,
    ) -> Result<Response<pb::ListUsersResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let all = self.state.admin.list_users(&caller).await.map_err(to_status)?;
        Ok(Response::new(pb::ListUsersResponse { users: all.iter().map(user).collect() }))
    }

    async fn create_user(
        &self,
        request: Request<pb::CreateUserRequest>,
    ) -> Result<Response<pb::CreateUserResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let role = role_in(req.role)
            .and_then(|r| r.ok_or_else(|| Error::validation("role", "a new user needs a role")))
            .map_err(to_status)?;
        let created = self.state.admin.create_user(&caller, &req.name, role).await.map_err(to_status)?;
        Ok(Response::new(pb::CreateUserResponse { user: Some(user(&created)) }))
    }

    async fn update_user(
        &self,
        request: Request<pb::UpdateUserRequest>,
    ) -> Result<Response<pb::UpdateUserResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let active = match pb::UserActivation::try_from(req.activation) {
            Ok(pb::UserActivation::Unspecified) => None,
            Ok(pb::UserActivation::Deactivate) => Some(false),
            Ok(pb::UserActivation::Reactivate) => Some(true),
            Err(_) => return Err(to_status(Error::validation("activation", "unknown activation"))),
        };
        let change = UserChange { role: role_in(req.role).map_err(to_status)?, active };
        let updated = self.state.admin.update_user(&caller, &req.user_id, change).await.map_err(to_status)?;
        Ok(Response::new(pb::UpdateUserResponse { user: Some(user(&updated)) }))
    }

    async fn create_api_key(
        &self,
        request: Request<pb::CreateApiKeyRequest>,
    ) -> Result<Response<pb::CreateApiKeyResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let expires_at = req.expires_at.as_ref().map(|t| convert::timestamp_in(t, "expires_at")).transpose();
        let (created, token) = self
            .state
            .admin
            .create_api_key(&caller, &req.user_id, expires_at.map_err(to_status)?)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::CreateApiKeyResponse { key: Some(key(&created)), token }))
    }

    async fn list_api_keys(
        &self,
        request: Request<pb::ListApiKeysRequest>,
    ) -> Result<Response<pb::ListApiKeysResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let keys = self.state.admin.api_keys(&caller, &request.into_inner().user_id).await.map_err(to_status)?;
        Ok(Response::new(pb::ListApiKeysResponse { keys: keys.iter().map(key).collect() }))
    }

    async fn revoke_api_key(
        &self,
        request: Request<pb::RevokeApiKeyRequest>,
    ) -> Result<Response<pb::RevokeApiKeyResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let revoked =
            self.state.admin.revoke_api_key(&caller, &request.into_inner().key_id).await.map_err(to_status)?;
        Ok(Response::new(pb::RevokeApiKeyResponse { key: Some(key(&revoked)) }))
    }
}
