// Package download is Saji's download manager for large files (GGUF
// models) over HTTP(S).
//
// A file is fetched with a few parallel ranged requests into one .part
// file whose completed byte ranges are recorded in a small JSON state file,
// so a dropped connection resumes where it stopped and an app restart
// resumes where the last checkpoint left it. Requests are retried with
// exponential backoff and jitter; the free disk space is checked before a
// download starts; the sha256 of the whole file is checked before it is
// renamed into its destination, so the destination never holds a partial
// or corrupted file.
//
// A Manager runs a few jobs at once and queues the rest. Each Job can be
// paused, resumed, cancelled and waited on, and reports coalesced progress
// events (bytes, rate, ETA) that never slow the download down.
//
// The package is generic over URLs: it knows nothing about Hugging Face
// beyond following redirects (a resolve URL that points at a CDN) and
// sending the request's headers (a token) to the first host only.
package download
