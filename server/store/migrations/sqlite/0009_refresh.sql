-- Refresh (issue 25): the file in an approved folder a dataset was imported from, which
-- refresh_dataset reads again.
ALTER TABLE datasets ADD COLUMN origin_json TEXT;
