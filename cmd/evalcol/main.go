// Command evalcol is the evalcol OpenTelemetry Collector distribution: OTLP
// in, text evaluators over LLM spans, spans and evaluation results into a
// warehouse, and the Traceloop-compatible /v2 REST API.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"go.opentelemetry.io/collector/otelcol"

	"github.com/evalcol/evalcol/internal/distribution"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.2.0-dev"

func main() {
	os.Exit(run(os.Args[1:], os.Stderr))
}

// run runs the collector command with args and returns the exit code. An
// error (an invalid config, a port in use, ...) is printed to stderr as one
// line, so that it names its problem at a glance.
func run(args []string, stderr io.Writer) int {
	cmd := otelcol.NewCommand(distribution.Settings(version))
	cmd.SilenceErrors = true
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintf(stderr, "evalcol: %s\n", strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "))
		return 1
	}
	return 0
}
