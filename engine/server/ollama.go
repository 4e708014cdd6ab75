package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"saji/engine/chat"
	"saji/engine/runner"
	"saji/engine/sample"
)

// The Ollama dialect: /api/version, /api/tags, /api/show, /api/ps,
// /api/chat, /api/generate and the embeddings, as Continue, Zed, VS Code
// Copilot and Open WebUI call them, and the model management of
// ollama_models.go. Responses stream as NDJSON (one JSON object a line),
// durations are nanoseconds and errors are {"error": "message"}.

// ollamaRoutes registers the Ollama dialect (/api/...).
func (s *Server) ollamaRoutes() {
	s.mux.HandleFunc("GET /api/version", s.handleOllamaVersion)
	s.mux.HandleFunc("GET /api/tags", s.handleOllamaTags)
	s.mux.HandleFunc("POST /api/show", s.handleOllamaShow)
	s.mux.HandleFunc("GET /api/ps", s.handleOllamaPS)
	s.mux.HandleFunc("POST /api/chat", s.handleOllamaChat)
	s.mux.HandleFunc("POST /api/generate", s.handleOllamaGenerate)
	s.mux.HandleFunc("POST /api/embed", s.handleOllamaEmbed)
	s.mux.HandleFunc("POST /api/embeddings", s.handleOllamaEmbeddings)
	s.ollamaModelRoutes()
}

// ollamaError writes err as an Ollama error object.
func ollamaError(w http.ResponseWriter, err error) {
	ae := classify(err)
	writeJSON(w, ae.status, map[string]any{"error": ae.msg})
}

// badRequest is a 400 with msg.
func badRequest(format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", msg: fmt.Sprintf(format, args...)}
}

// ollamaName is m's name as Ollama clients expect it, "name:tag".
func ollamaName(name string) string {
	if strings.Contains(name, ":") {
		return name
	}
	return name + runner.LatestTag
}

// ollamaDigest is a stable stand-in for Ollama's manifest digest: the
// SHA-256 of the file's path, size and modification time.
func ollamaDigest(m *runner.Model) string {
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%d\x00%d", m.Path, m.Info.Size, m.Info.Modified.UnixNano()))
	return hex.EncodeToString(h[:])
}

// parameterSize writes a parameter count as Ollama does: "8.0B", "135M".
func parameterSize(n int64) string {
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}} {
		if float64(n) >= u.div {
			v := float64(n) / u.div
			if v == math.Trunc(v) {
				return strconv.FormatFloat(v, 'f', 0, 64) + u.suffix
			}
			return strconv.FormatFloat(v, 'f', 1, 64) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// ollamaDetails is a model's "details" object.
type ollamaDetails struct {
	ParentModel       string   `json:"parent_model"`
	Format            string   `json:"format"`
	Family            string   `json:"family"`
	Families          []string `json:"families"`
	ParameterSize     string   `json:"parameter_size"`
	QuantizationLevel string   `json:"quantization_level"`
}

func detailsOf(m *runner.Model) ollamaDetails {
	return ollamaDetails{Format: "gguf", Family: m.Info.Arch, Families: []string{m.Info.Arch},
		ParameterSize: parameterSize(m.Info.Parameters), QuantizationLevel: m.Info.FileType}
}

// ollamaTag is an entry of /api/tags.
type ollamaTag struct {
	Name       string        `json:"name"`
	Model      string        `json:"model"`
	ModifiedAt time.Time     `json:"modified_at"`
	Size       int64         `json:"size"`
	Digest     string        `json:"digest"`
	Details    ollamaDetails `json:"details"`
}

// ollamaRunning is an entry of /api/ps.
type ollamaRunning struct {
	Name          string        `json:"name"`
	Model         string        `json:"model"`
	Size          int64         `json:"size"`
	Digest        string        `json:"digest"`
	Details       ollamaDetails `json:"details"`
	ExpiresAt     time.Time     `json:"expires_at"`
	SizeVRAM      int64         `json:"size_vram"`
	ContextLength int           `json:"context_length"`
}

func (s *Server) handleOllamaVersion(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"version": Version})
}

func (s *Server) handleOllamaTags(w http.ResponseWriter, r *http.Request) {
	models := []ollamaTag{}
	for _, m := range s.run.Catalog() {
		n := ollamaName(m.Name)
		models = append(models, ollamaTag{Name: n, Model: n, ModifiedAt: m.Info.Modified, Size: m.Info.Size,
			Digest: ollamaDigest(m), Details: detailsOf(m)})
	}
	for _, name := range s.routeNames() {
		n := ollamaName(name)
		models = append(models, ollamaTag{Name: n, Model: n, ModifiedAt: s.start})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

func (s *Server) handleOllamaPS(w http.ResponseWriter, r *http.Request) {
	// A model loaded for the server's life (saji serve -m) never
	// expires, which Ollama reports as an expiry far in the future.
	models := []ollamaRunning{}
	for _, m := range s.run.Models() {
		expires := m.ExpiresAt(s.run.DefaultKeepAlive()).UTC()
		if expires.IsZero() {
			expires = time.Now().UTC().AddDate(100, 0, 0)
		}
		n := ollamaName(m.Name)
		models = append(models, ollamaRunning{Name: n, Model: n, Size: m.Info.Size, Digest: ollamaDigest(m),
			Details: detailsOf(m), ExpiresAt: expires, SizeVRAM: m.VRAM(), ContextLength: m.Info.Context})
	}
	writeJSON(w, http.StatusOK, map[string]any{"models": models})
}

// ollamaShowRequest is the body of /api/show ("name" is the older field).
type ollamaShowRequest struct {
	Model   string `json:"model"`
	Name    string `json:"name"`
	Verbose bool   `json:"verbose"`
}

// ollamaShow is the answer of /api/show.
type ollamaShow struct {
	License      string         `json:"license"`
	Modelfile    string         `json:"modelfile"`
	Parameters   string         `json:"parameters"`
	Template     string         `json:"template"`
	Details      ollamaDetails  `json:"details"`
	ModelInfo    map[string]any `json:"model_info"`
	Capabilities []string       `json:"capabilities"`
	ModifiedAt   time.Time      `json:"modified_at"`
}

func (s *Server) handleOllamaShow(w http.ResponseWriter, r *http.Request) {
	var req ollamaShowRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		ollamaError(w, err)
		return
	}
	name := req.Model
	if name == "" {
		name = req.Name
	}
	m, err := s.run.Model(name)
	if err != nil {
		ollamaError(w, err)
		return
	}
	arch := m.Info.Arch
	// model_info holds the file's keys, as Ollama shows them: the context
	// is the one the model was trained with (clients size their prompts
	// by it); the one it serves with is /api/ps's context_length.
	trained := m.Info.ContextTrain
	if trained <= 0 {
		trained = m.Info.Context
	}
	caps := []string{"completion"}
	if m.Caps().Tools {
		caps = append(caps, "tools")
	}
	if m.CanInsert() {
		caps = append(caps, "insert")
	}
	caps = append(caps, "embedding") // /api/embed serves every model
	if m.Caps().Thinking {
		caps = append(caps, "thinking")
	}
	if m.Vision() {
		caps = append(caps, "vision")
	}
	writeJSON(w, http.StatusOK, ollamaShow{
		Modelfile: fmt.Sprintf("# Modelfile generated by Saji\nFROM %s\n", m.Path),
		Template:  m.Info.Template,
		Details:   detailsOf(m),
		ModelInfo: map[string]any{
			"general.architecture":     arch,
			"general.parameter_count":  m.Info.Parameters,
			"general.file_type":        m.Info.FileType,
			arch + ".context_length":   trained,
			arch + ".embedding_length": m.Info.Embd,
			arch + ".block_count":      m.Info.Layers,
		},
		Capabilities: caps,
		ModifiedAt:   m.Info.Modified,
	})
}

// ollamaInt is an integer option; like Ollama it accepts a JSON number
// with a fraction (Python clients send 2048.0) and drops the fraction. A
// number past ±2^62 counts as ±2^62: as a token count it means "no limit"
// (num_predict of 2^63-1 generates until the context is full), as a
// context size it is refused where the size is checked.
type ollamaInt int64

func (n *ollamaInt) UnmarshalJSON(b []byte) error {
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("options: want a number, not %s", b)
	}
	*n = ollamaInt(max(min(f, 1<<62), -(1 << 62)))
	return nil
}

// ollamaOptions are the model options a request may set. Unknown options
// (num_gpu, num_thread, mirostat, ...) are ignored, as Ollama does.
type ollamaOptions struct {
	NumCtx           *ollamaInt `json:"num_ctx"`
	NumPredict       *ollamaInt `json:"num_predict"`
	Stop             stopField  `json:"stop"`
	Temperature      *float32   `json:"temperature"`
	TopP             *float32   `json:"top_p"`
	TopK             *ollamaInt `json:"top_k"`
	MinP             *float32   `json:"min_p"`
	TypicalP         *float32   `json:"typical_p"`
	Seed             *ollamaInt `json:"seed"`
	RepeatPenalty    *float32   `json:"repeat_penalty"`
	RepeatLastN      *ollamaInt `json:"repeat_last_n"`
	PresencePenalty  *float32   `json:"presence_penalty"`
	FrequencyPenalty *float32   `json:"frequency_penalty"`
}

// ollamaDefaults are Ollama's sampling defaults: Saji's, with Ollama's
// top_p 0.9, min_p 0 and repeat_penalty 1.1 over the last 64 tokens.
func ollamaDefaults() sample.Params {
	p := sample.Defaults()
	p.TopP, p.MinP, p.RepeatPenalty, p.LastN = 0.9, 0, 1.1, 64
	return p
}

// sampling returns the sampler parameters of o; the runner's Start checks
// them.
func (o *ollamaOptions) sampling() sample.Params {
	p := ollamaDefaults()
	setF := func(dst *float32, v *float32) {
		if v != nil {
			*dst = *v
		}
	}
	setF(&p.Temperature, o.Temperature)
	setF(&p.TopP, o.TopP)
	setF(&p.MinP, o.MinP)
	setF(&p.TypicalP, o.TypicalP)
	setF(&p.RepeatPenalty, o.RepeatPenalty)
	setF(&p.PresencePenalty, o.PresencePenalty)
	setF(&p.FrequencyPenalty, o.FrequencyPenalty)
	if o.TopK != nil {
		p.TopK = max(0, int(*o.TopK))
	}
	if o.Seed != nil {
		p.Seed = int64(*o.Seed)
	}
	if o.RepeatLastN != nil {
		p.LastN = max(-1, int(*o.RepeatLastN)) // -1: the whole context, as in Ollama
	}
	return p
}

// ollamaCommon are the fields /api/chat and /api/generate share.
type ollamaCommon struct {
	Model     string          `json:"model"`
	Stream    *bool           `json:"stream"`
	Format    json.RawMessage `json:"format"`
	Options   ollamaOptions   `json:"options"`
	KeepAlive json.RawMessage `json:"keep_alive"` // how long the model stays loaded after the request
	Think     json.RawMessage `json:"think"`
	// LogProbs asks for each generated token's log-probability, and
	// TopLogProbs for that many alternatives each (0 to 20).
	LogProbs    bool `json:"logprobs"`
	TopLogProbs int  `json:"top_logprobs"`
}

// present reports whether a raw JSON field holds something other than
// null, "", [] or {}.
func present(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "", "null", `""`, "[]", "{}":
		return false
	}
	return true
}

// check refuses what Saji does not support yet, and a bad keep_alive.
func (c *ollamaCommon) check() error {
	if _, _, err := parseKeepAlive(c.KeepAlive); err != nil {
		return err
	}
	return nil
}

// parseKeepAlive reads Ollama's keep_alive: a duration string ("5m",
// "-1"), or a number of seconds; negative keeps the model loaded for ever,
// 0 unloads it after the request. ok is false when it is absent.
func parseKeepAlive(raw json.RawMessage) (d time.Duration, ok bool, err error) {
	if !present(raw) {
		return 0, false, nil
	}
	var secs float64
	if json.Unmarshal(raw, &secs) == nil {
		return time.Duration(secs * float64(time.Second)), true, nil
	}
	var str string
	if json.Unmarshal(raw, &str) != nil {
		return 0, false, badRequest("keep_alive must be a duration (\"5m\") or a number of seconds")
	}
	if n, err := strconv.ParseFloat(str, 64); err == nil {
		return time.Duration(n * float64(time.Second)), true, nil
	}
	d, err = time.ParseDuration(str)
	if err != nil {
		return 0, false, badRequest("keep_alive %q is not a duration", str)
	}
	return d, true, nil
}

// keepAliveFor applies the request's keep_alive to m. Call it once m is
// busy with the request: a short keep-alive set before could unload m
// between looking it up and submitting to it.
func (c *ollamaCommon) keepAliveFor(m *runner.Model) {
	if d, ok, err := parseKeepAlive(c.KeepAlive); err == nil && ok {
		m.SetKeepAlive(d)
	}
}

// genRequest builds the common part of a generation from c.
func (c *ollamaCommon) genRequest(m *runner.Model) (runner.Request, error) {
	var g runner.Request
	g.Sampling, g.Stop = c.Options.sampling(), c.Options.Stop
	if err := ollamaFormat(c.Format, &g); err != nil {
		return g, err
	}
	if c.TopLogProbs < 0 || c.TopLogProbs > 20 {
		return g, badRequest("top_logprobs must be between 0 and 20, not %d", c.TopLogProbs)
	}
	if c.LogProbs || c.TopLogProbs > 0 {
		g.LogProbs, g.TopLogProbs = true, c.TopLogProbs
	}
	if err := ollamaThink(c.Think, c.responseName(m), m, &g); err != nil {
		return g, err
	}
	return g, nil
}

// stream reports whether to stream (Ollama's default).
func (c *ollamaCommon) stream() bool { return c.Stream == nil || *c.Stream }

// responseName is the model name a response carries: the one requested,
// as Ollama echoes it.
func (c *ollamaCommon) responseName(m *runner.Model) string {
	if c.Model != "" {
		return c.Model
	}
	return ollamaName(m.Name)
}

// ollamaMessage is a chat message.
type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   oaiContent       `json:"content"`
	Images    []string         `json:"images"`
	ToolCalls []ollamaToolCall `json:"tool_calls"`
	ToolName  string           `json:"tool_name"`
	Thinking  string           `json:"thinking"`
}

type ollamaChatRequest struct {
	ollamaCommon
	Messages []ollamaMessage `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
}

type ollamaGenerateRequest struct {
	ollamaCommon
	Prompt   string          `json:"prompt"`
	Suffix   string          `json:"suffix"`
	System   string          `json:"system"`
	Template string          `json:"template"`
	Raw      bool            `json:"raw"`
	Images   []string        `json:"images"`
	Context  json.RawMessage `json:"context"`
}

// ollamaOut is an assistant message of a chat response.
type ollamaOut struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	Thinking  string           `json:"thinking,omitempty"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
}

// ollamaToolCall is a tool call of a chat message or a reply: the
// arguments as an object.
type ollamaToolCall struct {
	Function struct {
		Index     int             `json:"index,omitempty"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// ollamaToolCalls converts parsed calls to Ollama's shape.
func ollamaToolCalls(calls []chat.ToolCall) []ollamaToolCall {
	out := make([]ollamaToolCall, len(calls))
	for i, c := range calls {
		out[i].Function.Index = i
		out[i].Function.Name = c.Name
		args := json.RawMessage(argumentsJSON(c.Arguments))
		if !json.Valid(args) {
			args = json.RawMessage("{}")
		}
		out[i].Function.Arguments = args
	}
	return out
}

// ollamaMetrics are the counts and durations of a final response.
type ollamaMetrics struct {
	TotalDuration      time.Duration `json:"total_duration"`
	LoadDuration       time.Duration `json:"load_duration"`
	PromptEvalCount    int           `json:"prompt_eval_count"`
	PromptEvalDuration time.Duration `json:"prompt_eval_duration"`
	EvalCount          int           `json:"eval_count"`
	EvalDuration       time.Duration `json:"eval_duration"`
}

// ollamaResponse is a line of /api/chat (Message) or /api/generate
// (Response).
type ollamaResponse struct {
	Model      string     `json:"model"`
	CreatedAt  time.Time  `json:"created_at"`
	Message    *ollamaOut `json:"message,omitempty"`
	Response   *string    `json:"response,omitempty"`
	Thinking   string     `json:"thinking,omitempty"` // of /api/generate
	Done       bool       `json:"done"`
	DoneReason string     `json:"done_reason,omitempty"`
	// Context is the tokens of a generate's prompt and response (its last
	// line), for a request to continue from.
	Context []int32 `json:"context,omitempty"`
	*ollamaMetrics
	// LogProbs are the line's tokens' log-probabilities, when asked.
	LogProbs []chatLogProb `json:"logprobs,omitempty"`
}

// ollamaReply builds the lines of one response: chat messages or
// generate responses.
type ollamaReply struct {
	model string
	chat  bool
	// prompt, when not nil, is the prompt's tokens: the last line's
	// context is they and the reply's (/api/generate, not raw).
	prompt []int32
}

func (o ollamaReply) line(text string) ollamaResponse {
	r := ollamaResponse{Model: o.model, CreatedAt: time.Now().UTC()}
	if o.chat {
		r.Message = &ollamaOut{Role: "assistant", Content: text}
	} else {
		r.Response = &text
	}
	return r
}

// think adds the model's reasoning to a line r: the message's thinking
// in a chat, the response's in a generation.
func (o ollamaReply) think(r *ollamaResponse, thinking string) {
	if o.chat {
		r.Message.Thinking = thinking
	} else {
		r.Thinking = thinking
	}
}

func (o ollamaReply) final(text, reason string, mt *ollamaMetrics) ollamaResponse {
	r := o.line(text)
	r.Done, r.DoneReason, r.ollamaMetrics = true, reason, mt
	return r
}

// ndjson writes a stream of JSON lines.
type ndjson struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newNDJSON(w http.ResponseWriter) *ndjson {
	h := w.Header()
	h.Set("Content-Type", "application/x-ndjson")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &ndjson{w: w, rc: http.NewResponseController(w)}
}

// send writes v as one line and flushes it.
func (n *ndjson) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	if _, err := n.w.Write(append(b, '\n')); err != nil {
		return err
	}
	return n.rc.Flush()
}

func (s *Server) handleOllamaChat(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req ollamaChatRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		ollamaError(w, err)
		return
	}
	m, err := s.run.Model(req.Model)
	if err != nil {
		ollamaError(w, err)
		return
	}
	out := ollamaReply{model: req.responseName(m), chat: true}
	if len(req.Messages) == 0 { // Ollama's "load the model" call
		writeJSON(w, http.StatusOK, out.final("", "load", nil))
		return
	}
	if err := req.check(); err != nil {
		ollamaError(w, err)
		return
	}
	g, err := req.genRequest(m)
	if err != nil {
		ollamaError(w, err)
		return
	}
	if present(req.Tools) {
		if err := tools(&g, req.Tools, nil, nil); err != nil {
			ollamaError(w, err)
			return
		}
	}
	if g.Messages, err = ollamaMessages(req.Messages, s.images(r.Context())); err != nil {
		ollamaError(w, err)
		return
	}
	s.ollamaGenerate(w, r, m, g, &req.ollamaCommon, out, start)
}

// ollamaMessages converts a chat's messages to the template's, their
// pictures read by ir.
func ollamaMessages(msgs []ollamaMessage, ir *imageReader) ([]chat.Message, error) {
	var out []chat.Message
	for i, msg := range msgs {
		cm := chat.Message{Role: msg.Role, Name: msg.ToolName, ReasoningContent: msg.Thinking}
		if err := msg.Content.apply(&cm, fmt.Sprintf("messages[%d].content", i), ir); err != nil {
			return nil, err
		}
		if len(msg.Images) > 0 {
			// The pictures come before the text, as Ollama places them.
			parts, err := ollamaImages(msg.Images, fmt.Sprintf("messages[%d].images", i), ir)
			if err != nil {
				return nil, err
			}
			if cm.Parts == nil {
				cm.Parts = []chat.ContentPart{{Type: "text", Text: cm.Content}}
			}
			cm.Parts, cm.Content = append(parts, cm.Parts...), ""
		}
		for _, tc := range msg.ToolCalls {
			// The arguments go to the template as JSON text, which chat
			// decodes keeping the keys' order.
			args := json.RawMessage("{}")
			if present(tc.Function.Arguments) {
				var obj map[string]json.RawMessage
				if err := json.Unmarshal(tc.Function.Arguments, &obj); err != nil {
					return nil, badRequest("messages[%d]: tool call arguments must be a JSON object", i)
				}
				args = tc.Function.Arguments
			}
			cm.ToolCalls = append(cm.ToolCalls, chat.ToolCall{Type: "function", Name: tc.Function.Name, Arguments: args})
		}
		out = append(out, cm)
	}
	return out, nil
}

// ollamaImages reads the base64 pictures of images (at where) into image
// parts.
func ollamaImages(images []string, where string, ir *imageReader) ([]chat.ContentPart, error) {
	parts := make([]chat.ContentPart, 0, len(images)+1)
	for j, b64 := range images {
		im, err := ir.base64(fmt.Sprintf("%s[%d]", where, j), b64)
		if err != nil {
			return nil, err
		}
		parts = append(parts, chat.ContentPart{Type: "image", Image: im})
	}
	return parts, nil
}

func (s *Server) handleOllamaGenerate(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req ollamaGenerateRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		ollamaError(w, err)
		return
	}
	m, err := s.run.Model(req.Model)
	if err != nil {
		ollamaError(w, err)
		return
	}
	out := ollamaReply{model: req.responseName(m)}
	if req.Prompt == "" && len(req.Images) == 0 { // Ollama's "load the model" call
		writeJSON(w, http.StatusOK, out.final("", "load", nil))
		return
	}
	if err := req.check(); err != nil {
		ollamaError(w, err)
		return
	}
	var images []chat.ContentPart
	if len(req.Images) > 0 {
		if images, err = ollamaImages(req.Images, "images", s.images(r.Context())); err != nil {
			ollamaError(w, err)
			return
		}
	}
	var past []int32 // the context of an earlier response, continued
	if present(req.Context) {
		if err := json.Unmarshal(req.Context, &past); err != nil {
			ollamaError(w, badRequest("context must be the list of token ids an earlier response returned"))
			return
		}
	}
	raw := req.Raw
	if t := strings.Join(strings.Fields(req.Template), ""); t != "" {
		// Ollama's templates are Go templates, Saji's are the GGUF file's
		// Jinja; the one override that means the same in both is the bare
		// prompt.
		if t != "{{.Prompt}}" {
			ollamaError(w, badRequest("template overrides are not supported (the model's chat template is used; raw: true sends the prompt as is)"))
			return
		}
		raw = true
	}
	g, err := req.genRequest(m)
	if err != nil {
		ollamaError(w, err)
		return
	}
	switch {
	case req.Suffix != "" && past != nil:
		ollamaError(w, badRequest("context and suffix cannot be combined"))
		return
	case images != nil && (req.Suffix != "" || past != nil):
		ollamaError(w, badRequest("images cannot be combined with a suffix or a context: send the conversation to /api/chat"))
		return
	case req.Suffix != "":
		g.Prompt, g.Suffix = req.Prompt, req.Suffix // fill in the middle
	case raw && past != nil:
		// A raw prompt continues the earlier response's tokens, as is (and
		// returns no context, as Ollama's does).
		g.Tokens = append(past, m.Tokenizer().Encode(req.Prompt, false, true)...)
	case raw:
		g.Prompt = req.Prompt
		for _, p := range images {
			g.Images = append(g.Images, *p.Image)
		}
	default:
		if req.System != "" {
			g.Messages = append(g.Messages, chat.Message{Role: "system", Content: req.System})
		}
		user := chat.Message{Role: "user", Content: req.Prompt}
		if images != nil {
			// The runner tokenizes the pictures with the prompt; the
			// response returns no context.
			user.Parts, user.Content = append(images, chat.ContentPart{Type: "text", Text: req.Prompt}), ""
			g.Messages = append(g.Messages, user)
			break
		}
		g.Messages = append(g.Messages, user)
		// The turn follows the earlier response's tokens (whose prefix the
		// cache holds), and the last line returns them all.
		toks, err := m.Prompt(r.Context(), g)
		if err != nil {
			ollamaError(w, err)
			return
		}
		if tk := m.Tokenizer(); past != nil && tk.AddBOS() && len(toks) > 0 && toks[0] == tk.BOS() {
			toks = toks[1:]
		}
		g.Tokens = append(past, toks...)
		out.prompt = g.Tokens
	}
	s.ollamaGenerate(w, r, m, g, &req.ollamaCommon, out, start)
}

// ollamaLimit sets g's token limit from the options: the generation stops
// at num_predict tokens or at the end of the context. A num_ctx larger
// than the model's context is clamped to it (Ollama would reload the model
// with the larger context; Saji's context is fixed when the model is
// loaded); a smaller one is honoured.
func ollamaLimit(g *runner.Request, o *ollamaOptions) {
	g.CutAtContext = true
	if o.NumCtx != nil && *o.NumCtx > 0 {
		g.Context = int(min(int64(*o.NumCtx), math.MaxInt32))
	}
	if o.NumPredict != nil && *o.NumPredict > 0 {
		g.MaxTokens = int(min(int64(*o.NumPredict), math.MaxInt32)) // -1, -2 and 0: until the end
	}
}

// ollamaGenerate runs g on m and writes the answer: NDJSON lines then a
// final one with the counts and durations, or one object when the
// request does not stream.
func (s *Server) ollamaGenerate(w http.ResponseWriter, r *http.Request, m *runner.Model, g runner.Request, c *ollamaCommon, out ollamaReply, start time.Time) {
	ctx := r.Context()
	ollamaLimit(&g, &c.Options)
	st, err := m.Start(ctx, g)
	if err != nil {
		ollamaError(w, err)
		return
	}
	// Once the request is submitted the model is busy, so a keep_alive of
	// 0 cannot unload it before the request runs.
	c.keepAliveFor(m)
	defer st.Close() // when the handler ends before reading it
	metrics := func(res runner.Result) *ollamaMetrics {
		return &ollamaMetrics{TotalDuration: max(time.Since(start), res.Total), PromptEvalCount: res.PromptTokens,
			PromptEvalDuration: res.PromptTime, EvalCount: res.CompletionTokens, EvalDuration: res.GenTime}
	}
	// reply are the generated tokens, for the last line's context and
	// logprobs.
	var reply []runner.Token
	finish := func(r ollamaResponse, all bool) ollamaResponse {
		if out.prompt != nil {
			r.Context = make([]int32, 0, len(out.prompt)+len(reply))
			r.Context = append(r.Context, out.prompt...)
			for _, t := range reply {
				r.Context = append(r.Context, t.ID)
			}
		}
		if all && c.LogProbs {
			r.LogProbs = chatLogProbs(reply)
		}
		return r
	}
	if !c.stream() {
		var text, thinking strings.Builder
		res, err := st.Run(func(p runner.Piece) error {
			text.WriteString(p.Text)
			thinking.WriteString(p.Reasoning)
			reply = append(reply, p.Tokens...)
			return nil
		})
		if err != nil {
			ollamaError(w, err)
			return
		}
		final := finish(out.final(text.String(), res.Finish, metrics(res)), true)
		out.think(&final, thinking.String())
		if len(res.ToolCalls) > 0 && final.Message != nil {
			final.Message.ToolCalls = ollamaToolCalls(res.ToolCalls)
		}
		writeJSON(w, http.StatusOK, final)
		return
	}
	nd := newNDJSON(w)
	res, err := st.Run(func(p runner.Piece) error {
		reply = append(reply, p.Tokens...)
		if p.Text == "" && p.Reasoning == "" && !(c.LogProbs && len(p.Tokens) > 0) {
			return nil
		}
		line := out.line(p.Text)
		out.think(&line, p.Reasoning)
		if c.LogProbs {
			line.LogProbs = chatLogProbs(p.Tokens)
		}
		return nd.send(line)
	})
	if err != nil {
		if ctx.Err() == nil { // a client still there hears why
			nd.send(map[string]any{"error": classify(err).msg})
		}
		return
	}
	if len(res.ToolCalls) > 0 && out.chat {
		line := out.line("")
		line.Message.ToolCalls = ollamaToolCalls(res.ToolCalls)
		nd.send(line)
	}
	nd.send(finish(out.final("", res.Finish, metrics(res)), false))
}
