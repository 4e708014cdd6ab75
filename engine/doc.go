// Package engine is the root of everything that turns a GGUF file and a
// request into tokens: gguf (model files), tokenizer, chat, model,
// kvcache, sample, scheduler, runner (model lifecycle and generation),
// server (the HTTP dialects), offload, fit, hardware, hub, download,
// library and quantize. ARCHITECTURE.md at the repository's root is the
// map: what each package owns and the path of a request. The engine never
// imports the GUI toolkit.
package engine
