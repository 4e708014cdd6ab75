package quant_test

// These tests check the codecs against files written by llama.cpp. They
// read GGUF files through saji/engine/gguf: a test-only import of the engine
// layer, which the kernels must never import in non-test code.

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// reduced reports whether the conformance tests should check only the
// first shortRows rows of each tensor: under -short and -race, and so on
// slow emulated runs, which use -short.
func reduced() bool { return testing.Short() || raceEnabled }

// shortRows is the number of rows per tensor checked in reduced mode.
const shortRows = 8

// TestConformanceDequantizeModels decodes every tensor of every reference
// model (its first shortRows rows in reduced mode) and checks that all
// values are finite.
func TestConformanceDequantizeModels(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(refdata.Dir(t), "models", "*.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no models in the reference data")
	}
	perType := map[quant.Type]int{}
	total := 0
	for _, path := range paths {
		f, err := gguf.Open(path)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
			continue
		}
		for _, ti := range f.Tensors() {
			if !quant.Supported(ti.Type) {
				t.Errorf("%s: tensor %s has type %v, which quant cannot decode", filepath.Base(path), ti.Name, ti.Type)
				continue
			}
			data, err := f.TensorData(ti.Name)
			if err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(path), ti.Name, err)
				continue
			}
			n := ti.Elements()
			if len(ti.Shape) > 0 && reduced() && n > shortRows*ti.Shape[0] {
				n = shortRows * ti.Shape[0]
				size, err := ti.Type.RowSize(n)
				if err != nil || size > int64(len(data)) {
					t.Errorf("%s: %s: %d bytes hold no %d %v values", filepath.Base(path), ti.Name, len(data), n, ti.Type)
					continue
				}
				data = data[:size]
			}
			y := make([]float32, n)
			if err := quant.Dequantize(ti.Type, data, y); err != nil {
				t.Errorf("%s: %s: %v", filepath.Base(path), ti.Name, err)
				continue
			}
			for i, v := range y {
				if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
					t.Errorf("%s: %s (%v) element %d is %g", filepath.Base(path), ti.Name, ti.Type, i, v)
					break
				}
			}
			perType[ti.Type]++
			total++
		}
		f.Close()
	}
	t.Logf("decoded %d tensors from %d files: %s", total, len(paths), typeCounts(perType))
}

// requiredTypes must reproduce llama-quantize's bytes exactly.
var requiredTypes = map[quant.Type]bool{
	quant.TypeQ8_0: true,
	quant.TypeQ4_0: true,
	quant.TypeQ4_K: true,
	quant.TypeQ6_K: true,
}

// lockedTypes also matched llama-quantize byte for byte in every tensor
// when this test was written (F32 being the 1-D tensors llama-quantize
// copies); a mismatch in them is now a failure too.
var lockedTypes = map[quant.Type]bool{
	quant.TypeF32:    true,
	quant.TypeQ2_K:   true,
	quant.TypeQ3_K:   true,
	quant.TypeQ5_K:   true,
	quant.TypeIQ4_NL: true,
}

// tinyModel matches a quantized synthetic model, tiny-<base>-<q>.gguf.
var tinyModel = regexp.MustCompile(`^tiny-(.+)-([a-z0-9_]+)\.gguf$`)

// TestConformanceQuantizeMatchesLlamaCpp quantizes the F32 master of each
// synthetic model row by row and compares the result with the tensors that
// llama-quantize wrote into the quantized models made from it (the first
// shortRows rows of each tensor in reduced mode).
func TestConformanceQuantizeMatchesLlamaCpp(t *testing.T) {
	dir := filepath.Join(refdata.Dir(t), "models")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ compared, identical int }
	stats := map[quant.Type]*tally{}
	masters := map[string]map[string][]float32{} // base -> tensor name -> data
	pairs := 0
	for _, e := range entries {
		m := tinyModel.FindStringSubmatch(e.Name())
		if m == nil || m[2] == "f32" || m[2] == "f16" {
			continue
		}
		base := m[1]
		master, ok := masters[base]
		if !ok {
			master, err = readF32Tensors(filepath.Join(dir, "tiny-"+base+"-f32.gguf"))
			if err != nil {
				t.Errorf("master of %s: %v", e.Name(), err)
				continue
			}
			masters[base] = master
		}
		f, err := gguf.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		pairs++
		for _, ti := range f.Tensors() {
			x, ok := master[ti.Name]
			if !ok || !quant.Supported(ti.Type) {
				t.Logf("%s: %s (%v) has no F32 master or codec; not compared", e.Name(), ti.Name, ti.Type)
				continue
			}
			want, err := f.TensorData(ti.Name)
			if err != nil {
				t.Errorf("%s: %s: %v", e.Name(), ti.Name, err)
				continue
			}
			st := stats[ti.Type]
			if st == nil {
				st = &tally{}
				stats[ti.Type] = st
			}
			st.compared++
			rowLen := int(ti.Shape[0])
			if reduced() && len(x) > shortRows*rowLen {
				rowBytes, err := ti.Type.RowSize(int64(rowLen))
				if err != nil || int64(len(want)) < shortRows*rowBytes {
					t.Errorf("%s: %s: %d bytes for rows of %d %v", e.Name(), ti.Name, len(want), rowLen, ti.Type)
					continue
				}
				x, want = x[:shortRows*rowLen], want[:shortRows*rowBytes]
			}
			diff, err := quantizeRows(ti.Type, x, rowLen, nil, want)
			if err != nil {
				t.Errorf("%s: %s: %v", e.Name(), ti.Name, err)
				continue
			}
			if diff == "" {
				st.identical++
				continue
			}
			msg := fmt.Sprintf("%s: %s (%v, shape %v): %s", e.Name(), ti.Name, ti.Type, ti.Shape, diff)
			if requiredTypes[ti.Type] || lockedTypes[ti.Type] {
				t.Error(msg)
			} else {
				t.Log(msg)
			}
		}
		f.Close()
	}
	if pairs == 0 {
		t.Fatal("no quantized tiny-* models found")
	}

	types := make([]quant.Type, 0, len(stats))
	for typ := range stats {
		types = append(types, typ)
	}
	slices.Sort(types)
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %8s %10s  %s\n", "type", "tensors", "identical", "")
	for _, typ := range types {
		st := stats[typ]
		note := ""
		switch {
		case requiredTypes[typ]:
			note = "required"
		case lockedTypes[typ]:
			note = "locked"
		}
		fmt.Fprintf(&b, "%-7v %8d %10d  %s\n", typ, st.compared, st.identical, note)
	}
	t.Logf("%d quantized models compared with their F32 masters:\n%s", pairs, b.String())
	for typ := range requiredTypes {
		if stats[typ] == nil || stats[typ].compared == 0 {
			t.Errorf("no %v tensor was compared", typ)
		}
	}
}

// readF32Tensors returns the F32 tensors of the GGUF file at path, decoded.
func readF32Tensors(path string) (map[string][]float32, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]float32{}
	for _, ti := range f.Tensors() {
		if ti.Type != quant.TypeF32 {
			continue
		}
		data, err := f.TensorData(ti.Name)
		if err != nil {
			return nil, err
		}
		x := make([]float32, ti.Elements())
		if err := quant.Dequantize(quant.TypeF32, data, x); err != nil {
			return nil, fmt.Errorf("%s: %w", ti.Name, err)
		}
		out[ti.Name] = x
	}
	return out, nil
}

// quantizeRows encodes x as typ one row of rowLen values at a time, as
// llama-quantize does (with the importance weights qw of a row, if not
// nil), and compares with want. It returns "" when the bytes match, or a
// description of the mismatch.
func quantizeRows(typ quant.Type, x []float32, rowLen int, qw []float32, want []byte) (string, error) {
	if rowLen <= 0 || len(x)%rowLen != 0 {
		return "", fmt.Errorf("%d values do not split into rows of %d", len(x), rowLen)
	}
	rowBytes, err := typ.RowSize(int64(rowLen))
	if err != nil {
		return "", err
	}
	nrows := len(x) / rowLen
	if int64(len(want)) != int64(nrows)*rowBytes {
		return "", fmt.Errorf("%d bytes in the file, %d expected", len(want), int64(nrows)*rowBytes)
	}
	got := make([]byte, rowBytes)
	badRows, firstRow, firstBlock := 0, -1, -1
	for r := range nrows {
		if err := quant.QuantizeWeighted(typ, x[r*rowLen:(r+1)*rowLen], qw, got); err != nil {
			return "", err
		}
		w := want[int64(r)*rowBytes : int64(r+1)*rowBytes]
		if bytes.Equal(got, w) {
			continue
		}
		badRows++
		if firstRow < 0 {
			firstRow = r
			bs := typ.TypeSize()
			for b := 0; b < len(got); b += bs {
				if !bytes.Equal(got[b:b+bs], w[b:b+bs]) {
					firstBlock = b / bs
					break
				}
			}
		}
	}
	if badRows == 0 {
		return "", nil
	}
	return fmt.Sprintf("%d of %d rows differ, first row %d block %d", badRows, nrows, firstRow, firstBlock), nil
}

// typeCounts formats per-type counts in type order.
func typeCounts(m map[quant.Type]int) string {
	types := make([]quant.Type, 0, len(m))
	for typ := range m {
		types = append(types, typ)
	}
	slices.Sort(types)
	parts := make([]string, len(types))
	for i, typ := range types {
		parts[i] = fmt.Sprintf("%v %d", typ, m[typ])
	}
	return strings.Join(parts, ", ")
}
