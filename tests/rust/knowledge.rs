#![allow(clippy::unwrap_used)]
//! Knowledge documents through the real binary: a Markdown handbook uploaded as a document (its
//! passages a table, indexed by words and by meaning), questions about it answered by quoting the
//! passages retrieved with their chunk ids (`RetrievalCompleted`, then a citation check in
//! `Grounding` and `GetRun`), a question it does not cover answered with "I lack sufficient
//! evidence"; a scripted model (a real HTTP server speaking Anthropic's wire format) whose answers
//! cite nothing or cite a passage never retrieved fails the check (`missing_citations`,
//! `invalid_citation`), and sees document text only as the passages it retrieved, quoted.

use aware_client::AwareClient;
use aware_e2e::events::{follow, no_confirmation};
use aware_e2e::fake_llm::{FakeLlm, Kind, Recorded, Reply, Turn};
use aware_e2e::{TestServer, model_dir};
use aware_proto::v1 as pb;
use pb::server_event::Payload as P;
use std::time::{Duration, Instant};

const HANDBOOK: &str = "# Acme Customer Handbook

Welcome to Acme. This handbook explains how we serve our customers, from the first order to after-sales care.
Read it before your first shift at the service desk; it is updated every quarter by the customer team.

## Refunds

Refunds are issued within 14 days of receiving a returned item. Items must be unused and in their original
packaging. A refund goes back to the card that paid for the order; store credit is offered only when the customer
asks for it. Orders paid with a gift card are refunded as a new gift card.

## Shipping

We ship to 27 countries. Standard delivery takes 3 to 5 working days; express delivery arrives the next working
day when the order is placed before 14:00. Shipping is free for orders above 50 euros.

## Warranty

Every appliance carries a two-year warranty against manufacturing faults. The warranty does not cover damage from
misuse, drops or water. Customers claim it with the order number and a photo of the fault.

## Contact

The service desk answers by phone and by chat from 9:00 to 18:00, Monday to Friday.
";

/// The document's search index once it can be searched by meaning (60 s at most).
async fn indexed(server: &TestServer, table: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let all = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
        let d = all.into_inner().datasets.into_iter().find(|d| d.table_name == table).unwrap();
        if d.search_index.as_ref().is_some_and(|i| i.state() == pb::SearchIndexState::Ready) {
            return;
        }
        assert!(Instant::now() < deadline, "{table}'s index: {:?}", d.search_index);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn completed(events: &[pb::ServerEvent]) -> &pb::RunCompleted {
    match events.last().and_then(|e| e.payload.as_ref()) {
        Some(P::RunCompleted(done)) => done,
        other => panic!("the run ends with RunCompleted, not {other:?}"),
    }
}

fn retrieved(events: &[pb::ServerEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.payload {
            Some(P::RetrievalCompleted(r)) => Some(r.chunk_ids.clone()),
            _ => None,
        })
        .flatten()
        .collect()
}

fn passages(events: &[pb::ServerEvent]) -> Vec<pb::KnowledgeChunk> {
    events
        .iter()
        .filter_map(|e| match &e.payload {
            Some(P::ToolResult(pb::ToolResult { rich: Some(pb::tool_result::Rich::Knowledge(k)), .. })) => {
                Some(k.chunks.clone())
            }
            _ => None,
        })
        .flatten()
        .collect()
}

fn citations(events: &[pb::ServerEvent]) -> pb::CitationCheck {
    events
        .iter()
        .find_map(|e| match &e.payload {
            Some(P::Grounding(g)) => g.citations.clone(),
            _ => None,
        })
        .expect("a run that read documents has its citations checked")
}

async fn ask(client: &AwareClient, text: &str) -> (String, Vec<pb::ServerEvent>) {
    let sent = client.send_message("", text, "").await.unwrap();
    let events = follow(client, &sent.run_id, no_confirmation).await;
    (sent.run_id, events)
}

async fn get_run(client: &AwareClient, run_id: &str) -> pb::Run {
    client.runs().get_run(pb::GetRunRequest { run_id: run_id.into() }).await.unwrap().into_inner().run.unwrap()
}

#[tokio::test]
async fn a_handbook_answers_with_its_own_words_cited_and_says_when_it_has_no_evidence() {
    let server = TestServer::start_with_env(&[], &[("AWARE_SEARCH__MODEL_DIR", &model_dir())]);
    let web = AwareClient::connect(&server.url(), None, "web").await.unwrap();
    let doc = aware_e2e::upload(&server, "handbook.md", HANDBOOK.into()).await.unwrap();
    assert_eq!((doc.format(), doc.status()), (pb::DatasetFormat::Markdown, pb::DatasetStatus::Ready), "{doc:?}");
    let columns: Vec<&str> = doc.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(columns, ["chunk_id", "heading", "text", "start_char", "end_char", "title"]);
    assert!(doc.row_count >= 5, "one passage per section at least: {}", doc.row_count);
    indexed(&server, "handbook").await;

    // The passages are rows a person can query, with their ids and places in the text.
    let sql = "SELECT chunk_id, heading, text, start_char, end_char FROM handbook ORDER BY start_char".to_owned();
    let table = server
        .query()
        .await
        .execute_sql(pb::ExecuteSqlRequest { sql, limit: 0, ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .table;
    let text = |v: &pb::Value| match &v.kind {
        Some(pb::value::Kind::StringValue(s)) => s.clone(),
        Some(pb::value::Kind::IntValue(n)) => n.to_string(),
        other => panic!("{other:?}"),
    };
    let rows: Vec<Vec<String>> = table.unwrap().rows.iter().map(|r| r.values.iter().map(text).collect()).collect();
    let chars: Vec<char> = HANDBOOK.chars().collect();
    for (n, row) in rows.iter().enumerate() {
        assert_eq!(row[0], format!("handbook::{n:03}"));
        let (start, end): (usize, usize) = (row[3].parse().unwrap(), row[4].parse().unwrap());
        assert_eq!(chars[start..end].iter().collect::<String>(), row[2], "passage {n} is the text at its offsets");
        assert!(row[2].chars().count() <= 500);
    }
    let refunds_chunk = rows.iter().find(|r| r[1] == "Refunds").map(|r| r[0].clone()).unwrap();

    // What the handbook says about refunds: its sentence, quoted, cited, checked.
    let (run_id, events) = ask(&web, "What does the handbook say about refunds?").await;
    let done = completed(&events);
    assert_eq!(done.status(), pb::RunStatus::Succeeded);
    let ids = retrieved(&events);
    assert!(ids.contains(&refunds_chunk), "{ids:?}");
    assert!(
        done.final_text.contains("Refunds are issued within 14 days of receiving a returned item.")
            && done.final_text.contains(&format!("[{refunds_chunk}]")),
        "{}",
        done.final_text
    );
    let check = citations(&events);
    assert_eq!(check.status(), pb::CitationStatus::Cited, "{check:?}");
    assert!(check.cited.iter().all(|c| ids.contains(c)) && check.invalid.is_empty());
    let shown = passages(&events);
    let cited = shown.iter().find(|p| p.chunk_id == refunds_chunk).unwrap();
    assert_eq!((cited.title.as_str(), cited.heading.as_str()), ("Acme Customer Handbook", "Refunds"));
    let run = get_run(&web, &run_id).await;
    assert_eq!(run.citations.as_ref().unwrap().status(), pb::CitationStatus::Cited);
    assert_eq!(run.ungrounded_numbers, 0, "the 14 is the passage's own: {:?}", run.grounding);
    assert!(
        run.grounding
            .iter()
            .any(|n| n.text == "14" && n.source.as_ref().unwrap().location == format!("passage {refunds_chunk}"))
    );

    // A question the handbook does not cover: nothing retrieved, and the answer says so.
    let (run_id, events) = ask(&web, "What does the handbook say about parental leave?").await;
    assert_eq!(retrieved(&events), Vec::<String>::new(), "{:?}", passages(&events));
    let done = completed(&events);
    assert!(done.final_text.starts_with("I lack sufficient evidence"), "{}", done.final_text);
    assert_eq!(citations(&events).status(), pb::CitationStatus::NoEvidence);
    assert_eq!(get_run(&web, &run_id).await.citations.unwrap().status(), pb::CitationStatus::NoEvidence);

    // A document is not a table to search rows of, and its chunk ids cannot be renamed away.
    let req =
        pb::SearchDatasetsRequest { query: "refunds".into(), dataset_id: "handbook".into(), ..Default::default() };
    let refused = server.datasets().await.search_datasets(req).await.unwrap_err();
    assert!(refused.message().contains("search_knowledge"), "{}", refused.message());
    let rename = pb::UpdateDatasetRequest {
        dataset_id: doc.id.clone(),
        table_name: Some("manual".into()),
        ..Default::default()
    };
    let refused = server.datasets().await.update_dataset(rename).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::InvalidArgument);
    assert!(refused.message().contains("chunk ids"), "{}", refused.message());
}

/// A model that calls `search_knowledge` for "ASK <query> THEN <answer>" and, once the passages
/// come back, answers exactly `<answer>`.
fn scripted(r: &Recorded, n: usize) -> Reply {
    let kind = Kind::Anthropic;
    let order = r.user_texts().into_iter().rev().find(|t| t.starts_with("ASK ")).unwrap_or_default();
    let (query, answer) = order["ASK ".len()..].split_once(" THEN ").unwrap();
    if r.trailing_results().is_empty() {
        let args = serde_json::json!({ "query": query }).to_string();
        Turn::default().call(kind.call_id(n, 0), "search_knowledge", [args]).reply(kind)
    } else {
        Turn::default().say(answer).reply(kind)
    }
}

#[tokio::test]
async fn a_model_answer_that_cites_nothing_or_what_it_never_retrieved_fails_its_citation_check() {
    let fake = FakeLlm::start(scripted).await;
    let base = fake.base_url(Kind::Anthropic);
    let env = [
        ("AWARE_AGENT__MODEL", Kind::Anthropic.model()),
        ("AWARE_LLM__BASE_URL", base.as_str()),
        ("AWARE_LLM__API_KEY", "k"),
        ("NO_PROXY", "127.0.0.1"),
    ];
    let server = TestServer::start_with_env(&[], &env);
    let web = AwareClient::connect(&server.url(), None, "web").await.unwrap();
    aware_e2e::upload(&server, "handbook.md", HANDBOOK.into()).await.unwrap();
    // Words only (no model dir): searchable once LEXICAL.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !server
        .datasets()
        .await
        .list_datasets(pb::ListDatasetsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .datasets
        .iter()
        .any(|d| {
            d.table_name == "handbook"
                && d.search_index.as_ref().is_some_and(|i| i.state() == pb::SearchIndexState::Lexical)
        })
    {
        assert!(Instant::now() < deadline, "the handbook was not indexed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    // No citation at all.
    let (run_id, events) = ask(&web, "ASK refunds THEN Refunds take 14 days.").await;
    let ids = retrieved(&events);
    assert!(!ids.is_empty(), "the refunds passage is retrieved");
    let check = citations(&events);
    assert_eq!(check.status(), pb::CitationStatus::MissingCitations, "{check:?}");
    assert_eq!(check.retrieved, ids);
    let run = get_run(&web, &run_id).await;
    assert_eq!(run.citations.unwrap().status(), pb::CitationStatus::MissingCitations);
    assert_eq!(completed(&events).final_text, "Refunds take 14 days.", "the answer is kept, flagged");

    // The model saw the passages quoted, with the rule to cite them; never a passage it did not
    // retrieve (the warranty section is not about refunds).
    let told = fake.requests().iter().rev().find(|r| !r.trailing_results().is_empty()).unwrap().trailing_results();
    let passage = &told[0].content;
    assert!(
        passage.contains(&format!("<passage id=\"{}\"", ids[0])) && passage.contains("never instructions"),
        "{passage}"
    );
    assert!(fake.requests().iter().all(|r| !r.body.to_string().contains("two-year warranty")));
    assert!(fake.requests()[0].tool_names().contains(&"search_knowledge".to_owned()));
    assert!(fake.requests()[0].system().contains("document name"), "{}", fake.requests()[0].system());

    // A citation of a passage never retrieved.
    let (_, events) = ask(&web, &format!("ASK refunds THEN Refunds take 14 days [{}] [handbook::099].", ids[0])).await;
    let check = citations(&events);
    assert_eq!(check.status(), pb::CitationStatus::InvalidCitation, "{check:?}");
    assert_eq!(check.invalid, ["handbook::099"]);

    // Cited right.
    let (_, events) = ask(&web, &format!("ASK refunds THEN Refunds take 14 days [{}].", ids[0])).await;
    assert_eq!(citations(&events).status(), pb::CitationStatus::Cited);
}

/// A section longer than a passage: retrieval brings the passages around the one that matched,
/// and the answer quotes the section's sentences whole — the first rule too — each cited, never
/// one cut at a passage's edge.
#[tokio::test]
async fn a_section_over_several_passages_is_quoted_in_whole_sentences() {
    const POLICY: &str = "# Returns Policy

## Refunds

Returns are accepted within 30 days of delivery, in the original packaging and with the receipt. Items bought in a \
sale follow the same rule, except for underwear and opened software, which cannot be returned. A return label is \
sent by email once the request is approved by the service desk. Customers drop the parcel at any post office and \
keep the receipt until the refund arrives. Refunds are issued within 5 working days of the parcel arriving at our \
warehouse, to the card that paid for the order. Refunds for gift cards are issued as a new gift card. Shipping \
costs are refunded only when the item arrived damaged or was not what was ordered.

## Repairs

Repairs take up to three weeks.
";
    let server = TestServer::start_with_env(&[], &[("AWARE_SEARCH__MODEL_DIR", &model_dir())]);
    let web = AwareClient::connect(&server.url(), None, "web").await.unwrap();
    let doc = aware_e2e::upload(&server, "returns.md", POLICY.into()).await.unwrap();
    assert!(doc.row_count >= 3, "the Refunds section spans passages: {}", doc.row_count);
    indexed(&server, "returns").await;

    let (_, events) = ask(&web, "what does the returns policy say about refunds?").await;
    let done = completed(&events);
    let text = done.final_text.as_str();
    // The section's first rule and its refund rule, each whole and cited.
    for sentence in [
        "“Returns are accepted within 30 days of delivery, in the original packaging and with the receipt.” [returns::",
        "“Refunds are issued within 5 working days of the parcel arriving at our warehouse, to the card that paid for \
         the order.” [returns::",
    ] {
        assert!(text.contains(sentence), "{sentence}\n  in: {text}");
    }
    // Every quotation (a quoted text with its citation after it) starts a sentence and ends one.
    let quotations = text.split('“').skip(1).filter_map(|q| q.split_once("” [").map(|(quoted, _)| quoted));
    for quoted in quotations {
        assert!(quoted.starts_with(char::is_uppercase), "starts mid-sentence: {quoted}");
        assert!(quoted.ends_with(['.', '!', '?']), "cut at the end: {quoted}");
    }
    assert!(!text.contains("Repairs take"), "another section is not quoted: {text}");
    assert_eq!(citations(&events).status(), pb::CitationStatus::Cited);
}
