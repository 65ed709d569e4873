// Package httpjson holds what every /v2 handler package shares: JSON
// answers and errors, size-limited bodies read into one JSON object, and
// the route type by which a feature's package hands its handlers to the
// API, which authenticates them.
package httpjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
)

// Route is one path of a feature's API and its handler per method. The
// API serves it behind authentication (the tenant is in the request's
// context), answering 405 for other methods.
type Route struct {
	Pattern  string
	Handlers map[string]http.HandlerFunc
	// Public routes take no API key: the path itself is the capability
	// (an upload URL with a random token), checked by the handler.
	Public bool
}

// ErrorBody is the error response of every endpoint.
type ErrorBody struct {
	Error string `json:"error"`
}

// WriteError answers status with {"error": msg}.
func WriteError(w http.ResponseWriter, status int, msg string) {
	WriteJSON(w, status, ErrorBody{Error: msg})
}

// WriteJSON answers status with v as JSON.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// ReadBody reads a size-limited request body, answering 413 or 400 itself
// when it cannot (ok false).
func ReadBody(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			WriteError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds the limit of %d bytes", tooBig.Limit))
			return nil, false
		}
		WriteError(w, http.StatusBadRequest, "cannot read request body: "+err.Error())
		return nil, false
	}
	return body, true
}

// DecodeObject decodes body as one JSON object into v.
func DecodeObject(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("request body is empty: send a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("request body is not valid JSON: %w", err)
	}
	if dec.More() {
		return errors.New("request body has data after the JSON object")
	}
	return nil
}

// ReadObject reads a request body into v, answering 413 or 400 itself
// when it cannot (false).
func ReadObject(w http.ResponseWriter, r *http.Request, v any) bool {
	body, ok := ReadBody(w, r)
	if !ok {
		return false
	}
	if err := DecodeObject(body, v); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return false
	}
	return true
}

// ReadStrict is ReadObject refusing fields v does not have (400 naming
// the field), for bodies a person writes, where a typo should not pass.
func ReadStrict(w http.ResponseWriter, r *http.Request, v any) bool {
	body, ok := ReadBody(w, r)
	if !ok {
		return false
	}
	if err := DecodeObject(body, new(json.RawMessage)); err != nil {
		WriteError(w, http.StatusBadRequest, err.Error())
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		WriteError(w, http.StatusBadRequest, "request body: "+err.Error())
		return false
	}
	return true
}
