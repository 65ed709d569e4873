package warehouse

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// MonitorSetup is a stored auto monitor setup: evaluators bound to an
// entity (a workflow, agent, ...) of one environment. Its JSON form is the
// Auto monitor setup object of the /v2 API.
type MonitorSetup struct {
	ID           string `json:"id"`
	ExternalID   string `json:"external_id"`
	EntityType   string `json:"entity_type"`
	EntityValue  string `json:"entity_value"`
	OrgID        string `json:"org_id"`
	ProjectID    string `json:"project_id"`
	EnvProjectID string `json:"env_project_id"`
	// Environment is the tenant; it is not part of the API object.
	Environment string          `json:"-"`
	Status      string          `json:"status"`
	CreatedAt   time.Time       `json:"created_at"`
	UpdatedAt   time.Time       `json:"updated_at"`
	Evaluators  []SetupBinding  `json:"evaluators"`
	InitRules   []SetupInitRule `json:"init_rules"`
	Selector    json.RawMessage `json:"selector,omitempty"`
	SampleRate  float64         `json:"sample_rate"`
	Backfill    *BackfillState  `json:"backfill,omitempty"`
	// Level is "trace" for a setup whose evaluators run once on each
	// matching trace, QuietPeriodSec after its last span (evalcol's
	// extension; "" for spans).
	Level          string `json:"level,omitempty"`
	QuietPeriodSec int64  `json:"quiet_period_sec,omitempty"`
	// Version grows with every change; updates are compare-and-set on it.
	Version int64 `json:"-"`
}

// SetupBinding is one evaluator of a setup.
type SetupBinding struct {
	BindingID     string       `json:"binding_id"`
	EvaluatorID   string       `json:"evaluator_id"`
	EvaluatorType string       `json:"evaluator_type"`
	Status        string       `json:"status"`
	ErrorMessage  string       `json:"error_message"`
	ProcessedAt   *time.Time   `json:"processed_at"`
	InputSchema   []SchemaItem `json:"input_schema"`
	OutputSchema  []SchemaItem `json:"output_schema"`
}

// SchemaItem describes one input or output field of a bound evaluator.
type SchemaItem struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Description string   `json:"description"`
	Label       string   `json:"label"`
	EnumValues  []string `json:"enum_values,omitempty"`
}

// SetupInitRule is one span selection rule of a setup.
type SetupInitRule struct {
	Op        string `json:"op"`
	Source    string `json:"source"`
	Key       string `json:"key"`
	Value     string `json:"value"`
	ValueType string `json:"value_type"`
}

// BackfillState is the progress of evaluating stored spans for a setup.
type BackfillState struct {
	FromTimestampSec int64  `json:"from_timestamp_sec"`
	ToTimestampSec   int64  `json:"to_timestamp_sec"`
	Status           string `json:"status"` // pending, running, done, failed
	Scanned          int64  `json:"scanned"`
	Evaluated        int64  `json:"evaluated"`
	// Total is the number of spans in the window (known once the first
	// page was read).
	Total      int64      `json:"total"`
	Error      string     `json:"error,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
}

// SetupQuery selects setups of one environment.
type SetupQuery struct {
	Environment                                 string
	EntityType, EntityValue, ExternalID, Status string
	// Limit 0 means 100; Cursor is the ID after which to continue.
	Limit  int
	Cursor string
}

// SetupPage is one page of setups, ordered by creation.
type SetupPage struct {
	Setups []MonitorSetup
	// Cursors[i] continues the listing after Setups[i], so that a caller
	// may end a page early.
	Cursors    []string
	NextCursor string
}

// SetupStore stores auto monitor setups. Every method but AllSetups is
// scoped to one environment.
type SetupStore interface {
	// CreateSetup stores a new setup; ErrConflict when its external id is
	// taken in its project and environment (a setup without an external id
	// conflicts with none).
	CreateSetup(ctx context.Context, s MonitorSetup) error
	// GetSetup returns a setup; ErrNotFound when env has none with id.
	GetSetup(ctx context.Context, env, id string) (MonitorSetup, error)
	// ListSetups returns a page of env's setups.
	ListSetups(ctx context.Context, q SetupQuery) (SetupPage, error)
	// CountSetups returns the number of env's setups.
	CountSetups(ctx context.Context, env string) (int, error)
	// SetupBytes returns the bytes env's setups take: the sum of the
	// sizes of their JSON documents (json.Marshal of each), one aggregate
	// that decodes none of them.
	SetupBytes(ctx context.Context, env string) (int64, error)
	// UpdateSetup replaces a setup if its stored Version is
	// s.Version-1 (ErrConflict otherwise, ErrNotFound when gone).
	UpdateSetup(ctx context.Context, s MonitorSetup) error
	// DeleteSetup removes a setup; ErrNotFound when env has none with id.
	DeleteSetup(ctx context.Context, env, id string) error
	// AllSetups returns every setup of every environment, for the
	// processors that apply them.
	AllSetups(ctx context.Context) ([]MonitorSetup, error)
}

// SetupsVersioner is implemented by setup stores that can tell cheaply
// whether any setup changed, so that a collector need not read every
// setup at every poll.
type SetupsVersioner interface {
	// SetupsVersion returns a token that changes when a setup is created,
	// changed or deleted (one small aggregate).
	SetupsVersion(ctx context.Context) (string, error)
}

// Errors of the setup store.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)
