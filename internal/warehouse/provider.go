package warehouse

// Provider is implemented by the component that owns the store (the evalapi
// extension); the warehouse exporter finds it by component id.
type Provider interface {
	// Warehouse returns the store, nil before the owner has started.
	Warehouse() Store
}
