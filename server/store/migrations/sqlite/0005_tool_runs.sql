-- no-transaction
-- A run may now be one tool call an MCP client made itself (kind 'tool'). SQLite cannot change a
-- CHECK constraint in place, so the runs table is rebuilt (the documented procedure: foreign keys
-- off outside the transaction, copy, drop, rename, indexes, check, commit). Confirmations keep
-- the plain-English description a person approves, so pending ones can be listed anywhere.
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TABLE runs_rebuilt (
    id                TEXT PRIMARY KEY,
    owner_id          TEXT NOT NULL REFERENCES users (id),
    thread_id         TEXT REFERENCES threads (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL CHECK (kind IN ('chat', 'sql', 'query_plan', 'tool')),
    status            TEXT NOT NULL,
    client_msg_id     TEXT,
    question          TEXT NOT NULL,
    parent_run_id     TEXT,
    ui_state_version  INTEGER NOT NULL DEFAULT 0,
    model             TEXT,
    last_seq          INTEGER NOT NULL DEFAULT 0,
    iterations        INTEGER NOT NULL DEFAULT 0,
    usage_json        TEXT,
    error_json        TEXT,
    created_at        INTEGER NOT NULL,
    started_at        INTEGER,
    completed_at      INTEGER,
    role              TEXT,
    cancel_requested  INTEGER NOT NULL DEFAULT 0,
    final_text        TEXT,
    route_json        TEXT
);
INSERT INTO runs_rebuilt (id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id,
                          ui_state_version, model, last_seq, iterations, usage_json, error_json, created_at,
                          started_at, completed_at, role, cancel_requested, final_text, route_json)
    SELECT id, owner_id, thread_id, kind, status, client_msg_id, question, parent_run_id, ui_state_version, model,
           last_seq, iterations, usage_json, error_json, created_at, started_at, completed_at, role,
           cancel_requested, final_text, route_json
    FROM runs;
DROP TABLE runs;
ALTER TABLE runs_rebuilt RENAME TO runs;
CREATE UNIQUE INDEX runs_by_client_msg ON runs (owner_id, client_msg_id) WHERE client_msg_id IS NOT NULL;
CREATE INDEX runs_by_thread ON runs (thread_id, created_at DESC);
CREATE INDEX runs_by_owner ON runs (owner_id, created_at DESC);
CREATE INDEX runs_unfinished ON runs (status)
    WHERE status IN ('queued', 'running', 'awaiting_confirmation');
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
ALTER TABLE confirmations ADD COLUMN description TEXT NOT NULL DEFAULT '';
CREATE INDEX confirmations_by_owner ON confirmations (owner_id, created_at) WHERE status = 'pending';
COMMIT;
PRAGMA foreign_keys = ON;
