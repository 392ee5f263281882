#![allow(clippy::unwrap_used)]
#![allow(clippy::wildcard_enum_match_arm)] // a test names the kind it expects: any other kind fails it, or is skipped
//! The assistant's write tools and their API twins, against the real binary with the offline
//! planner: each change request ends at a STANDARD or ELEVATED card; denied, nothing changes;
//! approved, it changes and is audited as the assistant's, while the same change through the API
//! is the client's. A saved result equals the query's rows computed independently (in-process
//! DuckDB) and keeps its lineage; an oversized one is refused and leaves nothing. A verified query
//! answers its own question (the run says so) and not a different one. Users and keys: only an
//! admin's runs reach them, and a new key's token is shown once, never to the model. The same
//! tools called by a scripted model (a real HTTP server speaking Anthropic's wire format): the
//! right tier each, a denial told to the model, every approved change audited as the assistant's.

use aware_client::AwareClient;
use aware_e2e::events::follow;
use aware_e2e::fake_llm::{FakeLlm, Kind, Recorded, Reply, Turn};
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
    let said = match events.last().and_then(|e| e.payload.as_ref()) {
        Some(P::RunCompleted(done)) => done.final_text.clone(),
        other => panic!("the run ends with RunCompleted, not {other:?}"),
    };
    assert!(
        said.starts_with("From your verified query “average price by neighbourhood”: 8 rows, in the table."),
        "said for the person, not the model: {said}"
    );
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
            run_heavy: false,
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

/// A model that does what each message says: "CALL <tool> <arguments as JSON>" calls that tool;
/// once results come back it says what it was told.
fn obedient(r: &Recorded, n: usize) -> Reply {
    let kind = Kind::Anthropic;
    match r.last_user_text().as_deref().and_then(|t| t.strip_prefix("CALL ")) {
        Some(order) => {
            let (tool, args) = order.split_once(' ').unwrap();
            Turn::default().call(kind.call_id(n, 0), tool, [args]).reply(kind)
        }
        None => {
            let told: Vec<String> = r.trailing_results().into_iter().map(|t| t.content).collect();
            Turn::default().say(format!("told: {}", told.join(" | "))).reply(kind)
        }
    }
}

#[tokio::test]
async fn a_scripted_model_reaches_every_write_tool_through_its_card() {
    let fake = FakeLlm::start(obedient).await;
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("visits.csv"), "city,visits\nBarcelona,3\n").unwrap();
    let root = format!("inbox={}", tmp.path().display());
    let base = fake.base_url(Kind::Anthropic);
    let env = [
        ("AWARE_AGENT__MODEL", Kind::Anthropic.model()),
        ("AWARE_LLM__BASE_URL", base.as_str()),
        ("AWARE_LLM__API_KEY", "k"),
        ("NO_PROXY", "127.0.0.1"),
    ];
    let server = TestServer::start_with_env(&["--files-root", &root], &env);
    let web = AwareClient::connect(&server.url(), None, "web").await.unwrap();
    let req = pb::ImportFilesRequest { root: "inbox".into(), paths: vec!["visits.csv".into()] };
    web.files().import_files(req).await.unwrap();
    std::fs::write(tmp.path().join("visits.csv"), "city,visits\nBarcelona,3\nGirona,5\n").unwrap();
    const STANDARD: pb::ConfirmationTier = pb::ConfirmationTier::Standard;
    const ELEVATED: pb::ConfirmationTier = pb::ConfirmationTier::Elevated;

    // Denied: nothing changes, and the model is told so.
    let order = r#"CALL rename_dataset {"dataset":"customer_churn","to":"churn_2026"}"#;
    let (_, _, cards, events) = ask(&web, "", order, false).await;
    assert_eq!(cards, [("rename_dataset".to_owned(), STANDARD)]);
    assert!(dataset(&web, "customer_churn").await.is_some(), "denied: nothing changed");
    let told = fake.requests().last().unwrap().trailing_results();
    assert!(told.len() == 1 && told[0].content.contains("Action denied by user."), "{told:?}");
    let Some(P::RunCompleted(done)) = &events.last().unwrap().payload else { panic!("the run completed") };
    assert!(done.final_text.starts_with("told: Action denied by user."), "{}", done.final_text);

    // Approved, one tool after another: each with its tier, each changing what it says.
    let orders: [(&str, pb::ConfirmationTier); 11] = [
        (r#"CALL rename_dataset {"dataset":"customer_churn","to":"churn_2026"}"#, STANDARD),
        (
            r#"CALL describe_dataset {"dataset":"churn_2026","columns":[{"column":"tenure_months","description":"months as a customer","unit":"months"}]}"#,
            STANDARD,
        ),
        (
            r#"CALL save_query {"name":"churn by plan","question":"how many customers per plan?","sql":"SELECT plan, count(*) AS n FROM churn_2026 GROUP BY plan"}"#,
            STANDARD,
        ),
        (r#"CALL save_query_as_dataset {"table_name":"plans","verified_query":"churn by plan"}"#, STANDARD),
        (r#"CALL delete_saved_query {"query":"churn by plan"}"#, STANDARD),
        (r#"CALL refresh_dataset {"dataset":"visits"}"#, STANDARD),
        (r#"CALL create_user {"name":"zoe@example.com","role":"viewer"}"#, ELEVATED),
        (r#"CALL change_user_role {"user":"zoe@example.com","role":"analyst"}"#, ELEVATED),
        (r#"CALL create_api_key {"user":"zoe@example.com"}"#, ELEVATED),
        (r#"CALL deactivate_user {"user":"zoe@example.com"}"#, ELEVATED),
        (r#"CALL reactivate_user {"user":"zoe@example.com"}"#, ELEVATED),
    ];
    let mut token = String::new();
    for (order, tier) in orders {
        let tool = order.split(' ').nth(1).unwrap().to_owned();
        let (_, _, cards, events) = ask(&web, "", order, true).await;
        assert_eq!(cards, [(tool.clone(), tier)], "{order}");
        let result = tool_results(&events).into_iter().find(|r| r.tool_name == tool).expect("it ran");
        assert!(!result.is_error, "{order}: {}", result.llm_summary);
        if let Some(pb::tool_result::Rich::AccountChange(change)) = &result.rich
            && !change.token.is_empty()
        {
            token.clone_from(&change.token);
        }
    }
    assert!(token.starts_with("aw_"), "the new key's token reached the person");
    let churn = dataset(&web, "churn_2026").await.expect("renamed");
    assert_eq!(churn.column_notes[0].unit, "months");
    let plans = dataset(&web, "plans").await.expect("saved from the verified query");
    assert_eq!((plans.row_count, plans.lineage.unwrap().sources[0].table_name.as_str()), (3, "churn_2026"));
    assert!(
        web.datasets()
            .list_saved_queries(pb::ListSavedQueriesRequest {})
            .await
            .unwrap()
            .into_inner()
            .queries
            .is_empty()
    );
    assert_eq!(dataset(&web, "visits").await.unwrap().row_count, 2, "refreshed from the changed file");
    let users = web.admin().list_users(pb::ListUsersRequest {}).await.unwrap().into_inner().users;
    let zoe = users.iter().find(|u| u.name == "zoe@example.com").expect("created");
    assert_eq!((zoe.role(), zoe.deactivated_at.is_none()), (pb::UserRole::Analyst, true));
    let keys = web.admin().list_api_keys(pb::ListApiKeysRequest { user_id: zoe.user_id.clone() }).await.unwrap();
    let key = keys.into_inner().keys.pop().expect("a key for zoe");
    let order = format!(r#"CALL revoke_api_key {{"key":"{}"}}"#, key.prefix);
    let (_, _, cards, _) = ask(&web, "", &order, true).await;
    assert_eq!(cards, [("revoke_api_key".to_owned(), ELEVATED)]);

    assert!(
        !fake.requests().iter().any(|r| r.body.to_string().contains(&token)),
        "the model never saw the new key's token"
    );
    let req = pb::ListAuditEntriesRequest { source: "ai_assistant".into(), page_size: 100, ..Default::default() };
    let entries = web.audit().list_audit_entries(req).await.unwrap().into_inner().entries;
    let actions: Vec<String> =
        entries.into_iter().rev().map(|e| e.action).filter(|a| !a.starts_with("tool.")).collect();
    assert_eq!(
        actions,
        [
            "dataset.rename",
            "dataset.describe",
            "saved_query.create",
            "dataset.materialize",
            "saved_query.delete",
            "dataset.refresh",
            "user.create",
            "user.role",
            "api_key.create",
            "user.deactivate",
            "user.reactivate",
            "api_key.revoke",
        ]
    );
}

/// Follows a run to its end, answering each clarification with the next of `answers` (a choice
/// and whether to remember it; `None` dismisses). Returns the clarifications and the events.
async fn follow_clarifying(
    client: &AwareClient,
    run_id: &str,
    answers: &[(Option<&str>, bool)],
) -> (Vec<pb::ClarificationRequired>, Vec<pb::ServerEvent>) {
    use aware_client::{StreamItem, StreamOptions};
    use futures::StreamExt;
    let mut stream = client.run_stream(run_id, StreamOptions::default());
    let (mut asked, mut events) = (Vec::new(), Vec::new());
    while let Some(item) =
        tokio::time::timeout(std::time::Duration::from_secs(60), stream.next()).await.expect("the run's next event")
    {
        let StreamItem::Event(e) = item.expect("the run can be followed") else { continue };
        if let Some(P::ClarificationRequired(c)) = &e.payload {
            let (choice, remember) = answers.get(asked.len()).copied().expect("no more clarifications expected");
            // Not an option: refused, and the question stays open.
            let wrong = client.clarify(&c.clarification_id, Some("no_such_column"), false).await.unwrap_err();
            assert_eq!(wrong.code(), tonic::Code::InvalidArgument, "{wrong:?}");
            assert!(wrong.message().contains(&c.options[0].value), "the options are named: {}", wrong.message());
            // A clarification is not approved like a confirmation.
            let as_confirmation = client.confirm(&c.clarification_id, true).await.unwrap_err();
            assert_eq!(as_confirmation.code(), tonic::Code::InvalidArgument);
            let r = client.clarify(&c.clarification_id, choice, remember).await.unwrap();
            assert_eq!(r.run_id, run_id, "the answer resumes the same run");
            asked.push(c.clone());
        }
        events.push(e);
    }
    (asked, events)
}

fn final_text(events: &[pb::ServerEvent]) -> String {
    match events.last().and_then(|e| e.payload.as_ref()) {
        Some(P::RunCompleted(done)) => {
            assert_eq!(done.status(), pb::RunStatus::Succeeded, "{done:?}");
            done.final_text.clone()
        }
        other => panic!("the run ends with RunCompleted, not {other:?}"),
    }
}

/// A time phrase over a dataset with two date columns, neither plainly when things happened, is
/// asked back as TIME_RANGE with each column's range; the answer filters by the chosen one.
#[tokio::test]
async fn a_period_with_two_date_columns_is_asked_back_as_a_time_range_and_filters_by_the_choice() {
    let server = TestServer::start(&[]);
    let web = AwareClient::connect(&server.url(), None, "web").await.unwrap();
    let csv = "parcel,weight_kg,inspected_on,invoiced_on\n\
               a,10,2023-12-30,2024-01-05\n\
               b,20,2024-03-01,2024-03-02\n\
               c,40,2024-12-31,2025-01-03\n\
               d,80,2025-01-02,2025-01-10\n";
    aware_e2e::upload(&server, "parcels.csv", csv.into()).await.unwrap();
    let sent = web.send_message("", "total weight of parcels in 2024", "").await.unwrap();
    let (asked, events) = follow_clarifying(&web, &sent.run_id, &[(Some("invoiced_on"), false)]).await;
    let [c] = asked.as_slice() else { panic!("one question back: {asked:?}") };
    assert_eq!(c.kind(), pb::ClarificationKind::TimeRange, "{c:?}");
    let options: Vec<(&str, &str, &str)> =
        c.options.iter().map(|o| (o.value.as_str(), o.min.as_str(), o.max.as_str())).collect();
    assert_eq!(
        options,
        [("inspected_on", "2023-12-30", "2025-01-02"), ("invoiced_on", "2024-01-05", "2025-01-10")],
        "each date column with its range"
    );
    let text = final_text(&events);
    // Invoiced in 2024: a and b (30 kg); inspected in 2024 would have been b and c (60 kg).
    assert!(text.contains("30") && !text.contains("60"), "filtered by invoiced_on: {text}");
}

#[tokio::test]
async fn an_ambiguous_column_is_asked_with_figures_from_the_data_and_a_kept_answer_is_not_asked_again() {
    let server = TestServer::start(&[]);
    let web = AwareClient::connect(&server.url(), None, "web").await.unwrap();
    let csv = "item,price_eur,price_usd\nlamp,10,11\nchair,30,33.5\ndesk,50,\n";
    let products = aware_e2e::upload(&server, "products.csv", csv.into()).await.unwrap();
    let question = "average price of products";

    // Asked: the two columns with their figures; price_usd chosen for this answer only.
    let sent = web.send_message("", question, "").await.unwrap();
    let (asked, events) = follow_clarifying(&web, &sent.run_id, &[(Some("price_usd"), false)]).await;
    let [c] = asked.as_slice() else { panic!("one question back: {asked:?}") };
    assert_eq!(c.kind(), pb::ClarificationKind::Column);
    assert_eq!(c.phrase, "price");
    assert_eq!(c.dataset.as_ref().unwrap().id, products.id);
    let figures: Vec<(&str, &str, &str, String)> = c
        .options
        .iter()
        .map(|o| (o.value.as_str(), o.min.as_str(), o.max.as_str(), format!("{:.3}", o.null_share)))
        .collect();
    assert_eq!(
        figures,
        [("price_eur", "10", "50", "0.000".to_owned()), ("price_usd", "11", "33.5", "0.333".to_owned())]
    );
    assert!(c.options[1].label.contains("33% empty"), "{}", c.options[1].label);
    let resolved: Vec<&pb::ClarificationResolved> = events
        .iter()
        .filter_map(|e| match &e.payload {
            Some(P::ClarificationResolved(r)) => Some(r),
            _ => None,
        })
        .collect();
    assert_eq!(resolved.len(), 1);
    assert_eq!(
        (resolved[0].resolution(), resolved[0].choice.as_str()),
        (pb::ConfirmationResolution::Approved, "price_usd")
    );
    let text = final_text(&events);
    assert!(text.contains("22.25"), "the mean of price_usd's two values: {text}");

    // Not kept: asked again, and dismissed — nothing is computed, and the answer says so.
    let sent = web.send_message("", question, "").await.unwrap();
    let (asked, events) = follow_clarifying(&web, &sent.run_id, &[(None, false)]).await;
    assert_eq!(asked.len(), 1);
    let text = final_text(&events);
    assert!(text.contains("did not compute"), "{text}");
    let Some(P::RunCompleted(done)) = events.last().and_then(|e| e.payload.as_ref()) else { unreachable!() };
    assert_eq!(done.outcome(), pb::RunOutcome::AskedBack, "a dismissed question back is asked back, not denied");
    assert!(!tool_results(&events).iter().any(|r| r.tool_name == "execute_query_plan"), "nothing ran");

    // Chosen and kept: the rule lands in the dataset's description, and the next time nothing is asked.
    let sent = web.send_message("", question, "").await.unwrap();
    let (asked, events) = follow_clarifying(&web, &sent.run_id, &[(Some("price_eur"), true)]).await;
    assert_eq!(asked.len(), 1);
    assert!(final_text(&events).contains("30"), "{}", final_text(&events));
    let run =
        web.runs().get_run(pb::GetRunRequest { run_id: sent.run_id.clone() }).await.unwrap().into_inner().run.unwrap();
    assert_eq!(run.ungrounded_numbers, 0, "every number of the clarified answer is traced: {:?}", run.grounding);
    assert!(!run.grounding.is_empty(), "the 30 is traced to its cell");
    let kept = dataset(&web, "products").await.unwrap();
    assert!(kept.description.contains("“price” means price_eur."), "{}", kept.description);
    let sent = web.send_message("", question, "").await.unwrap();
    let (asked, events) = follow_clarifying(&web, &sent.run_id, &[]).await;
    assert!(asked.is_empty(), "the kept rule answers it");
    assert!(final_text(&events).contains("30"), "{}", final_text(&events));
}
