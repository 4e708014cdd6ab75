package quantize

import (
	"context"
	"fmt"
	"io"
	"math"
	"sync"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// chunkElems is about how many elements one goroutine converts at a time:
// small enough for progress and load balance on small tensors, large
// enough that handing chunks out costs nothing next to quantizing them.
const chunkElems = 1 << 18

// copyChunk is how many bytes of a tensor that keeps its type are written
// between progress reports and cancellation checks.
const copyChunk = 4 << 20

// converter writes one tensor's data converted to type to.
type converter struct {
	src     gguf.TensorInfo
	data    []byte // the source tensor's bytes (mapped)
	to      quant.Type
	weights []float32 // importance weights: a row's, times the experts
	threads int
	prog    *progress
}

// job is one chunk of rows on its way through the pipeline.
type job struct {
	first, rows int64 // the chunk's rows
	buf         *buffers
	err         error
	done        chan struct{} // closed when buf.dst holds the result
}

// buffers are one chunk's working memory, reused from chunk to chunk.
type buffers struct {
	f32 []float32
	dst []byte
}

// write writes the tensor's data to out: the bytes themselves when the
// type does not change, otherwise the rows converted in chunks by
// c.threads goroutines and written in order.
func (c *converter) write(ctx context.Context, out io.Writer) error {
	if c.to == c.src.Type {
		return c.copy(ctx, out)
	}
	cols := int64(1)
	if len(c.src.Shape) > 0 {
		cols = c.src.Shape[0]
	}
	rows := int64(0)
	if cols > 0 {
		rows = c.src.Elements() / cols
	}
	if rows == 0 {
		return nil
	}
	inRow, err := c.src.Type.RowSize(cols)
	if err != nil {
		return err
	}
	outRow, err := c.to.RowSize(cols)
	if err != nil {
		return err
	}
	per := max(1, chunkElems/cols)
	chunks := (rows + per - 1) / per
	workers := int(min(int64(max(c.threads, 1)), chunks))
	inflight := 2 * workers

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	free := make(chan *buffers, inflight)
	for range inflight {
		free <- &buffers{}
	}
	queue := make(chan *job, inflight) // jobs in row order, for the writer
	jobs := make(chan *job)            // jobs for the workers

	var wg sync.WaitGroup
	wg.Go(func() { // producer: hands out chunks while buffers are free
		defer close(jobs)
		defer close(queue)
		for first := int64(0); first < rows; first += per {
			var b *buffers
			select {
			case b = <-free:
			case <-ctx.Done():
				return
			}
			j := &job{first: first, rows: min(per, rows-first), buf: b, done: make(chan struct{})}
			queue <- j // never blocks: at most inflight jobs hold buffers
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				j.err = c.convert(j, cols, inRow, outRow)
				close(j.done)
			}
		})
	}

	err = c.drain(ctx, queue, free, out, inRow)
	cancel()
	wg.Wait()
	return err
}

// drain writes the converted chunks in order as they complete.
func (c *converter) drain(ctx context.Context, queue <-chan *job, free chan<- *buffers, out io.Writer, inRow int64) error {
	for j := range queue {
		select {
		case <-j.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if j.err != nil {
			return j.err
		}
		if _, err := out.Write(j.buf.dst); err != nil {
			return err
		}
		c.prog.add(j.rows * inRow)
		free <- j.buf
	}
	return ctx.Err()
}

// convert dequantizes a chunk's rows to float32 and quantizes them to c.to.
func (c *converter) convert(j *job, cols, inRow, outRow int64) error {
	n := int(j.rows * cols)
	b := j.buf
	b.f32 = resize(b.f32, n)
	b.dst = resize(b.dst, int(j.rows*outRow))
	src := c.data[j.first*inRow : (j.first+j.rows)*inRow]
	if err := quant.Dequantize(c.src.Type, src, b.f32); err != nil {
		return err
	}
	for i, v := range b.f32 {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("row %d holds a non-finite value (%v)", j.first+int64(i)/cols, v)
		}
	}
	if c.weights == nil {
		return quant.Quantize(c.to, b.f32, b.dst)
	}
	return c.quantizeWeighted(j.first, cols, outRow, b)
}

// quantizeWeighted quantizes a chunk's rows, from row first, one by one
// with the importance weights of their expert (the weights of a 3-D
// tensor hold one row's per expert, each expert shape[1] rows).
func (c *converter) quantizeWeighted(first, cols, outRow int64, b *buffers) error {
	perExpert := int64(1)
	if len(c.src.Shape) > 1 {
		perExpert = max(1, c.src.Shape[1])
	}
	experts := int64(len(c.weights)) / cols
	for r := int64(0); r*cols < int64(len(b.f32)); r++ {
		e := (first + r) / perExpert
		if e >= experts {
			return fmt.Errorf("row %d lies beyond the importance matrix's %d experts", first+r, experts)
		}
		w := c.weights[e*cols : (e+1)*cols]
		if err := quant.QuantizeWeighted(c.to, b.f32[r*cols:(r+1)*cols], w, b.dst[r*outRow:(r+1)*outRow]); err != nil {
			return err
		}
	}
	return nil
}

// copy writes the tensor's bytes unchanged.
func (c *converter) copy(ctx context.Context, out io.Writer) error {
	for p := c.data; len(p) > 0; {
		if err := ctx.Err(); err != nil {
			return err
		}
		k := min(len(p), copyChunk)
		if _, err := out.Write(p[:k]); err != nil {
			return err
		}
		c.prog.add(int64(k))
		p = p[k:]
	}
	return nil
}

// resize returns s with length n, reallocating only to grow.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
