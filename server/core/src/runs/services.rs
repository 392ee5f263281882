//! What tools act through: the domain services, and facts about this server, built once by the
//! app and handed to every run.

use crate::admin::AdminService;
use crate::curation::CurationService;
use crate::datasets::DatasetService;
use crate::files::FileService;
use crate::history::RunHistory;
use crate::memory::MemoryService;
use crate::query::QueryService;
use aware_domain::auth::DeploymentMode;
use aware_domain::ports::{AuditLog, QuestionSuggester};
use std::sync::Arc;

/// Facts about this server for `get_system_status`.
#[derive(Clone, Debug, Default)]
pub struct SystemInfo {
    pub version: String,
    pub mode: DeploymentMode,
    pub model_provider: String,
    pub storage: String,
}

/// The domain services tools act through, and facts about this server: built once by the app.
#[derive(Clone)]
pub struct Services {
    pub datasets: DatasetService,
    pub files: FileService,
    pub query: QueryService,
    pub history: RunHistory,
    pub memory: MemoryService,
    pub curation: CurationService,
    pub admin: AdminService,
    pub audit: Arc<dyn AuditLog>,
    pub system: SystemInfo,
    /// Questions to offer about a dataset (the offline planner writes and reads them).
    pub suggestions: Arc<dyn QuestionSuggester>,
}
