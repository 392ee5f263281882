-- Thread ids are chosen by clients and belong to one user: two users' `main` are two threads. A
-- thread is now stored under its owner and its name, `<owner id>/<name>` (the server shows
-- clients only the name). Existing threads and the rows naming them move to that key together;
-- the foreign keys are checked once, at the end of this migration's transaction.
PRAGMA defer_foreign_keys = ON;
UPDATE runs SET thread_id = owner_id || '/' || thread_id WHERE thread_id IS NOT NULL;
UPDATE state_snapshots
    SET thread_id = (SELECT owner_id FROM threads WHERE threads.id = state_snapshots.thread_id) || '/' || thread_id;
UPDATE threads SET id = owner_id || '/' || id;
