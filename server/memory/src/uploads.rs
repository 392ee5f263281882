//! Resumable upload sessions, in memory.

use crate::lock;
use async_trait::async_trait;
use aware_domain::ids::{UploadId, UserId};
use aware_domain::ports::{UploadSession, Uploads};
use aware_domain::{Error, Result};
use chrono::{DateTime, Utc};
use std::collections::HashMap;
use std::sync::Mutex;

/// Chunked-upload bookkeeping, in memory.
#[derive(Default)]
pub struct MemoryUploads {
    sessions: Mutex<HashMap<UploadId, UploadSession>>,
}

#[async_trait]
impl Uploads for MemoryUploads {
    async fn create_session(&self, session: &UploadSession) -> Result<()> {
        let mut all = lock(&self.sessions);
        if all.contains_key(&session.id) {
            return Err(Error::internal(format!("upload {} already exists", session.id)));
        }
        all.insert(session.id.clone(), session.clone());
        Ok(())
    }

    async fn session(&self, owner: &UserId, id: &UploadId) -> Result<Option<UploadSession>> {
        Ok(lock(&self.sessions).get(id).filter(|s| &s.owner == owner).cloned())
    }

    async fn set_received(&self, id: &UploadId, received_bytes: u64) -> Result<()> {
        if let Some(s) = lock(&self.sessions).get_mut(id) {
            s.received_bytes = received_bytes;
        }
        Ok(())
    }

    async fn remove_session(&self, id: &UploadId) -> Result<()> {
        lock(&self.sessions).remove(id);
        Ok(())
    }

    async fn count_open(&self, owner: &UserId) -> Result<u64> {
        Ok(lock(&self.sessions).values().filter(|s| &s.owner == owner).count() as u64)
    }

    async fn take_expired(&self, cutoff: DateTime<Utc>) -> Result<Vec<UploadId>> {
        let mut all = lock(&self.sessions);
        let expired: Vec<UploadId> = all.values().filter(|s| s.created_at < cutoff).map(|s| s.id.clone()).collect();
        for id in &expired {
            all.remove(id);
        }
        Ok(expired)
    }
}
