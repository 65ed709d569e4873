// Package warehouseexporter is the warehouse exporter: it writes spans
// (with their normalised LLM content and evaluation results) and metric
// points (evaluation results and ingested OTLP metrics) into the warehouse
// owned by the evalapi extension.
package warehouseexporter
