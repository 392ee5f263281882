//! `aware.v1.ThreadsService`: the caller's conversations — list, reopen as turns, rename, delete,
//! fork at a past message. The run engine does the work (`aware_core::runs::threads`).

use super::State;
use crate::convert;
use crate::status::to_status;
use aware_core::runs::threads::Turn;
use aware_domain::events::Resolution;
use aware_domain::ids::RunId;
use aware_domain::ports::run_log::ThreadSummary;
use aware_proto::v1 as pb;
use aware_proto::v1::threads_service_server::ThreadsService;
use tonic::{Request, Response, Status};

pub struct Threads {
    pub state: State,
}

fn thread(t: &ThreadSummary) -> pb::Thread {
    let (from_thread, from_run) =
        t.forked_from.as_ref().map(|(thread, run)| (thread.name().to_owned(), run.to_string())).unwrap_or_default();
    pb::Thread {
        thread_id: t.id.name().to_owned(),
        title: t.title.clone().unwrap_or_default(),
        created_at: Some(convert::timestamp(t.created_at)),
        last_activity_at: Some(convert::timestamp(t.last_activity_at)),
        run_count: t.run_count,
        last_run_status: t.last_run_status.map(convert::run_status).unwrap_or_default().into(),
        last_run_outcome: t.last_run_outcome.map(convert::run_outcome).unwrap_or_default().into(),
        forked_from_thread_id: from_thread,
        forked_from_run_id: from_run,
    }
}

fn turn(t: &Turn) -> pb::Turn {
    pb::Turn {
        run_id: t.run.id.to_string(),
        status: convert::run_status(t.run.status).into(),
        outcome: t.run.outcome.map(convert::run_outcome).unwrap_or_default().into(),
        user_text: t.run.question.clone(),
        assistant_text: t.run.final_text.clone(),
        created_at: Some(convert::timestamp(t.run.created_at)),
        results: t
            .results
            .iter()
            .map(|r| pb::TurnResult {
                seq: r.seq,
                tool_call_id: r.tool_call_id.to_string(),
                tool_name: r.tool_name.clone(),
                is_error: r.is_error,
                summary: r.summary.clone(),
                has_rich: r.has_rich,
            })
            .collect(),
        confirmations: t
            .confirmations
            .iter()
            .map(|c| pb::TurnConfirmation {
                confirmation_id: c.confirmation_id.to_string(),
                tool_name: c.tool_name.clone(),
                description: c.description.clone(),
                resolution: if c.resolution == Resolution::Pending {
                    pb::ConfirmationResolution::Unspecified
                } else {
                    convert::resolution(c.resolution)
                }
                .into(),
                grant_id: c.grant_id.as_ref().map(ToString::to_string).unwrap_or_default(),
                edited_arguments_json: c.edited_arguments_json.clone(),
            })
            .collect(),
        feedback: t.run.feedback.as_ref().map(convert::feedback),
        memories_saved: t.memories_saved.clone(),
        grounding: convert::grounded_numbers(&t.grounding),
        citations: t.citations.as_ref().map(convert::citation_check),
    }
}

#[tonic::async_trait]
impl ThreadsService for Threads {
    async fn list_threads(
        &self,
        request: Request<pb::ListThreadsRequest>,
    ) -> Result<Response<pb::ListThreadsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let page = self
            .state
            .runs
            .list_threads(&caller, req.page_size, &req.page_token, &req.query)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::ListThreadsResponse {
            threads: page.threads.iter().map(thread).collect(),
            next_page_token: page.next.unwrap_or_default(),
        }))
    }

    async fn get_thread(
        &self,
        request: Request<pb::GetThreadRequest>,
    ) -> Result<Response<pb::GetThreadResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let (summary, turns) =
            self.state.runs.get_thread(&caller, &request.into_inner().thread_id).await.map_err(to_status)?;
        Ok(Response::new(pb::GetThreadResponse {
            thread: Some(thread(&summary)),
            turns: turns.iter().map(turn).collect(),
        }))
    }

    async fn rename_thread(
        &self,
        request: Request<pb::RenameThreadRequest>,
    ) -> Result<Response<pb::RenameThreadResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let renamed = self.state.runs.rename_thread(&caller, &req.thread_id, &req.title).await.map_err(to_status)?;
        Ok(Response::new(pb::RenameThreadResponse { thread: Some(thread(&renamed)) }))
    }

    async fn delete_thread(
        &self,
        request: Request<pb::DeleteThreadRequest>,
    ) -> Result<Response<pb::DeleteThreadResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let runs_deleted =
            self.state.runs.delete_thread(&caller, &request.into_inner().thread_id).await.map_err(to_status)?;
        Ok(Response::new(pb::DeleteThreadResponse { runs_deleted }))
    }

    async fn fork_thread(
        &self,
        request: Request<pb::ForkThreadRequest>,
    ) -> Result<Response<pb::ForkThreadResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let run_id = RunId::parse_field(&request.into_inner().run_id, "run_id").map_err(to_status)?;
        let (fork, user_text) = self.state.runs.fork_thread(&caller, &run_id).await.map_err(to_status)?;
        Ok(Response::new(pb::ForkThreadResponse { thread: Some(thread(&fork)), user_text }))
    }
}
