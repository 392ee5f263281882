//! What the model is told after a change it asked for ran: a user, a role or a key changed, a
//! dataset renamed, described, saved, refreshed or deleted, a verified query saved or deleted, a
//! memory kept or dropped — with how to undo it where there is a way. Names and counts only; a
//! key's token never reaches a model.

use crate::datasets::Refreshed;
use aware_domain::dataset::{Dataset, in_rows};
use aware_domain::ports::{ApiKey, SavedQuery, User};

pub fn user_created(user: &User) -> String {
    format!(
        "Created the user “{}” ({}) with the role {}. They have no API key yet.",
        user.name,
        user.id,
        user.role.as_str()
    )
}

pub fn role_changed(before: &User, after: &User) -> String {
    format!("“{}” is now {} (was {}). To undo, change it back.", after.name, after.role.as_str(), before.role.as_str())
}

pub fn activity_changed(user: &User, active: bool) -> String {
    if active {
        format!("“{}” is reactivated; their keys work again.", user.name)
    } else {
        format!("“{}” is deactivated; their keys are refused from now on (reactivate them to undo).", user.name)
    }
}

/// The model learns that a key exists and how people tell it apart, never the token.
pub fn key_created(key: &ApiKey, user: &User) -> String {
    format!(
        "Created the API key {} (starts {}) for “{}”. Its token was shown to the user once; you do not have it. To \
         undo, revoke it.",
        key.id, key.prefix, user.name
    )
}

pub fn key_revoked(key: &ApiKey) -> String {
    format!("Revoked the API key {} (starts {}).", key.id, key.prefix)
}

pub fn renamed(before: &Dataset, after: &Dataset) -> String {
    format!(
        "Renamed the dataset: table `{}` is now `{}` (shown as “{}”). To undo, rename it back to `{}`.",
        before.table_name, after.table_name, after.name, before.table_name
    )
}

pub fn described(dataset: &Dataset) -> String {
    format!(
        "Saved the description of `{}`: {} described column(s){}.",
        dataset.table_name,
        dataset.column_notes.len(),
        if dataset.description.is_empty() { "" } else { " and a description of the dataset" }
    )
}

pub fn saved_as_dataset(dataset: &Dataset) -> String {
    format!(
        "Saved the result as the dataset `{}`: {}, {} columns, read from {} dataset(s). To undo, delete it.",
        dataset.table_name,
        in_rows(dataset.row_count),
        dataset.columns.len(),
        dataset.lineage.as_ref().map_or(0, |l| l.sources.len())
    )
}

pub fn query_saved(query: &SavedQuery) -> String {
    format!(
        "Saved the verified query “{}”; the question “{}” is answered with it from now on.",
        query.name, query.question
    )
}

pub fn query_deleted(query: &SavedQuery) -> String {
    format!("Deleted the verified query “{}”.", query.name)
}

/// A refresh from the approved-folder file: the rows before and after, and the columns that
/// came or went — or that nothing changed.
pub fn refreshed(r: &Refreshed) -> String {
    let (before, after) = (&r.before, &r.dataset);
    if !r.changed {
        return format!(
            "`{}` is unchanged: its file holds exactly the content imported before ({}).",
            after.table_name,
            in_rows(after.row_count)
        );
    }
    let names = |d: &Dataset| -> Vec<String> { d.columns.iter().map(|c| c.name.clone()).collect() };
    let (old, new) = (names(before), names(after));
    let added: Vec<&str> = new.iter().filter(|c| !old.contains(c)).map(String::as_str).collect();
    let removed: Vec<&str> = old.iter().filter(|c| !new.contains(c)).map(String::as_str).collect();
    let mut columns = Vec::new();
    if !added.is_empty() {
        columns.push(format!("new columns: {}", added.join(", ")));
    }
    if !removed.is_empty() {
        columns.push(format!("columns gone: {}", removed.join(", ")));
    }
    format!(
        "Refreshed `{}` from its file: {} before, {} now; {}.",
        after.table_name,
        in_rows(before.row_count),
        after.row_count,
        if columns.is_empty() { "the same columns".to_owned() } else { columns.join("; ") }
    )
}

pub fn dataset_deleted(dataset: &Dataset) -> String {
    format!("Deleted the dataset {} (table `{}`).", dataset.name, dataset.table_name)
}

/// A memory is kept (or dropped) when the answer is done, after the person approved it.
pub fn remembered(fact: &str) -> String {
    format!("The user approved: “{fact}” is remembered once this answer is done.")
}

pub fn forgotten(fact: &str) -> String {
    format!("The user approved: “{fact}” is forgotten once this answer is done.")
}
