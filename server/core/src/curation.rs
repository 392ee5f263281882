//! What people do with their datasets after upload: rename and describe them — aware's semantic
//! layer: descriptions and units go into the model's context and the offline planner's
//! vocabulary —, save a query's result as a new dataset with its lineage, and keep *verified
//! queries*: a question and the SQL a person approved for it, preferred when the question comes
//! again. The API and the assistant's tools call the same functions; every change is audited with
//! the caller's source.

use crate::datasets::DatasetService;
use crate::query::{Cost, QueryAnswer, QueryService};
use aware_domain::auth::{Caller, Capability};
use aware_domain::dataset::{ColumnNote, Dataset, DatasetFormat, Lineage, clean_description, requested_table_name};
use aware_domain::error::{Error, ErrorCode, Result};
use aware_domain::ids::{DatasetId, RunId, SavedQueryId};
use aware_domain::ports::{
    AuditEntry, AuditLog, Catalog, DatasetEngine, DatasetUpdate, NewDataset, SavedQueries, SavedQuery, SqlEngine,
    record_or_log,
};
use aware_domain::query_plan::QueryPlan;
use chrono::Utc;
use std::sync::Arc;

/// The longest name of a saved query.
pub const MAX_QUERY_NAME_CHARS: usize = 120;

/// A change of a dataset's names and descriptions, as a person or the assistant asks for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DatasetChange {
    /// The display name.
    pub name: Option<String>,
    pub table_name: Option<String>,
    pub description: Option<String>,
    /// Notes for these columns replace theirs; a note with neither a description nor a unit
    /// removes the column's note. Other columns' notes stay.
    pub column_notes: Vec<ColumnNote>,
}

impl DatasetChange {
    pub fn is_empty(&self) -> bool {
        self.name.is_none() && self.table_name.is_none() && self.description.is_none() && self.column_notes.is_empty()
    }
}

/// What a saved dataset is computed from.
#[derive(Clone, Debug, PartialEq)]
pub enum QuerySource {
    Sql(String),
    Plan(QueryPlan),
}

/// Renames, descriptions, saved results and verified queries.
#[derive(Clone)]
pub struct CurationService {
    catalog: Arc<dyn Catalog>,
    engine: Arc<dyn DatasetEngine>,
    sql: Arc<dyn SqlEngine>,
    saved: Arc<dyn SavedQueries>,
    datasets: DatasetService,
    query: QueryService,
    audit: Arc<dyn AuditLog>,
}

impl CurationService {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        catalog: Arc<dyn Catalog>,
        engine: Arc<dyn DatasetEngine>,
        sql: Arc<dyn SqlEngine>,
        saved: Arc<dyn SavedQueries>,
        datasets: DatasetService,
        query: QueryService,
        audit: Arc<dyn AuditLog>,
    ) -> Self {
        Self { catalog, engine, sql, saved, datasets, query, audit }
    }

    async fn record(&self, caller: &Caller, action: &str, kind: &str, id: &str, details: serde_json::Value) {
        record_or_log(self.audit.as_ref(), AuditEntry::by(caller, action, kind, id).details(details)).await;
    }

    /// Checks a change against the dataset it is for: display name 1–200 characters, a table
    /// name that is one, descriptions of plain text, notes only for columns the dataset has.
    pub fn check(dataset: &Dataset, change: &DatasetChange) -> Result<DatasetUpdate> {
        if change.is_empty() {
            return Err(Error::validation("dataset", "say what to change: a name, a table name or descriptions"));
        }
        let name = match change.name.as_deref().map(str::trim) {
            None => None,
            Some(n) if n.is_empty() || n.chars().count() > 200 || n.chars().any(char::is_control) => {
                return Err(Error::validation("name", "a display name of 1 to 200 printable characters is required"));
            }
            Some(n) => Some(n.to_owned()),
        };
        let table_name = change.table_name.as_deref().map(requested_table_name).transpose()?;
        if dataset.format.is_document() && table_name.as_ref().is_some_and(|t| *t != dataset.table_name) {
            return Err(Error::validation(
                "table_name",
                format!(
                    "{} is a document: its table name is part of the chunk ids answers cite ({}::000, …), so it \
                     cannot change; its display name can",
                    dataset.table_name, dataset.table_name
                ),
            ));
        }
        let description = change.description.as_deref().map(|d| clean_description(d, "description")).transpose()?;
        let column_notes = if change.column_notes.is_empty() {
            None
        } else {
            let mut notes = dataset.column_notes.clone();
            for note in &change.column_notes {
                let Some(column) = dataset.columns.iter().find(|c| c.name.eq_ignore_ascii_case(note.column.trim()))
                else {
                    let names: Vec<&str> = dataset.columns.iter().map(|c| c.name.as_str()).collect();
                    return Err(Error::validation(
                        "column_notes",
                        format!(
                            "{} has no column {:?}; its columns are {}",
                            dataset.table_name,
                            note.column,
                            names.join(", ")
                        ),
                    ));
                };
                let description = clean_description(&note.description, "column_notes")?;
                let unit = clean_description(&note.unit, "column_notes")?;
                if unit.chars().count() > 40 {
                    return Err(Error::validation(
                        "column_notes",
                        "a unit is at most 40 characters (e.g. EUR, m², days)",
                    ));
                }
                notes.retain(|n| !n.column.eq_ignore_ascii_case(&column.name));
                if !description.is_empty() || !unit.is_empty() {
                    notes.push(ColumnNote { column: column.name.clone(), description, unit });
                }
            }
            notes.sort_by_key(|n| dataset.columns.iter().position(|c| c.name == n.column));
            Some(notes)
        };
        Ok(DatasetUpdate { name, table_name, description, column_notes })
    }

    /// Renames and/or describes one of the caller's datasets. A new table name is followed by the
    /// caller's saved queries that read the old one.
    pub async fn update(&self, caller: &Caller, id: &DatasetId, change: &DatasetChange) -> Result<Dataset> {
        caller.principal.require(Capability::DatasetWrite)?;
        let before = self.datasets.get(caller, id).await?;
        let update = Self::check(&before, change)?;
        let owner = &caller.principal.user_id;
        let after = self
            .catalog
            .update(owner, id, &update)
            .await?
            .ok_or_else(|| Error::not_found("dataset", id).with_field("dataset_id"))?;
        if after.table_name != before.table_name {
            self.follow_rename(caller, &before.table_name, &after.table_name).await?;
            let details = serde_json::json!({"from": before.table_name, "to": after.table_name, "name": after.name});
            self.record(caller, "dataset.rename", "dataset", id.as_str(), details).await;
        } else if after.name != before.name {
            let details = serde_json::json!({"from": before.name, "to": after.name, "table_name": after.table_name});
            self.record(caller, "dataset.rename", "dataset", id.as_str(), details).await;
        }
        if update.description.is_some() || update.column_notes.is_some() {
            let details = serde_json::json!({
                "table_name": after.table_name,
                "description": after.description,
                "columns": after.column_notes.iter().map(|n| &n.column).collect::<Vec<_>>(),
            });
            self.record(caller, "dataset.describe", "dataset", id.as_str(), details).await;
        }
        self.datasets.changed(owner);
        Ok(after)
    }

    /// What depends on a dataset: the names of the verified queries that read it (a query that no
    /// longer parses counts, unread), and the datasets saved from queries over it.
    pub async fn dependents(&self, caller: &Caller, dataset: &Dataset) -> Result<Dependents> {
        let owner = &caller.principal.user_id;
        let table = dataset.table_name.to_lowercase();
        let saved_queries = self
            .saved
            .saved_queries(owner)
            .await?
            .into_iter()
            .filter(|q| self.sql.tables_named(&q.sql).is_ok_and(|tables| tables.contains(&table)))
            .map(|q| q.name)
            .collect();
        let derived = self
            .datasets
            .list(caller, None)
            .await?
            .into_iter()
            .filter(|d| d.lineage.as_ref().is_some_and(|l| l.sources.iter().any(|s| s.dataset_id == dataset.id)))
            .collect();
        Ok(Dependents { saved_queries, derived })
    }

    async fn follow_rename(&self, caller: &Caller, from: &str, to: &str) -> Result<()> {
        let owner = &caller.principal.user_id;
        for saved in self.saved.saved_queries(owner).await? {
            match self.sql.rename_table(&saved.sql, from, to) {
                Ok(sql) if sql != saved.sql => self.saved.set_saved_query_sql(owner, &saved.id, &sql).await?,
                Ok(_) => {}
                Err(e) => tracing::warn!(query = %saved.id, error = %e, "a saved query could not follow a rename"),
            }
        }
        Ok(())
    }

    /// Computes a query over the caller's datasets in the sandbox, with its limits, and saves the
    /// whole result as a new dataset named `table_name`, with its lineage. A result larger than a
    /// query may return is `RESOURCE_EXHAUSTED` and nothing is saved.
    pub async fn materialize(
        &self,
        caller: &Caller,
        source: &QuerySource,
        table_name: &str,
        parent: Option<&RunId>,
        cost: Cost,
    ) -> Result<Dataset> {
        caller.principal.require(Capability::DatasetWrite)?;
        let table_name = requested_table_name(table_name)?;
        self.name_is_free(caller, &table_name, None).await?;
        let answer = self.compute(caller, source, parent, cost).await?;
        if answer.table.truncated {
            return Err(Error::resource_exhausted(format!(
                "the result has more than {} rows, the most a query may return, so it was not saved (nothing was \
                 created); narrow it with a filter or a grouping",
                self.query.max_rows()
            )));
        }
        // A saved result has no file: its version is the hash of its content as JSON (columns
        // with their types, then rows), so lineage that reads it records which content it read.
        let content = serde_json::to_vec(&(&answer.table.columns, &answer.table.rows)).map_err(Error::internal)?;
        let new = NewDataset {
            id: DatasetId::generate(),
            owner: caller.principal.user_id.clone(),
            name: table_name.clone(),
            base_table_name: table_name.clone(),
            format: DatasetFormat::Derived,
            size_bytes: content.len() as u64,
            version_hash: hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&content)),
            lineage: Some(Lineage {
                sources: answer.datasets.clone(),
                sql: answer.executed_sql.clone(),
                run_id: answer.run_id.to_string(),
            }),
            origin: None,
        };
        let dataset = self.catalog.insert_processing(new).await?;
        let written = match self.engine.materialize(&dataset, &answer.table).await {
            Ok(outcome) => self.catalog.mark_ready(&dataset.id, &outcome).await,
            Err(e) => Err(e),
        };
        let ready = match written {
            Ok(Some(ready)) => ready,
            Ok(None) => return Err(Error::not_found("dataset", &dataset.id)),
            Err(e) => {
                // Nothing is left behind: neither content nor a catalog entry in ERROR.
                self.engine.remove(&dataset).await.ok();
                self.catalog.delete(&dataset.owner, &dataset.id).await.ok();
                return Err(e);
            }
        };
        let details = serde_json::json!({
            "table_name": ready.table_name,
            "rows": ready.row_count,
            "sql": answer.executed_sql,
            "sources": answer.datasets.iter().map(|d| d.dataset_id.as_str()).collect::<Vec<_>>(),
        });
        self.record(caller, "dataset.materialize", "dataset", ready.id.as_str(), details).await;
        self.datasets.changed(&ready.owner);
        self.datasets.search().index(ready.clone());
        Ok(ready)
    }

    /// Refuses (`ALREADY_EXISTS`) a table name another of the caller's datasets than `except`
    /// already has: a name a person chose is never silently suffixed.
    pub async fn name_is_free(&self, caller: &Caller, table_name: &str, except: Option<&DatasetId>) -> Result<()> {
        let taken = self
            .datasets
            .list(caller, None)
            .await?
            .into_iter()
            .any(|d| d.table_name == table_name && Some(&d.id) != except);
        if taken {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("you already have a dataset named {table_name}; choose another name"),
            )
            .with_field("table_name"));
        }
        Ok(())
    }

    async fn compute(
        &self,
        caller: &Caller,
        source: &QuerySource,
        parent: Option<&RunId>,
        cost: Cost,
    ) -> Result<QueryAnswer> {
        match source {
            QuerySource::Sql(sql) => self.query.execute_sql(caller, sql, 0, parent, cost).await,
            QuerySource::Plan(plan) => self.query.execute_plan(caller, plan, 0, parent, cost).await,
        }
    }

    /// The caller's saved queries, by name.
    pub async fn saved_queries(&self, caller: &Caller) -> Result<Vec<SavedQuery>> {
        caller.principal.require(Capability::Query)?;
        self.saved.saved_queries(&caller.principal.user_id).await
    }

    /// One of the caller's saved queries, by id or (case-insensitively) by name.
    pub async fn saved_query(&self, caller: &Caller, id_or_name: &str) -> Result<SavedQuery> {
        let wanted = id_or_name.trim();
        self.saved_queries(caller)
            .await?
            .into_iter()
            .find(|q| q.id.as_str() == wanted || q.name.eq_ignore_ascii_case(wanted))
            .ok_or_else(|| Error::not_found("saved query", format!("{wanted:?}")).with_field("query"))
    }

    /// Saves a verified query: the SQL runs once first (so only a query that works is kept, in
    /// its canonical form). A name the caller already uses is `ALREADY_EXISTS`.
    pub async fn save_query(
        &self,
        caller: &Caller,
        name: &str,
        question: &str,
        source: &QuerySource,
        parent: Option<&RunId>,
        cost: Cost,
    ) -> Result<SavedQuery> {
        caller.principal.require(Capability::DatasetWrite)?;
        let name = query_name(name)?;
        let question = clean_description(question, "question")?;
        if self.saved_queries(caller).await?.iter().any(|q| q.name.eq_ignore_ascii_case(&name)) {
            return Err(Error::new(
                ErrorCode::AlreadyExists,
                format!("you already have a saved query named {name:?}; delete it first or choose another name"),
            )
            .with_field("name"));
        }
        // Kept in the validator's canonical form, after it ran once.
        let sql = self.compute(caller, source, parent, cost).await?.executed_sql;
        let now = Utc::now();
        let saved = SavedQuery {
            id: SavedQueryId::generate(),
            owner: caller.principal.user_id.clone(),
            question: if question.is_empty() { name.clone() } else { question },
            name,
            sql,
            created_at: now,
            updated_at: now,
        };
        self.saved.insert_saved_query(&saved).await?;
        let details = serde_json::json!({"name": saved.name, "question": saved.question, "sql": saved.sql});
        self.record(caller, "saved_query.create", "saved_query", saved.id.as_str(), details).await;
        Ok(saved)
    }

    pub async fn delete_saved_query(&self, caller: &Caller, id_or_name: &str) -> Result<SavedQuery> {
        caller.principal.require(Capability::DatasetWrite)?;
        let saved = self.saved_query(caller, id_or_name).await?;
        if !self.saved.delete_saved_query(&caller.principal.user_id, &saved.id).await? {
            return Err(Error::not_found("saved query", &saved.id).with_field("query"));
        }
        let details = serde_json::json!({"name": saved.name, "sql": saved.sql});
        self.record(caller, "saved_query.delete", "saved_query", saved.id.as_str(), details).await;
        Ok(saved)
    }

    /// The caller's verified query for a question, if one matches it (see [`matches_question`]).
    pub async fn verified_for(&self, caller: &Caller, question: &str) -> Result<Option<SavedQuery>> {
        if !caller.principal.role.allows(Capability::Query) {
            return Ok(None);
        }
        Ok(self
            .saved
            .saved_queries(&caller.principal.user_id)
            .await?
            .into_iter()
            .find(|q| matches_question(q, question)))
    }
}

/// A saved query's name: 1 to [`MAX_QUERY_NAME_CHARS`] printable characters.
fn query_name(raw: &str) -> Result<String> {
    let name = raw.trim().trim_matches(['\'', '"', '“', '”', '‘', '’']).trim();
    if name.is_empty() || name.chars().count() > MAX_QUERY_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(Error::validation(
            "name",
            format!("a saved query's name has 1 to {MAX_QUERY_NAME_CHARS} printable characters"),
        ));
    }
    Ok(name.to_owned())
}

/// Words that do not change what a question asks.
const FILLER: &[&str] = &[
    "a", "an", "the", "what", "whats", "is", "are", "was", "were", "me", "show", "tell", "give", "please", "of", "for",
    "in", "my", "our", "s", "do", "does", "i", "we", "can", "you", "list", "get", "find", "to",
];

/// The words of a question that carry its meaning, sorted.
fn meaning(text: &str) -> Vec<String> {
    let mut words: Vec<String> = aware_domain::text::words(text)
        .into_iter()
        .filter(|w| !FILLER.contains(&w.as_str()))
        .map(|w| match w.as_str() {
            "neighborhood" => "neighbourhood".to_owned(),
            "avg" | "mean" => "average".to_owned(),
            _ => w,
        })
        .collect();
    words.sort();
    words.dedup();
    words
}

/// What depends on a dataset (see [`CurationService::dependents`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dependents {
    pub saved_queries: Vec<String>,
    pub derived: Vec<Dataset>,
}

/// Whether a question asks what a verified query answers: the same meaningful words as its
/// question or its name (so "what's the average price by neighborhood?" matches "average price
/// by neighbourhood", but "average price by district" or "… in 2024" does not — a word more or
/// less may change the answer, and a verified query is only used for exactly its question).
pub fn matches_question(saved: &SavedQuery, question: &str) -> bool {
    let asked = meaning(question);
    !asked.is_empty() && (asked == meaning(&saved.question) || asked == meaning(&saved.name))
}
