package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"saji/engine/runner"
)

// RoutedHeader names the model a routing model name chose, on the
// response.
const RoutedHeader = "X-Saji-Routed-To"

// Route is a routing model name: a request that names it goes to the
// model of the first rule it matches, else to Default. The model may be
// local, remote or an alias; the response names it (its model field and
// RoutedHeader).
type Route struct {
	// Rules are tried in order.
	Rules []RouteRule `json:"rules"`
	// Default takes the requests no rule matches.
	Default string `json:"default"`
}

// RouteRule sends the requests that meet all its conditions (those set)
// to Model. Lengths are in characters of the request's text (messages,
// system prompt, prompt), not tokens: the rule is read before a model, and
// so a tokenizer, is chosen.
type RouteRule struct {
	// Model takes the matching requests.
	Model string `json:"model"`
	// MinChars and MaxChars, when positive, bound the text's length.
	MinChars int `json:"min_chars,omitempty"`
	MaxChars int `json:"max_chars,omitempty"`
	// Tools and Images, when set, require the request to offer tools, or
	// to carry an image, (true) or not to (false).
	Tools  *bool `json:"tools,omitempty"`
	Images *bool `json:"images,omitempty"`
	// Match, when set, is a regular expression (Go's RE2 syntax) the last
	// user message must match somewhere.
	Match string `json:"match,omitempty"`

	re *regexp.Regexp
}

// ParseRoutes reads a routing file: a JSON object of routes by the model
// name that selects them, e.g.
//
//	{"auto": {"rules": [{"images": true, "model": "big"},
//	                    {"match": "(?i)prove|refactor", "model": "big"},
//	                    {"min_chars": 8000, "model": "big"}],
//	          "default": "small"}}
func ParseRoutes(data []byte) (map[string]Route, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var routes map[string]Route
	if err := dec.Decode(&routes); err != nil {
		return nil, fmt.Errorf("server: the routes: %w", err)
	}
	if len(routes) == 0 {
		return nil, errors.New("server: the routes: none is defined")
	}
	for name, rt := range routes {
		if err := rt.compile(name); err != nil {
			return nil, err
		}
		routes[name] = rt
	}
	return routes, nil
}

// compile checks rt, called name, and compiles its expressions.
func (rt *Route) compile(name string) error {
	if name == "" || strings.TrimSpace(name) != name {
		return fmt.Errorf("server: the route %q: a route needs a name without surrounding spaces", name)
	}
	if rt.Default == "" {
		return fmt.Errorf("server: the route %q has no default model", name)
	}
	rules := make([]RouteRule, len(rt.Rules))
	for i, rule := range rt.Rules {
		switch {
		case rule.Model == "":
			return fmt.Errorf("server: the route %q: rule %d names no model", name, i+1)
		case rule.Model == name:
			return fmt.Errorf("server: the route %q: rule %d routes to itself", name, i+1)
		case rule.MinChars < 0 || rule.MaxChars < 0 || (rule.MaxChars > 0 && rule.MaxChars < rule.MinChars):
			return fmt.Errorf("server: the route %q: rule %d: min_chars %d and max_chars %d make an empty range", name, i+1, rule.MinChars, rule.MaxChars)
		}
		if rule.Match != "" {
			re, err := regexp.Compile(rule.Match)
			if err != nil {
				return fmt.Errorf("server: the route %q: rule %d: %w", name, i+1, err)
			}
			rule.re = re
		}
		rules[i] = rule
	}
	if rt.Default == name {
		return fmt.Errorf("server: the route %q routes to itself", name)
	}
	rt.Rules = rules
	return nil
}

// choose returns the model for a request with features f.
func (rt *Route) choose(f requestFeatures) string {
	for _, rule := range rt.Rules {
		if rule.matches(f) {
			return rule.Model
		}
	}
	return rt.Default
}

// matches reports whether a request with features f meets every condition
// of rule.
func (rule *RouteRule) matches(f requestFeatures) bool {
	return (rule.MinChars <= 0 || f.chars >= rule.MinChars) &&
		(rule.MaxChars <= 0 || f.chars <= rule.MaxChars) &&
		(rule.Tools == nil || *rule.Tools == f.tools) &&
		(rule.Images == nil || *rule.Images == f.images) &&
		(rule.re == nil || rule.re.MatchString(f.lastUser))
}

// requestFeatures are what a route's rules look at in a request.
type requestFeatures struct {
	chars    int    // characters of the text: messages, system prompt, prompt
	tools    bool   // it offers tools
	images   bool   // it carries an image
	lastUser string // the text of its last user message (or its prompt)
}

// routedRequest is the part of a request body, in any of the API's
// dialects, that routing reads.
type routedRequest struct {
	Model        string            `json:"model"`
	Messages     []routedMessage   `json:"messages"`     // OpenAI, Ollama, Anthropic
	Input        json.RawMessage   `json:"input"`        // Responses: a string or items
	Prompt       json.RawMessage   `json:"prompt"`       // completions: a string or strings
	System       json.RawMessage   `json:"system"`       // Anthropic, Ollama's generate
	Instructions string            `json:"instructions"` // Responses
	Suffix       string            `json:"suffix"`
	Tools        []json.RawMessage `json:"tools"`
	Functions    []json.RawMessage `json:"functions"`
	Images       []json.RawMessage `json:"images"` // Ollama's generate
}

// routedMessage is a message of any dialect: its content a string or a
// list of parts; Ollama's images beside it.
type routedMessage struct {
	Role    string            `json:"role"`
	Content json.RawMessage   `json:"content"`
	Images  []json.RawMessage `json:"images"`
}

// features reads the routing features of a request body.
func features(v *routedRequest) requestFeatures {
	f := requestFeatures{tools: len(v.Tools) > 0 || len(v.Functions) > 0, images: len(v.Images) > 0}
	add := func(raw json.RawMessage) string {
		text, img := contentText(raw)
		f.chars += utf8.RuneCountInString(text)
		f.images = f.images || img
		return text
	}
	add(v.System)
	f.chars += utf8.RuneCountInString(v.Instructions) + utf8.RuneCountInString(v.Suffix)
	if p := add(v.Prompt); p != "" {
		f.lastUser = p
	}
	msgs := v.Messages
	if len(v.Input) > 0 {
		var s string
		if json.Unmarshal(v.Input, &s) == nil {
			f.chars += utf8.RuneCountInString(s)
			f.lastUser = s
		} else {
			var items []routedMessage
			json.Unmarshal(v.Input, &items)
			msgs = append(msgs, items...)
		}
	}
	for _, m := range msgs {
		text := add(m.Content)
		f.images = f.images || len(m.Images) > 0
		if m.Role == "user" || m.Role == "" {
			f.lastUser = text
		}
	}
	return f
}

// contentText returns the text of a content value (a string, a list of
// strings or of parts, as every dialect writes them) and whether it holds
// an image.
func contentText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 {
		return "", false
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, false
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		return "", false
	}
	var b strings.Builder
	img := false
	for _, p := range parts {
		var part struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(p, &s) == nil {
			part.Text = s
		} else if json.Unmarshal(p, &part) != nil {
			continue
		}
		switch part.Type {
		case "image_url", "image", "input_image":
			img = true
		}
		if part.Text != "" {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(part.Text)
		}
	}
	return b.String(), img
}

// route finds r's model among the routes and, when it names one, puts the
// chosen model in the body, which it reads (within the limit) and puts
// back, and on the response (RoutedHeader).
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if len(s.routing) == 0 || r.Method != http.MethodPost {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBody))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return // the handler reports it
	}
	var v routedRequest
	if json.Unmarshal(body, &v) != nil {
		return
	}
	name, rt, ok := s.routeOf(v.Model)
	if !ok {
		return
	}
	to := rt.choose(features(&v))
	var fields map[string]json.RawMessage
	if json.Unmarshal(body, &fields) != nil {
		return
	}
	fields["model"], _ = json.Marshal(to)
	if b, err := json.Marshal(fields); err == nil {
		body = b
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	w.Header().Set(RoutedHeader, to)
	s.metrics.routed.WithLabelValues(name, to).Inc()
}

// compileRoutes returns routes compiled, without those that are invalid,
// which it logs.
func compileRoutes(routes map[string]Route, log *slog.Logger) map[string]Route {
	out := make(map[string]Route, len(routes))
	for name, rt := range routes {
		if err := rt.compile(name); err != nil {
			log.Error("server: a route cannot serve", "err", err)
			continue
		}
		out[name] = rt
	}
	return out
}

// routeOf returns the route that name (or name without Ollama's :latest)
// selects.
func (s *Server) routeOf(name string) (string, *Route, bool) {
	for _, n := range []string{name, strings.TrimSuffix(name, runner.LatestTag)} {
		if rt, ok := s.routing[n]; ok {
			return n, &rt, true
		}
	}
	return "", nil, false
}

// routeNames returns the routing model names, sorted.
func (s *Server) routeNames() []string {
	var names []string
	for n := range s.routing {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
