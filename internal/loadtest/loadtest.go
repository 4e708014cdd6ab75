// Package loadtest measures a serving endpoint the way vLLM's
// benchmark_serving does: it sends a workload of streamed completions,
// stamps every streamed chunk, and reports request and token throughput and
// the latency distributions of the time to first token (TTFT), the time per
// output token after the first (TPOT), the inter-token latency (ITL) and the
// end-to-end latency.
//
// The engine is independent of the transport: a [Target] serves one
// streamed completion, and [Run] drives a workload of [Item] values through
// it. [HTTPTarget] speaks the OpenAI dialect (Saji's own server,
// llama-server, vLLM, Ollama's /v1); an in-process target can implement the
// same interface. [Summarize] turns the per-request records into the
// figures, which [WriteText] prints as a table and encoding/json as vLLM's
// result names.
package loadtest

import "context"

// Target serves one streamed completion.
//
// Stream sends req, calls emit for every streamed chunk that carries output
// (synchronously, from the calling goroutine, before it returns), and
// returns the token usage the server reported (zero fields when unknown).
// It returns an error when the request failed or ctx was cancelled.
type Target interface {
	Stream(ctx context.Context, req Request, emit func(Chunk)) (Usage, error)
}

// Request is one completion to serve.
type Request struct {
	// Prompt is the prompt text (the user message for a chat endpoint).
	Prompt string
	// MaxTokens is the number of tokens to generate at most.
	MaxTokens int
	// IgnoreEOS asks the server to keep generating past end-of-sequence,
	// so that every request produces MaxTokens tokens.
	IgnoreEOS bool
}

// Chunk is one streamed piece of output. The runner stamps the time when
// emit is called.
type Chunk struct {
	// Tokens is the number of tokens the chunk carries (usually 1).
	Tokens int
	// Text is the chunk's text.
	Text string
}

// Usage is the token usage a server reports for a request; a field is 0
// when unknown.
type Usage struct {
	PromptTokens, CompletionTokens int
}

// Item is one request of a workload.
type Item struct {
	// Prompt is the prompt text.
	Prompt string
	// PromptTokens is the prompt's length in tokens when a tokenizer
	// counted it, or 0 when unknown. The server's usage report, when
	// present, takes precedence.
	PromptTokens int
	// OutputLen is the number of tokens to generate (max_tokens).
	OutputLen int
}
