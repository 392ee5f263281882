//! The run records port on SQLite: runs (chat and query), their capsules, history pages and
//! usage.

use super::*;
use aware_domain::run::{Feedback, Rating, RunOutcome};

/// `SELECT <every run column> FROM runs <rest>`.
macro_rules! select_runs {
    ($rest:literal) => {
        concat!(
            "SELECT id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id, ui_state_version, ",
            "model, last_seq, iterations, usage_json, error_json, created_at, completed_at, final_text, ",
            "feedback_rating, feedback_reason, feedback_at, outcome FROM runs ",
            $rest
        )
    };
}

/// `SELECT` of run capsules (alias `c`) with the given tail.
macro_rules! select_capsules {
    ($tail:literal) => {
        concat!(
            "SELECT c.datasets_json, c.query_mode, c.plan_json, c.compiled_sql, c.result_summary, c.error_json, ",
            "c.exec_time_ms, c.verified_query_json, c.result_sha256, c.result_json FROM run_capsules c ",
            $tail
        )
    };
}

fn capsule_from_row(c: &Row) -> Result<Capsule> {
    Ok(Capsule {
        datasets: from_json("datasets_json", c.get("datasets_json"))?.unwrap_or_default(),
        query_mode: QueryMode::parse(&c.get::<String>("query_mode")).unwrap_or_default(),
        plan_json: c.get("plan_json"),
        compiled_sql: c.get("compiled_sql"),
        result_summary: c.get("result_summary"),
        error: from_json("error_json", c.get("error_json"))?,
        exec_time_ms: c.get::<Option<i64>>("exec_time_ms").map(|n| n as u64),
        verified_query: from_json("verified_query_json", c.get("verified_query_json"))?,
        result_sha256: c.get("result_sha256"),
        result: from_json("result_json", c.get("result_json"))?,
        tool_calls: Vec::new(),
        grounding: None,
        changed_datasets: Vec::new(),
    })
}

pub(crate) fn run_from_row(r: &Row) -> Result<RunRecord> {
    let kind: String = r.get("kind");
    let status: String = r.get("status");
    let corrupt = |what: &str| -> Error { StoreError::Corrupt(what.to_owned()).into() };
    Ok(RunRecord {
        id: RunId::parse(r.get("id")).ok_or_else(|| corrupt("run id"))?,
        owner: UserId::parse(r.get("owner_id")).ok_or_else(|| corrupt("owner id"))?,
        thread_id: r.get::<Option<String>>("thread_id").as_deref().and_then(ThreadId::parse),
        kind: RunKind::parse(&kind).ok_or_else(|| corrupt("run kind"))?,
        status: RunStatus::parse(&status).ok_or_else(|| corrupt("run status"))?,
        question: r.get("question"),
        client_msg_id: r.get("client_msg_id"),
        parent_run_id: r.get::<Option<String>>("parent_run_id").as_deref().and_then(RunId::parse),
        ui_state_version: r.get::<i64>("ui_state_version") as u64,
        model: r.get("model"),
        last_seq: r.get::<i64>("last_seq") as u64,
        iterations: r.get::<i64>("iterations") as u32,
        usage: from_json("usage_json", r.get("usage_json"))?.unwrap_or_default(),
        error: from_json("error_json", r.get("error_json"))?,
        final_text: r.get::<Option<String>>("final_text").unwrap_or_default(),
        outcome: r
            .get::<Option<String>>("outcome")
            .map(|o| RunOutcome::parse(&o).ok_or_else(|| corrupt("run outcome")))
            .transpose()?,
        created_at: from_micros(r.get("created_at")),
        completed_at: r.get::<Option<i64>>("completed_at").map(from_micros),
        feedback: match r.get::<Option<String>>("feedback_rating") {
            Some(rating) => Some(Feedback {
                rating: Rating::parse(&rating).ok_or_else(|| corrupt("feedback rating"))?,
                reason: r.get::<Option<String>>("feedback_reason").unwrap_or_default(),
                at: from_micros(r.get::<Option<i64>>("feedback_at").unwrap_or_default()),
            }),
            None => None,
        },
    })
}

#[async_trait]
impl RunStore for Store {
    async fn insert_run(&self, run: &RunRecord) -> Result<()> {
        match self.insert_run_row(run, super::ActsAs::default(), super::Placing::default()).await? {
            1 => Ok(()),
            _ => Err(StoreError::Corrupt(format!("run {} exists already", run.id)).into()),
        }
    }

    async fn finish_run(&self, id: &RunId, status: RunStatus, error: Option<&RunError>, usage: &Usage) -> Result<()> {
        self.db
            .query(
                "UPDATE runs SET status = ?, outcome = ?, error_json = ?, usage_json = ?, completed_at = ? WHERE id = ?",
            )
            .bind(status.as_str())
            .bind(RunOutcome::of_status(status).map(RunOutcome::as_str))
            .bind(error.map(json).transpose()?)
            .bind(json(usage)?)
            .bind(micros(Utc::now()))
            .bind(id.as_str())
            .execute()
            .await
            .map_err(db)?;
        Ok(())
    }

    async fn save_capsule(&self, id: &RunId, c: &Capsule) -> Result<()> {
        self.db.query(
            "INSERT INTO run_capsules (run_id, datasets_json, query_mode, plan_json, compiled_sql, result_summary, error_json, exec_time_ms,
                                       verified_query_json, result_sha256, result_json)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
             ON CONFLICT (run_id) DO UPDATE SET datasets_json = excluded.datasets_json, query_mode = excluded.query_mode,
                 plan_json = excluded.plan_json, compiled_sql = excluded.compiled_sql, result_summary = excluded.result_summary,
                 error_json = excluded.error_json, exec_time_ms = excluded.exec_time_ms,
                 verified_query_json = excluded.verified_query_json, result_sha256 = excluded.result_sha256,
                 result_json = excluded.result_json",
        )
        .bind(id.as_str())
        .bind(json(&c.datasets)?)
        .bind(c.query_mode.as_str())
        .bind(c.plan_json.as_deref())
        .bind(c.compiled_sql.as_deref())
        .bind(c.result_summary.as_deref())
        .bind(c.error.as_ref().map(json).transpose()?)
        .bind(c.exec_time_ms.map(|n| n as i64))
        .bind(c.verified_query.as_ref().map(json).transpose()?)
        .bind(c.result_sha256.as_deref())
        .bind(c.result.as_ref().map(json).transpose()?)
        .execute()
        .await
        .map_err(db)?;
        Ok(())
    }

    async fn query_runs_of(&self, owner: &UserId, parent: &RunId) -> Result<Vec<(RunRecord, Capsule)>> {
        let ids: Vec<String> = self.db.query(
            "SELECT id FROM runs WHERE parent_run_id = ? AND owner_id = ? AND kind IN ('sql', 'query_plan') ORDER BY id",
        )
        .bind(parent.as_str())
        .bind(owner.as_str())
        .fetch_all_scalars()
        .await
        .map_err(db)?;
        let mut out = Vec::new();
        for id in ids.iter().filter_map(|i| RunId::parse(i)) {
            if let Some(run) = self.get_run(owner, &id).await? {
                out.push(run);
            }
        }
        Ok(out)
    }

    async fn get_run(&self, owner: &UserId, id: &RunId) -> Result<Option<(RunRecord, Capsule)>> {
        let Some(row) = self
            .db
            .query(select_runs!("WHERE id = ? AND owner_id = ?"))
            .bind(id.as_str())
            .bind(owner.as_str())
            .fetch_optional()
            .await
            .map_err(db)?
        else {
            return Ok(None);
        };
        let run = run_from_row(&row)?;
        let mut capsule = self
            .db
            .query(select_capsules!("WHERE c.run_id = ?"))
            .bind(id.as_str())
            .fetch_optional_map(capsule_from_row)
            .await?
            .unwrap_or_default();
        if run.kind.is_driven() {
            // A chat run's capsule gathers the queries its tools ran: every dataset version they
            // read, and the last query's mode, plan, SQL, summary; exec time adds up.
            let children = self.db.query(select_capsules!(
                "JOIN runs r ON r.id = c.run_id WHERE r.parent_run_id = ? AND r.kind IN ('sql', 'query_plan') ORDER BY r.id"
            ))
            .bind(id.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
            for c in &children {
                let child = capsule_from_row(c)?;
                for d in child.datasets {
                    if !capsule.datasets.contains(&d) {
                        capsule.datasets.push(d);
                    }
                }
                capsule.query_mode = child.query_mode;
                capsule.plan_json = child.plan_json;
                capsule.compiled_sql = child.compiled_sql;
                capsule.result_summary = child.result_summary;
                if child.verified_query.is_some() {
                    capsule.verified_query = child.verified_query;
                }
                capsule.exec_time_ms = Some(capsule.exec_time_ms.unwrap_or(0) + child.exec_time_ms.unwrap_or(0));
            }
            capsule.error = run.error.clone();
            capsule.tool_calls = aware_domain::ports::run_log::ToolCalls::tool_calls(self, id).await?;
            let grounding: Option<String> = self
                .db
                .query("SELECT grounding_json FROM runs WHERE id = ?")
                .bind(id.as_str())
                .fetch_scalar()
                .await
                .map_err(db)?;
            capsule.grounding = from_json("grounding_json", grounding)?;
        }
        Ok(Some((run, capsule)))
    }

    async fn list_runs(
        &self,
        owner: &UserId,
        thread: Option<&ThreadId>,
        rating: Option<Rating>,
        outcome: Option<RunOutcome>,
        before: Option<&RunId>,
        limit: u32,
    ) -> Result<Vec<RunRecord>> {
        // Run ids are time-ordered (UUIDv7), so paging by id is paging by creation time.
        let rows = self
            .db
            .query(select_runs!(
                "WHERE owner_id = ?1 AND (?2 IS NULL OR thread_id = ?2) AND (?3 IS NULL OR id < ?3)
               AND (?5 IS NULL OR feedback_rating = ?5) AND (?6 IS NULL OR outcome = ?6) ORDER BY id DESC LIMIT ?4"
            ))
            .bind(owner.as_str())
            .bind(thread.map(ThreadId::as_str))
            .bind(before.map(RunId::as_str))
            .bind(i64::from(limit))
            .bind(rating.map(Rating::as_str))
            .bind(outcome.map(RunOutcome::as_str))
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(run_from_row).collect()
    }

    async fn set_feedback(&self, owner: &UserId, id: &RunId, feedback: &Feedback) -> Result<bool> {
        let changed = self.db.query(
            "UPDATE runs SET feedback_rating = ?, feedback_reason = ?, feedback_at = ? WHERE id = ? AND owner_id = ?",
        )
        .bind(feedback.rating.as_str())
        .bind(&feedback.reason)
        .bind(micros(feedback.at))
        .bind(id.as_str())
        .bind(owner.as_str())
        .execute()
        .await
        .map_err(db)?;
        Ok(changed == 1)
    }

    async fn usage_since(&self, owner: &UserId, since: Option<DateTime<Utc>>) -> Result<(Usage, u32)> {
        let row = self
            .db
            .query_for(
                "SELECT count(*) AS runs,
                        coalesce(sum(json_extract(usage_json, '$.input_tokens')), 0) AS input,
                        coalesce(sum(json_extract(usage_json, '$.output_tokens')), 0) AS output,
                        coalesce(sum(json_extract(usage_json, '$.cache_read_tokens')), 0) AS cache_read,
                        coalesce(sum(json_extract(usage_json, '$.cache_write_tokens')), 0) AS cache_write,
                        coalesce(sum(json_extract(usage_json, '$.model_calls')), 0) AS calls,
                        coalesce(max(json_extract(usage_json, '$.partial')), 0) AS partial
                 FROM runs WHERE owner_id = ?1 AND created_at >= ?2",
                "SELECT count(*) AS runs,
                        coalesce(sum((usage_json::jsonb ->> 'input_tokens')::bigint), 0)::bigint AS input,
                        coalesce(sum((usage_json::jsonb ->> 'output_tokens')::bigint), 0)::bigint AS output,
                        coalesce(sum((usage_json::jsonb ->> 'cache_read_tokens')::bigint), 0)::bigint AS cache_read,
                        coalesce(sum((usage_json::jsonb ->> 'cache_write_tokens')::bigint), 0)::bigint AS cache_write,
                        coalesce(sum((usage_json::jsonb ->> 'model_calls')::bigint), 0)::bigint AS calls,
                        coalesce(max(CASE WHEN (usage_json::jsonb ->> 'partial')::boolean THEN 1 ELSE 0 END), 0)::bigint
                            AS partial
                 FROM runs WHERE owner_id = ?1 AND created_at >= ?2",
            )
            .bind(owner.as_str())
            .bind(since.map_or(i64::MIN, micros))
            .fetch_one()
            .await
            .map_err(db)?;
        let n = |c: &str| u64::try_from(row.get::<i64>(c)).unwrap_or(0);
        let usage = Usage {
            input_tokens: n("input"),
            output_tokens: n("output"),
            cache_read_tokens: n("cache_read"),
            cache_write_tokens: n("cache_write"),
            model_calls: u32::try_from(n("calls")).unwrap_or(u32::MAX),
            partial: n("partial") > 0,
        };
        Ok((usage, u32::try_from(n("runs")).unwrap_or(u32::MAX)))
    }
}
