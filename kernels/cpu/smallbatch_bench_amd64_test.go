package cpu

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"saji/kernels/quant"
)

// BenchmarkSmallBatch measures matrix products of a few activation rows
// (speculative verification, small prompts, batched decode of a few
// sequences) against one row, on the newest kernel set and two threads,
// with weights (about 96 MB, k = 4096) that stream from memory as a real
// model's do. ns/op over n=1's is what a batch of n costs in decode steps.
func BenchmarkSmallBatch(b *testing.B) {
	smallBatchTypes := []quant.Type{quant.TypeQ8_0, quant.TypeQ4_K, quant.TypeQ6_K, quant.TypeQ2_K, quant.TypeQ3_K, quant.TypeF16}
	threads := 2
	if s := os.Getenv("SAJI_BENCH_THREADS"); s != "" {
		threads, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("SAJI_BENCH_TYPES"); s != "" {
		smallBatchTypes = nil
		for _, name := range strings.Split(s, ",") {
			t, err := quant.ParseType(name)
			if err != nil {
				b.Fatal(err)
			}
			smallBatchTypes = append(smallBatchTypes, t)
		}
	}
	rng := rand.New(rand.NewPCG(91, 92))
	const k = 4096
	for _, typ := range smallBatchTypes {
		rowBytes := k / typ.BlockSize() * typ.TypeSize()
		m := (96 << 20) / rowBytes / 64 * 64
		var data []byte
		if typ == quant.TypeF16 {
			data = make([]byte, 2*k*m)
			for i := range k * m {
				h := quant.F32ToF16(float32(rng.NormFloat64() * 0.02))
				data[2*i], data[2*i+1] = byte(h), byte(h>>8)
			}
		} else {
			data = rawBlocks(rng, typ, m*k/typ.BlockSize(), 0.01)
		}
		bk := New(threads)
		wt, err := bk.Weight(typ, []int{k, m}, data)
		if err != nil {
			b.Fatal(err)
		}
		if rw, err := bk.Repack(wt); err == nil {
			wt = rw
		}
		for _, n := range []int{1, 2, 3, 4, 5, 8, 9, 16} {
			b.Run(fmt.Sprintf("%v/n=%d", typ, n), func(b *testing.B) {
				xt, _ := bk.New(quant.TypeF32, k, n)
				_ = bk.Write(xt, randn(rng, k*n, 1))
				dst, _ := bk.New(quant.TypeF32, m, n)
				cpuTime(b, func() {
					for b.Loop() {
						if err := bk.MatMul(dst, wt, xt); err != nil {
							b.Fatal(err)
						}
					}
				})
				b.ReportMetric(float64(len(data))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		}
	}
}
