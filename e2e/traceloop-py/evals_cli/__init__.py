"""A stdlib-only client of Traceloop's hosted REST API, for evalcol's
end-to-end tests: the calls of traceloop/tenant-evals-integration's
evals-cli, made the same way (see ../README.md)."""
