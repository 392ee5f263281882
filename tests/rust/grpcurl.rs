//! The grpcurl suite: grpcurl 1.8.6 (installed by `scripts/install-tools`) drives the real server
//! through server reflection only — no .proto files — as an operator would. It also runs the
//! README's grpcurl examples verbatim, so the docs stay true.

#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report

use aware_e2e::{TestServer, add_user, workspace_root};
use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn grpcurl_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("AWARE_GRPCURL") {
        return PathBuf::from(p);
    }
    let local = workspace_root().join(".tools/bin/grpcurl");
    assert!(local.exists(), "grpcurl is not installed: run scripts/install-tools (scripts/test does)");
    local
}

struct Grpcurl {
    addr: String,
    headers: Vec<String>,
}

impl Grpcurl {
    fn new(server: &TestServer) -> Self {
        Self { addr: server.addr.to_string(), headers: Vec::new() }
    }

    fn with_token(server: &TestServer, token: &str) -> Self {
        Self { addr: server.addr.to_string(), headers: vec![format!("authorization: Bearer {token}")] }
    }

    fn raw(&self, args: &[&str], data: Option<&str>) -> Output {
        let mut cmd = Command::new(grpcurl_bin());
        cmd.arg("-plaintext").args(["-max-time", "60"]);
        for h in &self.headers {
            cmd.args(["-H", h]);
        }
        if let Some(d) = data {
            cmd.args(["-d", d]);
        }
        cmd.arg(&self.addr).args(args);
        cmd.output().expect("run grpcurl")
    }

    /// Calls a method and parses the JSON reply; panics on failure.
    fn call(&self, method: &str, data: &str) -> Value {
        let out = self.raw(&[method], Some(data));
        assert!(
            out.status.success(),
            "grpcurl {method} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{method}: not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
    }

    /// Calls a method that must fail; returns grpcurl's exit code and stderr.
    fn fail(&self, method: &str, data: &str) -> (i32, String) {
        let out = self.raw(&[method], Some(data));
        assert!(!out.status.success(), "{method} should fail: {}", String::from_utf8_lossy(&out.stdout));
        (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn b64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[test]
fn grpcurl_discovers_and_drives_every_dataset_rpc_through_reflection() {
    let server = TestServer::start(&[]);
    let g = Grpcurl::new(&server);

    let out = g.raw(&["list"], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let services = String::from_utf8(out.stdout).unwrap();
    for s in [
        "aware.v1.ChatService",
        "aware.v1.DatasetsService",
        "aware.v1.FilesService",
        "aware.v1.QueryService",
        "aware.v1.RunsService",
        "grpc.health.v1.Health",
    ] {
        assert!(services.lines().any(|l| l == s), "{s} missing from:\n{services}");
    }
    let out = g.raw(&["describe", "aware.v1.DatasetsService"], None);
    let described = String::from_utf8_lossy(&out.stdout);
    assert!(described.contains("rpc UploadDataset ( stream .aware.v1.UploadDatasetRequest )"), "{described}");
    let out = g.raw(&["describe", "aware.v1.ServerEvent"], None);
    assert!(String::from_utf8_lossy(&out.stdout).contains("run_completed"));

    assert_eq!(g.call("grpc.health.v1.Health/Check", "{}")["status"], "SERVING");
    assert_eq!(g.call("grpc.health.v1.Health/Check", r#"{"service":"aware.v1.DatasetsService"}"#)["status"], "SERVING");

    let caps = g.call("aware.v1.ChatService/GetCapabilities", "{}");
    assert_eq!((caps["protocolVersion"].as_u64(), caps["role"].as_str()), (Some(1), Some("admin")));

    let listed = g.call("aware.v1.DatasetsService/ListDatasets", "{}");
    let tables: Vec<&str> =
        listed["datasets"].as_array().unwrap().iter().map(|d| d["tableName"].as_str().unwrap()).collect();
    assert_eq!(tables, ["support_tickets", "customer_churn", "barcelona_apartments"]);

    // A client-streaming upload from a file of JSON messages: filename first, then chunks.
    let csv = b"city,visits\nBarcelona,3\nGirona,5\nReus,\n";
    let messages = format!(
        "{{\"filename\":\"cities.csv\",\"chunk\":\"{}\"}}\n{{\"chunk\":\"{}\"}}",
        b64(&csv[..20]),
        b64(&csv[20..])
    );
    let uploaded = g.call("aware.v1.DatasetsService/UploadDataset", &messages)["dataset"].clone();
    assert_eq!(uploaded["status"], "DATASET_STATUS_READY");
    assert_eq!(uploaded["tableName"], "cities");
    assert_eq!(uploaded["rowCount"], "3", "uint64 is a JSON string in proto3 JSON");
    assert_eq!(uploaded["format"], "DATASET_FORMAT_CSV");
    let id = uploaded["id"].as_str().unwrap().to_owned();

    let got = g.call("aware.v1.DatasetsService/GetDataset", &format!(r#"{{"dataset_id":"{id}"}}"#));
    assert_eq!(got["dataset"]["columns"][1]["type"], "BIGINT");
    let preview = g.call("aware.v1.DatasetsService/PreviewRows", &format!(r#"{{"dataset_id":"{id}","limit":2}}"#));
    assert_eq!(preview["table"]["rows"][0]["values"][0]["stringValue"], "Barcelona");
    assert_eq!(preview["table"]["rows"][1]["values"][1]["intValue"], "5");
    assert_eq!(preview["table"]["truncated"], true);
    let stats = g.call("aware.v1.DatasetsService/GetDatasetStatistics", &format!(r#"{{"dataset_id":"{id}"}}"#));
    let visits = &stats["statistics"]["columns"][1];
    assert_eq!((visits["nullCount"].as_str(), visits["mean"].as_f64()), (Some("1"), Some(4.0)));

    let up = g.call("aware.v1.DatasetsService/CreateUpload", r#"{"filename":"b.csv"}"#);
    let upload_id = up["uploadId"].as_str().unwrap();
    g.call(
        "aware.v1.DatasetsService/AppendUpload",
        &format!(r#"{{"upload_id":"{upload_id}","offset":0,"chunk":"{}"}}"#, b64(b"k\n1\n")),
    );
    let committed = g.call("aware.v1.DatasetsService/CommitUpload", &format!(r#"{{"upload_id":"{upload_id}"}}"#));
    assert_eq!(committed["dataset"]["status"], "DATASET_STATUS_READY");

    assert_eq!(
        g.call("aware.v1.DatasetsService/DeleteDataset", &format!(r#"{{"dataset_id":"{id}"}}"#))["datasetId"],
        id.as_str()
    );

    // Bad input: clear errors with grpcurl's exit code 64 + the gRPC code.
    let (code, stderr) = g.fail("aware.v1.DatasetsService/GetDataset", &format!(r#"{{"dataset_id":"{id}"}}"#));
    assert_eq!(code, 64 + 5, "NotFound: {stderr}");
    assert!(stderr.contains("was not found"), "{stderr}");
    let (code, stderr) = g.fail("aware.v1.DatasetsService/PreviewRows", r#"{"dataset_id":"x","limit":500}"#);
    assert_eq!(code, 64 + 3, "InvalidArgument: {stderr}");
    let (code, _) = g.fail("aware.v1.DatasetsService/GetDataset", r#"{"no_such_field":1}"#);
    assert_ne!(code, 0, "grpcurl refuses unknown fields before sending");
    let answer = g.call("aware.v1.QueryService/ExecuteSql", r#"{"sql":"SELECT count(*) AS n FROM customer_churn"}"#);
    assert_eq!(answer["table"]["rows"][0]["values"][0]["intValue"], "500");
    let run =
        g.call("aware.v1.RunsService/GetRun", &format!(r#"{{"run_id":"{}"}}"#, answer["runId"].as_str().unwrap()));
    assert_eq!(run["run"]["status"], "RUN_STATUS_SUCCEEDED");
    let (code, stderr) =
        g.fail("aware.v1.QueryService/ExecuteSql", r#"{"sql":"SELECT * FROM read_csv('/etc/passwd')"}"#);
    assert_eq!(code, 64 + 3, "InvalidArgument: {stderr}");
    // grpcurl decodes the details, aware's code among them, through reflection.
    assert!(stderr.contains("Message: `read_csv` is not allowed"), "{stderr}");
    assert!(
        stderr.contains("google.rpc.ErrorInfo") && stderr.contains(r#""reason":"SQL_POLICY_VIOLATION""#),
        "{stderr}"
    );
    assert!(stderr.contains(r#""domain":"aware.v1""#), "{stderr}");
    assert!(!stderr.contains("not recognized"), "every detail type is known: {stderr}");
    let (_, stderr) = g.fail("aware.v1.DatasetsService/PreviewRows", r#"{"dataset_id":"x","limit":500}"#);
    assert!(stderr.contains("google.rpc.BadRequest") && stderr.contains(r#""field":"limit""#), "{stderr}");
    assert!(stderr.contains(r#""reason":"VALIDATION_ERROR""#), "{stderr}");
    let (code, stderr) = g.fail("aware.v1.FilesService/ListDirectory", r#"{"root":"staging","path":"/etc"}"#);
    assert_eq!(code, 64 + 7, "PermissionDenied: {stderr}");
    assert!(stderr.contains("absolute paths are refused"), "{stderr}");
    let (code, stderr) = g.fail("aware.v1.DatasetsService/SearchDatasets", r#"{"query":"login","limit":50}"#);
    assert_eq!(code, 64 + 3, "InvalidArgument: {stderr}");
    assert!(stderr.contains("limit must be 1 to 20"), "{stderr}");
}

#[test]
fn grpcurl_with_api_keys() {
    let server = TestServer::start(&["--auth", "api-key", "--no-samples"]);
    let token = add_user(&server.data_dir, "ops", "admin", &[]);
    let anonymous = Grpcurl::new(&server);
    let out = anonymous.raw(&["list"], None);
    assert!(out.status.success(), "reflection works without a token");
    let (code, stderr) = anonymous.fail("aware.v1.DatasetsService/ListDatasets", "{}");
    assert_eq!(code, 64 + 16, "Unauthenticated: {stderr}");
    assert!(stderr.contains("Bearer"), "the error says how to authenticate: {stderr}");
    let authed = Grpcurl::with_token(&server, &token);
    let listed = authed.call("aware.v1.DatasetsService/ListDatasets", "{}");
    assert!(listed.get("datasets").is_none(), "no datasets yet: {listed}");
    assert_eq!(authed.call("aware.v1.ChatService/GetCapabilities", "{}")["authMode"], "api-key");
}

/// Runs every ```sh block of the README that follows a `<!-- tested -->` marker, against a live
/// server on a free port (the blocks use 127.0.0.1:50051, rewritten here).
#[test]
fn readme_grpcurl_examples_work_as_written() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).expect("README.md");
    let blocks: Vec<String> = readme
        .split("<!-- tested -->")
        .skip(1)
        .filter_map(|rest| {
            let start = rest.find("```sh\n")? + 6;
            let end = rest[start..].find("```")?;
            Some(rest[start..start + end].to_owned())
        })
        .collect();
    assert!(blocks.len() >= 3, "the README should have tested grpcurl examples");
    let server = TestServer::start(&[]);
    let work = tempfile::tempdir().unwrap();
    let bin_dir = grpcurl_bin().parent().unwrap().to_owned();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    for block in blocks {
        let script = block.replace("127.0.0.1:50051", &server.addr.to_string());
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(work.path())
            .env("PATH", &path)
            .output()
            .expect("bash");
        assert!(
            out.status.success(),
            "README example failed:\n{block}\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = Grpcurl::new(&server).call("aware.v1.DatasetsService/ListDatasets", "{}");
    let tables: Vec<&str> =
        listed["datasets"].as_array().unwrap().iter().map(|d| d["tableName"].as_str().unwrap()).collect();
    assert_eq!(
        tables,
        ["handbook", "support_tickets", "customer_churn", "barcelona_apartments"],
        "the README's delete example removed the dataset its upload example made, and no sample; the handbook stays"
    );
}

/// `tests/grpcurl/every-rpc.sh` — the operator's recipe book — calls every RPC of `aware.v1`
/// through reflection (a bidi `Chat` session from `chat-session.json`, confirmations denied and
/// cancelled, uploads both ways, runs, usage, a refresh from the staging folder) and checks each
/// answer.
#[test]
fn every_rpc_answers_grpcurl_as_the_recipes_say() {
    let server = TestServer::start(&[]);
    let out = Command::new(workspace_root().join("tests/grpcurl/every-rpc.sh"))
        .arg(server.addr.to_string())
        .env("GRPCURL", grpcurl_bin())
        .env("AWARE_IMPORT_DIR", server.data_dir.join("import"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "every-rpc.sh failed:\n{stderr}");
    assert!(stderr.trim_end().ends_with("every RPC answered as expected"), "{stderr}");
}
