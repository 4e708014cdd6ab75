package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"saji/engine/gguf"
	"saji/engine/units"
)

// jsonArrayHead is how many elements of a long metadata array --json shows
// without --full.
const jsonArrayHead = 16

func newGGUFCmd() *cobra.Command {
	var asJSON, full bool
	cmd := &cobra.Command{
		Use:   "gguf FILE",
		Short: "Describe a GGUF model file",
		Long: "Describe a GGUF model file: architecture, size, quantization, context and\n" +
			"tokenizer, and a count of its tensors by type. For a split model, give the\n" +
			"first shard (name-00001-of-0000N.gguf).\n\n" +
			"With --json, print every metadata key (in file order) and every tensor as JSON;\n" +
			"arrays longer than 16 elements are summarised unless --full is given.\n" +
			"Without --json, --full also lists every metadata key and tensor.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := gguf.Open(args[0])
			if err != nil {
				return err
			}
			defer f.Close()
			out := cmd.OutOrStdout()
			if asJSON {
				return writeGGUFJSON(out, f, full)
			}
			return writeGGUFSummary(out, f, full)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print metadata and tensors as JSON")
	cmd.Flags().BoolVar(&full, "full", false, "show every array element (JSON) or every key and tensor (text)")
	return cmd
}

// writeGGUFSummary prints the human overview.
func writeGGUFSummary(out io.Writer, f *gguf.File, full bool) error {
	s := f.Summary()
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	line := func(label, format string, args ...any) {
		fmt.Fprintf(tw, "%s:\t%s\n", label, fmt.Sprintf(format, args...))
	}
	orNone := func(x string) string {
		if x == "" {
			return "(not set)"
		}
		return x
	}
	num := func(n uint64) string {
		if n == 0 {
			return "(not set)"
		}
		return strconv.FormatUint(n, 10)
	}

	file := filepath.Base(s.Path)
	if s.Shards > 1 {
		file += fmt.Sprintf(" (+%d more shards)", s.Shards-1)
	}
	line("file", "%s", file)
	line("size", "%s (%d bytes)", units.Bytes(s.FileSize), s.FileSize)
	line("GGUF version", "%d", s.Version)
	line("architecture", "%s", orNone(s.Architecture))
	line("name", "%s", orNone(s.Name))
	line("parameters", "%s", formatCount(s.Parameters))
	if s.HasFileType {
		line("file type", "%s (%s)", s.FileType, s.FileType.Description())
	} else {
		line("file type", "(not set)")
	}
	line("context length", "%s", num(s.ContextLength))
	line("embedding length", "%s", num(s.EmbeddingLength))
	line("layers", "%s", num(s.BlockCount))
	heads := num(s.HeadCount)
	if s.HeadCountKV != 0 && s.HeadCountKV != s.HeadCount {
		heads += fmt.Sprintf(" (%d KV)", s.HeadCountKV)
	}
	line("attention heads", "%s", heads)
	if s.TokenizerModel == "" && s.VocabSize == 0 {
		line("tokenizer", "(none)")
	} else {
		tok := orNone(s.TokenizerModel)
		if s.TokenizerPre != "" {
			tok += ", pre " + s.TokenizerPre
		}
		tok += fmt.Sprintf(", %d tokens", s.VocabSize)
		if s.BOS >= 0 {
			tok += fmt.Sprintf(", BOS %d", s.BOS)
		}
		if s.EOS >= 0 {
			tok += fmt.Sprintf(", EOS %d", s.EOS)
		}
		line("tokenizer", "%s", tok)
	}
	line("metadata", "%d keys", s.KVCount)
	line("tensors", "%d", s.TensorCount)
	for _, ts := range s.Types {
		fmt.Fprintf(tw, "  %s\t%d tensors, %s\n", ts.Type, ts.Count, units.Bytes(ts.Bytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !full {
		return nil
	}

	fmt.Fprintln(out, "\nmetadata:")
	for _, kv := range f.KVs() {
		fmt.Fprintf(out, "  %s = %s\n", kv.Key, kv.Value)
	}
	fmt.Fprintln(out, "\ntensors:")
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, t := range f.Tensors() {
		fmt.Fprintf(tw, "  %s\t%s\t%v\t%s\n", t.Name, t.Type, t.Shape, units.Bytes(t.Size))
	}
	return tw.Flush()
}

// formatCount formats a parameter count as people read it: "292.80 K",
// "1.24 B".
func formatCount(n int64) string {
	x := float64(n)
	switch {
	case x < 1e3:
		return strconv.FormatInt(n, 10)
	case x < 1e6:
		return fmt.Sprintf("%.2f K", x/1e3)
	case x < 1e9:
		return fmt.Sprintf("%.2f M", x/1e6)
	case x < 1e12:
		return fmt.Sprintf("%.2f B", x/1e9)
	}
	return fmt.Sprintf("%.2f T", x/1e12)
}

// ordered is a JSON object that keeps its keys in order.
type ordered []field

type field struct {
	key   string
	value any
}

// MarshalJSON writes the fields in order.
func (o ordered) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(f.key)
		if err != nil {
			return nil, err
		}
		v, err := marshalJSON(f.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type jsonTensor struct {
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Shape  []int64 `json:"shape"`
	Offset uint64  `json:"offset"`
	Size   int64   `json:"size"`
	Shard  int     `json:"shard,omitempty"`
}

// writeGGUFJSON prints the metadata (in file order) and tensor table.
func writeGGUFJSON(out io.Writer, f *gguf.File, full bool) error {
	meta := make(ordered, 0, len(f.KVs()))
	for _, kv := range f.KVs() {
		meta = append(meta, field{kv.Key, jsonValue(kv.Value, full)})
	}
	tensors := make([]any, 0, len(f.Tensors()))
	for _, t := range f.Tensors() {
		shape := t.Shape
		if shape == nil {
			shape = []int64{}
		}
		tensors = append(tensors, jsonTensor{t.Name, t.Type.String(), shape, t.Offset, t.Size, t.Shard})
	}
	doc := ordered{
		{"file", f.Path()},
		{"version", f.Version()},
		{"alignment", f.Alignment()},
		{"metadata", meta},
		{"tensors", tensors},
	}
	if f.Shards() > 1 {
		doc = append(doc[:1], append(ordered{{"shards", f.Paths()}}, doc[1:]...)...)
	}
	var b bytes.Buffer
	if err := writeJSON(&b, doc, ""); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	b.WriteByte('\n')
	_, err := out.Write(b.Bytes())
	return err
}

// writeJSON writes v indented for reading: objects one field per line,
// arrays of scalars on one line, other arrays one element per line, and
// anything else (such as a tensor) compactly.
func writeJSON(b *bytes.Buffer, v any, indent string) error {
	inner := indent + "  "
	switch x := v.(type) {
	case ordered:
		if len(x) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteString("{\n")
		for i, f := range x {
			k, err := marshalJSON(f.key)
			if err != nil {
				return err
			}
			b.WriteString(inner)
			b.Write(k)
			b.WriteString(": ")
			if err := writeJSON(b, f.value, inner); err != nil {
				return fmt.Errorf("%s: %w", f.key, err)
			}
			if i < len(x)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
		return nil
	case []any:
		if len(x) > 0 && !allScalars(x) {
			b.WriteString("[\n")
			for i, e := range x {
				b.WriteString(inner)
				if err := writeJSON(b, e, inner); err != nil {
					return err
				}
				if i < len(x)-1 {
					b.WriteByte(',')
				}
				b.WriteByte('\n')
			}
			b.WriteString(indent + "]")
			return nil
		}
	}
	c, err := marshalJSON(v)
	if err != nil {
		return err
	}
	b.Write(c)
	return nil
}

// marshalJSON encodes v compactly without escaping <, > and &, which are
// common in token texts.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// allScalars reports whether no element of s is an object or array.
func allScalars(s []any) bool {
	for _, e := range s {
		switch e.(type) {
		case ordered, []any, jsonTensor:
			return false
		}
	}
	return true
}

// jsonValue converts a metadata value for encoding/json. Floats keep their
// shortest form for their width (1e-05 for a float32, not 9.99999974e-06);
// NaN and infinities, which JSON lacks, become strings. Arrays longer than
// jsonArrayHead become a summary object unless full is set.
func jsonValue(v gguf.Value, full bool) any {
	if !v.IsArray() {
		switch x := v.Interface().(type) {
		case float32:
			return jsonFloat(float64(x), 32)
		case float64:
			return jsonFloat(x, 64)
		}
		return v.Interface()
	}
	n := v.Len()
	shown := n
	if !full && n > jsonArrayHead {
		shown = jsonArrayHead
	}
	elems := make([]any, shown)
	for i := range elems {
		elems[i] = jsonValue(v.Index(i), full)
	}
	if shown == n {
		return elems
	}
	return ordered{
		{"type", "array"},
		{"element_type", v.ElemType().String()},
		{"length", n},
		{"head", elems},
	}
}

func jsonFloat(x float64, bits int) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strings.TrimPrefix(strconv.FormatFloat(x, 'g', -1, bits), "+")
	}
	return json.Number(strconv.FormatFloat(x, 'g', -1, bits))
}
