-- The first migration: the table the API writes to.
CREATE TABLE visits (id INTEGER PRIMARY KEY, at TEXT NOT NULL);
