// Package alertapi serves /v2/alerts: the alert rules of the key's
// environment (warehouse documents), each with its state and history, a
// test notification and silencing. The rules are evaluated by
// internal/alerting's runner.
package alertapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/evalcol/evalcol/extension/evalapiextension/internal/httpjson"
	"github.com/evalcol/evalcol/internal/alerting"
	"github.com/evalcol/evalcol/internal/randid"
	"github.com/evalcol/evalcol/internal/tenant"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// MaxRulesPerEnvironment bounds the rules of one environment.
const MaxRulesPerEnvironment = 200

// Service serves the alert routes.
type Service struct {
	store    warehouse.DocumentStore
	notifier *alerting.Notifier
	now      func() time.Time
}

// New returns the service; notifier holds the configured webhooks.
func New(store warehouse.DocumentStore, notifier *alerting.Notifier) *Service {
	return &Service{store: store, notifier: notifier, now: time.Now}
}

// Routes are the service's paths.
func (s *Service) Routes() []httpjson.Route {
	return []httpjson.Route{
		{Pattern: "/v2/alerts", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.list, http.MethodPost: s.create}},
		{Pattern: "/v2/alerts/{id}", Handlers: map[string]http.HandlerFunc{http.MethodGet: s.get, http.MethodPut: s.update, http.MethodDelete: s.delete}},
		{Pattern: "/v2/alerts/{id}/test", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.test}},
		{Pattern: "/v2/alerts/{id}/silence", Handlers: map[string]http.HandlerFunc{http.MethodPost: s.silence}},
	}
}

// Webhooks are the names of the configured webhooks, sorted.
func (s *Service) Webhooks() []string {
	var out []string
	if s.notifier != nil {
		for n := range s.notifier.Webhooks {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Service) webhookSet() map[string]bool {
	out := map[string]bool{}
	for _, n := range s.Webhooks() {
		out[n] = true
	}
	return out
}

// View is a rule with its state, as the API answers it.
type View struct {
	alerting.Rule
	State alerting.State `json:"state"`
}

func decodeRule(w http.ResponseWriter, r *http.Request) (alerting.Rule, bool) {
	var rule alerting.Rule
	return rule, httpjson.ReadStrict(w, r, &rule)
}

func storeError(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, warehouse.ErrNotFound):
		httpjson.WriteError(w, http.StatusNotFound, "alert rule not found")
	case errors.Is(err, warehouse.ErrConflict):
		httpjson.WriteError(w, http.StatusConflict, "the alert rule changed meanwhile; read it again")
	case warehouse.IsRetryable(err):
		httpjson.WriteError(w, http.StatusServiceUnavailable, "warehouse unavailable, retry later")
	default:
		httpjson.WriteError(w, http.StatusInternalServerError, "internal error")
	}
}

// Rules returns the rules of env with their states, in creation order.
func Rules(ctx context.Context, st warehouse.DocumentStore, env string) ([]View, error) {
	docs, err := st.ListDocuments(ctx, warehouse.DocumentQuery{Kind: alerting.RuleKind, Scope: env, Limit: MaxRulesPerEnvironment})
	if err != nil {
		return nil, err
	}
	out := make([]View, 0, len(docs))
	for _, d := range docs {
		v, err := view(ctx, st, env, d)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func view(ctx context.Context, st warehouse.DocumentStore, env string, d warehouse.Document) (View, error) {
	var v View
	if err := json.Unmarshal(d.Body, &v.Rule); err != nil {
		return v, fmt.Errorf("decode alert rule %s: %w", d.ID, err)
	}
	v.ID = d.ID
	_, state, err := alerting.LoadState(ctx, st, env, d.ID)
	v.State = state
	if v.State.History == nil {
		v.State.History = []alerting.Event{}
	}
	return v, err
}

func (s *Service) list(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	rules, err := Rules(r.Context(), s.store, t.Environment)
	if err != nil {
		storeError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"alerts": rules, "webhooks": s.Webhooks()})
}

// Create stores a new rule of env after validating it; the error is a
// *alerting.FieldError for a bad rule.
func (s *Service) Create(ctx context.Context, env string, rule alerting.Rule) (alerting.Rule, error) {
	rule.ID = randid.New()
	if err := rule.Validate(s.webhookSet()); err != nil {
		return rule, err
	}
	existing, err := s.store.ListDocuments(ctx, warehouse.DocumentQuery{Kind: alerting.RuleKind, Scope: env, Limit: MaxRulesPerEnvironment})
	if err != nil {
		return rule, err
	}
	if len(existing) >= MaxRulesPerEnvironment {
		return rule, &alerting.FieldError{Field: "alerts", Msg: fmt.Sprintf("this environment has %d rules, the most it may hold", MaxRulesPerEnvironment)}
	}
	body, _ := json.Marshal(rule)
	return rule, s.store.CreateDocument(ctx, warehouse.Document{Kind: alerting.RuleKind, Scope: env, ID: rule.ID, Body: body})
}

func (s *Service) create(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	rule, ok := decodeRule(w, r)
	if !ok {
		return
	}
	rule.SilencedUntil = nil
	rule, err := s.Create(r.Context(), t.Environment, rule)
	var fe *alerting.FieldError
	if errors.As(err, &fe) {
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		storeError(w, err)
		return
	}
	s.answer(w, r, t.Environment, rule.ID, http.StatusCreated)
}

func (s *Service) answer(w http.ResponseWriter, r *http.Request, env, id string, status int) {
	d, err := s.store.GetDocument(r.Context(), alerting.RuleKind, env, id)
	if err != nil {
		storeError(w, err)
		return
	}
	v, err := view(r.Context(), s.store, env, d)
	if err != nil {
		storeError(w, err)
		return
	}
	httpjson.WriteJSON(w, status, v)
}

func (s *Service) get(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	s.answer(w, r, t.Environment, r.PathValue("id"), http.StatusOK)
}

// change reads a rule, applies fn and stores it (compare-and-set).
func (s *Service) change(ctx context.Context, env, id string, fn func(*alerting.Rule) error) error {
	d, err := s.store.GetDocument(ctx, alerting.RuleKind, env, id)
	if err != nil {
		return err
	}
	var rule alerting.Rule
	if err := json.Unmarshal(d.Body, &rule); err != nil {
		return fmt.Errorf("decode alert rule %s: %w", id, err)
	}
	rule.ID = d.ID
	if err := fn(&rule); err != nil {
		return err
	}
	d.Body, _ = json.Marshal(rule)
	d.Version++
	return s.store.UpdateDocument(ctx, d)
}

func (s *Service) update(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	next, ok := decodeRule(w, r)
	if !ok {
		return
	}
	err := s.change(r.Context(), t.Environment, r.PathValue("id"), func(rule *alerting.Rule) error {
		next.ID, next.SilencedUntil = rule.ID, rule.SilencedUntil
		if err := next.Validate(s.webhookSet()); err != nil {
			return err
		}
		*rule = next
		return nil
	})
	var fe *alerting.FieldError
	if errors.As(err, &fe) {
		httpjson.WriteError(w, http.StatusBadRequest, err.Error())
		return
	}
	if err != nil {
		storeError(w, err)
		return
	}
	s.answer(w, r, t.Environment, r.PathValue("id"), http.StatusOK)
}

func (s *Service) delete(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	if err := s.store.DeleteDocument(r.Context(), alerting.RuleKind, t.Environment, r.PathValue("id")); err != nil {
		storeError(w, err)
		return
	}
	if err := s.store.DeleteDocument(r.Context(), alerting.StateKind, t.Environment, r.PathValue("id")); err != nil && !errors.Is(err, warehouse.ErrNotFound) {
		storeError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Silence mutes a rule of env for d (0: unmute).
func (s *Service) Silence(ctx context.Context, env, id string, d time.Duration) error {
	return s.change(ctx, env, id, func(rule *alerting.Rule) error {
		if d <= 0 {
			rule.SilencedUntil = nil
			return nil
		}
		until := s.now().Add(d).UTC()
		rule.SilencedUntil = &until
		return nil
	})
}

func (s *Service) silence(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	var req struct {
		Minutes int `json:"minutes"`
	}
	if !httpjson.ReadObject(w, r, &req) {
		return
	}
	if req.Minutes < 0 || req.Minutes > alerting.MaxWindowMinutes {
		httpjson.WriteError(w, http.StatusBadRequest, fmt.Sprintf("minutes: must be from 0 (unmute) to %d, got %d", alerting.MaxWindowMinutes, req.Minutes))
		return
	}
	if err := s.Silence(r.Context(), t.Environment, r.PathValue("id"), time.Duration(req.Minutes)*time.Minute); err != nil {
		storeError(w, err)
		return
	}
	s.answer(w, r, t.Environment, r.PathValue("id"), http.StatusOK)
}

// Test sends a test notification of a rule of env to its webhooks.
func (s *Service) Test(ctx context.Context, env, id string) ([]alerting.Delivery, error) {
	d, err := s.store.GetDocument(ctx, alerting.RuleKind, env, id)
	if err != nil {
		return nil, err
	}
	var rule alerting.Rule
	if err := json.Unmarshal(d.Body, &rule); err != nil {
		return nil, fmt.Errorf("decode alert rule %s: %w", id, err)
	}
	rule.ID = d.ID
	if s.notifier == nil {
		return []alerting.Delivery{}, nil
	}
	p := s.notifier.NewPayload(rule, env, alerting.Event{Kind: "test", Time: s.now()})
	p.Status = "test"
	return s.notifier.Send(ctx, rule.Notify, p), nil
}

func (s *Service) test(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	deliveries, err := s.Test(r.Context(), t.Environment, r.PathValue("id"))
	if err != nil {
		storeError(w, err)
		return
	}
	httpjson.WriteJSON(w, http.StatusOK, map[string]any{"deliveries": deliveries})
}
