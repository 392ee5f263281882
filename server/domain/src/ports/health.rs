//! Whether the metadata store answers now: `/readyz` asks it before it says the server is ready.

use crate::Result;
use async_trait::async_trait;

#[async_trait]
pub trait Health: Send + Sync {
    /// `Ok` when the store answers a query now; its error says why not.
    async fn ping(&self) -> Result<()>;
}
