//! The contract of the [`Catalog`] and [`Uploads`] ports: table names unique per owner, every
//! read scoped to its owner, one-way status changes, renames and descriptions in place, lineage
//! and import origins kept, content replaced in place (a refresh) only for a ready dataset, and
//! uploads that expire once.

use super::{ana, bo};
use crate::ErrorCode;
use crate::dataset::{ColumnNote, DatasetFormat, DatasetStatus, ImportOrigin, IngestOutcome, Lineage};
use crate::ids::{DatasetId, UploadId, UserId};
use crate::ports::{Catalog, DatasetUpdate, NewContent, NewDataset, UploadSession, Uploads};
use crate::value::Column;
use chrono::{Duration, Utc};

fn new_dataset(owner: &UserId, base: &str) -> NewDataset {
    NewDataset {
        id: DatasetId::generate(),
        owner: owner.clone(),
        name: format!("{base}.csv"),
        base_table_name: base.to_owned(),
        format: DatasetFormat::Csv,
        size_bytes: 10,
        version_hash: "ab".repeat(32),
        lineage: None,
        origin: None,
    }
}

/// Runs every check of the catalog's contract on `catalog`, a fresh adapter whose users `ana`
/// and `bo` exist.
pub async fn catalog(catalog: &dyn Catalog) {
    let (me, other) = (ana(), bo());
    let a = catalog.insert_processing(new_dataset(&me, "sales")).await.expect("inserted");
    let b = catalog.insert_processing(new_dataset(&me, "sales")).await.expect("inserted");
    let c = catalog.insert_processing(new_dataset(&other, "sales")).await.expect("inserted");
    assert_eq!(
        (a.table_name.as_str(), b.table_name.as_str(), c.table_name.as_str()),
        ("sales", "sales_2", "sales"),
        "table names are unique per owner"
    );
    assert_eq!((a.status, a.name.as_str(), a.size_bytes), (DatasetStatus::Processing, "sales.csv", 10));
    assert_eq!(catalog.count(&me).await.expect("counted"), 2);

    assert!(catalog.get(&other, &a.id).await.expect("read").is_none(), "another user's dataset is invisible");
    assert!(!catalog.delete(&other, &a.id).await.expect("answered"), "and cannot be deleted by them");
    assert_eq!(catalog.get(&me, &a.id).await.expect("read").map(|d| d.table_name), Some("sales".into()));

    let outcome = IngestOutcome { row_count: 3, columns: vec![Column::new("x", "BIGINT")] };
    let ready = catalog.mark_ready(&a.id, &outcome).await.expect("marked").expect("still there");
    assert_eq!(
        (ready.status, ready.row_count, ready.columns.clone()),
        (DatasetStatus::Ready, 3, outcome.columns.clone())
    );
    assert!(catalog.mark_error(&a.id, "late").await.expect("answered").is_none(), "only PROCESSING can change state");

    // Names and descriptions change in place, scoped to the owner; a table name is still unique.
    let note = ColumnNote { column: "x".into(), description: "units sold".into(), unit: "items".into() };
    let change = DatasetUpdate {
        table_name: Some("revenue".into()),
        description: Some("Sales of 2026".into()),
        column_notes: Some(vec![note.clone()]),
        ..DatasetUpdate::default()
    };
    let renamed = catalog.update(&me, &a.id, &change).await.expect("updated").expect("mine");
    assert_eq!(
        (
            renamed.table_name.as_str(),
            renamed.name.as_str(),
            renamed.description.as_str(),
            renamed.column_notes.clone()
        ),
        ("revenue", "sales.csv", "Sales of 2026", vec![note]),
        "what is not changed stays"
    );
    assert!(catalog.update(&other, &a.id, &change).await.expect("answered").is_none(), "not theirs to change");
    let clash = DatasetUpdate { table_name: Some("revenue".into()), ..DatasetUpdate::default() };
    let refused = catalog.update(&me, &b.id, &clash).await.expect_err("a name another dataset has");
    assert_eq!(refused.code, ErrorCode::AlreadyExists);
    let change = DatasetUpdate { table_name: Some("sales".into()), ..DatasetUpdate::default() };
    catalog.update(&me, &a.id, &change).await.expect("renamed back").expect("mine");

    // A refresh replaces a ready dataset's content in place: version, size, rows, columns and the
    // notes that still apply; names, description and status stay. Only its owner's, only ready.
    let content = NewContent {
        version_hash: "cd".repeat(32),
        size_bytes: 20,
        outcome: IngestOutcome { row_count: 5, columns: vec![Column::new("y", "VARCHAR")] },
        column_notes: Vec::new(),
    };
    assert!(catalog.replace_content(&other, &a.id, &content).await.expect("answered").is_none(), "not theirs");
    assert!(catalog.replace_content(&me, &b.id, &content).await.expect("answered").is_none(), "not ready");
    let refreshed = catalog.replace_content(&me, &a.id, &content).await.expect("replaced").expect("mine, ready");
    assert_eq!(
        (
            refreshed.version_hash.as_str(),
            refreshed.size_bytes,
            refreshed.row_count,
            refreshed.columns.clone(),
            refreshed.column_notes.is_empty()
        ),
        (content.version_hash.as_str(), 20, 5, content.outcome.columns.clone(), true)
    );
    assert_eq!(
        (refreshed.table_name.as_str(), refreshed.description.as_str(), refreshed.status),
        ("sales", "Sales of 2026", DatasetStatus::Ready)
    );

    // An imported dataset keeps the file it came from.
    let origin = ImportOrigin { root: "downloads".into(), path: "q1/sales.csv".into() };
    let imported = NewDataset { origin: Some(origin.clone()), ..new_dataset(&me, "imported") };
    let imported = catalog.insert_processing(imported).await.expect("inserted");
    assert_eq!(catalog.get(&me, &imported.id).await.expect("read").and_then(|d| d.origin), Some(origin));
    assert!(catalog.delete(&me, &imported.id).await.expect("deleted"));

    // A dataset saved from a query keeps its lineage.
    let lineage = Lineage { sources: Vec::new(), sql: "SELECT 1".into(), run_id: "run_1".into() };
    let derived = NewDataset { lineage: Some(lineage.clone()), ..new_dataset(&other, "derived") };
    let derived = catalog.insert_processing(derived).await.expect("inserted");
    assert_eq!(catalog.get(&other, &derived.id).await.expect("read").and_then(|d| d.lineage), Some(lineage));

    let failed = catalog.mark_error(&b.id, "The file is empty.").await.expect("marked").expect("still there");
    assert_eq!((failed.status, failed.error.as_deref()), (DatasetStatus::Error, Some("The file is empty.")));

    let mine = catalog.list(&me, None).await.expect("listed");
    assert_eq!(mine.iter().map(|d| d.id.clone()).collect::<Vec<_>>(), vec![b.id.clone(), a.id.clone()], "newest first");
    assert_eq!(catalog.list(&me, Some(DatasetStatus::Ready)).await.expect("listed").len(), 1);
    let mut processing: Vec<DatasetId> =
        catalog.list_processing().await.expect("listed").into_iter().map(|d| d.id).collect();
    processing.sort();
    let mut expected = vec![c.id.clone(), derived.id.clone()];
    expected.sort();
    assert_eq!(processing, expected, "of every user");

    assert!(catalog.delete(&me, &a.id).await.expect("deleted"));
    assert!(catalog.get(&me, &a.id).await.expect("read").is_none());
    assert_eq!(
        catalog.insert_processing(new_dataset(&me, "sales")).await.expect("inserted").table_name,
        "sales",
        "a freed name is reused"
    );
    assert!(catalog.mark_ready(&a.id, &outcome).await.expect("answered").is_none(), "a deleted dataset stays deleted");
}

/// Asserts that the owner's catalog version is no longer `seen`, and keeps the new one.
async fn moved(catalog: &dyn Catalog, owner: &UserId, seen: &mut u64, what: &str) {
    let now = catalog.version(owner).await.expect("read");
    assert_ne!(now, *seen, "{what} moves the version");
    *seen = now;
}

/// The catalog's version moves on with every kind of change to an owner's datasets and stands
/// through reads and refused changes: a reader that kept a list can trust it while it stands.
pub async fn catalog_versions(catalog: &dyn Catalog) {
    let (me, other) = (ana(), bo());
    let mut seen = catalog.version(&me).await.expect("read");
    let a = catalog.insert_processing(new_dataset(&me, "orders")).await.expect("inserted");
    moved(catalog, &me, &mut seen, "a new dataset").await;
    let b = catalog.insert_processing(new_dataset(&me, "orders")).await.expect("inserted");
    moved(catalog, &me, &mut seen, "another").await;
    let outcome = IngestOutcome { row_count: 3, columns: vec![Column::new("x", "BIGINT")] };
    catalog.mark_ready(&a.id, &outcome).await.expect("marked").expect("there");
    moved(catalog, &me, &mut seen, "becoming ready").await;
    catalog.mark_error(&b.id, "bad file").await.expect("marked").expect("there");
    moved(catalog, &me, &mut seen, "failing").await;
    let change = DatasetUpdate { description: Some("Orders".into()), ..DatasetUpdate::default() };
    catalog.update(&me, &a.id, &change).await.expect("updated").expect("mine");
    moved(catalog, &me, &mut seen, "a description").await;
    let content = NewContent {
        version_hash: "ef".repeat(32),
        size_bytes: 30,
        outcome: IngestOutcome { row_count: 4, columns: vec![Column::new("x", "BIGINT")] },
        column_notes: Vec::new(),
    };
    catalog.replace_content(&me, &a.id, &content).await.expect("replaced").expect("mine");
    moved(catalog, &me, &mut seen, "a refresh").await;
    assert!(catalog.delete(&me, &b.id).await.expect("deleted"));
    moved(catalog, &me, &mut seen, "a delete").await;

    // What changes nothing of mine leaves my version alone.
    let standing = catalog.version(&me).await.expect("read");
    assert!(catalog.update(&other, &a.id, &change).await.expect("answered").is_none());
    assert!(!catalog.delete(&other, &a.id).await.expect("answered"));
    assert!(catalog.mark_ready(&b.id, &outcome).await.expect("answered").is_none(), "deleted stays deleted");
    catalog.list(&me, None).await.expect("listed");
    assert_eq!(catalog.version(&me).await.expect("read"), standing, "reads and refused changes");
}

/// Runs every check of the uploads' contract on `uploads`, a fresh adapter whose user `ana`
/// exists.
pub async fn uploads(uploads: &dyn Uploads) {
    let me = ana();
    let session = |age_hours: i64| UploadSession {
        id: UploadId::generate(),
        owner: me.clone(),
        filename: "a.csv".into(),
        format: Some(DatasetFormat::Csv),
        expected_bytes: Some(5),
        received_bytes: 0,
        created_at: Utc::now() - Duration::hours(age_hours),
    };
    let old = session(2);
    let fresh = session(0);
    uploads.create_session(&old).await.expect("created");
    uploads.create_session(&fresh).await.expect("created");
    uploads.set_received(&old.id, 3).await.expect("set");
    assert_eq!(uploads.session(&me, &old.id).await.expect("read").map(|s| s.received_bytes), Some(3));
    assert!(uploads.session(&bo(), &old.id).await.expect("read").is_none(), "a session is its owner's only");
    assert_eq!(uploads.count_open(&me).await.expect("counted"), 2);
    assert_eq!(uploads.take_expired(Utc::now() - Duration::hours(1)).await.expect("taken"), vec![old.id.clone()]);
    assert!(uploads.take_expired(Utc::now() - Duration::hours(1)).await.expect("taken").is_empty(), "taken once");
    assert!(uploads.session(&me, &old.id).await.expect("read").is_none());
    uploads.remove_session(&fresh.id).await.expect("removed");
    assert_eq!(uploads.count_open(&me).await.expect("counted"), 0);
}
