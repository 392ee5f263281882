//! Any text through the SQL validator: it never panics, and what it accepts (its canonical
//! text) is accepted again with the same tables — the worker only ever runs canonical SQL.
#![no_main]

use aware_sandbox::validator::{Policy, validate};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;

fuzz_target!(|data: &[u8]| {
    let Ok(sql) = std::str::from_utf8(data) else { return };
    let tables: HashSet<String> = ["customer_churn", "sales", "t"].into_iter().map(String::from).collect();
    let policy = Policy::default();
    if let Ok(ok) = validate(sql, &tables, &policy) {
        let again = validate(&ok.canonical, &tables, &policy)
            .unwrap_or_else(|e| panic!("canonical SQL refused: {:?} -> {e}", ok.canonical));
        assert_eq!(again.tables, ok.tables, "{:?}", ok.canonical);
    }
});
