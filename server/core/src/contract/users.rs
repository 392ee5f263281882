//! The contract of the [`Users`] port: users, and API keys found by their token's hash only.

use crate::auth::{Principal, Role};
use crate::ids::UserId;
use crate::ports::Users;
use chrono::{Duration, Utc};

/// Runs every check of the contract on `users`, a fresh adapter.
pub async fn users(users: &dyn Users) {
    let vera = users.create_user("vera", Role::Viewer).await.expect("created");
    let ana = users.create_user("ana", Role::Analyst).await.expect("created");
    assert_ne!(vera.id, ana.id, "each user gets an id of their own");
    assert_eq!((vera.name.as_str(), vera.role), ("vera", Role::Viewer));

    let local = Principal::local();
    users.ensure_user(&local).await.expect("ensured");
    users.ensure_user(&local).await.expect("ensured again");
    let all = users.list_users().await.expect("listed");
    let ids: Vec<&UserId> = all.iter().map(|u| &u.id).collect();
    assert_eq!(ids, [&vera.id, &ana.id, &local.user_id], "each user once, oldest first");
    assert_eq!(all[2].role, Role::Admin, "with the exact id and role ensured");

    let expires = Utc::now() + Duration::days(30);
    let key = users.add_api_key(&ana.id, "hash-ana", Some(expires)).await.expect("added");
    users.add_api_key(&vera.id, "hash-vera", None).await.expect("added");
    let grant = users.find_api_key("hash-ana").await.expect("read").expect("found");
    assert_eq!(grant.key_id, key);
    assert_eq!(grant.principal, Principal { user_id: ana.id.clone(), name: "ana".into(), role: Role::Analyst });
    let stored = grant.expires_at.expect("an expiry");
    assert!((stored - expires).num_milliseconds().abs() < 1, "the expiry as given");
    assert!(!grant.revoked);
    let grant = users.find_api_key("hash-vera").await.expect("read").expect("found");
    assert_eq!((grant.principal.role, grant.expires_at), (Role::Viewer, None));
    assert!(users.find_api_key("hash-nobody").await.expect("read").is_none());
}
