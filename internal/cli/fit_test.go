package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"saji/engine/hardware"
	"saji/engine/hub/hubtest"
	"saji/engine/synth/synthtest"
	"saji/internal/refdata"
)

func fakeMachine(context.Context) hardware.Machine {
	return hardware.Machine{CPU: hardware.CPU{Model: "Test CPU", Cores: 2, Threads: 2},
		Memory: hardware.Memory{Total: 16 << 30, Available: 12 << 30}, Bandwidth: 20e9}
}

func TestFit(t *testing.T) {
	model := refdata.Path(t, "models/tiny-llama-spm-q8_0.gguf")
	for _, tc := range []struct {
		name string
		ff   fitFlags
		want []string
	}{
		{"table", fitFlags{kv: "f16", gpu: -1}, []string{"Machine: Test CPU, 2 cores", "SIZE", "8B", "70B", "won't fit"}},
		{"model", fitFlags{model: model, ctx: 256, kv: "q8_0", parallel: 2, gpu: -1},
			[]string{"Weights: ", "KV cache at 256 tokens, q8_0", "KV cache: 2 parallel sequences of 256 tokens: a pool of 512 tokens", "Verdict: fits in RAM", "Decode: about"}},
		{"desktop", fitFlags{model: model, ctx: 256, kv: "f16", parallel: 1, gpu: -1},
			[]string{"KV cache: 1 conversation of 256 tokens + a reserve of 512: a pool of 768 tokens"}},
		{"past the trained context", fitFlags{model: model, ctx: 4096, kv: "f16", parallel: 1, gpu: -1},
			[]string{"Largest context that fits: 2048 tokens", "Warning: the context of 4096 tokens exceeds the 2048 the model was trained with"}},
		{"measure", fitFlags{model: model, ctx: 128, kv: "f16", gpu: -1, measure: true, measureTokens: 4},
			[]string{"Measured: resident", "Measured: decode"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.ff.detect = fakeMachine
			var out bytes.Buffer
			if err := runFit(context.Background(), &tc.ff, &out); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
	ff := fitFlags{model: model, ctx: 256, kv: "f16", gpu: -1, json: true, detect: fakeMachine}
	var out bytes.Buffer
	if err := runFit(context.Background(), &ff, &out); err != nil {
		t.Fatal(err)
	}
	var v struct {
		Plan struct {
			Verdict struct {
				Kind string `json:"kind"`
			} `json:"verdict"`
			MaxContext int `json:"max_context"`
		} `json:"plan"`
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Plan.Verdict.Kind != "cpu_only" || v.Plan.MaxContext == 0 {
		t.Errorf("JSON %+v (%v):\n%s", v, err, out.String())
	}
	for _, bad := range []fitFlags{{measure: true, kv: "f16"}, {model: model, kv: "q4_0"}, {model: "/nonexistent/x.gguf", kv: "f16"}} {
		bad.detect = fakeMachine
		if err := runFit(context.Background(), &bad, &bytes.Buffer{}); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestFitHubUnrunnable refuses, with the reason, a level Saji cannot run,
// as saji fit --model REPO:QUANT reads it before any download: by its
// header (HTTP Range) or by its name.
func TestFitHubUnrunnable(t *testing.T) {
	bad, err := unrunnableGGUF()
	if err != nil {
		t.Fatal(err)
	}
	s := newPullSetup(t)
	const repo = "saji-test/Unrunnable-GGUF"
	files := map[string][]byte{"Unrunnable-Q4_K_M.gguf": bad}
	named := synthtest.UnrunnableLevel()
	if named != "" {
		files["Unrunnable-"+named+".gguf"] = s.files["Tiny-Q8_0.gguf"]
	}
	s.hub.AddRepo(repo, files, hubtest.RepoOptions{})
	tests := []struct {
		name, level, want string
	}{
		{"header", "Q4_K_M", "fit: model: blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet"},
		{"name", named, "fit: " + named + " of " + repo + ": model: " + named + " files are mostly "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.level == "" {
				t.Skip("every IQ, TQ and MXFP4 type has a kernel")
			}
			ff := fitFlags{model: repo + ":" + tc.level, ctx: 256, kv: "f16", gpu: -1, detect: fakeMachine}
			err := runFit(context.Background(), &ff, &bytes.Buffer{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("fit: %v, want %q", err, tc.want)
			}
		})
	}
}
