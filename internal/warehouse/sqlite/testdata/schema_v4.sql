-- The schema and data of a warehouse written by evalcol before its DDL moved
-- to .sql files (schema_migrations versions 1-4, internal/warehouse/sqlite/migrate.go
-- at commit 1f6d872), dumped from a real file. TestUpgradeFromPreviousSchema
-- loads it and opens the result with the current code.
CREATE TABLE schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL DEFAULT (unixepoch())
	);
CREATE TABLE resources (
			id         INTEGER PRIMARY KEY,
			hash       INTEGER NOT NULL,
			attributes TEXT    NOT NULL
		);
CREATE INDEX resources_hash ON resources (hash);
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
			evaluations         TEXT    NOT NULL
		);
CREATE INDEX spans_env_time ON spans (environment, timestamp, seq, span_name);
CREATE TABLE span_attr_index (
			hour    INTEGER NOT NULL,
			hash    INTEGER NOT NULL,
			base    INTEGER NOT NULL,
			offsets TEXT    NOT NULL,
			PRIMARY KEY (hour, hash, base)
		) WITHOUT ROWID;
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
CREATE INDEX metric_points_env_time ON metric_points (environment, event_time);
CREATE INDEX metric_points_env_name_time ON metric_points (environment, metric_name, event_time);
CREATE TABLE span_keys (key INTEGER PRIMARY KEY);
CREATE TABLE point_keys (key INTEGER PRIMARY KEY);
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
			document     TEXT    NOT NULL,
			UNIQUE (environment, project_id, external_id)
		);
CREATE INDEX monitor_setups_env ON monitor_setups (environment, seq);
INSERT INTO schema_migrations (version, name, applied_at) VALUES (1, 'spans', 1795571079);
INSERT INTO schema_migrations (version, name, applied_at) VALUES (2, 'metric_points', 1795571079);
INSERT INTO schema_migrations (version, name, applied_at) VALUES (3, 'idempotent writes', 1795571079);
INSERT INTO schema_migrations (version, name, applied_at) VALUES (4, 'monitor_setups', 1795571079);
INSERT INTO resources (id, hash, attributes) VALUES (1, 2239957294567775465, '{"service.name":"svc"}');
INSERT INTO resources (id, hash, attributes) VALUES (2, 7874821956345091805, '{"service.name":"other"}');
INSERT INTO spans (seq, environment, timestamp, duration, total_tokens, trace_id, span_id, parent_span_id, trace_state, span_name, span_kind, service_name, scope_name, scope_version, status_code, status_message, workflow_name, entity_name, agent_name, request_model, response_model, vendor, resource_id, span_attributes, prompts, completions, input, output, evaluations) VALUES (1, 'prod', 1767225600000, 120, 42, 't1', 's1', '', '', 'chat', 'SPAN_KIND_CLIENT', 'svc', 'scope', '1.0', 'STATUS_CODE_OK', '', 'wf', 'ent', '', 'gpt-4o', 'gpt-4o-2024', 'openai', 1, '{"llm.vendor":"openai","user.id":"u1"}', '{"0.content":"hello"}', '{"0.content":"hi there"}', 'hello', 'hi there', '[{"name":"toxicity-detector","score_value":0.1,"score_label":"safe","monitor_id":"m1"}]');
INSERT INTO spans (seq, environment, timestamp, duration, total_tokens, trace_id, span_id, parent_span_id, trace_state, span_name, span_kind, service_name, scope_name, scope_version, status_code, status_message, workflow_name, entity_name, agent_name, request_model, response_model, vendor, resource_id, span_attributes, prompts, completions, input, output, evaluations) VALUES (2, 'prod', 1767225601000, 5, 0, 't1', 's2', 's1', '', 'tool', '', 'svc', '', '', '', '', '', '', '', '', '', '', 1, '{"user.id":"u2"}', '{}', '{}', '', '', '[]');
INSERT INTO spans (seq, environment, timestamp, duration, total_tokens, trace_id, span_id, parent_span_id, trace_state, span_name, span_kind, service_name, scope_name, scope_version, status_code, status_message, workflow_name, entity_name, agent_name, request_model, response_model, vendor, resource_id, span_attributes, prompts, completions, input, output, evaluations) VALUES (3, 'dev', 1767225602000, 0, 0, 't2', 's3', '', '', 'chat', '', 'other', '', '', '', '', '', '', '', '', '', '', 2, '{"user.id":"u1"}', '{}', '{}', '', '', '[]');
INSERT INTO span_attr_index (hour, hash, base, offsets) VALUES (490896, 157111874, 1, '[0,1]');
INSERT INTO span_attr_index (hour, hash, base, offsets) VALUES (490896, 456948108, 3, '[0]');
INSERT INTO span_attr_index (hour, hash, base, offsets) VALUES (490896, 586863668, 1, '[0]');
INSERT INTO span_attr_index (hour, hash, base, offsets) VALUES (490896, 586864973, 2, '[0]');
INSERT INTO span_attr_index (hour, hash, base, offsets) VALUES (490896, 1609076653, 1, '[0]');
INSERT INTO span_attr_index (hour, hash, base, offsets) VALUES (490896, 1665789223, 3, '[0]');
INSERT INTO metric_points (seq, environment, organization_id, metric_name, source, event_time, bool_value, numeric_value, enum_value, trace_id, span_id, labels, attributes) VALUES (1, 'prod', 'org', 'toxicity-detector.score', 'evaluator', 1767225600120, NULL, 0.25, NULL, 't1', 's1', '{"model":"gpt-4o","trace_id":"t1"}', '{"user.id":"u1"}');
INSERT INTO metric_points (seq, environment, organization_id, metric_name, source, event_time, bool_value, numeric_value, enum_value, trace_id, span_id, labels, attributes) VALUES (2, 'prod', 'org', 'toxicity-detector.is_safe', 'evaluator', 1767225600120, NULL, NULL, 'safe', 't1', 's1', '{"trace_id":"t1"}', '{}');
INSERT INTO metric_points (seq, environment, organization_id, metric_name, source, event_time, bool_value, numeric_value, enum_value, trace_id, span_id, labels, attributes) VALUES (3, 'prod', 'org', 'otlp.flag', 'otlp', 1767225600500, 1, NULL, NULL, '', '', '{}', '{"k":"v"}');
INSERT INTO span_keys (key) VALUES (-6046178787312490668);
INSERT INTO span_keys (key) VALUES (-6043309061963427633);
INSERT INTO span_keys (key) VALUES (6657956449164512112);
INSERT INTO point_keys (key) VALUES (-6416670548242880346);
INSERT INTO point_keys (key) VALUES (-2293474395181582835);
INSERT INTO point_keys (key) VALUES (2565975114005387922);
INSERT INTO monitor_setups (seq, id, environment, project_id, external_id, entity_type, entity_value, status, version, document) VALUES (1, 'setup-1', 'prod', 'default', 'ext-1', 'workflow', 'wf', 'pending', 1, '{"id":"setup-1","external_id":"ext-1","entity_type":"workflow","entity_value":"wf","org_id":"org","project_id":"default","env_project_id":"prod","status":"pending","created_at":"2026-01-02T03:04:05Z","updated_at":"2026-01-02T03:04:05Z","evaluators":[{"binding_id":"b1","evaluator_id":"toxicity-detector","evaluator_type":"toxicity-detector","status":"pending","error_message":"","processed_at":null,"input_schema":null,"output_schema":null}],"init_rules":[],"sample_rate":1}');
