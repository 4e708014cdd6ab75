// Command servecmp compares the greedy completions of two OpenAI-style
// servers on the same model: Saji's (`saji serve`) and llama.cpp's
// (`llama-server`). For each prompt it asks both for a greedy completion
// with the top-5 log-probabilities of every step (/v1/completions with
// logprobs 5) and reports, step by step, whether the chosen tokens and the
// top-5 tokens agree and by how much their log-probabilities differ. It
// exits non-zero when a step's tokens differ or a log-probability differs
// by more than -tol.
//
// Usage: go run ./internal/tools/servecmp -saji URL -peer URL [-n 16] [-tol 2e-3] [-prompts FILE]
//
// The prompts file is the shared testdata's prompts.json ([{id, text}]);
// by default two built-in prompts are used.
//
// Both servers must read each prompt in the same chunks. llama.cpp's
// results depend on how a prompt is split into batches (ggml's kernels
// are not batch-invariant to the last bit, and the roundings of an F16
// cache's flash attention and of the 8-bit activations before a quantized
// matrix product turn a last-bit difference into 1e-2 or more: llama.cpp's
// own figures in testdata/ref/*.tail4.kvf16.json, the last 4 prompt tokens
// read alone, are up to 9e-2 away from its one-batch ones), and Saji
// follows ggml's float operations, chunk for chunk. With their defaults
// the two servers chunk differently: llama-server reads the last 4 tokens
// of a prompt alone where it keeps context checkpoints (models with
// recurrent layers or a sliding window: Qwen3.5, Gemma 4, Granite 4,
// Nemotron-H), Saji ends a hybrid model's chunk at the last 16-token block
// boundary (where it snapshots the recurrent state for its prefix cache),
// and both reuse an earlier request's prefix and compute only the rest.
// Run them without any of that, so that each reads a prompt of
// up to 128 tokens in one batch, as llama.cpp's reference figures do:
//
//	saji serve -m FILE --port 8080 -t 2 --ctx 4096 --no-prefix-cache
//	llama-server -m FILE --port 8081 -t 2 -c 4096 --ctx-checkpoints 0
//
// servecmp asks llama-server not to reuse a cached prompt
// (cache_prompt: false); Saji has no such request field, hence
// --no-prefix-cache. A longer prompt is read in chunks of 128 tokens by
// Saji (--token-budget) and of 512 by llama-server (-ub): give both the
// same. Over an F32 cache (saji serve --ctk f32) Saji computes llama.cpp's
// figures without flash attention, which llama-server keeps on with -ctk
// f32 -ctv f32 (-fa auto): give it -fa off too (on tiny-gemma4moe the
// two differ by 4e-1 otherwise, and agree within 2e-6 so).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// prompt is one entry of prompts.json.
type prompt struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// step is one generated token with the top-5 alternatives. Missing marks
// a step llama-server generated but sent no probabilities for (see
// peerSteps).
type step struct {
	Token   string
	LogProb float64
	Top     map[string]float64
	Missing bool
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("servecmp", flag.ContinueOnError)
	sajiURL := fs.String("saji", "http://127.0.0.1:8080", "Saji's base `URL`")
	peerURL := fs.String("peer", "http://127.0.0.1:8081", "llama-server's base `URL`")
	n := fs.Int("n", 16, "tokens per completion")
	tol := fs.Float64("tol", 2e-3, "the largest log-probability difference accepted")
	promptsFile := fs.String("prompts", "", "prompts.json `FILE` (default: two built-in prompts)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	prompts := []prompt{{"p0", "Once upon a time, there was a little girl named Lily."},
		{"p1", "The quick brown fox jumps over the lazy dog. In 2024,"}}
	if *promptsFile != "" {
		b, err := os.ReadFile(*promptsFile)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &prompts); err != nil {
			return fmt.Errorf("servecmp: %s: %w", *promptsFile, err)
		}
	}
	failed := false
	for _, p := range prompts {
		a, err := sajiSteps(*sajiURL, p.Text, *n)
		if err != nil {
			return fmt.Errorf("servecmp: saji: %w", err)
		}
		b, err := peerSteps(*peerURL, p.Text, *n)
		if err != nil {
			return fmt.Errorf("servecmp: peer: %w", err)
		}
		if !compare(out, p.ID, a, b, *n, *tol) {
			failed = true
		}
	}
	if failed {
		return errors.New("servecmp: the servers differ")
	}
	return nil
}

// compare reports, step by step, how Saji's steps a and llama-server's b
// of one prompt (id) differ, and whether they agree: the same tokens, the
// same top-5 and log-probabilities within tol. A step llama-server sent
// no probabilities for is skipped; a token whose text is not a whole
// character on either side (see keys) is compared by its log-probability.
func compare(out io.Writer, id string, a, b []step, n int, tol float64) bool {
	ok := true
	worst, same, skipped := 0.0, 0, 0
	for i := range min(len(a), len(b)) {
		if b[i].Missing {
			skipped++
			continue
		}
		sameTok := a[i].Token == b[i].Token
		if !sameTok && (ambiguous(a[i].Token) || ambiguous(b[i].Token)) {
			sameTok = math.Abs(a[i].LogProb-b[i].LogProb) <= tol
		}
		if !sameTok {
			fmt.Fprintf(out, "%s step %d: saji chose %q, llama-server %q\n", id, i, a[i].Token, b[i].Token)
			ok = false
			break
		}
		ka, kb := keys(a[i].Top), keys(b[i].Top)
		if !slices.Equal(ka, kb) {
			fmt.Fprintf(out, "%s step %d: top-5 differ: saji %q, llama-server %q\n", id, i, ka, kb)
			ok = false
		}
		for _, tok := range kb {
			if la, found := a[i].Top[tok]; found {
				worst = max(worst, math.Abs(la-b[i].Top[tok]))
			}
		}
		same++
	}
	if len(a) != len(b) {
		// llama-server's stream ends early where its output parser
		// refuses the text (see peerSteps): only the steps both gave
		// are compared.
		fmt.Fprintf(out, "%s: saji generated %d tokens, llama-server %d\n", id, len(a), len(b))
	}
	if skipped > 0 {
		fmt.Fprintf(out, "%s: %d steps without llama-server's probabilities skipped\n", id, skipped)
	}
	if worst > tol {
		ok = false
	}
	fmt.Fprintf(out, "%s: %d/%d steps with the same token and top-5, largest logprob difference %.2e\n", id, same, n, worst)
	return ok
}

// ambiguous reports whether a token's text says too little to compare:
// a control token's (""), or a piece of a UTF-8 character, which Saji
// writes as U+FFFD and llama-server as U+FFFD, "" or, for the token that
// completes the character, the whole character.
func ambiguous(tok string) bool { return tok == "" || strings.ContainsRune(tok, utf8.RuneError) }

// keys returns m's keys sorted, less the ones that are not a whole
// token's text: control tokens (""), and pieces of a UTF-8 character,
// which Saji writes as U+FFFD (encoding/json's replacement) and
// llama-server cuts to "". Both servers key the top-5 by text, so such
// tokens collide on each side.
func keys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		if ambiguous(k) {
			continue
		}
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// post sends body to url and decodes the JSON answer into v.
func post(url string, body any, v any) error {
	b, _ := json.Marshal(body)
	c := http.Client{Timeout: 5 * time.Minute}
	resp, err := c.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s: %s", url, resp.Status, strings.TrimSpace(string(raw)))
	}
	return json.Unmarshal(raw, v)
}

// request is the greedy completion Saji is asked for.
func request(text string, n int) map[string]any {
	return map[string]any{"prompt": text, "max_tokens": n, "temperature": 0, "logprobs": 5, "stream": false}
}

// sajiSteps reads OpenAI's legacy completions logprobs (tokens and
// top_logprobs maps), as Saji answers.
func sajiSteps(base, text string, n int) ([]step, error) {
	var r struct {
		Choices []struct {
			LogProbs struct {
				Tokens        []string             `json:"tokens"`
				TokenLogProbs []float64            `json:"token_logprobs"`
				TopLogProbs   []map[string]float64 `json:"top_logprobs"`
			} `json:"logprobs"`
		} `json:"choices"`
	}
	if err := post(strings.TrimRight(base, "/")+"/v1/completions", request(text, n), &r); err != nil {
		return nil, err
	}
	if len(r.Choices) == 0 {
		return nil, errors.New("no choices")
	}
	lp := r.Choices[0].LogProbs
	var out []step
	for i, t := range lp.Tokens {
		s := step{Token: t}
		if i < len(lp.TokenLogProbs) {
			s.LogProb = lp.TokenLogProbs[i]
		}
		if i < len(lp.TopLogProbs) {
			s.Top = lp.TopLogProbs[i]
		}
		out = append(out, s)
	}
	return out, nil
}

// peerRequest is the greedy completion llama-server is asked for on its
// /completion endpoint. cache_prompt false makes it read the whole prompt
// again rather than an earlier request's prefix from its cache and the
// rest alone: another chunking than Saji's, and other logits (see the
// package comment).
func peerRequest(text string, n int) map[string]any {
	return map[string]any{"prompt": text, "n_predict": n, "temperature": 0, "n_probs": 5, "stream": true, "cache_prompt": false}
}

// peerSteps reads llama-server's own /completion endpoint (n_probs 5),
// streamed: the same engine and probabilities as its /v1/completions. On
// some random models llama-server's chat-format parser refuses the text
// after a few tokens ("does not match the expected Content-only format"),
// which ends its stream early; peerSteps then returns the tokens so far.
func peerSteps(base, text string, n int) ([]step, error) {
	req, _ := json.Marshal(peerRequest(text, n))
	c := http.Client{Timeout: 5 * time.Minute}
	resp, err := c.Post(strings.TrimRight(base, "/")+"/completion", "application/json", bytes.NewReader(req))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", base, resp.Status)
	}
	return readPeerStream(resp.Body)
}

// readPeerStream reads the steps of llama-server's streamed /completion
// answer. An event carries the probabilities of the tokens it sends, and
// tokens_predicted, the count generated so far: llama-server holds back a
// token that ends inside a UTF-8 character and sends the character with
// the next event, without the held token's probabilities, so each event's
// entries are the last of the tokens_predicted, and a step none came for
// is Missing. A step's token is its own piece (from the top-5 entry of its
// id), not the text sent with it, and a piece whose bytes are not whole
// UTF-8 characters is "" (llama-server's text cuts them off: " " for
// " \xe2\x80", where Saji writes " \ufffd\ufffd"), which compare and keys
// treat as ambiguous.
func readPeerStream(r io.Reader) ([]step, error) {
	type tok struct {
		ID      int     `json:"id"`
		Token   string  `json:"token"`
		Bytes   []int   `json:"bytes"`
		LogProb float64 `json:"logprob"`
	}
	// text is t's piece, "" where its bytes are not whole characters.
	text := func(t tok) string {
		if t.Bytes == nil {
			return t.Token // an older llama-server, without bytes
		}
		b := make([]byte, len(t.Bytes))
		for i, v := range t.Bytes {
			b[i] = byte(v)
		}
		if !utf8.Valid(b) {
			return ""
		}
		return string(b)
	}
	var out []step
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Predicted int `json:"tokens_predicted"`
			Probs     []struct {
				tok
				Top []tok `json:"top_logprobs"`
			} `json:"completion_probabilities"`
		}
		if json.Unmarshal([]byte(data), &ev) != nil || len(ev.Probs) == 0 {
			continue
		}
		for len(out) < ev.Predicted-len(ev.Probs) {
			out = append(out, step{Missing: true})
		}
		for _, p := range ev.Probs {
			s := step{Token: text(p.tok), LogProb: p.LogProb, Top: map[string]float64{}}
			for _, t := range p.Top {
				s.Top[text(t)] = t.LogProb
				if t.ID == p.ID {
					s.Token = text(t)
				}
			}
			out = append(out, s)
		}
	}
	return out, sc.Err()
}
