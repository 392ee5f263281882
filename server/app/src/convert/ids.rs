//! Timestamps, and the ids a request names, parsed where they enter.

use super::*;

pub fn timestamp(t: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: t.timestamp(), nanos: t.timestamp_subsec_nanos() as i32 }
}

/// A request's timestamp; out-of-range values are a VALIDATION_ERROR on `field`.
pub fn timestamp_in(t: &prost_types::Timestamp, field: &str) -> aware_core::Result<DateTime<Utc>> {
    u32::try_from(t.nanos)
        .ok()
        .and_then(|nanos| DateTime::from_timestamp(t.seconds, nanos))
        .ok_or_else(|| aware_core::Error::validation(field, "the timestamp is out of range"))
}

pub(super) fn micros_timestamp(us: i64) -> prost_types::Timestamp {
    prost_types::Timestamp { seconds: us.div_euclid(1_000_000), nanos: (us.rem_euclid(1_000_000) * 1000) as i32 }
}

/// The dataset a request names.
pub fn dataset_id_in(raw: &str) -> Result<aware_domain::ids::DatasetId, aware_core::Error> {
    aware_domain::ids::DatasetId::parse_field(raw, "dataset_id")
}

/// The confirmation a person answers.
pub fn confirmation_id_in(raw: &str) -> Result<aware_domain::ids::ConfirmationId, aware_core::Error> {
    aware_domain::ids::ConfirmationId::parse_field(raw, "confirmation_id")
}
