package cli

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
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
	open := func(_ context.Context, m []string) error { opened++; model = strings.Join(m, ","); return nil }
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
	_, errs, status := run(t, Options{OpenApp: func(context.Context, []string) error { return errors.New("no display") }})
	if status != 1 || !strings.Contains(errs, "no display") {
		t.Errorf("status %d, stderr %q", status, errs)
	}
}
