//! Authorisation at the moment of effect, against the real binary in api-key mode: a run keeps
//! no power its owner has lost. When an approval arrives, and again just before an approved call
//! takes effect, the owner's role, active state and the key the run was started with are read as
//! they are now — a demoted admin's pending `create_user` cannot be approved, one demoted while
//! the call is under way does nothing, a run started with a key revoked since acts on no later
//! approval, and a session grant ends when its owner's role no longer allows its tool.

#![allow(clippy::unwrap_used)] // test helpers: a panic is the failure report

use aware_client::AwareClient;
use aware_e2e::events::{denials, results};
use aware_e2e::{ScriptFile, TestServer, add_user};
use aware_proto::v1 as pb;
use futures::StreamExt;
use pb::server_event::Payload as P;
use serde_json::json;
use std::time::Duration;

/// The scripted model: "zz make eve" creates an admin, "zz key for root" makes root a key, "zz
/// rename" renames `cities`.
fn script() -> ScriptFile {
    ScriptFile::new(&json!({"replies": [
        {"when": "zz make eve", "turns": [
            {"tool_calls": [{"name": "create_user", "arguments": {"name": "eve", "role": "admin"}}]},
            {"chunks": ["Asked."]}
        ]},
        {"when": "zz key for root", "turns": [
            {"tool_calls": [{"name": "create_api_key", "arguments": {"user": "root"}}]},
            {"chunks": ["Asked."]}
        ]},
        {"when": "zz rename", "turns": [
            {"tool_calls": [{"name": "rename_dataset", "arguments": {"dataset": "cities", "to": "towns"}}]},
            {"chunks": ["Asked."]}
        ]}
    ]}))
}

struct Setup {
    server: TestServer,
    root: AwareClient,
    ana: AwareClient,
    ana_id: String,
    _script: ScriptFile,
    _dir: tempfile::TempDir,
}

/// A server in api-key mode with two admins, root and ana; `env` on top.
async fn setup(ana_role: &str, env: &[(&str, &str)]) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let root_token = add_user(&data, "root", "admin", &[]);
    let ana_token = add_user(&data, "ana", ana_role, &[]);
    let script = script();
    let mut all = script.env().to_vec();
    all.extend_from_slice(env);
    let server = TestServer::start_in(&data, &["--auth", "api-key"], &all);
    let root = server.client(Some(&root_token)).await;
    let ana = server.client(Some(&ana_token)).await;
    let users = root.admin().list_users(pb::ListUsersRequest::default()).await.unwrap().into_inner().users;
    let ana_id = users.iter().find(|u| u.name == "ana").unwrap().user_id.clone();
    Setup { server, root, ana, ana_id, _script: script, _dir: dir }
}

/// Follows a run until it asks a person; the card.
async fn card(client: &AwareClient, run_id: &str) -> pb::ConfirmationRequired {
    let mut stream = client.run_stream(run_id, Default::default());
    loop {
        let Some(Ok(aware_client::StreamItem::Event(e))) = stream.next().await else { panic!("the run asks") };
        if let Some(P::ConfirmationRequired(c)) = e.payload {
            return c;
        }
    }
}

/// A run's events to its end, answering nothing.
async fn to_the_end(client: &AwareClient, run_id: &str) -> Vec<pb::ServerEvent> {
    let mut stream = client.run_stream(run_id, Default::default());
    let mut events = Vec::new();
    while let Some(item) = tokio::time::timeout(Duration::from_secs(60), stream.next()).await.unwrap() {
        if let aware_client::StreamItem::Event(e) = item.unwrap() {
            events.push(e);
        }
    }
    events
}

async fn set_role(root: &AwareClient, user_id: &str, role: pb::UserRole) {
    let req = pb::UpdateUserRequest { user_id: user_id.to_owned(), role: role.into(), ..Default::default() };
    root.admin().update_user(req).await.unwrap();
}

async fn user_names(root: &AwareClient) -> Vec<String> {
    let users = root.admin().list_users(pb::ListUsersRequest::default()).await.unwrap().into_inner().users;
    users.into_iter().map(|u| u.name).collect()
}

async fn approve(client: &AwareClient, confirmation_id: &str) -> Result<pb::SubmitConfirmationResponse, tonic::Status> {
    let req = pb::SubmitConfirmationRequest {
        confirmation_id: confirmation_id.to_owned(),
        approved: true,
        ..Default::default()
    };
    client.chat().submit_confirmation(req).await.map(tonic::Response::into_inner)
}

/// An admin asks to create an admin and to make root a key; both wait for approval. Another admin
/// makes them a viewer. Their approvals are refused (PERMISSION_DENIED), the runs are told why,
/// nobody is created and no token reaches their stream.
#[tokio::test]
async fn a_demoted_admin_cannot_approve_what_they_asked_for_as_an_admin() {
    let s = setup("admin", &[]).await;
    let make = s.ana.send_message("", "zz make eve", "").await.unwrap();
    let key = s.ana.send_message("", "zz key for root", "").await.unwrap();
    let make_card = card(&s.ana, &make.run_id).await;
    let key_card = card(&s.ana, &key.run_id).await;

    set_role(&s.root, &s.ana_id, pb::UserRole::Viewer).await;
    let listed = s.ana.admin().list_users(pb::ListUsersRequest::default()).await.unwrap_err();
    assert_eq!(listed.code(), tonic::Code::PermissionDenied, "ana is a viewer now");

    for (run_id, c) in [(&make.run_id, &make_card), (&key.run_id, &key_card)] {
        let refused = approve(&s.ana, &c.confirmation_id).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
        assert!(refused.message().contains("viewer"), "says why: {}", refused.message());
        let events = to_the_end(&s.ana, run_id).await;
        let denied = denials(&events);
        assert_eq!(denied.len(), 1, "the run is told: {events:?}");
        assert_eq!(denied[0].code, "role_not_allowed", "{denied:?}");
        assert!(
            !results(&events).iter().any(|r| format!("{:?}", r.rich).contains("aw_")),
            "no token reaches the stream"
        );
    }
    assert!(!user_names(&s.root).await.contains(&"eve".to_owned()), "nobody was created");
    let keys = s.root.admin().list_api_keys(pb::ListApiKeysRequest::default()).await.unwrap().into_inner().keys;
    assert_eq!(keys.len(), 2, "no key was made: {keys:?}");
}

/// An approved `create_user` whose owner is demoted while it is under way (between its intent
/// and its effect) does nothing, and the run says why.
#[tokio::test]
async fn a_call_approved_before_a_demotion_does_nothing_after_it() {
    let s = setup("admin", &[("AWARE_AGENT__TOOL_DELAY_MS", "1500")]).await;
    let make = s.ana.send_message("", "zz make eve", "").await.unwrap();
    let c = card(&s.ana, &make.run_id).await;
    approve(&s.ana, &c.confirmation_id).await.unwrap();
    // The tool is running (its delay): the owner loses the role now.
    let mut stream = s.ana.run_stream(&make.run_id, Default::default());
    while let Some(Ok(aware_client::StreamItem::Event(e))) = stream.next().await {
        if matches!(&e.payload, Some(P::ToolStatus(t)) if t.phase() == pb::ToolPhase::Running) {
            break;
        }
    }
    set_role(&s.root, &s.ana_id, pb::UserRole::Viewer).await;
    let events = to_the_end(&s.ana, &make.run_id).await;
    let r = &results(&events)[0];
    assert!(r.is_error, "{r:?}");
    assert_eq!(r.error.as_ref().unwrap().code, pb::ErrorCode::PermissionDenied as i32, "{r:?}");
    assert!(!user_names(&s.root).await.contains(&"eve".to_owned()), "nobody was created");
}

/// A run started with a key that is revoked before the approval: approving it with another key
/// of the same user is refused, and nothing is created.
#[tokio::test]
async fn a_run_started_with_a_revoked_key_takes_no_effect() {
    let s = setup("admin", &[]).await;
    let second = s
        .root
        .admin()
        .create_api_key(pb::CreateApiKeyRequest { user_id: s.ana_id.clone(), expires_at: None })
        .await
        .unwrap()
        .into_inner();
    let ana2 = s.server.client(Some(&second.token)).await;
    let make = s.ana.send_message("", "zz make eve", "").await.unwrap();
    let c = card(&s.ana, &make.run_id).await;
    let keys = s.root.admin().list_api_keys(pb::ListApiKeysRequest::default()).await.unwrap().into_inner().keys;
    let first_key = keys
        .iter()
        .find(|k| k.user_id == s.ana_id && k.key_id != second.key.as_ref().unwrap().key_id)
        .unwrap()
        .key_id
        .clone();
    s.root.admin().revoke_api_key(pb::RevokeApiKeyRequest { key_id: first_key }).await.unwrap();
    let refused = approve(&ana2, &c.confirmation_id).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::PermissionDenied, "{refused:?}");
    let events = to_the_end(&ana2, &make.run_id).await;
    assert_eq!(denials(&events).len(), 1, "the run is told: {events:?}");
    assert!(!user_names(&s.root).await.contains(&"eve".to_owned()), "nobody was created");
}

/// An analyst allows renames of a dataset for five minutes; made a viewer, their grant ends.
#[tokio::test]
async fn a_grant_ends_when_its_owners_role_no_longer_allows_its_tool() {
    let s = setup("analyst", &[]).await;
    aware_e2e::upload_as(&s.ana, "cities.csv", b"city,visits\nGirona,5\n").await;
    let rename = s.ana.send_message("", "zz rename", "").await.unwrap();
    let c = card(&s.ana, &rename.run_id).await;
    assert!(c.grantable, "{c:?}");
    let req = pb::SubmitConfirmationRequest {
        confirmation_id: c.confirmation_id.clone(),
        approved: true,
        scope: pb::ConfirmationScope::Session.into(),
        duration_seconds: 300,
        ..Default::default()
    };
    s.ana.chat().submit_confirmation(req).await.unwrap();
    to_the_end(&s.ana, &rename.run_id).await;
    let grants = || async { s.ana.chat().list_grants(pb::ListGrantsRequest {}).await.unwrap().into_inner().grants };
    assert_eq!(grants().await.len(), 1);
    set_role(&s.root, &s.ana_id, pb::UserRole::Viewer).await;
    assert!(grants().await.is_empty(), "the grant ended with the role that allowed it");
}
