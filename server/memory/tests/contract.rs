//! The in-memory adapters pass the port contracts (`aware_core::contract`).

#[tokio::test]
async fn the_in_memory_run_log_keeps_the_run_log_contract() {
    aware_core::contract::run_log(&aware_memory::MemoryRuns::default()).await;
}

#[tokio::test]
async fn the_in_memory_catalog_and_uploads_keep_their_contracts() {
    aware_core::contract::catalog(&aware_memory::MemoryCatalog::default()).await;
    aware_core::contract::catalog_versions(&aware_memory::MemoryCatalog::default()).await;
    aware_core::contract::uploads(&aware_memory::MemoryUploads::default()).await;
}

#[tokio::test]
async fn the_in_memory_run_records_keep_their_contract() {
    aware_core::contract::run_records(&aware_memory::MemoryRuns::default()).await;
}

#[tokio::test]
async fn the_in_memory_users_keep_their_contract() {
    aware_core::contract::users(&aware_memory::MemoryUsers::default()).await;
}

#[tokio::test]
async fn the_in_memory_conversations_and_memories_keep_their_contracts() {
    aware_core::contract::conversations(&aware_memory::MemoryRuns::default()).await;
    aware_core::contract::memories(&aware_memory::MemoryMemories::default()).await;
    aware_core::contract::saved_queries(&aware_memory::MemorySavedQueries::default()).await;
}
