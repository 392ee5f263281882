-- The run engine: what a restart needs to continue a chat run.
ALTER TABLE runs ADD COLUMN role TEXT;
ALTER TABLE runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN final_text TEXT;
ALTER TABLE confirmations ADD COLUMN resource_name TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX confirmations_by_call ON confirmations (tool_call_id);
