package server

import (
	"net/http"
	"testing"
)

func TestNewHTTPServer(t *testing.T) {
	hs := NewHTTPServer(http.NotFoundHandler())
	if hs.ReadHeaderTimeout <= 0 || hs.IdleTimeout <= 0 || hs.MaxHeaderBytes <= 0 {
		t.Errorf("unbounded: header timeout %v, idle timeout %v, header bytes %d", hs.ReadHeaderTimeout, hs.IdleTimeout, hs.MaxHeaderBytes)
	}
	if hs.WriteTimeout != 0 || hs.ReadTimeout != 0 {
		// A read timeout also cancels a streaming reply's context once it
		// passes; a write timeout cuts long replies.
		t.Errorf("read timeout %v, write timeout %v: streaming replies would be cut", hs.ReadTimeout, hs.WriteTimeout)
	}
}
