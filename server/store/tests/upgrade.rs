//! Upgrading a data dir: migration 0005 rebuilds the `runs` table (SQLite cannot change a CHECK
//! constraint in place) with foreign keys off, so the rows that hang off a run by `ON DELETE
//! CASCADE` — its events, its confirmations — survive, and every foreign key still holds.

use aware_domain::ids::RunId;
use aware_domain::ports::run_log::ChatRuns;
use aware_store::Store;
use sqlx::Row;
use sqlx::sqlite::{SqliteConnectOptions, SqlitePoolOptions};
use std::path::Path;

const RUN: &str = "run_0000000000000000000000000000aa01";

async fn pool(db: &Path) -> sqlx::SqlitePool {
    let options = SqliteConnectOptions::new().filename(db).create_if_missing(true).foreign_keys(true);
    SqlitePoolOptions::new().max_connections(1).connect_with(options).await.expect("open")
}

#[tokio::test]
async fn rebuilding_runs_keeps_every_run_and_what_hangs_off_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let old = dir.path().join("migrations");
    std::fs::create_dir(&old).expect("dir");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations/sqlite");
    for f in ["0001_init.sql", "0002_run_engine.sql", "0003_run_route.sql", "0004_threads_per_user.sql"] {
        std::fs::copy(src.join(f), old.join(f)).expect("copy");
    }
    let db = dir.path().join("aware.db");
    let before = pool(&db).await;
    sqlx::migrate::Migrator::new(old.as_path()).await.expect("old migrations").run(&before).await.expect("applied");
    sqlx::raw_sql(
        "INSERT INTO users VALUES ('u_old', 'old', 'admin', 0);
         INSERT INTO threads VALUES ('u_old/t', 'u_old', NULL, 0, 0);
         INSERT INTO runs (id, owner_id, thread_id, kind, status, question, created_at, final_text, role)
             VALUES ('run_0000000000000000000000000000aa01', 'u_old', 'u_old/t', 'chat', 'succeeded',
                     'what are my files?', 1, 'You have 3.', 'admin');
         INSERT INTO run_events VALUES ('run_0000000000000000000000000000aa01', 1, 1, x'7b7d');
         INSERT INTO run_events VALUES ('run_0000000000000000000000000000aa01', 2, 1, x'7b7d');
         INSERT INTO confirmations (id, owner_id, run_id, tool_call_id, tool_name, resource_type, resource_id,
                                    resource_name, args_sha256, tier, status, created_at, expires_at)
             VALUES ('conf_0000000000000000000000000000aa01', 'u_old', 'run_0000000000000000000000000000aa01',
                     'call_0000000000000000000000000000aa01', 'delete_dataset', 'dataset', 'ds_1', 'x.csv',
                     'ab', 'elevated', 'denied', 1, 2);",
    )
    .execute(&before)
    .await
    .expect("old rows");
    before.close().await;

    let store = Store::open(&db).await.expect("upgraded");
    let run = store.chat_run(&RunId::parse(RUN).expect("id")).await.expect("read").expect("the run is still there");
    assert_eq!(run.record.question, "what are my files?");

    let after = pool(&db).await;
    let count = |sql: &'static str| {
        let after = after.clone();
        async move { sqlx::query(sql).fetch_one(&after).await.expect("count").get::<i64, _>("n") }
    };
    const EVENTS: &str = "SELECT count(*) AS n FROM run_events";
    assert_eq!(count(EVENTS).await, 2, "the run's events survive the rebuild");
    assert_eq!(count("SELECT count(*) AS n FROM confirmations").await, 1, "and its confirmation");
    let broken = sqlx::query("PRAGMA foreign_key_check").fetch_all(&after).await.expect("checked");
    assert!(broken.is_empty(), "every foreign key holds");
    // The new kind is accepted, and deleting a run still cascades (the children point at the new table).
    sqlx::raw_sql(
        "INSERT INTO runs (id, owner_id, kind, status, question, created_at)
             VALUES ('run_0000000000000000000000000000aa02', 'u_old', 'tool', 'succeeded', '{}', 2);
         DELETE FROM runs WHERE id = 'run_0000000000000000000000000000aa01';",
    )
    .execute(&after)
    .await
    .expect("a tool run, and a delete");
    assert_eq!(count(EVENTS).await, 0, "ON DELETE CASCADE still applies");
}
