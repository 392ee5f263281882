//! The metadata store of the suites' servers: SQLite in each data dir (the default), or, with
//! `AWARE_E2E_STORE=postgres`, a PostgreSQL database of its own per data dir, on one cluster per
//! test process (`aware-pgtest`). `scripts/test` runs the run-engine and datasets suites both
//! ways. A data dir keeps its database across restarts of its server.

use aware_pgtest::{Durability, PgCluster};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Whether this run of the suites puts the metadata in PostgreSQL.
pub fn postgres() -> bool {
    std::env::var("AWARE_E2E_STORE").is_ok_and(|v| v == "postgres")
}

/// `storage.url` for a server on `data_dir` (its database is created on first use), or `None`
/// on SQLite.
pub fn url_for(data_dir: &Path) -> Option<String> {
    if !postgres() {
        return None;
    }
    // Held in a static, never dropped: the cluster's watchdog stops it when this process ends.
    static CLUSTER: OnceLock<PgCluster> = OnceLock::new();
    static DATABASES: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let cluster = CLUSTER.get_or_init(|| PgCluster::start(Durability::Fast).expect("a PostgreSQL cluster"));
    let mut databases = DATABASES.get_or_init(Default::default).lock().expect("databases");
    let n = databases.len();
    let url = databases
        .entry(data_dir.to_owned())
        .or_insert_with(|| cluster.create_database(&format!("e2e_{n}")).expect("a database"));
    Some(url.clone())
}

/// The store a server on `data_dir` uses, opened beside it (to look at what it stored).
pub async fn open(data_dir: &Path) -> aware_store::Store {
    match url_for(data_dir) {
        Some(url) => aware_store::Store::connect(&url).await.expect("the PostgreSQL store"),
        None => aware_store::Store::open(&data_dir.join("aware.db")).await.expect("the SQLite store"),
    }
}
