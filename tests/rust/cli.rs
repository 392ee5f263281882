#![allow(clippy::unwrap_used)]
//! `aware-client` and the `aware` CLI against the real server: datasets, SQL, runs and scripted
//! chats with confirmations (`--yes` / `--no`), an interactive session under a real
//! pseudo-terminal (prompts, Ctrl-C), conversations (threads, memory, feedback, session grants and
//! approvals with edits), data that carries terminal escapes or spreadsheet formulas, and the
//! client's run stream surviving a server crash mid-run.

use aware_client::{AwareClient, StreamItem, StreamOptions};
use aware_e2e::{TestServer, cli_bin};
use aware_proto::v1 as pb;
use futures::StreamExt;
use serde_json::Value;
use std::io::{Read, Write};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Runs `aware --server URL ARGS…` with `stdin` piped in (never a terminal).
fn aware(server: &TestServer, args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(cli_bin())
        .arg("--server")
        .arg(server.url())
        .args(args)
        .env_remove("AWARECLI_SERVER")
        .env_remove("AWARECLI_TOKEN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {stdout}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn json(out: &Output) -> Value {
    serde_json::from_str(ok(out).trim()).unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn tables(server: &TestServer) -> Vec<String> {
    json(&aware(server, &["--json", "datasets", "list"], ""))
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["table_name"].as_str().unwrap().to_owned())
        .collect()
}

/// Datasets from the terminal: list, upload, preview, profile and delete — a delete asks first
/// and, with no terminal to ask on, does nothing without `--yes`; unknown names get a clear error.
#[test]
fn the_cli_manages_datasets() {
    let server = TestServer::start(&[]);
    let listed = ok(&aware(&server, &["datasets", "list"], ""));
    assert!(listed.contains("barcelona_apartments") && listed.contains("240"), "{listed}");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("Team Scores.csv");
    std::fs::write(&file, "player,score\nana,7\nbo,9\ncy,4\n").unwrap();
    let up = json(&aware(&server, &["--json", "datasets", "upload", file.to_str().unwrap()], ""));
    assert_eq!(
        (up["table_name"].as_str(), up["rows"].as_u64(), up["status"].as_str()),
        (Some("team_scores"), Some(3), Some("ready"))
    );

    let rows = json(&aware(&server, &["--json", "datasets", "preview", "Team Scores.csv", "--limit", "2"], ""));
    assert_eq!(rows, serde_json::json!([{"player": "ana", "score": 7}, {"player": "bo", "score": 9}]));
    let text = ok(&aware(&server, &["datasets", "preview", "team_scores"], ""));
    assert!(text.contains("player") && text.contains("cy") && text.contains("(3 rows)"), "{text}");

    let stats = json(&aware(&server, &["--json", "datasets", "stats", "team_scores"], ""));
    let score = stats["columns"].as_array().unwrap().iter().find(|c| c["name"] == "score").unwrap();
    assert_eq!((score["min"].as_i64(), score["max"].as_i64()), (Some(4), Some(9)));

    let refused = aware(&server, &["datasets", "delete", "team_scores"], "y\n");
    assert!(!refused.status.success() && stderr(&refused).contains("not deleted"), "{}", stderr(&refused));
    assert!(tables(&server).contains(&"team_scores".to_owned()), "nothing deleted without --yes");
    ok(&aware(&server, &["datasets", "delete", "team_scores", "--yes"], ""));
    assert!(!tables(&server).contains(&"team_scores".to_owned()));

    let missing = aware(&server, &["datasets", "stats", "nope"], "");
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no dataset named \"nope\"; you have: "), "{}", stderr(&missing));
}

/// A Markdown handbook uploaded from the terminal is a document; asked what it says, the chat
/// prints the quoted answer and its sources (the cited passages with their place), and says when
/// no source was used.
#[test]
fn the_cli_uploads_a_document_and_prints_an_answers_sources() {
    let server = TestServer::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("handbook.md");
    std::fs::write(&file, "# Acme Handbook\n\n## Refunds\n\nRefunds are issued within 14 days of a return.\n").unwrap();
    let up = ok(&aware(&server, &["datasets", "upload", file.to_str().unwrap()], ""));
    assert!(up.contains("→ document handbook") && up.contains("handbook::NNN"), "{up}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let answer = loop {
        let out = ok(&aware(&server, &["chat", "what does the handbook say about refunds?"], ""));
        // The passages are indexed in the background, just after the upload.
        if !out.contains("No sources were used") || std::time::Instant::now() > deadline {
            break out;
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert!(answer.contains("“Refunds are issued within 14 days of a return.” [handbook::"), "{answer}");
    let sources = answer.split("Sources:").nth(1).unwrap_or_else(|| panic!("a Sources list:\n{answer}"));
    assert!(sources.contains("[handbook::") && sources.contains("Acme Handbook › Refunds"), "{answer}");
    let none = ok(&aware(&server, &["chat", "what does the handbook say about parental leave?"], ""));
    assert!(
        none.contains("I lack sufficient evidence") && none.contains("No sources were used for this answer."),
        "{none}"
    );
}

/// SQL from the terminal returns the true answer; hostile SQL is refused with its reason.
#[test]
fn the_cli_runs_sql() {
    let server = TestServer::start(&[]);
    let out = json(&aware(
        &server,
        &["--json", "sql", "SELECT count(*) AS n, max(price_eur) AS top FROM barcelona_apartments"],
        "",
    ));
    assert_eq!(out["rows"][0]["n"].as_i64(), Some(240));
    assert!(out["run_id"].as_str().unwrap().starts_with("run_"));
    let text =
        ok(&aware(&server, &["sql", "SELECT plan, count(*) AS n FROM customer_churn GROUP BY 1 ORDER BY 1"], ""));
    assert!(text.lines().count() >= 4 && text.contains("plan"), "{text}");
    let hostile = aware(&server, &["sql", "SELECT * FROM read_csv('/etc/passwd')"], "");
    assert_eq!(hostile.status.code(), Some(2));
    assert!(stderr(&hostile).contains("read_csv"), "{}", stderr(&hostile));
}

/// A query over the server's cost limit: without a terminal it is not run and the CLI says what
/// it would read and how to run it; `--heavy` runs it; on a terminal "y" runs it and the table
/// follows.
#[test]
fn the_cli_asks_before_a_query_over_the_cost_limit() {
    let server = TestServer::start_with_env(&[], &[("AWARE_SANDBOX__CONFIRM_SCAN_ROWS", "300")]);
    let sql = "SELECT plan, count(*) AS n FROM customer_churn GROUP BY plan ORDER BY plan";
    let refused = aware(&server, &["sql", sql], "");
    assert_eq!(refused.status.code(), Some(1), "{}", stderr(&refused));
    let said = stderr(&refused);
    assert!(said.contains("would read about 500 rows") && said.contains("pass --heavy"), "{said}");
    assert!(refused.stdout.is_empty(), "nothing ran, nothing printed");
    let ran = ok(&aware(&server, &["sql", "--heavy", sql], ""));
    assert!(ran.contains("plan") && ran.lines().count() >= 4, "{ran}");

    let mut term = Terminal::start(&server, &["sql", sql]);
    term.wait_for("Run it anyway? [y/N]", 1, "the cost question");
    term.type_keys("y\r");
    let status = term.wait_exit();
    assert!(status.success(), "{status:?}");
    let screen = term.text();
    assert!(screen.contains("about 500 rows") && screen.lines().count() >= 5, "the table after yes:\n{screen}");
}

/// A scripted chat: answers stream to stdout, tool activity to stderr; `--no` denies the delete
/// (nothing happens), `--yes` approves it; without either and without a terminal, it is denied.
/// Several lines on stdin are one conversation; `runs show` and `runs events` explain a run.
#[test]
fn the_cli_chats_and_answers_confirmations() {
    let server = TestServer::start(&[]);
    let files = aware(&server, &["chat", "what are my files?"], "");
    let out = ok(&files);
    assert!(out.contains("barcelona_apartments") && out.contains("240 rows"), "{out}");
    assert!(stderr(&files).contains("✓ list_datasets"), "{}", stderr(&files));

    let denied = aware(&server, &["chat", "--no", "delete the customer churn dataset"], "");
    ok(&denied);
    assert!(stderr(&denied).contains("CAUTION") && stderr(&denied).contains("→ denied"), "{}", stderr(&denied));
    let unasked = aware(&server, &["chat", "delete the customer churn dataset"], "y\n");
    assert!(stderr(&unasked).contains("treated as no"), "{}", stderr(&unasked));
    assert!(tables(&server).contains(&"customer_churn".to_owned()), "denied twice: still there");
    ok(&aware(&server, &["chat", "--yes", "delete the customer churn dataset"], ""));
    assert!(!tables(&server).contains(&"customer_churn".to_owned()), "approved: gone");

    let session = ok(&aware(&server, &["chat"], "what are my files?\nsystem status\n"));
    assert!(session.contains("support_tickets") && session.contains("mode local"), "{session}");

    let events = ok(&aware(&server, &["--json", "chat", "average price by neighbourhood"], ""));
    let first: Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    let run_id = first["run_id"].as_str().unwrap();
    assert_eq!(first["kind"], "run_started");
    let shown = json(&aware(&server, &["--json", "runs", "show", run_id], ""));
    assert_eq!(shown["question"], "average price by neighbourhood");
    assert!(shown["compiled_sql"].as_str().unwrap().to_lowercase().contains("avg("), "{shown}");
    let log = ok(&aware(&server, &["runs", "events", run_id], ""));
    assert_eq!(log.lines().count(), events.lines().count(), "the log is what the chat streamed");
    // The same answer in text: the table, then the server's bar chart as text bars, largest first.
    let answer = ok(&aware(&server, &["chat", "average price by neighbourhood"], ""));
    let bars: Vec<&str> = answer.lines().filter(|l| l.contains('█')).collect();
    assert_eq!(bars.len(), 8, "a bar per neighbourhood:\n{answer}");
    assert!(bars[0].contains("Sarrià-Sant Gervasi"), "largest first:\n{answer}");
    // `runs rerun`: the run's queries again, on unchanged data.
    let rerun = ok(&aware(&server, &["runs", "rerun", run_id], ""));
    assert!(rerun.contains("unchanged: the same result"), "{rerun}");
    // The audit log tells the assistant's delete from a person's.
    ok(&aware(&server, &["datasets", "delete", "support_tickets", "--yes"], ""));
    let deletes = json(&aware(&server, &["--json", "audit", "--action", "dataset.delete"], ""));
    let sources: Vec<_> = deletes.as_array().unwrap().iter().map(|e| e["source"].as_str().unwrap()).collect();
    assert_eq!(sources, ["cli", "ai_assistant"], "newest first: {deletes}");
    let text = ok(&aware(&server, &["audit", "--source", "ai_assistant", "--action", "dataset."], ""));
    assert!(text.contains("dataset.delete") && !text.contains(" cli "), "{text}");
}

/// The CLI on a real terminal: a pseudo-terminal whose other side is the child's stdin, stdout,
/// stderr and controlling terminal (through `setsid --ctty`), so what is typed here reaches it
/// as typed in a shell — Ctrl-C included, which the terminal turns into SIGINT.
struct Terminal {
    master: std::fs::File,
    /// Everything the child wrote, gathered by a reader thread.
    screen: Arc<Mutex<Vec<u8>>>,
    child: Child,
}

/// How long one step may take before the CLI counts as stuck. Generous: this checks that the
/// session goes on at all (the old CLI froze for good), not how fast.
const STUCK: Duration = Duration::from_secs(60);

impl Terminal {
    fn start(server: &TestServer, args: &[&str]) -> Self {
        use rustix::pty::{OpenptFlags, grantpt, openpt, ptsname, unlockpt};
        let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
        grantpt(&master).unwrap();
        unlockpt(&master).unwrap();
        let name = ptsname(&master, Vec::new()).unwrap();
        let child = {
            let side = std::fs::OpenOptions::new().read(true).write(true).open(name.to_str().unwrap()).unwrap();
            Command::new("setsid")
                .arg("--ctty")
                .arg(cli_bin())
                .arg("--server")
                .arg(server.url())
                .args(args)
                .env_remove("AWARECLI_SERVER")
                .env_remove("AWARECLI_TOKEN")
                .env("TERM", "dumb")
                .stdin(side.try_clone().unwrap())
                .stdout(side.try_clone().unwrap())
                .stderr(side)
                .spawn()
                .unwrap()
        };
        let master = std::fs::File::from(master);
        let mut reader = master.try_clone().unwrap();
        let screen = Arc::new(Mutex::new(Vec::new()));
        let sink = screen.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // Ends with EIO once the child and every other holder of the terminal are gone.
            while let Ok(n @ 1..) = reader.read(&mut buf) {
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Self { master, screen, child }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.screen.lock().unwrap()).into_owned()
    }

    fn type_keys(&mut self, keys: &str) {
        self.master.write_all(keys.as_bytes()).unwrap();
    }

    /// Waits until `text` has been shown `n` times in all; a CLI that stops answering fails here.
    fn wait_for(&mut self, text: &str, n: usize, step: &str) {
        let deadline = Instant::now() + STUCK;
        while self.text().matches(text).count() < n {
            if Instant::now() > deadline || self.child.try_wait().unwrap().is_some() {
                let _ = self.child.kill();
                panic!(
                    "the CLI is stuck or gone ({step}): {text:?} was not shown {n} times; the screen:\n{}",
                    self.text()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + STUCK;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the CLI did not leave; the screen:\n{}", self.text());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `aware chat` in a terminal: at a delete's Approve/Deny prompt, "n" denies and the session goes
/// on, Ctrl-C cancels the run and the session goes on, "y" deletes; the CAUTION line shows once
/// per prompt; Ctrl-C at the `you>` prompt leaves. (The old CLI froze at the first answer: its
/// session loop held the stdin lock the prompt needed, and Ctrl-C did nothing.)
#[test]
fn the_interactive_chat_answers_confirmations_on_a_real_terminal() {
    let server = TestServer::start(&[]);
    let mut term = Terminal::start(&server, &["chat"]);
    term.wait_for("you> ", 1, "the first prompt");

    term.type_keys("delete the support tickets dataset\r");
    term.wait_for("Approve? [y/N]", 1, "the first confirmation");
    term.type_keys("n\r");
    term.wait_for("→ denied", 1, "answering no");
    term.wait_for("you> ", 2, "the prompt after a denied delete");
    assert!(tables(&server).contains(&"support_tickets".to_owned()), "denied: still there");

    term.type_keys("delete the support tickets dataset\r");
    term.wait_for("Approve? [y/N]", 2, "the second confirmation");
    term.type_keys("\x03");
    term.wait_for("(cancelling…)", 1, "Ctrl-C at the confirmation");
    term.wait_for("you> ", 3, "the prompt after a cancelled run");
    assert!(tables(&server).contains(&"support_tickets".to_owned()), "cancelled: still there");

    term.type_keys("delete the support tickets dataset\r");
    term.wait_for("Approve? [y/N]", 3, "the third confirmation");
    term.type_keys("y\r");
    term.wait_for("→ approved", 1, "answering yes");
    term.wait_for("you> ", 4, "the prompt after the delete");
    assert!(!tables(&server).contains(&"support_tickets".to_owned()), "approved: gone");

    // A question back: the options numbered with their figures; "1!" picks the first and keeps it.
    term.type_keys("what is the average charges?\r");
    term.wait_for("Choose 1–2", 1, "the clarification");
    term.type_keys("1!\r");
    term.wait_for("→ monthly_charges (kept as a rule)", 1, "the choice");
    term.wait_for("you> ", 5, "the prompt after the clarified answer");

    term.type_keys("\x03");
    let status = term.wait_exit();
    assert!(status.success(), "Ctrl-C at the prompt leaves cleanly: {status:?}");
    let screen = term.text();
    assert!(screen.contains("1. monthly_charges (DOUBLE)"), "the options with their figures:\n{screen}");
    assert!(screen.contains("monthly charges"), "answered with the chosen column:\n{screen}");
    assert_eq!(screen.matches("CAUTION").count(), 3, "once per prompt:\n{screen}");
    assert!(screen.contains("(run cancelled"), "the cancelled run says so:\n{screen}");
}

/// Conversations from the terminal: a chat's thread is listed with its first message as title,
/// shows as its turns, can be renamed, forked at its second message (the fork holds only the
/// first turn, and the message comes back to edit), and deleted — not without a yes, and the
/// fork lives on without the original.
#[test]
fn the_cli_lists_shows_renames_forks_and_deletes_conversations() {
    let server = TestServer::start(&[]);
    assert!(ok(&aware(&server, &["threads", "list"], "")).contains("No conversations yet"));
    // A run that finished without understanding the question says so, and is found by it.
    let weather = aware(&server, &["chat", "what's the weather in Paris tomorrow?"], "");
    assert!(String::from_utf8_lossy(&weather.stderr).contains("(run not understood)"), "{weather:?}");
    let listed = ok(&aware(&server, &["runs", "list", "--outcome", "not-understood"], ""));
    assert!(listed.contains("not understood") && listed.contains("weather in Paris"), "{listed}");
    assert!(ok(&aware(&server, &["runs", "list", "--outcome", "denied"], "")).contains("No runs with that outcome"));
    let deleted = json(&aware(&server, &["--json", "threads", "list"], ""));
    let weather_thread = deleted[0]["thread_id"].as_str().unwrap().to_owned();
    assert_eq!(deleted[0]["last_run_outcome"], "not understood");
    ok(&aware(&server, &["threads", "delete", "--yes", &weather_thread], ""));
    ok(&aware(&server, &["chat", "what are my files?"], ""));
    let listed = json(&aware(&server, &["--json", "threads", "list"], ""));
    assert_eq!((listed[0]["title"].as_str(), listed[0]["run_count"].as_u64()), (Some("what are my files?"), Some(1)));
    let thread = listed[0]["thread_id"].as_str().unwrap().to_owned();
    ok(&aware(&server, &["chat", "--thread", &thread, "average price by neighbourhood"], ""));

    let shown = json(&aware(&server, &["--json", "threads", "show", &thread], ""));
    let turns = shown["turns"].as_array().unwrap();
    let asked: Vec<_> = turns.iter().map(|t| t["user_text"].as_str().unwrap()).collect();
    assert_eq!(asked, ["what are my files?", "average price by neighbourhood"]);
    assert!(turns.iter().all(|t| t["status"] == "succeeded" && !t["assistant_text"].as_str().unwrap().is_empty()));
    assert!(turns.iter().all(|t| t["outcome"] == "answered"), "each turn says what it came to: {shown}");
    assert_eq!(turns[0]["results"][0]["tool"], "list_datasets", "{shown}");
    let text = ok(&aware(&server, &["threads", "show", &thread], ""));
    assert!(
        text.contains("you>   what are my files?") && text.contains("✓ list_datasets") && text.contains("aware> "),
        "{text}"
    );

    let renamed = json(&aware(&server, &["--json", "threads", "rename", &thread, "Apartment prices"], ""));
    assert_eq!(renamed["title"], "Apartment prices");
    let second = turns[1]["run_id"].as_str().unwrap();
    let forked = json(&aware(&server, &["--json", "threads", "fork", second], ""));
    assert_eq!(forked["user_text"], "average price by neighbourhood", "the message to edit");
    assert_eq!(
        (forked["thread"]["run_count"].as_u64(), forked["thread"]["forked_from_thread_id"].as_str()),
        (Some(1), Some(thread.as_str()))
    );
    let fork = forked["thread"]["thread_id"].as_str().unwrap().to_owned();
    let listing = ok(&aware(&server, &["threads", "list"], ""));
    assert!(listing.contains("Apartment prices") && listing.contains(&format!("edited from {thread}")), "{listing}");

    let refused = aware(&server, &["threads", "delete", &thread], "y\n");
    assert!(!refused.status.success() && stderr(&refused).contains("not deleted"), "{}", stderr(&refused));
    assert_eq!(json(&aware(&server, &["--json", "threads", "list"], "")).as_array().unwrap().len(), 2);
    let deleted = json(&aware(&server, &["--json", "threads", "delete", &thread, "--yes"], ""));
    assert_eq!(deleted["runs_deleted"], 2);
    let left = json(&aware(&server, &["--json", "threads", "list"], ""));
    assert_eq!(left.as_array().unwrap().len(), 1);
    let kept = json(&aware(&server, &["--json", "threads", "show", &fork], ""));
    assert_eq!(kept["turns"][0]["user_text"], "what are my files?", "the fork does not need the original");
    let gone = aware(&server, &["threads", "show", &thread], "");
    assert_eq!(gone.status.code(), Some(2));
    assert!(stderr(&gone).contains("NotFound"), "{}", stderr(&gone));
}

/// Memory and feedback from the terminal: "remember that …" in a chat is stored and said so;
/// `memory add` and `memory forget` manage the facts; a rating shows in `runs show`, and a
/// second replaces the first.
#[test]
fn the_cli_remembers_forgets_and_rates_answers() {
    let server = TestServer::start(&[]);
    assert!(ok(&aware(&server, &["memory", "list"], "")).contains("Nothing remembered"));
    let said = aware(&server, &["chat", "remember that our fiscal year starts in April"], "");
    ok(&said);
    assert!(stderr(&said).contains("★ remembered: our fiscal year starts in April"), "{}", stderr(&said));
    let added = json(&aware(&server, &["--json", "memory", "add", "revenue is reported in EUR"], ""));
    let listed = json(&aware(&server, &["--json", "memory", "list"], ""));
    let mut texts: Vec<_> = listed.as_array().unwrap().iter().map(|m| m["text"].as_str().unwrap()).collect();
    texts.sort_unstable();
    assert_eq!(texts, ["our fiscal year starts in April", "revenue is reported in EUR"]);
    let from_chat = listed.as_array().unwrap().iter().find(|m| m["text"] == "our fiscal year starts in April").unwrap();
    assert!(from_chat["source_run_id"].as_str().unwrap().starts_with("run_"), "{from_chat}");
    let id = added["memory_id"].as_str().unwrap();
    assert!(ok(&aware(&server, &["memory", "list"], "")).contains("added by you"));
    ok(&aware(&server, &["memory", "forget", id], ""));
    let left = json(&aware(&server, &["--json", "memory", "list"], ""));
    assert_eq!(left.as_array().unwrap().len(), 1);
    assert_eq!(left[0]["text"], "our fiscal year starts in April");
    let again = aware(&server, &["memory", "forget", id], "");
    assert!(!again.status.success() && stderr(&again).contains("NotFound"), "{}", stderr(&again));

    let events = ok(&aware(&server, &["--json", "chat", "what are my files?"], ""));
    let first: Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    let run_id = first["run_id"].as_str().unwrap();
    let down = json(&aware(&server, &["--json", "feedback", run_id, "down", "missed the new file"], ""));
    assert_eq!(down["feedback"], serde_json::json!({"rating": "down", "reason": "missed the new file"}));
    let shown = ok(&aware(&server, &["runs", "show", run_id], ""));
    assert!(shown.contains("feedback  👎: missed the new file"), "{shown}");
    ok(&aware(&server, &["feedback", run_id, "up"], ""));
    let run = json(&aware(&server, &["--json", "runs", "show", run_id], ""));
    assert_eq!(run["feedback"], serde_json::json!({"rating": "up", "reason": ""}), "the second replaces the first");
    let sideways = aware(&server, &["feedback", run_id, "sideways"], "");
    assert!(!sideways.status.success() && stderr(&sideways).contains("invalid value"), "{}", stderr(&sideways));
}

/// Session grants and approvals with edits from the terminal: an import card approved with
/// `approvals approve --for 5 --edit` imports only the kept file and lets the next import from
/// the same folder through without asking; after `grants revoke` it asks again, and answering
/// "a" at the prompt allows it for five minutes. An ELEVATED delete cannot be allowed for a while.
#[test]
fn the_cli_allows_imports_for_a_while_and_approves_narrowed_lists() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [("sales_q1.csv", "region,amount\nnorth,120\n"), ("sales_q2.csv", "region,amount\nwest,60\n")] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let root = format!("downloads={}", dir.path().display());
    let server = TestServer::start(&["--files-root", &root]);
    let mut term = Terminal::start(&server, &["chat"]);
    term.wait_for("you> ", 1, "the first prompt");
    term.type_keys("what CSV files are in my downloads?\r");
    term.wait_for("you> ", 2, "the listing");
    term.type_keys("import those\r");
    term.wait_for("Approve? [y/N, or a: yes, and allow for 5 minutes]", 1, "the import card");

    let pending = json(&aware(&server, &["--json", "approvals", "list"], ""));
    let id = pending[0]["confirmation_id"].as_str().unwrap();
    let widened = r#"{"root":"downloads","paths":["sales_q1.csv","sales_q2.csv","secret.csv"]}"#;
    let refused = aware(&server, &["approvals", "approve", id, "--for", "5", "--edit", widened], "");
    assert!(!refused.status.success() && stderr(&refused).contains("InvalidArgument"), "{}", stderr(&refused));
    let kept = r#"{"root":"downloads","paths":["sales_q1.csv"]}"#;
    let approved = json(&aware(&server, &["--json", "approvals", "approve", id, "--for", "5", "--edit", kept], ""));
    assert!(approved["grant_id"].as_str().unwrap().starts_with("gr_"), "{approved}");
    term.wait_for("(no longer waiting for an answer: approved)", 1, "approved elsewhere");
    term.wait_for("you> ", 3, "the import");
    let imported = tables(&server);
    assert!(imported.contains(&"sales_q1".to_owned()) && !imported.contains(&"sales_q2".to_owned()), "{imported:?}");

    let grants = json(&aware(&server, &["--json", "grants", "list"], ""));
    assert_eq!(
        (grants[0]["tool"].as_str(), grants[0]["resource_class"].as_str()),
        (Some("import_files"), Some("files:downloads"))
    );
    // Another conversation, the same folder: no question.
    ok(&aware(&server, &["chat", "what CSV files are in my downloads?"], ""));
    let other = json(&aware(&server, &["--json", "threads", "list"], ""))[0]["thread_id"].as_str().unwrap().to_owned();
    let unasked = aware(&server, &["chat", "--thread", &other, "import those"], "");
    ok(&unasked);
    assert!(stderr(&unasked).contains("(allowed without asking by your session grant gr_"), "{}", stderr(&unasked));
    assert!(
        !stderr(&unasked).contains("Approve?") && !stderr(&unasked).contains("treated as no"),
        "{}",
        stderr(&unasked)
    );
    let grant = grants[0]["grant_id"].as_str().unwrap();
    assert!(ok(&aware(&server, &["grants", "revoke", grant], "")).contains("asks again"));
    assert!(ok(&aware(&server, &["grants", "list"], "")).contains("no session grants"));

    term.type_keys("import those\r");
    term.wait_for("Approve? [y/N, or a: yes, and allow for 5 minutes]", 2, "asked again after the revoke");
    term.type_keys("a\r");
    term.wait_for("→ approved, and allowed without asking for 5 minutes (grant gr_", 1, "allowed for a while");
    term.wait_for("you> ", 4, "the second import");
    assert_eq!(json(&aware(&server, &["--json", "grants", "list"], "")).as_array().unwrap().len(), 1);
    term.type_keys("\x03");
    assert!(term.wait_exit().success());

    // An ELEVATED card offers no "a", and a session scope for it is refused.
    let mut term = Terminal::start(&server, &["chat"]);
    term.type_keys("delete the sales_q1 dataset\r");
    term.wait_for("Approve? [y/N]", 1, "the delete card");
    assert!(!term.text().contains("allow for 5 minutes"), "{}", term.text());
    let pending = json(&aware(&server, &["--json", "approvals", "list"], ""));
    let id = pending[0]["confirmation_id"].as_str().unwrap();
    let refused = aware(&server, &["approvals", "approve", id, "--for", "5"], "");
    assert!(!refused.status.success(), "{}", stderr(&refused));
    assert!(tables(&server).contains(&"sales_q1".to_owned()), "a refused approval deletes nothing");
}

/// Admin from the terminal: a user and a key (its token printed once, then only its prefix), a
/// role change, a revoked key refused on its next call; a non-admin is refused; the audit log
/// shows each change as the CLI's.
#[test]
fn the_cli_manages_users_and_keys() {
    let server = TestServer::start(&["--auth", "api-key", "--no-samples"]);
    let root = aware_e2e::add_user(&server.data_dir, "root", "admin", &[]);
    let as_root = |args: &[&str]| aware(&server, &[&["--token", root.as_str()], args].concat(), "");
    let cy = json(&as_root(&["--json", "admin", "users", "add", "cy", "--role", "viewer"]));
    let cy_id = cy["user_id"].as_str().unwrap();
    assert_eq!(cy["role"], "viewer");
    let again = as_root(&["admin", "users", "add", "CY", "--role", "viewer"]);
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(!again.status.success() && said.contains("a user named “cy” exists already"), "{said}");
    let made = json(&as_root(&["--json", "admin", "keys", "create", cy_id]));
    let token = made["token"].as_str().unwrap();
    let prefix = made["key"]["prefix"].as_str().unwrap();
    assert!(token.starts_with(prefix));
    let listed = ok(&as_root(&["admin", "keys", "list", "--user", cy_id]));
    assert!(listed.contains(&format!("{prefix}…")) && !listed.contains(token), "{listed}");
    assert!(ok(&as_root(&["admin", "users", "role", cy_id, "analyst"])).contains("cy  analyst"));
    assert!(ok(&as_root(&["admin", "users", "list"])).contains("root  admin"));

    let as_cy = |args: &[&str]| aware(&server, &[&["--token", token], args].concat(), "");
    ok(&as_cy(&["datasets", "list"]));
    let refused = as_cy(&["admin", "users", "list"]);
    assert!(!refused.status.success() && stderr(&refused).contains("PermissionDenied"), "{}", stderr(&refused));
    ok(&as_root(&["admin", "keys", "revoke", made["key"]["key_id"].as_str().unwrap()]));
    let gone = as_cy(&["datasets", "list"]);
    assert!(!gone.status.success() && stderr(&gone).contains("Unauthenticated"), "{}", stderr(&gone));

    let trail = json(&as_root(&["--json", "audit", "--source", "cli"]));
    let mut actions: Vec<_> = trail.as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    actions.reverse();
    assert_eq!(actions, ["user.create", "api_key.create", "user.role", "api_key.revoke"]);
}

/// Curation from the terminal: rename (a saved query follows), describe with units, save a
/// result as a dataset with its lineage, verified queries listed and deleted, a refresh from the
/// approved folder the dataset came from — each audited as the CLI's; a bad value is refused
/// with the server's reason.
#[test]
fn the_cli_curates_datasets_and_verified_queries() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("visits.csv"), "city,visits\nBarcelona,3\n").unwrap();
    let root = format!("inbox={}", tmp.path().display());
    let server = TestServer::start(&["--files-root", &root]);
    let run = |args: &[&str]| aware(&server, args, "");

    let saved = json(&run(&[
        "--json",
        "queries",
        "save",
        "churned customers",
        "SELECT count(*) AS n FROM customer_churn WHERE churned",
        "--question",
        "how many customers churned?",
    ]));
    assert_eq!(
        (saved["name"].as_str(), saved["question"].as_str()),
        (Some("churned customers"), Some("how many customers churned?"))
    );
    let renamed = ok(&run(&["datasets", "rename", "customer_churn", "churn_2026", "--display-name", "Churn 2026"]));
    assert!(renamed.contains("Renamed customer_churn to churn_2026"), "{renamed}");
    let listed = ok(&run(&["queries", "list"]));
    assert!(
        listed.contains("“churned customers” answers “how many customers churned?”") && listed.contains("churn_2026"),
        "{listed}"
    );

    let described = ok(&run(&[
        "datasets",
        "describe",
        "barcelona_apartments",
        "--description",
        "Flats for sale",
        "--column",
        "price_eur=the asking price",
        "--unit",
        "price_eur=EUR",
    ]));
    assert!(
        described.contains("Flats for sale") && described.contains("price_eur [EUR]: the asking price"),
        "{described}"
    );
    let bad = run(&["datasets", "describe", "barcelona_apartments", "--column", "price_eur"]);
    assert!(!bad.status.success() && stderr(&bad).contains("--column takes COLUMN=VALUE"), "{}", stderr(&bad));
    let bad = run(&["datasets", "rename", "churn_2026", "Not A Name"]);
    assert!(!bad.status.success() && stderr(&bad).contains("InvalidArgument"), "{}", stderr(&bad));

    let made = json(&run(&[
        "--json",
        "datasets",
        "materialize",
        "churn_by_plan",
        "SELECT plan, count(*) AS n FROM churn_2026 GROUP BY plan",
    ]));
    assert_eq!(made["format"], "derived", "{made}");
    let shown = ok(&run(&["datasets", "materialize", "churn_total", "SELECT count(*) AS n FROM churn_2026"]));
    assert!(shown.contains("computed from churn_2026@") && shown.contains("count(*)"), "{shown}");
    let total = json(&run(&["--json", "sql", "SELECT n FROM churn_total"]));
    assert_eq!(total["rows"], serde_json::json!([{"n": 500}]));

    ok(&run(&["datasets", "upload", tmp.path().join("visits.csv").to_str().unwrap()]));
    let refused = run(&["datasets", "refresh", "visits"]);
    assert!(!refused.status.success() && stderr(&refused).contains("was uploaded"), "{}", stderr(&refused));
    let report = tokio::runtime::Runtime::new().unwrap().block_on(async {
        let req = pb::ImportFilesRequest { root: "inbox".into(), paths: vec!["visits.csv".into()] };
        server.client(None).await.files().import_files(req).await.unwrap().into_inner().report.unwrap()
    });
    let imported = report.files[0].dataset.clone().unwrap().table_name;
    let same = ok(&run(&["datasets", "refresh", &imported]));
    assert!(same.contains("is unchanged"), "{same}");
    std::fs::write(tmp.path().join("visits.csv"), "city,visits\nBarcelona,3\nGirona,5\n").unwrap();
    let fresh = ok(&run(&["datasets", "refresh", &imported]));
    assert!(fresh.contains("1 rows before, 2 now"), "{fresh}");

    let deleted = ok(&run(&["queries", "delete", "churned customers"]));
    assert!(deleted.starts_with("Deleted"), "{deleted}");
    assert!(ok(&run(&["queries", "list"])).contains("No verified queries yet"));

    let trail = json(&run(&["--json", "audit", "--source", "cli"]));
    let mut actions: Vec<_> = trail.as_array().unwrap().iter().map(|e| e["action"].as_str().unwrap()).collect();
    actions.reverse();
    actions.retain(|a| *a != "dataset.upload");
    assert_eq!(
        actions,
        [
            "saved_query.create",
            "dataset.rename",
            "dataset.describe",
            "dataset.materialize",
            "dataset.materialize",
            "dataset.refresh",
            "dataset.refresh",
            "dataset.refresh",
            "saved_query.delete",
        ]
    );
}

/// Data is shown, never obeyed: cells and column names carrying ESC sequences, BEL or CR print
/// escaped; CSV output neutralises spreadsheet formulas; a `.parquet` file that is not Parquet is
/// refused with the reason, which `datasets list` shows; `--help` reads cleanly.
#[test]
fn the_cli_escapes_hostile_data_and_exports_safe_csv() {
    let server = TestServer::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("hostile.csv");
    std::fs::write(
        &file,
        "note\x1b[8m,formula\n\"\x1b]0;owned\x07title\x1b[2J\",\"=HYPERLINK(\"\"http://evil\"\")\"\n\"bell\x07 and\rreturn\",+cmd|' /C calc'!A0\n",
    )
    .unwrap();
    ok(&aware(&server, &["datasets", "upload", file.to_str().unwrap()], ""));
    let shown = ok(&aware(&server, &["datasets", "preview", "hostile"], ""));
    assert!(!shown.contains('\x1b') && !shown.contains('\x07') && !shown.contains('\r'), "{shown:?}");
    assert!(shown.contains("note\\u{1b}[8m") && shown.contains("\\u{1b}]0;owned\\u{7}title"), "{shown}");
    let sql = ok(&aware(&server, &["sql", "SELECT * FROM hostile"], ""));
    assert!(!sql.contains('\x1b') && sql.contains("\\u{1b}[2J"), "{sql:?}");

    let csv = ok(&aware(&server, &["--csv", "sql", "SELECT formula FROM hostile ORDER BY 1"], ""));
    assert_eq!(csv, "formula\r\n\"'+cmd|' /C calc'!A0\"\r\n\"'=HYPERLINK(\"\"http://evil\"\")\"\r\n");
    let numbers = ok(&aware(&server, &["--csv", "sql", "SELECT -5 AS n, 'x' AS t"], ""));
    assert_eq!(numbers, "n,t\r\n-5,x\r\n", "numbers are not formulas");

    let fake = dir.path().join("prices.parquet");
    std::fs::write(&fake, "city,price\nGirona,3\n").unwrap();
    let refused = aware(&server, &["datasets", "upload", fake.to_str().unwrap()], "");
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("This is not a Parquet file"), "{}", stderr(&refused));
    let listed = ok(&aware(&server, &["datasets", "list"], ""));
    assert!(listed.contains("failed") && listed.contains("✗ prices.parquet: This is not a Parquet file"), "{listed}");
    let listed = json(&aware(&server, &["--json", "datasets", "list"], ""));
    let entry = listed.as_array().unwrap().iter().find(|d| d["name"] == "prices.parquet").unwrap();
    assert_eq!(entry["status"], "failed");
    assert!(entry["error"].as_str().unwrap().contains("looks like CSV text"), "{entry}");

    let help = ok(&aware(&server, &["--help"], ""));
    assert!(help.contains("[env: AWARECLI_SERVER]") && !help.contains("AWARECLI_SERVER="), "{help}");
    let help = ok(&aware(&server, &["datasets", "--help"], ""));
    let list = help.lines().find(|l| l.trim_start().starts_with("list")).unwrap();
    assert!(list.trim_start().trim_start_matches("list").trim().len() > 10, "`list` has a description: {help}");
}

/// `AwareClient::run_stream` follows a run through a server crash: it reconnects to the restarted
/// server, resumes after the last seq it delivered, and ends with the server's whole log, each
/// event exactly once.
#[tokio::test]
async fn the_rust_clients_run_stream_survives_a_server_crash() {
    let env = [("AWARE_AGENT__TOOL_DELAY_MS", "1500")];
    let mut server = TestServer::start_with_env(&[], &env);
    let addr = server.addr.to_string();
    let client = AwareClient::connect(&server.url(), None, "api").await.unwrap();
    let sent = client.send_message("", "what are my files?", "").await.unwrap();
    let options = StreamOptions { initial_backoff: Duration::from_millis(200), max_attempts: 30, ..Default::default() };
    let mut stream = client.run_stream(&sent.run_id, options);
    let mut events = Vec::new();
    let mut reconnects = 0;
    while let Some(item) = tokio::time::timeout(Duration::from_secs(60), stream.next()).await.unwrap() {
        match item.unwrap() {
            StreamItem::Event(e) => {
                let tool_started = matches!(e.payload, Some(pb::server_event::Payload::ToolCallStarted(_)));
                events.push(e);
                if tool_started && reconnects == 0 {
                    server.kill9(); // mid-tool
                    server.restart_on(&addr, &[], &env);
                }
            }
            StreamItem::Reconnecting { .. } => reconnects += 1,
            StreamItem::Heartbeat(_) => {}
        }
    }
    assert!(reconnects >= 1, "the crash was noticed");
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "every seq once, in order");
    assert!(matches!(events.last().unwrap().payload, Some(pb::server_event::Payload::RunCompleted(_))));
    let log = client
        .runs()
        .list_run_events(pb::ListRunEventsRequest { run_id: sent.run_id.clone(), after_seq: 0, limit: 0 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(events, log.events, "exactly the server's log");
}
