package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"saji/internal/refdata"
)

// TestRealClients drives the API with the official openai and ollama npm
// packages (testdata/clients: chat, streaming, completions, models and
// errors; tags, show, ps, chat and generate). It needs Node.js and the
// packages installed (`npm ci` in testdata/clients, as `make clients`
// does), so it runs only with SAJI_CLIENT_TESTS=1.
func TestRealClients(t *testing.T) {
	if os.Getenv("SAJI_CLIENT_TESTS") != "1" {
		t.Skip("set SAJI_CLIENT_TESTS=1 (make clients) to drive the API with the npm clients")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		t.Fatalf("the npm clients are not installed: run npm ci in %s", dir)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	s, hs := newTestServer(t, Config{})
	// A model with a tool-call format (Qwen2.5's template) for the tools
	// requests, when the reference data is there.
	toolsModel := ""
	if _, err := os.Stat(filepath.Join(refdata.Dir(t), "templates")); err == nil {
		s.Runner().Add(qwenModel(t))
		toolsModel = "qwen"
	}
	for _, script := range []string{"openai.mjs", "ollama.mjs"} {
		t.Run(script, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, script)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "SAJI_URL="+hs.URL, "SAJI_MODEL=tiny", "SAJI_TOOLS_MODEL="+toolsModel)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", script, err, out)
			}
			t.Logf("%s: %s", script, out)
		})
	}
}
