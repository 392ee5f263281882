//! Curation from the terminal: `aware datasets rename|describe|materialize|refresh` and `aware
//! queries list|save|delete` (verified queries). Each is one API call, audited as the CLI's.

use crate::render::{dataset_json, time_text};
use crate::say;
use anyhow::Context as _;
use aware_client::AwareClient;
use aware_client::v1 as pb;
use clap::Subcommand;
use serde_json::{Value as Json, json};

/// The dataset subcommands that change a dataset's names, meaning or content.
#[derive(Subcommand)]
pub(crate) enum EditCommand {
    /// Rename a dataset: TO becomes its table name (lower-case letters, digits and _) and, unless
    /// --display-name says otherwise, its display name. Your saved queries that read it follow.
    Rename {
        name: String,
        to: String,
        #[arg(long)]
        display_name: Option<String>,
    },
    /// Say what a dataset and its columns mean (shown to the assistant with the dataset).
    Describe {
        name: String,
        /// What the dataset is.
        #[arg(long)]
        description: Option<String>,
        /// What a column means: COLUMN=TEXT (repeat for more columns; an empty TEXT with no
        /// --unit removes the column's note).
        #[arg(long = "column", value_name = "COLUMN=TEXT")]
        columns: Vec<String>,
        /// A column's unit: COLUMN=UNIT, e.g. price_eur=EUR (repeatable).
        #[arg(long = "unit", value_name = "COLUMN=UNIT")]
        units: Vec<String>,
    },
    /// Save the whole result of one SELECT as a new dataset TABLE_NAME, with its lineage (what
    /// it read, at which versions, and the SQL). Computed in the sandbox, with its limits.
    Materialize {
        table_name: String,
        sql: String,
        /// Run it even when the server estimates it reads more rows than it runs without asking.
        #[arg(long)]
        heavy: bool,
    },
    /// Read a dataset again from the file in an approved folder it was imported from (admins):
    /// the same file changes nothing.
    Refresh { name: String },
}

#[derive(Subcommand)]
pub(crate) enum QueriesCommand {
    /// Your verified queries.
    List,
    /// Keep a verified query: NAME, its SQL (run once first), and the question it answers. The
    /// assistant answers that question with it from then on.
    Save {
        name: String,
        sql: String,
        /// The question, as a person would ask it (default: the name).
        #[arg(long, default_value = "")]
        question: String,
        /// Run it even when the server estimates it reads more rows than it runs without asking.
        #[arg(long)]
        heavy: bool,
    },
    /// Delete a verified query by name or id.
    Delete { query: String },
}

/// `COLUMN=TEXT` pairs, in order, the column as written.
fn pairs(items: &[String], flag: &str) -> anyhow::Result<Vec<(String, String)>> {
    items
        .iter()
        .map(|item| {
            let (column, text) =
                item.split_once('=').with_context(|| format!("{flag} takes COLUMN=VALUE, not {item:?}"))?;
            anyhow::ensure!(!column.trim().is_empty(), "{flag} {item:?} names no column");
            Ok((column.trim().to_owned(), text.trim().to_owned()))
        })
        .collect()
}

/// Column notes from `--column` and `--unit`: one note per column named by either.
fn notes(columns: &[String], units: &[String]) -> anyhow::Result<Vec<pb::ColumnNote>> {
    let mut notes: Vec<pb::ColumnNote> = Vec::new();
    for (column, description) in pairs(columns, "--column")? {
        notes.push(pb::ColumnNote { column, description, unit: String::new() });
    }
    for (column, unit) in pairs(units, "--unit")? {
        match notes.iter_mut().find(|n| n.column.eq_ignore_ascii_case(&column)) {
            Some(note) => note.unit = unit,
            None => notes.push(pb::ColumnNote { column, description: String::new(), unit }),
        }
    }
    Ok(notes)
}

fn dataset_line(d: &pb::Dataset) -> String {
    let mut line = format!("{} ({}): {} rows, {} columns", d.table_name, d.name, d.row_count, d.column_count);
    if !d.description.is_empty() {
        line.push_str(&format!("\n  {}", d.description));
    }
    for n in &d.column_notes {
        let unit = if n.unit.is_empty() { String::new() } else { format!(" [{}]", n.unit) };
        line.push_str(&format!("\n  {}{unit}: {}", n.column, n.description));
    }
    if let Some(l) = &d.lineage {
        let read: Vec<String> =
            l.sources.iter().map(|s| format!("{}@{}", s.table_name, s.version_hash.get(..12).unwrap_or(""))).collect();
        line.push_str(&format!("\n  computed from {} by: {}", read.join(", "), l.sql));
    }
    line
}

pub(crate) async fn edit(client: &AwareClient, command: EditCommand, json: bool) -> anyhow::Result<()> {
    let mut datasets = client.datasets();
    let (before, after) = match command {
        EditCommand::Rename { name, to, display_name } => {
            let d = client.dataset(&name).await?;
            let req = pb::UpdateDatasetRequest {
                dataset_id: d.id.clone(),
                name: Some(display_name.unwrap_or_else(|| to.clone())),
                table_name: Some(to),
                ..Default::default()
            };
            (Some(d), datasets.update_dataset(req).await?.into_inner().dataset)
        }
        EditCommand::Describe { name, description, columns, units } => {
            let column_notes = notes(&columns, &units)?;
            anyhow::ensure!(
                description.is_some() || !column_notes.is_empty(),
                "say what to describe: --description, --column or --unit"
            );
            let d = client.dataset(&name).await?;
            let req =
                pb::UpdateDatasetRequest { dataset_id: d.id.clone(), description, column_notes, ..Default::default() };
            (None, datasets.update_dataset(req).await?.into_inner().dataset)
        }
        EditCommand::Materialize { table_name, sql, heavy } => {
            let query = Some(pb::materialize_query_request::Query::Sql(sql));
            let req = pb::MaterializeQueryRequest { table_name, query, run_heavy: heavy };
            (None, datasets.materialize_query(req).await?.into_inner().dataset)
        }
        EditCommand::Refresh { name } => {
            let d = client.dataset(&name).await?;
            let r =
                datasets.refresh_dataset(pb::RefreshDatasetRequest { dataset_id: d.id.clone() }).await?.into_inner();
            let after = r.dataset.unwrap_or_default();
            if json {
                say!(
                    "{}",
                    json!({"changed": r.changed, "previous_row_count": r.previous_row_count, "dataset": dataset_json(&after)})
                );
            } else if r.changed {
                say!("Refreshed {}: {} rows before, {} now.", after.table_name, r.previous_row_count, after.row_count);
            } else {
                say!("{} is unchanged: its file holds the content imported before.", after.table_name);
            }
            return Ok(());
        }
    };
    let d = after.unwrap_or_default();
    if json {
        say!("{}", dataset_json(&d));
    } else {
        if let Some(old) = before {
            say!("Renamed {} to {}.", old.table_name, d.table_name);
        }
        say!("{}", dataset_line(&d));
    }
    Ok(())
}

fn query_json(q: &pb::SavedQuery) -> Json {
    json!({"id": q.id, "name": q.name, "question": q.question, "sql": q.sql,
           "created_at": q.created_at.map(|t| t.seconds)})
}

fn query_line(q: &pb::SavedQuery) -> String {
    let at = q.created_at.map_or_else(String::new, |t| format!(" · saved {}", time_text(t.seconds)));
    format!("{}  “{}” answers “{}”{at}\n  {}", q.id, q.name, q.question, q.sql)
}

pub(crate) async fn queries(client: &AwareClient, command: QueriesCommand, json: bool) -> anyhow::Result<()> {
    let mut datasets = client.datasets();
    let (verb, query) = match command {
        QueriesCommand::List => {
            let all = datasets.list_saved_queries(pb::ListSavedQueriesRequest {}).await?.into_inner().queries;
            if json {
                say!("{}", Json::Array(all.iter().map(query_json).collect()));
            } else if all.is_empty() {
                say!("No verified queries yet: save one with `aware queries save NAME SQL`.");
            } else {
                all.iter().for_each(|q| say!("{}", query_line(q)));
            }
            return Ok(());
        }
        QueriesCommand::Save { name, sql, question, heavy } => {
            let query = Some(pb::save_query_request::Query::Sql(sql));
            let req = pb::SaveQueryRequest { name, question, query, run_heavy: heavy };
            ("Saved", datasets.save_query(req).await?.into_inner().query)
        }
        QueriesCommand::Delete { query } => {
            ("Deleted", datasets.delete_saved_query(pb::DeleteSavedQueryRequest { query }).await?.into_inner().query)
        }
    };
    let q = query.unwrap_or_default();
    if json {
        say!("{}", query_json(&q));
    } else {
        say!("{verb} {}", query_line(&q));
    }
    Ok(())
}
