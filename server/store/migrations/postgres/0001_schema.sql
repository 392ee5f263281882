-- aware's shared store on PostgreSQL: the same tables as the SQLite migrations leave (migrations/sqlite,
-- through 0010), in one step. The queries are shared, so the types are the ones both drivers read alike:
-- times and counts are BIGINT (microseconds since the Unix epoch, UTC), JSON is TEXT, an event's payload
-- BYTEA. Ids and names compare byte by byte (COLLATE "C"), as in SQLite, whatever the database's locale:
-- pages and ties are ordered by them.

CREATE TABLE users (
    id              TEXT COLLATE "C" PRIMARY KEY,
    name            TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('viewer', 'analyst', 'admin')),
    created_at      BIGINT NOT NULL,
    deactivated_at  BIGINT
);

-- Bearer tokens are never stored: only their sha256, and their first characters.
CREATE TABLE api_keys (
    id            TEXT COLLATE "C" PRIMARY KEY,
    user_id       TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_sha256  TEXT NOT NULL UNIQUE,
    created_at    BIGINT NOT NULL,
    expires_at    BIGINT,
    revoked_at    BIGINT,
    prefix        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);

-- The dataset catalog. Content lives in DuckDB files under the (shared) data dir.
CREATE TABLE datasets (
    id                 TEXT COLLATE "C" PRIMARY KEY,
    owner_id           TEXT COLLATE "C" NOT NULL REFERENCES users (id),
    name               TEXT NOT NULL,
    table_name         TEXT COLLATE "C" NOT NULL,
    format             TEXT NOT NULL,
    status             TEXT NOT NULL CHECK (status IN ('processing', 'ready', 'error')),
    row_count          BIGINT NOT NULL DEFAULT 0,
    columns_json       TEXT NOT NULL DEFAULT '[]',
    size_bytes         BIGINT NOT NULL,
    version_hash       TEXT NOT NULL,
    error              TEXT,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL,
    description        TEXT NOT NULL DEFAULT '',
    column_notes_json  TEXT NOT NULL DEFAULT '[]',
    lineage_json       TEXT,
    origin_json        TEXT,
    UNIQUE (owner_id, table_name)
);
CREATE INDEX datasets_by_owner ON datasets (owner_id, created_at DESC);
CREATE INDEX datasets_processing ON datasets (status) WHERE status = 'processing';

-- Browser (chunked) uploads in progress; bytes live in the staging folder.
CREATE TABLE uploads (
    id              TEXT COLLATE "C" PRIMARY KEY,
    owner_id        TEXT COLLATE "C" NOT NULL REFERENCES users (id),
    filename        TEXT NOT NULL,
    format          TEXT,
    expected_bytes  BIGINT,
    received_bytes  BIGINT NOT NULL DEFAULT 0,
    created_at      BIGINT NOT NULL
);
CREATE INDEX uploads_by_owner ON uploads (owner_id);

-- Conversations, stored under `<owner id>/<name>`.
CREATE TABLE threads (
    id                  TEXT COLLATE "C" PRIMARY KEY,
    owner_id            TEXT COLLATE "C" NOT NULL REFERENCES users (id),
    title               TEXT,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    forked_from_thread  TEXT COLLATE "C",
    forked_from_run     TEXT COLLATE "C"
);
CREATE INDEX threads_by_owner ON threads (owner_id, updated_at DESC);

-- The latest UI state snapshot per thread (a full snapshot, never a delta).
CREATE TABLE state_snapshots (
    thread_id         TEXT COLLATE "C" PRIMARY KEY REFERENCES threads (id) ON DELETE CASCADE,
    ui_state_version  BIGINT NOT NULL,
    snapshot_json     TEXT NOT NULL,
    updated_at        BIGINT NOT NULL
);

-- Runs: one user message processed by the agent, one QueryService call, or one MCP client's tool call.
CREATE TABLE runs (
    id                TEXT COLLATE "C" PRIMARY KEY,
    owner_id          TEXT COLLATE "C" NOT NULL REFERENCES users (id),
    thread_id         TEXT COLLATE "C" REFERENCES threads (id) ON DELETE CASCADE,
    kind              TEXT NOT NULL CHECK (kind IN ('chat', 'sql', 'query_plan', 'tool')),
    status            TEXT NOT NULL,
    client_msg_id     TEXT COLLATE "C",
    question          TEXT NOT NULL,
    parent_run_id     TEXT COLLATE "C",
    ui_state_version  BIGINT NOT NULL DEFAULT 0,
    model             TEXT,
    last_seq          BIGINT NOT NULL DEFAULT 0,
    iterations        BIGINT NOT NULL DEFAULT 0,
    usage_json        TEXT,
    error_json        TEXT,
    created_at        BIGINT NOT NULL,
    started_at        BIGINT,
    completed_at      BIGINT,
    role              TEXT,
    cancel_requested  BIGINT NOT NULL DEFAULT 0,
    final_text        TEXT,
    route_json        TEXT,
    feedback_rating   TEXT CHECK (feedback_rating IN ('up', 'down')),
    feedback_reason   TEXT,
    feedback_at       BIGINT,
    grounding_json    TEXT
);
CREATE UNIQUE INDEX runs_by_client_msg ON runs (owner_id, client_msg_id) WHERE client_msg_id IS NOT NULL;
CREATE INDEX runs_by_thread ON runs (thread_id, created_at DESC);
CREATE INDEX runs_by_owner ON runs (owner_id, created_at DESC);
CREATE INDEX runs_unfinished ON runs (status) WHERE status IN ('queued', 'running', 'awaiting_confirmation');
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
CREATE INDEX runs_by_feedback ON runs (owner_id, feedback_rating) WHERE feedback_rating IS NOT NULL;

-- The durable, ordered event log: every sequenced event is appended before it is sent.
CREATE TABLE run_events (
    run_id      TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq         BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    payload     BYTEA NOT NULL,
    PRIMARY KEY (run_id, seq)
);

-- The model-facing transcript of a run, for crash recovery.
CREATE TABLE run_messages (
    run_id        TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    idx           BIGINT NOT NULL,
    message_json  TEXT NOT NULL,
    PRIMARY KEY (run_id, idx)
);

-- Tool calls: an intent row before any side effect, a result after it (at-most-once).
CREATE TABLE tool_calls (
    id              TEXT COLLATE "C" PRIMARY KEY,
    run_id          TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    iteration       BIGINT NOT NULL,
    tool_name       TEXT NOT NULL,
    arguments_json  TEXT NOT NULL,
    status          TEXT NOT NULL,
    intent_at       BIGINT,
    completed_at    BIGINT,
    llm_summary     TEXT,
    result_json     TEXT,
    duration_ms     BIGINT
);
CREATE INDEX tool_calls_by_run ON tool_calls (run_id);

-- Confirmations: server-issued, bound to user/run/tool call/tool/resource/args/version, single use.
CREATE TABLE confirmations (
    id                TEXT COLLATE "C" PRIMARY KEY,
    owner_id          TEXT COLLATE "C" NOT NULL REFERENCES users (id),
    run_id            TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    tool_call_id      TEXT COLLATE "C" NOT NULL,
    tool_name         TEXT NOT NULL,
    resource_type     TEXT NOT NULL,
    resource_id       TEXT NOT NULL,
    args_sha256       TEXT NOT NULL,
    tier              TEXT NOT NULL CHECK (tier IN ('standard', 'elevated')),
    status            TEXT NOT NULL CHECK (status IN
                          ('pending', 'approved', 'denied', 'expired', 'cancelled', 'superseded')),
    created_at        BIGINT NOT NULL,
    expires_at        BIGINT NOT NULL,
    resolved_at       BIGINT,
    resolved_by       TEXT,
    resource_name     TEXT NOT NULL DEFAULT '',
    description       TEXT NOT NULL DEFAULT '',
    edited_args_json  TEXT,
    grant_id          TEXT,
    bound_version     TEXT
);
CREATE INDEX confirmations_pending ON confirmations (expires_at) WHERE status = 'pending';
CREATE UNIQUE INDEX confirmations_by_call ON confirmations (tool_call_id);
CREATE INDEX confirmations_by_owner ON confirmations (owner_id, created_at) WHERE status = 'pending';

-- Run capsules: what was asked, over which data versions, what ran, what came out.
CREATE TABLE run_capsules (
    run_id               TEXT COLLATE "C" PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
    datasets_json        TEXT NOT NULL DEFAULT '[]',
    query_mode           TEXT NOT NULL DEFAULT 'none',
    plan_json            TEXT,
    compiled_sql         TEXT,
    result_summary       TEXT,
    error_json           TEXT,
    exec_time_ms         BIGINT,
    verified_query_json  TEXT,
    result_sha256        TEXT,
    result_json          TEXT
);

-- Spans of a run (GetRunTrace).
CREATE TABLE run_spans (
    run_id           TEXT COLLATE "C" NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    span_id          TEXT COLLATE "C" NOT NULL,
    parent_span_id   TEXT,
    kind             TEXT NOT NULL,
    name             TEXT NOT NULL,
    start_us         BIGINT NOT NULL,
    end_us           BIGINT,
    attributes_json  TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (run_id, span_id)
);

-- Idempotency keys of client messages, with the outcome to answer a repeat with.
CREATE TABLE client_messages (
    owner_id       TEXT COLLATE "C" NOT NULL,
    client_msg_id  TEXT COLLATE "C" NOT NULL,
    kind           TEXT NOT NULL,
    outcome_json   TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (owner_id, client_msg_id)
);

-- Token usage per user and day (metering).
CREATE TABLE usage_daily (
    user_id        TEXT COLLATE "C" NOT NULL,
    day            TEXT COLLATE "C" NOT NULL,
    runs           BIGINT NOT NULL DEFAULT 0,
    input_tokens   BIGINT NOT NULL DEFAULT 0,
    output_tokens  BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, day)
);

-- The append-only audit log of every mutation, with its source.
CREATE TABLE audit_log (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at             BIGINT NOT NULL,
    user_id        TEXT COLLATE "C" NOT NULL,
    source         TEXT NOT NULL CHECK (source IN ('api', 'web', 'cli', 'ai_assistant', 'mcp', 'system')),
    action         TEXT COLLATE "C" NOT NULL,
    resource_type  TEXT NOT NULL,
    resource_id    TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    details_json   TEXT NOT NULL
);
CREATE INDEX audit_by_user ON audit_log (user_id, at);
CREATE INDEX audit_by_action ON audit_log (action, id);

-- The facts a user asked aware to keep, or approved.
CREATE TABLE memories (
    id             TEXT COLLATE "C" PRIMARY KEY,
    owner_id       TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    text           TEXT NOT NULL,
    source_run_id  TEXT,
    created_at     BIGINT NOT NULL,
    last_used_at   BIGINT
);
CREATE INDEX memories_by_owner ON memories (owner_id, created_at DESC);

-- "Allow for 5 minutes": a STANDARD tool on one resource class, without asking, until expiry.
CREATE TABLE session_grants (
    id               TEXT COLLATE "C" PRIMARY KEY,
    owner_id         TEXT COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tool_name        TEXT NOT NULL,
    resource_class   TEXT NOT NULL,
    confirmation_id  TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    expires_at       BIGINT NOT NULL,
    revoked_at       BIGINT
);
CREATE INDEX session_grants_live ON session_grants (owner_id, tool_name, resource_class, expires_at)
    WHERE revoked_at IS NULL;

-- Verified queries, names unique per owner whatever their case.
CREATE TABLE saved_queries (
    id          TEXT COLLATE "C" PRIMARY KEY,
    owner_id    TEXT COLLATE "C" NOT NULL REFERENCES users (id),
    name        TEXT COLLATE "C" NOT NULL,
    question    TEXT NOT NULL,
    sql         TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);
CREATE UNIQUE INDEX saved_queries_by_name ON saved_queries (owner_id, lower(name));
