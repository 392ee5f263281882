//! Domain types → `aware.v1` messages (and the few proto enums requests carry → domain). Domain
//! code never sees prost types; this is the boundary. By concern: `ids.rs` (timestamps and the
//! ids a request names), `datasets.rs`, `query.rs`, `runs.rs`, `events.rs`, `admin.rs`; every
//! function is reached as `convert::…`.

use aware_core::runs::{Answer, DEFAULT_GRANT, LONGEST_GRANT, Scope};
use aware_core::{Error, Result};
use aware_domain::auth::Role;
use aware_domain::dataset::DatasetVersion;
use aware_domain::dataset::{ColumnNote, ColumnStatistics, Dataset, DatasetFormat, DatasetStatistics, DatasetStatus};
use aware_domain::events::{
    EventPayload, Provenance, Resolution, ResourceRef, RichResult, RunEvent, RunPhase, Tier, ToolRisk,
};
use aware_domain::files::{EntryKind, ImportReport, Listing};
use aware_domain::knowledge::{CitationCheck, CitationStatus, KnowledgeResults};
use aware_domain::ports::run_log::{Confirmation, SessionGrant, SpanRecord};
use aware_domain::ports::{ApiKey, SavedQuery, User};
use aware_domain::query_plan::{
    Aggregate, Expr, Filter, FilterOp, Operator, OrderBy, QueryPlan, SelectItem, TimeBucket,
};
use aware_domain::run::ToolPhase;
use aware_domain::run::{
    Capsule, Feedback, QueryMode, Rating, RunError, RunKind, RunOutcome, RunRecord, RunStatus, Usage,
};
use aware_domain::search::{IndexState, IndexStatus, SearchHit, SearchResults};
use aware_domain::value::{Column, Table, Value, ValueKind};
use aware_proto::v1 as pb;
use chrono::{DateTime, Utc};

mod admin;
mod datasets;
mod events;
mod ids;
mod query;
mod runs;

pub(crate) use admin::*;
pub use datasets::*;
pub use events::*;
pub use ids::*;
pub use query::*;
pub use runs::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_before_the_epoch_keep_positive_nanos() {
        let t = micros_timestamp(-1);
        assert_eq!((t.seconds, t.nanos), (-1, 999_999_000));
        let t = micros_timestamp(1_500_000);
        assert_eq!((t.seconds, t.nanos), (1, 500_000_000));
    }

    #[test]
    fn unknown_status_filters_are_validation_errors() {
        assert_eq!(status_filter(0).unwrap(), None);
        assert_eq!(status_filter(2).unwrap(), Some(DatasetStatus::Ready));
        assert_eq!(status_filter(99).unwrap_err().field.as_deref(), Some("status_filter"));
    }
}
