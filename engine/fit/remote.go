package fit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"saji/engine/gguf"
)

// Range reads: pieces of this size, and at most this many kept.
const (
	pieceSize   = 512 << 10
	cachePieces = 16
)

// DescribeURL reads the shape of the GGUF file at url from its header
// alone, fetched with HTTP Range requests in pieces of 512 KiB (a 100 GB
// model costs a few megabytes). header is added to every request (an
// Authorization token, a User-Agent). The shape's FileSize is the whole
// file's size.
func DescribeURL(ctx context.Context, client *http.Client, url string, header http.Header) (ModelShape, error) {
	r, err := newRangeReader(ctx, client, url, header)
	if err != nil {
		return ModelShape{}, err
	}
	f, err := gguf.ReadHeader(r, r.size)
	if err != nil {
		return ModelShape{}, fmt.Errorf("fit: %s: %w", url, err)
	}
	s, err := Describe(f)
	if err != nil {
		return s, err
	}
	s.FileSize = r.size
	return s, nil
}

// rangeReader is an io.ReaderAt over a remote file that fetches aligned
// pieces with Range requests as reads need them, keeping the last few.
type rangeReader struct {
	ctx    context.Context
	client *http.Client
	url    string
	header http.Header
	size   int64

	mu     sync.Mutex
	pieces map[int64][]byte // piece index -> bytes
	order  []int64          // least recently fetched first
	// fetched counts the bytes received (for tests and logs).
	fetched int64
}

// newRangeReader fetches the first piece, learning the file's size from
// the Content-Range of the answer.
func newRangeReader(ctx context.Context, client *http.Client, url string, header http.Header) (*rangeReader, error) {
	if client == nil {
		client = http.DefaultClient
	}
	r := &rangeReader{ctx: ctx, client: client, url: url, header: header, size: -1, pieces: map[int64][]byte{}}
	if _, err := r.piece(0); err != nil {
		return nil, err
	}
	return r, nil
}

// ReadAt reads len(p) bytes at off from the pieces that hold them.
func (r *rangeReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("fit: negative offset")
	}
	n := 0
	for n < len(p) {
		at := off + int64(n)
		if at >= r.size {
			return n, io.EOF
		}
		b, err := r.piece(at / pieceSize)
		if err != nil {
			return n, err
		}
		n += copy(p[n:], b[at%pieceSize:])
	}
	return n, nil
}

// piece returns piece i, from the cache or the server.
func (r *rangeReader) piece(i int64) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b, ok := r.pieces[i]; ok {
		return b, nil
	}
	lo, hi := i*pieceSize, (i+1)*pieceSize-1
	if r.size >= 0 {
		hi = min(hi, r.size-1)
	}
	req, err := http.NewRequestWithContext(r.ctx, http.MethodGet, r.url, nil)
	if err != nil {
		return nil, fmt.Errorf("fit: %w", err)
	}
	for k, v := range r.header {
		req.Header[k] = v
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", lo, hi))
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fit: reading the model's header: %w", err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusPartialContent:
	case http.StatusOK:
		return nil, fmt.Errorf("fit: %s: the server does not support range requests", r.url)
	default:
		return nil, fmt.Errorf("fit: %s: %s", r.url, resp.Status)
	}
	start, total, err := parseContentRange(resp.Header.Get("Content-Range"))
	if err != nil {
		return nil, fmt.Errorf("fit: %s: %w", r.url, err)
	}
	if start != lo {
		return nil, fmt.Errorf("fit: %s: asked for bytes from %d, got from %d", r.url, lo, start)
	}
	if r.size < 0 {
		r.size = total
		hi = min(hi, total-1)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, hi-lo+1))
	if err != nil {
		return nil, fmt.Errorf("fit: reading the model's header: %w", err)
	}
	if int64(len(b)) != hi-lo+1 {
		return nil, fmt.Errorf("fit: %s: %d bytes in a range of %d", r.url, len(b), hi-lo+1)
	}
	r.fetched += int64(len(b))
	if len(r.order) >= cachePieces {
		delete(r.pieces, r.order[0])
		r.order = r.order[1:]
	}
	r.pieces[i] = b
	r.order = append(r.order, i)
	return b, nil
}

// parseContentRange reads "bytes START-END/TOTAL".
func parseContentRange(v string) (start, total int64, err error) {
	rest, ok := strings.CutPrefix(v, "bytes ")
	rng, tot, ok2 := strings.Cut(rest, "/")
	s, _, ok3 := strings.Cut(rng, "-")
	if !ok || !ok2 || !ok3 {
		return 0, 0, fmt.Errorf("bad Content-Range %q", v)
	}
	start, err1 := strconv.ParseInt(s, 10, 64)
	total, err2 := strconv.ParseInt(tot, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || total <= 0 || start >= total {
		return 0, 0, fmt.Errorf("bad Content-Range %q (the total size must be known)", v)
	}
	return start, total, nil
}

// DescribeSplitURL reads the shape of a model of total bytes, split into
// shards whose first is at url, from that shard's header (DescribeURL).
// The other shards hold the remaining layers' tensors: their bytes (total
// less the first shard's) are spread evenly over the layers, without
// reading their headers. For a model in one file, total is its size (or
// 0), and the shape is DescribeURL's.
func DescribeSplitURL(ctx context.Context, client *http.Client, url string, header http.Header, total int64) (ModelShape, error) {
	s, err := DescribeURL(ctx, client, url, header)
	if err != nil || total <= s.FileSize || s.Layers == 0 {
		return s, err
	}
	extra := total - s.FileSize
	for i := range s.LayerBytes {
		s.LayerBytes[i] += extra / int64(s.Layers)
	}
	s.FileSize = total
	return s, nil
}
