package app

import (
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// testClient is the HTTP client of the server tests.
var testClient = &http.Client{Timeout: 60 * time.Second}

// serverTestUI returns a test window whose server panel's ticker is
// stopped, so the test drives the refreshes itself.
func serverTestUI(t *testing.T) (*ui, *serverPanel) {
	t.Helper()
	u := newTestUI(t, &fakeGen{})
	p := u.server
	p.stopTicker()
	// The tests sample themselves (refresh): what the ticker sampled
	// before it stopped (the charts sample while the tab is hidden) goes.
	p.charts.mu.Lock()
	p.charts.speeds, p.charts.ttfts, p.charts.primed = nil, nil, false
	p.charts.mu.Unlock()
	t.Cleanup(func() { u.core.StopAPI() })
	return u, p
}

// startPanel taps Start and waits for the result.
func startPanel(t *testing.T, p *serverPanel) {
	t.Helper()
	test.Tap(p.toggle)
	p.wait()
}

// httpDo sends a request with an optional bearer key and returns the
// status and body.
func httpDo(t *testing.T, method, url, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServerStartStopAndFigures(t *testing.T) {
	u, p := serverTestUI(t)
	p.port.SetText("0")
	startPanel(t, p)
	url := u.core.APIURL()
	if url == "" || p.url != url {
		t.Fatalf("not running: status %q, core URL %q, panel URL %q", p.status.Text, url, p.url)
	}
	if !strings.Contains(p.status.Text, url) {
		t.Errorf("status %q does not show %s", p.status.Text, url)
	}
	if want := "OpenAI: " + url + "/v1, Ollama: " + url; p.endpoints.Text != want {
		t.Errorf("endpoints %q, want %q", p.endpoints.Text, want)
	}
	if !p.port.Disabled() || !p.host.Disabled() {
		t.Error("port and address are editable while the server runs")
	}
	if code, _ := httpDo(t, "GET", url+"/health", "", ""); code != http.StatusOK {
		t.Errorf("/health: %d", code)
	}
	if code, body := httpDo(t, "GET", url+"/v1/models", "", ""); code != http.StatusOK {
		t.Errorf("/v1/models: %d %s", code, body)
	}

	// A request through the API shows in the figures.
	e, err := u.core.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	code, body := httpDo(t, "POST", url+"/v1/chat/completions", "",
		`{"model": "`+e.Name+`", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 8}`)
	if code != http.StatusOK {
		t.Fatalf("chat completion: %d %s", code, body)
	}
	p.refresh()
	if !strings.Contains(p.models.Text, e.Name) {
		t.Errorf("loaded models %q, want %s", p.models.Text, e.Name)
	}
	if p.answered.Text != "1" {
		t.Errorf("requests answered %q, want 1", p.answered.Text)
	}
	if p.requests.Text != "0 running, 0 waiting" {
		t.Errorf("requests %q", p.requests.Text)
	}
	if p.speed.Text == "0.0 tokens/s" || !strings.HasSuffix(p.speed.Text, " tokens/s") {
		t.Errorf("speed %q, want some tokens/s", p.speed.Text)
	}
	if !strings.Contains(p.kvText.Text, "blocks") {
		t.Errorf("KV cache %q, want its blocks", p.kvText.Text)
	}
	if p.hitRate.Text == "-" {
		t.Errorf("hit rate %q once a model is loaded", p.hitRate.Text)
	}
	// The snippets name the loaded model and the API's URL.
	if !strings.Contains(p.snippetsKey, url) || !strings.Contains(p.snippetsKey, e.Name) {
		t.Errorf("snippets built from %q, want %s and %s", p.snippetsKey, url, e.Name)
	}
	// With nothing generated since, the speed falls to 0.
	p.refresh()
	if p.speed.Text != "0.0 tokens/s" {
		t.Errorf("speed %q after an idle second, want 0.0 tokens/s", p.speed.Text)
	}

	test.Tap(p.toggle)
	p.wait()
	if p.url != "" || u.core.APIURL() != "" || p.status.Text != "The server is stopped." {
		t.Errorf("after Stop: panel URL %q, core URL %q, status %q", p.url, u.core.APIURL(), p.status.Text)
	}
	if p.port.Disabled() {
		t.Error("port still disabled after Stop")
	}
	if _, err := testClient.Get(url + "/health"); err == nil {
		t.Error("the API still answers after Stop")
	}
}

func TestServerBadPort(t *testing.T) {
	for _, text := range []string{"70000", "-1", "port"} {
		t.Run(text, func(t *testing.T) {
			u, p := serverTestUI(t)
			p.port.SetText(text)
			startPanel(t, p)
			if !strings.Contains(p.status.Text, "0 to 65535") {
				t.Errorf("status %q, want the port's range", p.status.Text)
			}
			if u.core.APIURL() != "" {
				t.Error("the API started")
			}
		})
	}
}

func TestServerPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	u, p := serverTestUI(t)
	p.port.SetText(strconv.Itoa(port))
	startPanel(t, p)
	if !strings.Contains(p.status.Text, "already in use") || !strings.Contains(p.status.Text, strconv.Itoa(port)) {
		t.Errorf("status %q, want port %d in use", p.status.Text, port)
	}
	if u.core.APIURL() != "" || p.url != "" || p.toggle.Disabled() {
		t.Errorf("after a failed start: core URL %q, panel URL %q, button disabled %v", u.core.APIURL(), p.url, p.toggle.Disabled())
	}
	if got := u.core.Settings().Port; got != port {
		t.Errorf("saved port %d, want %d", got, port)
	}
}

func TestServerNetworkNeedsKey(t *testing.T) {
	u, p := serverTestUI(t)
	p.port.SetText("0")
	p.host.SetSelected(optionNetwork)
	if !p.hostWarning.Visible() || !strings.Contains(p.hostWarning.Text, "API key") {
		t.Errorf("no warning that the network needs a key: %q", p.hostWarning.Text)
	}
	startPanel(t, p)
	if p.status.Text != noKeyMessage || u.core.APIURL() != "" {
		t.Fatalf("started on the network without a key: status %q, URL %q", p.status.Text, u.core.APIURL())
	}
	// The core refuses too, whoever asks.
	p.wait()
	if _, err := u.core.StartAPI(); err == nil {
		u.core.StopAPI()
		t.Fatal("core.StartAPI served 0.0.0.0 without a key")
	} else if msg := startErrorMessage(err, "0.0.0.0", 0); msg != noKeyMessage {
		t.Errorf("the core's refusal reads %q", msg)
	}

	p.addKey()
	p.wait()
	key := p.keys[0]
	startPanel(t, p)
	url := u.core.APIURL()
	if url == "" {
		t.Fatalf("not running with a key: %q", p.status.Text)
	}
	local := apiClientURL(url)
	if _, port, _ := net.SplitHostPort(strings.TrimPrefix(url, "http://")); local != "http://127.0.0.1:"+port {
		t.Errorf("URL %q is reached at %q, want 127.0.0.1", url, local)
	}
	if !strings.Contains(p.status.Text, "local network") {
		t.Errorf("status %q does not say the network can connect", p.status.Text)
	}
	if !strings.Contains(p.endpoints.Text, local+"/v1") {
		t.Errorf("endpoints %q, want %s/v1", p.endpoints.Text, local)
	}
	if code, _ := httpDo(t, "GET", local+"/v1/models", "", ""); code != http.StatusUnauthorized {
		t.Errorf("without the key: %d, want 401", code)
	}
	if code, _ := httpDo(t, "GET", local+"/v1/models", "wrong", ""); code != http.StatusUnauthorized {
		t.Errorf("with a wrong key: %d, want 401", code)
	}
	if code, body := httpDo(t, "GET", local+"/v1/models", key, ""); code != http.StatusOK {
		t.Errorf("with the key: %d %s", code, body)
	}
	// The last key of a server on the network stays.
	p.removeKey(0)
	p.wait()
	if len(p.keys) != 1 || !strings.Contains(p.keysNote.Text, "Stop it") {
		t.Errorf("removed the last key of a network server: keys %v, note %q", p.keys, p.keysNote.Text)
	}
}

func TestServerKeys(t *testing.T) {
	k1, err := newAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := newAPIKey()
	if k1 == k2 {
		t.Error("two keys are equal")
	}
	hexPart, ok := strings.CutPrefix(k1, "sk-saji-")
	if !ok {
		t.Errorf("key %q lacks sk-saji-", k1)
	}
	if b, err := hex.DecodeString(hexPart); err != nil || len(b) != 24 {
		t.Errorf("key %q: %d random bytes (%v), want 24", k1, len(b), err)
	}
	if m := maskAPIKey(k1); strings.Contains(m, hexPart[8:40]) || !strings.HasPrefix(m, "sk-saji-") {
		t.Errorf("masked key %q shows too much", m)
	}

	u, p := serverTestUI(t)
	p.addKey()
	p.addKey()
	p.wait()
	if len(p.keys) != 2 {
		t.Fatalf("keys %v, want 2", p.keys)
	}
	if got := u.app.Clipboard().Content(); got != p.keys[1] {
		t.Errorf("clipboard %q, want the new key %q", got, p.keys[1])
	}
	if got := loadSettings(u.core.prefs).APIKeys; !slices.Equal(got, p.keys) {
		t.Errorf("saved keys %v, want %v", got, p.keys)
	}
	if len(p.keyRows.Objects) != 2 {
		t.Errorf("%d key rows, want 2", len(p.keyRows.Objects))
	}
	second := p.keys[1]
	p.removeKey(0)
	p.wait()
	if got := u.core.Settings().APIKeys; !slices.Equal(got, []string{second}) {
		t.Errorf("keys after removing the first: %v, want [%s]", got, second)
	}
	// The snippets take the first key.
	if !strings.Contains(p.snippetsKey, second) {
		t.Errorf("snippets built from %q, want the key", p.snippetsKey)
	}
}

func TestServerKeysRestartRunningAPI(t *testing.T) {
	u, p := serverTestUI(t)
	p.port.SetText("0")
	startPanel(t, p)
	url := u.core.APIURL()
	if url == "" {
		t.Fatalf("not running: %q", p.status.Text)
	}
	p.addKey()
	p.wait()
	url = u.core.APIURL()
	if url == "" || p.url != url || p.toggle.Disabled() {
		t.Fatalf("after a new key: core URL %q, panel URL %q, status %q", url, p.url, p.status.Text)
	}
	if code, _ := httpDo(t, "GET", url+"/v1/models", "", ""); code != http.StatusUnauthorized {
		t.Errorf("without the new key: %d, want 401", code)
	}
	if code, _ := httpDo(t, "GET", url+"/v1/models", p.keys[0], ""); code != http.StatusOK {
		t.Errorf("with the new key: %d, want 200", code)
	}
}

func TestServerCORS(t *testing.T) {
	u, p := serverTestUI(t)
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"https://example.com", true},
		{"http://localhost:3000/", true},
		{"*", true},
		{"example.com", false},
		{"https://example.com/page", false},
		{"not an origin", false},
	} {
		if err := checkCORSOrigin(strings.TrimSuffix(tc.in, "/")); (err == nil) != tc.ok {
			t.Errorf("checkCORSOrigin(%q) = %v, want ok %v", tc.in, err, tc.ok)
		}
	}
	p.corsEntry.SetText("example.com")
	p.addOrigin()
	if !p.corsNote.Visible() || !strings.Contains(p.corsNote.Text, "https://example.com") {
		t.Errorf("no plain message for a bad origin: %q", p.corsNote.Text)
	}
	if p.corsEntry.Text != "example.com" {
		t.Error("the bad origin was cleared")
	}
	p.port.SetText("0")
	startPanel(t, p)
	p.corsEntry.SetText("https://example.com/")
	p.addOrigin()
	p.wait()
	if p.corsNote.Visible() || p.corsEntry.Text != "" {
		t.Errorf("good origin: note %q shown %v, entry %q", p.corsNote.Text, p.corsNote.Visible(), p.corsEntry.Text)
	}
	url := u.core.APIURL()
	if url == "" {
		t.Fatalf("the API did not restart: %q", p.status.Text)
	}
	req, _ := http.NewRequest("GET", url+"/v1/models", nil)
	req.Header.Set("Origin", "https://example.com")
	resp, err := testClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "https://example.com" {
		t.Errorf("Access-Control-Allow-Origin %q after adding the origin", got)
	}
	if p.corsDanger.Visible() {
		t.Error("the warning about * shows without *")
	}
	p.corsEntry.SetText("*")
	p.addOrigin()
	p.wait()
	if !p.corsDanger.Visible() {
		t.Error("no warning about *")
	}
	if got := loadSettings(u.core.prefs).CORS; !slices.Equal(got, []string{"https://example.com", "*"}) {
		t.Errorf("saved origins %v", got)
	}
	p.removeOrigin(1)
	p.wait()
	if p.corsDanger.Visible() || !slices.Equal(u.core.Settings().CORS, []string{"https://example.com"}) {
		t.Errorf("after removing *: %v, warning %v", u.core.Settings().CORS, p.corsDanger.Visible())
	}
}

func TestServerStartAtLaunch(t *testing.T) {
	c := newTestCore(t)
	s := c.Settings()
	s.StartServer, s.Port = true, 0
	if err := c.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	u := newUI(test.NewTempApp(t), c, &fakeGen{})
	t.Cleanup(func() { u.win.Close() })
	u.server.stopTicker()
	u.start(nil)
	u.server.wait()
	if u.server.url == "" || c.APIURL() != u.server.url {
		t.Fatalf("the server did not start at launch: %q", u.server.status.Text)
	}
	// Stopped elsewhere (a failed restart), the panel follows at the next refresh.
	c.StopAPI()
	u.server.refresh()
	if u.server.url != "" || u.server.toggle.Text != "Start the server" {
		t.Errorf("panel still running after the API stopped: %q", u.server.status.Text)
	}
}

func TestServerCloseStopsTicker(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	u.server.close()
	u.server.stopTicker() // returns once the ticker has ended
	u.server.close()      // and again as the test's window closes
}

func TestServerSnippets(t *testing.T) {
	const url = "http://127.0.0.1:4321"
	const key = "sk-saji-0123456789abcdef"
	for _, tc := range []struct {
		name string
		in   snippetInputs
	}{
		{"no key", snippetInputs{URL: url, Model: "qwen-tiny", Context: 8192}},
		{"key", snippetInputs{URL: url, Key: key, Model: "qwen-tiny", Context: 8192}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			snips := editorSnippets(tc.in)
			var names []string
			for _, s := range snips {
				names = append(names, s.Name)
				all := s.Text + "\n" + s.Note
				if !strings.Contains(all, url) {
					t.Errorf("%s: no URL in %q", s.Name, all)
				}
				if !strings.Contains(all, "qwen-tiny") && s.Name != "Open WebUI" {
					t.Errorf("%s: no model name in %q", s.Name, all)
				}
				if tc.in.Key != "" && !strings.Contains(all, key) {
					t.Errorf("%s: no key in %q", s.Name, all)
				}
				if tc.in.Key == "" && strings.Contains(all, "sk-saji") {
					t.Errorf("%s: a key without one: %q", s.Name, all)
				}
			}
			for _, want := range []string{"curl", "Continue", "Zed", "aider", "Open WebUI", "VS Code (Copilot Chat)", "JetBrains AI Assistant"} {
				if !slices.Contains(names, want) {
					t.Errorf("no %s snippet in %v", want, names)
				}
			}
		})
	}
	// Specific lines, as the README's "Editors and tools" gives them.
	byName := map[string]string{}
	for _, s := range editorSnippets(snippetInputs{URL: url, Key: key, Model: "m", Context: 4096}) {
		byName[s.Name] = s.Text
	}
	for name, want := range map[string][]string{
		"curl":                   {url + "/v1/chat/completions", "Authorization: Bearer " + key, `"model": "m"`},
		"Continue":               {"provider: openai", "model: m", "apiBase: " + url + "/v1", "apiKey: " + key},
		"Zed":                    {`"openai_compatible"`, `"api_url": "` + url + `/v1"`, `"max_tokens": 4096`},
		"aider":                  {"export OPENAI_API_BASE=" + url + "/v1", "export OPENAI_API_KEY=" + key, "aider --model openai/m"},
		"Open WebUI":             {"OPENAI_API_BASE_URL=" + url + "/v1", "OPENAI_API_KEY=" + key, "--network=host"},
		"VS Code (Copilot Chat)": {`"vendor": "customendpoint"`, `"url": "` + url + `/v1/chat/completions"`, `"apiKey": "` + key + `"`},
		"JetBrains AI Assistant": {"Host URL: " + url + "\n", "URL:      " + url + "/v1", "API key:  " + key},
	} {
		for _, w := range want {
			if !strings.Contains(byName[name], w) {
				t.Errorf("%s snippet lacks %q:\n%s", name, w, byName[name])
			}
		}
	}
	if w := editorSnippets(snippetInputs{URL: url, Model: "m"}); !strings.Contains(w[4].Text, "OLLAMA_BASE_URL="+url+" ") {
		t.Errorf("Open WebUI without a key should use the Ollama dialect:\n%s", w[4].Text)
	}
}

// TestServerSnippetsMatchREADME checks that the JSON snippets, at the
// README's address, model name and context, are the README's.
func TestServerSnippetsMatchREADME(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Skip("no README:", err)
	}
	readme := string(b)
	for _, s := range editorSnippets(snippetInputs{URL: "http://127.0.0.1:11435", Model: "NAME", Context: 4096}) {
		switch s.Name {
		case "Zed", "VS Code (Copilot Chat)", "aider":
			text := s.Text
			if s.Name == "aider" {
				text = strings.Replace(text, "OPENAI_API_KEY=none", "OPENAI_API_KEY=none          # or the --api-key you gave saji", 1)
			}
			if !strings.Contains(readme, text) {
				t.Errorf("the %s snippet is not the README's:\n%s", s.Name, text)
			}
		}
	}
}

func TestServerPanelSnippetsFollowPort(t *testing.T) {
	_, p := serverTestUI(t)
	p.port.SetText("5555")
	if !strings.Contains(p.snippetsKey, "http://127.0.0.1:5555") {
		t.Errorf("snippets built from %q, want port 5555", p.snippetsKey)
	}
	p.host.SetSelected(optionNetwork)
	if !strings.Contains(p.snippetsKey, "http://127.0.0.1:5555") {
		t.Errorf("snippets of a network server built from %q, want 127.0.0.1 for this computer", p.snippetsKey)
	}
	p.wait()
	p.copy("x", "hello")
	if p.u.app.Clipboard().Content() != "hello" || p.note.Text != "Copied x." {
		t.Errorf("copy: clipboard %q, note %q", p.u.app.Clipboard().Content(), p.note.Text)
	}
}

func TestServerTickerOnlyWhileShown(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	u.win.Resize(u.win.Canvas().Size().Max(fyne.NewSize(800, 600)))
	p := u.server
	if p.visible.Load() {
		t.Error("the panel counts as shown under the Chat tab")
	}
	u.tabs.SelectIndex(tabServer)
	if !p.visible.Load() {
		t.Error("the panel does not count as shown under the Server tab")
	}
	u.tabs.SelectIndex(tabChat)
	if p.visible.Load() {
		t.Error("the panel still counts as shown after leaving the Server tab")
	}
}

func TestLoadedModelsText(t *testing.T) {
	tests := []struct {
		models, placements []string
		want               string
	}{
		{nil, nil, "None (a request loads its model)"},
		{[]string{"a"}, nil, "a"},
		// Each model with where it runs, in placementText's words, as a
		// phrase of the line ("stories260K - on the processor" read as
		// a dash of developer output).
		{[]string{"a", "b"}, []string{"on the GPU (cuda:0)", "on the processor"},
			"a, on the GPU (cuda:0)\nb, on the processor"},
	}
	for _, tt := range tests {
		if got := loadedModelsText(tt.models, tt.placements); got != tt.want {
			t.Errorf("loadedModelsText(%q, %q) = %q, want %q", tt.models, tt.placements, got, tt.want)
		}
	}
}

// TestServerWheelOverFields checks that the mouse wheel over the Server
// page's text fields and code snippets scrolls the page: no field keeps
// it in a scroll of its own.
func TestServerWheelOverFields(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	u.win.Resize(fyne.NewSize(800, 600))
	u.tabs.SelectIndex(tabServer)
	p := u.server
	var page *container.Scroll
	walk(p.content, func(o fyne.CanvasObject) bool {
		page, _ = o.(*container.Scroll)
		return page != nil
	})
	if page == nil {
		t.Fatal("the Server page has no scroll")
	}
	for _, field := range []fyne.CanvasObject{p.port, p.corsEntry} {
		page.ScrollToTop()
		page.Offset = fyne.NewPos(0, 0)
		page.Refresh()
		pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(field)
		if pos.Y > 560 {
			page.Offset = fyne.NewPos(0, pos.Y-300)
			page.Refresh()
			pos = fyne.CurrentApp().Driver().AbsolutePositionForObject(field)
		}
		before := page.Offset.Y
		test.Scroll(u.win.Canvas(), pos.Add(fyne.NewPos(4, 4)), 0, -40)
		if page.Offset.Y == before {
			t.Errorf("the wheel over %T at %v did not scroll the page (offset %v)", field, pos, before)
		}
	}
	walk(p.content, func(o fyne.CanvasObject) bool {
		if s, ok := o.(*container.Scroll); ok && s != page {
			t.Errorf("a scroll inside the page: %v", s.Direction)
		}
		return false
	})
}
