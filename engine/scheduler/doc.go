// Package scheduler serves many generation requests on one model with
// continuous batching, the way vLLM does on a GPU, brought to a desktop.
//
// One goroutine runs the model in steps. Each step is ONE forward pass
// (model.ForwardBatch) over a batch that mixes the next token of every
// sequence that is generating with chunks of the prompts still being read
// (chunked prefill), up to a token budget. The weights are read once per
// step for all of them, which is where the throughput of many streams
// comes from on a machine whose decode speed is bound by memory bandwidth.
// Each sequence samples its next token with its own sampler settings, and
// its tokens stream out on its channel as they are made.
//
// Keys and values live in a paged cache (engine/kvcache blocks over one
// model.Cache sized by a memory budget). A new sequence first takes the
// longest cached chain of blocks of its prompt (prefix caching: a shared
// system prompt is computed once), then computes the rest. A finished or
// cancelled sequence leaves at once and frees its blocks. When the pool
// runs out of blocks, the newest running sequence is preempted: its blocks
// are freed and it waits at the head of the queue, to be recomputed (its
// full blocks usually still sit in the prefix cache) when room comes back;
// nobody fails for lack of memory unless one sequence alone does not fit.
//
// A prompt longer than the context, or a prompt plus max_tokens beyond it,
// is an error at submission, never a silent truncation.
//
// A hybrid model (recurrent layers beside attention, model.Recurrent) gives
// each running sequence a state slot of the cache; its prefix cache keeps
// snapshots of the state at block boundaries (snapshot.go), and it does not
// decode speculatively.
//
// A request with a Drafter decodes speculatively (spec.go): its drafted
// tokens run in the step beside its last token, and it keeps those its
// sampler agrees with, the output being the one of plain decoding.
package scheduler
