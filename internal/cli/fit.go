package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/fit"
	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/hub"
	"saji/engine/library"
	"saji/engine/scheduler"
	"saji/engine/units"
)

// fitFlags are saji fit's options.
type fitFlags struct {
	model, kv          string
	ctx, parallel, gpu int
	json, measure      bool
	measureTokens      int
	// detect describes the machine (nil: hardware.Detect); tests fake it.
	detect func(context.Context) hardware.Machine
}

// newFitCmd is 'saji fit': what fits this machine, or how one model fits,
// with the breakdown behind the verdict.
func newFitCmd() *cobra.Command {
	var ff fitFlags
	cmd := &cobra.Command{
		Use:   "fit [--model FILE|REPO:QUANT]",
		Short: "Show what fits this machine, or how a model fits, with the numbers",
		Long: "Without --model, describe the machine and which model sizes fit it at Q4_K_M.\n" +
			"With a GGUF file, or a Hugging Face repository and level (owner/name:Q4_K_M,\n" +
			"whose header alone is read with Range requests), plan the model: weights per\n" +
			"layer, KV cache, compute buffers, the verdict, the largest context that fits\n" +
			"and the decode speed the memory bandwidth allows. The KV cache is planned for\n" +
			"one conversation and a reserve, as the app and saji run load models, or with\n" +
			"--parallel N for saji serve's pool of N contexts. --measure then loads the\n" +
			"local model, generates a few tokens and prints the measured resident memory\n" +
			"and tokens/s beside the predictions.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runFit(cmd.Context(), &ff, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&ff.model, "model", "m", "", "a GGUF `FILE`, or REPO:QUANT on the hub")
	f.IntVarP(&ff.ctx, "ctx", "c", 0, fmt.Sprintf("context length (0: %d, or the model's when shorter)", scheduler.DefaultContext))
	f.StringVar(&ff.kv, "kv", "f16", "KV cache type: f16, q8_0 or f32")
	f.IntVar(&ff.parallel, "parallel", 1, "1: the desktop's one conversation and a reserve (the app, saji run); N: a server's pool of N full contexts (saji serve --parallel N)")
	f.IntVar(&ff.gpu, "gpu-layers", -1, "layers to offload to the GPU (-1: as many as fit)")
	f.BoolVar(&ff.json, "json", false, "print the plan as JSON")
	f.BoolVar(&ff.measure, "measure", false, "load the local model, generate and compare with the prediction")
	f.IntVar(&ff.measureTokens, "measure-tokens", 32, "tokens to generate with --measure")
	return cmd
}

func runFit(ctx context.Context, ff *fitFlags, out io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	detect := ff.detect
	if detect == nil {
		detect = detectMachine
	}
	m := detect(ctx)
	req := fit.Request{Context: ff.ctx, KVType: ff.kv, Parallel: ff.parallel, GPULayers: ff.gpu}
	if ff.model == "" {
		if ff.measure {
			return fmt.Errorf("fit: --measure needs --model FILE")
		}
		return fitTable(m, req, ff.json, out)
	}
	local := isModelFile(ff.model)
	var shape fit.ModelShape
	var err error
	if local {
		shape, err = describeFile(ff.model)
	} else {
		shape, err = describeHub(ctx, ff.model)
	}
	if err != nil {
		return err
	}
	p, err := fit.PlanFor(shape, m, req)
	if err != nil {
		return err
	}
	var meas *fit.Measurement
	if ff.measure {
		if !local {
			return fmt.Errorf("fit: --measure needs a local model file, not %q", ff.model)
		}
		meas, err = measureFit(ctx, ff.model, p, ff.measureTokens)
		if err != nil {
			return err
		}
	}
	if ff.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Plan     fit.Plan         `json:"plan"`
			Measured *fit.Measurement `json:"measured,omitempty"`
		}{p, meas})
	}
	name := shape.Name
	if name == "" {
		name = filepath.Base(ff.model)
	}
	fmt.Fprintf(out, "%s (%s, %s, %d layers, %s)\n", name, shape.Arch, shape.FileType, shape.Layers, units.Bytes(shape.FileSize))
	fmt.Fprintf(out, "Machine: %s\n", machineLine(m))
	for _, l := range p.Explain() {
		fmt.Fprintln(out, l)
	}
	if meas != nil {
		printMeasurement(out, meas, p)
	}
	return nil
}

// detectMachine describes the machine; what it cannot find stays zero.
func detectMachine(ctx context.Context) hardware.Machine {
	m, err := hardware.Detect(ctx, hardware.DetectOptions{CacheDir: library.CacheDir()})
	if err != nil {
		slog.Warn("fit: detecting the machine", "err", err)
	}
	return m
}

func machineLine(m hardware.Machine) string {
	s := fmt.Sprintf("%s, %d cores, RAM %s (%s available)", orUnknown(m.CPU.Model), m.CPU.Cores,
		units.Bytes(int64(m.Memory.Total)), units.Bytes(int64(m.Memory.Available)))
	if m.Bandwidth > 0 {
		s += ", " + units.Rate(m.Bandwidth)
	}
	for _, g := range m.GPUs {
		s += fmt.Sprintf("; GPU %s %s free", g.Name, units.Bytes(int64(g.Free)))
	}
	if len(m.GPUs) == 0 {
		s += "; no GPU"
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown CPU"
	}
	return s
}

func describeFile(path string) (fit.ModelShape, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return fit.ModelShape{}, err
	}
	defer f.Close()
	return fit.Describe(f)
}

// describeHub reads the shape of REPO:QUANT from its first file's header:
// a level Saji cannot run (a model.RunError) is an error.
func describeHub(ctx context.Context, ref string) (fit.ModelShape, error) {
	repo, level, err := hub.Parse(ref)
	if err != nil {
		return fit.ModelShape{}, err
	}
	if level == "" {
		level = "Q4_K_M"
	}
	c := hub.NewClient()
	files, err := c.Files(ctx, repo, "")
	if err != nil {
		return fit.ModelShape{}, err
	}
	q, ok := hub.Find(hub.Group(files), level)
	if !ok {
		return fit.ModelShape{}, fmt.Errorf("fit: %s has no %s GGUF file", repo, level)
	}
	// A level Saji cannot run is refused by its name, or by its header.
	if err := fit.LevelRunnable(q.Name); err != nil {
		return fit.ModelShape{}, fmt.Errorf("fit: %s of %s: %w", q.Name, repo, err)
	}
	return fit.DescribeSplitURL(ctx, c.HTTPClient(), c.FileURL(repo, "", q.Files[0].Path), c.Header(), q.Size)
}

// fitTable prints the machine and a row per model size.
func fitTable(m hardware.Machine, req fit.Request, asJSON bool, out io.Writer) error {
	var plans []fit.Plan
	for _, c := range fit.Classes {
		p, err := fit.PlanFor(c.Shape(), m, req)
		if err != nil {
			return err
		}
		plans = append(plans, p)
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Machine hardware.Machine `json:"machine"`
			Plans   []fit.Plan       `json:"plans"`
		}{m, plans})
	}
	fmt.Fprintf(out, "Machine: %s\n", machineLine(m))
	for _, n := range m.Notes {
		fmt.Fprintf(out, "  note: %s\n", n)
	}
	fmt.Fprintf(out, "\nModels at Q4_K_M, context %d, KV %s:\n", plans[0].Request.Context, plans[0].Request.KVType)
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SIZE\tWEIGHTS\tKV\tTOTAL\tVERDICT\tMAX CONTEXT\tDECODE")
	for _, p := range plans {
		b := p.Breakdown
		speed := "-"
		if p.DecodeTokensPerSec > 0 {
			speed = fmt.Sprintf("%.1f tok/s", p.DecodeTokensPerSec)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", p.Model.Name, units.Bytes(b.Weights),
			units.Bytes(b.KV), units.Bytes(b.Total), p.Verdict, p.MaxContext, speed)
	}
	return tw.Flush()
}

// measureFit loads the model with the plan's scheduler settings,
// generates n tokens and measures.
func measureFit(ctx context.Context, path string, p fit.Plan, n int) (*fit.Measurement, error) {
	lm, err := openModel(ctx, path, hardware.DefaultThreads())
	if err != nil {
		return nil, err
	}
	defer lm.Close()
	s, err := scheduler.New(lm.model, scheduler.Config{Context: p.Request.Context, KVType: p.Request.KVType,
		Parallel: p.Request.Parallel, MaxSeqs: p.MaxSeqs, KVBytes: p.Breakdown.KVBudget})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	prompt := lm.tok.Encode("Once upon a time, in a land far away, there lived a", true, true)
	ch, err := s.Submit(ctx, scheduler.Request{Prompt: prompt, MaxTokens: n, IgnoreEOS: true})
	if err != nil {
		return nil, err
	}
	var first, last time.Time
	got := 0
	for ev := range ch {
		if ev.Done {
			if ev.Err != nil {
				return nil, ev.Err
			}
			break
		}
		last = time.Now()
		if got == 0 {
			first = last
		}
		got++
	}
	rss, err := fit.ResidentSetSize()
	if err != nil {
		return nil, err
	}
	var tps float64
	if got > 1 {
		tps = float64(got-1) / last.Sub(first).Seconds()
	}
	m := p.Compare(len(prompt)+got, rss, 0, tps)
	slog.Info("fit: predicted and measured", "model", path, "ctx", p.Request.Context,
		"rss", m.RSS, "predicted_rss", m.Predicted, "tok/s", m.DecodeTokensPerSec, "predicted_tok/s", p.DecodeTokensPerSec)
	return &m, nil
}

// printMeasurement prints m beside p's predictions.
func printMeasurement(out io.Writer, m *fit.Measurement, p fit.Plan) {
	lines := m.Lines(p.Breakdown.Total)
	if m.PredictedTokensPerSec > 0 {
		lines[1] += fmt.Sprintf(", %.1f at the full context", p.DecodeTokensPerSec)
	}
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
}
