-- Answers you can check (issue 26).
-- A confirmation binds to the version (content hash) of the dataset it would change; an approval
-- after that version changed does nothing (RESOURCE_CHANGED).
ALTER TABLE confirmations ADD COLUMN bound_version TEXT;
-- Each number of a chat run's answer and the tool-result cell it came from (or none): the
-- Grounding event's content, for GetRun.
ALTER TABLE runs ADD COLUMN grounding_json TEXT;
-- A query's result hash, and its rows when small enough, for RerunQuery's comparison.
ALTER TABLE run_capsules ADD COLUMN result_sha256 TEXT;
ALTER TABLE run_capsules ADD COLUMN result_json TEXT;
