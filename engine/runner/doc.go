// Package runner runs models: it owns their lifecycle and their
// generations, for the app, the CLI and the HTTP server alike.
//
// Lifecycle: a Runner holds the loaded models. Models given to Add stay
// loaded; models of the library or a models folder load on first use
// (Runner.Model), unload after their keep-alive without requests, and make
// room for one another (least recently used first, never one that is
// generating): in RAM, and on the GPU for a model that asks for it
// automatically. When a model's GPU fails, every model on it is loaded
// again on the CPU, in place.
//
// Generation: Start (on a Runner, naming the model, or on a Model)
// tokenizes the request's prompt once (a chat rendered through the model's
// template, ChatML when it has none; a raw or fill-in-the-middle prompt;
// or tokens the caller already counted), checks everything about the
// request (sampling, stop strings, JSON schema, the context) and submits it
// to the model's continuous-batching scheduler. Every error in a request
// is returned by Start, before the caller has written anything. The
// returned Stream's Run then streams the text as it is decoded, holding
// back what may begin a stop string, and reports usage and the finish
// reason. One way down (request, tokens, scheduler), one way back (tokens,
// text, result).
package runner
