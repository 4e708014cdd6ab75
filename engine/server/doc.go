// Package server is Saji's local API: the OpenAI (/v1/...) and Ollama
// (/api/...) dialects over the models of a runner.Runner, with API keys,
// CORS, Prometheus metrics and forwarding to remote OpenAI-compatible
// servers.
//
// The server owns no model: the runner loads, keeps and unloads them and
// runs their generations. A handler decodes its dialect's request into a
// runner.Request, calls Start (which returns every error in the request
// before the handler writes a header), then translates the stream of
// pieces and the result back into its dialect (JSON, SSE or NDJSON).
package server
