package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/adrg/xdg"

	"saji/engine/server"
	"saji/kernels/cpu"
)

// defaultPort is the API's port, as `saji serve` uses it.
const defaultPort = 11435

// ModelsDir returns the folder whose GGUF files the app serves: the
// "models" folder in Saji's XDG data directory.
func ModelsDir() string { return filepath.Join(xdg.DataHome, "saji", "models") }

// apiServer is the local API run from the app: the same server as `saji
// serve --models-dir`, models loading on first use.
type apiServer struct {
	srv  *server.Server
	http *http.Server
	url  string
}

// startAPI listens on 127.0.0.1:port and serves the GGUF files of dir.
func startAPI(dir string, port int) (*apiServer, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("app: the models folder: %w", err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, fmt.Errorf("app: %w", err)
	}
	srv := server.New(server.Config{ModelsDir: dir, Load: server.LoadOptions{Threads: cpu.PhysicalCores()}})
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return &apiServer{srv: srv, http: hs, url: "http://" + ln.Addr().String()}, nil
}

// stop shuts the API down, ending what is running.
func (a *apiServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.http.Shutdown(ctx)
	a.srv.Close()
}

// serverView starts and stops the local OpenAI- and Ollama-compatible API.
func serverView() fyne.CanvasObject { return newServerPanel(ModelsDir()).content }

// serverPanel is the server view's state.
type serverPanel struct {
	dir     string
	port    *widget.Entry
	button  *widget.Button
	status  *widget.Label
	content fyne.CanvasObject
	api     *apiServer
}

// newServerPanel lays out the panel serving the models of dir.
func newServerPanel(dir string) *serverPanel {
	p := &serverPanel{dir: dir, port: widget.NewEntry(), status: widget.NewLabel("Stopped")}
	p.port.SetText(strconv.Itoa(defaultPort))
	p.status.Wrapping = fyne.TextWrapWord
	p.button = widget.NewButton("Start", p.toggle)
	form := widget.NewForm(widget.NewFormItem("Port", p.port), widget.NewFormItem("Models", widget.NewLabel(dir)))
	heading := widget.NewLabelWithStyle("Local API", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	help := widget.NewLabel("OpenAI at /v1 and Ollama at /api, on this computer only (127.0.0.1). " +
		"Models are the .gguf files of the folder, loaded when a request names them.")
	help.Wrapping = fyne.TextWrapWord
	p.content = container.NewVBox(heading, help, form, p.button, p.status)
	return p
}

// toggle starts or stops the API. Starting listens at once (a port in use
// is reported); loading models happens later, per request.
func (p *serverPanel) toggle() {
	if p.api != nil {
		api := p.api
		p.api = nil
		p.status.SetText("Stopping...")
		p.button.Disable()
		go func() {
			api.stop()
			fyne.Do(func() {
				p.status.SetText("Stopped")
				p.button.SetText("Start")
				p.button.Enable()
				p.port.Enable()
			})
		}()
		return
	}
	port, err := strconv.Atoi(p.port.Text)
	if err != nil || port < 0 || port > 65535 {
		p.status.SetText(fmt.Sprintf("The port must be a number from 0 to 65535, not %q.", p.port.Text))
		return
	}
	api, err := startAPI(p.dir, port)
	if err != nil {
		p.status.SetText("Could not start: " + err.Error())
		return
	}
	p.api = api
	p.port.Disable()
	p.button.SetText("Stop")
	p.status.SetText("Serving on " + api.url + "  (OpenAI: " + api.url + "/v1)")
}
