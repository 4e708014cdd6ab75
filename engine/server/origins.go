package server

import (
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
)

// Browser origins and Host names, as Ollama checks them. A web page may
// call the API when its origin is allowed: by default the pages of this
// machine (http and https on localhost, 127.0.0.1, [::1] and 0.0.0.0, any
// port), desktop app shells (app://, file://, tauri://, vscode-webview://,
// vscode-file://) and browser extensions; Config.CORSOrigins adds more. A
// request that reaches the API on a loopback address must name this
// machine in its Host header: a page of another site whose name an
// attacker points at 127.0.0.1 (DNS rebinding) sends its own name and is
// refused.

// defaultOrigins are the origin patterns allowed without configuration;
// "*" stands for any text (a port, an extension id).
var defaultOrigins = []string{
	"http://localhost", "https://localhost", "http://localhost:*", "https://localhost:*",
	"http://127.0.0.1", "https://127.0.0.1", "http://127.0.0.1:*", "https://127.0.0.1:*",
	"http://[::1]", "https://[::1]", "http://[::1]:*", "https://[::1]:*",
	"http://0.0.0.0", "https://0.0.0.0", "http://0.0.0.0:*", "https://0.0.0.0:*",
	"app://*", "file://*", "tauri://*", "vscode-webview://*", "vscode-file://*",
	"chrome-extension://*", "moz-extension://*", "safari-extension://*", "safari-web-extension://*", "ms-browser-extension://*",
}

// originMatches reports whether origin matches pattern: equal but for
// case, or, when pattern has one "*", starting with what comes before it
// and ending with what comes after ("*" alone matches any origin); a "*"
// after a colon is a port, digits only.
func originMatches(pattern, origin string) bool {
	pattern, origin = strings.ToLower(pattern), strings.ToLower(origin)
	before, after, wild := strings.Cut(pattern, "*")
	if !wild {
		return pattern == origin
	}
	if len(origin) < len(before)+len(after) || !strings.HasPrefix(origin, before) || !strings.HasSuffix(origin, after) {
		return false
	}
	star := origin[len(before) : len(origin)-len(after)]
	return !strings.HasSuffix(before, ":") || (star != "" && strings.Trim(star, "0123456789") == "")
}

// originAllowed reports whether a page of origin may call the API.
func (s *Server) originAllowed(origin string) bool {
	for _, list := range [][]string{defaultOrigins, s.cfg.CORSOrigins} {
		for _, p := range list {
			if originMatches(p, origin) {
				return true
			}
		}
	}
	return false
}

// hostAllowed reports whether r may be answered: it came in on an address
// other than loopback (the API was exposed on purpose, behind its keys) or
// on none (the handler called in process), or its Host names this
// machine: a loopback, private or local address, localhost, this
// machine's name, a .localhost, .local or .internal name, or one of
// Config.Hosts.
func (s *Server) hostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return true
	}
	if ap, err := netip.ParseAddrPort(local.String()); err == nil && !ap.Addr().Unmap().IsLoopback() {
		return true
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		return ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() || ip.IsLinkLocalUnicast() || localIP(ip)
	}
	if host == "" || host == "localhost" {
		return true
	}
	for _, tld := range []string{".localhost", ".local", ".internal"} {
		if strings.HasSuffix(host, tld) {
			return true
		}
	}
	if name, err := os.Hostname(); err == nil && host == strings.ToLower(name) {
		return true
	}
	for _, h := range s.cfg.Hosts {
		if host == strings.ToLower(strings.Trim(h, "[]")) {
			return true
		}
	}
	return false
}

// localIP reports whether ip is an address of one of this machine's
// network interfaces.
func localIP(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == ip {
			return true
		}
	}
	return false
}

// refuse writes a refusal of the request before it reaches its handler, in
// the error shape of the dialect its path belongs to.
func refuse(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	switch {
	case strings.HasPrefix(r.URL.Path, "/api/"):
		writeJSON(w, status, map[string]any{"error": msg})
	case strings.HasPrefix(r.URL.Path, "/v1/messages"):
		typ := "permission_error"
		if status == http.StatusUnauthorized {
			typ = "authentication_error"
		}
		writeJSON(w, status, map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	default:
		writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": code}})
	}
}
