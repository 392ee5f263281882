//! The validator's tests: what passes, which rule refuses what, the messages, and the helpers
//! `tables_named` and `rename_table`.

use super::generators::day_number;
use super::*;

fn tables() -> HashSet<String> {
    ["barcelona_apartments", "customer_churn"].into_iter().map(String::from).collect()
}

fn ok(sql: &str) -> ValidatedSql {
    validate(sql, &tables(), &Policy::default()).unwrap_or_else(|r| panic!("{sql}: {r:?}"))
}

fn rule(sql: &str) -> Rule {
    match validate(sql, &tables(), &Policy::default()) {
        Ok(v) => panic!("{sql} should be refused, got {}", v.canonical),
        Err(r) => r.rule,
    }
}

#[test]
fn analytics_pass_and_only_the_canonical_text_remains() {
    let v = ok(
        "select neighbourhood, avg(price_eur) as avg_price -- comment\nfrom Barcelona_Apartments group by 1 order by 2 desc limit 5",
    );
    assert!(!v.canonical.contains("comment"), "comments never reach DuckDB: {}", v.canonical);
    assert_eq!(v.tables, BTreeSet::from(["barcelona_apartments".to_owned()]));
    ok("WITH a AS (SELECT * FROM barcelona_apartments), b AS (SELECT count(*) AS n FROM a) SELECT n FROM b");
    ok("SELECT plan, count(*) FILTER (WHERE churned) FROM customer_churn GROUP BY ALL");
    ok(
        "SELECT *, row_number() OVER (PARTITION BY plan ORDER BY tenure_months DESC) AS r FROM customer_churn QUALIFY r <= 3",
    );
    ok("SELECT a.bedrooms, c.plan FROM barcelona_apartments a JOIN customer_churn c ON a.listing_id = c.tenure_months");
    ok("SELECT d FROM generate_series(1, 10) AS t(d)");
    ok("SELECT lpad(neighbourhood, 20, '.') FROM barcelona_apartments");
    ok("SELECT date_trunc('month', listed_on), count(*) FROM barcelona_apartments GROUP BY 1");
    ok("SELECT d FROM generate_series(DATE '2024-01-01', DATE '2024-12-31', INTERVAL 1 DAY) AS t(d)");
}

#[test]
fn every_layer_refuses_with_a_named_rule() {
    assert_eq!(rule(""), Rule::Empty);
    assert_eq!(rule(&format!("SELECT {} FROM customer_churn", "1+".repeat(9000) + "1")), Rule::TooLong);
    assert_eq!(rule("SELECT 1 AS a --x\rUNION ALL SELECT count(*) FROM other"), Rule::ControlCharacter);
    assert_eq!(rule("SELECT 1\u{202E} FROM customer_churn"), Rule::InvisibleCharacter);
    assert_eq!(rule("SELECT\u{00A0}1"), Rule::InvisibleCharacter);
    assert_eq!(rule("SELECT 1 /* /* */ ' */ , 2 --'"), Rule::NestedComment);
    assert_eq!(rule("SELECT $$x$$"), Rule::ExoticLiteral);
    assert_eq!(rule("SELECT E'\\x41'"), Rule::ExoticLiteral);
    assert_eq!(rule("SELECT * FROM customer_churn WHERE plan = $1"), Rule::Placeholder);
    assert_eq!(rule("SELECT 1; DROP TABLE customer_churn"), Rule::MultipleStatements);
    assert_eq!(rule("DELETE FROM customer_churn"), Rule::NotASelect);
    assert_eq!(rule("VALUES (1)"), Rule::NotASelect);
    assert_eq!(rule("WITH RECURSIVE r AS (SELECT 1) SELECT * FROM r"), Rule::RecursiveCte);
    assert_eq!(rule("SELECT * FROM other_users_table"), Rule::UnknownTable);
    assert_eq!(rule("SELECT * FROM main.customer_churn"), Rule::QualifiedName);
    assert_eq!(rule("SELECT * FROM '/etc/passwd'"), Rule::QuotedTable);
    assert_eq!(rule("SELECT * FROM \"/etc/passwd\""), Rule::QuotedTable);
    assert_eq!(rule("SELECT * FROM read_csv('/etc/passwd')"), Rule::ForbiddenTableFunction);
    assert_eq!(rule("SELECT * FROM query('SELECT 1')"), Rule::ForbiddenTableFunction);
    assert_eq!(rule("SELECT current_setting('home_directory')"), Rule::ForbiddenFunction);
    assert_eq!(rule("SELECT repeat('x', 100000000)"), Rule::ForbiddenFunction);
    assert_eq!(rule("SELECT system.main.read_text('/etc/passwd')"), Rule::QualifiedName);
    assert_eq!(rule("SELECT * FROM range(1000000000000)"), Rule::GeneratorTooLarge);
    assert_eq!(
        rule("SELECT * FROM generate_series(DATE '0001-01-01', DATE '9999-12-31', INTERVAL 1 DAY)"),
        Rule::GeneratorTooLarge
    );
    assert_eq!(
        rule("SELECT * FROM generate_series(DATE '2024-01-01', DATE '2024-12-31', INTERVAL 1 SECOND)"),
        Rule::GeneratorTooLarge
    );
    // Six-digit and negative years are real days too (about 37 million of them here).
    for spine in [
        "generate_series(DATE '-100000-01-01', DATE '2000-01-01', INTERVAL 1 DAY)",
        "generate_series(DATE '2000-01-01', DATE '102000-01-01', INTERVAL 1 DAY)",
        "range(TIMESTAMP '-099999-06-01 00:00:00', TIMESTAMP '0001-01-01', INTERVAL 1 DAY)",
        "generate_series(DATE '0044-03-15 (BC)', DATE '2000-01-01', INTERVAL 1 DAY)",
        "generate_series(DATE 'infinity', DATE '2000-01-01', INTERVAL 1 DAY)",
    ] {
        assert_eq!(rule(&format!("SELECT * FROM {spine}")), Rule::GeneratorTooLarge, "{spine}");
    }
    assert_eq!(day_number("2024-03-05"), Some(2024 * 372 + 3 * 31 + 5));
    assert_eq!(day_number("-100000-01-01"), Some(-100_000 * 372 + 31 + 1));
    assert_eq!(day_number("2024-03-05T10:00:00"), day_number("2024-03-05"));
    for bad in ["2024-3-05", "20x4-03-05", "-2024", "2024-03-05BC", "", "--2024-03-05"] {
        assert_eq!(day_number(bad), None, "{bad}");
    }
    let spine = "generate_series(DATE '1800-01-01', DATE '2100-01-01', INTERVAL 1 DAY)";
    assert_eq!(rule(&format!("SELECT count(*) FROM {spine} a, {spine} b")), Rule::GeneratorProductTooLarge);
    assert_eq!(rule("SELECT * FROM range(1000000) a, range(1000000) b"), Rule::GeneratorProductTooLarge);
    ok(&format!("SELECT count(*) FROM {spine} a, range(100) b"));
    assert_eq!(rule("SELECT U&'\\0041'"), Rule::ExoticLiteral);
    assert_eq!(rule("SELECT lpad('x', 2000000000, 'y')"), Rule::PaddingTooLarge);
    assert_eq!(rule("WITH customer_churn AS (SELECT * FROM d_other) SELECT * FROM customer_churn"), Rule::UnknownTable);
    assert_eq!(
        rule("WITH a AS (SELECT * FROM b), b AS (SELECT 1) SELECT * FROM a"),
        Rule::UnknownTable,
        "forward reference"
    );
    assert_eq!(rule("SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) t, x"), Rule::UnknownTable, "scope escape");
}

#[test]
fn messages_say_what_is_not_allowed() {
    let r = validate("SELECT * FROM read_csv('/etc/passwd')", &tables(), &Policy::default()).unwrap_err();
    assert_eq!(r.message, "`read_csv` is not allowed: queries may only read your datasets");
    let r = validate("SELECT * FROM nope", &tables(), &Policy::default()).unwrap_err();
    assert_eq!(r.message, "unknown table `nope`: your datasets are barcelona_apartments, customer_churn");
}

#[test]
fn the_tables_a_query_reads_are_named_once_each() {
    let sql = "SELECT plan, count(*) FROM customer_churn JOIN Barcelona_Apartments b ON true \
               WHERE plan IN (SELECT plan FROM CUSTOMER_CHURN) GROUP BY 1";
    assert_eq!(tables_named(sql).unwrap(), ["barcelona_apartments", "customer_churn"]);
    assert_eq!(tables_named("DELETE FROM customer_churn").unwrap_err().rule, Rule::NotASelect);
}

#[test]
fn a_rename_follows_every_reference_and_only_those() {
    let sql = "SELECT customer_churn.plan, count(*) FROM customer_churn JOIN barcelona_apartments b ON true \
               WHERE plan IN (SELECT plan FROM Customer_Churn) GROUP BY 1";
    let renamed = rename_table(sql, "customer_churn", "churn_2026").unwrap();
    assert!(!renamed.to_lowercase().contains("customer_churn"), "{renamed}");
    assert_eq!(renamed.matches("churn_2026").count(), 3, "{renamed}");
    assert!(renamed.contains("barcelona_apartments b"), "{renamed}");
    let validated =
        validate(&renamed, &["churn_2026".to_owned(), "barcelona_apartments".to_owned()].into(), &Policy::default());
    assert!(validated.is_ok(), "{validated:?}");
    assert_eq!(rename_table("DROP TABLE customer_churn", "customer_churn", "x").unwrap_err().rule, Rule::NotASelect);
}
