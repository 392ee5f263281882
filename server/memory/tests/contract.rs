//! The in-memory adapters pass the port contracts (`aware_domain::contract`).

#[tokio::test]
async fn the_in_memory_run_log_keeps_the_run_log_contract() {
    aware_domain::contract::run_log(&aware_memory::MemoryRuns::default()).await;
}

#[tokio::test]
async fn the_in_memory_catalog_and_uploads_keep_their_contracts() {
    aware_domain::contract::catalog(&aware_memory::MemoryCatalog::default()).await;
    aware_domain::contract::catalog_versions(&aware_memory::MemoryCatalog::default()).await;
    aware_domain::contract::uploads(&aware_memory::MemoryUploads::default()).await;
}

#[tokio::test]
async fn the_in_memory_run_records_keep_their_contract() {
    aware_domain::contract::run_records(&aware_memory::MemoryRuns::default()).await;
}

#[tokio::test]
async fn the_in_memory_users_keep_their_contract() {
    aware_domain::contract::users(&aware_memory::MemoryUsers::default()).await;
}

#[tokio::test]
async fn the_in_memory_conversations_and_memories_keep_their_contracts() {
    aware_domain::contract::conversations(&aware_memory::MemoryRuns::default()).await;
    aware_domain::contract::memories(&aware_memory::MemoryMemories::default()).await;
    aware_domain::contract::saved_queries(&aware_memory::MemorySavedQueries::default()).await;
}
