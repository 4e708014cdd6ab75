package app

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
)

// TestServerPanel starts the local API from the panel, checks that it
// answers, and stops it.
func TestServerPanel(t *testing.T) {
	test.NewTempApp(t)
	p := newServerPanel(t.TempDir())
	p.port.SetText("0") // any free port
	test.Tap(p.button)
	if p.api == nil {
		t.Fatalf("not started: %s", p.status.Text)
	}
	url := p.api.url
	if !strings.Contains(p.status.Text, url) || p.button.Text != "Stop" {
		t.Errorf("status %q, button %q", p.status.Text, p.button.Text)
	}
	resp, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("health: %d", resp.StatusCode)
	}
	resp, err = http.Get(url + "/api/tags")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	test.Tap(p.button)
	for end := time.Now().Add(10 * time.Second); p.status.Text != "Stopped"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("not stopped: %s", p.status.Text)
		}
	}
	if _, err := http.Get(url + "/health"); err == nil {
		t.Error("the API still answers after Stop")
	}
	p.port.SetText("port")
	test.Tap(p.button)
	if p.api != nil || !strings.Contains(p.status.Text, "number") {
		t.Errorf("a bad port: %s", p.status.Text)
	}
}
