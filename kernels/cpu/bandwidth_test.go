package cpu

import (
	"fmt"
	"sync"
	"testing"
)

// BenchmarkReadBandwidth measures how fast the backend's threads can
// stream memory: each of 1 or 2 threads runs the SIMD F32 dot product of
// its half of a 512 MiB array with itself, which reads every byte once.
// It is the ceiling that decoding (reading every weight once per token)
// is measured against.
func BenchmarkReadBandwidth(b *testing.B) {
	k := New(1).k
	if k == nil || k.f32Vec == nil {
		b.Skip("cpu: no SIMD F32 dot product on this CPU")
	}
	buf := make([]float32, 128<<20)
	for i := range buf {
		buf[i] = float32(i & 7)
	}
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for t := range threads {
					part := buf[len(buf)*t/threads : len(buf)*(t+1)/threads]
					wg.Add(1)
					go func() {
						defer wg.Done()
						_ = k.f32Vec(part, part)
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(4*len(buf))*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	}
}
