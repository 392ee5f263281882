-- Curation (issue 25): a dataset's semantic layer (its description and notes on its columns),
-- the lineage of a dataset saved from a query, verified queries, and which verified query a
-- query run used.
ALTER TABLE datasets ADD COLUMN description TEXT NOT NULL DEFAULT '';
ALTER TABLE datasets ADD COLUMN column_notes_json TEXT NOT NULL DEFAULT '[]';
ALTER TABLE datasets ADD COLUMN lineage_json TEXT;

CREATE TABLE saved_queries (
    id          TEXT PRIMARY KEY,
    owner_id    TEXT NOT NULL REFERENCES users (id),
    name        TEXT NOT NULL,
    question    TEXT NOT NULL,
    sql         TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE UNIQUE INDEX saved_queries_by_name ON saved_queries (owner_id, lower(name));

ALTER TABLE run_capsules ADD COLUMN verified_query_json TEXT;
