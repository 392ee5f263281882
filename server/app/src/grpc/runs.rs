//! `aware.v1.RunsService`: the history of runs (chat runs and queries), a run's stored events,
//! its trace and the usage totals.

use super::State;
use crate::convert;
use crate::status::to_status;
use aware_core::Error;
use aware_domain::ids::RunId;
use aware_proto::v1 as pb;
use aware_proto::v1::runs_service_server::RunsService;
use tonic::{Request, Response, Status};

pub struct Runs {
    pub state: State,
}

#[tonic::async_trait]
impl RunsService for Runs {
    async fn get_run(&self, request: Request<pb::GetRunRequest>) -> Result<Response<pb::GetRunResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let (run, capsule) = self
            .state
            .services
            .history
            .get(&caller, &RunId::parse_field(&request.get_ref().run_id, "run_id").map_err(to_status)?)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::GetRunResponse { run: Some(convert::run(&run, &capsule)) }))
    }

    async fn list_runs(&self, request: Request<pb::ListRunsRequest>) -> Result<Response<pb::ListRunsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.get_ref();
        let page = self
            .state
            .services
            .history
            .list(
                &caller,
                &req.thread_id,
                (
                    convert::rating_in(req.rating, "rating").map_err(to_status)?,
                    convert::run_outcome_in(req.outcome, "outcome").map_err(to_status)?,
                ),
                req.page_size,
                &req.page_token,
            )
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::ListRunsResponse {
            runs: page.runs.iter().map(|r| convert::run(r, &Default::default())).collect(),
            next_page_token: page.next.map(|id| id.to_string()).unwrap_or_default(),
        }))
    }

    async fn list_run_events(
        &self,
        request: Request<pb::ListRunEventsRequest>,
    ) -> Result<Response<pb::ListRunEventsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let limit = match req.limit {
            0 => 1_000,
            n @ 1..=10_000 => n,
            _ => return Err(to_status(Error::validation("limit", "limit must be 0 to 10000"))),
        };
        let run_id = RunId::parse_field(&req.run_id, "run_id").map_err(to_status)?;
        let page = self.state.runs.events(&caller, &run_id, req.after_seq, limit).await.map_err(to_status)?;
        Ok(Response::new(pb::ListRunEventsResponse {
            events: page.events.iter().map(convert::event).collect(),
            status: convert::run_status(page.status).into(),
            last_seq: page.last_seq,
        }))
    }

    async fn rerun_query(
        &self,
        request: Request<pb::RerunQueryRequest>,
    ) -> Result<Response<pb::RerunQueryResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let id = RunId::parse_field(&request.get_ref().run_id, "run_id").map_err(to_status)?;
        let reruns = self.state.services.query.rerun(&caller, &id).await.map_err(to_status)?;
        Ok(Response::new(pb::RerunQueryResponse { queries: reruns.iter().map(convert::rerun).collect() }))
    }

    async fn get_run_trace(
        &self,
        request: Request<pb::GetRunTraceRequest>,
    ) -> Result<Response<pb::GetRunTraceResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let run_id = RunId::parse_field(&request.into_inner().run_id, "run_id").map_err(to_status)?;
        let spans = self.state.runs.trace(&caller, &run_id).await.map_err(to_status)?;
        Ok(Response::new(pb::GetRunTraceResponse { spans: spans.iter().map(convert::span).collect() }))
    }

    async fn get_usage(&self, request: Request<pb::GetUsageRequest>) -> Result<Response<pb::GetUsageResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let since = req.since.map(|t| convert::timestamp_in(&t, "since")).transpose().map_err(to_status)?;
        let (user, usage, runs) =
            self.state.services.history.usage(&caller, &req.user_id, since).await.map_err(to_status)?;
        Ok(Response::new(pb::GetUsageResponse { user_id: user.to_string(), usage: Some(convert::usage(&usage)), runs }))
    }

    async fn submit_feedback(
        &self,
        request: Request<pb::SubmitFeedbackRequest>,
    ) -> Result<Response<pb::SubmitFeedbackResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let run_id = RunId::parse_field(&req.run_id, "run_id").map_err(to_status)?;
        let rating = convert::rating_in(req.rating, "rating")
            .and_then(|r| r.ok_or_else(|| Error::validation("rating", "rating is UP or DOWN")))
            .map_err(to_status)?;
        let feedback = self
            .state
            .services
            .history
            .submit_feedback(&caller, &run_id, rating, &req.reason)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::SubmitFeedbackResponse { feedback: Some(convert::feedback(&feedback)) }))
    }
}
