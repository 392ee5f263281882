-- Answers you can check (issue 26): a confirmation binds to the version (content hash) of the
-- dataset it would change; an approval after that version changed does nothing (RESOURCE_CHANGED).
ALTER TABLE confirmations ADD COLUMN bound_version TEXT;
