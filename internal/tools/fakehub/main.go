// Command fakehub serves a fake Hugging Face Hub (engine/hub/hubtest) on a
// fixed address, so a person can try `saji pull` and the Discover view
// without the network and watch a slow or interrupted download.
//
// By default it serves saji-test/Tiny-GGUF: Saji's tiny test model (a
// 4-layer llama with random weights) in Q8_0 and Q4_K_M, and the same model
// as saji-test/Tiny-Gated-GGUF, a gated repository that wants the token
// given with -token. With -model, the given GGUF files make up
// saji-test/Local-GGUF instead.
//
// Usage:
//
//	go run ./internal/tools/fakehub [-addr 127.0.0.1:8089] [-rate 2MB] [-cut 1000000] [-model a.gguf ...]
//	HF_ENDPOINT=http://127.0.0.1:8089 saji pull saji-test/Tiny-GGUF:Q8_0
//
// -rate throttles every transfer; -cut closes the connection of each file's
// first transfer after that many bytes (the download manager retries from
// where it stopped).
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"saji/engine/hub/hubtest"
	"saji/engine/synth"
)

// Repository names the tool serves.
const (
	tinyRepo  = "saji-test/Tiny-GGUF"
	gatedRepo = "saji-test/Tiny-Gated-GGUF"
	localRepo = "saji-test/Local-GGUF"
)

// modelList is a repeatable -model flag.
type modelList []string

func (m *modelList) String() string     { return strings.Join(*m, ",") }
func (m *modelList) Set(v string) error { *m = append(*m, v); return nil }

// byteSize is a flag holding a size such as "2MB", "512k" or "1000000".
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "fakehub:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		addr    = flag.String("addr", "127.0.0.1:8089", "the hub's address (use http://ADDR as HF_ENDPOINT)")
		cdnAddr = flag.String("cdn-addr", "", "the CDN's address (default: the hub's host, any free port)")
		token   = flag.String("token", "hf_fakehub", "the token the gated repository wants (HF_TOKEN)")
		models  modelList
		rate    byteSize
		cut     byteSize
	)
	flag.Var(&models, "model", "serve this GGUF file in "+localRepo+" (repeatable) instead of the tiny model")
	flag.Var(&rate, "rate", "throttle every transfer to this many bytes a second (2MB, 500k...; 0: no limit)")
	flag.Var(&cut, "cut", "cut each file's first transfer after this many bytes (0: never)")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (files go with -model)", flag.Args())
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()

	repos, err := repositories(ctx, models)
	if err != nil {
		return err
	}
	hubLn, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if *cdnAddr == "" {
		host, _, err := net.SplitHostPort(hubLn.Addr().String())
		if err != nil {
			hubLn.Close()
			return err
		}
		*cdnAddr = net.JoinHostPort(host, "0")
	}
	cdnLn, err := net.Listen("tcp", *cdnAddr)
	if err != nil {
		hubLn.Close()
		return err
	}
	if rate > 0 {
		// The pace is kept here, on the CDN's connections, rather than
		// with hubtest's Throttle, which paces within each write only.
		cdnLn = &pacedListener{Listener: cdnLn, pace: &pacer{rate: float64(rate)}}
	}
	h := hubtest.Serve(hubLn, cdnLn)
	defer h.Close()
	h.SetToken(*token)
	for _, r := range repos {
		h.AddRepo(r.id, r.files, hubtest.RepoOptions{
			Gated: r.gated, Downloads: 1234, Likes: 56, License: "mit",
			Card: "# " + r.id + "\n\nA tiny llama with random weights, for trying Saji's downloads.\n",
		})
		for name := range r.files {
			if cut > 0 {
				h.CutAfter("/"+r.id+"/resolve/main/"+name, int64(cut), 1)
			}
		}
	}

	fmt.Printf("fake hub on %s (CDN %s)\n", h.URL, h.CDNURL)
	for _, r := range repos {
		note := ""
		if r.gated {
			note = fmt.Sprintf(" (gated: HF_TOKEN=%s)", *token)
		}
		fmt.Printf("  %s%s\n", r.id, note)
		for _, name := range sortedNames(r.files) {
			fmt.Printf("    %-24s %d bytes\n", name, len(r.files[name]))
		}
	}
	fmt.Printf("try: HF_ENDPOINT=%s saji pull %s --list\n", h.URL, repos[0].id)
	<-ctx.Done()
	fmt.Println("fake hub stopped")
	return nil
}

// fakeRepo is one repository to serve.
type fakeRepo struct {
	id    string
	files map[string][]byte
	gated bool
}

// repositories builds the repositories: the given files, or the tiny model
// in two levels (public and gated).
func repositories(ctx context.Context, models []string) ([]fakeRepo, error) {
	if len(models) > 0 {
		files := map[string][]byte{}
		for _, p := range models {
			if !strings.EqualFold(filepath.Ext(p), ".gguf") {
				return nil, fmt.Errorf("%s: not a .gguf file", p)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			files[filepath.Base(p)] = data
		}
		return []fakeRepo{{id: localRepo, files: files}}, nil
	}
	dir, err := os.MkdirTemp("", "fakehub-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	files := map[string][]byte{}
	for _, ft := range []string{"q8_0", "q4_k_m"} {
		name := "Tiny-" + strings.ToUpper(ft) + ".gguf"
		p := filepath.Join(dir, name)
		if err := synth.WriteTiny(ctx, p, ft, 5); err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	return []fakeRepo{
		{id: tinyRepo, files: files},
		{id: gatedRepo, files: files, gated: true},
	}, nil
}

// parseSize reads "2MB", "2M", "500k", "1.5GB" or a plain byte count
// (decimal units).
func parseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "B")
	mult := 1.0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult, t = 1e3, t[:n-1]
		case 'M':
			mult, t = 1e6, t[:n-1]
		case 'G':
			mult, t = 1e9, t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 2MB, 500k, 1000000)", s)
	}
	return int64(v * mult), nil
}

func sortedNames(m map[string][]byte) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// pacer spreads the bytes written by all the connections sharing it over
// time at rate bytes a second.
type pacer struct {
	rate float64
	mu   sync.Mutex
	next time.Time // when the bytes granted so far have been sent
}

// grant books n bytes and returns when they are due to have been sent.
func (p *pacer) grant(n int) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if p.next.Before(now) {
		p.next = now
	}
	p.next = p.next.Add(time.Duration(float64(n) / p.rate * float64(time.Second)))
	return p.next
}

// pacedListener paces what its connections write.
type pacedListener struct {
	net.Listener
	pace *pacer
}

func (l *pacedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &pacedConn{Conn: c, pace: l.pace}, nil
}

// pacedConn writes in pieces of a twentieth of a second, each after its
// time has come.
type pacedConn struct {
	net.Conn
	pace *pacer
}

func (c *pacedConn) Write(b []byte) (int, error) {
	piece := max(int(c.pace.rate/20), 1)
	n := 0
	for len(b) > 0 {
		k := min(piece, len(b))
		m, err := c.Conn.Write(b[:k])
		n += m
		if err != nil {
			return n, err
		}
		b = b[k:]
		time.Sleep(time.Until(c.pace.grant(k)))
	}
	return n, nil
}
