//! The SQLite adapters pass the port contracts (`aware_core::contract`).

use aware_core::auth::{Principal, Role};
use aware_core::ids::UserId;
use aware_core::ports::Users;
use aware_store::SqliteStore;

async fn store() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("aware.db")).await.expect("opened");
    for name in ["ana", "bo"] {
        let user_id = UserId::parse(name).expect("a user id");
        store.ensure_user(&Principal { user_id, name: name.to_owned(), role: Role::Analyst }).await.expect("a user");
    }
    (dir, store)
}

#[tokio::test]
async fn the_sqlite_run_log_keeps_the_run_log_contract() {
    let (_dir, store) = store().await;
    aware_core::contract::run_log(&store).await;
}

#[tokio::test]
async fn the_sqlite_catalog_and_uploads_keep_their_contracts() {
    let (_dir, store) = store().await;
    aware_core::contract::catalog(&store).await;
    aware_core::contract::uploads(&store).await;
}

#[tokio::test]
async fn the_sqlite_run_records_keep_their_contract() {
    let (_dir, store) = store().await;
    aware_core::contract::run_records(&store).await;
}

#[tokio::test]
async fn the_sqlite_users_keep_their_contract() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = SqliteStore::open(&dir.path().join("aware.db")).await.expect("opened");
    aware_core::contract::users(&store).await;
}

#[tokio::test]
async fn the_sqlite_conversations_and_memories_keep_their_contracts() {
    let (_dir, store) = store().await;
    aware_core::contract::conversations(&store).await;
    aware_core::contract::memories(&store).await;
    aware_core::contract::saved_queries(&store).await;
}
