#![allow(clippy::unwrap_used)]
//! Search over dataset text through the real binary: indexes built at ingestion (words always,
//! vectors with the local all-MiniLM-L6-v2 model or an OpenAI-compatible embeddings server),
//! their status in `ListDatasets`/`GetDataset`, hybrid retrieval that finds "login problems"
//! in tickets that never say "login", clear errors for bad requests, indexes that follow uploads,
//! deletes and restarts (a cut-off vectors build is redone), lexical search that says so when no
//! model is configured, and the assistant searching with the offline planner.

use aware_e2e::events::{calls, follow, no_confirmation, results};
use aware_e2e::fake_llm::{FakeLlm, Reply};
use aware_e2e::{TestServer, bad_field, model_dir, reason};
use aware_proto::v1 as pb;
use pb::server_event::Payload as P;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn with_model(args: &[&str]) -> TestServer {
    TestServer::start_with_env(args, &[("AWARE_SEARCH__MODEL_DIR", &model_dir())])
}

/// The dataset's index once it reaches `state` (60 s at most).
async fn index_when(server: &TestServer, table: &str, state: pb::SearchIndexState) -> pb::SearchIndex {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let all = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
        let d = all.into_inner().datasets.into_iter().find(|d| d.table_name == table);
        if let Some(index) = d.and_then(|d| d.search_index) {
            if index.state() == state {
                return index;
            }
            assert!(Instant::now() < deadline, "{table}'s index is {:?}, not {state:?}, after 60 s", index.state());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn search(
    server: &TestServer,
    query: &str,
    dataset: &str,
    mode: &str,
) -> Result<pb::SearchDatasetsResponse, tonic::Status> {
    let req =
        pb::SearchDatasetsRequest { query: query.into(), dataset_id: dataset.into(), limit: 5, mode: mode.into() };
    server.datasets().await.search_datasets(req).await.map(tonic::Response::into_inner)
}

/// The `category` of each hit's ticket (the sample's row n is ticket `T000n+1`).
async fn categories(server: &TestServer, hits: &[pb::SearchHit]) -> Vec<String> {
    let req = pb::ExecuteSqlRequest {
        sql: "SELECT ticket_id, category FROM support_tickets".into(),
        limit: 0,
        ..Default::default()
    };
    let table = server.query().await.execute_sql(req).await.unwrap().into_inner().table.unwrap();
    let text = |v: &pb::Value| match &v.kind {
        Some(pb::value::Kind::StringValue(s)) => s.clone(),
        other => panic!("not text: {other:?}"),
    };
    let by_ticket: std::collections::HashMap<String, String> =
        table.rows.iter().map(|r| (text(&r.values[0]), text(&r.values[1]))).collect();
    hits.iter().map(|h| by_ticket[&format!("T{:04}", h.row_id + 1)].clone()).collect()
}

/// "login problems": the words alone find the suspicious-login alerts (security); the meaning
/// finds people who cannot sign in; hybrid puts sign-in trouble on top (a row with only one of
/// the query's words does not count in the fusion), while a row with every word does. Every hit
/// carries its dataset, row, column, snippet, score and both ranks; repeated texts fold.
#[tokio::test]
async fn hybrid_search_finds_tickets_by_words_and_by_meaning() {
    let server = with_model(&[]);
    let index = index_when(&server, "support_tickets", pb::SearchIndexState::Ready).await;
    assert_eq!(index.text_columns, ["subject", "body"]);
    assert_eq!((index.rows, index.vector_rows), (300, 300));
    assert_eq!((index.embedding_model.as_str(), index.vector_index.as_str()), ("all-MiniLM-L6-v2", "exact"));
    let apartments = index_when(&server, "barcelona_apartments", pb::SearchIndexState::NoText).await;
    assert!(apartments.text_columns.is_empty());

    let lexical = search(&server, "login problems", "", "lexical").await.unwrap();
    assert_eq!(lexical.mode, "lexical");
    assert!(lexical.hits[0].snippet.contains("<mark>login</mark>"), "{:?}", lexical.hits[0]);
    assert!(categories(&server, &lexical.hits).await.iter().all(|c| c == "security"), "only the alerts say login");

    let vector = search(&server, "login problems", "", "vector").await.unwrap();
    let found = categories(&server, &vector.hits).await;
    assert!(found.iter().filter(|c| *c == "login").count() >= 3, "by meaning: {found:?}");
    assert!(vector.hits.iter().all(|h| h.lexical_rank == 0 && h.vector_rank > 0));

    let hybrid = search(&server, "login problems", "", "").await.unwrap();
    assert_eq!((hybrid.mode.as_str(), hybrid.datasets_searched, hybrid.note.as_str()), ("hybrid", 1, ""));
    let found = categories(&server, &hybrid.hits).await;
    assert!(found[..2].iter().all(|c| c == "login"), "sign-in trouble on top, not the alerts: {found:?}");
    // A row holding every word of the query counts in the fusion too.
    let whole = search(&server, "suspicious login", "", "").await.unwrap();
    assert_eq!(whole.hits[0].text, "Suspicious login alert");
    assert!(whole.hits[0].lexical_rank > 0 && whole.hits[0].vector_rank > 0, "{:?}", whole.hits[0]);
    // The sample repeats a few texts many times: one hit per text, with the count folded in.
    let texts: std::collections::HashSet<&str> = hybrid.hits.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(texts.len(), hybrid.hits.len(), "each hit shows a different text");
    assert!(hybrid.hits[0].same_text_rows >= 5, "{:?}", hybrid.hits[0]);
    let top = &hybrid.hits[0];
    assert_eq!((top.table_name.as_str(), top.dataset_name.as_str()), ("support_tickets", "support_tickets.csv"));
    assert!(["subject", "body"].contains(&top.column.as_str()) && !top.text.is_empty());
    assert!(top.score > 0.0 && top.score <= 2.0 / 61.0, "an RRF score: {}", top.score);
    assert!(hybrid.hits.windows(2).all(|w| w[0].score >= w[1].score), "best first");

    // Bad requests get clear errors; odd text is just text.
    let status = search(&server, "x", "", "fuzzy").await.unwrap_err();
    assert_eq!(
        (status.code(), reason(&status), bad_field(&status)),
        (tonic::Code::InvalidArgument, "VALIDATION_ERROR".into(), "mode".into())
    );
    let status = search(&server, "   ", "", "").await.unwrap_err();
    assert_eq!((status.code(), bad_field(&status)), (tonic::Code::InvalidArgument, "query".into()));
    let req = pb::SearchDatasetsRequest { query: "refund".into(), limit: 21, ..Default::default() };
    let status = server.datasets().await.search_datasets(req).await.unwrap_err();
    assert_eq!((status.code(), bad_field(&status)), (tonic::Code::InvalidArgument, "limit".into()));
    let status = search(&server, "refund", "no_such_table", "").await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);
    let status = search(&server, &"word ".repeat(300), "", "").await.unwrap_err();
    assert_eq!(bad_field(&status), "query");
    for odd in ["title:(\"unbalanced", "AND OR NOT", "*", "'; DROP TABLE data; --", "<script>", "\u{0}"] {
        search(&server, odd, "", "").await.unwrap_or_else(|e| panic!("{odd:?}: {e}"));
    }
    let only = search(&server, "charged twice", "support_tickets", "lexical").await.unwrap();
    let snippet = only.hits[0].snippet.to_lowercase();
    assert!(snippet.contains("<mark>charged</mark> <mark>twice</mark>"), "{snippet}");
    let none = search(&server, "charged twice", "customer_churn", "").await.unwrap();
    assert!(none.hits.is_empty() && none.datasets_searched == 0, "no text to search there");
}

/// A new upload is indexed (its text columns chosen by content), searchable by its words; the
/// index survives a restart without being rebuilt; a vectors build cut off by a crash is redone;
/// and a deleted dataset's index is gone with it.
#[tokio::test]
async fn indexes_follow_uploads_restarts_and_deletes() {
    let mut server = with_model(&["--no-samples"]);
    let mut csv = String::from("id,code,note\n");
    for i in 0..60 {
        let note = match i % 3 {
            0 => "the espresso machine leaks water onto the counter",
            1 => "delivery van arrived two hours late again",
            _ => "printer on the third floor jams with thick paper",
        };
        csv.push_str(&format!("{i},X{i:03},\"{note} (case {i})\"\n"));
    }
    let client = server.client(None).await;
    let d = client.upload("notes.csv", csv.into_bytes().into(), |_| {}).await.unwrap();
    let index = index_when(&server, "notes", pb::SearchIndexState::Ready).await;
    assert_eq!((index.text_columns.as_slice(), index.rows), (&["note".to_owned()][..], 60), "codes are not text");
    let hits = search(&server, "coffee maker dripping", "notes", "").await.unwrap().hits;
    assert!(hits[0].text.contains("espresso"), "by meaning: {:?}", hits[0]);

    let dir = server.data_dir.join("search").join(&d.id);
    let meta_written = std::fs::metadata(dir.join("meta.json")).unwrap().modified().unwrap();
    assert!(server.stop());
    server.restart(&[], &[("AWARE_SEARCH__MODEL_DIR", &model_dir())]);
    let got = server
        .datasets()
        .await
        .get_dataset(pb::GetDatasetRequest { dataset_id: d.id.clone(), sample_rows: Some(0) })
        .await;
    assert_eq!(
        got.unwrap().into_inner().dataset.unwrap().search_index.unwrap().state(),
        pb::SearchIndexState::Ready,
        "loaded, not rebuilt"
    );
    assert_eq!(std::fs::metadata(dir.join("meta.json")).unwrap().modified().unwrap(), meta_written);
    assert!(search(&server, "printer jams", "notes", "").await.unwrap().hits[0].text.contains("printer"));

    // A crash in the middle of the vectors: only a partial file and no sealed vectors.
    server.kill9();
    let meta: Value = serde_json::from_slice(&std::fs::read(dir.join("meta.json")).unwrap()).unwrap();
    let mut cut = meta.clone();
    cut["vectors"] = Value::Null;
    std::fs::write(dir.join("meta.json"), cut.to_string()).unwrap();
    std::fs::rename(dir.join("vectors.bin"), dir.join("vectors.part")).unwrap();
    server.restart(&[], &[("AWARE_SEARCH__MODEL_DIR", &model_dir())]);
    let index = index_when(&server, "notes", pb::SearchIndexState::Ready).await;
    assert_eq!(index.vector_rows, 60, "the vectors were built again, once each");
    assert!(search(&server, "late delivery", "notes", "vector").await.unwrap().hits[0].text.contains("delivery"));

    client_delete(&server, &d.id).await;
    assert!(!dir.exists(), "the index is removed with the dataset");
    assert_eq!(search(&server, "printer", &d.id, "").await.unwrap_err().code(), tonic::Code::NotFound);
}

async fn client_delete(server: &TestServer, id: &str) {
    server.datasets().await.delete_dataset(pb::DeleteDatasetRequest { dataset_id: id.into() }).await.unwrap();
}

/// With no model, search is by words and says so; searching by meaning alone is refused with a
/// reason; the system status names how search works.
#[tokio::test]
async fn without_a_model_search_matches_words_and_says_so() {
    let server = TestServer::start(&[]);
    index_when(&server, "support_tickets", pb::SearchIndexState::Lexical).await;
    let found = search(&server, "refund", "", "").await.unwrap();
    assert_eq!(found.mode, "lexical");
    assert!(found.note.contains("no embedding model"), "{}", found.note);
    assert!(!found.hits.is_empty());
    let status = search(&server, "refund", "", "vector").await.unwrap_err();
    assert_eq!((status.code(), reason(&status)), (tonic::Code::FailedPrecondition, "NOT_READY".into()));

    let client = server.client(None).await;
    let events = ask(&client, "system status").await;
    let Some(pb::tool_result::Rich::SystemStatus(status)) = results(&events)[0].rich.clone() else { panic!("status") };
    assert!(status.search_index.starts_with("words only"), "{}", status.search_index);
}

async fn ask(client: &aware_client::AwareClient, text: &str) -> Vec<pb::ServerEvent> {
    let sent = client.send_message("", text, "").await.unwrap();
    follow(client, &sent.run_id, no_confirmation).await
}

/// "search for login problems" through `Chat` with the offline planner: a `search_datasets`
/// call, hits for the client, and for the model only counts and the top score.
#[tokio::test]
async fn the_assistant_searches_with_the_offline_planner() {
    let server = with_model(&[]);
    index_when(&server, "support_tickets", pb::SearchIndexState::Ready).await;
    let client = server.client(None).await;
    let events = ask(&client, "search for login problems").await;
    assert_eq!(calls(&events)[0], ("search_datasets".into(), json!({"query": "login problems"})));
    let result = &results(&events)[0];
    let Some(pb::tool_result::Rich::SearchHits(hits)) = result.rich.clone() else { panic!("hits") };
    assert_eq!(hits.mode, "hybrid");
    let rows: u32 = hits.hits.iter().map(|h| 1 + h.same_text_rows).sum();
    let expected = format!(
        "Found {} distinct matching text(s) in {rows} row(s) ({rows} in `support_tickets`) by hybrid search",
        hits.hits.len()
    );
    assert!(result.llm_summary.starts_with(&expected), "{}", result.llm_summary);
    for text in ["sign", "password", "login", "locked"] {
        assert!(
            !result.llm_summary.to_lowercase().contains(text),
            "no ticket text reaches the model: {}",
            result.llm_summary
        );
    }
    let Some(P::RunCompleted(done)) = &events.last().unwrap().payload else { panic!("completed") };
    assert!(done.final_text.starts_with(&expected), "{}", done.final_text);

    let events = ask(&client, "find tickets about people charged twice").await;
    assert_eq!(calls(&events)[0].1["query"], "people charged twice");
}

/// Vectors from an OpenAI-compatible `/v1/embeddings` server: requests carry the model, the
/// key and the texts; the index records the model; a server error fails that dataset's index
/// with a reason, and the server keeps serving.
#[tokio::test]
async fn an_openai_compatible_embeddings_server_makes_the_vectors() {
    let fake = FakeLlm::start(|req, _| {
        let inputs: Vec<String> =
            req.body["input"].as_array().unwrap().iter().map(|t| t.as_str().unwrap().to_owned()).collect();
        if inputs.iter().any(|t| t.contains("EXPLODE")) {
            return Reply::status(500, json!({"error": {"message": "model overloaded"}}));
        }
        // A bag of words hashed into 16 dimensions: texts sharing words are close.
        let data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut v = [0.0f64; 16];
                for w in t.to_lowercase().split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 2) {
                    v[w.bytes().fold(7usize, |h, b| h.wrapping_mul(31).wrapping_add(b as usize)) % 16] += 1.0;
                }
                v[0] += 0.01;
                json!({"object": "embedding", "index": i, "embedding": v})
            })
            .collect();
        Reply::status(200, json!({"object": "list", "data": data, "model": "fake-embed"}))
    })
    .await;
    let url = format!("{}/v1", fake.url());
    let server = TestServer::start_with_env(
        &[],
        &[
            ("AWARE_SEARCH__EMBEDDINGS", "openai"),
            ("AWARE_SEARCH__EMBEDDINGS_URL", url.as_str()),
            ("AWARE_SEARCH__EMBEDDINGS_MODEL", "fake-embed"),
            ("AWARE_SEARCH__EMBEDDINGS_API_KEY", "sk-test"),
            ("NO_PROXY", "127.0.0.1"),
        ],
    );
    let index = index_when(&server, "support_tickets", pb::SearchIndexState::Ready).await;
    assert_eq!((index.embedding_model.as_str(), index.vector_rows), ("openai:fake-embed", 300));
    let first = &fake.requests()[0];
    assert_eq!((first.path.as_str(), first.header("authorization")), ("/v1/embeddings", Some("Bearer sk-test")));
    assert_eq!(first.body["model"], "fake-embed");
    let hits = search(&server, "dashboard slow", "", "vector").await.unwrap().hits;
    assert!(hits[0].text.to_lowercase().contains("dashboard"), "{:?}", hits[0]);

    let client = server.client(None).await;
    client
        .upload(
            "bad.csv",
            "id,text\n1,\"this row will EXPLODE the embedder, sadly\"\n".as_bytes().to_vec().into(),
            |_| {},
        )
        .await
        .unwrap();
    let failed = index_when(&server, "bad", pb::SearchIndexState::Failed).await;
    assert!(failed.error.contains("model overloaded"), "{}", failed.error);
    let words = search(&server, "sadly", "bad", "lexical").await.unwrap();
    assert!(words.hits.is_empty() && words.note.contains("could not be indexed"), "{:?}", words);
    assert!(!search(&server, "refund", "", "").await.unwrap().hits.is_empty(), "the rest keeps working");
}
