-- A warehouse written by evalcol v0.1.0 (the squashed schema, commit 4e2ad01):
-- three spans, a metric point and a document, written through the store's
-- API (TestUpgradeFromV010's data), dumped with sqlite3 .dump. Never edit:
-- it is what v0.1.0 leaves on disk; TestUpgradeFromV010 upgrades it.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL DEFAULT (unixepoch())
	);
INSERT INTO schema_migrations VALUES(1,'00001_v0_1_0',1795911973);
CREATE TABLE resources (
	id         INTEGER PRIMARY KEY,
	hash       INTEGER NOT NULL,
	attributes TEXT    NOT NULL
);
INSERT INTO resources VALUES(1,2239957294567775465,'{"service.name":"svc"}');
INSERT INTO resources VALUES(2,645223143103797797,'{}');
CREATE TABLE spans (
	seq                 INTEGER PRIMARY KEY,
	environment         TEXT    NOT NULL,
	timestamp           INTEGER NOT NULL,
	duration            INTEGER NOT NULL,
	total_tokens        INTEGER NOT NULL,
	trace_id            TEXT    NOT NULL,
	span_id             TEXT    NOT NULL,
	parent_span_id      TEXT    NOT NULL,
	trace_state         TEXT    NOT NULL,
	span_name           TEXT    NOT NULL,
	span_kind           TEXT    NOT NULL,
	service_name        TEXT    NOT NULL,
	scope_name          TEXT    NOT NULL,
	scope_version       TEXT    NOT NULL,
	status_code         TEXT    NOT NULL,
	status_message      TEXT    NOT NULL,
	workflow_name       TEXT    NOT NULL,
	entity_name         TEXT    NOT NULL,
	agent_name          TEXT    NOT NULL,
	request_model       TEXT    NOT NULL,
	response_model      TEXT    NOT NULL,
	vendor              TEXT    NOT NULL,
	resource_id         INTEGER NOT NULL,
	span_attributes     TEXT    NOT NULL,
	prompts             TEXT    NOT NULL,
	completions         TEXT    NOT NULL,
	input               TEXT    NOT NULL,
	output              TEXT    NOT NULL,
	evaluations         TEXT    NOT NULL,
	verdicts            TEXT    NOT NULL DEFAULT '',
	input_key           TEXT    NOT NULL DEFAULT '',
	output_key          TEXT    NOT NULL DEFAULT ''
);
INSERT INTO spans VALUES(1,'prod',1767225600000,1200,42,'t1','s1','','','chat','','svc','','','','','wf','','','','gpt-4o','',1,'{"gen_ai.usage.input_tokens":"30","gen_ai.usage.output_tokens":"12","tier":"gold-1","user.id":"u1"}','{"0.content":"hello","0.role":"user"}','{"0.content":"hi there"}','','','[{"name":"toxicity","score_value":1,"score_label":"safe"}]','toxicity','','');
INSERT INTO spans VALUES(2,'prod',1767225601000,30,0,'t1','s2','s1','','tool','','svc','','','ERROR','','','','','','','',2,'{"user.id":"u2"}','{}','{}','','','[]','','','');
INSERT INTO spans VALUES(3,'dev',1767225602000,0,0,'t2','s3','','','chat','','','','','','','','','','','','',2,'{}','{}','{}','question','answer','[]','','','');
CREATE TABLE metric_points (
	seq             INTEGER PRIMARY KEY,
	environment     TEXT    NOT NULL,
	organization_id TEXT    NOT NULL,
	metric_name     TEXT    NOT NULL,
	source          TEXT    NOT NULL,
	event_time      INTEGER NOT NULL,
	bool_value      INTEGER,
	numeric_value   REAL,
	enum_value      TEXT,
	trace_id        TEXT    NOT NULL,
	span_id         TEXT    NOT NULL,
	labels          TEXT    NOT NULL,
	attributes      TEXT    NOT NULL
);
INSERT INTO metric_points VALUES(1,'prod','','relevance','evaluator',1767225600500,NULL,0.75,NULL,'t1','s1','{"model":"gpt-4o"}','{}');
CREATE TABLE span_keys_by_time (ts INTEGER NOT NULL, key INTEGER NOT NULL, content INTEGER, PRIMARY KEY (ts, key)) WITHOUT ROWID;
INSERT INTO span_keys_by_time VALUES(1767225600000,-6043309061963427633,-225849114503913971);
INSERT INTO span_keys_by_time VALUES(1767225601000,-6046178787312490668,-3207070550792653602);
INSERT INTO span_keys_by_time VALUES(1767225602000,6657956449164512112,-4205237151527818851);
CREATE TABLE point_keys_by_time (ts INTEGER NOT NULL, key INTEGER NOT NULL, PRIMARY KEY (ts, key)) WITHOUT ROWID;
INSERT INTO point_keys_by_time VALUES(1767225600500,-5718550096814609306);
CREATE TABLE monitor_setups (
	seq          INTEGER PRIMARY KEY,
	id           TEXT    NOT NULL UNIQUE,
	environment  TEXT    NOT NULL,
	project_id   TEXT    NOT NULL,
	external_id  TEXT    NOT NULL,
	entity_type  TEXT    NOT NULL,
	entity_value TEXT    NOT NULL,
	status       TEXT    NOT NULL,
	version      INTEGER NOT NULL,
	document     TEXT    NOT NULL
);
CREATE TABLE organizations (
	seq      INTEGER PRIMARY KEY,
	id       TEXT    NOT NULL UNIQUE,
	version  INTEGER NOT NULL,
	document TEXT    NOT NULL
);
CREATE TABLE api_keys (
	seq         INTEGER PRIMARY KEY,
	id          TEXT    NOT NULL UNIQUE,
	digest      TEXT    NOT NULL UNIQUE,
	org_id      TEXT    NOT NULL,
	env_slug    TEXT    NOT NULL,
	environment TEXT    NOT NULL,
	project_id  TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	revoked_at  INTEGER
);
CREATE TABLE pipeline_status (
	environment           TEXT    NOT NULL,
	collector_id          TEXT    NOT NULL,
	reported_at           INTEGER NOT NULL,
	latest_stored         INTEGER NOT NULL,
	last_evaluated_stored INTEGER NOT NULL,
	pending               INTEGER NOT NULL,
	oldest_pending        INTEGER NOT NULL,
	lost                  INTEGER NOT NULL,
	last_lost             INTEGER NOT NULL,
	last_eval_ok          INTEGER NOT NULL,
	last_eval_failed      INTEGER NOT NULL,
	last_eval_error       TEXT    NOT NULL,
	last_write_ok         INTEGER NOT NULL,
	last_write_failed     INTEGER NOT NULL,
	last_write_error      TEXT    NOT NULL,
	PRIMARY KEY (environment, collector_id)
) WITHOUT ROWID;
CREATE TABLE retention_marks (
	tbl    TEXT    NOT NULL,
	seq    INTEGER NOT NULL,
	cutoff INTEGER NOT NULL,
	at     INTEGER NOT NULL,
	PRIMARY KEY (tbl, seq)
) WITHOUT ROWID;
CREATE TABLE settings (
	key     TEXT    PRIMARY KEY,
	value   BLOB    NOT NULL,
	created INTEGER NOT NULL DEFAULT (unixepoch())
);
CREATE TABLE span_counts (
	environment TEXT    NOT NULL,
	minute      INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (environment, minute)
) WITHOUT ROWID;
INSERT INTO span_counts VALUES('dev',29453760,1);
INSERT INTO span_counts VALUES('prod',29453760,2);
CREATE TABLE posting_runs (
	run       INTEGER PRIMARY KEY,
	level     INTEGER NOT NULL,
	first_seq INTEGER NOT NULL,
	last_seq  INTEGER NOT NULL,
	min_ts    INTEGER NOT NULL,
	max_ts    INTEGER NOT NULL
);
INSERT INTO posting_runs VALUES(1,0,1,3,1767225600000,1767225602000);
CREATE TABLE span_postings (
	run         INTEGER NOT NULL,
	environment TEXT    NOT NULL,
	hash        INTEGER NOT NULL,
	base        INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	min_ts      INTEGER NOT NULL,
	max_ts      INTEGER NOT NULL,
	offsets     TEXT    NOT NULL,
	PRIMARY KEY (run, environment, hash, base)
) WITHOUT ROWID;
INSERT INTO span_postings VALUES(1,'dev',2599034013110785917,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',2873226934266117331,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',3082151899900633857,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',3863737102679198999,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',4582707870038120646,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',5220285891869538382,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',5934025104725325629,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',6499848129278900192,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'dev',8545925846298686955,3,1,1767225602000,1767225602000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',230881694848835511,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',399895943023382036,2,1,1767225601000,1767225601000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',399897592290824352,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',426739832753408429,1,2,1767225600000,1767225601000,'[0,1]');
INSERT INTO span_postings VALUES(1,'prod',1442149782883127795,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',2089430034661835163,2,1,1767225601000,1767225601000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',2095177258448805091,1,2,1767225600000,1767225601000,'[0,1]');
INSERT INTO span_postings VALUES(1,'prod',2395807550599973204,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',2435115028645981476,2,1,1767225601000,1767225601000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',2599034013110785917,2,1,1767225601000,1767225601000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',2793109865356818387,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',2873226934266117331,1,2,1767225600000,1767225601000,'[0,1]');
INSERT INTO span_postings VALUES(1,'prod',3082151899900633857,1,2,1767225600000,1767225601000,'[0,1]');
INSERT INTO span_postings VALUES(1,'prod',3177564042065936740,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',3768237834378199989,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',3863737102679198999,1,2,1767225600000,1767225601000,'[0,1]');
INSERT INTO span_postings VALUES(1,'prod',5220285891869538382,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',5351814186801656143,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',5934025104725325629,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',6499848129278900192,2,1,1767225601000,1767225601000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',7352596970172733464,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',7572697001462521115,1,1,1767225600000,1767225600000,'[0]');
INSERT INTO span_postings VALUES(1,'prod',8545925296542872849,1,2,1767225600000,1767225601000,'[0,1]');
CREATE TABLE point_counts (
	environment TEXT    NOT NULL,
	hour        INTEGER NOT NULL,
	key         TEXT    NOT NULL,
	value       TEXT    NOT NULL,
	metric_name TEXT    NOT NULL,
	source      TEXT    NOT NULL,
	n           INTEGER NOT NULL,
	PRIMARY KEY (environment, hour, key, value, metric_name, source)
) WITHOUT ROWID;
INSERT INTO point_counts VALUES('prod',490896,'','','relevance','evaluator',1);
INSERT INTO point_counts VALUES('prod',490896,'model','gpt-4o','','evaluator',1);
CREATE TABLE point_uncounted_keys (
	environment TEXT NOT NULL,
	key         TEXT NOT NULL,
	PRIMARY KEY (environment, key)
) WITHOUT ROWID;
CREATE TABLE span_values (
	hour INTEGER NOT NULL,
	key_hash INTEGER NOT NULL,
	seq INTEGER NOT NULL,
	value NOT NULL,
	PRIMARY KEY (hour, key_hash, seq)
) WITHOUT ROWID;
INSERT INTO span_values VALUES(490896,1583154736309747525,1,'12');
INSERT INTO span_values VALUES(490896,3587461959891900326,1,'30');
INSERT INTO span_values VALUES(490896,8641937633856235495,1,'u1');
INSERT INTO span_values VALUES(490896,8641937633856235495,2,'u2');
INSERT INTO span_values VALUES(490896,8979875320763855536,1,'gold-1');
CREATE TABLE span_value_gaps (
	hour INTEGER NOT NULL,
	key_hash INTEGER NOT NULL,
	PRIMARY KEY (hour, key_hash)
) WITHOUT ROWID;
CREATE TABLE point_posting_runs (
	run       INTEGER PRIMARY KEY,
	level     INTEGER NOT NULL,
	first_seq INTEGER NOT NULL,
	last_seq  INTEGER NOT NULL,
	min_ts    INTEGER NOT NULL,
	max_ts    INTEGER NOT NULL
);
INSERT INTO point_posting_runs VALUES(1,0,1,1,1767225600500,1767225600500);
CREATE TABLE point_postings (
	run         INTEGER NOT NULL,
	environment TEXT    NOT NULL,
	hash        INTEGER NOT NULL,
	base        INTEGER NOT NULL,
	n           INTEGER NOT NULL,
	min_ts      INTEGER NOT NULL,
	max_ts      INTEGER NOT NULL,
	offsets     TEXT    NOT NULL,
	PRIMARY KEY (run, environment, hash, base)
) WITHOUT ROWID;
INSERT INTO point_postings VALUES(1,'prod',1442589120307203757,1,1,1767225600500,1767225600500,'[0]');
CREATE TABLE console_sessions (
	token_hash  TEXT    PRIMARY KEY,
	environment TEXT    NOT NULL,
	org_id      TEXT    NOT NULL,
	project_id  TEXT    NOT NULL,
	key_digest  TEXT    NOT NULL,
	key_id      TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL
) WITHOUT ROWID;
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
INSERT INTO documents VALUES(1,'dataset','org/proj','d1','golden',1,'{"rows":1}',1795911973281,1795911973281);
PRAGMA writable_schema=ON;
INSERT INTO sqlite_schema(type,name,tbl_name,rootpage,sql)VALUES('table','span_text','span_text',0,'CREATE VIRTUAL TABLE span_text USING fts5(text, content='''', contentless_delete=1, tokenize=''unicode61 remove_diacritics 0'')');
CREATE TABLE IF NOT EXISTS 'span_text_data'(id INTEGER PRIMARY KEY, block BLOB);
INSERT INTO span_text_data VALUES(1,X'0205');
INSERT INTO span_text_data VALUES(10,X'00000000ff00000101010100010101010101000002');
INSERT INTO span_text_data VALUES(137438953473,X'000000360730616e73776572030203010568656c6c6f01020202016901020301087175657374696f6e03020201057468657265010204040b0a060d');
CREATE TABLE IF NOT EXISTS 'span_text_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;
INSERT INTO span_text_idx VALUES(1,X'',2);
CREATE TABLE IF NOT EXISTS 'span_text_docsize'(id INTEGER PRIMARY KEY, sz BLOB, origin INTEGER);
INSERT INTO span_text_docsize VALUES(1,X'03',1);
INSERT INTO span_text_docsize VALUES(3,X'02',1);
CREATE TABLE IF NOT EXISTS 'span_text_config'(k PRIMARY KEY, v) WITHOUT ROWID;
INSERT INTO span_text_config VALUES('version',4);
CREATE TABLE evaluation_counts (
	environment TEXT NOT NULL, width INTEGER NOT NULL, bucket INTEGER NOT NULL,
	evaluator TEXT NOT NULL, verdict TEXT NOT NULL, workflow TEXT NOT NULL,
	monitor_id TEXT NOT NULL, bin INTEGER NOT NULL,
	n INTEGER NOT NULL, total REAL NOT NULL,
	PRIMARY KEY (environment, width, bucket, evaluator, verdict, workflow, monitor_id, bin)
) WITHOUT ROWID;
CREATE TABLE monitor_last_evaluations (
	environment TEXT NOT NULL, monitor_id TEXT NOT NULL, last_ms INTEGER NOT NULL,
	PRIMARY KEY (environment, monitor_id)
) WITHOUT ROWID;
CREATE TABLE span_stats (
	environment TEXT NOT NULL, width INTEGER NOT NULL, bucket INTEGER NOT NULL,
	workflow TEXT NOT NULL, model TEXT NOT NULL, bin INTEGER NOT NULL,
	n INTEGER NOT NULL, errors INTEGER NOT NULL, input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
	PRIMARY KEY (environment, width, bucket, workflow, model, bin)
) WITHOUT ROWID;
INSERT INTO span_stats VALUES('dev',60000,1767225600000,'','',0,1,0,0,0);
INSERT INTO span_stats VALUES('dev',3600000,1767225600000,'','',0,1,0,0,0);
INSERT INTO span_stats VALUES('dev',21600000,1767225600000,'','',0,1,0,0,0);
INSERT INTO span_stats VALUES('prod',60000,1767225600000,'','',10,1,0,0,0);
INSERT INTO span_stats VALUES('prod',60000,1767225600000,'wf','gpt-4o',21,1,0,30,12);
INSERT INTO span_stats VALUES('prod',3600000,1767225600000,'','',10,1,0,0,0);
INSERT INTO span_stats VALUES('prod',3600000,1767225600000,'wf','gpt-4o',21,1,0,30,12);
INSERT INTO span_stats VALUES('prod',21600000,1767225600000,'','',10,1,0,0,0);
INSERT INTO span_stats VALUES('prod',21600000,1767225600000,'wf','gpt-4o',21,1,0,30,12);
CREATE INDEX resources_hash ON resources (hash);
CREATE INDEX spans_env_time ON spans (environment, timestamp, seq, span_name);
CREATE INDEX spans_env_workflow ON spans (environment, workflow_name, seq, timestamp);
CREATE INDEX spans_env_entity ON spans (environment, entity_name, seq, timestamp);
CREATE INDEX spans_env_model ON spans (environment, response_model, seq, timestamp);
CREATE INDEX spans_env_trace ON spans (environment, (CASE WHEN trace_id < '1' THEN 0 WHEN trace_id < '2' THEN 1 WHEN trace_id < '3' THEN 2 WHEN trace_id < '4' THEN 3 WHEN trace_id < '5' THEN 4 WHEN trace_id < '6' THEN 5 WHEN trace_id < '7' THEN 6 WHEN trace_id < '8' THEN 7 WHEN trace_id < '9' THEN 8 WHEN trace_id < 'a' THEN 9 WHEN trace_id < 'b' THEN 10 WHEN trace_id < 'c' THEN 11 WHEN trace_id < 'd' THEN 12 WHEN trace_id < 'e' THEN 13 WHEN trace_id < 'f' THEN 14 ELSE 15 END), timestamp / 3600000, seq, trace_id, timestamp);
CREATE INDEX spans_env_hour_name ON spans (environment, timestamp / 3600000, span_name, seq, timestamp);
CREATE INDEX spans_env_duration ON spans (environment, (CASE WHEN duration < 0 THEN -1 WHEN duration < 256 THEN 0 + duration / 16 WHEN duration < 4096 THEN 16 + duration / 256 WHEN duration < 65536 THEN 32 + duration / 4096 WHEN duration < 1048576 THEN 48 + duration / 65536 WHEN duration < 16777216 THEN 64 + duration / 1048576 WHEN duration < 268435456 THEN 80 + duration / 16777216 ELSE 96 + duration / 268435456 END), timestamp / 3600000, seq, duration, timestamp);
CREATE INDEX spans_env_tokens ON spans (environment, (CASE WHEN total_tokens < 0 THEN -1 WHEN total_tokens < 256 THEN 0 + total_tokens / 16 WHEN total_tokens < 4096 THEN 16 + total_tokens / 256 WHEN total_tokens < 65536 THEN 32 + total_tokens / 4096 WHEN total_tokens < 1048576 THEN 48 + total_tokens / 65536 WHEN total_tokens < 16777216 THEN 64 + total_tokens / 1048576 WHEN total_tokens < 268435456 THEN 80 + total_tokens / 16777216 ELSE 96 + total_tokens / 268435456 END), timestamp / 3600000, seq, total_tokens, timestamp);
CREATE INDEX metric_points_env_time ON metric_points (environment, event_time);
CREATE INDEX metric_points_env_name_time ON metric_points (environment, metric_name, event_time);
CREATE INDEX metric_points_env_hour_value ON metric_points (environment, event_time / 3600000, numeric_value, seq);
CREATE INDEX monitor_setups_env ON monitor_setups (environment, seq);
CREATE UNIQUE INDEX monitor_setups_external_id ON monitor_setups (environment, project_id, external_id) WHERE external_id != '';
CREATE INDEX api_keys_org ON api_keys (org_id, seq);
CREATE INDEX posting_runs_level ON posting_runs (level, run);
CREATE INDEX point_posting_runs_level ON point_posting_runs (level, run);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
CREATE UNIQUE INDEX documents_id ON documents (kind, scope, id);
CREATE UNIQUE INDEX documents_slug ON documents (kind, scope, slug) WHERE slug != '';
CREATE INDEX documents_order ON documents (kind, scope, seq);
PRAGMA writable_schema=OFF;
COMMIT;
