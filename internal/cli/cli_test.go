package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"saji/internal/instance"
)

func run(t *testing.T, opts Options, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	var out, errb bytes.Buffer
	opts.Stdout, opts.Stderr = &out, &errb
	status = Main(args, opts)
	return out.String(), errb.String(), status
}

func TestRoot(t *testing.T) {
	opened, model := 0, ""
	open := func(_ context.Context, m []string, _ *instance.Server) error {
		opened++
		model = strings.Join(m, ",")
		return nil
	}
	tests := []struct {
		name       string
		args       []string
		wantStatus int
		wantOut    string
		wantErr    string
		wantOpened int
	}{
		{"no arguments opens the app", nil, 0, "", "", 1},
		{"--model opens the app with a model", []string{"--model", "m.gguf"}, 0, "", "", 1},
		{"a .gguf argument opens the app with it", []string{"x.GGUF"}, 0, "", "", 1},
		{"several .gguf files", []string{"a.gguf", "b.gguf"}, 0, "", "", 1},
		{"a model and a picture for the chat", []string{"a.gguf", "cat.JPG"}, 0, "", "", 1},
		{"a text file", []string{"notes.txt"}, 1, "", "unknown command", 0},
		{"help", []string{"--help"}, 0, "headless", "", 0},
		{"version", []string{"version"}, 0, "saji   dev", "", 0},
		{"version flag", []string{"--version"}, 0, "dev", "", 0},
		{"unknown command", []string{"frobnicate"}, 1, "", "unknown command", 0},
		{"stray argument to root", []string{"--verbose", "x"}, 1, "", "saji:", 0},
		{"gguf needs a file", []string{"gguf"}, 1, "", "arg", 0},
		{"gguf help", []string{"gguf", "--help"}, 0, "gguf", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opened = 0
			out, errs, status := run(t, Options{OpenApp: open}, tt.args...)
			if status != tt.wantStatus {
				t.Errorf("status %d, want %d (stderr %q)", status, tt.wantStatus, errs)
			}
			if !strings.Contains(out, tt.wantOut) {
				t.Errorf("stdout %q lacks %q", out, tt.wantOut)
			}
			if !strings.Contains(errs, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", errs, tt.wantErr)
			}
			if opened != tt.wantOpened {
				t.Errorf("app opened %d times, want %d", opened, tt.wantOpened)
			}
			want := strings.Join(tt.args, ",")
			if tt.args != nil && tt.args[0] == "--model" {
				want = tt.args[1]
			}
			if opened == 1 && model != want {
				t.Errorf("app opened with model %q, want %q", model, want)
			}
		})
	}
}

func TestVersionStamp(t *testing.T) {
	defer func(v, c, d string) { Version, Commit, BuildDate = v, c, d }(Version, Commit, BuildDate)
	tests := []struct {
		name                    string
		version, commit, date   string
		wantLines, notWantLines []string
	}{
		{"stamped by make package", "0.1.0-3-gabcdef1", "abcdef1234567890", "2026-12-05T06:00:00Z",
			[]string{"saji   0.1.0-3-gabcdef1", "commit abcdef1234567890", "built  2026-12-05T06:00:00Z", "go     go"}, nil},
		{"unstamped: the go command's build info or unknown", "dev", "", "",
			[]string{"saji   dev", "commit ", "built  "}, []string{"commit \n", "built  \n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Version, Commit, BuildDate = tt.version, tt.commit, tt.date
			out, errs, status := run(t, Options{}, "version")
			if status != 0 {
				t.Fatalf("status %d, stderr %q", status, errs)
			}
			for _, w := range tt.wantLines {
				if !strings.Contains(out, w) {
					t.Errorf("output %q lacks %q", out, w)
				}
			}
			for _, w := range tt.notWantLines {
				if strings.Contains(out, w) {
					t.Errorf("output %q has %q", out, w)
				}
			}
			if got := buildRevision(); tt.commit != "" && got != tt.commit[:7] {
				t.Errorf("buildRevision() = %q, want %q", got, tt.commit[:7])
			}
		})
	}
}

func TestRootWithoutApp(t *testing.T) {
	_, errs, status := run(t, Options{})
	if status != 1 || !strings.Contains(errs, "no desktop app") {
		t.Errorf("status %d, stderr %q", status, errs)
	}
}

func TestAppErrorIsReported(t *testing.T) {
	_, errs, status := run(t, Options{OpenApp: func(context.Context, []string, *instance.Server) error { return errors.New("no display") }})
	if status != 1 || !strings.Contains(errs, "no display") {
		t.Errorf("status %d, stderr %q", status, errs)
	}
}

func TestSecondLaunchHandsOver(t *testing.T) {
	dir := t.TempDir()
	var got []string
	var claimed *instance.Server
	first := func(_ context.Context, _ []string, inst *instance.Server) error {
		claimed = inst
		return nil
	}
	// The first launch claims the instance (and closes its claim when the
	// app returns): claim it here to keep it open while a second launch runs.
	inst, err := instance.Claim(context.Background(), dir, nil)
	if err != nil || inst == nil {
		t.Fatal(inst, err)
	}
	files := make(chan []string, 1)
	go inst.Serve(func(f []string) { files <- f })
	defer inst.Close()
	second := func(context.Context, []string, *instance.Server) error {
		t.Error("the second launch opened an app")
		return nil
	}
	_, errs, status := run(t, Options{OpenApp: second, InstanceDir: dir}, "--model", "m.gguf")
	if status != 0 {
		t.Fatalf("the second launch exited %d: %s", status, errs)
	}
	select {
	case got = <-files:
	case <-time.After(time.Minute):
		t.Fatal("the running app got nothing")
	}
	if want, _ := filepath.Abs("m.gguf"); len(got) != 1 || got[0] != want {
		t.Errorf("the running app got %q, want [%q]", got, want)
	}
	inst.Close()
	// With the first gone, a launch claims the instance and opens the app.
	if _, errs, status := run(t, Options{OpenApp: first, InstanceDir: dir}); status != 0 || claimed == nil {
		t.Fatalf("status %d, claim %v: %s", status, claimed, errs)
	}
}

func TestHeadlessCommandsAreNotSingleInstance(t *testing.T) {
	dir := t.TempDir()
	inst, err := instance.Claim(context.Background(), dir, nil)
	if err != nil || inst == nil {
		t.Fatal(inst, err)
	}
	defer inst.Close() // held, never served: a command that tried to hand over would fail
	out, errs, status := run(t, Options{InstanceDir: dir}, "version")
	if status != 0 || !strings.Contains(out, "saji ") {
		t.Errorf("version with an app running: status %d, %q %q", status, out, errs)
	}
}
