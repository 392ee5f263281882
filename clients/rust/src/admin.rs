//! `aware admin`: users and API keys over the API (admins only). A new key's token is printed
//! once; keys are otherwise shown by their prefix.

use crate::render::{enum_word, time_text};
use crate::say;
use aware_client::AwareClient;
use aware_client::v1 as pb;
use clap::{Subcommand, ValueEnum};
use serde_json::{Value as Json, json};

#[derive(Subcommand)]
pub(crate) enum AdminCommand {
    /// Users: list, add, change role, deactivate, reactivate.
    Users {
        #[command(subcommand)]
        command: UsersCommand,
    },
    /// API keys: list, create (the token is printed once), revoke.
    Keys {
        #[command(subcommand)]
        command: KeysCommand,
    },
}

#[derive(Subcommand)]
pub(crate) enum UsersCommand {
    List,
    Add {
        name: String,
        #[arg(long, value_enum)]
        role: RoleArg,
    },
    /// Change a user's role.
    Role {
        user_id: String,
        #[arg(value_enum)]
        role: RoleArg,
    },
    /// Refuse every key of the user from their next call (nothing of theirs is deleted).
    Deactivate {
        user_id: String,
    },
    Reactivate {
        user_id: String,
    },
}

#[derive(Subcommand)]
pub(crate) enum KeysCommand {
    List {
        /// Only this user's keys.
        #[arg(long)]
        user: Option<String>,
    },
    /// A new key for a user; prints its token once.
    Create {
        user_id: String,
    },
    Revoke {
        key_id: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum RoleArg {
    Viewer,
    Analyst,
    Admin,
}

impl RoleArg {
    fn proto(self) -> pb::UserRole {
        match self {
            Self::Viewer => pb::UserRole::Viewer,
            Self::Analyst => pb::UserRole::Analyst,
            Self::Admin => pb::UserRole::Admin,
        }
    }
}

fn role_word(r: pb::UserRole) -> String {
    enum_word(r.as_str_name(), "USER_ROLE_")
}

fn user_json(u: &pb::User) -> Json {
    json!({"user_id": u.user_id, "name": u.name, "role": role_word(u.role()),
           "created_at": u.created_at.map(|t| t.seconds), "deactivated_at": u.deactivated_at.map(|t| t.seconds)})
}

fn key_json(k: &pb::ApiKey) -> Json {
    json!({"key_id": k.key_id, "user_id": k.user_id, "prefix": k.prefix, "created_at": k.created_at.map(|t| t.seconds),
           "expires_at": k.expires_at.map(|t| t.seconds), "revoked_at": k.revoked_at.map(|t| t.seconds)})
}

fn user_line(u: &pb::User) -> String {
    let state = u.deactivated_at.map_or_else(String::new, |t| format!(" · deactivated {}", time_text(t.seconds)));
    format!("{}  {}  {}{state}", u.user_id, u.name, role_word(u.role()))
}

fn key_line(k: &pb::ApiKey) -> String {
    let state = match (k.revoked_at, k.expires_at) {
        (Some(t), _) => format!("revoked {}", time_text(t.seconds)),
        (None, Some(t)) => format!("expires {}", time_text(t.seconds)),
        (None, None) => "does not expire".to_owned(),
    };
    format!("{}  {}…  {}  {state}", k.key_id, k.prefix, k.user_id)
}

pub(crate) async fn admin(client: &AwareClient, command: AdminCommand, json: bool) -> anyhow::Result<()> {
    let mut admin = client.admin();
    match command {
        AdminCommand::Users { command } => {
            let changed = match command {
                UsersCommand::List => {
                    let users = admin.list_users(pb::ListUsersRequest {}).await?.into_inner().users;
                    if json {
                        say!("{}", Json::Array(users.iter().map(user_json).collect()));
                    } else {
                        users.iter().for_each(|u| say!("{}", user_line(u)));
                    }
                    return Ok(());
                }
                UsersCommand::Add { name, role } => {
                    let req = pb::CreateUserRequest { name, role: role.proto().into() };
                    admin.create_user(req).await?.into_inner().user
                }
                UsersCommand::Role { user_id, role } => {
                    let req = pb::UpdateUserRequest { user_id, role: role.proto().into(), activation: 0 };
                    admin.update_user(req).await?.into_inner().user
                }
                UsersCommand::Deactivate { user_id } => {
                    let activation = pb::UserActivation::Deactivate.into();
                    admin.update_user(pb::UpdateUserRequest { user_id, role: 0, activation }).await?.into_inner().user
                }
                UsersCommand::Reactivate { user_id } => {
                    let activation = pb::UserActivation::Reactivate.into();
                    admin.update_user(pb::UpdateUserRequest { user_id, role: 0, activation }).await?.into_inner().user
                }
            };
            let u = changed.unwrap_or_default();
            if json {
                say!("{}", user_json(&u));
            } else {
                say!("{}", user_line(&u));
            }
        }
        AdminCommand::Keys { command } => match command {
            KeysCommand::List { user } => {
                let req = pb::ListApiKeysRequest { user_id: user.unwrap_or_default() };
                let keys = admin.list_api_keys(req).await?.into_inner().keys;
                if json {
                    say!("{}", Json::Array(keys.iter().map(key_json).collect()));
                } else {
                    keys.iter().for_each(|k| say!("{}", key_line(k)));
                }
            }
            KeysCommand::Create { user_id } => {
                let made =
                    admin.create_api_key(pb::CreateApiKeyRequest { user_id, expires_at: None }).await?.into_inner();
                let k = made.key.unwrap_or_default();
                if json {
                    say!("{}", json!({"key": key_json(&k), "token": made.token}));
                } else {
                    say!(
                        "{}\nThe token, shown this once (send it as `authorization: Bearer …`):\n{}",
                        key_line(&k),
                        made.token
                    );
                }
            }
            KeysCommand::Revoke { key_id } => {
                let k = admin
                    .revoke_api_key(pb::RevokeApiKeyRequest { key_id })
                    .await?
                    .into_inner()
                    .key
                    .unwrap_or_default();
                if json {
                    say!("{}", key_json(&k));
                } else {
                    say!("{}", key_line(&k));
                }
            }
        },
    }
    Ok(())
}
