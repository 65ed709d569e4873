package httpapi

import (
	"context"
	"net/http"

	"github.com/evalcol/evalcol/internal/monitoringstatus"
	"github.com/evalcol/evalcol/internal/tenant"
)

// StatusService answers the monitoring status of a tenant's environment
// (monitoringstatus.Reader).
type StatusService interface {
	Status(ctx context.Context, t tenant.Tenant) monitoringstatus.Status
}

// monitoringStatus answers GET /v2/monitoring/status: is evaluation
// keeping up in the key's environment?
func (a *API) monitoringStatus(w http.ResponseWriter, r *http.Request) {
	t, _ := tenant.FromContext(r.Context())
	writeJSON(w, http.StatusOK, a.opts.MonitoringStatus.Status(r.Context(), t))
}
