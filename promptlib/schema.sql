-- The Prompteka library schema, as the app writes it. mcpctl reads these tables by column name
-- (never by position) and checks the columns it uses with PRAGMA table_info.
CREATE TABLE IF NOT EXISTS folders (
    id         TEXT PRIMARY KEY NOT NULL,
    name       TEXT NOT NULL,
    parent_id  TEXT REFERENCES folders(id),
    position   INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS prompts (
    id         TEXT PRIMARY KEY NOT NULL,
    title      TEXT NOT NULL,
    body       TEXT NOT NULL,
    folder_id  TEXT REFERENCES folders(id),
    icon       TEXT,
    color      TEXT,
    url        TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_folders_parent_id ON folders(parent_id);
CREATE INDEX IF NOT EXISTS idx_prompts_folder_id ON prompts(folder_id);
