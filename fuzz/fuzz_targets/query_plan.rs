//! Any JSON as a QueryPlan, compiled against a schema whose column names are hostile (quotes,
//! spaces, keywords): compiling never panics, and every SQL it produces passes the validator
//! and reads only the plan's table.
#![no_main]

use aware_domain::dataset::{Dataset, DatasetFormat, DatasetStatus};
use aware_domain::ids::{DatasetId, UserId};
use aware_domain::query_plan::{QueryPlan, compile};
use aware_domain::value::Column;
use aware_sandbox::validator::{Policy, validate};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

fn dataset() -> Dataset {
    Dataset {
        id: DatasetId::parse("ds_fuzz").expect("id"),
        owner: UserId::local(),
        name: "sales.csv".into(),
        table_name: "sales".into(),
        format: DatasetFormat::Csv,
        status: DatasetStatus::Ready,
        row_count: 1000,
        columns: vec![
            Column::new("region", "VARCHAR"),
            Column::new("amount", "DOUBLE"),
            Column::new("qty", "BIGINT"),
            Column::new("sold_on", "DATE"),
            Column::new("ok", "BOOLEAN"),
            Column::new("say \"hi\"; DROP", "VARCHAR"),
            Column::new("select", "INTEGER"),
            Column::new("tags", "VARCHAR[]"),
        ],
        size_bytes: 1,
        version_hash: String::new(),
        error: None,
        created_at: chrono::DateTime::UNIX_EPOCH,
        updated_at: chrono::DateTime::UNIX_EPOCH,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(plan) = serde_json::from_slice::<QueryPlan>(data) else { return };
    let Ok(sql) = compile(&plan, &dataset(), 10_000) else { return };
    let tables: HashSet<String> = ["sales".to_owned()].into();
    let ok = validate(&sql, &tables, &Policy::default())
        .unwrap_or_else(|e| panic!("a compiled plan was refused: {sql:?} -> {e}"));
    assert!(ok.tables.iter().all(|t| t == "sales"), "{sql:?} reads {:?}", ok.tables);
});
