package e2etest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/evalcol/evalcol/internal/testcollector"
)

// pythonClient runs e2e/traceloop-py (a stdlib-only port of the Python
// client of Traceloop's hosted API, traceloop/tenant-evals-integration)
// against a collector.
type pythonClient struct {
	t      *testing.T
	python string
	dir    string
	base   string
	home   string
}

func newPythonClient(t *testing.T, c *testcollector.Collector) pythonClient {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "e2e", "traceloop-py"))
	if err != nil {
		t.Fatal(err)
	}
	return pythonClient{t: t, python: python, dir: dir, base: "http://" + c.API, home: t.TempDir()}
}

// run runs a script of the client with token and returns its output and
// whether it exited 0.
func (p pythonClient) run(token string, env []string, args ...string) (string, bool) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.python, args...)
	cmd.Dir = p.dir
	cmd.Env = append([]string{"EVALS_API_BASE_URL=" + p.base, "EVALS_API_AUTH_TOKEN=" + token, "HOME=" + p.home,
		"PATH=" + os.Getenv("PATH"), "PYTHONDONTWRITEBYTECODE=1"}, env...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		p.t.Fatalf("%v timed out: %s", args, out)
	}
	return string(out), err == nil
}

// cli runs an evals-cli command that must succeed.
func (p pythonClient) cli(token string, args ...string) string {
	p.t.Helper()
	out, ok := p.run(token, nil, append([]string{"evals-cli"}, args...)...)
	if !ok {
		p.t.Fatalf("evals-cli %s failed:\n%s", strings.Join(args, " "), out)
	}
	return out
}

// cliJSON runs an evals-cli command and decodes its JSON output (after
// any header line).
func (p pythonClient) cliJSON(token string, v any, args ...string) {
	p.t.Helper()
	out := p.cli(token, args...)
	i := strings.IndexAny(out, "[{")
	if i < 0 || json.Unmarshal([]byte(out[i:]), v) != nil {
		p.t.Fatalf("evals-cli %s printed no JSON:\n%s", strings.Join(args, " "), out)
	}
}

// TestTraceloopPythonClient: every command of the Python client written
// for Traceloop's hosted API (organizations, monitor setups, monitoring
// status, metrics, the demo and the sample app) runs unchanged against
// evalcol, with an admin key and with the keys it creates.
func TestTraceloopPythonClient(t *testing.T) {
	c := testcollector.Start(t, withAdminKey(t, testcollector.DefaultConfig))
	py := newPythonClient(t, c)
	admin := "Bearer " + adminKey

	// configure writes the config file the other commands fall back to.
	py.cli("", "configure", "--base-url", py.base, "--auth-token", admin)
	if data, err := os.ReadFile(filepath.Join(py.home, ".evals-cli", "config")); err != nil || !strings.Contains(string(data), "auth_token="+admin) {
		t.Fatalf("configure wrote %q, %v", data, err)
	}

	// org create, with the admin key; a tenant key is refused.
	var org struct {
		OrgID        string `json:"org_id"`
		Environments []struct {
			Slug   string `json:"slug"`
			APIKey string `json:"api_key"`
		} `json:"environments"`
	}
	py.cliJSON(admin, &org, "org", "create", "-n", "My Organization", "-e", "dev", "-e", "prd", "--json")
	if org.OrgID == "" || len(org.Environments) != 2 || org.Environments[0].Slug != "dev" {
		t.Fatalf("org create = %+v", org)
	}
	if out, ok := py.run(testcollector.DefaultAPIKey, nil, "evals-cli", "org", "create", "-n", "Nope"); ok || !strings.Contains(out, "Not allowed to create organizations.") {
		t.Errorf("org create with a tenant key: ok=%v\n%s", ok, out)
	}
	dev := org.Environments[0].APIKey // without "Bearer ": the client adds it

	// setup create: an unknown Traceloop evaluator id and two evaluator
	// types, one of them Traceloop's name for faithfulness.
	var setup struct {
		ID         string `json:"id"`
		Status     string `json:"status"`
		Evaluators []struct {
			EvaluatorType string `json:"evaluator_type"`
			Status        string `json:"status"`
			ErrorMessage  string `json:"error_message"`
		} `json:"evaluators"`
	}
	py.cliJSON(dev, &setup, "setup", "create", "-t", "workflow", "-v", "pirate_tech_joke_generator",
		"-e", "cmf2mpzh4002401zwcz9y0gke", "-T", "char-count", "-T", "hallucination")
	if setup.ID == "" || setup.Status != "partial" || len(setup.Evaluators) != 3 || setup.Evaluators[0].Status != "failed" ||
		setup.Evaluators[1].EvaluatorType != "char-count" || setup.Evaluators[2].EvaluatorType != "faithfulness" {
		t.Fatalf("setup create = %+v", setup)
	}
	var list []map[string]any
	py.cliJSON(dev, &list, "setup", "list", "--json")
	if len(list) != 1 || list[0]["id"] != setup.ID {
		t.Errorf("setup list = %v", list)
	}
	py.cliJSON(dev, &list, "setup", "list", "--entity-type", "workflow", "--json")
	if len(list) != 1 {
		t.Errorf("setup list --entity-type workflow = %v", list)
	}
	py.cliJSON(dev, &list, "setup", "list", "--entity-type", "agent", "--json")
	if len(list) != 0 {
		t.Errorf("setup list --entity-type agent = %v", list)
	}
	py.cliJSON(dev, &list, "setup", "list", "--status", "failed", "--json")
	if len(list) != 0 {
		t.Errorf("setup list --status failed = %v", list)
	}
	if out := py.cli(dev, "setup", "list"); !strings.Contains(out, setup.ID) || !strings.Contains(out, "Total: 1 setup(s)") {
		t.Errorf("setup list (table):\n%s", out)
	}
	if out := py.cli(dev, "setup", "get", setup.ID); !strings.Contains(out, `"pirate_tech_joke_generator"`) {
		t.Errorf("setup get:\n%s", out)
	}
	if out, ok := py.run(dev, nil, "evals-cli", "setup", "get", "non-existent-id-12345"); ok || !strings.Contains(out, "Setup 'non-existent-id-12345' not found.") {
		t.Errorf("setup get of a missing setup: ok=%v\n%s", ok, out)
	}
	// Other keys do not see it.
	py.cliJSON(org.Environments[1].APIKey, &list, "setup", "list", "--json")
	if len(list) != 0 {
		t.Errorf("the prd key lists dev's setups: %v", list)
	}

	// Spans of the workflow, sent with the dev key, get evaluated.
	time.Sleep(300 * time.Millisecond)
	chatWithKey(t, c, dev, "pirate_tech_joke_generator", "Why did the pirate go to school? To improve his arrrticulation.")
	var status struct {
		OrganizationID string   `json:"organization_id"`
		Environment    string   `json:"environment"`
		EvaluatedUpTo  *string  `json:"evaluated_up_to"`
		Latest         *string  `json:"latest_span_received"`
		LagInSeconds   int64    `json:"lag_in_seconds"`
		Status         string   `json:"status"`
		Reasons        []string `json:"reasons"`
	}
	testcollector.Eventually(t, 15*time.Second, func() bool {
		py.cliJSON(dev, &status, "monitoring", "status", "--json")
		return status.EvaluatedUpTo != nil
	}, "monitoring status with an evaluated span")
	if status.Status != "OK" || status.OrganizationID != org.OrgID || status.Environment != org.OrgID+"/dev" || status.Latest == nil {
		t.Errorf("monitoring status = %+v", status)
	}
	if out := py.cli(dev, "monitoring", "status"); !strings.Contains(out, "Monitoring Status: OK") || !strings.Contains(out, "Evaluated Up To: 20") {
		t.Errorf("monitoring status (table):\n%s", out)
	}

	// metrics list, both stored versions of the metrics client.
	from := fmt.Sprint(time.Now().Add(-time.Hour).Unix())
	var metrics struct {
		Metrics struct {
			Data []struct {
				MetricName string           `json:"metric_name"`
				Points     []map[string]any `json:"points"`
			} `json:"data"`
		} `json:"metrics"`
	}
	for _, args := range [][]string{
		{"metrics", "list", "-p", "default", "--from", from, "-n", "char-count.char_count", "--json"},
		{"metrics", "list", "-p", "ignored", "--unscoped", "--from", from, "-n", "char-count.char_count", "-e", "dev", "--json"},
	} {
		py.cliJSON(dev, &metrics, args...)
		if len(metrics.Metrics.Data) != 1 || len(metrics.Metrics.Data[0].Points) != 1 {
			t.Errorf("evals-cli %s = %+v, want one char-count point", strings.Join(args, " "), metrics)
		}
	}
	if out := py.cli(dev, "metrics", "list", "-p", "default", "--from", time.Now().Add(-time.Hour).Format("2006-01-02")); !strings.Contains(out, "char-count.char_count (1 points)") {
		t.Errorf("metrics list (table):\n%s", out)
	}
	if out, ok := py.run(dev, nil, "evals-cli", "metrics", "list", "-p", "demo-project", "--from", from); ok || !strings.Contains(out, "HTTP 404") {
		t.Errorf("metrics list of another project: ok=%v\n%s", ok, out)
	}

	// setup delete, then the demo (create, list, filtered list, get, 404).
	if out := py.cli(dev, "setup", "delete", setup.ID, "--yes"); !strings.Contains(out, "deleted successfully") {
		t.Errorf("setup delete:\n%s", out)
	}
	py.cliJSON(dev, &list, "setup", "list", "--json")
	if len(list) != 0 {
		t.Errorf("setups after delete = %v", list)
	}
	out := py.cli(dev, "demo", "--entity-value", "my-agent-name")
	for _, want := range []string{"Created successfully!", "Found 1 setup(s)", "Found 0 filtered setup(s)", "Retrieved successfully!", "Correctly returned 404 for non-existent setup"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}

	// The sample app: all four steps, the organization's key found in the
	// answer of step 1.
	sample, ok := py.run(admin, []string{"EVALS_PROJECT_ID=default"}, "sample_app.py", "--json")
	if !ok {
		t.Fatalf("sample_app.py failed:\n%s", sample)
	}
	var steps struct {
		Organization struct {
			OrgID string `json:"org_id"`
		} `json:"organization"`
		Setup struct {
			Status     string           `json:"status"`
			Evaluators []map[string]any `json:"evaluators"`
		} `json:"setup"`
		Status struct {
			Status string `json:"status"`
		} `json:"status"`
		Metrics struct {
			Metrics map[string]any `json:"metrics"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(sample), &steps); err != nil {
		t.Fatalf("sample_app.py --json: %v\n%s", err, sample)
	}
	if steps.Organization.OrgID == "" || steps.Setup.Status != "pending" || len(steps.Setup.Evaluators) != 1 || steps.Status.Status != "OK" || steps.Metrics.Metrics == nil {
		t.Errorf("sample app = %+v", steps)
	}
}

// chatWithKey sends one chat span of workflow wf with key.
func chatWithKey(t *testing.T, c *testcollector.Collector, key, wf, completion string) {
	t.Helper()
	_, err := c.Send(testcollector.HTTP, key, nil, func(tr trace.Tracer) {
		_, span := tr.Start(context.Background(), "openai.chat "+wf)
		span.SetAttributes(
			attribute.String("gen_ai.operation.name", "chat"),
			attribute.String("traceloop.workflow.name", wf),
			attribute.String("gen_ai.prompt.0.role", "user"),
			attribute.String("gen_ai.prompt.0.content", "Tell me a joke about pirates"),
			attribute.String("gen_ai.completion.0.role", "assistant"),
			attribute.String("gen_ai.completion.0.content", completion),
		)
		span.End()
	})
	if err != nil {
		t.Fatalf("send a chat span: %v", err)
	}
}
