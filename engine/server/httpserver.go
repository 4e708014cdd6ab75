package server

import (
	"net/http"
	"time"
)

// Connection bounds of the HTTP server (see NewHTTPServer).
const (
	// headerTimeout bounds the time to read a request's headers: a client
	// that sends them a byte at a time loses its connection.
	headerTimeout = 10 * time.Second
	// idleTimeout bounds how long an idle keep-alive connection is kept.
	idleTimeout = 2 * time.Minute
	// maxHeaderBytes bounds a request's headers.
	maxHeaderBytes = 1 << 20
)

// NewHTTPServer returns the http.Server that serves h, with Saji's
// connection bounds: slow headers and idle keep-alive connections are
// dropped. There is no write timeout: a reply may stream for as long as
// the model writes.
func NewHTTPServer(h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: headerTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes}
}
