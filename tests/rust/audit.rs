#![allow(clippy::unwrap_used)]
//! The audit log, read over the API against the real binary: every change is there with the
//! source it came from — the assistant's as `ai_assistant` even when a web client approved it,
//! a person's as the `web`/`cli`/`api` their client says — filtered by user, source, action and
//! time, paged newest first; an admin reads everyone's, anyone else only their own.

use aware_client::AwareClient;
use aware_e2e::events::follow;
use aware_e2e::{TestServer, add_user, bad_field};
use aware_proto::v1 as pb;

async fn entries(client: &AwareClient, req: pb::ListAuditEntriesRequest) -> Vec<pb::AuditEntry> {
    client.audit().list_audit_entries(req).await.unwrap().into_inner().entries
}

fn actions(all: &[pb::AuditEntry]) -> Vec<(&str, &str)> {
    all.iter().map(|e| (e.action.as_str(), e.source.as_str())).collect()
}

#[tokio::test]
async fn the_audit_log_says_who_changed_what_from_where_and_each_user_reads_their_own() {
    let server = TestServer::start(&["--auth", "api-key", "--no-samples"]);
    let admin = add_user(&server.data_dir, "root", "admin", &[]);
    let ana = add_user(&server.data_dir, "ana", "analyst", &[]);
    let bo = add_user(&server.data_dir, "bo", "analyst", &[]);
    let connect = |token: String, source: &'static str| {
        let url = server.url();
        async move { AwareClient::connect(&url, Some(&token), source).await.unwrap() }
    };
    let ana_web = connect(ana.clone(), "web").await;
    let ana_cli = connect(ana.clone(), "cli").await;
    let bo_api = connect(bo.clone(), "api").await;
    let root = connect(admin.clone(), "cli").await;

    // A person's changes, from the web app and the CLI.
    let csv = |rows: &str| bytes::Bytes::from(format!("team,score\n{rows}"));
    ana_web.upload("scores.csv", csv("red,3\nblue,5\n"), |_| {}).await.unwrap();
    let spare = ana_cli.upload("spare.csv", csv("green,1\n"), |_| {}).await.unwrap();
    ana_cli.datasets().delete_dataset(pb::DeleteDatasetRequest { dataset_id: spare.id.clone() }).await.unwrap();
    bo_api.upload("bo.csv", csv("gold,9\n"), |_| {}).await.unwrap();
    // The assistant's change, approved in the web app: still the assistant's.
    let sent = ana_web.send_message("", "delete the scores dataset", "").await.unwrap();
    follow(&ana_web, &sent.run_id, |c| c.tool_name == "delete_dataset").await;
    let left = ana_web.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner();
    assert!(left.datasets.is_empty(), "the approved delete ran: {:?}", left.datasets);

    let own = entries(&ana_web, pb::ListAuditEntriesRequest::default()).await;
    assert!(own.iter().all(|e| e.user_id == own[0].user_id), "ana reads her own entries only");
    let dataset_changes: Vec<_> = actions(&own).into_iter().filter(|(a, _)| a.starts_with("dataset.")).collect();
    assert_eq!(
        dataset_changes,
        [
            ("dataset.delete", "ai_assistant"),
            ("dataset.delete", "cli"),
            ("dataset.upload", "cli"),
            ("dataset.upload", "web"),
        ],
        "newest first, each with the source it came from"
    );
    let at = |e: &pb::AuditEntry| e.at.map(|t| (t.seconds, t.nanos)).unwrap();
    assert!(own.windows(2).all(|w| w[0].entry_id > w[1].entry_id && at(&w[0]) >= at(&w[1])));
    let by_assistant =
        entries(&ana_web, pb::ListAuditEntriesRequest { source: "ai_assistant".into(), ..Default::default() }).await;
    assert!(!by_assistant.is_empty() && by_assistant.iter().all(|e| e.source == "ai_assistant"));
    assert!(!by_assistant.iter().any(|e| e.source == "web"), "an assistant's change is never recorded as web");
    let deletes =
        entries(&ana_cli, pb::ListAuditEntriesRequest { action: "dataset.delete".into(), ..Default::default() }).await;
    assert_eq!(deletes.len(), 2);
    let details: serde_json::Value = serde_json::from_str(&deletes[1].details_json).unwrap();
    assert!(details.is_object(), "{details}");

    // Time windows and pages.
    let newest = own[0].at.unwrap();
    let before_newest =
        entries(&ana_web, pb::ListAuditEntriesRequest { until: Some(newest), ..Default::default() }).await;
    assert!(!before_newest.is_empty());
    assert!(before_newest.iter().all(|e| at(e) < (newest.seconds, newest.nanos)), "until is exclusive");
    let mut paged = Vec::new();
    let mut page_token = String::new();
    loop {
        let req = pb::ListAuditEntriesRequest { page_size: 2, page_token, ..Default::default() };
        let page = ana_web.audit().list_audit_entries(req).await.unwrap().into_inner();
        assert!(page.entries.len() <= 2);
        paged.extend(page.entries);
        if page.next_page_token.is_empty() {
            break;
        }
        page_token = page.next_page_token;
    }
    assert_eq!(paged, own, "pages of two add up to the whole");

    // Another user's entries: an admin's to read.
    let bo_id = entries(&bo_api, pb::ListAuditEntriesRequest::default()).await[0].user_id.clone();
    let status = ana_web
        .audit()
        .list_audit_entries(pb::ListAuditEntriesRequest { user_id: bo_id.clone(), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied, "{status:?}");
    let bos = entries(&root, pb::ListAuditEntriesRequest { user_id: bo_id.clone(), ..Default::default() }).await;
    assert_eq!(actions(&bos), [("dataset.upload", "api")]);
    let everyone = entries(&root, pb::ListAuditEntriesRequest { page_size: 100, ..Default::default() }).await;
    assert!(everyone.iter().any(|e| e.user_id == bo_id) && everyone.iter().any(|e| e.user_id == own[0].user_id));

    // Requests it cannot answer say why.
    for (req, field) in [
        (pb::ListAuditEntriesRequest { source: "browser".into(), ..Default::default() }, "source"),
        (pb::ListAuditEntriesRequest { page_token: "next".into(), ..Default::default() }, "page_token"),
        (pb::ListAuditEntriesRequest { page_size: 1000, ..Default::default() }, "page_size"),
        (
            pb::ListAuditEntriesRequest {
                since: Some(prost_types::Timestamp { seconds: 2_000_000_000, nanos: 0 }),
                until: Some(prost_types::Timestamp { seconds: 1_000_000_000, nanos: 0 }),
                ..Default::default()
            },
            "until",
        ),
    ] {
        let status = root.audit().list_audit_entries(req).await.unwrap_err();
        assert_eq!((status.code(), bad_field(&status)), (tonic::Code::InvalidArgument, field.to_owned()));
    }
}
