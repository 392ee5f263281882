//! The store passes the port contracts (`aware_domain::contract`) on both engines: SQLite in a
//! temporary data dir, and PostgreSQL in a cluster of its own (`aware-pgtest`), a fresh database
//! per test.

use aware_domain::auth::{Principal, Role};
use aware_domain::ids::UserId;
use aware_domain::ports::Users;
use aware_pgtest::{Durability, PgCluster};
use aware_store::Store;
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// What keeps a store's database alive: a temp dir, or the shared cluster.
enum Home {
    Sqlite(#[expect(dead_code, reason = "held for its Drop")] tempfile::TempDir),
    Postgres(#[expect(dead_code, reason = "held for its Drop")] Arc<PgCluster>),
}

/// One cluster for the tests of this binary that run at the same time; stopped when the last of
/// them drops it.
fn cluster() -> Arc<PgCluster> {
    static SHARED: OnceLock<Mutex<Weak<PgCluster>>> = OnceLock::new();
    let mut shared = SHARED.get_or_init(Default::default).lock().expect("cluster lock");
    if let Some(running) = shared.upgrade() {
        return running;
    }
    let started = Arc::new(PgCluster::start(Durability::Fast).expect("a PostgreSQL cluster"));
    *shared = Arc::downgrade(&started);
    started
}

async fn empty(engine: &str) -> (Home, Store) {
    match engine {
        "sqlite" => {
            let dir = tempfile::tempdir().expect("temp dir");
            let store = Store::open(&dir.path().join("aware.db")).await.expect("opened");
            (Home::Sqlite(dir), store)
        }
        _ => {
            static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let cluster = cluster();
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let url = cluster.create_database(&format!("contract_{n}")).expect("a database");
            let store = Store::connect(&url).await.expect("connected");
            (Home::Postgres(cluster), store)
        }
    }
}

async fn store(engine: &str) -> (Home, Store) {
    let (home, store) = empty(engine).await;
    for name in ["ana", "bo"] {
        let user_id = UserId::parse(name).expect("a user id");
        store
            .ensure_user(&Principal { user_id, name: name.to_owned(), role: Role::Analyst, key: None })
            .await
            .expect("a user");
    }
    (home, store)
}

macro_rules! on_both_engines {
    ($($name:ident: $engine:literal),* $(,)?) => {$(
        mod $name {
            use super::*;

            #[tokio::test]
            async fn the_run_log_keeps_its_contract() {
                let (_home, store) = store($engine).await;
                assert_eq!(store.engine(), $engine);
                aware_domain::contract::run_log(&store).await;
            }

            #[tokio::test]
            async fn the_catalog_and_uploads_keep_their_contracts() {
                let (_home, store) = store($engine).await;
                aware_domain::contract::catalog(&store).await;
                aware_domain::contract::catalog_versions(&store).await;
                aware_domain::contract::uploads(&store).await;
            }

            #[tokio::test]
            async fn the_run_records_keep_their_contract() {
                let (_home, store) = store($engine).await;
                aware_domain::contract::run_records(&store).await;
            }

            #[tokio::test]
            async fn the_users_keep_their_contract() {
                let (_home, store) = empty($engine).await;
                aware_domain::contract::users(&store).await;
            }

            #[tokio::test]
            async fn conversations_memories_and_saved_queries_keep_their_contracts() {
                let (_home, store) = store($engine).await;
                aware_domain::contract::conversations(&store).await;
                aware_domain::contract::memories(&store).await;
                aware_domain::contract::saved_queries(&store).await;
            }
        }
    )*};
}

on_both_engines!(sqlite: "sqlite", postgres: "postgres");
