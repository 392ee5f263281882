-- A number per owner that every change to their datasets moves on (in the same transaction), so a
-- reader that kept the owner's catalog checks it with one lookup instead of reading it again.
CREATE TABLE catalog_versions (
    owner_id TEXT PRIMARY KEY,
    version  INTEGER NOT NULL
);

INSERT INTO catalog_versions (owner_id, version) SELECT DISTINCT owner_id, 1 FROM datasets;

CREATE TRIGGER catalog_version_on_insert AFTER INSERT ON datasets
BEGIN
    INSERT INTO catalog_versions (owner_id, version) VALUES (NEW.owner_id, 1)
        ON CONFLICT (owner_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER catalog_version_on_update AFTER UPDATE ON datasets
BEGIN
    INSERT INTO catalog_versions (owner_id, version) VALUES (NEW.owner_id, 1)
        ON CONFLICT (owner_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER catalog_version_on_delete AFTER DELETE ON datasets
BEGIN
    INSERT INTO catalog_versions (owner_id, version) VALUES (OLD.owner_id, 1)
        ON CONFLICT (owner_id) DO UPDATE SET version = version + 1;
END;
