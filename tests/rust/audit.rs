#![allow(clippy::unwrap_used)]
//! Admin over the API and the audit log, against the real binary. Users and keys: admins only,
//! a revoked key or a deactivated user refused from the next call (an open stream ends), a role
//! change effective at once. The audit log: every change is there with the
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

#[tokio::test]
async fn admins_manage_users_and_keys_and_a_change_holds_from_the_next_call() {
    let server = TestServer::start(&["--auth", "api-key", "--no-samples"]);
    let root = AwareClient::connect(&server.url(), Some(&add_user(&server.data_dir, "root", "admin", &[])), "cli")
        .await
        .unwrap();
    let ana = AwareClient::connect(&server.url(), Some(&add_user(&server.data_dir, "ana", "analyst", &[])), "api")
        .await
        .unwrap();
    let code = |r: Result<tonic::Response<pb::ListUsersResponse>, tonic::Status>| r.unwrap_err().code();
    assert_eq!(code(ana.admin().list_users(pb::ListUsersRequest {}).await), tonic::Code::PermissionDenied);
    let create = |name: &str, role: pb::UserRole| pb::CreateUserRequest { name: name.into(), role: role.into() };
    let status = ana.admin().create_user(create("mallory", pb::UserRole::Admin)).await.unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied, "an analyst makes no users");

    let cy = root.admin().create_user(create("cy", pb::UserRole::Viewer)).await.unwrap().into_inner().user.unwrap();
    assert_eq!((cy.name.as_str(), cy.role()), ("cy", pb::UserRole::Viewer));
    let key_for = |user_id: String| pb::CreateApiKeyRequest { user_id, expires_at: None };
    let made = root.admin().create_api_key(key_for(cy.user_id.clone())).await.unwrap().into_inner();
    let cys = AwareClient::connect(&server.url(), Some(&made.token), "api").await.unwrap();
    let key = made.key.unwrap();
    assert!(made.token.starts_with(&key.prefix) && key.prefix.len() == 11, "{key:?}");
    let listed = root.admin().list_api_keys(pb::ListApiKeysRequest { user_id: cy.user_id.clone() }).await.unwrap();
    assert_eq!(listed.into_inner().keys, std::slice::from_ref(&key), "keys by prefix, never a token");
    let upload = |c: &AwareClient| {
        let c = c.clone();
        async move { c.upload("cy.csv", bytes::Bytes::from("a\n1\n"), |_| {}).await }
    };
    assert!(cys.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.is_ok());
    assert_eq!(upload(&cys).await.unwrap_err().code(), tonic::Code::PermissionDenied, "a viewer uploads nothing");

    // A role change holds from the next call.
    let update = |role: pb::UserRole, activation: pb::UserActivation| pb::UpdateUserRequest {
        user_id: cy.user_id.clone(),
        role: role.into(),
        activation: activation.into(),
    };
    let promoted = root.admin().update_user(update(pb::UserRole::Analyst, pb::UserActivation::Unspecified)).await;
    assert_eq!(promoted.unwrap().into_inner().user.unwrap().role(), pb::UserRole::Analyst);
    upload(&cys).await.unwrap();

    // A revoked key is refused on its next call, and its open Chat stream ends; a new key works.
    let (hold, outbound) = tokio::sync::mpsc::channel::<pb::ChatRequest>(1);
    let mut open = cys.chat().chat(tokio_stream::wrappers::ReceiverStream::new(outbound)).await.unwrap().into_inner();
    let revoked = root.admin().revoke_api_key(pb::RevokeApiKeyRequest { key_id: key.key_id.clone() }).await.unwrap();
    assert!(revoked.into_inner().key.unwrap().revoked_at.is_some());
    let ended = tokio::time::timeout(std::time::Duration::from_secs(30), async {
        loop {
            match open.message().await {
                Ok(Some(_)) => {} // heartbeats
                Ok(None) => panic!("the stream ended without saying why"),
                Err(status) => break status,
            }
        }
    })
    .await
    .expect("the open stream ends");
    assert_eq!(ended.code(), tonic::Code::Unauthenticated, "{ended:?}");
    drop(hold);
    let refused = cys.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated, "{refused:?}");
    let again = root.admin().create_api_key(key_for(cy.user_id.clone())).await.unwrap().into_inner();
    let cys = AwareClient::connect(&server.url(), Some(&again.token), "api").await.unwrap();
    assert!(cys.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.is_ok());

    // Deactivated: every key refused, nothing deleted; reactivated: the same key works again.
    let off = root.admin().update_user(update(pb::UserRole::Unspecified, pb::UserActivation::Deactivate)).await;
    assert!(off.unwrap().into_inner().user.unwrap().deactivated_at.is_some());
    let refused = cys.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    assert!(refused.message().contains("deactivated"), "{refused:?}");
    root.admin().update_user(update(pb::UserRole::Unspecified, pb::UserActivation::Reactivate)).await.unwrap();
    let back = cys.datasets().list_datasets(pb::ListDatasetsRequest::default()).await.unwrap().into_inner();
    assert_eq!(back.datasets.len(), 1, "their dataset is still there");

    // No slip locks the server out; unknown ids and bad roles say so.
    let me = root.admin().list_users(pb::ListUsersRequest {}).await.unwrap().into_inner().users;
    // (`local` is the implicit user of --auth local, kept for the data it may own.)
    assert_eq!(me.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["local", "root", "ana", "cy"]);
    let demote =
        pb::UpdateUserRequest { user_id: me[1].user_id.clone(), role: pb::UserRole::Viewer.into(), activation: 0 };
    assert_eq!(root.admin().update_user(demote).await.unwrap_err().code(), tonic::Code::PermissionDenied);
    let nobody = root.admin().create_api_key(key_for("usr_0123456789abcdef0123456789abcdef".into())).await;
    assert_eq!(nobody.unwrap_err().code(), tonic::Code::NotFound);
    let bad = pb::CreateUserRequest { name: "x".into(), role: 42 };
    assert_eq!(root.admin().create_user(bad).await.unwrap_err().code(), tonic::Code::InvalidArgument);

    // Each change is in root's audit trail, from the CLI.
    let trail = entries(&root, pb::ListAuditEntriesRequest { page_size: 100, ..Default::default() }).await;
    let mut done: Vec<(&str, &str)> =
        actions(&trail).into_iter().filter(|(a, _)| a.starts_with("user.") || a.starts_with("api_key.")).collect();
    done.reverse();
    assert_eq!(
        done,
        [
            ("user.create", "cli"),
            ("api_key.create", "cli"),
            ("user.role", "cli"),
            ("api_key.revoke", "cli"),
            ("api_key.create", "cli"),
            ("user.deactivate", "cli"),
            ("user.reactivate", "cli"),
        ]
    );
}
