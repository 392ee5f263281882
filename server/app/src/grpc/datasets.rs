//! `aware.v1.DatasetsService`.

use super::State;
use crate::convert;
use crate::status::to_status;
use aware_core::curation::{DatasetChange, QuerySource};
use aware_core::datasets::UploadMeta;
use aware_core::{Error, ErrorCode};
use aware_domain::search::SearchMode;
use aware_proto::v1 as pb;
use aware_proto::v1::datasets_service_server::DatasetsService;
use bytes::Bytes;
use futures::StreamExt;
use tonic::{Code, Request, Response, Status, Streaming};

pub struct Datasets {
    pub state: State,
}

/// Sample rows GetDataset includes when the request does not say.
const DEFAULT_SAMPLE_ROWS: u32 = 5;

/// A broken upload stream: the client went away, or sent something the transport refused.
fn broken_stream(status: Status, max_message_mb: u32) -> Error {
    if matches!(status.code(), Code::OutOfRange | Code::ResourceExhausted) {
        Error::resource_exhausted(format!(
            "an upload message was larger than the {max_message_mb} MiB message limit; send the file in smaller chunks (1 MiB is a good size)"
        ))
    } else {
        Error::new(ErrorCode::Cancelled, format!("the upload was interrupted: {}", status.message()))
    }
}

#[tonic::async_trait]
impl DatasetsService for Datasets {
    async fn list_datasets(
        &self,
        request: Request<pb::ListDatasetsRequest>,
    ) -> Result<Response<pb::ListDatasetsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let filter = convert::status_filter(request.get_ref().status_filter).map_err(to_status)?;
        let datasets = self.state.services.datasets.list(&caller, filter).await.map_err(to_status)?;
        let search = self.state.services.datasets.search();
        let datasets = datasets.iter().map(|d| convert::dataset_with_index(d, search.status(&d.id))).collect();
        Ok(Response::new(pb::ListDatasetsResponse { datasets }))
    }

    async fn get_dataset(
        &self,
        request: Request<pb::GetDatasetRequest>,
    ) -> Result<Response<pb::GetDatasetResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let (dataset, sample) = self
            .state
            .services
            .datasets
            .get_with_sample(
                &caller,
                &convert::dataset_id_in(&req.dataset_id).map_err(to_status)?,
                req.sample_rows.unwrap_or(DEFAULT_SAMPLE_ROWS),
            )
            .await
            .map_err(to_status)?;
        let index = self.state.services.datasets.search().status(&dataset.id);
        let catalog = self.state.services.datasets.for_run(&caller).await.map_err(to_status)?;
        let suggested_questions = self.state.services.suggestions.suggest(&dataset, catalog).await;
        Ok(Response::new(pb::GetDatasetResponse {
            dataset: Some(convert::dataset_with_index(&dataset, index)),
            sample: sample.as_ref().map(convert::table),
            suggested_questions,
        }))
    }

    async fn upload_dataset(
        &self,
        request: Request<Streaming<pb::UploadDatasetRequest>>,
    ) -> Result<Response<pb::UploadDatasetResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let max_mb = self.state.config.limits.max_message_mb;
        let mut inbound = request.into_inner();
        let first = inbound.message().await.map_err(|s| to_status(broken_stream(s, max_mb)))?.ok_or_else(|| {
            to_status(Error::validation("filename", "the upload was empty: the first message must carry a filename"))
        })?;
        let meta = UploadMeta { filename: first.filename, format: first.format, size_bytes: first.size_bytes };
        let chunks = futures::stream::once(async move { Ok::<Bytes, Error>(first.chunk) })
            .chain(inbound.map(move |m| m.map(|m| m.chunk).map_err(|s| broken_stream(s, max_mb))));
        let dataset = self.state.services.datasets.upload(&caller, meta, Box::pin(chunks)).await.map_err(to_status)?;
        Ok(Response::new(pb::UploadDatasetResponse { dataset: Some(convert::dataset(&dataset)) }))
    }

    async fn create_upload(
        &self,
        request: Request<pb::CreateUploadRequest>,
    ) -> Result<Response<pb::CreateUploadResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let meta = UploadMeta { filename: req.filename, format: req.format, size_bytes: 0 };
        let session =
            self.state.services.datasets.create_upload(&caller, meta, req.size_bytes).await.map_err(to_status)?;
        Ok(Response::new(pb::CreateUploadResponse {
            upload_id: session.id.to_string(),
            max_chunk_bytes: self.state.services.datasets.limits().max_chunk_bytes,
        }))
    }

    async fn append_upload(
        &self,
        request: Request<pb::AppendUploadRequest>,
    ) -> Result<Response<pb::AppendUploadResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let received = self
            .state
            .services
            .datasets
            .append_upload(&caller, &req.upload_id, req.offset, &req.chunk)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::AppendUploadResponse { received_bytes: received }))
    }

    async fn commit_upload(
        &self,
        request: Request<pb::CommitUploadRequest>,
    ) -> Result<Response<pb::CommitUploadResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let dataset = self
            .state
            .services
            .datasets
            .commit_upload(&caller, &request.get_ref().upload_id)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::CommitUploadResponse { dataset: Some(convert::dataset(&dataset)) }))
    }

    async fn preview_rows(
        &self,
        request: Request<pb::PreviewRowsRequest>,
    ) -> Result<Response<pb::PreviewRowsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.get_ref();
        let table = self
            .state
            .services
            .datasets
            .preview(&caller, &convert::dataset_id_in(&req.dataset_id).map_err(to_status)?, req.limit)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::PreviewRowsResponse { table: Some(convert::table(&table)) }))
    }

    async fn get_dataset_statistics(
        &self,
        request: Request<pb::GetDatasetStatisticsRequest>,
    ) -> Result<Response<pb::GetDatasetStatisticsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let stats = self
            .state
            .services
            .datasets
            .statistics(&caller, &convert::dataset_id_in(&request.get_ref().dataset_id).map_err(to_status)?)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::GetDatasetStatisticsResponse { statistics: Some(convert::statistics(&stats)) }))
    }

    async fn delete_dataset(
        &self,
        request: Request<pb::DeleteDatasetRequest>,
    ) -> Result<Response<pb::DeleteDatasetResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let deleted = self
            .state
            .services
            .datasets
            .delete(&caller, &convert::dataset_id_in(&request.get_ref().dataset_id).map_err(to_status)?, None)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::DeleteDatasetResponse { dataset_id: deleted.id.to_string() }))
    }

    async fn search_datasets(
        &self,
        request: Request<pb::SearchDatasetsRequest>,
    ) -> Result<Response<pb::SearchDatasetsResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let mode = SearchMode::parse(&req.mode).map_err(to_status)?;
        let results = self
            .state
            .services
            .datasets
            .search()
            .search(&caller, &req.query, Some(req.dataset_id.as_str()), req.limit, mode)
            .await
            .map_err(to_status)?;
        let hits = convert::search_hits(&results);
        Ok(Response::new(pb::SearchDatasetsResponse {
            hits: hits.hits,
            mode: hits.mode,
            datasets_searched: hits.datasets_searched,
            note: hits.note,
        }))
    }

    async fn update_dataset(
        &self,
        request: Request<pb::UpdateDatasetRequest>,
    ) -> Result<Response<pb::UpdateDatasetResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let id = convert::dataset_id_in(&req.dataset_id).map_err(to_status)?;
        let change = DatasetChange {
            name: req.name,
            table_name: req.table_name,
            description: req.description,
            column_notes: req.column_notes.into_iter().map(convert::column_note_in).collect(),
        };
        let updated = self.state.services.curation.update(&caller, &id, &change).await.map_err(to_status)?;
        Ok(Response::new(pb::UpdateDatasetResponse { dataset: Some(convert::dataset(&updated)) }))
    }

    async fn refresh_dataset(
        &self,
        request: Request<pb::RefreshDatasetRequest>,
    ) -> Result<Response<pb::RefreshDatasetResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let id = convert::dataset_id_in(&request.get_ref().dataset_id).map_err(to_status)?;
        let r = self.state.services.files.refresh(&caller, &id, None).await.map_err(to_status)?;
        let index = self.state.services.datasets.search().status(&id);
        Ok(Response::new(pb::RefreshDatasetResponse {
            dataset: Some(convert::dataset_with_index(&r.dataset, index)),
            changed: r.changed,
            previous_row_count: r.before.row_count,
        }))
    }

    async fn materialize_query(
        &self,
        request: Request<pb::MaterializeQueryRequest>,
    ) -> Result<Response<pb::MaterializeQueryResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let source = query_source(req.query.map(|q| match q {
            pb::materialize_query_request::Query::Sql(sql) => Either::Sql(sql),
            pb::materialize_query_request::Query::Plan(plan) => Either::Plan(plan),
        }))?;
        let dataset = self
            .state
            .services
            .curation
            .materialize(&caller, &source, &req.table_name, None, aware_core::query::Cost::agreed(req.run_heavy))
            .await
            .map_err(|e| to_status(super::how_to_run(e)))?;
        Ok(Response::new(pb::MaterializeQueryResponse { dataset: Some(convert::dataset(&dataset)) }))
    }

    async fn list_saved_queries(
        &self,
        request: Request<pb::ListSavedQueriesRequest>,
    ) -> Result<Response<pb::ListSavedQueriesResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let queries = self.state.services.curation.saved_queries(&caller).await.map_err(to_status)?;
        Ok(Response::new(pb::ListSavedQueriesResponse { queries: queries.iter().map(convert::saved_query).collect() }))
    }

    async fn save_query(
        &self,
        request: Request<pb::SaveQueryRequest>,
    ) -> Result<Response<pb::SaveQueryResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let req = request.into_inner();
        let source = query_source(req.query.map(|q| match q {
            pb::save_query_request::Query::Sql(sql) => Either::Sql(sql),
            pb::save_query_request::Query::Plan(plan) => Either::Plan(plan),
        }))?;
        let saved = self
            .state
            .services
            .curation
            .save_query(
                &caller,
                &req.name,
                &req.question,
                &source,
                None,
                aware_core::query::Cost::agreed(req.run_heavy),
            )
            .await
            .map_err(|e| to_status(super::how_to_run(e)))?;
        Ok(Response::new(pb::SaveQueryResponse { query: Some(convert::saved_query(&saved)) }))
    }

    async fn delete_saved_query(
        &self,
        request: Request<pb::DeleteSavedQueryRequest>,
    ) -> Result<Response<pb::DeleteSavedQueryResponse>, Status> {
        let caller = self.state.caller(request.metadata()).await?;
        let deleted = self
            .state
            .services
            .curation
            .delete_saved_query(&caller, &request.get_ref().query)
            .await
            .map_err(to_status)?;
        Ok(Response::new(pb::DeleteSavedQueryResponse { query: Some(convert::saved_query(&deleted)) }))
    }
}

/// The query of a request's `oneof query`, either kind.
enum Either {
    Sql(String),
    Plan(pb::QueryPlan),
}

fn query_source(query: Option<Either>) -> Result<QuerySource, Status> {
    match query {
        Some(Either::Sql(sql)) => Ok(QuerySource::Sql(sql)),
        Some(Either::Plan(plan)) => Ok(QuerySource::Plan(convert::plan_in(&plan).map_err(to_status)?)),
        None => Err(to_status(Error::validation("query", "give the query: `sql` or `plan`"))),
    }
}
