// Package instance keeps Saji's desktop app to one running instance per
// user. The first launch claims the instance and listens; a later launch (a
// double-clicked .gguf file, `saji FILE.gguf`, the menu entry) hands its
// files to it and exits, and the running app imports them and comes to the
// front. The headless commands never claim it.
//
// The first instance holds an OS lock on instance.lock in the user's
// runtime folder (Dir) for as long as it runs. The lock dies with its
// process, so a crash leaves nothing that blocks the next launch: whoever
// takes the lock replaces the endpoint a crashed instance left. The
// endpoint is a Unix socket beside the lock (instance.sock) on Linux and
// macOS. On Windows it is a TCP socket on 127.0.0.1 whose port and a
// random token are in instance.json, in the per-user folder: Go's net
// package serves it without cgo or a named-pipe library, it works on every
// Windows Go supports and under Wine (AF_UNIX sockets need Windows 10 1803
// and Wine does not have them everywhere), and the token keeps other
// users' processes, which can reach a loopback port, from handing over
// files.
//
// The protocol is one request and one reply, each a line of JSON of at most
// MaxMessage bytes that starts with the protocol version (see Request).
package instance
