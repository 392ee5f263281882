-- The router's reading of a chat run's question, when a model made it (`agent.router = "llm"`):
-- kept so a restarted run is gated exactly as before.
ALTER TABLE runs ADD COLUMN route_json TEXT;

-- A chat run's capsule gathers the query runs its tools started (their parent_run_id).
CREATE INDEX runs_by_parent ON runs (parent_run_id) WHERE parent_run_id IS NOT NULL;
