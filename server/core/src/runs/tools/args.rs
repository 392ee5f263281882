//! What the tools share: reading their arguments, naming what a call acts on (a dataset, its
//! version, what depends on it), and a few words for cards.

use super::{Prepared, ToolContext};
use crate::{Error, Result};
use aware_domain::dataset::Dataset;
use aware_domain::events::{BlastRadius, ResourceRef};
use serde_json::{Value, json};

/// The dataset an argument names: its id, table name or file name (case-insensitive).
pub(crate) async fn resolve(ctx: &ToolContext, args: &Value) -> Result<Dataset> {
    let wanted = args
        .get("dataset")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| Error::validation("dataset", "name the dataset (its id or table name)"))?;
    let datasets = ctx.services.datasets.list(&ctx.caller, None).await?;
    datasets
        .into_iter()
        .find(|d| {
            d.id.as_str() == wanted || d.table_name.eq_ignore_ascii_case(wanted) || d.name.eq_ignore_ascii_case(wanted)
        })
        .ok_or_else(|| Error::not_found("dataset", wanted).with_field("dataset"))
}

/// A dataset as the resource a call acts on.
pub(crate) fn dataset_ref(d: &Dataset) -> ResourceRef {
    ResourceRef { kind: "dataset".to_owned(), id: d.id.to_string(), display_name: d.name.clone() }
}

/// The argument the driver adds to an approved dataset change: the version (content hash) the
/// person approved it for. The service refuses the change when the content is another one now.
pub(crate) const BOUND_VERSION: &str = "bound_version";

/// The version an approval bound the call to, if any.
pub(crate) fn bound_version(args: &Value) -> Option<&str> {
    args.get(BOUND_VERSION).and_then(Value::as_str)
}

/// What a change to `d` touches, computed from the dataset itself: its version, size, and the
/// verified queries and saved datasets that depend on it.
pub(crate) async fn blast_radius(ctx: &ToolContext, d: &Dataset) -> Result<BlastRadius> {
    let dependents = ctx.services.curation.dependents(&ctx.caller, d).await?;
    Ok(BlastRadius {
        version_hash: d.version_hash.clone(),
        row_count: d.row_count,
        size_bytes: d.size_bytes,
        saved_queries: dependents.saved_queries,
        derived_datasets: dependents.derived.iter().map(dataset_ref).collect(),
    })
}

/// The dependents of a blast radius in words, for a confirmation card ("" when none).
pub(crate) fn dependents_in_words(b: &BlastRadius) -> String {
    let mut parts = Vec::new();
    if !b.saved_queries.is_empty() {
        let n = b.saved_queries.len();
        parts.push(format!(
            "{n} verified quer{} read{} it ({})",
            if n == 1 { "y" } else { "ies" },
            if n == 1 { "s" } else { "" },
            b.saved_queries.join(", ")
        ));
    }
    if !b.derived_datasets.is_empty() {
        let n = b.derived_datasets.len();
        let names: Vec<&str> = b.derived_datasets.iter().map(|d| d.display_name.as_str()).collect();
        parts.push(format!(
            "{n} saved dataset{} {} computed from it ({})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" },
            names.join(", ")
        ));
    }
    if parts.is_empty() { String::new() } else { format!(" {}.", capitalised(&parts.join("; "))) }
}

pub(crate) use aware_domain::dataset::{in_bytes, in_rows};

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

pub(crate) fn dataset_arg_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"dataset": {"type": "string", "description": "the dataset id or table name"}},
        "required": ["dataset"],
        "additionalProperties": false
    })
}

pub(super) fn prepared_for(d: &Dataset, what: &str) -> Prepared {
    Prepared {
        ask: None,
        blast_radius: None,
        resource: dataset_ref(d),
        description: format!("{what} {}", d.name),
        pinned: None,
    }
}

pub(super) fn limit_arg(args: &Value, max: u64) -> Result<Option<u32>> {
    match args.get("limit") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if (1..=max).contains(&n) => Ok(Some(n as u32)),
            _ => Err(Error::validation("limit", format!("limit must be an integer from 1 to {max}"))),
        },
    }
}

pub(crate) fn string_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(Error::validation(name, format!("{name} must be a string"))),
    }
}
