//! End to end: the real server binary, every DatasetsService RPC, good and bad inputs.

#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report

use aware_e2e::cell;
use aware_e2e::{TestServer, add_user, authed, bad_field, reason};
use aware_proto::v1 as pb;
use aware_proto::v1::datasets_service_client::DatasetsServiceClient;
use bytes::Bytes;
use std::collections::BTreeMap;
use tonic::transport::Channel;
use tonic::{Code, Request, Status};

type Client = DatasetsServiceClient<Channel>;

fn upload_messages(filename: &str, format: &str, content: &[u8], chunk: usize) -> Vec<pb::UploadDatasetRequest> {
    let mut chunks: Vec<&[u8]> = content.chunks(chunk.max(1)).collect();
    if chunks.is_empty() {
        chunks.push(&[]);
    }
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, c)| pb::UploadDatasetRequest {
            filename: if i == 0 { filename.to_owned() } else { String::new() },
            format: if i == 0 { format.to_owned() } else { String::new() },
            chunk: Bytes::copy_from_slice(c),
            size_bytes: if i == 0 { content.len() as u64 } else { 0 },
        })
        .collect()
}

async fn upload(client: &mut Client, filename: &str, format: &str, content: &[u8]) -> Result<pb::Dataset, Status> {
    let msgs = upload_messages(filename, format, content, 64 * 1024);
    Ok(client.upload_dataset(tokio_stream::iter(msgs)).await?.into_inner().dataset.expect("dataset"))
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

fn columns(d: &pb::Dataset) -> BTreeMap<String, String> {
    d.columns.iter().map(|c| (c.name.clone(), c.r#type.clone())).collect()
}

fn status_of(d: &pb::Dataset) -> pb::DatasetStatus {
    pb::DatasetStatus::try_from(d.status).expect("known status")
}

#[tokio::test]
async fn a_fresh_server_shows_samples_previews_and_profiles_them() {
    let server = TestServer::start(&[]);
    let mut client = server.datasets().await;

    let list = client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets;
    let by_table: BTreeMap<_, _> = list.iter().map(|d| (d.table_name.as_str(), d)).collect();
    assert_eq!(
        by_table.keys().copied().collect::<Vec<_>>(),
        ["barcelona_apartments", "customer_churn", "support_tickets"]
    );
    for d in &list {
        assert_eq!(status_of(d), pb::DatasetStatus::Ready, "{d:?}");
        assert_eq!(d.version_hash.len(), 64);
        assert_eq!(pb::DatasetFormat::try_from(d.format).unwrap(), pb::DatasetFormat::Csv);
    }
    let apartments = by_table["barcelona_apartments"];
    assert_eq!((apartments.row_count, apartments.column_count), (240, 9));
    assert_eq!(apartments.name, "barcelona_apartments.csv");
    let cols = columns(apartments);
    assert_eq!(cols["price_eur"], "BIGINT");
    assert_eq!(cols["energy_rating"], "VARCHAR");
    assert_eq!(cols["has_terrace"], "BOOLEAN");
    assert_eq!(cols["listed_on"], "DATE");
    assert_eq!((by_table["customer_churn"].row_count, by_table["support_tickets"].row_count), (500, 300));

    // The numbers must match the generated CSV itself.
    let csv = aware_core::samples::sample_files().remove(0).content;
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let prices: Vec<i64> = rows.iter().map(|r| r[5].parse().unwrap()).collect();
    let missing_rating = rows.iter().filter(|r| r[6].is_empty()).count() as u64;
    let mean = prices.iter().sum::<i64>() as f64 / prices.len() as f64;

    let stats = client
        .get_dataset_statistics(pb::GetDatasetStatisticsRequest { dataset_id: apartments.id.clone() })
        .await
        .unwrap()
        .into_inner()
        .statistics
        .unwrap();
    assert_eq!(stats.row_count, 240);
    let col = |name: &str| stats.columns.iter().find(|c| c.name == name).unwrap();
    assert_eq!(col("energy_rating").null_count, missing_rating);
    assert!(col("energy_rating").distinct_count <= 7);
    assert_eq!(col("energy_rating").max_length, Some(1));
    let price = col("price_eur");
    assert_eq!(price.null_count, 0);
    assert!((price.mean.unwrap() - mean).abs() < 1e-6, "{:?} vs {mean}", price.mean);
    assert_eq!(cell(price.min.as_ref().unwrap()), prices.iter().min().unwrap().to_string());
    assert_eq!(cell(price.max.as_ref().unwrap()), prices.iter().max().unwrap().to_string());
    assert!(price.median.is_some() && price.stddev.is_some());
    assert!(col("listed_on").mean.is_none(), "no mean for dates");

    let preview = client
        .preview_rows(pb::PreviewRowsRequest { dataset_id: apartments.id.clone(), limit: 0 })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(preview.row_count, 10, "default preview is 10 rows");
    assert!(preview.truncated);
    assert_eq!(preview.columns.len(), 9);
    assert_eq!(cell(&preview.rows[0].values[5]), rows[0][5], "first row's price as in the file");
    let fifty =
        client.preview_rows(pb::PreviewRowsRequest { dataset_id: apartments.id.clone(), limit: 50 }).await.unwrap();
    assert_eq!(fifty.into_inner().table.unwrap().rows.len(), 50);
    let err =
        client.preview_rows(pb::PreviewRowsRequest { dataset_id: apartments.id.clone(), limit: 51 }).await.unwrap_err();
    assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "limit"));

    let detail = client
        .get_dataset(pb::GetDatasetRequest { dataset_id: apartments.id.clone(), sample_rows: None })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(detail.dataset.unwrap().id, apartments.id);
    assert_eq!(detail.sample.unwrap().rows.len(), 5);

    let only_ready =
        client.list_datasets(pb::ListDatasetsRequest { status_filter: pb::DatasetStatus::Error.into() }).await.unwrap();
    assert!(only_ready.into_inner().datasets.is_empty());
    let err = client.list_datasets(pb::ListDatasetsRequest { status_filter: 42 }).await.unwrap_err();
    assert_eq!(bad_field(&err), "status_filter");
}

#[tokio::test]
async fn uploads_ingest_every_format_with_types_counts_and_hashes() {
    let server = TestServer::start(&["--no-samples"]);
    let mut client = server.datasets().await;
    assert!(client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets.is_empty());

    let csv = b"city,visits,score,day\nBarcelona,3,4.5,2024-03-01\nGirona,,3.25,2024-03-02\n\"Sant Cugat, del Valles\",7,1e3,2024-03-03\n";
    let d = upload(&mut client, "My Cities (v2).csv", "", csv).await.unwrap();
    assert_eq!(status_of(&d), pb::DatasetStatus::Ready, "{}", d.error);
    assert_eq!(
        (d.table_name.as_str(), d.row_count, d.column_count, d.size_bytes),
        ("my_cities_v2", 3, 4, csv.len() as u64)
    );
    assert_eq!(d.version_hash, sha256_hex(csv));
    assert_eq!(
        columns(&d),
        BTreeMap::from([
            ("city".into(), "VARCHAR".into()),
            ("visits".into(), "BIGINT".into()),
            ("score".into(), "DOUBLE".into()),
            ("day".into(), "DATE".into())
        ])
    );
    let again = upload(&mut client, "My Cities (v2).csv", "csv", csv).await.unwrap();
    assert_eq!(again.table_name, "my_cities_v2_2", "table names stay unique per user");
    assert_eq!(again.version_hash, d.version_hash, "same content, same version hash");

    let tsv = b"id\tlabel\n1\talpha\n2\tbeta\n";
    let d = upload(&mut client, "labels.txt", "", tsv).await.unwrap();
    assert_eq!(
        (pb::DatasetFormat::try_from(d.format).unwrap(), d.row_count),
        (pb::DatasetFormat::Tsv, 2),
        "sniffed as TSV"
    );

    let ndjson = b"{\"user\":\"ana\",\"n\":1}\n{\"user\":\"bo\",\"n\":2}\n{\"user\":\"cy\",\"n\":3}\n";
    let d = upload(&mut client, "events.jsonl", "", ndjson).await.unwrap();
    assert_eq!(
        (pb::DatasetFormat::try_from(d.format).unwrap(), d.row_count, d.column_count),
        (pb::DatasetFormat::Ndjson, 3, 2)
    );

    let json = br#"[{"sku":"A1","price":9.5,"tags":["x","y"]},{"sku":"B2","price":12,"tags":[]}]"#;
    let d = upload(&mut client, "products.json", "json", json).await.unwrap();
    assert_eq!((status_of(&d), d.row_count), (pb::DatasetStatus::Ready, 2), "{}", d.error);
    let preview = client
        .preview_rows(pb::PreviewRowsRequest { dataset_id: d.id.clone(), limit: 5 })
        .await
        .unwrap()
        .into_inner()
        .table
        .unwrap();
    assert_eq!(cell(&preview.rows[0].values[2]), "['x', 'y']", "nested values render as text");
    assert!(!preview.truncated);

    let dir = tempfile::tempdir().unwrap();
    let parquet_path = dir.path().join("scores.parquet");
    duckdb::Connection::open_in_memory()
        .unwrap()
        .execute_batch(&format!(
            "COPY (SELECT range AS id, 'name ' || range AS name, range * 1.5 AS score FROM range(1000)) TO '{}' (FORMAT parquet)",
            parquet_path.display()
        ))
        .unwrap();
    let parquet = std::fs::read(&parquet_path).unwrap();
    let d = upload(&mut client, "scores.bin", "", &parquet).await.unwrap();
    assert_eq!(
        (pb::DatasetFormat::try_from(d.format).unwrap(), status_of(&d), d.row_count),
        (pb::DatasetFormat::Parquet, pb::DatasetStatus::Ready, 1000)
    );
    let stats = client
        .get_dataset_statistics(pb::GetDatasetStatisticsRequest { dataset_id: d.id })
        .await
        .unwrap()
        .into_inner()
        .statistics
        .unwrap();
    let score = stats.columns.iter().find(|c| c.name == "score").unwrap();
    assert!((score.mean.unwrap() - 749.25).abs() < 1e-9);
    assert_eq!(stats.columns[0].distinct_count, 1000);

    let all = client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets;
    assert_eq!(all.len(), 6);
    assert_eq!(all[0].table_name, "scores", "newest first");
}

#[tokio::test]
async fn bad_files_become_error_datasets_with_reasons_and_the_server_keeps_serving() {
    let mut server = TestServer::start(&["--no-samples"]);
    let mut client = server.datasets().await;
    let cases: &[(&str, &str, &[u8], &str)] = &[
        ("empty.csv", "", b"", "empty"),
        ("blank.csv", "", b"  \n\n ", "empty"),
        ("ragged.csv", "", b"a,b,c\n1,2,3\n4,5,6,7\n8,9,10\n", "different numbers of columns"),
        ("latin1.csv", "csv", b"name,city\nJos\xe9,M\xe1laga\n", "UTF-8"),
        ("sheet.xlsx", "", b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00binary", "binary data"),
        ("broken.parquet", "", b"PAR1 this is not really parquet PAR1", "not a valid Parquet file"),
        ("broken.json", "json", b"[{\"a\": 1}, {\"a\": ", "JSON"),
        ("header_only.csv", "csv", b"a,b,c\n", "no data rows"),
        (
            "open_quote.csv",
            "",
            b"name,note\nana,fine\nbo,\"unterminated\ncy,ok\n",
            "A quoted value that starts on line 3 is never closed",
        ),
        ("one_column.csv", "", b"note\nfine\n\"open\nok\n", "A quoted value that starts on line 3 is never closed"),
    ];
    for (name, format, content, expected) in cases {
        let d = upload(&mut client, name, format, content).await.unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(status_of(&d), pb::DatasetStatus::Error, "{name} should fail: {d:?}");
        assert!(d.error.contains(expected), "{name}: reason {:?} should mention {expected:?}", d.error);
        assert!(!d.error.contains(server.data_dir.to_str().unwrap()), "{name}: no server paths in {:?}", d.error);
        let err = client.preview_rows(pb::PreviewRowsRequest { dataset_id: d.id.clone(), limit: 1 }).await.unwrap_err();
        assert_eq!((err.code(), reason(&err).as_str()), (Code::FailedPrecondition, "NOT_READY"), "{name}");
        let err = client
            .get_dataset_statistics(pb::GetDatasetStatisticsRequest { dataset_id: d.id.clone() })
            .await
            .unwrap_err();
        assert_eq!(err.code(), Code::FailedPrecondition);
    }
    let ragged =
        client.list_datasets(pb::ListDatasetsRequest { status_filter: pb::DatasetStatus::Error.into() }).await.unwrap();
    assert_eq!(ragged.into_inner().datasets.len(), cases.len());
    let ok = upload(&mut client, "fine.csv", "", b"x\n1\n").await.unwrap();
    assert_eq!(status_of(&ok), pb::DatasetStatus::Ready, "the server keeps working after bad files");
    assert!(server.is_running());
    let staged = std::fs::read_dir(server.data_dir.join("staging")).unwrap().count();
    assert_eq!(staged, 0, "no staged bytes are left behind");
}

#[tokio::test]
async fn bad_requests_get_clear_errors_and_leave_nothing_behind() {
    let server = TestServer::start_with_env(
        &["--no-samples"],
        &[("AWARE_LIMITS__MAX_UPLOAD_MB", "1"), ("AWARE_LIMITS__MAX_MESSAGE_MB", "2")],
    );
    let mut client = server.datasets().await;

    let err = upload(&mut client, "", "", b"a\n1\n").await.unwrap_err();
    assert_eq!(
        (err.code(), bad_field(&err).as_str(), reason(&err).as_str()),
        (Code::InvalidArgument, "filename", "VALIDATION_ERROR")
    );
    let err = upload(&mut client, "x.xlsx", "xlsx", b"a\n1\n").await.unwrap_err();
    assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "format"));
    assert!(err.message().contains("csv, tsv, parquet, json, ndjson, markdown or text"), "{}", err.message());
    let err = upload(&mut client, "evil\u{202E}vsc.csv", "", b"a\n1\n").await.unwrap_err();
    assert_eq!(bad_field(&err), "filename");
    let err = client.upload_dataset(tokio_stream::iter(Vec::<pb::UploadDatasetRequest>::new())).await.unwrap_err();
    assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "filename"));

    let big = vec![b'1'; 1024 * 1024 + 10];
    let mut csv = b"n\n".to_vec();
    csv.extend(big.iter().enumerate().map(|(i, b)| if i % 5 == 4 { b'\n' } else { *b }));
    let err = upload(&mut client, "big.csv", "", &csv).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::ResourceExhausted, "RESOURCE_EXHAUSTED"));
    assert!(err.message().contains("1 MiB"), "{}", err.message());

    let oversize = upload_messages("huge_message.csv", "", &vec![b'a'; 3 * 1024 * 1024], 3 * 1024 * 1024);
    let err = client.upload_dataset(tokio_stream::iter(oversize)).await.unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");

    for (id, code) in
        [("", Code::InvalidArgument), ("ds_doesnotexist", Code::NotFound), ("ds with spaces", Code::InvalidArgument)]
    {
        let e =
            client.get_dataset(pb::GetDatasetRequest { dataset_id: id.into(), sample_rows: None }).await.unwrap_err();
        assert_eq!(e.code(), code, "get {id:?}");
        let e = client.delete_dataset(pb::DeleteDatasetRequest { dataset_id: id.into() }).await.unwrap_err();
        assert_eq!(e.code(), code, "delete {id:?}");
        let e = client.preview_rows(pb::PreviewRowsRequest { dataset_id: id.into(), limit: 1 }).await.unwrap_err();
        assert_eq!(e.code(), code, "preview {id:?}");
    }
    let e = client
        .get_dataset(pb::GetDatasetRequest { dataset_id: "ds_nope".into(), sample_rows: None })
        .await
        .unwrap_err();
    assert_eq!(reason(&e), "NOT_FOUND");

    assert!(
        client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets.is_empty(),
        "refused uploads keep nothing"
    );
    assert_eq!(std::fs::read_dir(server.data_dir.join("staging")).map(|d| d.count()).unwrap_or(0), 0);
}

#[tokio::test]
async fn an_interrupted_upload_leaves_nothing_behind() {
    let server = TestServer::start(&["--no-samples"]);
    let mut client = server.datasets().await;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let call =
        tokio::spawn(async move { client.upload_dataset(tokio_stream::wrappers::ReceiverStream::new(rx)).await });
    // The client announces the size, so a stream that some client library ends cleanly on abort
    // is still recognised as truncated.
    tx.send(pb::UploadDatasetRequest {
        filename: "partial.csv".into(),
        format: String::new(),
        chunk: Bytes::from_static(b"a,b\n1,2\n"),
        size_bytes: 1_000_000,
    })
    .await
    .unwrap();
    tx.send(pb::UploadDatasetRequest { chunk: Bytes::from(vec![b'3'; 200_000]), ..Default::default() }).await.unwrap();
    // Wait until the server has started staging, then cut the connection mid-stream.
    let staging = server.data_dir.join("staging");
    for _ in 0..200 {
        if std::fs::read_dir(&staging).map(|d| d.count()).unwrap_or(0) > 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    // Abort the call while the request stream is still open (never half-closed): the server sees
    // the stream reset, not a finished upload.
    call.abort();
    let mut client = server.datasets().await;
    for _ in 0..200 {
        if std::fs::read_dir(&staging).map(|d| d.count()).unwrap_or(0) == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert_eq!(std::fs::read_dir(&staging).unwrap().count(), 0, "staged bytes are removed");
    let left = client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets;
    assert!(left.is_empty(), "{left:?}");
    drop(tx);
}

#[tokio::test]
async fn browser_chunked_uploads_append_idempotently_and_commit() {
    let server = TestServer::start(&["--no-samples"]);
    let mut client = server.datasets().await;
    let content = b"id,name\n1,alpha\n2,beta\n3,gamma\n";
    let up = client
        .create_upload(pb::CreateUploadRequest {
            filename: "chunks.csv".into(),
            format: String::new(),
            size_bytes: content.len() as u64,
        })
        .await
        .unwrap()
        .into_inner();
    assert!(up.upload_id.starts_with("up_"));
    assert!(up.max_chunk_bytes > 1024 * 1024);
    let append = |offset: usize, end: usize| pb::AppendUploadRequest {
        upload_id: up.upload_id.clone(),
        offset: offset as u64,
        chunk: Bytes::copy_from_slice(&content[offset..end]),
    };
    assert_eq!(client.append_upload(append(0, 10)).await.unwrap().into_inner().received_bytes, 10);
    assert_eq!(
        client.append_upload(append(0, 10)).await.unwrap().into_inner().received_bytes,
        10,
        "a retried chunk is harmless"
    );
    let err = client.append_upload(append(12, 20)).await.unwrap_err();
    assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "offset"));
    let err = client.commit_upload(pb::CommitUploadRequest { upload_id: up.upload_id.clone() }).await.unwrap_err();
    assert!(err.message().contains("incomplete"), "{}", err.message());
    assert_eq!(
        client.append_upload(append(10, content.len())).await.unwrap().into_inner().received_bytes,
        content.len() as u64
    );
    let d = client
        .commit_upload(pb::CommitUploadRequest { upload_id: up.upload_id.clone() })
        .await
        .unwrap()
        .into_inner()
        .dataset
        .unwrap();
    assert_eq!((status_of(&d), d.row_count, d.table_name.as_str()), (pb::DatasetStatus::Ready, 3, "chunks"));
    assert_eq!(d.version_hash, sha256_hex(content));
    let err = client.commit_upload(pb::CommitUploadRequest { upload_id: up.upload_id.clone() }).await.unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "a committed upload is gone");
    let err = client
        .create_upload(pb::CreateUploadRequest { filename: "x.csv".into(), format: String::new(), size_bytes: 1 << 40 })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
}

#[tokio::test]
async fn api_keys_scope_every_dataset_to_its_owner_and_roles_apply() {
    let server = TestServer::start(&["--auth", "api-key"]);
    let alice = add_user(&server.data_dir, "alice", "analyst", &[]);
    let bob = add_user(&server.data_dir, "bob", "viewer", &[]);
    let expired = add_user(&server.data_dir, "old", "admin", &["--expires-in-days", "0"]);
    assert!(alice.starts_with("aw_") && alice.len() == 67);
    let mut client = server.datasets().await;

    let err = client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::Unauthenticated, "UNAUTHENTICATED"));
    let err = client.list_datasets(authed(pb::ListDatasetsRequest::default(), "aw_forged")).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    let err = client.list_datasets(authed(pb::ListDatasetsRequest::default(), &expired)).await.unwrap_err();
    assert_eq!(err.code(), Code::Unauthenticated);
    assert!(err.message().contains("expired"), "{}", err.message());

    let listed = client.list_datasets(authed(pb::ListDatasetsRequest::default(), &alice)).await.unwrap().into_inner();
    assert!(listed.datasets.is_empty(), "the local user's samples are not alice's");

    let msgs = upload_messages("private.csv", "", b"secret\n42\n", 1024);
    let mine =
        client.upload_dataset(authed(tokio_stream::iter(msgs), &alice)).await.unwrap().into_inner().dataset.unwrap();
    assert_eq!(status_of(&mine), pb::DatasetStatus::Ready);

    let theirs = client.list_datasets(authed(pb::ListDatasetsRequest::default(), &bob)).await.unwrap().into_inner();
    assert!(theirs.datasets.is_empty(), "bob cannot see alice's dataset");
    for err in [
        client
            .get_dataset(authed(pb::GetDatasetRequest { dataset_id: mine.id.clone(), sample_rows: None }, &bob))
            .await
            .unwrap_err(),
        client
            .preview_rows(authed(pb::PreviewRowsRequest { dataset_id: mine.id.clone(), limit: 1 }, &bob))
            .await
            .unwrap_err(),
        client
            .get_dataset_statistics(authed(pb::GetDatasetStatisticsRequest { dataset_id: mine.id.clone() }, &bob))
            .await
            .unwrap_err(),
    ] {
        assert_eq!(err.code(), Code::NotFound, "another user's dataset looks like no dataset");
    }
    let msgs = upload_messages("bob.csv", "", b"a\n1\n", 1024);
    let err = client.upload_dataset(authed(tokio_stream::iter(msgs), &bob)).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::PermissionDenied, "PERMISSION_DENIED"));
    let err = client
        .delete_dataset(authed(pb::DeleteDatasetRequest { dataset_id: mine.id.clone() }, &bob))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::PermissionDenied, "a viewer cannot delete at all");

    let mut req = authed(pb::DeleteDatasetRequest { dataset_id: mine.id.clone() }, &alice);
    req.metadata_mut().insert("x-aware-source", "web".parse().unwrap());
    client.delete_dataset(req).await.unwrap();

    let store = aware_e2e::storage::open(&server.data_dir).await;
    let users = aware_domain::ports::Users::list_users(&store).await.unwrap();
    let alice_id = users.iter().find(|u| u.name == "alice").unwrap().id.clone();
    let trail = store.audit_trail(&alice_id).await.unwrap();
    let actions: Vec<(&str, &str, &str)> =
        trail.iter().map(|a| (a.action.as_str(), a.source.as_str(), a.outcome.as_str())).collect();
    assert_eq!(actions, [("dataset.upload", "api", "succeeded"), ("dataset.delete", "web", "succeeded")]);
    assert_eq!(trail[1].resource_id, mine.id);
}

#[tokio::test]
async fn delete_removes_data_and_catalog_and_a_restart_keeps_the_rest() {
    let tmp = tempfile::tempdir().unwrap();
    let data_dir = tmp.path().join("data");
    let mut server = TestServer::start_in(&data_dir, &[], &[]);
    let mut client = server.datasets().await;
    let list = client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets;
    let churn = list.iter().find(|d| d.table_name == "customer_churn").unwrap().clone();
    let file = data_dir.join("datasets").join("usr_local").join(format!("{}.duckdb", churn.id));
    assert!(file.exists(), "content lives in {}", file.display());

    let deleted =
        client.delete_dataset(pb::DeleteDatasetRequest { dataset_id: churn.id.clone() }).await.unwrap().into_inner();
    assert_eq!(deleted.dataset_id, churn.id);
    assert!(!file.exists(), "the data file is removed");
    let err = client
        .get_dataset(Request::new(pb::GetDatasetRequest { dataset_id: churn.id.clone(), sample_rows: None }))
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::NotFound);
    let err = client.delete_dataset(pb::DeleteDatasetRequest { dataset_id: churn.id.clone() }).await.unwrap_err();
    assert_eq!(err.code(), Code::NotFound, "deleting twice is NOT_FOUND");

    drop(client);
    assert!(server.stop(), "SIGTERM stops the server gracefully");
    let server = TestServer::start_in(&data_dir, &[], &[]);
    let mut client = server.datasets().await;
    let after: Vec<String> = client
        .list_datasets(pb::ListDatasetsRequest::default())
        .await
        .unwrap()
        .into_inner()
        .datasets
        .into_iter()
        .map(|d| d.table_name)
        .collect();
    assert_eq!(after, ["support_tickets", "barcelona_apartments"], "no re-seeding, deletion persisted");
    let store = aware_e2e::storage::open(&data_dir).await;
    let trail = store.audit_trail(&aware_domain::ids::UserId::local()).await.unwrap();
    let sources: Vec<(&str, &str)> = trail.iter().map(|a| (a.action.as_str(), a.source.as_str())).collect();
    assert_eq!(
        sources,
        [
            ("dataset.upload", "system"),
            ("dataset.upload", "system"),
            ("dataset.upload", "system"),
            ("dataset.delete", "api")
        ]
    );
}

/// One raw HTTP/1.1 exchange (the connection closes after it).
fn http1(addr: std::net::SocketAddr, request: &[u8]) -> Vec<u8> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(30))).unwrap();
    stream.write_all(request).unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    response
}

/// A grpc-web call from `origin` (an empty ListDatasetsRequest), and its answer.
fn grpc_web_list(host: std::net::SocketAddr, origin: &str) -> String {
    // One length-prefixed frame holding an empty ListDatasetsRequest.
    let mut req = format!(
        "POST /aware.v1.DatasetsService/ListDatasets HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\
         Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
    )
    .into_bytes();
    req.extend_from_slice(&[0, 0, 0, 0, 0]);
    String::from_utf8_lossy(&http1(host, &req)).into_owned()
}

/// By default a local server answers browsers on its own origin only: a page on another local
/// port (any other app's, or a hostile one) would otherwise drive a server that asks no
/// credential — and approve its own confirmations. The web app aware serves is same-origin.
#[test]
fn by_default_only_the_servers_own_origin_may_call_it() {
    let server = TestServer::start(&[]);
    let host = server.addr;
    let other = grpc_web_list(host, "http://localhost:5173");
    assert!(!other.contains("barcelona_apartments"), "another local page is refused: {other}");
    assert_eq!(grpc_status(&other), Some(7), "PERMISSION_DENIED: {other}");
    let own = grpc_web_list(host, &format!("http://{host}"));
    assert!(own.contains("barcelona_apartments"), "the server's own pages may: {own}");
}

#[test]
fn browsers_reach_the_api_over_grpc_web_from_allowed_origins_only() {
    let server = TestServer::start_with_env(&[], &[("AWARE_CORS_ORIGINS", "[\"http://localhost:5173\"]")]);
    let host = server.addr;
    let preflight = |origin: &str| {
        let req = format!(
            "OPTIONS /aware.v1.DatasetsService/ListDatasets HTTP/1.1\r\nHost: {host}\r\nOrigin: {origin}\r\n\
             Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type,x-grpc-web,authorization\r\n\
             Connection: close\r\n\r\n"
        );
        String::from_utf8_lossy(&http1(host, req.as_bytes())).to_ascii_lowercase()
    };
    let allowed = preflight("http://localhost:5173");
    assert!(allowed.starts_with("http/1.1 200"), "{allowed}");
    assert!(allowed.contains("access-control-allow-origin: http://localhost:5173"), "{allowed}");
    assert!(allowed.contains("authorization"), "the bearer header may be sent: {allowed}");
    let refused = preflight("http://evil.example");
    assert!(!refused.contains("access-control-allow-origin"), "other sites may not call a local server: {refused}");

    let text = grpc_web_list(host, "http://localhost:5173");
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    assert!(text.to_ascii_lowercase().contains("access-control-expose-headers"), "{text}");
    assert!(text.contains("barcelona_apartments"), "the datasets arrive in the body");
    assert!(text.contains("grpc-status:0"), "the status arrives as a grpc-web trailer frame: {text}");
}

/// The status a grpc-web or gRPC answer carries in its headers or trailer frame, when it says.
fn grpc_status(response: &str) -> Option<u32> {
    let lower = response.to_ascii_lowercase();
    let at = lower.find("grpc-status:")? + "grpc-status:".len();
    lower[at..].trim_start().chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok()
}

/// DNS rebinding: a page on `attacker.example`, re-pointed at 127.0.0.1, calls the API with its
/// own name as `Host` and `Origin` — same-origin to the browser, so CORS never applies. The server
/// refuses it before routing (the dataset survives), and never serves the web page for a foreign
/// host; the same call with the server's own host goes through.
#[test]
fn a_dns_rebinding_request_is_refused_and_the_dataset_survives() {
    let web = tempfile::tempdir().unwrap();
    std::fs::write(web.path().join("index.html"), "<html>aware web app</html>").unwrap();
    let server = TestServer::start(&["--web-dir", web.path().to_str().unwrap()]);
    let (addr, port) = (server.addr, server.addr.port());
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let list = || {
        runtime.block_on(async {
            let mut client = server.datasets().await;
            let all = client.list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner().datasets;
            all.into_iter().map(|d| (d.table_name, d.id)).collect::<BTreeMap<String, String>>()
        })
    };
    let before = list();
    let churn = before["customer_churn"].clone();
    let delete = |host: &str, origin: Option<&str>, id: &str| {
        use prost::Message as _;
        let message = pb::DeleteDatasetRequest { dataset_id: id.to_owned() }.encode_to_vec();
        let mut body = vec![0];
        body.extend((message.len() as u32).to_be_bytes());
        body.extend(message);
        let origin = origin.map(|o| format!("Origin: {o}\r\n")).unwrap_or_default();
        let mut req = format!(
            "POST /aware.v1.DatasetsService/DeleteDataset HTTP/1.1\r\nHost: {host}\r\n{origin}\
             Content-Type: application/grpc-web+proto\r\nX-Grpc-Web: 1\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        )
        .into_bytes();
        req.extend(body);
        String::from_utf8_lossy(&http1(addr, &req)).into_owned()
    };

    let attacker = format!("attacker.example:{port}");
    let answer = delete(&attacker, Some(&format!("http://{attacker}")), &churn);
    assert_eq!(grpc_status(&answer), Some(7), "PERMISSION_DENIED: {answer}");
    assert!(answer.contains("attacker.example"), "the refusal names the host: {answer}");
    let answer = delete(&format!("127.0.0.1:{port}"), Some(&format!("http://{attacker}")), &churn);
    assert_eq!(grpc_status(&answer), Some(7), "a foreign Origin on a call is refused too: {answer}");
    assert_eq!(list(), before, "nothing was deleted");

    let page = |host: &str| {
        let req = format!("GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        String::from_utf8_lossy(&http1(addr, req.as_bytes())).into_owned()
    };
    let foreign = page(&attacker);
    assert!(foreign.starts_with("HTTP/1.1 403") && !foreign.contains("aware web app"), "{foreign}");
    for host in [format!("127.0.0.1:{port}"), format!("localhost:{port}")] {
        let own = page(&host);
        assert!(own.starts_with("HTTP/1.1 200") && own.contains("aware web app"), "{host}: {own}");
    }

    // The very same call, sent to this server's own name, is a valid request that deletes.
    let answer = delete(&format!("localhost:{port}"), Some(&format!("http://localhost:{port}")), &churn);
    assert_eq!(grpc_status(&answer), Some(0), "{answer}");
    assert!(!list().contains_key("customer_churn"));
}

/// A streamed upload is checked as its bytes arrive: more than `size_bytes` announced is refused
/// at once (the stream still open), a client that goes quiet is dropped after
/// `limits.upload_idle_secs`, and one user holds at most `limits.max_upload_streams_per_user`
/// streams (told when to retry) while another user uploads freely. Nothing refused is kept.
#[tokio::test]
async fn streamed_uploads_are_checked_as_bytes_arrive_capped_per_user_and_dropped_when_idle() {
    use tokio::sync::mpsc;
    use tokio_stream::StreamExt as _;
    use tonic_types::StatusExt;
    type Call = tokio::task::JoinHandle<Result<tonic::Response<pb::UploadDatasetResponse>, Status>>;
    let server = TestServer::start_with_env(
        &["--auth", "api-key", "--no-samples"],
        &[("AWARE_LIMITS__UPLOAD_IDLE_SECS", "2"), ("AWARE_LIMITS__MAX_UPLOAD_STREAMS_PER_USER", "2")],
    );
    let ana = add_user(&server.data_dir, "ana", "analyst", &[]);
    let bo = add_user(&server.data_dir, "bo", "analyst", &[]);
    // An upload that announces `size` bytes and sends a header line, its stream open until the
    // sender is dropped.
    let open = |token: &str, filename: &str, size: u64| -> (mpsc::Sender<pb::UploadDatasetRequest>, Call) {
        let (url, token) = (server.url(), token.to_owned());
        let first = pb::UploadDatasetRequest {
            filename: filename.to_owned(),
            format: String::new(),
            size_bytes: size,
            chunk: Bytes::from_static(b"a,b\n"),
        };
        let (tx, rx) = mpsc::channel::<pb::UploadDatasetRequest>(8);
        let call = tokio::spawn(async move {
            let mut client = DatasetsServiceClient::connect(url).await.unwrap();
            let stream = tokio_stream::iter([first]).chain(tokio_stream::wrappers::ReceiverStream::new(rx));
            client.upload_dataset(authed(stream, &token)).await
        });
        (tx, call)
    };
    async fn answer(what: &str, call: Call) -> Result<tonic::Response<pb::UploadDatasetResponse>, Status> {
        tokio::time::timeout(std::time::Duration::from_secs(30), call)
            .await
            .unwrap_or_else(|_| panic!("{what}: no answer within 30 s"))
            .unwrap()
    }

    // 10 bytes announced, a megabyte sent, the stream left open: refused without waiting for its end.
    let (tx, call) = open(&ana, "over.csv", 10);
    tx.send(pb::UploadDatasetRequest { chunk: Bytes::from(vec![b'1'; 1 << 20]), ..Default::default() }).await.unwrap();
    let err = answer("an oversized stream", call).await.unwrap_err();
    assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "size_bytes"), "{err:?}");
    assert!(err.message().contains("more than the announced 10 bytes"), "{}", err.message());
    drop(tx);

    // A stream that sends one chunk and goes quiet is abandoned.
    let (quiet, call) = open(&ana, "quiet.csv", 0);
    let err = answer("an idle stream", call).await.unwrap_err();
    assert_eq!(err.code(), Code::Cancelled, "{err:?}");
    assert!(err.message().contains("sent nothing for 2 s"), "{}", err.message());
    drop(quiet);

    // Two open streams are ana's limit; the third is refused with a retry hint; bo uploads.
    let held: Vec<_> = (0..2).map(|i| open(&ana, &format!("held{i}.csv"), 0)).collect();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let (tx, call) = open(&ana, "third.csv", 4);
    let err = answer("a third stream", call).await.unwrap_err();
    assert_eq!((err.code(), reason(&err).as_str()), (Code::ResourceExhausted, "RESOURCE_EXHAUSTED"), "{err:?}");
    assert!(err.get_details_retry_info().and_then(|r| r.retry_delay).is_some(), "a RetryInfo");
    drop(tx);
    let mut client = server.datasets().await;
    let msgs = upload_messages("bo.csv", "", b"k,v\n1,2\n", 1024);
    let theirs = client.upload_dataset(authed(tokio_stream::iter(msgs), &bo)).await.unwrap().into_inner();
    assert_eq!(status_of(&theirs.dataset.unwrap()), pb::DatasetStatus::Ready, "the cap is per user");
    for (tx, call) in held {
        drop(tx);
        let _ = answer("a held stream", call).await;
    }
    let msgs = upload_messages("again.csv", "", b"k,v\n1,2\n", 1024);
    let again = client.upload_dataset(authed(tokio_stream::iter(msgs), &ana)).await.unwrap().into_inner();
    assert_eq!(again.dataset.unwrap().table_name, "again", "closed streams free their places");
    let names: Vec<String> = client
        .list_datasets(authed(pb::ListDatasetsRequest::default(), &ana))
        .await
        .unwrap()
        .into_inner()
        .datasets
        .into_iter()
        .map(|d| d.table_name)
        .collect();
    for refused in ["over", "quiet", "third"] {
        assert!(!names.contains(&refused.to_owned()), "a refused upload keeps nothing: {names:?}");
    }
    assert_eq!(std::fs::read_dir(server.data_dir.join("staging")).map(|d| d.count()).unwrap_or(0), 0);
}

/// `AppendUpload` with an offset near 2^64 is a bad offset (INVALID_ARGUMENT), not an overflow
/// that takes the handler down; the upload then continues normally.
#[tokio::test]
async fn an_append_offset_near_two_to_the_sixty_four_is_invalid_and_the_upload_goes_on() {
    let server = TestServer::start(&["--no-samples"]);
    let mut client = server.datasets().await;
    let content = b"id\n1\n2\n";
    let up = client
        .create_upload(pb::CreateUploadRequest { filename: "wrap.csv".into(), format: String::new(), size_bytes: 0 })
        .await
        .unwrap()
        .into_inner();
    for offset in [u64::MAX, u64::MAX - 2, 1 << 63] {
        let req =
            pb::AppendUploadRequest { upload_id: up.upload_id.clone(), offset, chunk: Bytes::copy_from_slice(content) };
        let err = client.append_upload(req).await.unwrap_err();
        assert_eq!((err.code(), bad_field(&err).as_str()), (Code::InvalidArgument, "offset"), "{offset}: {err:?}");
    }
    let req =
        pb::AppendUploadRequest { upload_id: up.upload_id.clone(), offset: 0, chunk: Bytes::copy_from_slice(content) };
    assert_eq!(client.append_upload(req).await.unwrap().into_inner().received_bytes, content.len() as u64);
    let d = client.commit_upload(pb::CommitUploadRequest { upload_id: up.upload_id }).await.unwrap().into_inner();
    assert_eq!(d.dataset.unwrap().row_count, 2);
}

/// A Parquet file whose footer says it decodes to gigabytes (one 4 MiB string, 2,000 rows: a few
/// hundred bytes compressed) is refused from its metadata, before a worker parses it: the dataset
/// is in ERROR saying why, quickly, and an ordinary upload right after is served.
#[tokio::test]
async fn a_parquet_decompression_bomb_is_refused_from_its_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("bomb.parquet");
    let conn = duckdb::Connection::open_in_memory().unwrap();
    conn.execute_batch(&format!(
        "COPY (SELECT s FROM (SELECT repeat('a', 4 * 1024 * 1024) AS s) CROSS JOIN range(2000)) TO '{}' \
         (FORMAT parquet, COMPRESSION zstd)",
        bomb.display()
    ))
    .unwrap();
    let bytes = std::fs::read(&bomb).unwrap();
    assert!(bytes.len() < 64 * 1024, "the bomb is small: {} bytes", bytes.len());

    let server = TestServer::start(&["--no-samples"]);
    let mut client = server.datasets().await;
    let d = upload(&mut client, "bomb.parquet", "", &bytes).await.unwrap();
    assert_eq!(status_of(&d), pb::DatasetStatus::Error, "{d:?}");
    assert!(d.error.contains("once decompressed") && d.error.contains("metadata"), "{}", d.error);
    let ok = upload(&mut client, "tiny.csv", "", b"a\n1\n").await.unwrap();
    assert_eq!(status_of(&ok), pb::DatasetStatus::Ready);
}
