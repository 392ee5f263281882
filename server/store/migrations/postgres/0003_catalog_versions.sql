-- A number per owner that every change to their datasets moves on (in the same transaction), so a
-- reader that kept the owner's catalog checks it with one lookup instead of reading it again, on
-- whichever replica the change was made.
CREATE TABLE catalog_versions (
    owner_id TEXT COLLATE "C" PRIMARY KEY,
    version  BIGINT NOT NULL
);

INSERT INTO catalog_versions (owner_id, version) SELECT DISTINCT owner_id, 1 FROM datasets;

CREATE FUNCTION catalog_version_moves() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO catalog_versions (owner_id, version)
        VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.owner_id ELSE NEW.owner_id END, 1)
        ON CONFLICT (owner_id) DO UPDATE SET version = catalog_versions.version + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER catalog_version_moves AFTER INSERT OR UPDATE OR DELETE ON datasets
    FOR EACH ROW EXECUTE FUNCTION catalog_version_moves();
