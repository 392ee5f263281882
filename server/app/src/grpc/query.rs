//! `aware.v1.QueryService`: SQL and query plans in the sandbox, for people and programs.

use super::{State, how_to_run};
use crate::convert;
use crate::status::to_status;
use aware_core::Error;
use aware_core::query::Cost;
use aware_proto::v1 as pb;
use aware_proto::v1::query_service_server::QueryService;
use tonic::{Request, Response, Status};

pub struct Query {
    pub state: State,
}

#[tonic::async_trait]
impl QueryService for Query {
    async fn execute_sql(
        &self,
        request: Request<pb::ExecuteSqlRequest>,
    ) -> Result<Response<pb::ExecuteSqlResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.get_ref();
        let answer = (self.state.services.query)
            .execute_sql(&caller, &req.sql, req.limit, None, Cost::agreed(req.run_heavy))
            .await
            .map_err(|e| to_status(how_to_run(e)))?;
        Ok(Response::new(pb::ExecuteSqlResponse {
            table: Some(convert::table(&answer.table)),
            run_id: answer.run_id.to_string(),
            executed_sql: answer.executed_sql,
        }))
    }

    async fn execute_query_plan(
        &self,
        request: Request<pb::ExecuteQueryPlanRequest>,
    ) -> Result<Response<pb::ExecuteQueryPlanResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.get_ref();
        let plan = req.plan.as_ref().ok_or_else(|| to_status(Error::validation("plan", "a plan is required")))?;
        let plan = convert::plan_in(plan).map_err(to_status)?;
        let answer = (self.state.services.query)
            .execute_plan(&caller, &plan, req.limit, None, Cost::agreed(req.run_heavy))
            .await
            .map_err(|e| to_status(how_to_run(e)))?;
        Ok(Response::new(pb::ExecuteQueryPlanResponse {
            table: Some(convert::table(&answer.table)),
            run_id: answer.run_id.to_string(),
            compiled_sql: answer.compiled_sql,
        }))
    }
}
