#![allow(clippy::unwrap_used)]
//! Files from approved folders through the real binary: the escape corpus
//! (`tests/corpus/paths.jsonl`) run through `FilesService` against a folder full of traps —
//! symlinks out, chains, a symlinked folder, `/proc/self/root`, a hard link to a file outside, a
//! FIFO, a socket, a device, hidden and key files — every case refused with a clear error and the
//! server unaffected; listings, partial imports, a file swapped for a link between listing and
//! import, the caps; the assistant listing a folder, importing three files after approval and
//! querying one; a dataset refreshed from its changed file (asked first, queries see the new
//! rows, a broken or missing file changes nothing); a delete approved after the dataset changed
//! (`RESOURCE_CHANGED`, nothing deleted); and connected mode, where the file tools do
//! not exist.

use aware_e2e::TestServer;
use aware_e2e::events::{calls, follow, no_confirmation, number, results};
use aware_e2e::fake_llm::{FakeLlm, Kind, Turn, Usage};
use aware_proto::v1 as pb;
use aware_proto::v1::files_service_client::FilesServiceClient;
use pb::server_event::Payload as P;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tonic::transport::Channel;

const SECRET: &str = "id,secret\n1,TOP SECRET OUTSIDE THE ROOT\n";

/// An approved folder full of traps, beside a folder that must stay out of reach.
struct Folder {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    /// Whether this process could make a device node (needs CAP_MKNOD).
    has_device: bool,
    _socket: std::os::unix::net::UnixListener,
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn hostile_folder() -> Folder {
    use std::os::unix::fs::symlink;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let outside = tmp.path().join("outside");
    write(&outside.join("secret.csv"), SECRET);
    write(&root.join("data.csv"), "city,visits\nBarcelona,3\nGirona,5\n");
    write(&root.join("sub/d.csv"), "k,v\na,1\n");
    write(&root.join("sub/.hidden.csv"), SECRET);
    write(&root.join("notes.txt"), "not a dataset\n");
    for hidden in [".env", ".ssh/id_rsa", ".git/config", "id_rsa", "id_ed25519.pub", "server.pem", "tls.key"] {
        write(&root.join(hidden), SECRET);
    }
    write(&root.join("secrets.csv"), SECRET);
    symlink(outside.join("secret.csv"), root.join("link_out.csv")).unwrap();
    symlink("/etc/passwd", root.join("link_abs.csv")).unwrap();
    symlink("data.csv", root.join("link_in.csv")).unwrap();
    symlink("chain2.csv", root.join("chain1.csv")).unwrap();
    symlink("../outside/secret.csv", root.join("chain2.csv")).unwrap();
    symlink(&outside, root.join("dirlink")).unwrap();
    symlink("/proc/self/root", root.join("proc_link")).unwrap();
    std::fs::hard_link(outside.join("secret.csv"), root.join("hard.csv")).unwrap();
    rustix::fs::mknodat(rustix::fs::CWD, root.join("fifo.csv"), rustix::fs::FileType::Fifo, 0o644.into(), 0).unwrap();
    let socket = std::os::unix::net::UnixListener::bind(root.join("sock.csv")).unwrap();
    let has_device = rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("dev_null.csv"),
        rustix::fs::FileType::CharacterDevice,
        0o666.into(),
        rustix::fs::makedev(1, 3),
    )
    .is_ok();
    // Sparse: 501 MiB on paper, nothing on disk.
    std::fs::File::create(root.join("big.csv")).unwrap().set_len(501 << 20).unwrap();
    Folder { _tmp: tmp, root, outside, has_device, _socket: socket }
}

fn serve(folder: &Folder, extra: &[&str]) -> TestServer {
    let root = format!("downloads={}", folder.root.display());
    let mut args = vec!["--files-root", root.as_str()];
    args.extend_from_slice(extra);
    TestServer::start(&args)
}

async fn files(server: &TestServer) -> FilesServiceClient<Channel> {
    FilesServiceClient::new(server.channel().await)
}

/// The error code's name without its prefix (`PATH_REFUSED`).
fn code_name(code: pb::ErrorCode) -> String {
    code.as_str_name().trim_start_matches("ERROR_CODE_").to_owned()
}

/// One corpus case's outcome: `Ok(listing or dataset)` when it got through, or the error code
/// and message it was refused with (an RPC error, or the import report's error for its file).
async fn attempt(client: &mut FilesServiceClient<Channel>, case: &Value) -> Result<String, (String, String)> {
    let path = case["path"].as_str().unwrap().repeat(case["repeat"].as_u64().unwrap_or(1) as usize);
    let root = case["root"].as_str().unwrap().to_owned();
    let rpc = |s: tonic::Status| (aware_e2e::reason(&s), s.message().to_owned());
    match case["op"].as_str().unwrap() {
        "list" => {
            let pattern = case["pattern"].as_str().unwrap_or_default().to_owned();
            let req = pb::ListDirectoryRequest { root, path, pattern };
            let listing = client.list_directory(req).await.map_err(rpc)?.into_inner().listing.unwrap();
            Ok(format!("listed {} entries", listing.entries.len()))
        }
        "import" => {
            let req = pb::ImportFilesRequest { root, paths: vec![path] };
            let report = client.import_files(req).await.map_err(rpc)?.into_inner().report.unwrap();
            let file = &report.files[0];
            match (&file.dataset, &file.error) {
                (Some(d), _) => Ok(format!("imported as {}", d.table_name)),
                (None, Some(e)) => Err((code_name(e.code()), e.message.clone())),
                (None, None) => panic!("an import report entry with neither a dataset nor an error"),
            }
        }
        other => panic!("unknown op {other}"),
    }
}

/// Every case of the escape corpus is refused with the code it names and a message a person can
/// act on (never the host's paths), through the public RPCs; afterwards the server still serves,
/// nothing from outside became a dataset, the approved folder is as it was, and every refused
/// import is in the audit log.
#[tokio::test]
async fn the_escape_corpus_is_refused_through_files_service() {
    let folder = hostile_folder();
    let mut server = serve(&folder, &[]);
    let mut client = files(&server).await;
    let corpus = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/paths.jsonl")).unwrap();
    let cases: Vec<Value> = corpus.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(cases.len() >= 40, "the corpus holds {} cases", cases.len());
    let host_dir = folder.root.parent().unwrap().display().to_string();
    let mut failures = Vec::new();
    let mut ran = 0;
    for case in &cases {
        if case["path"] == "dev_null.csv" && !folder.has_device {
            eprintln!("skipped the device case: this process cannot make device nodes (no CAP_MKNOD)");
            continue;
        }
        ran += 1;
        let expected = case["expect"].as_str().unwrap();
        match attempt(&mut client, case).await {
            Ok(what) => failures.push(format!("{case}: got through ({what})")),
            Err((code, message)) => {
                if code != expected {
                    failures.push(format!("{case}: {code} ({message}), expected {expected}"));
                } else if message.trim().len() < 10 || message.contains(&host_dir) {
                    failures.push(format!("{case}: unclear or leaking message {message:?}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} of {ran} cases failed:\n{}", failures.len(), failures.join("\n"));

    assert!(server.is_running(), "the server is unaffected");
    let listing = client
        .list_directory(pb::ListDirectoryRequest { root: "downloads".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .listing
        .unwrap();
    assert!(listing.entries.iter().any(|e| e.name == "data.csv"), "listings still work");
    let datasets = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    let names: Vec<String> = datasets.into_inner().datasets.into_iter().map(|d| d.table_name).collect();
    assert_eq!(names.len(), 3, "only the three samples: nothing was imported ({names:?})");
    assert_eq!(std::fs::read_to_string(folder.outside.join("secret.csv")).unwrap(), SECRET);
    assert!(folder.root.join("data.csv").exists() && folder.root.join("link_out.csv").symlink_metadata().is_ok());

    let store = aware_e2e::storage::open(&server.data_dir).await;
    let trail = store.audit_trail(&aware_domain::ids::UserId::local()).await.unwrap();
    let refused = trail.iter().filter(|a| a.action == "files.import" && a.outcome == "failed").count();
    let imports = cases.iter().filter(|c| c["op"] == "import" && c["root"] == "downloads").count();
    let skipped = usize::from(!folder.has_device);
    assert_eq!(refused, imports - skipped, "every refused import is audited");
    let link = trail.iter().find(|a| a.resource_id == "downloads:link_out.csv").unwrap();
    assert_eq!((link.source.as_str(), link.details["code"].as_str()), ("api", Some("PATH_REFUSED")));
    assert!(server.stop(), "a clean shutdown after the corpus");
}

/// Listings show what can be imported and hide what may not be read; imports copy (originals
/// stay), report each file on its own, and refuse a file that was swapped for a link or a hard
/// link after it was listed; the caps hold.
#[tokio::test]
async fn listings_and_imports_report_each_file_and_refuse_swaps() {
    let folder = hostile_folder();
    let server = serve(&folder, &[]);
    let mut client = files(&server).await;

    let roots = client.list_roots(pb::ListRootsRequest {}).await.unwrap().into_inner().roots;
    let names: Vec<&str> = roots.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["staging", "downloads"]);

    let list = |path: &str, pattern: &str| pb::ListDirectoryRequest {
        root: "downloads".into(),
        path: path.into(),
        pattern: pattern.into(),
    };
    let listing = client.list_directory(list("", "")).await.unwrap().into_inner().listing.unwrap();
    let entry = |name: &str| listing.entries.iter().find(|e| e.name == name);
    let data = entry("data.csv").unwrap();
    assert_eq!(
        (data.kind(), data.importable_format(), data.size_bytes),
        (pb::EntryKind::File, pb::DatasetFormat::Csv, 33)
    );
    assert!(data.modified_at.is_some());
    assert_eq!(entry("sub").unwrap().kind(), pb::EntryKind::Directory);
    assert_eq!(entry("notes.txt").unwrap().importable_format(), pb::DatasetFormat::Text, "a text document");
    for other in ["link_out.csv", "fifo.csv", "sock.csv", "dirlink"] {
        let e = entry(other).unwrap();
        assert_eq!(
            (e.kind(), e.importable_format()),
            (pb::EntryKind::Other, pb::DatasetFormat::Unspecified),
            "{other}"
        );
    }
    for never in [".env", ".ssh", ".git", "id_rsa", "server.pem", "secrets.csv", "tls.key"] {
        assert!(entry(never).is_none(), "{never} is never shown");
    }
    let csvs = client.list_directory(list("sub", "*.CSV")).await.unwrap().into_inner().listing.unwrap();
    let names: Vec<&str> = csvs.entries.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(names, ["sub/d.csv"], "the pattern is case-insensitive and hidden files stay hidden");

    // Each file succeeds or fails on its own; the good ones become datasets, nothing moves.
    let req = pb::ImportFilesRequest {
        root: "downloads".into(),
        paths: vec!["data.csv".into(), "link_out.csv".into(), "nope.csv".into(), "sub/d.csv".into()],
    };
    let report = client.import_files(req).await.unwrap().into_inner().report.unwrap();
    let outcome: Vec<(String, String)> = report
        .files
        .iter()
        .map(|f| match (&f.dataset, &f.error) {
            (Some(d), _) => (f.path.clone(), format!("{} {:?} {}", d.table_name, d.status(), d.row_count)),
            (_, Some(e)) => (f.path.clone(), code_name(e.code())),
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        outcome,
        [
            ("data.csv".to_owned(), "data_data Ready 2".to_owned()),
            ("link_out.csv".to_owned(), "PATH_REFUSED".to_owned()),
            ("nope.csv".to_owned(), "NOT_FOUND".to_owned()),
            ("sub/d.csv".to_owned(), "d Ready 1".to_owned()),
        ]
    );
    assert!(folder.root.join("data.csv").exists() && folder.root.join("sub/d.csv").exists(), "copies, never moves");
    let copies = server.data_dir.join("staging/files");
    assert_eq!(std::fs::read_dir(&copies).map(|d| d.count()).unwrap_or(0), 0, "no copy is left behind");

    // Listed as a plain file, then swapped for a link to the secret before the import.
    for swap in ["symlink", "hard link"] {
        let path = folder.root.join("swap.csv");
        write(&path, "a\n1\n");
        let listing = client.list_directory(list("", "swap*")).await.unwrap().into_inner().listing.unwrap();
        assert_eq!(listing.entries[0].kind(), pb::EntryKind::File);
        std::fs::remove_file(&path).unwrap();
        if swap == "symlink" {
            std::os::unix::fs::symlink(folder.outside.join("secret.csv"), &path).unwrap();
        } else {
            std::fs::hard_link(folder.outside.join("secret.csv"), &path).unwrap();
        }
        let req = pb::ImportFilesRequest { root: "downloads".into(), paths: vec!["swap.csv".into()] };
        let report = client.import_files(req).await.unwrap().into_inner().report.unwrap();
        let error = report.files[0].error.clone().unwrap_or_else(|| panic!("the {swap} swap got through"));
        assert_eq!(code_name(error.code()), "PATH_REFUSED", "{swap}: {}", error.message);
        std::fs::remove_file(&path).unwrap();
    }

    // Caps: 20 files per import, 1,000 entries per listing.
    let req = pb::ImportFilesRequest { root: "downloads".into(), paths: vec!["data.csv".into(); 21] };
    let status = client.import_files(req).await.unwrap_err();
    assert_eq!((status.code(), aware_e2e::reason(&status)), (tonic::Code::InvalidArgument, "VALIDATION_ERROR".into()));
    let many = folder.root.join("many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..1005 {
        std::fs::write(many.join(format!("f{i:04}.csv")), "x\n1\n").unwrap();
    }
    let listing = client.list_directory(list("many", "")).await.unwrap().into_inner().listing.unwrap();
    assert_eq!((listing.entries.len(), listing.truncated), (1000, true));

    let datasets = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    let names: Vec<String> = datasets.into_inner().datasets.into_iter().map(|d| d.table_name).collect();
    assert!(!names.iter().any(|n| n.contains("swap") || n.contains("secret")), "{names:?}");
}

fn final_text(events: &[pb::ServerEvent]) -> String {
    match &events.last().unwrap().payload {
        Some(P::RunCompleted(c)) => {
            assert_eq!(c.status(), pb::RunStatus::Succeeded, "{c:?}");
            c.final_text.clone()
        }
        other => panic!("the run did not complete: {other:?}"),
    }
}

/// "What CSV files are in my downloads?" → a listing (the model sees counts, never names);
/// "import those" → one STANDARD confirmation listing every file; a file that appears while the
/// person reads it is not imported with them; after approval the three become datasets, and one
/// of them answers a question.
#[tokio::test]
async fn the_assistant_lists_a_folder_imports_three_files_after_approval_and_queries_one() {
    let tmp = tempfile::tempdir().unwrap();
    let downloads = tmp.path().join("Downloads");
    write(&downloads.join("sales_q1.csv"), "region,amount\nnorth,120\nsouth,80\neast,100\n");
    write(&downloads.join("sales_q2.csv"), "region,amount\nnorth,90\nwest,60\n");
    write(&downloads.join("customers.csv"), "id,name\n1,Ana\n2,Joan\n");
    write(&downloads.join("readme.txt"), "hello\n");
    write(&downloads.join(".env"), "TOKEN=1\n");
    let root = format!("downloads={}", downloads.display());
    let server = TestServer::start(&["--files-root", &root]);
    let client = server.client(None).await;

    let sent = client.send_message("", "what CSV files are in my downloads?", "").await.unwrap();
    let listed = follow(&client, &sent.run_id, no_confirmation).await;
    assert_eq!(
        calls(&listed)[0],
        ("list_directory".into(), serde_json::json!({"root": "downloads", "path": "", "pattern": "*.csv"}))
    );
    let result = &results(&listed)[0];
    let Some(pb::tool_result::Rich::DirectoryListing(listing)) = result.rich.clone() else { panic!("a listing") };
    let mut names: Vec<String> = listing.entries.iter().map(|e| e.name.clone()).collect();
    names.sort();
    assert_eq!(names, ["customers.csv", "sales_q1.csv", "sales_q2.csv"]);
    assert!(result.llm_summary.contains("3 file(s)") && result.llm_summary.contains("3 CSV"), "{}", result.llm_summary);
    assert!(!result.llm_summary.contains("sales"), "the model gets counts, not names: {}", result.llm_summary);
    assert!(final_text(&listed).contains('3'));

    let sent = client.send_message(&sent.thread_id, "import those", "").await.unwrap();
    let late = downloads.join("sales_q3.csv");
    let imported = follow(&client, &sent.run_id, |c| {
        assert_eq!((c.tool_name.as_str(), c.tier()), ("import_files", pb::ConfirmationTier::Standard));
        for f in ["customers.csv", "sales_q1.csv", "sales_q2.csv"] {
            assert!(c.description.contains(f), "the confirmation lists {f}: {}", c.description);
        }
        write(&late, "region,amount\nnowhere,1\n");
        true
    })
    .await;
    let Some(pb::tool_result::Rich::ImportReport(report)) = results(&imported)[0].rich.clone() else {
        panic!("a report")
    };
    let mut tables: Vec<String> = report.files.iter().map(|f| f.dataset.clone().unwrap().table_name).collect();
    tables.sort();
    assert_eq!(tables, ["customers", "sales_q1", "sales_q2"], "exactly what was approved");
    assert!(final_text(&imported).contains("Imported 3 of 3"), "{}", final_text(&imported));
    assert!(late.exists() && downloads.join("sales_q1.csv").exists(), "originals stay");

    let sent = client.send_message("", "what is the total amount in sales q1?", "").await.unwrap();
    let asked = follow(&client, &sent.run_id, no_confirmation).await;
    assert_eq!(calls(&asked)[0].0, "execute_query_plan");
    assert_eq!(final_text(&asked), "The total amount of sales in sales_q1 is 300.");
}

/// A server with an approved folder `downloads` holding `sales.csv` (`csv`), imported as the
/// dataset `sales`; `web` and `api` are clients of the two sources.
struct SalesFolder {
    _tmp: tempfile::TempDir,
    file: PathBuf,
    server: TestServer,
    web: aware_client::AwareClient,
    api: aware_client::AwareClient,
    sales: pb::Dataset,
}

async fn sales_folder(csv: &str) -> SalesFolder {
    let tmp = tempfile::tempdir().unwrap();
    let downloads = tmp.path().join("Downloads");
    let file = downloads.join("sales.csv");
    write(&file, csv);
    let root = format!("downloads={}", downloads.display());
    let server = TestServer::start(&["--files-root", &root]);
    let web = aware_client::AwareClient::connect(&server.url(), None, "web").await.unwrap();
    let api = aware_client::AwareClient::connect(&server.url(), None, "api").await.unwrap();
    let imported = api
        .files()
        .import_files(pb::ImportFilesRequest { root: "downloads".into(), paths: vec!["sales.csv".into()] })
        .await
        .unwrap()
        .into_inner()
        .report
        .unwrap();
    let sales = imported.files[0].dataset.clone().expect("imported");
    SalesFolder { _tmp: tmp, file, server, web, api, sales }
}

/// "Refresh the sales dataset": a STANDARD card naming the file; denied, nothing changes;
/// approved, the file's new rows and columns replace the old (a note on a column that is gone
/// goes with it) and the next query sees them. The same bytes again change nothing; a file that
/// no longer ingests, or is gone, leaves the dataset as it was; an uploaded dataset has no file to
/// read again. Each refresh is audited with its source.
#[tokio::test]
async fn a_dataset_is_refreshed_from_its_changed_file_only_after_approval() {
    let SalesFolder { _tmp, file, server, web, api, sales } =
        sales_folder("region,amount,rep\nnorth,120,ana\nsouth,80,joan\neast,100,ana\n").await;
    let origin = sales.origin.clone().expect("the import records its file");
    assert_eq!((origin.root.as_str(), origin.path.as_str()), ("downloads", "sales.csv"));
    let notes = ["rep", "amount"].map(|c| pb::ColumnNote {
        column: c.into(),
        description: format!("the {c}"),
        unit: String::new(),
    });
    api.datasets()
        .update_dataset(pb::UpdateDatasetRequest {
            dataset_id: sales.id.clone(),
            column_notes: notes.to_vec(),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(number(&server, "SELECT sum(amount) FROM sales").await, "300");

    write(&file, "region,amount,channel\nnorth,120,web\nsouth,80,shop\neast,100,web\nwest,50,web\n");
    let get = |id: String| {
        let datasets = api.datasets();
        async move {
            datasets
                .clone()
                .get_dataset(pb::GetDatasetRequest { dataset_id: id, sample_rows: Some(0) })
                .await
                .unwrap()
                .into_inner()
                .dataset
                .unwrap()
        }
    };
    let refresh = |approve: bool| {
        let web = web.clone();
        async move {
            let sent = web.send_message("", "refresh the sales dataset", "").await.unwrap();
            follow(&web, &sent.run_id, |c| {
                assert_eq!((c.tool_name.as_str(), c.tier()), ("refresh_dataset", pb::ConfirmationTier::Standard));
                assert!(c.description.contains("downloads:sales.csv"), "the card names the file: {}", c.description);
                approve
            })
            .await
        }
    };
    refresh(false).await;
    let unchanged = get(sales.id.clone()).await;
    assert_eq!(
        (unchanged.row_count, unchanged.version_hash.as_str()),
        (3, sales.version_hash.as_str()),
        "denied: nothing changed"
    );
    assert_eq!(number(&server, "SELECT sum(amount) FROM sales").await, "300");

    let done = refresh(true).await;
    let result = results(&done).into_iter().find(|r| r.tool_name == "refresh_dataset").expect("the refresh ran");
    assert!(!result.is_error, "{result:?}");
    assert!(
        result.llm_summary.contains("3 rows before, 4 now")
            && result.llm_summary.contains("new columns: channel")
            && result.llm_summary.contains("columns gone: rep"),
        "{}",
        result.llm_summary
    );
    let fresh = get(sales.id.clone()).await;
    assert_eq!(fresh.row_count, 4);
    assert_ne!(fresh.version_hash, sales.version_hash);
    let columns: Vec<&str> = fresh.columns.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(columns, ["region", "amount", "channel"]);
    let noted: Vec<&str> = fresh.column_notes.iter().map(|n| n.column.as_str()).collect();
    assert_eq!(noted, ["amount"], "the note on the column that is gone goes with it");
    assert_eq!(number(&server, "SELECT sum(amount) FROM sales").await, "350", "queries see the new rows");

    // The same bytes: nothing to do.
    let again = api
        .datasets()
        .refresh_dataset(pb::RefreshDatasetRequest { dataset_id: sales.id.clone() })
        .await
        .unwrap()
        .into_inner();
    assert!(!again.changed);
    assert_eq!((again.previous_row_count, again.dataset.unwrap().version_hash), (4, fresh.version_hash.clone()));

    // A file that no longer ingests, then no file at all: refused, and the dataset is as it was.
    std::fs::write(&file, [0u8, 159, 146, 150, 0, 1, 2, 3, 255, 254]).unwrap();
    let broken =
        api.datasets().refresh_dataset(pb::RefreshDatasetRequest { dataset_id: sales.id.clone() }).await.unwrap_err();
    assert_eq!(broken.code(), tonic::Code::InvalidArgument, "{broken:?}");
    assert!(broken.message().contains("binary"), "{}", broken.message());
    std::fs::remove_file(&file).unwrap();
    let gone =
        api.datasets().refresh_dataset(pb::RefreshDatasetRequest { dataset_id: sales.id.clone() }).await.unwrap_err();
    assert!(
        gone.message().contains("could not be read again") && gone.message().contains("sales is unchanged"),
        "{}",
        gone.message()
    );
    assert_eq!(get(sales.id.clone()).await.version_hash, fresh.version_hash);
    assert_eq!(number(&server, "SELECT sum(amount) FROM sales").await, "350");

    // An uploaded dataset has no file to read again.
    let samples = api.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets;
    let uploaded = samples.iter().find(|d| d.table_name == "customer_churn").unwrap();
    let err = api
        .datasets()
        .refresh_dataset(pb::RefreshDatasetRequest { dataset_id: uploaded.id.clone() })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert!(err.message().contains("customer_churn was uploaded"), "{}", err.message());

    // Audited: the assistant's refresh as the assistant's, the API's as the client's.
    let entries = api
        .audit()
        .list_audit_entries(pb::ListAuditEntriesRequest { action: "dataset.refresh".into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
        .entries;
    let mut seen: Vec<(String, String)> = entries.iter().map(|e| (e.source.clone(), e.outcome.clone())).collect();
    seen.sort();
    let expected =
        [("ai_assistant", "succeeded"), ("api", "failed"), ("api", "failed"), ("api", "failed"), ("api", "unchanged")];
    assert_eq!(seen, expected.map(|(s, o)| (s.to_owned(), o.to_owned())), "{entries:?}");
}

/// A confirmation is bound to the version of the dataset it changes, with the blast radius the
/// server computed (rows, bytes, the verified queries and saved datasets that depend on it): the
/// dataset refreshed between the request and the approval, the delete fails with
/// `RESOURCE_CHANGED` and nothing is deleted; asked again and approved, it is deleted.
#[tokio::test]
async fn a_delete_approved_after_the_dataset_changed_does_nothing() {
    let SalesFolder { _tmp, file, server, web, api, sales } =
        sales_folder("region,amount\nnorth,120\nsouth,80\neast,100\n").await;
    let query = |sql: &str| Some(pb::save_query_request::Query::Sql(sql.into()));
    api.datasets()
        .save_query(pb::SaveQueryRequest {
            name: "total sales".into(),
            question: String::new(),
            query: query("SELECT sum(amount) FROM sales"),
            run_heavy: false,
        })
        .await
        .unwrap();
    api.datasets()
        .save_query(pb::SaveQueryRequest {
            name: "churn by plan".into(),
            question: String::new(),
            query: query("SELECT plan, count(*) FROM customer_churn GROUP BY plan"),
            run_heavy: false,
        })
        .await
        .unwrap();
    let north = api
        .datasets()
        .materialize_query(pb::MaterializeQueryRequest {
            table_name: "north_sales".into(),
            query: Some(pb::materialize_query_request::Query::Sql("SELECT * FROM sales WHERE region = 'north'".into())),
            run_heavy: false,
        })
        .await
        .unwrap()
        .into_inner()
        .dataset
        .unwrap();

    let sent = web.send_message("", "delete the sales dataset", "").await.unwrap();
    let mut card = None;
    let events = aware_e2e::events::follow_acting(&web, &sent.run_id, |c| {
        card = Some(c);
        let (api, file) = (api.clone(), file.clone());
        let id = sales.id.clone();
        async move {
            // Meanwhile, the file changes and the dataset is refreshed from it.
            write(&file, "region,amount\nnorth,120\nsouth,80\neast,100\nwest,50\n");
            let r = api.datasets().refresh_dataset(pb::RefreshDatasetRequest { dataset_id: id }).await.unwrap();
            assert!(r.into_inner().changed);
            true
        }
    })
    .await;
    let card = card.expect("the delete asked first");
    assert_eq!((card.tool_name.as_str(), card.tier()), ("delete_dataset", pb::ConfirmationTier::Elevated));
    let blast = card.blast_radius.clone().expect("the card carries the blast radius");
    assert_eq!(
        (blast.version_hash.as_str(), blast.row_count, blast.size_bytes),
        (sales.version_hash.as_str(), 3, sales.size_bytes)
    );
    assert_eq!(blast.saved_queries, ["total sales"], "only the verified query that reads it");
    let derived: Vec<(&str, &str)> =
        blast.derived_datasets.iter().map(|d| (d.id.as_str(), d.display_name.as_str())).collect();
    assert_eq!(derived, [(north.id.as_str(), north.name.as_str())]);
    assert!(
        card.description.contains("3 rows")
            && card.description.contains("1 verified query reads it (total sales)")
            && card.description.contains("north_sales"),
        "the card says it in words: {}",
        card.description
    );
    let result = results(&events).into_iter().find(|r| r.tool_name == "delete_dataset").expect("the call ended");
    let error = result.error.clone().expect("the delete failed");
    assert_eq!(error.code(), pb::ErrorCode::ResourceChanged, "{result:?}");
    assert!(result.is_error && error.message.contains("nothing was done"), "{result:?}");
    let kept = api
        .datasets()
        .get_dataset(pb::GetDatasetRequest { dataset_id: sales.id.clone(), sample_rows: Some(0) })
        .await
        .expect("nothing was deleted")
        .into_inner()
        .dataset
        .unwrap();
    assert_eq!(kept.row_count, 4);
    assert_eq!(number(&server, "SELECT sum(amount) FROM sales").await, "350");

    // Asked again, the card binds the new version, and the approval deletes it.
    let sent = web.send_message("", "delete the sales dataset", "").await.unwrap();
    let events = follow(&web, &sent.run_id, |c| {
        assert_eq!(c.blast_radius.as_ref().map(|b| b.version_hash.as_str()), Some(kept.version_hash.as_str()));
        true
    })
    .await;
    let result = results(&events).into_iter().find(|r| r.tool_name == "delete_dataset").expect("the call ended");
    assert!(!result.is_error, "{result:?}");
    let gone = api
        .datasets()
        .get_dataset(pb::GetDatasetRequest { dataset_id: sales.id.clone(), sample_rows: Some(0) })
        .await
        .unwrap_err();
    assert_eq!(gone.code(), tonic::Code::NotFound);
}

/// Answers pinned to their data: a query's run records its result; rerun 100 times on unchanged
/// data it gives the recorded hash each time and GetRun is not stale; after the dataset is
/// refreshed with one row changed and one added, GetRun says stale (naming the dataset and its
/// new version) and the rerun's diff holds exactly those rows. The same for the chat run whose
/// tool ran a query.
#[tokio::test]
async fn a_rerun_shows_exactly_the_rows_that_changed_since_the_answer() {
    let SalesFolder { _tmp, file, server, web, api, sales } =
        sales_folder("region,amount\nnorth,120\nsouth,80\neast,100\n").await;
    let sql = "SELECT region, amount FROM sales";
    let ran = server
        .query()
        .await
        .execute_sql(pb::ExecuteSqlRequest { sql: sql.into(), limit: 0, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let sent = web.send_message("", "what is the total amount in sales?", "").await.unwrap();
    let chat = follow(&web, &sent.run_id, no_confirmation).await;
    assert!(!results(&chat).is_empty(), "the chat run queried");

    let rerun = |run_id: String| {
        let runs = api.runs();
        async move { runs.clone().rerun_query(pb::RerunQueryRequest { run_id }).await.unwrap().into_inner().queries }
    };
    let get = |run_id: String| {
        let runs = api.runs();
        async move { runs.clone().get_run(pb::GetRunRequest { run_id }).await.unwrap().into_inner().run.unwrap() }
    };
    let first = rerun(ran.run_id.clone()).await;
    assert_eq!(first.len(), 1);
    let recorded = first[0].recorded_sha256.clone();
    assert_eq!(recorded.len(), 64, "the run recorded its result's hash");
    for _ in 0..100 {
        let again = rerun(ran.run_id.clone()).await;
        let q = &again[0];
        assert_eq!((q.result_sha256.as_str(), q.unchanged_rows), (recorded.as_str(), 3));
        assert!(q.added_rows.is_empty() && q.removed_rows.is_empty() && q.changed_datasets.is_empty(), "{q:?}");
    }
    let before = get(ran.run_id.clone()).await;
    assert!(!before.stale && before.changed_datasets.is_empty());

    write(&file, "region,amount\nnorth,120\nsouth,95\neast,100\nwest,50\n");
    let refreshed = api
        .datasets()
        .refresh_dataset(pb::RefreshDatasetRequest { dataset_id: sales.id.clone() })
        .await
        .unwrap()
        .into_inner()
        .dataset
        .unwrap();
    let after = get(ran.run_id.clone()).await;
    assert!(after.stale, "the data changed since the answer");
    let changed: Vec<(&str, &str)> =
        after.changed_datasets.iter().map(|d| (d.table_name.as_str(), d.version_hash.as_str())).collect();
    assert_eq!(changed, [("sales", refreshed.version_hash.as_str())]);
    assert!(get(sent.run_id.clone()).await.stale, "the chat run that read it too");

    let row = |r: &pb::Row| -> Vec<String> { r.values.iter().map(aware_e2e::cell).collect() };
    let diff = &rerun(ran.run_id.clone()).await[0];
    assert_ne!(diff.result_sha256, recorded);
    assert_eq!(diff.recorded_sha256, recorded);
    let added: Vec<Vec<String>> = diff.added_rows.iter().map(row).collect();
    let removed: Vec<Vec<String>> = diff.removed_rows.iter().map(row).collect();
    assert_eq!(added, [["south", "95"], ["west", "50"]].map(|r| r.map(str::to_owned).to_vec()));
    assert_eq!(removed, [vec!["south".to_owned(), "80".to_owned()]]);
    assert_eq!((diff.unchanged_rows, diff.recorded_rows_kept), (2, true));
    assert_eq!(diff.result.as_ref().unwrap().rows.len(), 4, "the new result whole");

    let chat_rerun = rerun(sent.run_id.clone()).await;
    assert!(!chat_rerun.is_empty() && chat_rerun.iter().all(|q| q.changed_datasets.len() == 1), "{chat_rerun:?}");
    let nothing = api.runs().rerun_query(pb::RerunQueryRequest { run_id: "run_nope".into() }).await.unwrap_err();
    assert!(matches!(nothing.code(), tonic::Code::NotFound | tonic::Code::InvalidArgument), "{nothing:?}");

    // Deleted, and another dataset takes its name: the rerun says the one it read is gone and
    // never computes over the newcomer.
    api.datasets().delete_dataset(pb::DeleteDatasetRequest { dataset_id: sales.id.clone() }).await.unwrap();
    aware_e2e::upload(&server, "sales.csv", "region,amount\nnowhere,1\n".into()).await.unwrap();
    let gone = &rerun(ran.run_id.clone()).await[0];
    let error = gone.error.as_ref().expect("the query could not run now");
    assert_eq!(error.code, pb::ErrorCode::NotFound as i32, "{error:?}");
    assert!(error.message.starts_with("sales was deleted since"), "{}", error.message);
    assert!(gone.result.as_ref().is_none_or(|t| t.rows.is_empty()) && gone.added_rows.is_empty(), "{gone:?}");
}

/// Connected mode: the file tools are not in `GetCapabilities`, not offered to the model (nor
/// named in its prompt), refused if the model calls one anyway, and `FilesService` is off.
#[tokio::test]
async fn connected_mode_has_no_file_tools() {
    let folder = hostile_folder();
    let kind = Kind::OpenAi;
    let fake = FakeLlm::start(move |req, _| {
        if req.last_user_text().is_some() {
            Turn::default()
                .call("call_1", "list_directory", [r#"{"root":"downloads"}"#])
                .usage(Usage::new(10, 5))
                .reply(kind)
        } else {
            Turn::default().say("I cannot look at folders here.").usage(Usage::new(10, 5)).reply(kind)
        }
    })
    .await;
    let base = fake.base_url(kind);
    let root = format!("downloads={}", folder.root.display());
    let env = [
        ("AWARE_AGENT__MODEL", kind.model()),
        ("AWARE_LLM__BASE_URL", base.as_str()),
        ("AWARE_LLM__API_KEY", "k"),
        ("NO_PROXY", "127.0.0.1"),
    ];
    let server = TestServer::start_with_env(&["--mode", "connected", "--files-root", &root], &env);

    let caps = server.chat().await.get_capabilities(pb::GetCapabilitiesRequest {}).await.unwrap().into_inner();
    assert_eq!(caps.mode, "connected");
    let tools: Vec<&str> = caps.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(tools.contains(&"list_datasets"), "{tools:?}");
    assert!(!tools.contains(&"list_directory") && !tools.contains(&"import_files"), "{tools:?}");

    let status = files(&server).await.list_roots(pb::ListRootsRequest {}).await.unwrap_err();
    assert_eq!((status.code(), aware_e2e::reason(&status)), (tonic::Code::Unimplemented, "UNIMPLEMENTED".into()));
    let req = pb::ImportFilesRequest { root: "downloads".into(), paths: vec!["data.csv".into()] };
    assert_eq!(files(&server).await.import_files(req).await.unwrap_err().code(), tonic::Code::Unimplemented);

    let client = server.client(None).await;
    let sent = client.send_message("", "what files are in my downloads folder?", "").await.unwrap();
    let events = follow(&client, &sent.run_id, no_confirmation).await;
    let denied: Vec<String> = aware_e2e::events::denials(&events).into_iter().map(|d| d.tool_name).collect();
    assert_eq!(denied, ["list_directory"], "a call to a file tool is refused");
    let offered: Vec<String> = fake.requests().iter().flat_map(|r| r.tool_names()).collect();
    assert!(!offered.iter().any(|t| t == "list_directory" || t == "import_files"), "{offered:?}");
    assert!(!fake.requests()[0].system().contains("Approved folders"));
}

/// The `ListDirectory` pattern is matched in at most pattern × name steps: the star-heavy pattern
/// of the attack pass (with backtracking into every star it took minutes on one 64-character
/// name) answers correctly at once, and an over-long pattern is refused before a worker starts.
#[tokio::test]
async fn star_heavy_patterns_answer_correctly_and_long_patterns_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    let a64 = "a".repeat(64);
    write(&root.join(&a64), "x\n");
    write(&root.join(format!("{}b", "a".repeat(63))), "x\n");
    write(&root.join("other.csv"), "x\n");
    let server = TestServer::start(&["--files-root", &format!("r={}", root.display())]);
    let mut client = files(&server).await;
    let list = |pattern: String| pb::ListDirectoryRequest { root: "r".into(), path: String::new(), pattern };
    let names = |l: pb::ListDirectoryResponse| -> Vec<String> {
        l.listing.unwrap().entries.into_iter().map(|e| e.name).collect()
    };
    let bomb = format!("{}*b", "*a".repeat(12));
    let answer = tokio::time::timeout(std::time::Duration::from_secs(60), client.list_directory(list(bomb)))
        .await
        .expect("answered within a minute")
        .unwrap();
    assert_eq!(names(answer.into_inner()), [format!("{}b", "a".repeat(63))]);
    let all_a = client.list_directory(list("*a".repeat(40))).await.unwrap().into_inner();
    assert_eq!(names(all_a), [a64]);
    let err = client.list_directory(list("*".repeat(101))).await.unwrap_err();
    assert_eq!(
        (err.code(), aware_e2e::reason(&err), aware_e2e::bad_field(&err)),
        (tonic::Code::InvalidArgument, "VALIDATION_ERROR".into(), "pattern".into())
    );
}

/// An approved root is the folder that was there when the server started: replaced afterwards by
/// a symlink to another folder (holding a `passwd`), it is refused — nothing is listed or
/// imported from where the link points — until the server is restarted to approve it again.
#[tokio::test]
async fn a_root_swapped_for_a_symlink_after_start_cannot_redirect_the_jail() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("approved");
    let etc = tmp.path().join("etc");
    write(&root.join("ok.csv"), "a\n1\n");
    write(&etc.join("passwd"), "root,x\n0,0\n");
    let server = TestServer::start(&["--files-root", &format!("r={}", root.display())]);
    let mut client = files(&server).await;
    let list = || pb::ListDirectoryRequest { root: "r".into(), path: String::new(), pattern: String::new() };
    let listed = client.list_directory(list()).await.unwrap().into_inner().listing.unwrap();
    assert_eq!(listed.entries.iter().map(|e| e.name.as_str()).collect::<Vec<_>>(), ["ok.csv"]);

    std::fs::rename(&root, tmp.path().join("approved.old")).unwrap();
    std::os::unix::fs::symlink(&etc, &root).unwrap();
    let err = client.list_directory(list()).await.unwrap_err();
    assert_eq!(aware_e2e::reason(&err), "PATH_REFUSED", "{err:?}");
    assert!(err.message().contains("no longer the folder that was approved"), "{}", err.message());
    let req = pb::ImportFilesRequest { root: "r".into(), paths: vec!["passwd".into()] };
    let report = client.import_files(req).await.unwrap().into_inner().report.unwrap();
    let error = report.files[0].error.clone().expect("the import is refused");
    assert_eq!(code_name(error.code()), "PATH_REFUSED", "{}", error.message);
    let datasets = server.datasets().await.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap();
    assert!(!datasets.into_inner().datasets.iter().any(|d| d.table_name.contains("passwd")));
}

/// With API keys the approved folders — the host's folders, shared by every user — are for
/// admins: an analyst is neither offered the file tools nor answered `ListRoots` (so never sees
/// a host path) or `ListDirectory`; an admin is.
#[tokio::test]
async fn with_api_keys_only_admins_reach_approved_folders_and_their_host_paths() {
    use aware_e2e::{add_user, authed};
    let folder = hostile_folder();
    let server = serve(&folder, &["--auth", "api-key"]);
    let analyst = add_user(&server.data_dir, "ana", "analyst", &[]);
    let admin = add_user(&server.data_dir, "root", "admin", &[]);
    let mut client = files(&server).await;
    let err = client.list_roots(authed(pb::ListRootsRequest {}, &analyst)).await.unwrap_err();
    assert_eq!(err.code(), tonic::Code::PermissionDenied, "{err:?}");
    assert!(!err.message().contains(&folder.root.display().to_string()));
    let req = pb::ListDirectoryRequest { root: "downloads".into(), path: String::new(), pattern: String::new() };
    assert_eq!(
        client.list_directory(authed(req.clone(), &analyst)).await.unwrap_err().code(),
        tonic::Code::PermissionDenied
    );
    let import = pb::ImportFilesRequest { root: "downloads".into(), paths: vec!["data.csv".into()] };
    assert_eq!(client.import_files(authed(import, &analyst)).await.unwrap_err().code(), tonic::Code::PermissionDenied);
    let mut chat = aware_proto::v1::chat_service_client::ChatServiceClient::new(server.channel().await);
    let tools = |caps: pb::GetCapabilitiesResponse| caps.tools.into_iter().map(|t| t.name).collect::<Vec<_>>();
    let theirs =
        tools(chat.get_capabilities(authed(pb::GetCapabilitiesRequest {}, &analyst)).await.unwrap().into_inner());
    assert!(!theirs.iter().any(|t| t == "list_directory" || t == "import_files"), "{theirs:?}");
    assert!(theirs.iter().any(|t| t == "run_sql_query"), "{theirs:?}");

    let roots = client.list_roots(authed(pb::ListRootsRequest {}, &admin)).await.unwrap().into_inner().roots;
    assert!(roots.iter().any(|r| r.name == "downloads"), "{roots:?}");
    assert!(client.list_directory(authed(req, &admin)).await.is_ok());
    let ours = tools(chat.get_capabilities(authed(pb::GetCapabilitiesRequest {}, &admin)).await.unwrap().into_inner());
    assert!(ours.iter().any(|t| t == "list_directory"), "{ours:?}");
}
