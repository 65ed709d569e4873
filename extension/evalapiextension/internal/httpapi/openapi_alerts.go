package httpapi

// The alert routes' part of the OpenAPI document (served by
// internal/alertapi).

func alertSchemas(schemas obj) {
	rule := obj{
		"id": typed("string", "Set by the server."), "name": typed("string", ""),
		"kind":      obj{"type": "string", "enum": []string{"pass_rate", "mean_score", "no_spans"}},
		"evaluator": typed("string", "pass_rate and mean_score: the evaluator slug."),
		"workflow":  typed("string", "Only this workflow's results (optional)."), "monitor": typed("string", "Only this monitor's results (optional)."),
		"threshold":      typed("number", "pass_rate: a percentage, fires below it; mean_score: a score."),
		"direction":      obj{"type": "string", "enum": []string{"below", "above"}, "description": "mean_score: fires below or above the threshold."},
		"window_minutes": typed("integer", "How far back the rule looks."), "min_evaluations": typed("integer", "Results a window needs to decide."),
		"repeat_minutes": typed("integer", "How often a firing rule notifies again (0: once)."),
		"notify":         arrayOf(typed("string", ""), "Names of webhooks of the collector's configuration."),
		"silenced_until": typed("string", "Notifications muted until then (POST .../silence)."),
	}
	schemas["AlertRuleRequest"] = object("An alert rule.", rule, "name", "kind", "window_minutes")
	delivery := object("One webhook's answer.", obj{"webhook": typed("string", ""), "status": typed("integer", ""), "attempts": typed("integer", ""), "error": typed("string", "")}, "webhook", "status", "attempts")
	schemas["AlertDelivery"] = delivery
	schemas["AlertEvent"] = object("A change of the rule.", obj{"time": typed("string", ""), "kind": obj{"type": "string", "enum": []string{"fired", "repeated", "resolved"}},
		"value": typed("number", ""), "count": typed("integer", ""), "silenced": typed("boolean", ""), "deliveries": arrayOf(schemaRef("AlertDelivery"), "")}, "time", "kind", "value", "count")
	state := obj{"status": obj{"type": "string", "enum": []string{"unknown", "no_data", "ok", "firing"}}, "since": typed("string", ""), "last_evaluated": typed("string", ""),
		"last_notified": typed("string", ""), "value": typed("number", "The last measurement: pass rate (%), mean score, or spans seen."),
		"count": typed("integer", ""), "history": arrayOf(schemaRef("AlertEvent"), "The last 50 events.")}
	schemas["AlertState"] = object("The rule's state.", state, "status", "history")
	withState := obj{}
	for k, v := range rule {
		withState[k] = v
	}
	withState["state"] = schemaRef("AlertState")
	schemas["AlertRule"] = object("An alert rule with its state.", withState, "id", "name", "kind", "state")
	schemas["AlertSilenceRequest"] = object("", obj{"minutes": typed("integer", "0 unmutes; at most 10080.")}, "minutes")
	schemas["AlertList"] = object("The environment's rules and the webhooks they may name.", obj{
		"alerts": arrayOf(schemaRef("AlertRule"), ""), "webhooks": arrayOf(typed("string", ""), "")}, "alerts", "webhooks")
}

func alertPaths(paths obj) {
	body := func(name string) obj {
		return obj{"required": true, "content": obj{"application/json": obj{"schema": schemaRef(name)}}}
	}
	id := []obj{pathParam("id", "The rule's id.")}
	notFound := errorResponse("No such rule in the key's environment.")
	paths["/v2/alerts"] = obj{
		"get": operation("listAlerts", "The alert rules of the key's environment with their states.", "alerts", obj{"200": response("The rules.", schemaRef("AlertList"))}, nil),
		"post": operation("createAlert", "Create an alert rule.", "alerts",
			obj{"201": response("Created.", schemaRef("AlertRule")), "400": errorResponse("A bad field, named; notify must name configured webhooks.")},
			obj{"requestBody": body("AlertRuleRequest")}),
	}
	paths["/v2/alerts/{id}"] = obj{
		"get": operation("getAlert", "One rule with its state and history.", "alerts", obj{"200": response("The rule.", schemaRef("AlertRule")), "404": notFound}, obj{"parameters": id}),
		"put": operation("updateAlert", "Replace a rule (its state and silence stay).", "alerts",
			obj{"200": response("The rule.", schemaRef("AlertRule")), "400": errorResponse("A bad field, named."), "404": notFound},
			obj{"parameters": id, "requestBody": body("AlertRuleRequest")}),
		"delete": operation("deleteAlert", "Delete a rule and its state.", "alerts", obj{"204": obj{"description": "Deleted."}, "404": notFound}, obj{"parameters": id}),
	}
	paths["/v2/alerts/{id}/test"] = obj{"post": operation("testAlert", "Send a test notification to the rule's webhooks.", "alerts",
		obj{"200": response("Each webhook's answer.", object("", obj{"deliveries": arrayOf(schemaRef("AlertDelivery"), "")}, "deliveries")), "404": notFound}, obj{"parameters": id})}
	paths["/v2/alerts/{id}/silence"] = obj{"post": operation("silenceAlert", "Mute the rule's notifications for some minutes (0 unmutes).", "alerts",
		obj{"200": response("The rule.", schemaRef("AlertRule")), "400": errorResponse("minutes out of range."), "404": notFound},
		obj{"parameters": id, "requestBody": body("AlertSilenceRequest")})}
}
