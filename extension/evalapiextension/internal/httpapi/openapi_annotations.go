package httpapi

// The annotation routes' part of the OpenAPI document (served by
// internal/annotationapi).

func annotationSchemas(schemas obj) {
	num := func(desc string) obj { return obj{"type": "number", "description": desc} }
	tag := object("One tag of a task.", obj{
		"name": typed("string", "1 to 64 of a-z, 0-9, '-' and '_'."), "type": obj{"type": "string", "enum": []string{"boolean", "number", "category", "text"}},
		"description": typed("string", ""), "min": num("number tags: the smallest value"), "max": num("number tags: the largest value"),
		"values": arrayOf(typed("string", ""), "category tags: the categories"), "required": typed("boolean", ""),
	}, "name", "type")
	schemas["AnnotationTag"] = tag
	schemas["AnnotationTaskRequest"] = object("An annotation task: the tags its annotations set.", obj{
		"slug": typed("string", "Unique in the key's organization and project."), "name": typed("string", ""), "description": typed("string", ""),
		"tags": arrayOf(schemaRef("AnnotationTag"), "1 to 32 tags."),
	}, "slug", "name", "tags")
	task := obj{
		"id": typed("string", ""), "slug": typed("string", ""), "name": typed("string", ""), "description": typed("string", ""),
		"tags": arrayOf(schemaRef("AnnotationTag"), ""), "created_at": typed("string", ""), "updated_at": typed("string", ""),
		"version": typed("integer", "Grows with every change."),
	}
	schemas["AnnotationTask"] = object("An annotation task.", task, all(task)...)
	schemas["AnnotationTaskList"] = object("A page of tasks in creation order.", obj{
		"annotation_tasks": arrayOf(schemaRef("AnnotationTask"), ""), "next_cursor": typed("string", "Empty on the last page."),
	}, "annotation_tasks", "next_cursor")
	schemas["AnnotationRequest"] = obj{"type": "object", "description": "An annotation, as Traceloop's SDKs send it (userFeedback.create).",
		"properties": obj{
			"entity_instance_id": typed("string", "A trace id, span id, or a value the app reported as an association property (traceloop.association.properties.<key>)."),
			"tags":               obj{"type": "object", "description": "Tag name → value: boolean, number, one category or a list of them, text."},
			"source":             typed("string", ""), "flow": typed("string", ""),
			"actor": object("", obj{"type": typed("string", ""), "id": typed("string", "")}),
		}, "required": []string{"entity_instance_id", "tags"}}
	ann := obj{
		"id": typed("string", ""), "annotation_task": typed("string", "The task's slug."), "entity_instance_id": typed("string", ""),
		"tags": obj{"type": "object"}, "source": typed("string", ""), "flow": typed("string", ""),
		"actor_type": typed("string", ""), "actor_id": typed("string", ""), "created_at": typed("string", ""),
	}
	schemas["Annotation"] = object("A stored annotation.", ann, all(ann)...)
	schemas["AnnotationList"] = object("Annotations, newest first.", obj{"annotations": arrayOf(schemaRef("Annotation"), "")}, "annotations")
}

func annotationPaths(paths obj) {
	body := func(name string) obj {
		return obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef(name)}}}
	}
	taskParam := []obj{pathParam("task", "The task's id or slug.")}
	notFound := errorResponse("No such task in the key's organization and project.")
	paths["/v2/annotation-tasks"] = obj{
		"get": operation("listAnnotationTasks", "The annotation tasks of the key's organization and project.", "annotations",
			obj{"200": response("A page of tasks.", schemaRef("AnnotationTaskList"))}, obj{"parameters": []obj{
				queryParam("limit", "integer", "Default 100, at most 500.", false), queryParam("cursor", "string", "The previous next_cursor.", false)}}),
		"post": operation("createAnnotationTask", "Create an annotation task.", "annotations",
			obj{"201": response("Created.", schemaRef("AnnotationTask")), "400": errorResponse("A bad field, named."), "409": errorResponse("The slug is taken.")},
			obj{"requestBody": body("AnnotationTaskRequest")}),
	}
	paths["/v2/annotation-tasks/{task}"] = obj{
		"get": operation("getAnnotationTask", "One task.", "annotations", obj{"200": response("The task.", schemaRef("AnnotationTask")), "404": notFound},
			obj{"parameters": taskParam}),
		"put": operation("updateAnnotationTask", "Replace a task's name, description and tags (and slug, when given).", "annotations",
			obj{"200": response("The task.", schemaRef("AnnotationTask")), "404": notFound, "409": errorResponse("The slug is taken, or the task changed meanwhile.")},
			obj{"parameters": taskParam, "requestBody": body("AnnotationTaskRequest")}),
		"delete": operation("deleteAnnotationTask", "Delete a task (its annotations stay, as metric points).", "annotations",
			obj{"204": obj{"description": "Deleted."}, "404": notFound}, obj{"parameters": taskParam}),
	}
	paths["/v2/annotation-tasks/{task}/annotations"] = obj{
		"post": operation("createAnnotation", "Annotate an entity: the tags are checked against the task; nothing is stored when one is bad.", "annotations",
			obj{"201": response("Stored.", schemaRef("Annotation")), "400": errorResponse("A bad tag or field, named."), "404": notFound},
			obj{"parameters": taskParam, "requestBody": body("AnnotationRequest")}),
		"get": operation("listAnnotations", "The task's annotations in the key's environment, newest first (at most 1 000 tag values).", "annotations",
			obj{"200": response("The annotations.", schemaRef("AnnotationList")), "404": notFound},
			obj{"parameters": append(append([]obj{}, taskParam...), queryParam("entity_instance_id", "string", "Only the annotations of this entity.", false))}),
	}
}
