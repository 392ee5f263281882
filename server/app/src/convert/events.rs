//! A run's events and their parts: tool phases, tiers, risks, rich results, provenance.

use super::*;

pub(super) fn tool_phase(p: ToolPhase) -> pb::ToolPhase {
    match p {
        ToolPhase::Queued => pb::ToolPhase::Queued,
        ToolPhase::AwaitingConfirmation => pb::ToolPhase::AwaitingConfirmation,
        ToolPhase::Running => pb::ToolPhase::Running,
        ToolPhase::Succeeded => pb::ToolPhase::Succeeded,
        ToolPhase::Failed => pb::ToolPhase::Failed,
        ToolPhase::Denied => pb::ToolPhase::Denied,
        ToolPhase::Expired => pb::ToolPhase::Expired,
        ToolPhase::Cancelled => pb::ToolPhase::Cancelled,
    }
}

pub(super) fn tier(t: Tier) -> pb::ConfirmationTier {
    match t {
        Tier::Standard => pb::ConfirmationTier::Standard,
        Tier::Elevated => pb::ConfirmationTier::Elevated,
    }
}

pub fn resolution(r: Resolution) -> pb::ConfirmationResolution {
    match r {
        Resolution::Pending => pb::ConfirmationResolution::Unspecified,
        Resolution::Approved => pb::ConfirmationResolution::Approved,
        Resolution::Denied => pb::ConfirmationResolution::Denied,
        Resolution::Expired => pb::ConfirmationResolution::Expired,
        Resolution::Cancelled => pb::ConfirmationResolution::Cancelled,
        Resolution::Superseded => pb::ConfirmationResolution::Superseded,
    }
}

pub fn run_phase(p: RunPhase) -> pb::RunPhase {
    match p {
        RunPhase::Queued => pb::RunPhase::Queued,
        RunPhase::WaitingModel => pb::RunPhase::WaitingModel,
        RunPhase::Streaming => pb::RunPhase::Streaming,
        RunPhase::ExecutingTool => pb::RunPhase::ExecutingTool,
        RunPhase::AwaitingConfirmation => pb::RunPhase::AwaitingConfirmation,
    }
}

pub fn tool_risk(r: ToolRisk) -> pb::ToolRisk {
    pb::ToolRisk {
        read_only: r.read_only,
        destructive: r.destructive,
        requires_confirmation: r.confirmation.is_some(),
        tier: r.confirmation.map_or(pb::ConfirmationTier::Unspecified, tier).into(),
    }
}

pub(super) fn rich(r: &RichResult) -> pb::tool_result::Rich {
    match r {
        RichResult::DatasetList { datasets } => {
            pb::tool_result::Rich::DatasetList(pb::DatasetList { datasets: datasets.iter().map(dataset).collect() })
        }
        RichResult::DeletedDataset { dataset: d } => pb::tool_result::Rich::DeletedDataset(dataset(d)),
        RichResult::DatasetDetail { dataset: d, sample } => pb::tool_result::Rich::DatasetDetail(pb::DatasetDetail {
            dataset: Some(dataset(d)),
            sample: sample.as_ref().map(table),
        }),
        RichResult::Table { table: t, .. } => pb::tool_result::Rich::Table(table(t)),
        RichResult::Run { run: r, capsule } => pb::tool_result::Rich::Run(run(r, capsule)),
        RichResult::External { server_id, tool, result } => pb::tool_result::Rich::External(pb::ExternalResult {
            server_id: server_id.clone(),
            tool: tool.clone(),
            result_json: result.to_string(),
        }),
        RichResult::Statistics { statistics: s } => pb::tool_result::Rich::Statistics(statistics(s)),
        RichResult::DirectoryListing { listing: l } => pb::tool_result::Rich::DirectoryListing(listing(l)),
        RichResult::ImportReport { report } => pb::tool_result::Rich::ImportReport(import_report(report)),
        RichResult::SearchHits { results } => pb::tool_result::Rich::SearchHits(search_hits(results)),
        RichResult::Knowledge { results } => pb::tool_result::Rich::Knowledge(knowledge_hits(results)),
        RichResult::SystemStatus { status } => pb::tool_result::Rich::SystemStatus(pb::SystemStatus {
            version: status.version.clone(),
            mode: status.mode.clone(),
            model_provider: status.model_provider.clone(),
            storage: status.storage.clone(),
            dataset_count: status.dataset_count,
            dataset_bytes: status.dataset_bytes,
            search_index: status.search.clone(),
            ..Default::default()
        }),
        RichResult::DatasetChanged { change, dataset: d } => pb::tool_result::Rich::DatasetChange(pb::DatasetChange {
            change: change.clone(),
            dataset: Some(dataset(d)),
        }),
        RichResult::SavedQuery { change, query } => pb::tool_result::Rich::SavedQueryChange(pb::SavedQueryChange {
            change: change.clone(),
            query: Some(saved_query(query)),
        }),
        RichResult::Account { change, user, api_key, token } => {
            pb::tool_result::Rich::AccountChange(pb::AccountChange {
                change: change.clone(),
                user: user.as_ref().map(self::user),
                api_key: api_key.as_ref().map(self::api_key),
                token: token.clone(),
            })
        }
    }
}

/// A sequenced run event as clients see it.
// Over 120 lines on purpose: one arm per kind of event, each a field-by-field copy; a new kind
// must be added here (the match has no `_` arm), and splitting the arms apart would hide that.
pub fn event(e: &RunEvent) -> pb::ServerEvent {
    use pb::server_event::Payload as P;
    let payload = match &e.payload {
        EventPayload::RunStarted {
            user_text,
            ui_state_version,
            max_iterations,
            parent_run_id,
            model,
            client_msg_id,
            tools,
        } => P::RunStarted(pb::RunStarted {
            thread_id: e.thread_id.name().to_owned(),
            user_text: user_text.clone(),
            ui_state_version: *ui_state_version,
            max_iterations: *max_iterations,
            parent_run_id: parent_run_id.as_ref().map(ToString::to_string).unwrap_or_default(),
            model: model.clone(),
            client_msg_id: client_msg_id.clone(),
            tools: tools
                .iter()
                .map(|t| pb::ToolListing {
                    name: t.name.clone(),
                    title: t.title.clone(),
                    provenance: Some(provenance(&t.provenance)),
                })
                .collect(),
        }),
        EventPayload::TextStarted { message_id } => P::TextStarted(pb::TextStarted { message_id: message_id.clone() }),
        EventPayload::TextDelta { message_id, delta } => {
            P::TextDelta(pb::TextDelta { message_id: message_id.clone(), delta: delta.clone() })
        }
        EventPayload::TextEnded { message_id } => P::TextEnded(pb::TextEnded { message_id: message_id.clone() }),
        EventPayload::ToolCallStarted { tool_call_id, tool_name, arguments_json, risk, title, provenance: p } => {
            P::ToolCallStarted(pb::ToolCallStarted {
                tool_call_id: tool_call_id.to_string(),
                tool_name: tool_name.clone(),
                arguments_json: arguments_json.clone(),
                risk: Some(tool_risk(*risk)),
                title: title.clone(),
                provenance: Some(provenance(p)),
            })
        }
        EventPayload::ToolStatus { tool_call_id, phase, message } => P::ToolStatus(pb::ToolStatus {
            tool_call_id: tool_call_id.to_string(),
            phase: tool_phase(*phase).into(),
            message: message.clone(),
        }),
        EventPayload::ToolResult {
            tool_call_id,
            tool_name,
            is_error,
            llm_summary,
            error,
            duration_ms,
            rich: r,
            provenance: p,
        } => P::ToolResult(pb::ToolResult {
            tool_call_id: tool_call_id.to_string(),
            tool_name: tool_name.clone(),
            is_error: *is_error,
            llm_summary: llm_summary.clone(),
            error: error.as_ref().map(run_error),
            duration_ms: *duration_ms,
            executed_sql: match r {
                Some(RichResult::Table { executed_sql, .. }) => executed_sql.clone(),
                _ => String::new(),
            },
            chart: match r {
                Some(RichResult::Table { table, .. }) => aware_domain::chart::chart_for(table).map(|c| chart(&c)),
                _ => None,
            },
            rich: r.as_ref().map(rich),
            provenance: Some(provenance(p)),
        }),
        EventPayload::ToolDenied { tool_call_id, tool_name, reason, code, provenance: p } => {
            P::ToolDenied(pb::ToolDenied {
                tool_call_id: tool_call_id.to_string(),
                tool_name: tool_name.clone(),
                reason: reason.clone(),
                code: code.clone(),
                provenance: Some(provenance(p)),
            })
        }
        EventPayload::ConfirmationRequired {
            confirmation_id,
            tool_call_id,
            tool_name,
            resource,
            description,
            tier: t,
            expires_at,
            arguments_json,
            resolved_arguments_json,
            grantable,
            blast_radius,
        } => P::ConfirmationRequired(pb::ConfirmationRequired {
            confirmation_id: confirmation_id.to_string(),
            tool_call_id: tool_call_id.to_string(),
            tool_name: tool_name.clone(),
            resource: Some(resource_ref(resource)),
            description: description.clone(),
            tier: tier(*t).into(),
            expires_at: Some(timestamp(*expires_at)),
            arguments_json: arguments_json.clone(),
            resolved_arguments_json: resolved_arguments_json.clone(),
            grantable: *grantable,
            blast_radius: blast_radius.as_ref().map(|b| pb::BlastRadius {
                version_hash: b.version_hash.clone(),
                row_count: b.row_count,
                size_bytes: b.size_bytes,
                saved_queries: b.saved_queries.clone(),
                derived_datasets: b.derived_datasets.iter().map(resource_ref).collect(),
            }),
        }),
        EventPayload::ConfirmationResolved {
            confirmation_id,
            tool_call_id,
            resolution: r,
            grant_id,
            edited_arguments_json,
        } => P::ConfirmationResolved(pb::ConfirmationResolved {
            confirmation_id: confirmation_id.to_string(),
            tool_call_id: tool_call_id.to_string(),
            resolution: resolution(*r).into(),
            grant_id: grant_id.as_ref().map(ToString::to_string).unwrap_or_default(),
            edited_arguments_json: edited_arguments_json.clone(),
        }),
        EventPayload::ClarificationRequired { clarification_id, tool_call_id, question: q, expires_at } => {
            use aware_domain::events::ClarificationKind;
            P::ClarificationRequired(pb::ClarificationRequired {
                clarification_id: clarification_id.to_string(),
                tool_call_id: tool_call_id.to_string(),
                kind: match q.kind {
                    ClarificationKind::Column => pb::ClarificationKind::Column,
                    ClarificationKind::Value => pb::ClarificationKind::Value,
                    ClarificationKind::TimeRange => pb::ClarificationKind::TimeRange,
                }
                .into(),
                question: q.question.clone(),
                phrase: q.phrase.clone(),
                dataset: Some(resource_ref(&q.dataset)),
                options: q
                    .options
                    .iter()
                    .map(|o| pb::ClarificationOption {
                        value: o.value.clone(),
                        label: o.label.clone(),
                        sql_type: o.sql_type.clone(),
                        null_share: o.null_share,
                        min: o.min.clone(),
                        max: o.max.clone(),
                        count: o.count,
                    })
                    .collect(),
                expires_at: Some(timestamp(*expires_at)),
            })
        }
        EventPayload::ClarificationResolved { clarification_id, tool_call_id, resolution: r, choice, remembered } => {
            P::ClarificationResolved(pb::ClarificationResolved {
                clarification_id: clarification_id.to_string(),
                tool_call_id: tool_call_id.to_string(),
                resolution: resolution(*r).into(),
                choice: choice.clone(),
                remembered: *remembered,
            })
        }
        EventPayload::MemorySaved { memory_id, text } => {
            P::MemorySaved(pb::MemorySaved { memory_id: memory_id.to_string(), text: text.clone() })
        }
        EventPayload::Grounding { numbers, citations } => P::Grounding(pb::Grounding {
            numbers: grounded_numbers(numbers),
            ungrounded: numbers.iter().filter(|n| n.source.is_none()).count() as u32,
            citations: citations.as_ref().map(citation_check),
        }),
        EventPayload::RetrievalCompleted { tool_call_id, query, chunk_ids } => {
            P::RetrievalCompleted(pb::RetrievalCompleted {
                tool_call_id: tool_call_id.to_string(),
                query: query.clone(),
                chunk_ids: chunk_ids.clone(),
            })
        }
        EventPayload::MemoryForgotten { memory_id, text } => {
            P::MemoryForgotten(pb::MemoryForgotten { memory_id: memory_id.to_string(), text: text.clone() })
        }
        EventPayload::RoutingDecided { intent, confidence, risk, tools, withheld_tools } => {
            P::RoutingDecided(pb::RoutingDecided {
                intent: intent.clone(),
                confidence: *confidence,
                risk: risk.clone(),
                tools: tools.clone(),
                withheld_tools: withheld_tools.clone(),
            })
        }
        EventPayload::RunCompleted { status, error, usage: u, final_text, follow_ups, .. } => {
            P::RunCompleted(pb::RunCompleted {
                status: run_status(*status).into(),
                error: error.as_ref().map(run_error),
                usage: Some(usage(u)),
                final_text: final_text.clone(),
                outcome: e.outcome().map(run_outcome).unwrap_or_default().into(),
                follow_ups: follow_ups.clone(),
            })
        }
    };
    pb::ServerEvent {
        run_id: e.run_id.to_string(),
        seq: e.seq,
        time: Some(timestamp(e.time)),
        iteration: e.iteration,
        thread_id: e.thread_id.name().to_owned(),
        payload: Some(payload),
    }
}

pub(super) fn resource_ref(r: &ResourceRef) -> pb::ResourceRef {
    pb::ResourceRef { r#type: r.kind.clone(), id: r.id.clone(), display_name: r.display_name.clone() }
}

/// Where a tool comes from.
pub(crate) fn provenance(p: &Provenance) -> pb::ToolProvenance {
    pb::ToolProvenance { source: p.source.as_str().to_owned(), server_id: p.server_id.clone(), scope: p.scope.clone() }
}
