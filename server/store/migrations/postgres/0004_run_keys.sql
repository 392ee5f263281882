-- The API key a chat run was started with (NULL in local mode, and for runs before this
-- migration): an approval, and the effect of an approved call, are refused once that key is
-- revoked, as the key's own requests are.
ALTER TABLE runs ADD COLUMN api_key_id TEXT COLLATE "C";
