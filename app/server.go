package app

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"saji/engine/scheduler"
)

// The bind address choices of the server panel.
const (
	hostLocal     = "127.0.0.1"
	hostNetwork   = "0.0.0.0"
	optionLocal   = "This computer only (127.0.0.1)"
	optionNetwork = "Local network (0.0.0.0)"
)

// The words that start and stop the API, the same on the Server tab and
// in the tray menu.
const (
	serverStartLabel = "Start the server"
	serverStopLabel  = "Stop the server"
)

// serverPanel starts and stops the local API, edits its address, keys and
// browser origins, shows what the engine is doing and gives the snippets
// that point an editor at it.
//
// Port and address can be changed while the server is stopped (they are
// disabled while it runs); keys and origins can be changed at any time,
// and the core restarts a running server to apply them.
type serverPanel struct {
	u       *ui
	content fyne.CanvasObject

	toggle    *widget.Button
	status    *widget.Label
	endpoints *widget.Label
	copyURL   *widget.Button
	lan       *widget.Label

	port        *widget.Entry
	host        *widget.Select
	hostOptions map[string]string // option text -> host
	hostWarning *widget.Label

	keys     []string
	keyRows  *fyne.Container
	keysNote *widget.Label

	cors       []string
	corsRows   *fyne.Container
	corsEntry  *widget.Entry
	corsNote   *widget.Label
	corsDanger *widget.Label

	models    *widget.Label
	requests  *widget.Label
	speed     *widget.Label
	kv        *widget.ProgressBar
	kvText    *widget.Label
	hitRate   *widget.Label
	answered  *widget.Label
	charts    *serverCharts // the live charts (server_charts.go)
	snippetsC *fyne.Container
	note      *widget.Label

	// UI goroutine state.
	url         string // the running API's base URL, "" when stopped
	busy        bool   // starting or stopping
	snippetsKey string // what the snippets were built from

	// The figures' sampling state, shared by the ticker and tests.
	sampleMu  sync.Mutex
	lastGen   int64
	lastAt    time.Time
	lastSpeed float64
	shown     serverFigures // the figures last shown
	apiGen    int           // counts the API's starts and stops shown

	// The settings changes, starts and stops, run in order off the UI
	// goroutine one at a time (serial), until their result is shown.
	bg worker

	stopTick chan struct{}
	tickOnce sync.Once
	ticking  sync.WaitGroup
	visible  atomic.Bool // the Server tab shows the panel
}

// newServerPanel lays out the panel and starts the ticker that refreshes
// its figures every second.
func newServerPanel(u *ui) *serverPanel {
	s := u.core.Settings()
	p := &serverPanel{u: u, stopTick: make(chan struct{}), bg: worker{serial: true}}
	p.keys = slices.Clone(s.APIKeys)
	p.cors = slices.Clone(s.CORS)

	heading := widget.NewLabelWithStyle("Local API", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	help := panelLabel("Editors, agents and other tools can use your models through a server that speaks the OpenAI, Ollama, Anthropic and llama-server APIs. " +
		"It shares the models loaded for the chat; a request naming another model of the library loads it.")
	p.toggle = widget.NewButtonWithIcon(serverStartLabel, theme.MediaPlayIcon(), p.toggleAPI)
	p.toggle.Importance = widget.HighImportance
	p.status = panelLabel("The server is stopped.")
	p.endpoints = panelLabel("")
	p.endpoints.TextStyle = fyne.TextStyle{Monospace: true}
	p.endpoints.Selectable = true
	p.copyURL = widget.NewButtonWithIcon("Copy the address", theme.ContentCopyIcon(), func() {
		p.copy("the address", p.openAIURL())
	})
	p.copyURL.Hide()
	p.lan = panelLabel("")
	p.lan.Hide()
	p.note = panelLabel("")

	// Connection.
	p.port = widget.NewEntry()
	wheelPasses(p.port)
	p.port.SetText(strconv.Itoa(s.Port))
	p.port.Validator = func(text string) error { _, err := parsePort(text); return err }
	p.hostOptions = map[string]string{optionLocal: hostLocal, optionNetwork: hostNetwork}
	options := []string{optionLocal, optionNetwork}
	if s.Host != "" && s.Host != hostLocal && s.Host != hostNetwork {
		other := "Only the address " + s.Host
		p.hostOptions[other] = s.Host
		options = append(options, other)
	}
	p.hostWarning = panelLabel("")
	p.hostWarning.Importance = widget.WarningImportance
	p.host = widget.NewSelect(options, nil)
	p.host.SetSelected(p.optionFor(s.Host))
	p.host.OnChanged = func(string) {
		p.updateHostWarning()
		host := p.selectedHost()
		p.save(func(s *Settings) { s.Host = host })
		if p.snippetsC != nil {
			p.refreshSnippets()
		}
	}
	connection := widget.NewCard("", "Address", container.NewVBox(
		widget.NewForm(
			widget.NewFormItem("Port", p.port),
			widget.NewFormItem("Who can connect", p.host),
		),
		p.hostWarning,
		panelNote("Port 0 picks any free port. Stop the server to change its port or who can connect."),
	))

	// Keys.
	p.keyRows = container.NewVBox()
	p.keysNote = panelLabel("")
	generate := widget.NewButtonWithIcon("Generate a key", theme.ContentAddIcon(), func() { p.addKey() })
	keys := widget.NewCard("", "API keys", container.NewVBox(
		panelNote("With a key, every request must carry it (Authorization: Bearer KEY). "+
			"Without one, any program on this computer can use the server. Changing the keys restarts a running server."),
		p.keyRows, p.keysNote, container.NewHBox(generate),
	))

	// CORS.
	p.corsRows = container.NewVBox()
	p.corsEntry = widget.NewEntry()
	wheelPasses(p.corsEntry)
	p.corsEntry.SetPlaceHolder("https://example.com")
	p.corsEntry.OnSubmitted = func(string) { p.addOrigin() }
	p.corsNote = panelLabel("")
	p.corsNote.Importance = widget.DangerImportance
	p.corsNote.Hide()
	p.corsDanger = panelLabel("\"*\" lets every web page you open use your models.")
	p.corsDanger.Importance = widget.WarningImportance
	p.corsDanger.Hide()
	add := widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), p.addOrigin)
	cors := widget.NewCard("", "Web pages allowed to call the server (CORS)", container.NewVBox(
		panelNote("Pages on this computer (localhost), desktop apps and browser extensions can use the server; other web pages only if their origin is listed here. Editors and other programs do not need this."),
		p.corsRows,
		container.NewBorder(nil, nil, nil, add, p.corsEntry),
		p.corsNote, p.corsDanger,
	))

	// Figures.
	p.models = widget.NewLabel("None")
	p.requests = widget.NewLabel("0 running, 0 waiting")
	p.speed = widget.NewLabel("0 tokens/s")
	p.kv = newProgressBar()
	p.kvText = widget.NewLabel("")
	p.hitRate = widget.NewLabel("-")
	p.answered = widget.NewLabel("0")
	p.models.Wrapping = fyne.TextWrapWord
	figuresCard := widget.NewCard("", "Now", widget.NewForm(
		widget.NewFormItem("Loaded models", p.models),
		widget.NewFormItem("Requests", p.requests),
		widget.NewFormItem("Generating", p.speed),
		widget.NewFormItem("KV cache", container.NewVBox(p.kv, p.kvText)),
		widget.NewFormItem("Prefix cache hits", p.hitRate),
		widget.NewFormItem("Requests answered", p.answered),
	))

	p.charts = newServerCharts()

	// Snippets.
	p.snippetsC = container.NewVBox()
	snippets := widget.NewCard("", "Use it from your editor", container.NewVBox(
		panelNote("Each snippet has the server's address, the first key if there is one, and the model in use "+
			"(or the library's default); any model of the library works in its place."),
		p.snippetsC,
	))

	p.content = newVisibilityWatch(container.NewVScroll(container.NewPadded(container.NewVBox(
		heading, help,
		container.NewHBox(p.toggle, p.copyURL),
		p.status, p.endpoints, p.lan, p.note,
		figuresCard, p.charts.card, connection, keys, cors, snippets,
	))), p.visible.Store)
	p.updateHostWarning()
	p.rebuildKeys()
	p.rebuildCORS()
	p.shown = p.sample(time.Now())
	p.show(p.shown)
	p.port.OnChanged = func(text string) {
		if port, err := parsePort(text); err == nil {
			p.save(func(s *Settings) { s.Port = port })
			p.refreshSnippets()
		}
	}

	p.ticking.Add(1)
	go p.tick()
	return p
}

// panelLabel returns a word-wrapped label.
func panelLabel(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// panelNote returns a wrapped label for explanations.
func panelNote(text string) *widget.Label { return panelLabel(text) }

// parsePort reads a port number (0 picks a free one).
func parsePort(text string) (int, error) {
	port, err := strconv.Atoi(strings.TrimSpace(text))
	if err != nil || port < 0 || port > 65535 {
		return 0, fmt.Errorf("app: the port must be a number from 0 to 65535, not %q", text)
	}
	return port, nil
}

// isLoopbackHost reports whether host only reaches this computer.
func isLoopbackHost(host string) bool {
	if host == "" || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// selectedHost returns the host of the bind address select.
func (p *serverPanel) selectedHost() string {
	if h, ok := p.hostOptions[p.host.Selected]; ok {
		return h
	}
	return hostLocal
}

// optionFor returns the select option of host.
func (p *serverPanel) optionFor(host string) string {
	for o, h := range p.hostOptions {
		if h == host {
			return o
		}
	}
	return optionLocal
}

// updateHostWarning says what serving beyond this computer needs.
func (p *serverPanel) updateHostWarning() {
	host := p.selectedHost()
	switch {
	case isLoopbackHost(host):
		p.hostWarning.Hide()
		return
	case len(p.keys) == 0:
		p.hostWarning.SetText("Other machines on your network will be able to connect, so the server needs an API key: generate one below before starting it.")
	default:
		p.hostWarning.SetText("Other machines on your network can connect; they need one of the API keys below.")
	}
	p.hostWarning.Show()
}

// wait waits until the queued work is done and shown.
func (p *serverPanel) wait() { p.bg.wait() }

// save runs edit on the current settings and stores them, off the UI
// goroutine and in the order of the calls.
func (p *serverPanel) save(edit func(*Settings)) {
	p.bg.run(func() func() {
		s := p.u.core.Settings()
		edit(&s)
		if err := p.u.core.SetSettings(s); err != nil {
			p.u.core.log.Warn("app: saving the server settings", "err", err)
		}
		return nil
	})
}

// start starts the API with the panel's port and address (as the app does
// at launch when the settings ask for it).
func (p *serverPanel) start() {
	if p.busy || p.url != "" {
		return
	}
	port, err := parsePort(p.port.Text)
	if err != nil {
		p.status.SetText("The port must be a number from 0 to 65535. Port 0 picks any free port.")
		return
	}
	host := p.selectedHost()
	if !isLoopbackHost(host) && len(p.keys) == 0 {
		p.status.SetText(noKeyMessage)
		return
	}
	p.setBusy("Starting the server...")
	p.bg.run(func() func() {
		s := p.u.core.Settings()
		s.Port, s.Host = port, host
		err := p.u.core.SetSettings(s)
		url := ""
		if err == nil {
			url, err = p.u.core.StartAPI()
		}
		return func() {
			p.busy = false
			if err != nil {
				p.showRunning("")
				p.status.SetText(startErrorMessage(err, host, port))
				return
			}
			p.showRunning(url)
		}
	})
}

// noKeyMessage explains why the local network needs a key.
const noKeyMessage = "Serving on the local network lets other machines use your models, so it needs an API key. Generate one below, then start the server."

// startErrorMessage says in plain words why the API did not start.
func startErrorMessage(err error, host string, port int) string {
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Sprintf("Port %d is already in use by another program (perhaps another Saji or Ollama). Choose another port, or 0 for any free one.", port)
	case errors.Is(err, syscall.EACCES) || errors.Is(err, os.ErrPermission):
		return fmt.Sprintf("Saji may not use port %d: ports below 1024 need administrator rights. Choose a port above 1024.", port)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Sprintf("This computer has no address %s to listen on.", host)
	case strings.Contains(err.Error(), "API key"):
		return noKeyMessage
	}
	return "The server could not start: " + userMessage(err)
}

// stop stops the API off the UI goroutine (it waits for running requests
// to end, for up to 5 seconds).
func (p *serverPanel) stop() {
	if p.busy || p.url == "" {
		return
	}
	p.setBusy("Stopping the server...")
	p.bg.run(func() func() {
		p.u.core.StopAPI()
		return func() {
			p.busy = false
			p.showRunning("")
		}
	})
}

// toggleAPI starts or stops the API.
func (p *serverPanel) toggleAPI() {
	if p.url != "" {
		p.stop()
	} else {
		p.start()
	}
}

// setBusy disables the panel's controls while the API starts or stops.
func (p *serverPanel) setBusy(status string) {
	p.busy = true
	p.status.SetText(status)
	p.toggle.Disable()
	p.port.Disable()
	p.host.Disable()
}

// showRunning shows the API as running at url, or stopped for "".
func (p *serverPanel) showRunning(url string) {
	p.sampleMu.Lock()
	p.apiGen++
	p.sampleMu.Unlock()
	p.url = url
	p.toggle.Enable()
	if url == "" {
		p.toggle.SetText(serverStartLabel)
		p.toggle.SetIcon(theme.MediaPlayIcon())
		p.toggle.Importance = widget.HighImportance
		p.toggle.Refresh()
		p.status.SetText("The server is stopped.")
		p.endpoints.SetText("")
		p.endpoints.Hide()
		p.copyURL.Hide()
		p.lan.Hide()
		p.port.Enable()
		p.host.Enable()
		p.refreshSnippets()
		return
	}
	p.toggle.SetText(serverStopLabel)
	p.toggle.SetIcon(theme.MediaStopIcon())
	p.toggle.Importance = widget.MediumImportance
	p.toggle.Refresh()
	base := apiClientURL(url)
	if base != url {
		_, port, _ := net.SplitHostPort(strings.TrimPrefix(url, "http://"))
		p.status.SetText("The server is running on port " + port + ", for this computer and the local network.")
	} else {
		p.status.SetText("The server is running at " + url + ".")
	}
	p.endpoints.SetText("OpenAI: " + base + "/v1, Ollama: " + base)
	p.endpoints.Show()
	p.copyURL.Show()
	if host, port, err := net.SplitHostPort(strings.TrimPrefix(url, "http://")); err == nil && !isLoopbackHost(host) {
		var urls []string
		for _, a := range lanAddresses() {
			urls = append(urls, "http://"+net.JoinHostPort(a, port)+"/v1")
		}
		if len(urls) > 0 {
			p.lan.SetText("Other machines reach it at " + strings.Join(urls, " or ") + ", with an API key.")
			p.lan.Show()
		}
	} else {
		p.lan.Hide()
	}
	p.port.Disable()
	p.host.Disable()
	p.refreshSnippets()
}

// apiClientURL is the URL a client on this computer uses for the API at url:
// an API listening on all addresses is reached through 127.0.0.1.
func apiClientURL(url string) string {
	hostport := strings.TrimPrefix(url, "http://")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return url
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = hostLocal
	}
	return "http://" + net.JoinHostPort(host, port)
}

// lanAddresses returns this computer's IPv4 addresses on its networks.
func lanAddresses() []string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []string
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP.String())
		}
	}
	return out
}

// openAIURL is the OpenAI base URL of the running API, or of the
// settings' address while it is stopped.
func (p *serverPanel) openAIURL() string { return p.baseURL() + "/v1" }

// baseURL is the URL clients use: the running API's, or the one the
// settings would give.
func (p *serverPanel) baseURL() string {
	if p.url != "" {
		return apiClientURL(p.url)
	}
	port := strings.TrimSpace(p.port.Text)
	if port == "0" || port == "" {
		port = "PORT"
	}
	host := p.selectedHost()
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = hostLocal
	}
	return "http://" + net.JoinHostPort(host, port)
}

// copy puts text on the clipboard and says so.
func (p *serverPanel) copy(what, text string) {
	p.u.app.Clipboard().SetContent(text)
	p.note.SetText("Copied " + what + ".")
}

// newAPIKey returns a random API key, "sk-saji-" and 48 hex digits.
func newAPIKey() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("app: a random key: %w", err)
	}
	return "sk-saji-" + hex.EncodeToString(b[:]), nil
}

// maskAPIKey shows the start and end of a key.
func maskAPIKey(k string) string {
	if len(k) <= 16 {
		return k
	}
	return k[:12] + "…" + k[len(k)-4:]
}

// addKey generates a key and saves it.
func (p *serverPanel) addKey() {
	k, err := newAPIKey()
	if err != nil {
		p.keysNote.SetText("Saji could not make a random key: " + userMessage(err))
		p.keysNote.Show()
		return
	}
	p.keys = append(slices.Clone(p.keys), k)
	p.keysChanged()
	p.copy("the new key", k)
}

// removeKey removes the i-th key and saves the rest. The last key of a
// server running on the network cannot go.
func (p *serverPanel) removeKey(i int) {
	if i < 0 || i >= len(p.keys) {
		return
	}
	if len(p.keys) == 1 && p.url != "" && !isLoopbackHost(p.selectedHost()) {
		p.keysNote.SetText("The server runs on the local network, which needs a key. Stop it before removing the last key.")
		p.keysNote.Show()
		return
	}
	p.keys = slices.Delete(slices.Clone(p.keys), i, i+1)
	p.keysChanged()
}

// keysChanged shows and saves p.keys (the core restarts a running API).
func (p *serverPanel) keysChanged() {
	p.rebuildKeys()
	p.updateHostWarning()
	p.refreshSnippets()
	keys := slices.Clone(p.keys)
	p.saveRestarting("keys", func(s *Settings) { s.APIKeys = keys })
}

// saveRestarting saves a change that restarts a running API, showing it.
func (p *serverPanel) saveRestarting(what string, edit func(*Settings)) {
	running := p.url != ""
	if running {
		p.setBusy("Restarting the server with the new " + what + "...")
	}
	p.bg.run(func() func() {
		s := p.u.core.Settings()
		edit(&s)
		err := p.u.core.SetSettings(s)
		url := p.u.core.APIURL()
		return func() {
			if !running {
				if err != nil {
					p.note.SetText("Saji could not save the " + what + ": " + userMessage(err))
				}
				return
			}
			p.busy = false
			p.showRunning(url)
			if err != nil {
				p.status.SetText("The server stopped: it could not restart with the new " + what + ". " + userMessage(err))
			}
		}
	})
}

// rebuildKeys lists p.keys.
func (p *serverPanel) rebuildKeys() {
	p.keyRows.RemoveAll()
	for i, k := range p.keys {
		label := widget.NewLabelWithStyle(maskAPIKey(k), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { p.copy("the key", k) })
		remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() {
			confirmAction(p.u.win, "Remove this key?", "Editors that use it will no longer reach the server.",
				"Remove", true, func() { p.removeKey(i) })
		})
		p.keyRows.Add(container.NewBorder(nil, nil, nil, container.NewHBox(copyBtn, remove), label))
	}
	if len(p.keys) == 0 {
		p.keysNote.SetText("No keys: only programs on this computer can use the server.")
		p.keysNote.Show()
	} else {
		p.keysNote.SetText("")
		p.keysNote.Hide()
	}
	p.keyRows.Refresh()
}

// checkCORSOrigin validates a CORS origin: "*", or scheme://host[:port].
func checkCORSOrigin(o string) error {
	if o == "*" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("app: %q is not an origin", o)
	}
	return nil
}

// addOrigin adds the CORS entry's origin.
func (p *serverPanel) addOrigin() {
	o := strings.TrimSuffix(strings.TrimSpace(p.corsEntry.Text), "/")
	if o == "" {
		return
	}
	if err := checkCORSOrigin(o); err != nil {
		p.corsNote.SetText(fmt.Sprintf("%q is not a web page origin. Write it as a scheme and a host, such as https://example.com or http://localhost:3000, or * for every page.", o))
		p.corsNote.Show()
		return
	}
	p.corsNote.Hide()
	p.corsEntry.SetText("")
	if slices.Contains(p.cors, o) {
		return
	}
	p.cors = append(slices.Clone(p.cors), o)
	p.corsChanged()
}

// removeOrigin removes the i-th origin.
func (p *serverPanel) removeOrigin(i int) {
	if i < 0 || i >= len(p.cors) {
		return
	}
	p.cors = slices.Delete(slices.Clone(p.cors), i, i+1)
	p.corsChanged()
}

// corsChanged shows and saves p.cors.
func (p *serverPanel) corsChanged() {
	p.rebuildCORS()
	cors := slices.Clone(p.cors)
	p.saveRestarting("origins", func(s *Settings) { s.CORS = cors })
}

// rebuildCORS lists p.cors.
func (p *serverPanel) rebuildCORS() {
	p.corsRows.RemoveAll()
	for i, o := range p.cors {
		remove := widget.NewButtonWithIcon("Remove", theme.DeleteIcon(), func() { p.removeOrigin(i) })
		p.corsRows.Add(container.NewBorder(nil, nil, nil, remove,
			widget.NewLabelWithStyle(o, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})))
	}
	if slices.Contains(p.cors, "*") {
		p.corsDanger.Show()
	} else {
		p.corsDanger.Hide()
	}
	p.corsRows.Refresh()
}

// close stops the figures' ticker (the window is closing). Queued
// settings changes still run.
func (p *serverPanel) close() { p.tickOnce.Do(func() { close(p.stopTick) }) }

// stopTicker stops the figures' ticker and waits for it to end.
func (p *serverPanel) stopTicker() {
	p.close()
	p.ticking.Wait()
}

// tick refreshes the figures every second while the panel shows, until
// it closes. While it is hidden, only the live charts sample (a reading
// of the engine's counters, nothing drawn), so that they show the last
// five minutes whatever tab was open.
func (p *serverPanel) tick() {
	defer p.ticking.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stopTick:
			return
		case now := <-t.C:
			if p.visible.Load() {
				p.refresh()
			} else {
				p.charts.record(p.u.core.Server(), p.speedAt(p.u.core.Stats().Generated, now))
			}
		}
	}
}

// visibilityWatch shows content and tells changed when the tabs show or
// hide it, so that a hidden panel draws nothing.
type visibilityWatch struct {
	widget.BaseWidget
	content fyne.CanvasObject
	changed func(bool)
}

// newVisibilityWatch wraps content.
func newVisibilityWatch(content fyne.CanvasObject, changed func(bool)) *visibilityWatch {
	w := &visibilityWatch{content: content, changed: changed}
	w.ExtendBaseWidget(w)
	return w
}

// CreateRenderer implements fyne.Widget.
func (w *visibilityWatch) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(w.content)
}

// Show implements fyne.CanvasObject.
func (w *visibilityWatch) Show() {
	w.BaseWidget.Show()
	w.changed(true)
}

// Hide implements fyne.CanvasObject.
func (w *visibilityWatch) Hide() {
	w.BaseWidget.Hide()
	w.changed(false)
}

// serverFigures are the panel's live numbers, sampled off the UI goroutine.
type serverFigures struct {
	stats    EngineStats
	speed    float64 // tokens per second since the last sample
	answered int64   // requests answered (-1: unknown)
	url      string  // the API's URL, "" when stopped
	apiGen   int     // p.apiGen when url was read
	model    string  // the model the snippets name, or ""
	context  int     // the settings' context length
}

// refresh samples the engine, shows the figures that changed and
// advances the live charts (through bg.do). The ticker calls it every
// second; tests call it directly.
func (p *serverPanel) refresh() {
	f := p.sample(time.Now())
	p.sampleMu.Lock()
	same := reflect.DeepEqual(f, p.shown)
	p.shown = f
	p.sampleMu.Unlock()
	if !same {
		p.bg.do(func() { p.show(f) })
	}
	p.charts.record(p.u.core.Server(), f.speed)
	p.bg.do(p.charts.show)
}

// sample reads the engine's figures at now.
func (p *serverPanel) sample(now time.Time) serverFigures {
	c := p.u.core
	p.sampleMu.Lock()
	gen := p.apiGen
	p.sampleMu.Unlock()
	f := serverFigures{stats: c.Stats(), url: c.APIURL(), apiGen: gen}
	s := c.Settings()
	f.context = s.Context
	f.answered = requestsAnswered(c, s.APIKeys)
	f.model = snippetModel(c, f.stats.Models)
	f.speed = p.speedAt(f.stats.Generated, now)
	return f
}

// speedAt returns the tokens per second generated since the last sample,
// given the engine's count of generated tokens at now (the last speed
// when no time passed).
func (p *serverPanel) speedAt(generated int64, now time.Time) float64 {
	p.sampleMu.Lock()
	defer p.sampleMu.Unlock()
	if !p.lastAt.IsZero() {
		if dt := now.Sub(p.lastAt).Seconds(); dt > 0 {
			p.lastSpeed = max(0, float64(generated-p.lastGen)/dt)
		}
	}
	p.lastGen, p.lastAt = generated, now
	return p.lastSpeed
}

// snippetModel returns the model the snippets name: a loaded model (the
// chat loads its model as it opens it), else the library's default, else
// its only usable model, else "".
func snippetModel(c *core, loaded []string) string {
	if len(loaded) > 0 {
		return loaded[0]
	}
	entries, err := c.Library().List()
	if err != nil {
		return ""
	}
	var usable []string
	for _, e := range entries {
		if e.Err != nil {
			continue
		}
		if e.Default {
			return e.Name
		}
		usable = append(usable, e.Name)
	}
	if len(usable) == 1 {
		return usable[0]
	}
	return ""
}

// requestsAnswered sums the requests that finished or failed in the
// engine's metrics (chat replies included), read in process; -1 if they
// cannot be read.
func requestsAnswered(c *core, keys []string) int64 {
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	if len(keys) > 0 {
		req.Header.Set("Authorization", "Bearer "+keys[0])
	}
	rec := httptest.NewRecorder()
	c.Server().Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return -1
	}
	var n float64
	sc := bufio.NewScanner(rec.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "saji:request_success_total") && !strings.HasPrefix(line, "saji:request_failure_total") {
			continue
		}
		fields := strings.Fields(line)
		if v, err := strconv.ParseFloat(fields[len(fields)-1], 64); err == nil {
			n += v
		}
	}
	return int64(n)
}

// show puts f on the panel, touching only what changed.
func (p *serverPanel) show(f serverFigures) {
	st := f.stats
	setLabelText(p.models, loadedModelsText(st.Models, st.Placements))
	setLabelText(p.requests, fmt.Sprintf("%d running, %d waiting", st.Running, st.Waiting))
	setLabelText(p.speed, fmt.Sprintf("%.1f tokens/s", f.speed))
	var use float64
	text := "No model loaded."
	if st.KVTotal > 0 {
		use = float64(st.KVUsed+st.KVCached) / float64(st.KVTotal)
		text = fmt.Sprintf("%d of %d blocks: %d in use, %d kept for reuse", st.KVUsed+st.KVCached, st.KVTotal, st.KVUsed, st.KVCached)
	}
	if p.kv.Value != use {
		p.kv.SetValue(use)
	}
	setLabelText(p.kvText, text)
	hit := "-"
	if st.HitRate > 0 || st.KVTotal > 0 {
		hit = fmt.Sprintf("%.0f%% of prompt tokens", st.HitRate*100)
	}
	setLabelText(p.hitRate, hit)
	answered := "-"
	if f.answered >= 0 {
		answered = strconv.FormatInt(f.answered, 10)
	}
	setLabelText(p.answered, answered)
	p.sampleMu.Lock()
	current := f.apiGen == p.apiGen
	p.sampleMu.Unlock()
	if current && !p.busy && f.url != p.url {
		p.showRunning(f.url) // stopped by a failed restart, or started by the app
	}
	p.refreshSnippets()
}

// refreshSnippets rebuilds the snippets if what they show changed.
func (p *serverPanel) refreshSnippets() {
	p.sampleMu.Lock()
	f := p.shown
	p.sampleMu.Unlock()
	p.updateSnippets(p.snippetInputs(f.model, f.context))
}

// setLabelText sets l's text if it differs.
func setLabelText(l *widget.Label, text string) {
	if l.Text != text {
		l.SetText(text)
	}
}

// loadedModelsText lists the loaded models, each with where it runs when
// that is known.
func loadedModelsText(models, placements []string) string {
	if len(models) == 0 {
		return "None (a request loads its model)"
	}
	lines := make([]string, len(models))
	for i, m := range models {
		lines[i] = m
		if i < len(placements) && placements[i] != "" {
			lines[i] += ", " + placements[i]
		}
	}
	return strings.Join(lines, "\n")
}

// snippetInputs are what the snippets depend on.
type snippetInputs struct {
	URL, Key, Model string
	Context         int
}

// snippetInputs returns the snippets' URL, key and model name (model, or
// "MODEL" for "").
func (p *serverPanel) snippetInputs(model string, context int) snippetInputs {
	in := snippetInputs{URL: p.baseURL(), Model: "MODEL", Context: context}
	if len(p.keys) > 0 {
		in.Key = p.keys[0]
	}
	if model != "" {
		in.Model = model
	}
	return in
}

// updateSnippets rebuilds the snippets when their inputs changed.
func (p *serverPanel) updateSnippets(in snippetInputs) {
	key := fmt.Sprint(in)
	if key == p.snippetsKey {
		return
	}
	p.snippetsKey = key
	p.snippetsC.RemoveAll()
	items := make([]*widget.AccordionItem, 0, 8)
	for _, s := range editorSnippets(in) {
		// Wrapped, not in a scroll of its own: a nested scroll would take
		// the page's mouse wheel while the pointer is over it.
		code := widget.NewLabelWithStyle(s.Text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		code.Wrapping = fyne.TextWrapBreak
		copyBtn := widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() { p.copy("the "+s.Name+" snippet", s.Text) })
		detail := container.NewVBox(panelLabel(s.Note), code, container.NewHBox(copyBtn))
		items = append(items, widget.NewAccordionItem(s.Name, detail))
	}
	acc := widget.NewAccordion(items...)
	acc.MultiOpen = true
	p.snippetsC.Add(acc)
	p.snippetsC.Refresh()
}

// wheelPasses lets the mouse wheel over the one-line entry e scroll the
// page around it: an entry that clips its text keeps a scroll of its own,
// which takes the wheel; one that does not wrap or scroll has none.
func wheelPasses(e *widget.Entry) {
	e.Wrapping = fyne.TextWrapOff
	e.Scroll = container.ScrollNone
}

// editorSnippet is a piece of configuration for one editor or tool.
type editorSnippet struct {
	Name string // the tool
	Note string // where it goes
	Text string // what to paste
}

// editorSnippets returns the snippets that point the tools of the
// README's "Editors and tools" section at the API of in.
func editorSnippets(in snippetInputs) []editorSnippet {
	base, v1, name := in.URL, in.URL+"/v1", in.Model
	ctx := in.Context
	if ctx <= 0 {
		ctx = scheduler.DefaultContext
	}
	keyOr := func(none string) string {
		if in.Key != "" {
			return in.Key
		}
		return none
	}

	auth := ""
	if in.Key != "" {
		auth = " \\\n  -H 'Authorization: Bearer " + in.Key + "'"
	}
	curl := "curl " + v1 + "/chat/completions -H 'Content-Type: application/json'" + auth + " \\\n" +
		"  -d '{\"model\": \"" + name + "\", \"messages\": [{\"role\": \"user\", \"content\": \"Hello\"}]}'"

	apiKey := "    # apiKey: KEY            # only if the server has a key\n"
	if in.Key != "" {
		apiKey = "    apiKey: " + in.Key + "\n"
	}
	continueYAML := "name: Saji\nversion: 0.0.1\nschema: v1\nmodels:\n" +
		"  - name: Saji\n    provider: openai\n    model: " + name + "\n    apiBase: " + v1 + "\n" + apiKey +
		"    roles: [chat, edit, apply]\n"

	zed := `{
  "language_models": {
    "openai_compatible": {
      "Saji": {
        "api_url": "` + v1 + `",
        "available_models": [
          {
            "name": "` + name + `",
            "display_name": "` + name + ` (Saji)",
            "max_tokens": ` + strconv.Itoa(ctx) + `,
            "capabilities": { "tools": true, "images": false, "parallel_tool_calls": true, "prompt_cache_key": false }
          }
        ]
      }
    }
  }
}`
	zedNote := "Add this to Zed's settings.json. Zed asks for a key for this provider: enter any text in its settings, or start Zed with SAJI_API_KEY set."
	if in.Key != "" {
		zedNote = "Add this to Zed's settings.json, and start Zed with SAJI_API_KEY=" + in.Key + " (or enter the key in the provider's settings)."
	}
	zedNote += " Zed's Ollama provider also works, without a key: \"language_models\": { \"ollama\": { \"api_url\": \"" + base + "\" } }."

	aider := "export OPENAI_API_BASE=" + v1 + "\n" +
		"export OPENAI_API_KEY=" + keyOr("none") + "\n" +
		"aider --model openai/" + name

	webui := "docker run -d --network=host -v open-webui:/app/backend/data \\\n"
	if in.Key == "" {
		webui += "  -e OLLAMA_BASE_URL=" + base + " \\\n"
	} else {
		webui += "  -e OPENAI_API_BASE_URL=" + v1 + " -e OPENAI_API_KEY=" + in.Key + " \\\n"
	}
	webui += "  --name open-webui ghcr.io/open-webui/open-webui:main"

	vscode := `[
  {
    "name": "Saji",
    "vendor": "customendpoint",
    "apiKey": "` + keyOr("none") + `",
    "apiType": "chat-completions",
    "models": [
      {
        "id": "` + name + `",
        "name": "` + name + ` (Saji)",
        "url": "` + v1 + `/chat/completions",
        "toolCalling": true,
        "vision": false,
        "maxInputTokens": ` + strconv.Itoa(ctx*3/4) + `,
        "maxOutputTokens": ` + strconv.Itoa(ctx/4) + `
      }
    ]
  }
]`

	jetbrains := "Ollama              Host URL: " + base + "\n" +
		"OpenAI-compatible   URL:      " + v1 + "\n" +
		"                    API key:  " + keyOr("any text") + "\n" +
		"                    Tool calling: on"

	return []editorSnippet{
		{Name: "curl", Note: "Ask the model something from a terminal.", Text: curl},
		{Name: "Continue", Note: "Add this model to ~/.continue/config.yaml. For the Ollama dialect, use provider: ollama and apiBase: " + base + ".", Text: continueYAML},
		{Name: "Zed", Note: zedNote, Text: zed},
		{Name: "aider", Note: "Run these in a terminal. aider edits through plain text, so it works fully.", Text: aider},
		{Name: "Open WebUI", Note: "Open WebUI in Docker on Linux, sharing this computer's network; it is then on http://localhost:8080. (Docker Desktop on macOS and Windows: see Open WebUI's docs for reaching the host.)", Text: webui},
		{Name: "VS Code (Copilot Chat)", Note: "Run Chat: Manage Language Models, then Add Models, then Custom Endpoint with the Chat Completions API type, and fill in the chatLanguageModels.json that VS Code opens. " +
			"(Copilot's Ollama provider sends names the server does not take; the Ollama extension works with \"ollama.endpoint\": \"" + base + "\".)", Text: vscode},
		{Name: "JetBrains AI Assistant", Note: "In Settings | Tools | AI Assistant | Providers & API keys, under Third-party AI providers, choose one of the two providers, then pick " + name + " in AI Chat.", Text: jetbrains},
	}
}
