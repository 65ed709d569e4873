package agent

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// errorKeys are the keys under which tools and frameworks report an
// error: a non-empty, non-false value there is an error.
var errorKeys = map[string]bool{
	"error": true, "errors": true, "error_message": true, "errormessage": true, "exception": true,
	"traceback": true, "stacktrace": true, "stack_trace": true, "err": true, "fault": true,
}

// failedStatuses are status values that mean failure.
var failedStatuses = map[string]bool{
	"error": true, "failed": true, "failure": true, "fail": true, "exception": true, "timeout": true,
	"timed_out": true, "timedout": true, "denied": true, "rejected": true, "aborted": true, "cancelled": true,
	"canceled": true, "unauthorized": true, "forbidden": true, "not_found": true, "notfound": true, "invalid": true,
	"internal_error": true, "unavailable": true, "ko": true, "nok": true,
}

// textFailure finds failures in plain text: an exception or error
// message at the start of a line, a traceback, HTTP error statuses, and
// the phrases of failed operations.
var textFailure = regexp.MustCompile(`(?im)` +
	`^\s*(?:error|exception|fatal|failure|failed|traceback \(most recent call last\))\b|` +
	`^\s*[A-Za-z_.]*(?:Error|Exception)\s*:|` +
	`\b(?:HTTP(?:/\d(?:\.\d)?)?\s+|status(?:\s+code)?\s*[:=]?\s*)(?:4\d\d|5\d\d)\b|` +
	`\b(?:internal server error|bad gateway|service unavailable|gateway time-?out|too many requests|rate limit(?:ed)? exceeded)\b|` +
	`\b(?:permission denied|access denied|unauthori[sz]ed|forbidden|connection refused|connection reset|ECONNREFUSED|ETIMEDOUT|ENOTFOUND)\b|` +
	`\b(?:timed out|time-?out (?:error|exceeded|occurred))\b|` +
	`\b(?:command not found|no such file or directory|segmentation fault|out of memory|stack overflow)\b|` +
	`\b(?:failed to|unable to|could not|couldn't|cannot) (?:connect|execute|run|complete|process|find|load|parse|fetch|retrieve|read|write|open|access|reach|call|authenticate|resolve)\b|` +
	`\b(?:invalid|missing required) (?:argument|parameter|input|request|api key|token|credentials?)s?\b`)

// ToolFailure reports whether a tool's output says the call failed, and
// why. The output is read as JSON when it is JSON: an error key with a
// value (error, errors, exception, traceback, ...), a status or state of
// failure ("error", "failed", ...), success or ok false, is_error or
// isError true (Anthropic's and MCP's tool results), an HTTP status code
// of 400 or more, at any depth of objects (not inside arrays of results);
// a JSON string is read as text. Text fails on an error or exception
// line, a traceback, an HTTP error status, a network or permission
// failure, a timeout, or "failed to / unable to / could not" + an
// operation. An empty output is no failure.
func ToolFailure(output string) (bool, string) {
	s := strings.TrimSpace(output)
	if s == "" {
		return false, ""
	}
	var v any
	if json.Unmarshal([]byte(s), &v) == nil {
		if str, ok := v.(string); ok {
			return textFailed(str)
		}
		if failed, why := jsonFailed(v, 0); failed {
			return true, why
		}
		return false, ""
	}
	return textFailed(s)
}

func textFailed(s string) (bool, string) {
	if m := textFailure.FindString(s); m != "" {
		return true, fmt.Sprintf("the output says %q", strings.TrimSpace(m))
	}
	return false, ""
}

// jsonFailed looks for failure keys in objects, down to depth 4.
func jsonFailed(v any, depth int) (bool, string) {
	obj, ok := v.(map[string]any)
	if !ok || depth > 4 {
		return false, ""
	}
	for _, k := range SortedKeys(obj) {
		val := obj[k]
		lk := strings.ToLower(k)
		switch {
		case errorKeys[lk] && meaningful(val):
			return true, fmt.Sprintf("the output has %q: %s", k, short(val))
		case (lk == "status" || lk == "state" || lk == "result" || lk == "outcome") && isFailedStatus(val):
			return true, fmt.Sprintf("the output has %q: %s", k, short(val))
		case (lk == "success" || lk == "ok" || lk == "succeeded") && val == false:
			return true, fmt.Sprintf("the output has %q: false", k)
		case (lk == "is_error" || lk == "iserror" || lk == "failed" || lk == "has_error") && val == true:
			return true, fmt.Sprintf("the output has %q: true", k)
		case lk == "status_code" || lk == "statuscode" || lk == "http_status" || lk == "code" || (lk == "status" && isNumber(val)):
			if n, ok := val.(float64); ok && n >= 400 && n < 600 {
				return true, fmt.Sprintf("the output has %q: %g", k, n)
			}
		}
		if sub, ok := val.(map[string]any); ok {
			if failed, why := jsonFailed(sub, depth+1); failed {
				return true, why
			}
		}
	}
	return false, ""
}

func isNumber(v any) bool { _, ok := v.(float64); return ok }

func isFailedStatus(v any) bool {
	s, ok := v.(string)
	return ok && failedStatuses[strings.ToLower(strings.TrimSpace(strings.ReplaceAll(s, " ", "_")))]
}

// meaningful reports whether an error field holds something: not null,
// false, "", 0, [] or {}.
func meaningful(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		s := strings.ToLower(strings.TrimSpace(t))
		return s != "" && s != "none" && s != "null" && s != "false" && s != "0"
	case float64:
		return t != 0
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}

func short(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
