package httpapi

// The experiment routes' part of the OpenAPI document (served by
// internal/experimentapi). Bodies are open objects, as Traceloop's SDK
// sends and reads them.

func experimentSchemas(schemas obj) {
	open := func(desc string) obj { return obj{"type": "object", "description": desc} }
	schemas["ExperimentInitialize"] = open("{slug, dataset_slug, dataset_version, evaluator_slugs, experiment_metadata, experiment_run_metadata}.")
	schemas["ExperimentRun"] = open("{experiment: {id, slug, dataset_slug, evaluator_slugs, metadata, created_at}, run: {id, experiment_id, dataset_slug, dataset_version, evaluator_slugs, metadata, created_at}}.")
	schemas["ExperimentTask"] = open("{input, output}: a dataset row and what the app made of it.")
	schemas["ExperimentExecute"] = open("{evaluator_slug, evaluator_version, input_schema_mapping: {field: {source: value}}, evaluator_config}.")
	schemas["ExperimentExecution"] = open("{execution_id, stream_url} on POST; {execution_id, evaluator_slug, status, result, verdict, error} at the stream URL.")
	schemas["Experiments"] = open("{experiments: [...], total}.")
	schemas["ExperimentSummary"] = open("{experiment, runs: [{id, dataset_version, created_at, tasks, evaluators: {slug: {count, pass, fail, errors, mean_score}}}]} newest run first.")
}

func experimentPaths(paths obj) {
	body := func(name string) obj {
		return obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef(name)}}}
	}
	notFound := errorResponse("No such experiment, run, task or execution in the key's organization and project.")
	slug, run := pathParam("slug", "The experiment's slug."), pathParam("run", "The run's id.")
	paths["/v2/experiments"] = obj{"get": operation("listExperiments", "The experiments of the key's organization and project.", "experiments", obj{"200": response("The experiments.", schemaRef("Experiments"))}, nil)}
	paths["/v2/experiments/initialize"] = obj{"put": operation("initializeExperiment", "Start a run (creating the experiment on its first run); the dataset version must be published.", "experiments",
		obj{"200": response("The experiment and the new run.", schemaRef("ExperimentRun")), "400": errorResponse("A bad field, named."), "404": errorResponse("No such dataset or version.")},
		obj{"requestBody": body("ExperimentInitialize")})}
	paths["/v2/experiments/run-in-github"] = obj{"post": operation("runExperimentInGitHub", "A run made in a pull request's CI: its task results are stored and evaluated here.", "experiments",
		obj{"200": response("{experiment_id, experiment_slug, run_id, tasks, evaluations}.", schemaRef("ExperimentRun")), "400": errorResponse("A bad field, named."), "404": errorResponse("No such dataset or version.")},
		obj{"requestBody": body("ExperimentInitialize")})}
	paths["/v2/experiments/{slug}"] = obj{"get": operation("getExperiment", "The experiment and its runs, each summarised per evaluator, to compare runs.", "experiments",
		obj{"200": response("The summary.", schemaRef("ExperimentSummary")), "404": notFound}, obj{"parameters": []obj{slug}})}
	paths["/v2/experiments/{slug}/runs/{run}/tasks"] = obj{"post": operation("createExperimentTask", "Record the app's output for one row.", "experiments",
		obj{"201": response("{id}.", schemaRef("ExperimentTask")), "404": notFound}, obj{"parameters": []obj{slug, run}, "requestBody": body("ExperimentTask")})}
	task := pathParam("task", "The task's id.")
	paths["/v2/experiments/{slug}/runs/{run}/tasks/{task}"] = obj{"post": operation("executeExperimentEvaluator", "Run an evaluator (prebuilt or custom) on a task's output, synchronously; read the result at stream_url (under /v2).", "experiments",
		obj{"200": response("{execution_id, stream_url}.", schemaRef("ExperimentExecution")), "400": errorResponse("No evaluator_slug."), "404": notFound}, obj{"parameters": []obj{slug, run, task}, "requestBody": body("ExperimentExecute")})}
	paths["/v2/experiments/{slug}/runs/{run}/executions/{execution}"] = obj{"get": operation("getExperimentExecution", "An evaluator's result on a task.", "experiments",
		obj{"200": response("The result.", schemaRef("ExperimentExecution")), "404": notFound}, obj{"parameters": []obj{slug, run, pathParam("execution", "")}})}
	paths["/v2/experiments/{slug}/runs/{run}/export/{format}"] = obj{"get": operation("exportExperimentRun", "A run's tasks with their evaluations, as csv or json.", "experiments",
		obj{"200": obj{"description": "The export.", "content": obj{"text/csv": obj{"schema": obj{"type": "string"}}, "application/json": obj{"schema": obj{"type": "array"}}}}, "404": notFound},
		obj{"parameters": []obj{slug, run, pathParam("format", "csv or json")}})}
	ev := pathParam("slug", "A prebuilt slug or a custom evaluator's slug or id.")
	paths["/v2/evaluators/{slug}/executions"] = obj{"post": operation("executeEvaluatorAsync", "Run an evaluator once on a mapped input (Traceloop's customEvaluatorGuard); the result waits at stream_url.", "evaluators",
		obj{"200": response("{execution_id, stream_url}.", schemaRef("ExperimentExecution"))}, obj{"parameters": []obj{ev}, "requestBody": body("ExperimentExecute")})}
	paths["/v2/evaluators/{slug}/executions/{execution}"] = obj{"get": operation("getEvaluatorExecution", "The execution's result, read once: {execution_id, result: {evaluator_result}}.", "evaluators",
		obj{"200": response("The result.", schemaRef("ExperimentExecution")), "404": errorResponse("No such execution (or read already).")}, obj{"parameters": []obj{ev, pathParam("execution", "")}})}
}
