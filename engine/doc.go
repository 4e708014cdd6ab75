// Package engine is the root of everything that turns a GGUF file and a
// request into tokens: gguf (model files), tokenizer, chat, model,
// kvcache, sample, scheduler, server, hub, library, hardware and quantize.
// The engine never imports the GUI toolkit.
package engine
