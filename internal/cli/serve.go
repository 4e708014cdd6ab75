package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"saji/engine/library"
	"saji/engine/offload"
	"saji/engine/runner"
	"saji/engine/server"
)

// DefaultPort is the API's default port (Ollama's 11434 plus one, so both
// can run side by side).
const DefaultPort = 11435

// serveFlags are the flags of 'saji serve'.
type serveFlags struct {
	models    []string
	dir       string
	keepAlive time.Duration
	maxLoaded int
	remotes   []string
	route     string
	aliases   []string
	host      string
	port      int
	apiKeys   []string
	cors      []string
	imageURLs bool
	local     localFlags
	spec      specFlags
	cache     promptCacheFlags
}

// newServeCmd is 'saji serve': the local API.
func newServeCmd() *cobra.Command {
	sf := serveFlags{host: "127.0.0.1", port: DefaultPort}
	cmd := &cobra.Command{
		Use:   "serve [-m FILE ...] [--models-dir DIR] [--remote NAME=URL ...] [--route FILE]",
		Short: "Serve models over the OpenAI and Ollama APIs on 127.0.0.1",
		Long: "Answer the OpenAI dialect (/v1/models, /v1/chat/completions, /v1/completions,\n" +
			"/v1/embeddings, /v1/responses), the Ollama dialect (/api/tags, /api/show, /api/ps,\n" +
			"/api/chat, /api/generate, /api/embed, /api/pull, /api/create, ...), Anthropic's\n" +
			"(/v1/messages) and llama-server's (/completion, /infill, /tokenize, /v1/rerank, ...)\n" +
			"on http://HOST:PORT, each model on its own continuous-batching scheduler, with\n" +
			"Prometheus metrics at /metrics. A request names its model by the file's base name\n" +
			"without .gguf.\n\n" +
			"Models given with -m stay loaded. Models in --models-dir load on the first request\n" +
			"that names them and unload after --keep-alive without requests (or a request's\n" +
			"keep_alive), or when --max-loaded are loaded and another is asked for (the least\n" +
			"recently used idle one goes).\n\n" +
			"--remote forwards a model name to a pool of OpenAI-compatible servers (vLLM, TGI,\n" +
			"llama-server, or Ollama at its /v1 endpoint), streams passed through. Give several\n" +
			"URLs as URL1|URL2 or by repeating --remote with the same NAME (each flag's key=,\n" +
			"model= and timeout= belong to its URLs). A request goes to the upstreams in turn\n" +
			"(policy=rr) or to the one with the fewest requests in flight (policy=lor). Each\n" +
			"upstream's /health (or /v1/models) is read every health= interval (10s; 0: never);\n" +
			"one that fails it, or that a request cannot reach, leaves the rotation until it\n" +
			"answers again. A request that cannot reach its upstream, or gets a 502 or 503, goes\n" +
			"to another; once its answer streams, never. timeout= bounds the wait for an\n" +
			"upstream's answer to begin and for each next part of it (a 504 when it runs out).\n" +
			"/metrics reports each upstream (the upstream label).\n\n" +
			"--route FILE adds routing model names: a request that names one goes to the model\n" +
			"(local, remote or an alias) of the first rule it matches, else to the default. A\n" +
			"rule may bound the text's length in characters (min_chars, max_chars), ask for\n" +
			"tools or images (true or false), and match the last user message (match, a Go\n" +
			"regular expression). The response names the model (its model field and the\n" +
			"X-Saji-Routed-To header), and /metrics counts the choices. The file:\n" +
			"  {\"auto\": {\"rules\": [{\"images\": true, \"model\": \"big\"},\n" +
			"                      {\"match\": \"(?i)prove|refactor\", \"model\": \"big\"},\n" +
			"                      {\"min_chars\": 8000, \"model\": \"big\"}],\n" +
			"            \"default\": \"small\"}}\n\n" +
			"The API binds to 127.0.0.1 by default. Binding to another address exposes it to\n" +
			"the network: it needs --api-key (or SAJI_API_KEY), and every request must then\n" +
			"carry Authorization: Bearer KEY. Web pages may call it from this machine's pages\n" +
			"(localhost, 127.0.0.1, any port), app shells (app://, file://, tauri://, vscode-webview://)\n" +
			"and browser extensions, as Ollama allows; --cors adds other origins. A request on a\n" +
			"loopback address whose Host is not this machine (DNS rebinding) is refused.\n\n" +
			"A request's pictures (OpenAI image_url parts, Ollama's images, Anthropic's image\n" +
			"blocks) come as base64 or data: URIs; the server fetches http(s) image URLs only\n" +
			"with --allow-image-urls (within 30 s and 20 MB each, redirects to http(s) only).\n\n" +
			"--gpu-layers (-ngl) puts the last N layers of each model on the GPU (CUDA, Metal):\n" +
			"-1 (the default) as many as fit with the KV cache, 0 none. When there is no GPU, or\n" +
			"the model does not load on it, the model runs on the CPU, and the load says why.\n\n" +
			"--draft (-md) FILE speeds up the models given with -m by speculative decoding: the\n" +
			"small draft model of the same vocabulary proposes up to --draft-max tokens, which\n" +
			"one forward pass of the model verifies; the output is the model's own. --lookup\n" +
			"drafts without a model, from the prompt (for replies that repeat their input).\n\n" +
			"--prompt-cache DIR (auto: the user's cache folder) keeps the KV cache of finished\n" +
			"requests on disk, up to --prompt-cache-size, so that after a restart a conversation\n" +
			"or document seen before continues without being read again. It is off by default:\n" +
			"it writes what every client sent to disk.",
		Example: "  saji serve -m qwen2.5-1.5b-instruct-q4_k_m.gguf\n" +
			"  saji serve --models-dir ~/models --keep-alive 10m --max-loaded 2\n" +
			"  saji serve -m model.gguf --port 8080 --ctx 8192 --max-seqs 8\n" +
			"  saji serve -m model.gguf -ngl 20\n" +
			"  saji serve -m small.gguf --remote big=http://gpu-box:8000/v1,model=meta-llama/Llama-3.3-70B-Instruct\n" +
			"  saji serve --remote big='http://gpu1:8000|http://gpu2:8000,policy=lor,timeout=30s' \\\n" +
			"             --remote big=http://mac:11434/v1,model=llama3.3:70b\n" +
			"  saji serve -m small.gguf --remote big=http://gpu-box:8000 --route routes.json\n" +
			"  saji serve -m model.gguf --host 0.0.0.0 --api-key \"$(openssl rand -hex 16)\"",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runServe(ctx, &sf, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringArrayVarP(&sf.models, "model", "m", nil, "GGUF model `FILE` to serve, loaded for the server's life (repeat for several)")
	f.StringVar(&sf.dir, "models-dir", "", "folder of GGUF files that load on first use (named by file name without .gguf), and that Ollama's /api/pull, /api/create and /api/delete manage")
	f.DurationVar(&sf.keepAlive, "keep-alive", runner.DefaultKeepAlive, "how long a model from --models-dir stays loaded without requests (negative: for ever)")
	f.IntVar(&sf.maxLoaded, "max-loaded", runner.DefaultMaxLoaded, "most models loaded at once; the least recently used idle one makes room")
	f.StringArrayVar(&sf.aliases, "alias", nil, "another `NAME=MODEL` for a model, for clients with a fixed list of names (repeat)")
	f.StringArrayVar(&sf.remotes, "remote", nil, "forward model `NAME=URL[|URL...][,OPTION...]` to a pool of OpenAI-compatible servers; options key=, model=, timeout=, policy=rr|lor, health= (repeat; the same NAME adds to its pool)")
	f.StringVar(&sf.route, "route", "", "routing model names from a JSON `FILE` of rules (see above)")
	f.StringVar(&sf.host, "host", sf.host, "address to bind (127.0.0.1: this machine only)")
	f.IntVar(&sf.port, "port", sf.port, "port to listen on")
	f.StringArrayVar(&sf.apiKeys, "api-key", nil, "require this bearer `KEY` (repeat for several; also SAJI_API_KEY)")
	f.BoolVar(&sf.imageURLs, "allow-image-urls", false, "fetch the http(s) image URLs of requests (OpenAI image_url parts, Anthropic url sources); else only data: URIs and base64 pictures are taken")
	f.StringArrayVar(&sf.cors, "cors", nil, "also allow cross-origin requests from this `ORIGIN` (repeat; one * as a wildcard, https://*.example.com; * for any)")
	sf.local.register(f, "")
	sf.spec.register(f)
	sf.cache.register(f)
	return cmd
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// runServe loads the models and serves until ctx ends.
func runServe(ctx context.Context, sf *serveFlags, errw io.Writer) error {
	if len(sf.models) == 0 && sf.dir == "" && len(sf.remotes) == 0 {
		return errors.New("serve: a model is required (-m FILE, --models-dir DIR or --remote NAME=URL)")
	}
	remotes, err := parseRemotes(sf.remotes)
	if err != nil {
		return err
	}
	var routes map[string]server.Route
	if sf.route != "" {
		data, err := os.ReadFile(sf.route)
		if err != nil {
			return fmt.Errorf("serve: --route: %w", err)
		}
		if routes, err = server.ParseRoutes(data); err != nil {
			return fmt.Errorf("serve: --route %s: %w", sf.route, err)
		}
	}
	aliases := map[string]string{}
	for _, a := range sf.aliases {
		from, to, ok := strings.Cut(a, "=")
		if !ok || from == "" || to == "" {
			return fmt.Errorf("serve: --alias %q: want NAME=MODEL", a)
		}
		aliases[from] = to
	}
	if slices.Contains(sf.apiKeys, "") {
		// An empty key would let every request in while looking like a
		// configured one (and satisfy the check for a network address).
		return errors.New("serve: --api-key is empty; give a key (e.g. \"$(openssl rand -hex 16)\")")
	}
	if k := os.Getenv("SAJI_API_KEY"); k != "" {
		sf.apiKeys = append(sf.apiKeys, k)
	}
	if !isLoopback(sf.host) {
		if len(sf.apiKeys) == 0 {
			return fmt.Errorf("serve: binding to %s exposes the API to the network; give it an --api-key (or SAJI_API_KEY)", sf.host)
		}
		fmt.Fprintf(errw, "saji: warning: the API listens on %s, reachable from other machines; requests need the API key\n", sf.host)
	}
	// The models folder is also the library that Ollama's model
	// management works in (/api/pull, /api/create, /api/copy, /api/delete).
	var lib *library.Library
	if sf.dir != "" {
		if lib, err = library.OpenWith(sf.dir, slog.Default()); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
	}
	l := sf.local
	spec, err := sf.spec.speculative()
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	load := runner.LoadOptions{Threads: l.threads, GPULayers: sf.local.gpuLayers, Scheduler: l.scheduler(), Memory: l.memory.options()}
	disk, err := sf.cache.open(slog.Default())
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if disk != nil {
		defer disk.Close() // after the models, whose schedulers save on closing
		load.Scheduler.PromptCache = disk
		fmt.Fprintf(errw, "saji: prompt cache on disk in %s\n", disk.Dir())
	}
	if spec.Lookup {
		load.Speculative = spec // any model can look up its prompt
	}
	rn := runner.New(runner.Config{Logger: slog.Default(), ModelsDir: sf.dir, Library: lib, Load: load, KeepAlive: sf.keepAlive,
		MaxLoaded: max(sf.maxLoaded, len(sf.models)+1), Aliases: aliases})
	defer rn.Close()
	srv := server.New(server.Config{Runner: rn, APIKeys: sf.apiKeys, CORSOrigins: sf.cors, Hosts: []string{sf.host},
		Logger: slog.Default(), Remotes: remotes, Routes: routes, AllowImageURLs: sf.imageURLs})
	defer srv.Close()
	// The draft model drafts for the models given with -m, which must
	// share its vocabulary.
	pinned := load
	pinned.Speculative = spec
	for _, path := range sf.models {
		start := time.Now()
		m, err := runner.Load(ctx, path, pinned)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		rn.Add(m)
		fmt.Fprintf(errw, "saji: loaded %s (%s, context %d, KV cache of %d tokens) in %.1fs; %s\n",
			m.Name, m.Info.Arch, m.Info.Context, m.Scheduler().Capacity(), time.Since(start).Seconds(), m.Info.Offload)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(sf.host, strconv.Itoa(sf.port)))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	hs := server.NewHTTPServer(srv.Handler())
	url := "http://" + ln.Addr().String()
	var names []string
	for _, m := range rn.Catalog() {
		names = append(names, m.Name)
	}
	for n := range remotes {
		names = append(names, n+" (remote)")
	}
	for n := range routes {
		names = append(names, n+" (routed)")
	}
	fmt.Fprintf(errw, "saji: serving %s on %s (OpenAI API at %s/v1, Ollama API at %s/api)\n", strings.Join(names, ", "), url, url, url)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	fmt.Fprintln(errw, "saji: shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
	return nil
}

// remoteUsage is the form of a --remote flag.
const remoteUsage = "NAME=URL[|URL...][,key=KEY][,model=REMOTE_NAME][,timeout=DURATION][,policy=rr|lor][,health=DURATION]"

// parseRemotes reads --remote flags: each adds its URLs, with the flag's
// key, model and timeout, to the pool of NAME; policy and health set the
// pool's balancing and health-check interval.
func parseRemotes(flags []string) (map[string]server.Remote, error) {
	out := map[string]server.Remote{}
	for _, f := range flags {
		name, rest, ok := strings.Cut(f, "=")
		if !ok || name == "" || rest == "" {
			return nil, fmt.Errorf("serve: --remote %q: want %s", f, remoteUsage)
		}
		parts := strings.Split(rest, ",")
		rm := out[name]
		var up server.Upstream
		var err error
		for _, p := range parts[1:] {
			k, v, _ := strings.Cut(p, "=")
			switch k {
			case "key":
				up.APIKey = v
			case "model":
				up.Model = v
			case "timeout":
				if up.Timeout, err = time.ParseDuration(v); err != nil || up.Timeout <= 0 {
					return nil, fmt.Errorf("serve: --remote %q: timeout %q: want a duration such as 30s", f, v)
				}
			case "policy":
				if rm.Policy != "" && rm.Policy != server.Policy(v) {
					return nil, fmt.Errorf("serve: --remote %q: the pool %q already has policy %s", f, name, rm.Policy)
				}
				rm.Policy = server.Policy(v)
			case "health":
				if rm.HealthInterval, err = time.ParseDuration(v); err != nil {
					return nil, fmt.Errorf("serve: --remote %q: health %q: want a duration such as 10s (0 for never)", f, v)
				}
				if rm.HealthInterval == 0 {
					rm.HealthInterval = -1
				}
			default:
				return nil, fmt.Errorf("serve: --remote %q: unknown option %q (key, model, timeout, policy or health)", f, k)
			}
		}
		for u := range strings.SplitSeq(parts[0], "|") {
			up.URL = u
			rm.Upstreams = append(rm.Upstreams, up)
		}
		if err := rm.Validate(name); err != nil {
			return nil, fmt.Errorf("serve: --remote %q: %w", f, err)
		}
		out[name] = rm
	}
	return out, nil
}

// registerGPULayers adds --gpu-layers to f, with llama.cpp's other name
// for it, --n-gpu-layers (and -ngl, which llamaArgs turns into it), their
// help starting with note.
func registerGPULayers(f *pflag.FlagSet, p *int, note string) {
	f.IntVar(p, "gpu-layers", offload.Auto, note+"layers to put on the GPU, the last ones (-1: as many as fit, 0: none; also -ngl)")
	f.IntVar(p, "n-gpu-layers", offload.Auto, note+"layers to put on the GPU (llama.cpp's name for --gpu-layers)")
	f.MarkHidden("n-gpu-layers")
}

// llamaArgs rewrites llama.cpp's multi-letter short flags -ngl (-ngl N,
// -ngl=N), which a flag parser reads as -n -g -l, to --n-gpu-layers, and
// -md to --draft, so
// that the command lines people bring from llama.cpp work. Arguments after
// "--" are left alone.
func llamaArgs(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i, a := range out {
		switch {
		case a == "--":
			return out
		case a == "-ngl":
			out[i] = "--n-gpu-layers"
		case strings.HasPrefix(a, "-ngl="):
			out[i] = "--n-gpu-layers=" + a[len("-ngl="):]
		case a == "-md":
			out[i] = "--draft"
		case strings.HasPrefix(a, "-md="):
			out[i] = "--draft=" + a[len("-md="):]
		}
	}
	return out
}
