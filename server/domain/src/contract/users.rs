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
    let key = users.add_api_key(&ana.id, "hash-ana", "aw_ana", Some(expires)).await.expect("added").id;
    let vera_key = users.add_api_key(&vera.id, "hash-vera", "aw_vera", None).await.expect("added").id;
    let grant = users.find_api_key("hash-ana").await.expect("read").expect("found");
    assert_eq!(grant.key_id, key);
    assert_eq!(
        grant.principal,
        Principal { user_id: ana.id.clone(), name: "ana".into(), role: Role::Analyst, key: Some(key.clone()) }
    );
    let stored = grant.expires_at.expect("an expiry");
    assert!((stored - expires).num_milliseconds().abs() < 1, "the expiry as given");
    assert!(!grant.revoked);
    let grant = users.find_api_key("hash-vera").await.expect("read").expect("found");
    assert_eq!((grant.principal.role, grant.expires_at), (Role::Viewer, None));
    assert!(users.find_api_key("hash-nobody").await.expect("read").is_none());

    // Keys as people see them: the prefix, never the hash; revoking keeps the first revocation.
    let keys = users.api_keys(None).await.expect("keys");
    assert_eq!(
        keys.iter().map(|k| (&k.id, k.prefix.as_str())).collect::<Vec<_>>(),
        [(&key, "aw_ana"), (&vera_key, "aw_vera")]
    );
    assert_eq!(users.api_keys(Some(&vera.id)).await.expect("keys").len(), 1);
    let at = Utc::now();
    let revoked = users.revoke_api_key(&vera_key, at).await.expect("revoked").expect("found");
    assert!(revoked.revoked_at.is_some_and(|t| (t - at).num_milliseconds().abs() < 1));
    let again = users.revoke_api_key(&vera_key, at + Duration::hours(1)).await.expect("revoked").expect("found");
    assert_eq!(again.revoked_at, revoked.revoked_at, "revoked once");
    assert!(users.find_api_key("hash-vera").await.expect("read").expect("found").revoked);
    assert!(users.revoke_api_key(&crate::ids::ApiKeyId::generate(), at).await.expect("read").is_none());

    // Roles and deactivation.
    assert!(users.set_role(&vera.id, Role::Analyst).await.expect("set"));
    assert!(users.set_deactivated(&ana.id, Some(at)).await.expect("set"));
    let grant = users.find_api_key("hash-ana").await.expect("read").expect("found");
    assert!(grant.deactivated && !grant.revoked, "a deactivated user's key is refused, not revoked");
    let read = users.user(&vera.id).await.expect("read").expect("found");
    assert_eq!((read.role, read.deactivated_at), (Role::Analyst, None));
    assert!(users.user(&ana.id).await.expect("read").expect("found").deactivated_at.is_some());
    assert!(users.set_deactivated(&ana.id, None).await.expect("set"));
    assert!(!users.find_api_key("hash-ana").await.expect("read").expect("found").deactivated);
    let nobody = UserId::generate();
    assert!(
        !users.set_role(&nobody, Role::Admin).await.expect("set") && users.user(&nobody).await.expect("read").is_none()
    );
}
