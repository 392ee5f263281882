//! What a run did, step by step: its tool calls (intent, then result) and its timed spans, both
//! written through the group-commit writer.

use super::corrupt;
use crate::db::Row;
use crate::group_commit::{SpanWrite, ToolCallWrite, Write};
use crate::{Store, db, from_json, from_micros, json, micros};
use async_trait::async_trait;
use aware_domain::Result;
use aware_domain::ids::{RunId, ToolCallId};
use aware_domain::ports::run_log::SpanRecord;
use aware_domain::ports::run_log::ToolCalls;
use aware_domain::run::ToolCallRow;
use aware_domain::run::ToolPhase;
use chrono::Utc;

fn tool_row(r: &Row) -> Result<ToolCallRow> {
    let status: String = r.get("status");
    Ok(ToolCallRow {
        id: ToolCallId::parse(r.get("id")).ok_or_else(|| corrupt("tool call id"))?,
        run_id: RunId::parse(r.get("run_id")).ok_or_else(|| corrupt("run id"))?,
        iteration: r.get::<i64>("iteration") as u32,
        tool_name: r.get("tool_name"),
        arguments_json: r.get("arguments_json"),
        phase: ToolPhase::parse(&status).ok_or_else(|| corrupt("tool status"))?,
        llm_summary: r.get("llm_summary"),
        result_json: r.get("result_json"),
        duration_ms: r.get::<Option<i64>>("duration_ms").map(|n| n as u64),
    })
}

/// A tool call's row as the writer stores it (`at`: when its intent or its result is written).
fn tool_call_write(row: &ToolCallRow) -> ToolCallWrite {
    ToolCallWrite {
        id: row.id.as_str().to_owned(),
        run_id: row.run_id.as_str().to_owned(),
        iteration: i64::from(row.iteration),
        tool_name: row.tool_name.clone(),
        arguments_json: row.arguments_json.clone(),
        status: row.phase.as_str(),
        at: micros(Utc::now()),
        llm_summary: row.llm_summary.clone(),
        result_json: row.result_json.clone(),
        duration_ms: row.duration_ms.map(|n| n as i64),
    }
}

#[async_trait]
impl ToolCalls for Store {
    async fn record_tool_intent(&self, row: &ToolCallRow) -> Result<()> {
        self.writes.write(Write::ToolIntent(tool_call_write(row))).await
    }

    async fn record_tool_result(&self, row: &ToolCallRow) -> Result<()> {
        self.writes.write(Write::ToolResult(tool_call_write(row))).await
    }

    async fn tool_calls(&self, run: &RunId) -> Result<Vec<ToolCallRow>> {
        let rows = self
            .db
            .query(
                "SELECT id, run_id, iteration, tool_name, arguments_json, status, llm_summary, result_json, duration_ms
             FROM tool_calls WHERE run_id = ? ORDER BY coalesce(intent_at, completed_at)",
            )
            .bind(run.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter().map(tool_row).collect()
    }

    async fn insert_span(&self, run: &RunId, span: &SpanRecord) -> Result<()> {
        let span = SpanWrite {
            run_id: run.as_str().to_owned(),
            span_id: span.span_id.clone(),
            parent_span_id: span.parent_span_id.clone(),
            kind: span.kind.clone(),
            name: span.name.clone(),
            start_us: micros(span.start),
            end_us: micros(span.end),
            attributes_json: json(&span.attributes)?,
        };
        self.writes.write(Write::Span(span)).await
    }

    async fn spans(&self, run: &RunId) -> Result<Vec<SpanRecord>> {
        let rows = self
            .db
            .query(
                "SELECT span_id, parent_span_id, kind, name, start_us, end_us, attributes_json
             FROM run_spans WHERE run_id = ? ORDER BY start_us, span_id",
            )
            .bind(run.as_str())
            .fetch_all()
            .await
            .map_err(db)?;
        rows.iter()
            .map(|r| {
                Ok(SpanRecord {
                    span_id: r.get("span_id"),
                    parent_span_id: r.get("parent_span_id"),
                    kind: r.get("kind"),
                    name: r.get("name"),
                    start: from_micros(r.get("start_us")),
                    end: from_micros(r.get::<Option<i64>>("end_us").unwrap_or_else(|| r.get("start_us"))),
                    attributes: from_json("attributes_json", Some(r.get("attributes_json")))?.unwrap_or_default(),
                })
            })
            .collect()
    }
}
