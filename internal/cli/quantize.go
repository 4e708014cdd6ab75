package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/quantize"
	"saji/engine/units"
	"saji/kernels/quant"
)

// newQuantizeCmd is 'saji quantize IN OUT TYPE', llama-quantize's job.
func newQuantizeCmd() *cobra.Command {
	var (
		threads         int
		allowRequantize bool
		imatrix         string
	)
	names := make([]string, 0, len(quantize.FileTypes()))
	for _, ft := range quantize.FileTypes() {
		names = append(names, ft.String())
	}
	imNames := make([]string, 0, len(quantize.ImatrixFileTypes()))
	for _, ft := range quantize.ImatrixFileTypes() {
		imNames = append(imNames, ft.String())
	}
	cmd := &cobra.Command{
		Use:   "quantize IN OUT TYPE",
		Short: "Quantize an F32, F16 or BF16 GGUF model, as llama-quantize does",
		Long: "Convert the GGUF model IN to TYPE and write it to OUT, choosing each tensor's\n" +
			"type as llama-quantize does without an importance matrix (the output and some\n" +
			"attention and feed-forward matrices get more bits). The tensors are the bytes\n" +
			"llama-quantize writes. OUT appears only when it is complete.\n\n" +
			"With --imatrix FILE (llama-imatrix's output, GGUF or .dat) the matrices it\n" +
			"has weights for are quantized as llama-quantize --imatrix quantizes them, and\n" +
			"TYPE may also be " + strings.Join(imNames, ", ") + ".\n\n" +
			"TYPE is one of " + strings.Join(names, ", ") + ".",
		Example: "  saji quantize llama-1b-f16.gguf llama-1b-q4_k_m.gguf Q4_K_M",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 3 {
				return fmt.Errorf("quantize: want IN OUT TYPE, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			in, out := args[0], args[1]
			ft, err := quantize.ParseFileType(args[2])
			if err != nil {
				return err
			}
			if threads < 0 {
				return fmt.Errorf("quantize: --threads must be 0 (one per physical core) or more, not %d", threads)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			opts := quantize.Options{FileType: ft, Threads: threads, AllowRequantize: allowRequantize}
			if imatrix != "" {
				if opts.Imatrix, err = quantize.ReadImatrix(imatrix); err != nil {
					return err
				}
			}
			var bar *progressBar
			if writesToTerminal(cmd.ErrOrStderr()) {
				bar = &progressBar{w: cmd.ErrOrStderr(), start: time.Now()}
				opts.Progress = bar.update
			}
			res, err := quantize.Quantize(ctx, in, out, opts)
			if bar != nil {
				bar.finish(err == nil)
			}
			if errors.Is(err, quantize.ErrQuantized) {
				return fmt.Errorf("%w, or give --allow-requantize (which loses more quality)", err)
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s (%s) -> %s (%s), %s: %s in %.1f s\n",
				filepath.Base(in), units.Bytes(res.InBytes), filepath.Base(out), units.Bytes(res.OutBytes),
				ft, typeCounts(res.TypeCounts), res.Duration.Seconds())
			return nil
		},
	}
	f := cmd.Flags()
	f.IntVarP(&threads, "threads", "t", 0, "number of threads (0: one per physical core)")
	f.BoolVar(&allowRequantize, "allow-requantize", false, "accept an already quantized IN (dequantized first, losing more quality)")
	f.StringVar(&imatrix, "imatrix", "", "importance matrix `FILE` (llama-imatrix's output) to weight the quantization with")
	return cmd
}

// typeCounts lists tensor counts by type as ggml names the types, the most
// common first: "113 q4_K, 17 q6_K, 65 f32".
func typeCounts(counts map[quant.Type]int) string {
	types := make([]quant.Type, 0, len(counts))
	for t := range counts {
		types = append(types, t)
	}
	slices.SortFunc(types, func(a, b quant.Type) int {
		return cmp.Or(cmp.Compare(counts[b], counts[a]), cmp.Compare(a, b))
	})
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%d %s", counts[t], ggmlTypeName(t))
	}
	return strings.Join(parts, ", ")
}

// ggmlTypeName spells a type as ggml_type_name does: "q4_K", "iq4_nl",
// "f32".
func ggmlTypeName(t quant.Type) string {
	return strings.ReplaceAll(strings.ToLower(t.String()), "_k", "_K")
}

// writesToTerminal reports whether w is a terminal (see isTerminal).
func writesToTerminal(w io.Writer) bool {
	r, ok := w.(io.Reader)
	return ok && isTerminal(r)
}

// progressBar draws a one-line progress bar, at most every barInterval.
type progressBar struct {
	w           io.Writer
	start, last time.Time
	done, total int64
	shown       int64 // done at the last redraw
	drawn       bool
}

// barInterval is the least time between two redraws.
const barInterval = 100 * time.Millisecond

// update records progress and redraws when enough time has passed.
func (b *progressBar) update(done, total int64) {
	b.done, b.total = done, total
	now := time.Now()
	if b.drawn && now.Sub(b.last) < barInterval && done < total {
		return
	}
	b.last, b.drawn, b.shown = now, true, done
	fmt.Fprintf(b.w, "\r%s\x1b[K", renderBar(done, total, now.Sub(b.start)))
}

// finish ends the bar's line: drawn at 100% after a success, left as it
// was after a failure.
func (b *progressBar) finish(ok bool) {
	if !b.drawn {
		return
	}
	if ok && b.shown != b.total {
		b.update(b.total, b.total)
	}
	fmt.Fprintln(b.w)
}

// barWidth is the number of cells of the bar itself.
const barWidth = 30

// renderBar formats "[#####.....]  42%  12 MB/s  ETA 0:12" for done
// of total bytes after elapsed.
func renderBar(done, total int64, elapsed time.Duration) string {
	frac := 1.0
	if total > 0 {
		frac = min(max(float64(done)/float64(total), 0), 1)
	}
	fill := int(frac * barWidth)
	var sb strings.Builder
	sb.WriteByte('[')
	sb.WriteString(strings.Repeat("#", fill))
	sb.WriteString(strings.Repeat(".", barWidth-fill))
	fmt.Fprintf(&sb, "] %3d%%", int(frac*100))
	secs := elapsed.Seconds()
	if secs <= 0 || done <= 0 {
		return sb.String()
	}
	rate := float64(done) / secs
	fmt.Fprintf(&sb, "  %s", units.Rate(rate))
	if done < total {
		eta := time.Duration(float64(total-done) / rate * float64(time.Second))
		fmt.Fprintf(&sb, "  ETA %s", formatETA(eta))
	}
	return sb.String()
}

// formatETA formats a duration as m:ss, or h:mm:ss from an hour.
func formatETA(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}
