// Package server is Saji's local API: the OpenAI (/v1/...) and Ollama
// (/api/...) dialects over the models it has loaded, each served by its
// own continuous-batching scheduler.
//
// A Model is a loaded GGUF file with its tokenizer, chat template and
// scheduler. Model.Generate is the generation both dialects share: it
// renders a chat through the template (or takes a raw prompt), submits it
// to the scheduler, decodes the tokens as they come, holds back text that
// may begin a stop string, and reports usage and the finish reason. The
// dialects only translate requests and responses.
package server
