package server

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"saji/engine/download"
	"saji/engine/gguf"
	"saji/engine/hub/hubtest"
	"saji/engine/library"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/internal/refdata"
)

// clientScripts are the scripts in testdata/clients, one per npm client.
var clientScripts = []string{"openai.mjs", "ollama.mjs", "aisdk.mjs", "langchain.mjs", "anthropic.mjs", "llamaserver.mjs", "browser.mjs"}

// TestRealClients drives the API with the official npm clients (openai,
// ollama, the Vercel AI SDK with @ai-sdk/openai-compatible, LangChain's
// @langchain/openai and @anthropic-ai/sdk; testdata/clients), each script a
// list of named checks, one per point of the API, against the tiny model
// and the scripted fixture models of scriptedFixtures. It needs the
// packages installed (`npm ci` in testdata/clients, as `make clients`
// does), which bring the Node.js they run on, so it runs only with
// SAJI_CLIENT_TESTS=1. SAJI_CLIENT_CHECKS and SAJI_CLIENT_SKIP select
// checks by name or by the feature they need (testdata/clients/checks.mjs),
// SAJI_CLIENT_SCRIPTS scripts by file name (a comma-separated list).
func TestRealClients(t *testing.T) {
	if os.Getenv("SAJI_CLIENT_TESTS") != "1" {
		t.Skip("set SAJI_CLIENT_TESTS=1 (make clients) to drive the API with the npm clients")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "clients"))
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(dir, "node_modules", "node", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("the npm clients and their Node.js are not installed: run npm ci in %s", dir)
	}
	// A library of its own, for Ollama's create, copy and delete.
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rn := runner.New(runner.Config{Library: lib, MaxLoaded: 64, Load: runner.LoadOptions{Threads: 1,
		Scheduler: scheduler.Config{Context: fixtureContext, MaxSeqs: 4}}})
	// A download manager of its own, for Ollama's pull: the server's
	// default keeps its state in the user's downloads folder.
	dl, err := download.New(download.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dl.Close() })
	s, hs := newTestServer(t, Config{Runner: rn, Downloads: func() (*download.Manager, error) { return dl, nil }})
	env := append(os.Environ(), "SAJI_URL="+hs.URL, "SAJI_MODEL=tiny")
	s.Runner().Add(visionFixture(t))
	for _, f := range scriptedFixtures(t) {
		s.Runner().Add(f)
		if f.Name == "plain" {
			// ollama.mjs uploads it as a blob for /api/create and pulls
			// it from a fake Hugging Face (with a download manager:
			// Config.Downloads).
			servePlain(t, f.Path)
			env = append(env, "SAJI_CREATE_GGUF="+f.Path, "SAJI_PULL_MODEL=hf.co/owner/plain-GGUF:Q8_0")
		}
	}
	selected := map[string]bool{}
	for _, name := range strings.Split(os.Getenv("SAJI_CLIENT_SCRIPTS"), ",") {
		if name = strings.TrimSpace(name); name != "" {
			selected[name] = true
		}
	}
	passed := 0
	for _, script := range clientScripts {
		if len(selected) > 0 && !selected[script] {
			continue
		}
		t.Run(script, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, script)
			cmd.Dir = dir
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if m := summary.FindSubmatch(out); m != nil {
				n, _ := strconv.Atoi(string(m[1]))
				passed += n
			}
			if err != nil {
				t.Fatalf("%s: %v\n%s", script, err, out)
			}
			t.Logf("%s:\n%s", script, out)
		})
	}
	if passed == 0 {
		t.Error("no check ran: SAJI_CLIENT_SCRIPTS or SAJI_CLIENT_CHECKS selects none")
	}
}

// servePlain serves the GGUF file at path as owner/plain-GGUF's Q8_0 file
// from a fake Hugging Face, which HF_ENDPOINT points to.
// visionFixture returns the fixture model that can see ("vision" in
// checks.mjs): Saji's tiny Gemma 3 with its tiny projector, random
// weights, so the @vision checks compare its greedy reply across the
// dialects' forms instead of a script.
func visionFixture(t *testing.T) *runner.Model { return visionFixtureOf(t, "tiny-gemma3-vision") }

// visionFixtureOf is the model "vision" of the vision shape called shape
// (synth.WriteVisionPair).
func visionFixtureOf(t *testing.T, shape string) *runner.Model {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	path, proj := filepath.Join(dir, "vision.gguf"), filepath.Join(dir, "mmproj-vision.gguf")
	if err := synth.WriteVisionPair(ctx, path, proj, shape, gguf.FileTypeMostlyQ8_0, 1); err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(ctx, path, runner.LoadOptions{Name: "vision", Threads: 1, Projector: proj,
		Scheduler: scheduler.Config{Context: fixtureContext, MaxSeqs: 4}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func servePlain(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fake := hubtest.New(t)
	fake.AddRepo("owner/plain-GGUF", map[string][]byte{"plain-Q8_0.gguf": data}, hubtest.RepoOptions{})
	t.Setenv("HF_ENDPOINT", fake.URL)
	t.Setenv("HF_TOKEN", "")
	t.Setenv("HUGGING_FACE_HUB_TOKEN", "")
}

// summary matches a client script's last line, "NAME: N passed, ...".
var summary = regexp.MustCompile(`(?m)^\w+: (\d+) passed, \d+ failed, \d+ skipped$`)

// fixtureContext is the fixtures' context: the mini vocabulary spells
// most of a prompt byte by byte, so a template's tool instructions take
// thousands of tokens.
const fixtureContext = 16384

// scriptedFixtures writes and loads the scripted models the client scripts
// expect (their replies are in testdata/clients/checks.mjs): plain,
// think, hermes, coder, json, gptoss, fim, parallel and one per tool-call
// format, each with a real model's chat template.
func scriptedFixtures(t *testing.T) []*runner.Model {
	t.Helper()
	templates := filepath.Join(refdata.Dir(t), "templates")
	qwen25, qwen3, qwen35 := "Qwen-Qwen2.5-7B-Instruct.jinja", "Qwen-Qwen3-0.6B.jinja", "Qwen3.5-4B.jinja"
	gptoss := "openai-gpt-oss-120b.jinja"
	var out []*runner.Model
	for _, f := range []struct {
		name, template string
		reply          []string
		control        []string
	}{
		{"plain", qwen25, []string{"Hello", "! How", " can I help?"}, nil},
		{"think", qwen3, []string{"<think>\n", "The user greets me.", "\n</think>\n\n", "Hello!"}, nil},
		{"hermes", qwen25, []string{"<tool_call>\n", `{"name": "get_weather", `, `"arguments": {"city": "Paris"}}`, "\n</tool_call>"}, nil},
		// Qwen 3.5's generation prompt opens the reasoning block.
		{"coder", qwen35, []string{"I should check the weather.", "\n</think>\n\n", "<tool_call>\n<function=get_weather>\n",
			"<parameter=city>\nParis\n</parameter>\n", "</function>\n</tool_call>"}, nil},
		{"json", qwen25, []string{`{"name":"Ada",`, `"age":36,`, `"email":null,`, `"role":{"kind":"admin","level":3},`,
			`"tags":["math","code"],`, `"code":"AB-12"}`}, nil},
		// gpt-oss's harmony: reasoning in the analysis channel, then a call.
		{"gptoss", gptoss, []string{"<|channel|>analysis<|message|>", "I should check the weather.",
			"<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>",
			`{"city":"Paris"}`, "<|call|>"}, nil},
		// Two calls in one reply.
		{"parallel", qwen25, []string{"<tool_call>\n", `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
			"\n</tool_call>\n<tool_call>\n", `{"name": "get_weather", "arguments": {"city": "Lyon"}}`, "\n</tool_call>"}, nil},
		// A get_weather call in the formats of other families, as
		// llama.cpp's tests write them.
		// (llama.cpp's own R1 template pipes map() into tojson, which
		// Jinja2 refuses, as Saji does; the distill's renders no tools.)
		{"deepseek-r1", "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja", []string{"I should check the weather.", "\n</think>\n\n",
			"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n",
			`{"city": "Paris"}`, "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"}, nil},
		{"deepseek-v3.1", "deepseek-ai-DeepSeek-V3.1.jinja", []string{"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>",
			`{"city": "Paris"}`, "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"}, nil},
		{"granite", "ibm-granite-granite-4.0.jinja", []string{"<tool_call>\n", `{"name": "get_weather", "arguments": {"city": "Paris"}}`,
			"\n</tool_call>"}, nil},
		{"command-r7b", "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja", []string{"<|START_ACTION|>[\n",
			`    {"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}`, "\n]<|END_ACTION|>"}, nil},
		// Functionary v3.2's generation prompt ends with ">>>".
		{"functionary", "meetkai-functionary-medium-v3.2.jinja", []string{"get_weather\n", `{"city": "Paris"}`}, nil},
		// A ChatML template with no tool-call syntax: the generic JSON
		// format (tools described in the system turn).
		{"generic", "lcpptest-teknium-OpenHermes-2.5-Mistral-7B.jinja", []string{`{"tool_calls":[`,
			`{"name":"get_weather",`, `"arguments":{"city":"Paris"}}`, `]}`}, nil},
		// A code model with Qwen 2.5 Coder's fill-in-the-middle tokens.
		{"fim", qwen25, []string{"return a + b"}, []string{"<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>"}},
	} {
		src, err := os.ReadFile(filepath.Join(templates, f.template))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), f.name+".gguf")
		if err := synth.WriteScripted(context.Background(), path, synth.Script{Reply: f.reply, Template: string(src),
			Control: f.control, Context: fixtureContext}); err != nil {
			t.Fatal(err)
		}
		m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: f.name, Threads: 1,
			Scheduler: scheduler.Config{Context: fixtureContext, MaxSeqs: 4}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}
