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

// step is one generated token with the top-5 alternatives.
type step struct {
	Token string
	Top   map[string]float64
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
		worst, same := 0.0, 0
		for i := range min(len(a), len(b)) {
			if a[i].Token != b[i].Token {
				fmt.Fprintf(out, "%s step %d: saji chose %q, llama-server %q\n", p.ID, i, a[i].Token, b[i].Token)
				failed = true
				break
			}
			ka, kb := keys(a[i].Top), keys(b[i].Top)
			if !slices.Equal(ka, kb) {
				fmt.Fprintf(out, "%s step %d: top-5 differ: saji %q, llama-server %q\n", p.ID, i, ka, kb)
				failed = true
			}
			for _, tok := range kb {
				if la, ok := a[i].Top[tok]; ok {
					lp := b[i].Top[tok]
					worst = max(worst, math.Abs(la-lp))
				}
			}
			same++
		}
		if len(a) != len(b) {
			// llama-server's stream ends early where its output parser
			// refuses the text (see peerSteps): only the steps both gave
			// are compared.
			fmt.Fprintf(out, "%s: saji generated %d tokens, llama-server %d\n", p.ID, len(a), len(b))
		}
		if worst > *tol {
			failed = true
		}
		fmt.Fprintf(out, "%s: %d/%d steps with the same token and top-5, largest logprob difference %.2e\n", p.ID, same, *n, worst)
	}
	if failed {
		return errors.New("servecmp: the servers differ")
	}
	return nil
}

// keys returns m's keys sorted, less the ones that are not a whole
// token's text: control tokens (""), and pieces of a UTF-8 character,
// which Saji writes as U+FFFD (encoding/json's replacement) and
// llama-server cuts to "". Both servers key the top-5 by text, so such
// tokens collide on each side.
func keys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		if k == "" || strings.ContainsRune(k, utf8.RuneError) {
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
				Tokens      []string             `json:"tokens"`
				TopLogProbs []map[string]float64 `json:"top_logprobs"`
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
		if i < len(lp.TopLogProbs) {
			s.Top = lp.TopLogProbs[i]
		}
		out = append(out, s)
	}
	return out, nil
}

// peerSteps reads llama-server's own /completion endpoint (n_probs 5),
// streamed: the same engine and probabilities as its /v1/completions. On
// some random models llama-server's chat-format parser refuses the text
// after a few tokens ("does not match the expected Content-only format"),
// which ends its stream early; peerSteps then returns the tokens so far.
func peerSteps(base, text string, n int) ([]step, error) {
	type tok struct {
		Token   string  `json:"token"`
		LogProb float64 `json:"logprob"`
	}
	req, _ := json.Marshal(map[string]any{"prompt": text, "n_predict": n, "temperature": 0, "n_probs": 5, "stream": true})
	c := http.Client{Timeout: 5 * time.Minute}
	resp, err := c.Post(strings.TrimRight(base, "/")+"/completion", "application/json", bytes.NewReader(req))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", base, resp.Status)
	}
	var out []step
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Probs []struct {
				tok
				Top []tok `json:"top_logprobs"`
			} `json:"completion_probabilities"`
		}
		if json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		for _, p := range ev.Probs {
			s := step{Token: p.Token, Top: map[string]float64{}}
			for _, t := range p.Top {
				s.Top[t.Token] = t.LogProb
			}
			out = append(out, s)
		}
	}
	return out, sc.Err()
}
