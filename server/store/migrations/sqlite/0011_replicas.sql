-- Replicas sharing one store (PostgreSQL), and the same rules on SQLite: the replica that drives a
-- run holds a lease on it, renewed by heartbeat, and another replica takes the run over once the
-- lease has expired; a thread is held by one run at a time, and the queue behind it is ordered by
-- queue_rank (an interrupting message goes first).
ALTER TABLE runs ADD COLUMN lease_owner TEXT;
ALTER TABLE runs ADD COLUMN lease_expires_at INTEGER;
-- Why a cancel was requested (cancelled, superseded), for whichever replica carries it out.
ALTER TABLE runs ADD COLUMN cancel_reason TEXT;
ALTER TABLE runs ADD COLUMN queue_rank INTEGER NOT NULL DEFAULT 0;

-- A thread left with two active runs by an older version keeps the oldest; the others wait.
UPDATE runs SET status = 'queued'
WHERE kind IN ('chat', 'tool') AND status IN ('running', 'awaiting_confirmation')
  AND EXISTS (SELECT 1 FROM runs o
              WHERE o.thread_id = runs.thread_id AND o.kind IN ('chat', 'tool')
                AND o.status IN ('running', 'awaiting_confirmation') AND o.id < runs.id);

CREATE UNIQUE INDEX runs_one_active_per_thread ON runs (thread_id)
    WHERE kind IN ('chat', 'tool') AND status IN ('running', 'awaiting_confirmation');

-- Admission counts a user's unfinished runs; most of a user's runs are finished.
CREATE INDEX runs_unfinished_by_owner ON runs (owner_id)
    WHERE kind IN ('chat', 'tool') AND status IN ('queued', 'running', 'awaiting_confirmation');
