// Package library is Saji's local model store: the GGUF files of one
// folder (the app's XDG data "models" folder), plus models added by
// reference to files elsewhere on disk, per-model presets and the default
// model, all kept in a small JSON index inside that folder.
//
// Imports are validated first (a GGUF file of an architecture Saji can
// load), copies land in the folder under a temporary name and are renamed
// into place only once complete and synced, so a cancelled or failed
// import never leaves a half-written model behind.
package library
