//! The two engines behind one set of queries. Every port is written once, in the SQL SQLite and
//! PostgreSQL share (`INSERT … ON CONFLICT`, `RETURNING`, `coalesce`, partial indexes), with `?`
//! and `?N` placeholders; [`Db::query`] runs it on SQLite as written and on PostgreSQL with the
//! placeholders renumbered as `$N` (once per statement text, then cached). The few statements the
//! dialects spell differently (JSON functions) are chosen with [`Db::query_for`]. Values are bound
//! and columns read through types both drivers encode and decode the same way: `i64`, text, bytes
//! and their `Option`s (times are microseconds since the epoch, JSON is text).

use sqlx::postgres::{PgArguments, PgPool, PgRow, Postgres};
use sqlx::sqlite::{Sqlite, SqliteArguments, SqlitePool, SqliteRow};
use sqlx::{Decode, Encode, Row as _, Transaction, Type};
use std::collections::HashMap;
use std::sync::{LazyLock, RwLock};

/// The database a store runs on.
#[derive(Clone, Debug)]
pub(crate) enum Db {
    Sqlite(SqlitePool),
    Postgres(PgPool),
}

/// A value both engines bind the same way.
pub(crate) trait Value<'t>: Encode<'t, Sqlite> + Type<Sqlite> + Encode<'t, Postgres> + Type<Postgres> {}
impl<'t, T: Encode<'t, Sqlite> + Type<Sqlite> + Encode<'t, Postgres> + Type<Postgres>> Value<'t> for T {}

/// A column type both engines decode the same way.
pub(crate) trait Column<'r>: Decode<'r, Sqlite> + Type<Sqlite> + Decode<'r, Postgres> + Type<Postgres> {}
impl<'r, T: Decode<'r, Sqlite> + Type<Sqlite> + Decode<'r, Postgres> + Type<Postgres>> Column<'r> for T {}

/// A statement with its values and where it runs: a pool ([`Db::query`], [`OnPool`]) or a
/// transaction ([`Tx::query`], [`InTx`]) of the same engine.
pub(crate) enum Query<S, P> {
    Sqlite(sqlx::query::Query<'static, Sqlite, SqliteArguments>, S),
    Postgres(sqlx::query::Query<'static, Postgres, PgArguments>, P),
}

pub(crate) type OnPool<'a> = Query<&'a SqlitePool, &'a PgPool>;
pub(crate) type InTx<'a> = Query<&'a mut Transaction<'static, Sqlite>, &'a mut Transaction<'static, Postgres>>;

/// One row, from either engine.
pub(crate) enum Row {
    Sqlite(SqliteRow),
    Postgres(PgRow),
}

/// An open transaction; dropped without [`Tx::commit`], it rolls back.
pub(crate) enum Tx {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

impl Db {
    /// `sql` (static text, written for both engines) ready to bind values to.
    pub(crate) fn query(&self, sql: &'static str) -> OnPool<'_> {
        match self {
            Self::Sqlite(pool) => Query::Sqlite(sqlx::query(sql), pool),
            Self::Postgres(pool) => Query::Postgres(sqlx::query(numbered(sql)), pool),
        }
    }

    /// The same statement spelled for each engine (both with `?` placeholders).
    pub(crate) fn query_for(&self, sqlite: &'static str, postgres: &'static str) -> OnPool<'_> {
        self.query(if self.is_postgres() { postgres } else { sqlite })
    }

    /// SQL put together at run time from this crate's own fragments (never from input), with `?`
    /// placeholders.
    pub(crate) fn built(&self, sql: String) -> OnPool<'_> {
        match self {
            Self::Sqlite(pool) => Query::Sqlite(sqlx::query(sqlx::AssertSqlSafe(sql)), pool),
            Self::Postgres(pool) => Query::Postgres(sqlx::query(sqlx::AssertSqlSafe(renumber(&sql))), pool),
        }
    }

    pub(crate) async fn begin(&self) -> Result<Tx, sqlx::Error> {
        Ok(match self {
            Self::Sqlite(pool) => Tx::Sqlite(pool.begin().await?),
            Self::Postgres(pool) => Tx::Postgres(pool.begin().await?),
        })
    }

    pub(crate) fn is_postgres(&self) -> bool {
        matches!(self, Self::Postgres(_))
    }

    /// Whether the database answers (`/readyz`).
    pub(crate) async fn ping(&self) -> Result<(), sqlx::Error> {
        self.query("SELECT 1").execute().await.map(|_| ())
    }
}

impl Tx {
    pub(crate) fn query(&mut self, sql: &'static str) -> InTx<'_> {
        match self {
            Self::Sqlite(tx) => Query::Sqlite(sqlx::query(sql), tx),
            Self::Postgres(tx) => Query::Postgres(sqlx::query(numbered(sql)), tx),
        }
    }

    pub(crate) fn built(&mut self, sql: String) -> InTx<'_> {
        match self {
            Self::Sqlite(tx) => Query::Sqlite(sqlx::query(sqlx::AssertSqlSafe(sql)), tx),
            Self::Postgres(tx) => Query::Postgres(sqlx::query(sqlx::AssertSqlSafe(renumber(&sql))), tx),
        }
    }

    pub(crate) async fn commit(self) -> Result<(), sqlx::Error> {
        match self {
            Self::Sqlite(tx) => tx.commit().await,
            Self::Postgres(tx) => tx.commit().await,
        }
    }
}

impl<S, P> Query<S, P> {
    pub(crate) fn bind<'t, T: Value<'t>>(self, value: T) -> Self {
        match self {
            Self::Sqlite(q, on) => Self::Sqlite(q.bind(value), on),
            Self::Postgres(q, on) => Self::Postgres(q.bind(value), on),
        }
    }

    /// Whether the driver keeps the statement prepared on its connection (the default).
    pub(crate) fn persistent(self, keep: bool) -> Self {
        match self {
            Self::Sqlite(q, on) => Self::Sqlite(q.persistent(keep), on),
            Self::Postgres(q, on) => Self::Postgres(q.persistent(keep), on),
        }
    }
}

impl OnPool<'_> {
    /// Runs the statement; the rows it changed.
    pub(crate) async fn execute(self) -> Result<u64, sqlx::Error> {
        Ok(match self {
            Self::Sqlite(q, pool) => q.execute(pool).await?.rows_affected(),
            Self::Postgres(q, pool) => q.execute(pool).await?.rows_affected(),
        })
    }

    pub(crate) async fn fetch_optional(self) -> Result<Option<Row>, sqlx::Error> {
        Ok(match self {
            Self::Sqlite(q, pool) => q.fetch_optional(pool).await?.map(Row::Sqlite),
            Self::Postgres(q, pool) => q.fetch_optional(pool).await?.map(Row::Postgres),
        })
    }

    pub(crate) async fn fetch_all(self) -> Result<Vec<Row>, sqlx::Error> {
        Ok(match self {
            Self::Sqlite(q, pool) => q.fetch_all(pool).await?.into_iter().map(Row::Sqlite).collect(),
            Self::Postgres(q, pool) => q.fetch_all(pool).await?.into_iter().map(Row::Postgres).collect(),
        })
    }

    /// The row, if there is one, read by `read` (one of the ports' `…_from_row`); a database
    /// error becomes the store's error, as `.map_err(db)` makes it everywhere else.
    pub(crate) async fn fetch_optional_map<T>(
        self,
        read: impl FnOnce(&Row) -> aware_domain::Result<T>,
    ) -> aware_domain::Result<Option<T>> {
        self.fetch_optional().await.map_err(crate::db)?.as_ref().map(read).transpose()
    }

    pub(crate) async fn fetch_one(self) -> Result<Row, sqlx::Error> {
        self.fetch_optional().await?.ok_or(sqlx::Error::RowNotFound)
    }

    /// The first column of the one row.
    pub(crate) async fn fetch_scalar<T: for<'r> Column<'r>>(self) -> Result<T, sqlx::Error> {
        self.fetch_one().await?.try_get_at(0)
    }

    /// The first column of the row, if there is one.
    pub(crate) async fn fetch_optional_scalar<T: for<'r> Column<'r>>(self) -> Result<Option<T>, sqlx::Error> {
        self.fetch_optional().await?.map(|r| r.try_get_at(0)).transpose()
    }

    /// The first column of every row.
    pub(crate) async fn fetch_all_scalars<T: for<'r> Column<'r>>(self) -> Result<Vec<T>, sqlx::Error> {
        self.fetch_all().await?.iter().map(|r| r.try_get_at(0)).collect()
    }
}

impl InTx<'_> {
    pub(crate) async fn execute(self) -> Result<u64, sqlx::Error> {
        Ok(match self {
            Self::Sqlite(q, tx) => q.execute(&mut **tx).await?.rows_affected(),
            Self::Postgres(q, tx) => q.execute(&mut **tx).await?.rows_affected(),
        })
    }

    pub(crate) async fn fetch_scalar<T: for<'r> Column<'r>>(self) -> Result<T, sqlx::Error> {
        match self {
            Self::Sqlite(q, tx) => Row::Sqlite(q.fetch_one(&mut **tx).await?),
            Self::Postgres(q, tx) => Row::Postgres(q.fetch_one(&mut **tx).await?),
        }
        .try_get_at(0)
    }
}

impl Row {
    /// The column `name`; panics when it is missing or of another type, as sqlx's `Row::get`
    /// does (the schema is this crate's own).
    pub(crate) fn get<'r, T: Column<'r>>(&'r self, name: &str) -> T {
        match self {
            Self::Sqlite(r) => r.get(name),
            Self::Postgres(r) => r.get(name),
        }
    }

    fn try_get_at<'r, T: Column<'r>>(&'r self, index: usize) -> Result<T, sqlx::Error> {
        match self {
            Self::Sqlite(r) => r.try_get(index),
            Self::Postgres(r) => r.try_get(index),
        }
    }
}

/// `text` for a `LIKE … ESCAPE '\'` pattern: its `%`, `_` and `\` match themselves.
pub(crate) fn like_escaped(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_")
}

/// `sql` with PostgreSQL's placeholders, computed once per statement text.
fn numbered(sql: &'static str) -> &'static str {
    static SEEN: LazyLock<RwLock<HashMap<(usize, usize), &'static str>>> = LazyLock::new(Default::default);
    let key = (sql.as_ptr() as usize, sql.len());
    if let Some(done) = SEEN.read().unwrap_or_else(std::sync::PoisonError::into_inner).get(&key) {
        return done;
    }
    // One leaked string per statement in this crate's source: a bounded set.
    let done: &'static str = Box::leak(renumber(sql).into_boxed_str());
    SEEN.write().unwrap_or_else(std::sync::PoisonError::into_inner).insert(key, done);
    done
}

/// SQLite's `?N` and `?` placeholders as PostgreSQL's `$N`: a bare `?` is one more than the
/// largest number given so far, as in SQLite. Text in single quotes is left alone.
fn renumber(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut largest = 0u32;
    let mut quoted = false;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' {
            quoted = !quoted;
        }
        if c != '?' || quoted {
            out.push(c);
            continue;
        }
        let mut n = 0u32;
        let mut digits = false;
        while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d);
            digits = true;
            chars.next();
        }
        if !digits {
            n = largest + 1;
        }
        largest = largest.max(n);
        out.push('$');
        out.push_str(&n.to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::renumber;

    #[test]
    fn placeholders_are_numbered_as_sqlite_numbers_them() {
        assert_eq!(renumber("a = ? AND b = ?"), "a = $1 AND b = $2");
        assert_eq!(renumber("?1 IS NULL OR x = ?1 LIMIT ?2"), "$1 IS NULL OR x = $1 LIMIT $2");
        // A bare `?` after `?3` is the fourth, as in SQLite.
        assert_eq!(renumber("x = ?3, y = ?"), "x = $3, y = $4");
        assert_eq!(renumber("x LIKE ? ESCAPE '\\' AND y = '?'"), "x LIKE $1 ESCAPE '\\' AND y = '?'");
        assert_eq!(renumber("VALUES (?, ?), (?, ?)"), "VALUES ($1, $2), ($3, $4)");
    }
}
