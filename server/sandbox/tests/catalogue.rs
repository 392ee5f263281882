#![allow(clippy::unwrap_used)]
//! Every function in the catalogue of the DuckDB aware links is classified: allowed by the SQL
//! validator (`FUNCTIONS`, `TABLE_FUNCTIONS`) or listed as refused (`refused_functions.txt`). The
//! validator refuses anything it does not allow, so an unclassified function is not a hole — but a
//! new DuckDB version (or a different build of it) must not add one without someone deciding.

use aware_sandbox::validator::{FUNCTIONS, Policy, TABLE_FUNCTIONS, validate};
use std::collections::{BTreeSet, HashSet};

fn catalogue(types: &str) -> BTreeSet<String> {
    let conn = duckdb::Connection::open_in_memory().unwrap();
    let sql = format!(
        "SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type IN ({types}) ORDER BY 1"
    );
    let mut stmt = conn.prepare(&sql).unwrap();
    stmt.query_map([], |row| row.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .filter(|f| called_by_name(f))
        .collect()
}

/// Operators (`+`, `->>`, `is distinct from`) and keywords (`not`, `distinct`) are in the catalogue
/// too, but they are syntax, which the validator checks as such; only named calls are classified.
fn called_by_name(f: &str) -> bool {
    let mut chars = f.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !matches!(f, "not" | "distinct")
}

/// The refused list, in its two sections: (scalar, aggregate, window and macro functions; table
/// functions and table macros). A name can be in one and allowed in the other (`range` the table
/// function is allowed, `range` the scalar building a list is not).
fn refused() -> (BTreeSet<String>, BTreeSet<String>) {
    let text = include_str!("refused_functions.txt");
    let (scalar, table) = text.split_once("# Table functions").unwrap();
    let names = |part: &str| -> BTreeSet<String> {
        part.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned).collect()
    };
    (names(scalar), names(table))
}

const SCALAR: &str = "'scalar', 'aggregate', 'window', 'macro'";
const TABLE: &str = "'table', 'table_macro'";

#[test]
fn every_function_of_the_linked_duckdb_is_allowed_or_refused_on_purpose() {
    let (refused_scalar, refused_table) = refused();
    for (kinds, allowed, refused) in [(SCALAR, FUNCTIONS, &refused_scalar), (TABLE, TABLE_FUNCTIONS, &refused_table)] {
        let allowed: BTreeSet<String> = allowed.iter().map(|f| (*f).to_owned()).collect();
        let contradictions: Vec<&String> = allowed.intersection(refused).collect();
        assert!(contradictions.is_empty(), "both allowed and refused ({kinds}): {contradictions:?}");
        let unclassified: Vec<String> =
            catalogue(kinds).into_iter().filter(|f| !allowed.contains(f) && !refused.contains(f)).collect();
        assert!(
            unclassified.is_empty(),
            "DuckDB has functions nobody classified ({kinds}); decide whether each is safe (add it to the \
             validator's allow list) or not (add it to refused_functions.txt): {unclassified:?}"
        );
    }
}

/// Refused means refused: each listed function is rejected by the validator when called, a scalar
/// in a select list and a table function in a FROM clause.
#[test]
fn the_validator_rejects_what_the_list_refuses() {
    let (refused_scalar, refused_table) = refused();
    let tables: HashSet<String> = HashSet::from(["t".to_owned()]);
    let mut passed = Vec::new();
    for f in &refused_scalar {
        if validate(&format!("SELECT {f}(x) FROM t"), &tables, &Policy::default()).is_ok() {
            passed.push(f.clone());
        }
    }
    for f in &refused_table {
        if validate(&format!("SELECT * FROM {f}('t')"), &tables, &Policy::default()).is_ok() {
            passed.push(f.clone());
        }
    }
    assert!(passed.is_empty(), "listed as refused but accepted: {passed:?}");
}
