-- +goose Up
-- Small JSON documents that features keep per tenant (annotation tasks,
-- ...): see warehouse.Document. seq orders them by creation; a slug is
-- unique among the documents of a kind and scope that have one.
CREATE TABLE documents (
	seq        INTEGER PRIMARY KEY,
	kind       TEXT    NOT NULL,
	scope      TEXT    NOT NULL,
	id         TEXT    NOT NULL,
	slug       TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	body       TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX documents_id ON documents (kind, scope, id);
CREATE UNIQUE INDEX documents_slug ON documents (kind, scope, slug) WHERE slug != '';
-- Pages of a kind and scope in creation order (a dataset's rows).
CREATE INDEX documents_order ON documents (kind, scope, seq);
