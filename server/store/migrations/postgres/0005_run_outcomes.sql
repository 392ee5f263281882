-- What a finished run came to (answered, asked_back, not_understood, denied, expired, cancelled,
-- failed), apart from its lifecycle status; NULL while it is not over. Runs that ended before
-- this migration get the outcome their status tells: succeeded is answered.
ALTER TABLE runs ADD COLUMN outcome TEXT COLLATE "C";
UPDATE runs SET outcome = CASE status
    WHEN 'succeeded' THEN 'answered'
    WHEN 'failed' THEN 'failed'
    WHEN 'max_iterations' THEN 'failed'
    WHEN 'cancelled' THEN 'cancelled'
END;
