-- aware's embedded storage. Every table the product needs, so later features only add columns.
-- Times are INTEGER microseconds since the Unix epoch (UTC); JSON columns hold serde documents.

CREATE TABLE users (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    role        TEXT NOT NULL CHECK (role IN ('viewer', 'analyst', 'admin')),
    created_at  INTEGER NOT NULL
);

-- Bearer tokens are never stored: only their sha256.
CREATE TABLE api_keys (
    id            TEXT PRIMARY KEY,
    user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_sha256  TEXT NOT NULL UNIQUE,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER,
    revoked_at    INTEGER
);

-- The dataset catalog. Content lives in DuckDB files under the data dir.
CREATE TABLE datasets (
    id            TEXT PRIMARY KEY,
    owner_id      TEXT NOT NULL REFERENCES users (id),
    name          TEXT NOT NULL,
    table_name    TEXT NOT NULL,
    format        TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'error')),
    row_count     INTEGER NOT NULL DEFAULT 0,
    columns_json  TEXT NOT NULL DEFAULT '[]',
    size_bytes    INTEGER NOT NULL,
    version_hash  TEXT NOT NULL,
    error         TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL,
    UNIQUE (owner_id, table_name)
);
CREATE INDEX datasets_by_owner ON datasets (owner_id, created_at DESC);
CREATE INDEX datasets_processing ON datasets (status) WHERE status = 'processing';

-- Browser (chunked) uploads in progress; bytes live in the staging folder.
CREATE TABLE uploads (
    id              TEXT PRIMARY KEY,
    owner_id        TEXT NOT NULL REFERENCES users (id),
    filename        TEXT NOT NULL,
    format          TEXT,
    expected_bytes  INTEGER,
    received_bytes  INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL
);
CREATE INDEX uploads_by_owner ON uploads (owner_id);

-- Conversations. Each holds runs; one run at a time is active.
CREATE TABLE threads (
    id          TEXT PRIMARY KEY,
    owner_id    TEXT NOT NULL REFERENCES users (id),
    title       TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX threads_by_owner ON threads (owner_id, updated_at DESC);

-- The latest UI state snapshot per thread (a full snapshot, never a delta).
CREATE TABLE state_snapshots (
    thread_id         TEXT PRIMARY KEY REFERENCES threads (id) ON DELETE CASCADE,
    ui_state_version  INTEGER NOT NULL,
    snapshot_json     TEXT NOT NULL,
    updated_at        INTEGER NOT NULL
);

-- Runs: one user message processed by the agent, or one QueryService call.
CREATE TABLE runs (
    id                TEXT PRIMARY KEY,
    owner_id          TEXT NOT NULL REFERENCES users (id),
    thread_id         TEXT REFERENCES threads (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL CHECK (kind IN ('chat', 'sql', 'query_plan')),
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
    completed_at      INTEGER
);
CREATE UNIQUE INDEX runs_by_client_msg ON runs (owner_id, client_msg_id) WHERE client_msg_id IS NOT NULL;
CREATE INDEX runs_by_thread ON runs (thread_id, created_at DESC);
CREATE INDEX runs_by_owner ON runs (owner_id, created_at DESC);
CREATE INDEX runs_unfinished ON runs (status)
    WHERE status IN ('queued', 'running', 'awaiting_confirmation');

-- The durable, ordered event log: every sequenced event is appended before it is sent.
CREATE TABLE run_events (
    run_id      TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    payload     BLOB NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

-- The model-facing transcript of a run (what the next model call is sent), for crash recovery.
CREATE TABLE run_messages (
    run_id        TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx           INTEGER NOT NULL,
    message_json  TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
) WITHOUT ROWID;

-- Tool calls: an intent row before any side effect, a result after it (at-most-once).
CREATE TABLE tool_calls (
    id              TEXT PRIMARY KEY,
    run_id          TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    iteration       INTEGER NOT NULL,
    tool_name       TEXT NOT NULL,
    arguments_json  TEXT NOT NULL,
    status          TEXT NOT NULL,
    intent_at       INTEGER,
    completed_at    INTEGER,
    llm_summary     TEXT,
    result_json     TEXT,
    duration_ms     INTEGER
);
CREATE INDEX tool_calls_by_run ON tool_calls (run_id);

-- Confirmations: server-issued, bound to user/run/tool call/tool/resource/args, single use.
CREATE TABLE confirmations (
    id              TEXT PRIMARY KEY,
    owner_id        TEXT NOT NULL REFERENCES users (id),
    run_id          TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    tool_call_id    TEXT NOT NULL,
    tool_name       TEXT NOT NULL,
    resource_type   TEXT NOT NULL,
    resource_id     TEXT NOT NULL,
    args_sha256     TEXT NOT NULL,
    tier            TEXT NOT NULL CHECK (tier IN ('standard', 'elevated')),
    status          TEXT NOT NULL CHECK (status IN
                        ('pending', 'approved', 'denied', 'expired', 'cancelled', 'superseded')),
    created_at      INTEGER NOT NULL,
    expires_at      INTEGER NOT NULL,
    resolved_at     INTEGER,
    resolved_by     TEXT
);
CREATE INDEX confirmations_pending ON confirmations (expires_at) WHERE status = 'pending';

-- Run capsules: what was asked, over which data versions, what ran, what came out.
CREATE TABLE run_capsules (
    run_id          TEXT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    datasets_json   TEXT NOT NULL DEFAULT '[]',
    query_mode      TEXT NOT NULL DEFAULT 'none',
    plan_json       TEXT,
    compiled_sql    TEXT,
    result_summary  TEXT,
    error_json      TEXT,
    exec_time_ms    INTEGER
);

-- Spans of a run (GetRunTrace).
CREATE TABLE run_spans (
    run_id           TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    span_id          TEXT NOT NULL,
    parent_span_id   TEXT,
    kind             TEXT NOT NULL,
    name             TEXT NOT NULL,
    start_us         INTEGER NOT NULL,
    end_us           INTEGER,
    attributes_json  TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, span_id)
) WITHOUT ROWID;

-- Idempotency keys of client messages, with the outcome to answer a repeat with.
CREATE TABLE client_messages (
    owner_id       TEXT NOT NULL,
    client_msg_id  TEXT NOT NULL,
    kind           TEXT NOT NULL,
    outcome_json   TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    PRIMARY KEY (owner_id, client_msg_id)
) WITHOUT ROWID;

-- Token usage per user and day (metering).
CREATE TABLE usage_daily (
    user_id        TEXT NOT NULL,
    day            TEXT NOT NULL,
    runs           INTEGER NOT NULL DEFAULT 0,
    input_tokens   INTEGER NOT NULL DEFAULT 0,
    output_tokens  INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, day)
) WITHOUT ROWID;

-- The append-only audit log of every mutation, with its source.
CREATE TABLE audit_log (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    at             INTEGER NOT NULL,
    user_id        TEXT NOT NULL,
    source         TEXT NOT NULL CHECK (source IN ('api', 'web', 'cli', 'ai_assistant', 'system')),
    action         TEXT NOT NULL,
    resource_type  TEXT NOT NULL,
    resource_id    TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    details_json   TEXT NOT NULL
);
CREATE INDEX audit_by_user ON audit_log (user_id, at);
