//! What the run-engine suites share (`chat.rs`, `replicas.rs`): a hang guard, scripted models,
//! reading events, `Chat` sessions and the unary calls, and the randomised disconnect-and-resume
//! trial, which reconnects to one server or to each of several replicas in turn.

#![allow(dead_code)] // each suite uses its own part of the harness

use aware_e2e::{TestServer, authed};
use aware_proto::v1 as pb;
use futures::StreamExt;
use pb::chat_request::Kind;
use pb::server_event::Payload as P;
use prost::Message as _;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::future::Future;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::Request;

// ---------------------------------------------------------------------------------------------
// Harness

/// Hang guard: every wait in this file is bounded, so a broken server fails the test instead of
/// hanging it. Never a timing assertion.
pub(crate) async fn guard<F: Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(Duration::from_secs(30), f).await {
        Ok(v) => v,
        Err(_) => panic!("hang guard: {what} took more than 30 s"),
    }
}

/// A model script on disk (kept alive as long as the servers that read it).
pub(crate) struct Script {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) path: String,
}

pub(crate) fn script(value: Value) -> Script {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.json");
    std::fs::write(&path, value.to_string()).unwrap();
    Script { path: path.to_str().unwrap().to_owned(), _dir: dir }
}

impl Script {
    pub(crate) fn env<'a>(&'a self, extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
        let mut env = vec![("AWARE_AGENT__MODEL", "script"), ("AWARE_AGENT__SCRIPT", self.path.as_str())];
        env.extend_from_slice(extra);
        env
    }

    pub(crate) fn start(&self, args: &[&str], extra: &[(&str, &str)]) -> TestServer {
        TestServer::start_with_env(args, &self.env(extra))
    }
}

/// A reply that asks to delete `dataset` (turn 0), then answers in text (turn 1).
pub(crate) fn delete_reply(when: &str, dataset: &str) -> Value {
    json!({"when": when, "turns": [
        {"chunks": ["I will delete ", dataset, " once you approve."], "delay_ms": 2,
         "tool_calls": [{"name": "delete_dataset", "arguments": {"dataset": dataset}}],
         "input_tokens": 40, "output_tokens": 12},
        {"chunks": ["Done with ", dataset, "."], "delay_ms": 2, "input_tokens": 60, "output_tokens": 6}
    ]})
}

/// A one-turn text reply.
pub(crate) fn hello_reply() -> Value {
    json!({"when": "hello", "turns": [{"chunks": ["Hi", " there."], "delay_ms": 2, "input_tokens": 10, "output_tokens": 3}]})
}

pub(crate) fn payload(e: &pb::ServerEvent) -> &P {
    e.payload.as_ref().expect("every event has a payload")
}

pub(crate) fn name(e: &pb::ServerEvent) -> &'static str {
    match payload(e) {
        P::RunStarted(_) => "run_started",
        P::TextStarted(_) => "text_started",
        P::TextDelta(_) => "text_delta",
        P::TextEnded(_) => "text_ended",
        P::ToolCallStarted(_) => "tool_call_started",
        P::ToolStatus(_) => "tool_status",
        P::ToolResult(_) => "tool_result",
        P::ToolDenied(_) => "tool_denied",
        P::ConfirmationRequired(_) => "confirmation_required",
        P::ConfirmationResolved(_) => "confirmation_resolved",
        P::ClarificationRequired(_) => "clarification_required",
        P::ClarificationResolved(_) => "clarification_resolved",
        P::RunCompleted(_) => "run_completed",
        P::RoutingDecided(_) => "routing_decided",
        P::MemorySaved(_) => "memory_saved",
        P::MemoryForgotten(_) => "memory_forgotten",
        P::Grounding(_) => "grounding",
        P::RetrievalCompleted(_) => "retrieval_completed",
        P::Heartbeat(_) => "heartbeat",
        P::ReplayStarted(_) => "replay_started",
        P::ReplayFinished(_) => "replay_finished",
        P::Rejected(_) => "rejected",
        P::Accepted(_) => "accepted",
        P::StateApplied(_) => "state_applied",
        P::ShuttingDown(_) => "shutting_down",
    }
}

pub(crate) fn names(events: &[pb::ServerEvent]) -> Vec<&'static str> {
    events.iter().map(name).collect()
}

pub(crate) fn is_heartbeat(e: &pb::ServerEvent) -> bool {
    matches!(payload(e), P::Heartbeat(_))
}

pub(crate) fn is_completed(e: &pb::ServerEvent) -> bool {
    matches!(payload(e), P::RunCompleted(_))
}

/// The payloads of one kind, in order.
macro_rules! pick {
    ($events:expr, $variant:ident) => {
        $events
            .iter()
            .filter_map(|e| match e.payload.as_ref() {
                Some(P::$variant(x)) => Some(x),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
}

/// The run's sequenced events (seq > 0) among `events`.
pub(crate) fn of_run(events: &[pb::ServerEvent], run_id: &str) -> Vec<pb::ServerEvent> {
    events.iter().filter(|e| e.seq > 0 && e.run_id == run_id).cloned().collect()
}

pub(crate) fn completed(events: &[pb::ServerEvent]) -> pb::RunCompleted {
    let all = pick!(events, RunCompleted);
    assert_eq!(all.len(), 1, "exactly one run_completed: {:?}", names(events));
    all[0].clone()
}

pub(crate) fn status_of(events: &[pb::ServerEvent]) -> pb::RunStatus {
    pb::RunStatus::try_from(completed(events).status).unwrap()
}

pub(crate) fn outcome_of(events: &[pb::ServerEvent]) -> pb::RunOutcome {
    pb::RunOutcome::try_from(completed(events).outcome).unwrap()
}

pub(crate) fn tool_phases(events: &[pb::ServerEvent]) -> Vec<pb::ToolPhase> {
    pick!(events, ToolStatus).iter().map(|s| pb::ToolPhase::try_from(s.phase).unwrap()).collect()
}

pub(crate) fn resolutions(events: &[pb::ServerEvent]) -> Vec<pb::ConfirmationResolution> {
    pick!(events, ConfirmationResolved)
        .iter()
        .map(|r| pb::ConfirmationResolution::try_from(r.resolution).unwrap())
        .collect()
}

pub(crate) fn the_confirmation(events: &[pb::ServerEvent]) -> pb::ConfirmationRequired {
    let all = pick!(events, ConfirmationRequired);
    assert_eq!(all.len(), 1, "exactly one confirmation_required: {:?}", names(events));
    all[0].clone()
}

pub(crate) fn the_tool_result(events: &[pb::ServerEvent]) -> pb::ToolResult {
    let all = pick!(events, ToolResult);
    assert_eq!(all.len(), 1, "exactly one tool_result: {:?}", names(events));
    all[0].clone()
}

pub(crate) fn streamed_text(events: &[pb::ServerEvent]) -> String {
    pick!(events, TextDelta).iter().map(|d| d.delta.as_str()).collect()
}

/// (seconds, nanos) of a timestamp field.
macro_rules! instant {
    ($t:expr) => {{
        let t = $t.as_ref().expect("a timestamp");
        (t.seconds, t.nanos)
    }};
}

/// The contract of a complete log of one run: seq 1, 2, … with no gap, `run_started` first,
/// exactly one `run_completed` and it is last, one run, usage always present, every text
/// message opened and closed.
pub(crate) fn assert_well_formed(events: &[pb::ServerEvent]) {
    assert!(!events.is_empty(), "a run's log is never empty");
    let run_id = &events[0].run_id;
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.seq, i as u64 + 1, "seq is 1, 2, 3, … with no gap or duplicate: {:?}", names(events));
        assert_eq!(&e.run_id, run_id, "one run");
        assert!(e.time.is_some(), "every event has a time");
    }
    assert!(matches!(payload(&events[0]), P::RunStarted(_)), "run_started is seq 1: {:?}", names(events));
    assert!(is_completed(events.last().unwrap()), "run_completed is last: {:?}", names(events));
    assert!(completed(events).usage.is_some(), "run_completed always carries usage");
    let started: Vec<&str> = pick!(events, TextStarted).iter().map(|t| t.message_id.as_str()).collect();
    let ended: Vec<&str> = pick!(events, TextEnded).iter().map(|t| t.message_id.as_str()).collect();
    assert_eq!(started, ended, "every text message is closed: {:?}", names(events));
}

/// Asserts two event lists are the same bytes on the wire, event by event.
pub(crate) fn assert_same_bytes(a: &[pb::ServerEvent], b: &[pb::ServerEvent], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: {:?} vs {:?}", names(a), names(b));
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.encode_to_vec(), y.encode_to_vec(), "{what}: seq {} differs:\n{x:?}\n{y:?}", x.seq);
    }
}

/// Checks replay framing — `replay_started{after}`, stored events, `replay_finished`, live events —
/// and returns the sequenced events.
pub(crate) fn unframe(stream: &[pb::ServerEvent], after: u64) -> Vec<pb::ServerEvent> {
    let Some(P::ReplayStarted(start)) = stream.first().map(payload) else {
        panic!("a replay opens with replay_started: {:?}", names(stream))
    };
    assert_eq!(start.after_seq, after, "replay_started echoes the cursor");
    let fin: Vec<usize> =
        stream.iter().enumerate().filter(|(_, e)| matches!(payload(e), P::ReplayFinished(_))).map(|(i, _)| i).collect();
    assert_eq!(fin.len(), 1, "one replay_finished: {:?}", names(stream));
    let P::ReplayFinished(finished) = payload(&stream[fin[0]]) else { unreachable!() };
    let (replayed, live) = (&stream[1..fin[0]], &stream[fin[0] + 1..]);
    assert!(replayed.iter().chain(live).all(|e| e.seq > 0), "only sequenced events inside: {:?}", names(stream));
    let replay_end = replayed.last().map_or(after, |e| e.seq);
    assert_eq!(finished.last_seq, replay_end, "replay_finished names the last replayed seq");
    assert_eq!(start.last_seq_at_start, replay_end, "the replay covers the log as it was at the start");
    if finished.live {
        assert!(replayed.iter().all(|e| !is_completed(e)), "live after a replay means the run had not completed");
    } else {
        assert!(live.is_empty(), "nothing follows replay_finished{{live: false}}: {:?}", names(stream));
    }
    replayed.iter().chain(live).cloned().collect()
}

/// One `Chat` stream. Events skipped while looking for an answer are kept and returned first.
pub(crate) struct Session {
    tx: Option<mpsc::Sender<pb::ChatRequest>>,
    rx: tonic::Streaming<pb::ChatResponse>,
    pending: VecDeque<pb::ServerEvent>,
}

impl Session {
    pub(crate) async fn open(server: &TestServer) -> Self {
        Self::open_with(server, None).await
    }

    pub(crate) async fn open_as(server: &TestServer, token: &str) -> Self {
        Self::open_with(server, Some(token)).await
    }

    pub(crate) async fn open_with(server: &TestServer, token: Option<&str>) -> Self {
        let (tx, rx) = mpsc::channel(64);
        let requests = ReceiverStream::new(rx);
        let request = match token {
            Some(t) => authed(requests, t),
            None => Request::new(requests),
        };
        let mut client = server.chat().await;
        let rx = guard("opening a Chat stream", client.chat(request)).await.unwrap().into_inner();
        Self { tx: Some(tx), rx, pending: VecDeque::new() }
    }

    pub(crate) async fn send(&self, client_msg_id: &str, kind: Kind) {
        let tx = self.tx.as_ref().expect("the session is half-closed");
        tx.send(pb::ChatRequest { client_msg_id: client_msg_id.to_owned(), kind: Some(kind) }).await.unwrap();
    }

    pub(crate) async fn say(&self, client_msg_id: &str, thread_id: &str, text: &str, on_busy: pb::OnBusy) {
        let m = pb::UserMessage { thread_id: thread_id.to_owned(), text: text.to_owned(), on_busy: on_busy.into() };
        self.send(client_msg_id, Kind::Message(m)).await;
    }

    pub(crate) async fn resume(&self, client_msg_id: &str, run_id: &str, last_event_seq: u64) {
        self.send(client_msg_id, Kind::Resume(pb::Resume { run_id: run_id.to_owned(), last_event_seq })).await;
    }

    pub(crate) async fn confirm(&self, client_msg_id: &str, confirmation_id: &str, approved: bool) {
        let c =
            pb::ConfirmationResponse { confirmation_id: confirmation_id.to_owned(), approved, ..Default::default() };
        self.send(client_msg_id, Kind::Confirmation(c)).await;
    }

    pub(crate) async fn cancel(&self, client_msg_id: &str, run_id: &str) {
        self.send(client_msg_id, Kind::Cancel(pb::Cancel { run_id: run_id.to_owned() })).await;
    }

    /// Drops the request sender: the client half-closes.
    pub(crate) fn half_close(&mut self) {
        self.tx = None;
    }

    /// The next event on the wire, heartbeats included; `None` when the server ended the stream.
    pub(crate) async fn next_any(&mut self) -> Option<pb::ServerEvent> {
        if let Some(e) = self.pending.pop_front() {
            return Some(e);
        }
        let message = guard("the next Chat event", self.rx.message()).await.expect("the Chat stream failed");
        message.map(|m| m.event.expect("a ChatResponse carries an event"))
    }

    /// The next event that is not a heartbeat.
    pub(crate) async fn next(&mut self) -> pb::ServerEvent {
        loop {
            let e = self.next_any().await.expect("the Chat stream ended early");
            if !is_heartbeat(&e) {
                return e;
            }
        }
    }

    /// Events (no heartbeats) up to and including the first one that matches.
    pub(crate) async fn until(
        &mut self,
        what: &str,
        matches: impl Fn(&pb::ServerEvent) -> bool,
    ) -> Vec<pb::ServerEvent> {
        let mut out = Vec::new();
        loop {
            let e = guard(what, self.next()).await;
            let done = matches(&e);
            out.push(e);
            if done {
                return out;
            }
        }
    }

    pub(crate) async fn until_completed(&mut self, run_id: &str) -> Vec<pb::ServerEvent> {
        self.until("run_completed", |e| e.run_id == run_id && is_completed(e)).await
    }

    /// The answer (accepted, rejected or state_applied) to one client message; other events stay
    /// queued for `next`.
    pub(crate) async fn answer(&mut self, client_msg_id: &str) -> pb::ServerEvent {
        let mut skipped = Vec::new();
        loop {
            let e = self.next_any().await.expect("the Chat stream ended before answering");
            let id = match payload(&e) {
                P::Accepted(a) => Some(a.client_msg_id.as_str()),
                P::Rejected(r) => Some(r.client_msg_id.as_str()),
                P::StateApplied(s) => Some(s.client_msg_id.as_str()),
                _ => None,
            };
            if id == Some(client_msg_id) {
                self.pending.extend(skipped);
                return e;
            }
            if !is_heartbeat(&e) {
                skipped.push(e);
            }
        }
    }

    /// Sends a message and returns `(run_id, thread_id)` from its `accepted`.
    pub(crate) async fn start(&mut self, client_msg_id: &str, thread_id: &str, text: &str) -> (String, String) {
        self.say(client_msg_id, thread_id, text, pb::OnBusy::Reject).await;
        let e = self.answer(client_msg_id).await;
        let P::Accepted(a) = payload(&e) else { panic!("a message to a free thread is accepted: {e:?}") };
        assert!(!e.run_id.is_empty(), "accepted names the run");
        (e.run_id.clone(), a.thread_id.clone())
    }
}

pub(crate) fn accepted(e: &pb::ServerEvent) -> &pb::Accepted {
    match payload(e) {
        P::Accepted(a) => a,
        _ => panic!("expected accepted, got {e:?}"),
    }
}

pub(crate) fn rejected(e: &pb::ServerEvent) -> (&pb::Rejected, pb::ErrorCode) {
    match payload(e) {
        P::Rejected(r) => (r, pb::ErrorCode::try_from(r.code).unwrap()),
        _ => panic!("expected rejected, got {e:?}"),
    }
}

pub(crate) async fn send_message(
    server: &TestServer,
    client_msg_id: &str,
    thread_id: &str,
    text: &str,
    on_busy: pb::OnBusy,
) -> Result<pb::SendMessageResponse, tonic::Status> {
    let message = pb::UserMessage { thread_id: thread_id.to_owned(), text: text.to_owned(), on_busy: on_busy.into() };
    let req = pb::SendMessageRequest { client_msg_id: client_msg_id.to_owned(), message: Some(message) };
    server.chat().await.send_message(req).await.map(tonic::Response::into_inner)
}

pub(crate) async fn open_stream_run(
    server: &TestServer,
    run_id: &str,
    after_seq: u64,
) -> tonic::Streaming<pb::StreamRunResponse> {
    let req = pb::StreamRunRequest { run_id: run_id.to_owned(), after_seq };
    guard("opening StreamRun", server.chat().await.stream_run(req)).await.unwrap().into_inner()
}

pub(crate) async fn next_of(stream: &mut tonic::Streaming<pb::StreamRunResponse>) -> Option<pb::ServerEvent> {
    let m = guard("the next StreamRun event", stream.message()).await.expect("StreamRun failed");
    m.map(|m| m.event.expect("a StreamRunResponse carries an event"))
}

/// Everything StreamRun sends (heartbeats aside) until it ends the stream.
pub(crate) async fn stream_run(server: &TestServer, run_id: &str, after_seq: u64) -> Vec<pb::ServerEvent> {
    let mut stream = open_stream_run(server, run_id, after_seq).await;
    let mut out = Vec::new();
    while let Some(e) = next_of(&mut stream).await {
        if !is_heartbeat(&e) {
            out.push(e);
        }
    }
    out
}

/// StreamRun events (heartbeats aside) up to and including the first that matches.
pub(crate) async fn stream_until(
    stream: &mut tonic::Streaming<pb::StreamRunResponse>,
    matches: impl Fn(&pb::ServerEvent) -> bool,
) -> Vec<pb::ServerEvent> {
    let mut out = Vec::new();
    loop {
        let e = next_of(stream).await.expect("StreamRun ended early");
        if is_heartbeat(&e) {
            continue;
        }
        let done = matches(&e);
        out.push(e);
        if done {
            return out;
        }
    }
}

pub(crate) async fn log(server: &TestServer, run_id: &str) -> pb::ListRunEventsResponse {
    let req = pb::ListRunEventsRequest { run_id: run_id.to_owned(), after_seq: 0, limit: 0 };
    server.runs().await.list_run_events(req).await.unwrap().into_inner()
}

pub(crate) async fn get_run(server: &TestServer, run_id: &str) -> pb::Run {
    let req = pb::GetRunRequest { run_id: run_id.to_owned() };
    server.runs().await.get_run(req).await.unwrap().into_inner().run.unwrap()
}

pub(crate) async fn submit(
    server: &TestServer,
    confirmation_id: &str,
    approved: bool,
) -> Result<pb::SubmitConfirmationResponse, tonic::Status> {
    let req =
        pb::SubmitConfirmationRequest { confirmation_id: confirmation_id.to_owned(), approved, ..Default::default() };
    server.chat().await.submit_confirmation(req).await.map(tonic::Response::into_inner)
}

pub(crate) async fn cancel_run(server: &TestServer, run_id: &str) -> pb::RunStatus {
    let req = pb::CancelRunRequest { run_id: run_id.to_owned() };
    let status = server.chat().await.cancel_run(req).await.unwrap().into_inner().status;
    pb::RunStatus::try_from(status).unwrap()
}

pub(crate) async fn datasets_as(server: &TestServer, token: Option<&str>) -> Vec<pb::Dataset> {
    let req = match token {
        Some(t) => authed(pb::ListDatasetsRequest::default(), t),
        None => Request::new(pb::ListDatasetsRequest::default()),
    };
    server.datasets().await.list_datasets(req).await.unwrap().into_inner().datasets
}

/// The table names of the (local) user's datasets, sorted.
pub(crate) async fn tables(server: &TestServer) -> Vec<String> {
    let mut t: Vec<String> = datasets_as(server, None).await.into_iter().map(|d| d.table_name).collect();
    t.sort();
    t
}

pub(crate) async fn upload_csv(server: &TestServer, token: Option<&str>, filename: &str, content: &str) -> pb::Dataset {
    let message = pb::UploadDatasetRequest {
        filename: filename.to_owned(),
        format: String::new(),
        chunk: bytes::Bytes::from(content.to_owned()),
        size_bytes: content.len() as u64,
    };
    let stream = tokio_stream::iter(vec![message]);
    let req = match token {
        Some(t) => authed(stream, t),
        None => Request::new(stream),
    };
    let d = server.datasets().await.upload_dataset(req).await.unwrap().into_inner().dataset.unwrap();
    assert_eq!(d.status, pb::DatasetStatus::Ready as i32, "{d:?}");
    d
}

pub(crate) const SAMPLES: [&str; 3] = ["barcelona_apartments", "customer_churn", "support_tickets"];

// ---------------------------------------------------------------------------------------------
// Disconnect and resume, randomised

/// splitmix64: a small deterministic PRNG (trial i always makes the same choices).
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0xA076_1D64_78BD_642F) ^ 0xE703_7ED1_A0B4_28DB)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One connection of a trial: a Chat stream or a StreamRun.
pub(crate) enum Conn {
    Chat(Session),
    Stream(tonic::Streaming<pb::StreamRunResponse>),
}

impl Conn {
    pub(crate) async fn next_any(&mut self) -> Option<pb::ServerEvent> {
        match self {
            Self::Chat(s) => s.next_any().await,
            Self::Stream(s) => next_of(s).await,
        }
    }
}

/// What a trial exercised.
#[derive(Default, Debug)]
pub(crate) struct Coverage {
    pub(crate) connections: usize,
    pub(crate) cuts_mid_text: usize,
    pub(crate) cuts_awaiting_confirmation: usize,
    pub(crate) approvals_while_disconnected: usize,
    pub(crate) chat_resumes: usize,
    pub(crate) stream_run_resumes: usize,
}

pub(crate) const TRIALS: usize = 200;
pub(crate) const IN_FLIGHT: usize = 16;

pub(crate) fn is_confirmation_trial(i: usize) -> bool {
    i % 4 == 1
}

pub(crate) fn trial_script() -> Value {
    let chunks = |n: usize, tag: &str| (0..n).map(|i| format!("{tag}{i} ")).collect::<Vec<_>>();
    let mut replies: Vec<Value> = (0..TRIALS)
        .filter(|&i| is_confirmation_trial(i))
        .map(|i| {
            json!({"when": format!("confirm [trial-{i}]"), "turns": [
                {"chunks": chunks(12, "c"), "delay_ms": 1, "input_tokens": 30, "output_tokens": 12,
                 "tool_calls": [{"name": "delete_dataset", "arguments": {"dataset": format!("trial_{i}")}}]},
                {"chunks": chunks(10, "d"), "delay_ms": 1, "input_tokens": 50, "output_tokens": 10}
            ]})
        })
        .collect();
    replies.push(json!({"when": "stream", "turns": [
        {"chunks": chunks(18, "w"), "delay_ms": 1, "input_tokens": 20, "output_tokens": 18,
         "tool_calls": [{"name": "list_datasets", "arguments": {}}]},
        {"chunks": chunks(12, "v"), "delay_ms": 1, "input_tokens": 40, "output_tokens": 12}
    ]}));
    json!({ "replies": replies })
}

/// One trial: start a run, cut the connection after a random number of sequenced events (again
/// and again), reconnect from the last seen seq — to the next of `servers` each time (replicas of
/// one store; the same server when there is one) — answer its confirmation through any of them,
/// and reassemble the run.
pub(crate) async fn disconnect_trial(servers: &[&TestServer], i: usize) -> Coverage {
    let mut turn = i;
    let mut next_server = || {
        turn += 1;
        servers[turn % servers.len()]
    };
    let server = next_server();
    let confirm = is_confirmation_trial(i);
    let mut rng = Rng::new(i as u64);
    let mut cov = Coverage::default();
    let text = if confirm { format!("confirm [trial-{i}]") } else { format!("stream [trial-{i}]") };
    let ctx = format!("trial {i}");

    let mut got: Vec<pb::ServerEvent> = Vec::new();
    let mut confirmation: Option<String> = None;
    let mut approved = false;
    let mut done = false;
    let mut use_chat = rng.below(2) == 0;
    let (run_id, mut conn) = if use_chat {
        let mut s = Session::open(server).await;
        s.say(&format!("trial-{i}"), "", &text, pb::OnBusy::Reject).await;
        let e = s.next().await;
        assert!(matches!(payload(&e), P::Accepted(_)), "{ctx}: {e:?}");
        (e.run_id.clone(), Conn::Chat(s))
    } else {
        let sent = send_message(server, &format!("trial-{i}"), "", &text, pb::OnBusy::Reject).await.unwrap();
        let stream = open_stream_run(server, &sent.run_id, 0).await;
        (sent.run_id, Conn::Stream(stream))
    };
    let mut framed = !use_chat;
    loop {
        cov.connections += 1;
        let cursor_at_connect = got.last().map_or(0, |e| e.seq);
        let budget = if cov.connections > 12 { usize::MAX } else { rng.below(16) as usize };
        let mut taken = 0;
        let mut expect_start = framed;
        let mut in_replay = false;
        let mut cut_awaiting = false;
        while !done && taken < budget {
            let Some(e) = conn.next_any().await else { panic!("{ctx}: the stream ended before run_completed") };
            let cursor = got.last().map_or(0, |e| e.seq);
            match payload(&e) {
                P::Heartbeat(_) => continue,
                P::ReplayStarted(s) => {
                    assert!(expect_start, "{ctx}: unexpected replay_started");
                    assert_eq!(s.after_seq, cursor_at_connect, "{ctx}: replay_started echoes the cursor");
                    expect_start = false;
                    in_replay = true;
                    continue;
                }
                P::ReplayFinished(f) => {
                    assert!(in_replay, "{ctx}: replay_finished without replay_started");
                    assert_eq!(f.last_seq, cursor, "{ctx}: replay_finished names the last replayed seq");
                    assert!(f.live, "{ctx}: the run had not completed, so live events follow");
                    in_replay = false;
                    continue;
                }
                _ if e.seq == 0 => panic!("{ctx}: unexpected {e:?}"),
                _ => {}
            }
            assert!(!expect_start, "{ctx}: a resume starts with replay_started, got {e:?}");
            assert_eq!(e.run_id, run_id, "{ctx}");
            assert_eq!(e.seq, cursor + 1, "{ctx}: after seq {cursor} came seq {} (gap or duplicate)", e.seq);
            taken += 1;
            if let P::ConfirmationRequired(c) = payload(&e) {
                confirmation = Some(c.confirmation_id.clone());
            }
            done = is_completed(&e);
            got.push(e);
            if done && in_replay {
                // A replay of a completed run closes with replay_finished{live: false}.
                let f = loop {
                    let f = conn.next_any().await.expect("replay_finished follows");
                    if !is_heartbeat(&f) {
                        break f;
                    }
                };
                let Some(P::ReplayFinished(f)) = f.payload.as_ref() else { panic!("{ctx}: got {f:?}") };
                assert_eq!((f.last_seq, f.live), (got.last().unwrap().seq, false), "{ctx}");
            }
            if let (Some(id), false, false) = (&confirmation, approved, done) {
                // The run now waits for a person: approve while connected, or cut and approve.
                if rng.below(2) == 0 {
                    let r = submit(next_server(), id, true).await.unwrap();
                    assert_eq!(r.resolution, pb::ConfirmationResolution::Approved as i32, "{ctx}");
                    approved = true;
                } else {
                    cut_awaiting = true;
                    break;
                }
            }
        }
        if done {
            if let Conn::Stream(s) = &mut conn {
                while let Some(e) = next_of(s).await {
                    assert!(is_heartbeat(&e), "{ctx}: StreamRun ends after run_completed, got {e:?}");
                }
            }
            break;
        }
        // Cut.
        if matches!(got.last().map(payload), Some(P::TextDelta(_))) {
            cov.cuts_mid_text += 1;
        }
        drop(conn);
        if cut_awaiting {
            cov.cuts_awaiting_confirmation += 1;
            let r = submit(next_server(), confirmation.as_deref().unwrap(), true).await.unwrap();
            assert_eq!(r.resolution, pb::ConfirmationResolution::Approved as i32, "{ctx}");
            approved = true;
            cov.approvals_while_disconnected += 1;
        }
        // Reconnect from the last seen seq, alternating the two ways.
        use_chat = !use_chat;
        let cursor = got.last().map_or(0, |e| e.seq);
        let server = next_server();
        conn = if use_chat {
            cov.chat_resumes += 1;
            let s = Session::open(server).await;
            s.resume(&format!("resume-{i}-{}", cov.connections), &run_id, cursor).await;
            Conn::Chat(s)
        } else {
            cov.stream_run_resumes += 1;
            Conn::Stream(open_stream_run(server, &run_id, cursor).await)
        };
        framed = true;
    }

    assert_well_formed(&got);
    assert_eq!(status_of(&got), pb::RunStatus::Succeeded, "{ctx}");
    let stored = log(next_server(), &run_id).await;
    assert_same_bytes(&stored.events, &got, &format!("{ctx}: reassembled vs ListRunEvents"));
    assert_eq!(stored.last_seq, got.len() as u64, "{ctx}");
    // (ListRunEvents' status right after run_completed is checked under load by
    // a_thread_takes_the_next_message_as_soon_as_run_completed_arrives.)
    let result = the_tool_result(&got);
    assert!(!result.is_error, "{ctx}: {result:?}");
    if confirm {
        assert_eq!(resolutions(&got), [pb::ConfirmationResolution::Approved], "{ctx}");
        let Some(pb::tool_result::Rich::DeletedDataset(d)) = &result.rich else { panic!("{ctx}: {result:?}") };
        assert_eq!(d.table_name, format!("trial_{i}"), "{ctx}");
    }
    if i.is_multiple_of(8) {
        // Resuming a completed run at its end: an empty replay, and the stream ends.
        let end = got.len() as u64;
        let tail = stream_run(next_server(), &run_id, end).await;
        assert_eq!(names(&tail), ["replay_started", "replay_finished"], "{ctx}");
        assert!(unframe(&tail, end).is_empty());
    }
    cov
}

/// All `TRIALS` trials over `servers` (replicas of one store, or one server), `IN_FLIGHT` at a
/// time, after the confirmation trials' datasets are uploaded (to each server in turn): what they
/// exercised, summed.
pub(crate) async fn disconnect_trials(servers: &[&TestServer]) -> Coverage {
    let confirm_trials: Vec<usize> = (0..TRIALS).filter(|&i| is_confirmation_trial(i)).collect();
    futures::stream::iter(&confirm_trials)
        .map(|i| {
            let server = servers[i % servers.len()];
            async move { upload_csv(server, None, &format!("trial_{i}.csv"), "id,label\n1,a\n2,b\n").await }
        })
        .buffer_unordered(4)
        .collect::<Vec<_>>()
        .await;
    assert_eq!(tables(servers[0]).await.len(), confirm_trials.len());
    let all: Vec<Coverage> = futures::stream::iter(0..TRIALS)
        .map(|i| disconnect_trial(servers, i))
        .buffer_unordered(IN_FLIGHT)
        .collect()
        .await;
    assert_eq!(all.len(), TRIALS);
    let sum = |f: fn(&Coverage) -> usize| all.iter().map(f).sum::<usize>();
    Coverage {
        connections: sum(|c| c.connections),
        cuts_mid_text: sum(|c| c.cuts_mid_text),
        cuts_awaiting_confirmation: sum(|c| c.cuts_awaiting_confirmation),
        approvals_while_disconnected: sum(|c| c.approvals_while_disconnected),
        chat_resumes: sum(|c| c.chat_resumes),
        stream_run_resumes: sum(|c| c.stream_run_resumes),
    }
}
