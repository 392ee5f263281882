#![allow(clippy::unwrap_used)]
//! The assistant's write tools and their API twins, against the real binary with the offline
//! planner: each change request ends at a STANDARD or ELEVATED card; denied, nothing changes;
//! approved, it changes and is audited as the assistant's, while the same change through the API
//! is the client's. A saved result equals the query's rows computed independently (in-process
//! DuckDB) and keeps its lineage; an oversized one is refused and leaves nothing. A verified query
//! answers its own question (the run says so) and not a different one. Users and keys: only an
//! admin's runs reach them, and a new key's token is shown once, never to the model.

use aware_client::AwareClient;
use aware_e2e::events::follow;
use aware_e2e::{TestServer, add_user};
use aware_proto::v1 as pb;
use pb::server_event::Payload as P;
use std::sync::Mutex;

fn cell(v: &pb::Value) -> String {
    use pb::value::Kind;
    match v.kind.as_ref().expect("cell") {
        Kind::NullValue(_) => "NULL".into(),
        Kind::IntValue(n) => n.to_string(),
        Kind::DoubleValue(x) => format!("{x:.6}"),
        Kind::StringValue(s) | Kind::DecimalValue(s) | Kind::TextValue(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

/// Runs a message on a thread, answering its card with `approve`; returns the run id, the cards
/// (tool, tier) and the events.
async fn ask(
    client: &AwareClient,
    thread: &str,
    text: &str,
    approve: bool,
) -> (String, String, Vec<(String, pb::ConfirmationTier)>, Vec<pb::ServerEvent>) {
    let sent = client.send_message(thread, text, "").await.unwrap();
    let cards = Mutex::new(Vec::new());
    let events = follow(client, &sent.run_id, |c| {
        cards.lock().unwrap().push((c.tool_name.clone(), pb::ConfirmationTier::try_from(c.tier).unwrap()));
        approve
    })
    .await;
    (sent.run_id, sent.thread_id, cards.into_inner().unwrap(), events)
}

fn tool_results(events: &[pb::ServerEvent]) -> Vec<&pb::ToolResult> {
    events
        .iter()
        .filter_map(|e| match &e.payload {
            Some(P::ToolResult(r)) => Some(r),
            _ => None,
        })
        .collect()
}

async fn dataset(client: &AwareClient, table: &str) -> Option<pb::Dataset> {
    let all = client.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner();
    all.datasets.into_iter().find(|d| d.table_name == table)
}

#[tokio::test]
async fn write_tools_ask_first_change_what_was_approved_and_say_where_results_came_from() {
    let server = TestServer::start_with_env(&[], &[("AWARE_SANDBOX__MAX_ROWS", "100")]);
    let web = AwareClient::connect(&server.url(), None, "web").await.unwrap();
    let cli = AwareClient::connect(&server.url(), None, "cli").await.unwrap();
    const STANDARD: pb::ConfirmationTier = pb::ConfirmationTier::Standard;

    // A question, then "remember this query as …": a STANDARD card; approved, the query is kept.
    let (first, thread, cards, _) = ask(&web, "", "average price by neighbourhood", true).await;
    assert!(cards.is_empty(), "a read asks nothing");
    let (_, _, cards, _) = ask(&web, &thread, "remember this query as 'average price by neighbourhood'", true).await;
    assert_eq!(cards, [("save_query".to_owned(), STANDARD)]);
    let saved = web.datasets().list_saved_queries(pb::ListSavedQueriesRequest {}).await.unwrap().into_inner().queries;
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert_eq!(saved[0].name, "average price by neighbourhood");
    assert!(saved[0].sql.contains("barcelona_apartments"), "{}", saved[0].sql);

    // The same question, asked another way on a new thread, is answered with the verified query;
    // a different question is not.
    let (verified_run, verified_thread, _, events) =
        ask(&web, "", "What's the average price by neighborhood?", true).await;
    assert!(tool_results(&events).iter().any(|r| r.tool_name == "run_sql_query" && !r.is_error), "{events:#?}");
    let run = |id: String| {
        let runs = web.runs();
        async move { runs.clone().get_run(pb::GetRunRequest { run_id: id }).await.unwrap().into_inner().run.unwrap() }
    };
    let used = run(verified_run).await.verified_query.expect("the run records the verified query");
    assert_eq!((used.id.as_str(), used.name.as_str()), (saved[0].id.as_str(), "average price by neighbourhood"));
    let (other, _, _, _) = ask(&web, "", "average price by bedrooms", true).await;
    assert_eq!(run(other).await.verified_query, None, "a different question is not the verified one");
    assert_eq!(run(first).await.verified_query, None);

    // An answer the verified query gave can be saved as a dataset too: the card shows its SQL.
    let sent = web.send_message(&verified_thread, "save that as a dataset called verified_hoods", "").await.unwrap();
    follow(&web, &sent.run_id, |c| {
        assert_eq!((c.tool_name.as_str(), c.tier()), ("save_query_as_dataset", STANDARD));
        assert!(c.description.contains(&saved[0].sql), "{}", c.description);
        true
    })
    .await;
    let kept = dataset(&web, "verified_hoods").await.expect("saved from the verified query's answer");
    assert_eq!(kept.lineage.unwrap().sources[0].table_name, "barcelona_apartments");

    // "Save that as a dataset called …": the last result, saved with its lineage; its rows are the
    // query's rows, computed here independently.
    let (_, _, cards, events) = ask(&web, &thread, "save that as a dataset called top_neighbourhoods", true).await;
    assert_eq!(cards, [("save_query_as_dataset".to_owned(), STANDARD)]);
    assert!(tool_results(&events).iter().any(|r| r.tool_name == "save_query_as_dataset" && !r.is_error));
    let derived = dataset(&web, "top_neighbourhoods").await.expect("the saved dataset");
    assert_eq!(pb::DatasetFormat::try_from(derived.format).unwrap(), pb::DatasetFormat::Derived);
    assert!(derived.version_hash.len() == 64 && derived.size_bytes > 0, "a saved result has a version: {derived:?}");
    let lineage = derived.lineage.clone().expect("lineage");
    let apartments = dataset(&web, "barcelona_apartments").await.unwrap();
    assert_eq!(lineage.sources.len(), 1);
    assert_eq!(
        (lineage.sources[0].dataset_id.as_str(), lineage.sources[0].version_hash.as_str()),
        (apartments.id.as_str(), apartments.version_hash.as_str())
    );
    let shown = web
        .datasets()
        .preview_rows(pb::PreviewRowsRequest { dataset_id: derived.id.clone(), limit: 50 })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    let saved_rows: Vec<Vec<String>> = shown.rows.iter().map(|r| r.values.iter().map(cell).collect()).collect();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("barcelona_apartments.csv");
    std::fs::write(&csv, aware_core::samples::sample_files().remove(0).content).unwrap();
    let db = duckdb::Connection::open_in_memory().unwrap();
    db.execute_batch(&format!(
        "CREATE TABLE barcelona_apartments AS SELECT * FROM read_csv('{}', auto_detect = true)",
        csv.display()
    ))
    .unwrap();
    let mut stmt = db.prepare(&lineage.sql).unwrap();
    let columns = stmt.column_count();
    let mut expected: Vec<Vec<String>> = stmt
        .query_map([], |row| {
            (0..columns)
                .map(|i| {
                    Ok(match row.get::<_, duckdb::types::Value>(i)? {
                        duckdb::types::Value::Double(x) => format!("{x:.6}"),
                        duckdb::types::Value::Text(s) => s,
                        duckdb::types::Value::BigInt(n) => n.to_string(),
                        other => format!("{other:?}"),
                    })
                })
                .collect()
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(derived.row_count as usize, expected.len());
    let mut got = saved_rows.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "the saved rows are the query's rows");

    // Oversized: the whole table is more rows than a query returns here → nothing is created.
    let too_big = cli
        .datasets()
        .materialize_query(pb::MaterializeQueryRequest {
            table_name: "everything".into(),
            query: Some(pb::materialize_query_request::Query::Sql("SELECT * FROM barcelona_apartments".into())),
        })
        .await
        .unwrap_err();
    assert_eq!(too_big.code(), tonic::Code::ResourceExhausted, "{too_big:?}");
    assert!(dataset(&web, "everything").await.is_none(), "nothing is left behind");

    // Rename: denied → unchanged; approved → renamed, and the verified query follows.
    let (_, _, cards, events) = ask(&web, "", "rename the barcelona apartments dataset to flats", false).await;
    assert_eq!(cards, [("rename_dataset".to_owned(), STANDARD)]);
    assert!(!tool_results(&events).iter().any(|r| r.tool_name == "rename_dataset" && !r.is_error));
    assert!(dataset(&web, "barcelona_apartments").await.is_some(), "denied: nothing changed");
    let (_, _, _, _) = ask(&web, "", "rename the barcelona apartments dataset to flats", true).await;
    let flats = dataset(&web, "flats").await.expect("renamed");
    assert_eq!(flats.id, apartments.id);
    let saved = web.datasets().list_saved_queries(pb::ListSavedQueriesRequest {}).await.unwrap().into_inner().queries;
    assert!(saved[0].sql.contains("flats") && !saved[0].sql.contains("barcelona_apartments"), "{}", saved[0].sql);

    // Describe: the semantic layer, with a unit read from the words.
    let (_, _, cards, _) = ask(&web, "", "describe price_eur as the asking price in euros", true).await;
    assert_eq!(cards, [("describe_dataset".to_owned(), STANDARD)]);
    let flats = dataset(&web, "flats").await.unwrap();
    assert_eq!(flats.column_notes.len(), 1, "{:?}", flats.column_notes);
    let note = &flats.column_notes[0];
    assert_eq!(
        (note.column.as_str(), note.description.as_str(), note.unit.as_str()),
        ("price_eur", "the asking price in euros", "EUR")
    );

    // The same change through the API is the client's.
    let renamed = cli
        .datasets()
        .update_dataset(pb::UpdateDatasetRequest {
            dataset_id: flats.id.clone(),
            description: Some("Flats for sale in Barcelona".into()),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .dataset
        .unwrap();
    assert_eq!(renamed.description, "Flats for sale in Barcelona");
    let bad = cli
        .datasets()
        .update_dataset(pb::UpdateDatasetRequest {
            dataset_id: flats.id.clone(),
            table_name: Some("Not A Name".into()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument, "{bad:?}");

    let audit = cli.audit().list_audit_entries(pb::ListAuditEntriesRequest::default()).await.unwrap().into_inner();
    let seen: Vec<(&str, &str)> = audit
        .entries
        .iter()
        .filter(|e| {
            e.action.starts_with("dataset.") && e.action != "dataset.upload" || e.action.starts_with("saved_query.")
        })
        .map(|e| (e.action.as_str(), e.source.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            ("dataset.describe", "cli"),
            ("dataset.describe", "ai_assistant"),
            ("dataset.rename", "ai_assistant"),
            ("dataset.materialize", "ai_assistant"),
            ("dataset.materialize", "ai_assistant"),
            ("saved_query.create", "ai_assistant"),
        ],
        "newest first: what the assistant did, and what the CLI did"
    );
}

#[tokio::test]
async fn only_an_admin_reaches_users_and_keys_and_a_new_token_is_shown_once_never_to_the_model() {
    let server = TestServer::start(&["--auth", "api-key", "--no-samples"]);
    let root = add_user(&server.data_dir, "root", "admin", &[]);
    let ana = add_user(&server.data_dir, "ana", "analyst", &[]);
    let root = AwareClient::connect(&server.url(), Some(&root), "web").await.unwrap();
    let ana = AwareClient::connect(&server.url(), Some(&ana), "web").await.unwrap();
    const ELEVATED: pb::ConfirmationTier = pb::ConfirmationTier::Elevated;
    let users = |c: &AwareClient| {
        let admin = c.admin();
        async move { admin.clone().list_users(pb::ListUsersRequest {}).await.map(|r| r.into_inner().users) }
    };

    // An analyst's run cannot reach the tools: nothing is asked, nothing changes.
    let (_, _, cards, _) = ask(&ana, "", "create an analyst account for bob@example.com", true).await;
    assert!(cards.is_empty(), "{cards:?}");
    assert!(!users(&root).await.unwrap().iter().any(|u| u.name == "bob@example.com"));
    assert_eq!(users(&ana).await.unwrap_err().code(), tonic::Code::PermissionDenied);

    // An admin's: an ELEVATED card; denied → nothing; approved → the user exists, audited as the assistant's.
    let (_, _, cards, _) = ask(&root, "", "create an analyst account for bob@example.com", false).await;
    assert_eq!(cards, [("create_user".to_owned(), ELEVATED)]);
    assert!(!users(&root).await.unwrap().iter().any(|u| u.name == "bob@example.com"));
    ask(&root, "", "create an analyst account for bob@example.com", true).await;
    let bob = users(&root).await.unwrap().into_iter().find(|u| u.name == "bob@example.com").expect("bob");
    assert_eq!(pb::UserRole::try_from(bob.role).unwrap(), pb::UserRole::Analyst);

    // A key for bob: the token reaches the person in the live result, works, and is in neither
    // the model's summary nor the stored events.
    let (run_id, _, cards, events) = ask(&root, "", "create an api key for bob@example.com", true).await;
    assert_eq!(cards, [("create_api_key".to_owned(), ELEVATED)]);
    let result = tool_results(&events).into_iter().find(|r| r.tool_name == "create_api_key").unwrap().clone();
    let Some(pb::tool_result::Rich::AccountChange(change)) = &result.rich else { panic!("{result:?}") };
    let token = change.token.clone();
    assert!(token.starts_with("aw_") && token.len() > 20, "{token}");
    assert!(!result.llm_summary.contains(&token));
    let bobs = AwareClient::connect(&server.url(), Some(&token), "cli").await.unwrap();
    bobs.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.expect("the new key works");
    let stored = root
        .runs()
        .list_run_events(pb::ListRunEventsRequest { run_id: run_id.clone(), after_seq: 0, limit: 1000 })
        .await
        .unwrap()
        .into_inner();
    assert!(!format!("{stored:?}").contains(&token), "the token is never stored");

    // Revoke it by the prefix people see: refused from its next call.
    let prefix = change.api_key.as_ref().unwrap().prefix.clone();
    let (_, _, cards, _) = ask(&root, "", &format!("revoke the key {prefix}"), true).await;
    assert_eq!(cards, [("revoke_api_key".to_owned(), ELEVATED)]);
    let refused = bobs.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);

    let audit = root
        .audit()
        .list_audit_entries(pb::ListAuditEntriesRequest { source: "ai_assistant".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let actions: Vec<&str> =
        audit.entries.iter().map(|e| e.action.as_str()).filter(|a| !a.starts_with("tool.")).collect();
    assert_eq!(actions, ["api_key.revoke", "api_key.create", "user.create"]);
}
