-- Conversations that last: threads you can title and fork, feedback per run, memory with
-- consent, session grants and approvals with edits.
ALTER TABLE threads ADD COLUMN forked_from_thread TEXT;
ALTER TABLE threads ADD COLUMN forked_from_run TEXT;

-- One rating per run (its owner's): a second replaces the first.
ALTER TABLE runs ADD COLUMN feedback_rating TEXT CHECK (feedback_rating IN ('up', 'down'));
ALTER TABLE runs ADD COLUMN feedback_reason TEXT;
ALTER TABLE runs ADD COLUMN feedback_at INTEGER;
CREATE INDEX runs_by_feedback ON runs (owner_id, feedback_rating) WHERE feedback_rating IS NOT NULL;

-- What an approval ran with when a person narrowed the call, and the session grant that answered
-- a confirmation without asking.
ALTER TABLE confirmations ADD COLUMN edited_args_json TEXT;
ALTER TABLE confirmations ADD COLUMN grant_id TEXT;

-- The facts a user asked aware to keep, or approved.
CREATE TABLE memories (
    id             TEXT PRIMARY KEY,
    owner_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    text           TEXT NOT NULL,
    source_run_id  TEXT,
    created_at     INTEGER NOT NULL,
    last_used_at   INTEGER
);
CREATE INDEX memories_by_owner ON memories (owner_id, created_at DESC);

-- "Allow for 5 minutes": a STANDARD tool on one resource class, without asking, until expiry.
CREATE TABLE session_grants (
    id               TEXT PRIMARY KEY,
    owner_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    tool_name        TEXT NOT NULL,
    resource_class   TEXT NOT NULL,
    confirmation_id  TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    expires_at       INTEGER NOT NULL,
    revoked_at       INTEGER
);
CREATE INDEX session_grants_live ON session_grants (owner_id, tool_name, resource_class, expires_at)
    WHERE revoked_at IS NULL;

-- The audit log's sources gain `mcp` (requests through /mcp; until now their entries were refused
-- by the CHECK and only logged). SQLite cannot change a CHECK in place: the table is rebuilt.
CREATE TABLE audit_log_rebuilt (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    at             INTEGER NOT NULL,
    user_id        TEXT NOT NULL,
    source         TEXT NOT NULL CHECK (source IN ('api', 'web', 'cli', 'ai_assistant', 'mcp', 'system')),
    action         TEXT NOT NULL,
    resource_type  TEXT NOT NULL,
    resource_id    TEXT NOT NULL,
    outcome        TEXT NOT NULL,
    details_json   TEXT NOT NULL
);
INSERT INTO audit_log_rebuilt (id, at, user_id, source, action, resource_type, resource_id, outcome, details_json)
    SELECT id, at, user_id, source, action, resource_type, resource_id, outcome, details_json FROM audit_log;
DROP TABLE audit_log;
ALTER TABLE audit_log_rebuilt RENAME TO audit_log;
CREATE INDEX audit_by_user ON audit_log (user_id, at);
