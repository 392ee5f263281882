//! The tonic services. Handlers are thin: authenticate → convert the request → call a domain
//! service → convert the answer. No business rules here.

pub mod admin;
pub mod audit;
pub mod chat;
pub mod datasets;
pub mod files;
pub mod memory;
pub mod query;
pub mod runs;
pub mod threads;

use crate::auth::Authenticator;
use crate::config::Config;
use aware_core::runs::{RunEngine, Services};
use aware_domain::auth::Caller;
use std::sync::Arc;
use tonic::Status;
use tonic::metadata::MetadataMap;

/// What every handler can reach.
pub struct AppState {
    pub config: Config,
    pub auth: Authenticator,
    /// Users and API keys over the API.
    pub admin: aware_core::admin::AdminService,
    /// The domain services (the same bag the run engine's tools act through).
    pub services: Services,
    pub runs: RunEngine,
    /// Per-user request rate and open-stream caps.
    pub limits: Arc<crate::limits::UserLimits>,
    /// Set once the server starts shutting down: open streams say so and end.
    pub shutdown: tokio::sync::watch::Sender<bool>,
    /// Whether the metadata store answers now (`/readyz`).
    pub health: Arc<dyn aware_domain::ports::Health>,
}

impl AppState {
    /// The authenticated caller of a request, which takes one request from their allowance.
    pub async fn caller(&self, metadata: &MetadataMap) -> Result<Caller, Status> {
        let caller = self.auth.caller(metadata).await.map_err(crate::status::to_status)?;
        self.limits.request(caller.principal.user_id.as_str()).map_err(crate::status::to_status)?;
        Ok(caller)
    }
}

pub type State = Arc<AppState>;

/// A query refused for its cost tells the API's caller how to run it anyway.
pub(crate) fn how_to_run(mut e: aware_core::Error) -> aware_core::Error {
    if e.code == aware_core::ErrorCode::CostConfirmationRequired {
        e.message.push_str(" — send it again with run_heavy to run it");
    }
    e
}
