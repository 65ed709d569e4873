// Written by hand in the shape of mdatagen's generated_component_test.go
// (mdatagen is not served here): the extension is created by its factory
// on a temporary SQLite file and a free loopback port.

package evalapiextension_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/extensiontest"

	"github.com/evalcol/evalcol/extension/evalapiextension"
	"github.com/evalcol/evalcol/internal/evalapitest"
)

func TestComponentFactoryType(t *testing.T) {
	if got := evalapiextension.NewFactory().Type().String(); got != "evalapi" {
		t.Fatalf("type = %q, want evalapi", got)
	}
}

func TestComponentConfigStruct(t *testing.T) {
	if err := componenttest.CheckConfigStruct(evalapiextension.NewFactory().CreateDefaultConfig()); err != nil {
		t.Fatal(err)
	}
}

// TestComponentLifecycle shuts an extension down without starting it, then
// runs two create → start → shutdown cycles on the same warehouse file, as
// a collector restart does: the first serves the API and stores a setup,
// the second finds it.
func TestComponentLifecycle(t *testing.T) {
	factory := evalapiextension.NewFactory()
	cfg := evalapitest.NewConfig(filepath.Join(t.TempDir(), "evalcol.db"))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}

	t.Run("shutdown", func(t *testing.T) {
		e, err := factory.Create(context.Background(), extensiontest.NewNopSettings(factory.Type()), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("lifecycle", func(t *testing.T) {
		set, listener := evalapitest.NewSettings(nil)
		first, err := factory.Create(context.Background(), set, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := first.Start(context.Background(), componenttest.NewNopHost()); err != nil {
			t.Fatal(err)
		}
		url := listener.URL()
		if status, body := evalapitest.Call(t, "GET", url+"/healthz", nil); status != 200 {
			t.Fatalf("GET /healthz = %d %s, want 200", status, body)
		}
		status, body := evalapitest.Call(t, "POST", url+"/v2/auto-monitor-setups", map[string]any{
			"external_id": "lifecycle-1", "entity_type": "workflow", "entity_value": "lifecycle", "evaluators": []string{"char-count"},
		})
		if status != 201 {
			t.Fatalf("create setup = %d %s, want 201", status, body)
		}
		var created struct {
			ID string `json:"id"`
		}
		if err := json.Unmarshal(body, &created); err != nil || created.ID == "" {
			t.Fatalf("create setup answered %s (%v)", body, err)
		}
		if err := first.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}

		second, err := factory.Create(context.Background(), set, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := second.Start(context.Background(), componenttest.NewNopHost()); err != nil {
			t.Fatal(err)
		}
		if status, body := evalapitest.Call(t, "GET", listener.URL()+"/v2/auto-monitor-setups/"+created.ID, nil); status != 200 {
			t.Errorf("GET the setup after a restart = %d %s, want 200", status, body)
		}
		if err := second.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
