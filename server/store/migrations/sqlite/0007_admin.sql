-- Admin over the API: a user can be deactivated (their keys stop working at once, nothing of
-- theirs is deleted), and a key keeps the first characters of its token so people can tell their
-- keys apart (the token itself is still never stored).
ALTER TABLE users ADD COLUMN deactivated_at INTEGER;
ALTER TABLE api_keys ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
CREATE INDEX api_keys_by_user ON api_keys (user_id, created_at);
CREATE INDEX audit_by_action ON audit_log (action, id);
