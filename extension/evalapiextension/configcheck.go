package evalapiextension

import (
	"context"

	"go.opentelemetry.io/collector/extension/extensioncapabilities"

	"github.com/evalcol/evalcol/internal/configcheck"
)

var _ extensioncapabilities.ConfigSnapshotWatcher = (*evalAPI)(nil)

// NotifyConfigSnapshot refuses to start pipelines that would silently lose
// or mis-file what the warehouse exporter stores (see package
// configcheck): the collector calls it after the extensions started and
// before the pipelines do, and fails to start with its error. It also gives
// the OTLP proxy of the API port the receiver's body limit.
func (e *evalAPI) NotifyConfigSnapshot(_ context.Context, snapshot extensioncapabilities.ConfigSnapshot) error {
	conf := snapshot.Effective()
	if err := configcheck.Check(conf); err != nil {
		return err
	}
	e.learnProxyLimit(conf)
	return nil
}
