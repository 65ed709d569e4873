package httpapi

// The dataset routes' part of the OpenAPI document (served by
// internal/datasetapi). Bodies are open objects: Traceloop's SDKs send
// and read more shapes than one schema states (Rows or rows, Values or
// values, columns by slug).

func datasetSchemas(schemas obj) {
	open := func(desc string) obj { return obj{"type": "object", "description": desc} }
	schemas["Dataset"] = open("A dataset: id, slug, name, description, columns (by slug: name, type, required, description), column_order, version (the last published, or null), published, row_count, created_at, updated_at.")
	schemas["DatasetRequest"] = open("name (required), slug, description, columns [{name, type: string|number|boolean|date|file, slug, required, description}], rows [{column: value}].")
	schemas["DatasetList"] = open("{datasets: [Dataset], total}.")
	schemas["DatasetColumn"] = open("A column: slug, name, type, required, description, created_at, updated_at.")
	schemas["DatasetRows"] = open("{rows: [{id, values (by column slug), created_at, updated_at}], total, limit?, offset?}.")
	schemas["DatasetRowsRequest"] = open("{Rows: [...]} (Node SDK) or {rows: [...]} (Python SDK): objects by column slug or name.")
	schemas["DatasetRow"] = open("A row: id, values, created_at, updated_at.")
	schemas["DatasetVersions"] = open("{dataset_id, dataset_slug, versions: [{version, row_count, columns, published_at}], total}.")
}

func datasetPaths(paths obj) {
	body := func(name string) obj {
		return obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef(name)}}}
	}
	slug := pathParam("slug", "The dataset's slug or id.")
	notFound := errorResponse("No such dataset (or column, row, version) in the key's organization and project.")
	bad := errorResponse("A bad field, named.")
	paths["/v2/datasets"] = obj{
		"get":  operation("listDatasets", "The datasets of the key's organization and project.", "datasets", obj{"200": response("The datasets.", schemaRef("DatasetList"))}, nil),
		"post": operation("createDataset", "Create a dataset (with columns and rows, optionally).", "datasets", obj{"201": response("Created.", schemaRef("Dataset")), "400": bad, "409": errorResponse("The slug is taken.")}, obj{"requestBody": body("DatasetRequest")}),
	}
	paths["/v2/datasets/{slug}"] = obj{
		"get":    operation("getDataset", "One dataset.", "datasets", obj{"200": response("The dataset.", schemaRef("Dataset")), "404": notFound}, obj{"parameters": []obj{slug}}),
		"put":    operation("updateDataset", "Change its name or description.", "datasets", obj{"200": response("The dataset.", schemaRef("Dataset")), "400": bad, "404": notFound}, obj{"parameters": []obj{slug}, "requestBody": body("DatasetRequest")}),
		"delete": operation("deleteDataset", "Delete it with its rows and versions.", "datasets", obj{"204": obj{"description": "Deleted."}, "404": notFound}, obj{"parameters": []obj{slug}}),
	}
	paths["/v2/datasets/{slug}/columns"] = obj{"post": operation("addDatasetColumn", "Add a column.", "datasets", obj{"201": response("The column.", schemaRef("DatasetColumn")), "400": bad, "404": notFound}, obj{"parameters": []obj{slug}, "requestBody": body("DatasetColumn")})}
	col := pathParam("column", "The column's slug.")
	paths["/v2/datasets/{slug}/columns/{column}"] = obj{
		"put":    operation("updateDatasetColumn", "Change a column.", "datasets", obj{"200": response("The dataset.", schemaRef("Dataset")), "400": bad, "404": notFound}, obj{"parameters": []obj{slug, col}, "requestBody": body("DatasetColumn")}),
		"delete": operation("deleteDatasetColumn", "Remove a column.", "datasets", obj{"204": obj{"description": "Removed."}, "404": notFound}, obj{"parameters": []obj{slug, col}}),
	}
	paths["/v2/datasets/{slug}/rows"] = obj{
		"get": operation("getDatasetRows", "A page of rows in insertion order.", "datasets", obj{"200": response("The rows.", schemaRef("DatasetRows")), "404": notFound},
			obj{"parameters": []obj{slug, queryParam("limit", "integer", "Default 100, at most 500.", false), queryParam("offset", "integer", "", false)}}),
		"post": operation("addDatasetRows", "Add rows (at most 1 000 a request; 100 000 a dataset).", "datasets", obj{"201": response("The rows.", schemaRef("DatasetRows")), "400": bad, "404": notFound}, obj{"parameters": []obj{slug}, "requestBody": body("DatasetRowsRequest")}),
	}
	row := pathParam("row", "The row's id.")
	paths["/v2/datasets/{slug}/rows/{row}"] = obj{
		"put":    operation("updateDatasetRow", "Change a row's values ({Values} or {values}).", "datasets", obj{"200": response("The row.", schemaRef("DatasetRow")), "400": bad, "404": notFound}, obj{"parameters": []obj{slug, row}, "requestBody": body("DatasetRow")}),
		"delete": operation("deleteDatasetRow", "Delete a row.", "datasets", obj{"204": obj{"description": "Deleted."}, "404": notFound}, obj{"parameters": []obj{slug, row}}),
	}
	paths["/v2/datasets/{slug}/override"] = obj{"post": operation("overrideDataset", "Replace the rows (and the columns, when given) with the body's; nothing changes when a row is bad; versions stay.", "datasets",
		obj{"200": response("The dataset with its rows.", schemaRef("Dataset")), "400": bad, "404": notFound}, obj{"parameters": []obj{slug}, "requestBody": body("DatasetRequest")})}
	paths["/v2/datasets/{slug}/publish"] = obj{"post": operation("publishDataset", "Publish the rows as the next immutable version (v1, v2, ...).", "datasets", obj{"200": response("The dataset.", schemaRef("Dataset")), "404": notFound}, obj{"parameters": []obj{slug}})}
	paths["/v2/datasets/{slug}/versions"] = obj{"get": operation("getDatasetVersions", "The published versions.", "datasets", obj{"200": response("The versions.", schemaRef("DatasetVersions")), "404": notFound}, obj{"parameters": []obj{slug}})}
	ver := pathParam("version", "v1, v2, ...")
	paths["/v2/datasets/{slug}/versions/{version}"] = obj{"get": operation("getDatasetVersionCSV", "A version as CSV (text/csv; Traceloop's Node SDK gets the CSV as a JSON string).", "datasets",
		obj{"200": obj{"description": "The CSV.", "content": obj{"text/csv": obj{"schema": obj{"type": "string"}}, "application/json": obj{"schema": obj{"type": "string"}}}}, "404": notFound}, obj{"parameters": []obj{slug, ver}})}
	paths["/v2/datasets/{slug}/versions/{version}/jsonl"] = obj{"get": operation("getDatasetVersionJSONL", "A version as JSONL: a first line with the columns, then one object per row by column slug.", "datasets",
		obj{"200": obj{"description": "The JSONL.", "content": obj{"application/x-ndjson": obj{"schema": obj{"type": "string"}}}}, "404": notFound}, obj{"parameters": []obj{slug, ver}})}
	cell := []obj{slug, pathParam("row", "The row's id."), pathParam("column", "A file column's slug.")}
	paths["/v2/datasets/{slug}/rows/{row}/cells/{column}/upload-url"] = obj{"post": operation("datasetUploadURL", "An upload URL on evalcol for a file cell (valid 15 minutes, one PUT without a key).", "datasets",
		obj{"200": response("{upload_url, storage_key, expires_at, method}.", schemaRef("DatasetRow")), "400": errorResponse("Not a file column."), "404": notFound},
		obj{"parameters": cell, "requestBody": body("DatasetRow")})}
	paths["/v2/datasets/{slug}/rows/{row}/cells/{column}/upload-status"] = obj{"put": operation("datasetUploadStatus", "Confirm an upload (success sets the cell to the file's reference) or drop it (failed).", "datasets",
		obj{"200": response("{status, storage_key}.", schemaRef("DatasetRow")), "400": bad, "404": notFound, "409": errorResponse("Nothing was uploaded yet.")},
		obj{"parameters": cell, "requestBody": body("DatasetRow")})}
	paths["/v2/datasets/{slug}/rows/{row}/cells/{column}/external-url"] = obj{"post": operation("datasetExternalURL", "Record an external file URL in a file cell (never fetched).", "datasets",
		obj{"200": response("{storage_key, url}.", schemaRef("DatasetRow")), "400": bad, "404": notFound}, obj{"parameters": cell, "requestBody": body("DatasetRow")})}
	paths["/v2/uploads/{token}"] = obj{"put": obj{"operationId": "datasetUpload", "summary": "The bytes of a file cell, at an upload URL (the token is the credential; capped by max_request_body_size).",
		"tags": []string{"datasets"}, "security": []obj{}, "parameters": []obj{pathParam("token", "")},
		"requestBody": obj{"required": true, "content": obj{"application/octet-stream": obj{"schema": obj{"type": "string", "format": "binary"}}}},
		"responses":   obj{"200": obj{"description": "Stored."}, "404": errorResponse("No such upload."), "410": errorResponse("Expired or used."), "413": errorResponse("Too large.")}}}
}
