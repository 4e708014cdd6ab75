package download

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	// errPaused is the cause of a running job's stop by Pause.
	errPaused = errors.New("download: paused")
	// errNoRange says a ranged request got the whole file: the job falls
	// back to one stream.
	errNoRange = errors.New("download: the server ignores Range requests")
	// errStalled is the cause of a response dropped for sending nothing.
	errStalled = errors.New("download: the server stopped sending")
)

// saveEvery is the interval of checkpoints (part file synced, state
// written) while a job runs.
const saveEvery = 2 * time.Second

// maxRetryAfter caps the delay a server may ask for with Retry-After.
const maxRetryAfter = 5 * time.Minute

// bufSize is the size of each read from a response and write to the part
// file.
const bufSize = 256 << 10

// download runs job j to its end: nil when the file is at Dest.
func (m *Manager) download(ctx context.Context, j *Job) error {
	unlock, waited, err := m.lock(ctx, j)
	if err != nil {
		return err
	}
	j.mu.Lock()
	j.locked = true
	j.mu.Unlock()
	defer func() {
		j.mu.Lock()
		j.locked = false
		j.mu.Unlock()
		unlock()
	}()
	if waited {
		m.reload(j)
	}
	req := j.Request()
	if ok, err := m.destReady(ctx, j, req); err != nil || ok {
		if ok {
			j.mu.Lock()
			j.removeFilesLocked()
			j.mu.Unlock()
		}
		return err
	}
	f, err := m.openPart(j)
	if err != nil {
		return err
	}
	stop := m.monitor(j)
	err = m.fetchAndVerify(ctx, j, f)
	stop()
	if err != nil {
		if errors.Is(err, ErrChecksum) {
			// Nothing of this download can be trusted: start afresh.
			j.setPart(nil)
			f.Close()
			j.mu.Lock()
			j.removeFilesLocked()
			j.resetLocked()
			j.mu.Unlock()
			return err
		}
		if serr := j.checkpoint(); serr != nil {
			m.log.Warn("download: saving state", "id", j.id, "err", serr)
		}
		j.setPart(nil)
		f.Close()
		return err
	}
	return m.finish(j, f, req.Dest)
}

// destReady reports whether Dest already holds the file: the right size,
// and the right hash when one is given.
func (m *Manager) destReady(ctx context.Context, j *Job, req Request) (bool, error) {
	if req.Size <= 0 {
		return false, nil
	}
	fi, err := os.Stat(req.Dest)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != req.Size {
		return false, nil
	}
	if req.SHA256 != "" {
		f, err := os.Open(req.Dest)
		if err != nil {
			return false, nil
		}
		defer f.Close()
		j.setState(Verifying)
		sum, err := hashFile(ctx, j, f, req.Size)
		if err != nil {
			if ctx.Err() != nil {
				return false, context.Cause(ctx)
			}
			return false, nil
		}
		if !strings.EqualFold(sum, req.SHA256) {
			m.log.Info("download: the destination exists with another hash; downloading again", "id", j.id, "dest", req.Dest)
			j.setState(Running)
			return false, nil
		}
	}
	j.mu.Lock()
	j.total = req.Size
	j.done.Store(req.Size)
	j.mu.Unlock()
	return true, nil
}

// openPart lays out the job's chunks if needed, checks the free space and
// opens (and sizes) its part file.
func (m *Manager) openPart(j *Job) (*os.File, error) {
	var partSize int64 = -1
	if fi, err := os.Stat(j.partPath()); err == nil {
		partSize = fi.Size()
	}
	j.mu.Lock()
	if j.chunks == nil {
		j.layoutLocked()
	}
	// Bytes the state counts but the part file lacks (it was deleted or
	// truncated behind our back) are fetched again.
	for _, c := range j.chunks {
		if h := c.have.Load(); h > 0 && c.start+h > partSize {
			c.have.Store(0)
			j.done.Add(-h)
		}
	}
	total, done := j.total, j.done.Load()
	j.mu.Unlock()

	f, err := os.OpenFile(j.partPath(), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("download: opening the partial file: %w", err)
	}
	if total > 0 {
		if err := m.checkSpace(total - done); err != nil {
			f.Close()
			return nil, err
		}
		if err := f.Truncate(total); err != nil {
			f.Close()
			return nil, m.writeError(total-done, err)
		}
	}
	j.setPart(f)
	return f, nil
}

// layoutLocked splits the file into chunks, none of them fetched (j.mu
// held). A file of unknown size, or from a server that ignores Range, is
// one chunk.
func (j *Job) layoutLocked() {
	j.done.Store(0)
	j.chunks = nil
	if j.total <= 0 || j.sequential {
		c := &chunk{}
		c.end.Store(-1)
		if j.total > 0 {
			c.end.Store(j.total)
		}
		j.chunks = []*chunk{c}
		return
	}
	size := j.m.opts.ChunkSize
	for s := int64(0); s < j.total; s += size {
		c := &chunk{start: s}
		c.end.Store(min(s+size, j.total))
		j.chunks = append(j.chunks, c)
	}
}

// checkSpace fails with ErrDiskFull unless the state folder's disk has
// room for need more bytes and a margin.
func (m *Manager) checkSpace(need int64) error {
	dir := m.opts.StateDir
	free, err := m.freeSpace(dir)
	if err != nil {
		m.log.Debug("download: free space unknown", "dir", dir, "err", err)
		return nil
	}
	want := uint64(max(need, 0)) + spaceMargin
	if free < want {
		return diskFull(dir, want, free, nil)
	}
	return nil
}

// writeError wraps an error writing the part file, as ErrDiskFull when the
// disk is full. left is what the download still had to write.
func (m *Manager) writeError(left int64, err error) error {
	if isDiskFull(err) {
		return diskFull(m.opts.StateDir, uint64(max(left, 0)), 0, err)
	}
	return fmt.Errorf("download: writing the partial file: %w", err)
}

// monitor publishes the job's progress about ten times a second and
// checkpoints it every saveEvery, until the returned function is called.
func (m *Manager) monitor(j *Job) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(progressEvery)
		defer t.Stop()
		last := time.Now()
		for {
			select {
			case <-quit:
				return
			case now := <-t.C:
				j.tick(now)
				if now.Sub(last) >= saveEvery {
					last = now
					if err := j.checkpoint(); err != nil {
						m.log.Warn("download: checkpoint", "id", j.id, "err", err)
					}
				}
			}
		}
	})
	return func() {
		close(quit)
		wg.Wait()
	}
}

// setState moves j to st.
func (j *Job) setState(st State) {
	j.mu.Lock()
	j.setStateLocked(st)
	j.mu.Unlock()
}

// fetchAndVerify fetches the missing chunks and checks the file's hash,
// fetching the whole file once more if it does not match.
func (m *Manager) fetchAndVerify(ctx context.Context, j *Job, f *os.File) error {
	for {
		if err := m.fetchAll(ctx, j, f); err != nil {
			return err
		}
		if err := j.checkpoint(); err != nil {
			return err
		}
		j.mu.Lock()
		want, total, retries := j.req.SHA256, j.total, j.hashRetries
		j.hashed.Store(0)
		j.setStateLocked(Verifying)
		j.mu.Unlock()
		if want == "" {
			return nil
		}
		sum, err := hashFile(ctx, j, f, total)
		if err != nil {
			return err
		}
		if strings.EqualFold(sum, want) {
			return nil
		}
		if retries >= 1 {
			return &kindError{
				msg: fmt.Sprintf("download: the download was corrupted twice (sha256 %s, expected %s); "+
					"the server's file may differ from what its listing says", sum, want),
				kind: ErrChecksum,
			}
		}
		// A chunk cannot tell which of its bytes are bad: fetch it all again.
		m.log.Warn("download: checksum mismatch; fetching the file again", "id", j.id, "sha256", sum, "want", want)
		j.attempts.Add(1)
		j.mu.Lock()
		j.hashRetries++
		j.layoutLocked()
		j.setStateLocked(Running)
		j.mu.Unlock()
		if err := f.Truncate(0); err != nil {
			return m.writeError(total, err)
		}
		if total > 0 {
			if err := f.Truncate(total); err != nil {
				return m.writeError(total, err)
			}
		}
		if err := j.checkpoint(); err != nil {
			return err
		}
	}
}

// hashFile returns the hex sha256 of the first size bytes of r, counting
// its progress in j.hashed.
func hashFile(ctx context.Context, j *Job, r io.ReaderAt, size int64) (string, error) {
	h := sha256.New()
	buf := make([]byte, 1<<20)
	j.hashed.Store(0)
	for off := int64(0); off < size; {
		if ctx.Err() != nil {
			return "", context.Cause(ctx)
		}
		n, err := r.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		h.Write(buf[:n])
		off += int64(n)
		j.hashed.Store(off)
		if err != nil && !(err == io.EOF && off == size) {
			return "", fmt.Errorf("download: reading the file to hash it: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// fetchAll fetches the chunks that are not complete, several at once.
func (m *Manager) fetchAll(ctx context.Context, j *Job, f *os.File) error {
	j.mu.Lock()
	var pending []*chunk
	for _, c := range j.chunks {
		if e := c.end.Load(); e < 0 || c.start+c.have.Load() < e {
			pending = append(pending, c)
		}
	}
	conns := m.opts.Connections
	if j.sequential || j.total < 2*m.opts.ChunkSize {
		conns = 1
	}
	j.mu.Unlock()
	if len(pending) == 0 {
		return nil
	}
	conns = min(conns, len(pending))

	wctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan *chunk, len(pending))
	for _, c := range pending {
		next <- c
	}
	close(next)
	// The other connections open once the first response looks right, so
	// that a 401, a 404 or a server that ignores Range costs one request.
	opened := make(chan struct{})
	ready := sync.OnceFunc(func() { close(opened) })
	var wg sync.WaitGroup
	for i := range conns {
		wg.Go(func() {
			if i > 0 {
				select {
				case <-opened:
				case <-wctx.Done():
					return
				}
			}
			for c := range next {
				if err := m.fetchChunk(wctx, j, f, c, ready); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	err := context.Cause(wctx)
	if errors.Is(err, errNoRange) {
		m.log.Info("download: the server ignores Range; fetching the file in one stream", "id", j.id)
		j.mu.Lock()
		j.sequential = true
		j.layoutLocked()
		j.mu.Unlock()
		return m.fetchAll(ctx, j, f)
	}
	return err
}

// fetchChunk fetches the rest of chunk c, retrying with backoff. ready is
// called once a response is found good.
func (m *Manager) fetchChunk(ctx context.Context, j *Job, f *os.File, c *chunk, ready func()) error {
	failures := 0
	for {
		before := c.have.Load()
		err := m.fetchOnce(ctx, j, f, c, ready)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		var te *tempError
		if !errors.As(err, &te) {
			return err
		}
		if c.have.Load() > before {
			failures = 0 // it made progress: a fresh budget
		}
		failures++
		if failures > m.opts.Retries {
			return fmt.Errorf("%w (gave up after %d tries)", te.err, failures)
		}
		j.attempts.Add(1)
		d := m.backoff(failures, te.after)
		m.log.Info("download: retrying", "id", j.id, "offset", c.start+c.have.Load(), "in", d, "err", te.err)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// backoff is the delay before retry n (1, 2, ...): what the server asked
// for, or an exponential delay with jitter.
func (m *Manager) backoff(n int, after time.Duration) time.Duration {
	if after > 0 {
		return min(after, maxRetryAfter)
	}
	d := m.opts.Backoff << min(n-1, 30)
	if d <= 0 || d > m.opts.MaxBackoff {
		d = m.opts.MaxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// fetchOnce makes one request for the rest of chunk c and writes what
// comes back, calling ready once the response's headers are good. Errors
// worth retrying are *tempError.
func (m *Manager) fetchOnce(ctx context.Context, j *Job, f *os.File, c *chunk, ready func()) error {
	j.mu.Lock()
	rawURL, header, total := j.req.URL, j.req.Header, j.total
	j.mu.Unlock()
	end := c.end.Load()
	off := c.start + c.have.Load()
	whole := c.start == 0 && (end < 0 || end == total)

	rctx, rcancel := context.WithCancelCause(ctx)
	defer rcancel(nil)
	watchdog := time.AfterFunc(m.stall, func() { rcancel(errStalled) })
	defer watchdog.Stop()
	keys := make([]string, 0, len(header))
	for k := range header {
		keys = append(keys, k)
	}
	hreq, err := http.NewRequestWithContext(context.WithValue(rctx, ctxKey{}, keys), http.MethodGet, rawURL, nil)
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	for k, v := range header {
		hreq.Header[k] = append([]string(nil), v...)
	}
	hreq.Header.Set("Accept-Encoding", "identity") // the bytes as stored, so ranges and sizes mean what they say
	switch {
	case end >= 0 && !(whole && off == 0):
		hreq.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, end-1))
	case end < 0 && off > 0:
		hreq.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
	}
	readErr := func(err error) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if errors.Is(context.Cause(rctx), errStalled) {
			return temporary(fmt.Errorf("download: %s sent nothing for %v", redact(rawURL), m.stall))
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = redact(ue.URL)
		}
		return temporary(fmt.Errorf("download: %w", err))
	}
	resp, err := m.client.Do(hreq)
	if err != nil {
		return readErr(err)
	}
	defer resp.Body.Close()
	from := redact(resp.Request.URL.String())

	switch resp.StatusCode {
	case http.StatusPartialContent:
		first, last, size, err := parseContentRange(resp.Header.Get("Content-Range"))
		if err != nil {
			return temporary(fmt.Errorf("download: %s: %w", from, err))
		}
		if size >= 0 && total > 0 && size != total {
			return sizeMismatch(from, size, total)
		}
		if first != off || (end >= 0 && last != end-1) {
			return temporary(fmt.Errorf("download: %s answered bytes %d-%d to a request for %d-%d", from, first, last, off, end-1))
		}
		if end < 0 && size >= 0 {
			if err := m.learnTotal(j, c, f, size); err != nil {
				return err
			}
			end = size
		}
	case http.StatusOK:
		if !whole {
			return errNoRange
		}
		if n := resp.ContentLength; n >= 0 && total > 0 && n != total {
			return sizeMismatch(from, n, total)
		}
		if h := c.have.Swap(0); h > 0 {
			j.done.Add(-h) // the whole file again, from its first byte
		}
		off = 0
		if end < 0 && resp.ContentLength >= 0 {
			if err := m.learnTotal(j, c, f, resp.ContentLength); err != nil {
				return err
			}
			end = resp.ContentLength
		}
	default:
		he := &HTTPError{StatusCode: resp.StatusCode, URL: from}
		denied := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
		if denied && resp.Request.URL.Host != hreq.URL.Host {
			// A redirect target refusing a signed address: it expired
			// (the first host decides about access). Resolve it again.
			return temporary(he)
		}
		if he.retryable() {
			he.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), time.Now())
			return &tempError{err: he, after: he.RetryAfter}
		}
		return he
	}

	ready()
	buf := make([]byte, bufSize)
	for end < 0 || off < end {
		want := int64(len(buf))
		if end >= 0 {
			want = min(want, end-off)
		}
		n, err := resp.Body.Read(buf[:want])
		if n > 0 {
			watchdog.Reset(m.stall)
			if _, werr := m.writeAt(f, buf[:n], off); werr != nil {
				return m.writeError(max(end, total)-off, werr)
			}
			off += int64(n)
			c.have.Add(int64(n))
			j.done.Add(int64(n))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return readErr(err)
		}
	}
	if end < 0 { // the size was unknown until the end of the stream
		c.end.Store(off)
		j.mu.Lock()
		j.total = off
		j.mu.Unlock()
		return nil
	}
	if off < end {
		return temporary(fmt.Errorf("download: %s: the response ended at byte %d of %d: %w", from, off, end, io.ErrUnexpectedEOF))
	}
	return nil
}

// sizeMismatch is the error about a server whose file has another size
// than the request said.
func sizeMismatch(from string, got, want int64) error {
	return fmt.Errorf("download: %s serves %d bytes, but the file should have %d", from, got, want)
}

// learnTotal records the size the first response of an unknown-size
// download told, checks the free space for it and sizes the part file.
func (m *Manager) learnTotal(j *Job, c *chunk, f *os.File, size int64) error {
	j.mu.Lock()
	j.total = size
	j.mu.Unlock()
	c.end.Store(size)
	left := size - c.have.Load()
	if err := m.checkSpace(left); err != nil {
		return err
	}
	if err := f.Truncate(size); err != nil {
		return m.writeError(left, err)
	}
	return nil
}

// parseContentRange reads "bytes FIRST-LAST/SIZE" (SIZE may be "*",
// returned as -1).
func parseContentRange(h string) (first, last, size int64, err error) {
	bad := fmt.Errorf("bad Content-Range %q", h)
	rest, ok := strings.CutPrefix(h, "bytes ")
	if !ok {
		return 0, 0, 0, bad
	}
	rng, sz, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, 0, bad
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, 0, bad
	}
	if first, err = strconv.ParseInt(a, 10, 64); err != nil || first < 0 {
		return 0, 0, 0, bad
	}
	if last, err = strconv.ParseInt(b, 10, 64); err != nil || last < first {
		return 0, 0, 0, bad
	}
	size = -1
	if sz != "*" {
		if size, err = strconv.ParseInt(sz, 10, 64); err != nil || size <= last {
			return 0, 0, 0, bad
		}
	}
	return first, last, size, nil
}

// finish moves the verified part file to dest and forgets the job's
// state.
func (m *Manager) finish(j *Job, f *os.File, dest string) error {
	j.setPart(nil)
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("download: syncing the partial file: %w", err)
	}
	if err := moveFile(j.partPath(), dest); err != nil {
		return err
	}
	if err := os.Remove(j.statePath()); err != nil && !os.IsNotExist(err) {
		m.log.Warn("download: removing state", "id", j.id, "err", err)
	}
	_ = syncDir(m.opts.StateDir)
	return nil
}

// moveFile renames src to dst, creating dst's folder and syncing it; when
// they are on different disks it copies into a temporary file beside dst
// and renames that.
func moveFile(src, dst string) error {
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("download: creating the destination folder: %w", err)
	}
	err := os.Rename(src, dst)
	if err != nil && isCrossDevice(err) {
		err = copyInto(src, dst)
		if err == nil {
			_ = os.Remove(src)
		}
	}
	if err != nil {
		var ke *kindError
		if errors.As(err, &ke) {
			return err
		}
		return fmt.Errorf("download: moving the file into place: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("download: syncing %s: %w", dir, err)
	}
	return nil
}

// copyInto copies src to a synced temporary file in dst's folder and
// renames it to dst.
func copyInto(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	n, err := io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(out.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(out.Name(), dst)
	}
	if err != nil {
		_ = os.Remove(out.Name())
		if isDiskFull(err) {
			fi, _ := in.Stat()
			left := int64(0)
			if fi != nil {
				left = fi.Size() - n
			}
			return diskFull(filepath.Dir(dst), uint64(max(left, 0)), 0, err)
		}
		return err
	}
	return nil
}
