-- What a standalone library adds to the Prompteka schema: the record that makes the queue
-- processor exactly-once. A Prompteka library never has this table.
CREATE TABLE IF NOT EXISTS applied_ops (
    op_id      TEXT PRIMARY KEY NOT NULL,
    applied_at INTEGER NOT NULL,
    response   TEXT NOT NULL
);
