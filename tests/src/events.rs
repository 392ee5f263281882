//! Reading a run's events in the suites: the tool calls, results and refusals it holds, and a
//! number from `ExecuteSql` printed the way tool summaries print it.

use crate::TestServer;
use aware_client::{AwareClient, StreamItem, StreamOptions};
use aware_proto::v1 as pb;
use futures::StreamExt;
use pb::server_event::Payload as P;

/// The payloads `pick` selects, in order.
fn pick<T>(events: &[pb::ServerEvent], pick: impl Fn(&P) -> Option<T>) -> Vec<T> {
    events.iter().filter_map(|e| e.payload.as_ref().and_then(&pick)).collect()
}

/// Each tool call as (name, arguments).
pub fn calls(events: &[pb::ServerEvent]) -> Vec<(String, serde_json::Value)> {
    pick(events, |p| match p {
        P::ToolCallStarted(c) => {
            Some((c.tool_name.clone(), serde_json::from_str(&c.arguments_json).expect("arguments are JSON")))
        }
        _ => None,
    })
}

pub fn results(events: &[pb::ServerEvent]) -> Vec<pb::ToolResult> {
    pick(events, |p| if let P::ToolResult(r) = p { Some(r.clone()) } else { None })
}

pub fn denials(events: &[pb::ServerEvent]) -> Vec<pb::ToolDenied> {
    pick(events, |p| if let P::ToolDenied(d) = p { Some(d.clone()) } else { None })
}

pub fn resolutions(events: &[pb::ServerEvent]) -> Vec<pb::ConfirmationResolution> {
    pick(events, |p| if let P::ConfirmationResolved(r) = p { Some(r.resolution()) } else { None })
}

/// A run's whole stored log (`ListRunEvents`).
pub async fn stored(server: &TestServer, run_id: &str) -> Vec<pb::ServerEvent> {
    let req = pb::ListRunEventsRequest { run_id: run_id.to_owned(), after_seq: 0, limit: 0 };
    server.runs().await.list_run_events(req).await.expect("ListRunEvents").into_inner().events
}

/// The first cell of `sql`'s answer, as a tool summary prints a number (two decimals at most).
pub async fn number(server: &TestServer, sql: &str) -> String {
    let req = pb::ExecuteSqlRequest { sql: sql.into(), limit: 0, ..Default::default() };
    let answer = tokio::time::timeout(std::time::Duration::from_secs(30), server.query().await.execute_sql(req))
        .await
        .expect("ExecuteSql answers within 30 s")
        .expect("ExecuteSql succeeds");
    let table = answer.into_inner().table.expect("a table");
    match table.rows[0].values[0].kind.clone().expect("a value") {
        pb::value::Kind::IntValue(i) => i.to_string(),
        pb::value::Kind::DecimalValue(d) => d,
        pb::value::Kind::DoubleValue(d) => {
            let s = format!("{d:.2}");
            s.trim_end_matches('0').trim_end_matches('.').to_owned()
        }
        other => panic!("not a number: {other:?}"),
    }
}

/// Follows a run to its end with `aware-client`'s resumable stream (each event within 60 s),
/// answering every confirmation with `decide` — which may act first, or panic when none is
/// expected. Returns the run's sequenced events.
pub async fn follow(
    client: &AwareClient,
    run_id: &str,
    decide: impl Fn(&pb::ConfirmationRequired) -> bool,
) -> Vec<pb::ServerEvent> {
    follow_acting(client, run_id, |c| std::future::ready(decide(&c))).await
}

/// Like [`follow`], with a decision that may act first (change the world between a
/// confirmation's request and its answer).
pub async fn follow_acting<F, Fut>(client: &AwareClient, run_id: &str, mut decide: F) -> Vec<pb::ServerEvent>
where
    F: FnMut(pb::ConfirmationRequired) -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let mut stream = client.run_stream(run_id, StreamOptions::default());
    let mut events = Vec::new();
    while let Some(item) =
        tokio::time::timeout(std::time::Duration::from_secs(60), stream.next()).await.expect("the run's next event")
    {
        if let StreamItem::Event(e) = item.expect("the run can be followed") {
            if let Some(P::ConfirmationRequired(c)) = &e.payload {
                let id = c.confirmation_id.clone();
                let approve = decide(c.clone()).await;
                client.confirm(&id, approve).await.expect("the confirmation is answered");
            }
            events.push(e);
        }
    }
    events
}

/// Follows a run to its end as a person who only asked a question would: every confirmation is
/// denied and every clarification dismissed. Returns the events and the tools that asked for a
/// confirmation.
pub async fn follow_declining(client: &AwareClient, run_id: &str) -> (Vec<pb::ServerEvent>, Vec<String>) {
    let mut stream = client.run_stream(run_id, StreamOptions::default());
    let (mut events, mut proposed) = (Vec::new(), Vec::new());
    while let Some(item) =
        tokio::time::timeout(std::time::Duration::from_secs(60), stream.next()).await.expect("the run's next event")
    {
        let StreamItem::Event(e) = item.expect("the run can be followed") else { continue };
        match &e.payload {
            Some(P::ConfirmationRequired(c)) => {
                proposed.push(c.tool_name.clone());
                client.confirm(&c.confirmation_id, false).await.expect("the confirmation is denied");
            }
            Some(P::ClarificationRequired(c)) => {
                client.clarify(&c.clarification_id, None, false).await.expect("the clarification is dismissed");
            }
            _ => {}
        }
        events.push(e);
    }
    (events, proposed)
}

/// For runs that must not ask for a confirmation.
pub fn no_confirmation(c: &pb::ConfirmationRequired) -> bool {
    panic!("no confirmation was expected, got one for {}", c.tool_name)
}
