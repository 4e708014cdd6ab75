// Package hub is Saji's client for the Hugging Face Hub HTTP API: it
// searches GGUF models, reads a repository's metadata, file tree (sizes and
// LFS sha256 hashes) and model card, builds download URLs, and groups a
// repository's GGUF files by quantization level (with shards and mmproj
// projectors) so the app and `saji pull` can offer and recommend a level.
//
// The endpoint and token come from HF_ENDPOINT and HF_TOKEN, as
// huggingface_hub reads them. The token is sent to the endpoint's host only,
// never to a CDN that a download is redirected to.
//
// The package hubtest next to this one is a fake hub for tests.
package hub
