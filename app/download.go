package app

// The first-run download of one model file from Hugging Face.
//
// This is deliberately small: one sequential GET that resumes a leftover
// .part file with a Range request, checks the free disk space, syncs, and
// validates the model before renaming it into the library. The full
// download manager (parallel ranges, sha256 checks, a list of downloads to
// resume after a restart, the Hugging Face search) is issue #9, in
// engine/hub.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"saji/engine/hardware"
	"saji/engine/library"
)

// defaultHFEndpoint is Hugging Face's address unless HF_ENDPOINT says
// otherwise.
const defaultHFEndpoint = "https://huggingface.co"

// hfEndpoint returns the base URL of Hugging Face: $HF_ENDPOINT, as
// huggingface_hub reads it (a mirror, or a local server in tests), or
// https://huggingface.co.
func hfEndpoint() string {
	if e := strings.TrimRight(os.Getenv("HF_ENDPOINT"), "/"); e != "" {
		return e
	}
	return defaultHFEndpoint
}

// hfFileURL returns the download address of file in the Hugging Face
// repository repo (owner/name), at its main revision.
func hfFileURL(repo, file string) string {
	return hfEndpoint() + "/" + repo + "/resolve/main/" + file
}

// downloadError is a failed download: Message says what happened in a
// sentence for the person; Err is the cause, for logs and errors.Is.
type downloadError struct {
	Message string
	Err     error
}

func (e *downloadError) Error() string {
	if e.Err == nil {
		return "app: " + e.Message
	}
	return "app: " + e.Message + " (" + e.Err.Error() + ")"
}

func (e *downloadError) Unwrap() error { return e.Err }

// downloadMessage returns the sentence that tells a person why a download
// failed.
func downloadMessage(err error) string {
	var de *downloadError
	if errors.As(err, &de) {
		return de.Message
	}
	return strings.TrimPrefix(err.Error(), "app: ")
}

// Download tuning. The stall timeout ends a transfer that receives nothing
// for that long (a dead connection that never closes).
const (
	downloadChunk        = 1 << 20
	downloadStallTimeout = 60 * time.Second
	downloadDiskMargin   = 64 << 20 // kept free beyond the file itself
)

// downloader fetches model files; downloadModel uses one with the
// defaults, tests set a shorter stall timeout.
type downloader struct {
	client *http.Client
	stall  time.Duration
	// free returns the bytes free on the disk holding dir
	// (hardware.DiskFree).
	free func(dir string) (uint64, error)
}

// newDownloader returns a downloader with a client that honours the
// proxy environment and gives up on connecting or on a silent server
// after a while, but not on a long transfer.
func newDownloader() *downloader {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	tr.TLSHandshakeTimeout = 30 * time.Second
	tr.ResponseHeaderTimeout = 60 * time.Second
	return &downloader{client: &http.Client{Transport: tr}, stall: downloadStallTimeout, free: hardware.DiskFree}
}

// downloadModel downloads the GGUF model at url into dir as NAME.gguf and
// returns that file's path. The bytes go to dir/.NAME.part first; progress
// (if not nil) is called with the bytes done and the total (-1 when the
// server does not say). A leftover .part is resumed with a Range request
// when the server supports it, else the download starts over. The file is
// synced and checked with library.Validate before it is renamed into
// place, so NAME.gguf is never a partial or unusable file. Cancelling ctx
// stops the transfer and keeps the .part for a later resume; a file that
// downloaded completely but is not a usable model is removed.
//
// A NAME.gguf already in dir that is a usable model is returned at once.
func downloadModel(ctx context.Context, url, dir, name string, progress func(done, total int64)) (string, error) {
	return newDownloader().download(ctx, url, dir, name, progress)
}

// partPath is where the model name downloads into dir until complete.
func partPath(dir, name string) string { return filepath.Join(dir, "."+name+".part") }

// errStalled ends a transfer that received nothing for the stall timeout.
var errStalled = errors.New("app: the download stalled")

func (d *downloader) download(ctx context.Context, rawURL, dir, name string, progress func(done, total int64)) (string, error) {
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("app: invalid model name %q", name)
	}
	if progress == nil {
		progress = func(int64, int64) {}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("app: the models folder: %w", err)
	}
	final := filepath.Join(dir, name+".gguf")
	part := partPath(dir, name)
	if _, err := os.Stat(final); err == nil {
		if _, err := library.Validate(final); err == nil {
			return final, nil
		}
	}
	complete, err := d.fetch(ctx, rawURL, dir, part, progress)
	if err == nil && !complete {
		// The server refused the leftover's range: start over once.
		os.Remove(part)
		complete, err = d.fetch(ctx, rawURL, dir, part, progress)
		if err == nil && !complete {
			err = &downloadError{Message: "The server would not send the rest of the file. Try again later."}
		}
	}
	if err != nil {
		return "", err
	}
	if _, err := library.Validate(part); err != nil {
		os.Remove(part)
		return "", &downloadError{Message: invalidDownloadMessage(err), Err: err}
	}
	if err := os.Rename(part, final); err != nil {
		return "", fmt.Errorf("app: %w", err)
	}
	if f, err := os.Open(dir); err == nil {
		_ = f.Sync()
		_ = f.Close()
	}
	return final, nil
}

// fetch downloads url into part, appending to what part holds when the
// server honours the Range request. complete is false when the server
// answered 416 to a range that is not the whole file (the caller starts
// over).
func (d *downloader) fetch(ctx context.Context, rawURL, dir, part string, progress func(done, total int64)) (complete bool, err error) {
	var offset int64
	if st, err := os.Stat(part); err == nil && st.Mode().IsRegular() {
		offset = st.Size()
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return false, fmt.Errorf("app: download address %q: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", "Saji")
	if offset > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return false, downloadTransferError(ctx, req.URL, err)
	}
	defer resp.Body.Close()

	total := int64(-1)
	flags := os.O_WRONLY | os.O_CREATE
	switch {
	case resp.StatusCode == http.StatusPartialContent && offset > 0:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != offset {
			return false, &downloadError{Message: "The server sent the wrong part of the file. Try again.",
				Err: fmt.Errorf("asked for bytes %d-, got %q", offset, resp.Header.Get("Content-Range"))}
		}
		total = size
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		// A fresh download, or a server that ignores Range: start over.
		offset = 0
		total = resp.ContentLength
		flags |= os.O_TRUNC
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && offset > 0:
		if _, size, ok := parseContentRange(resp.Header.Get("Content-Range")); ok && size == offset {
			progress(offset, offset)
			return true, nil // the leftover is the whole file
		}
		return false, nil
	default:
		return false, httpStatusError(req.URL, resp.StatusCode)
	}
	if total >= 0 {
		if err := d.checkSpace(dir, total-offset); err != nil {
			return false, err
		}
	}
	f, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return false, fmt.Errorf("app: %w", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = partWriteError(cerr)
		}
	}()

	done := offset
	progress(done, total)
	timer := time.AfterFunc(d.stall, func() { cancel(errStalled) })
	defer timer.Stop()
	buf := make([]byte, downloadChunk)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			timer.Reset(d.stall)
			if _, werr := f.Write(buf[:n]); werr != nil {
				return false, partWriteError(werr)
			}
			done += int64(n)
			progress(done, total)
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return false, downloadTransferError(ctx, req.URL, rerr)
		}
	}
	if total >= 0 && done != total {
		return false, &downloadError{Message: "The download stopped before the end. Download again to continue where it stopped.",
			Err: fmt.Errorf("received %d of %d bytes", done, total)}
	}
	if err := f.Sync(); err != nil {
		return false, partWriteError(err)
	}
	return true, nil
}

// checkSpace fails with a message wrapping library.ErrDiskFull when the
// disk holding dir has less than need bytes (and a margin) free.
func (d *downloader) checkSpace(dir string, need int64) error {
	if d.free == nil || need <= 0 {
		return nil
	}
	free, err := d.free(dir)
	if err != nil || uint64(need)+downloadDiskMargin <= free {
		return nil
	}
	return &downloadError{
		Message: fmt.Sprintf("There is not enough free disk space for this model: it needs %s and the disk has %s free.",
			downloadSizeText(need+downloadDiskMargin), downloadSizeText(int64(free))),
		Err: library.ErrDiskFull,
	}
}

// partWriteError wraps a failed write to the .part file.
func partWriteError(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return &downloadError{Message: "The disk is full. Free some space, then download again to continue where it stopped.",
			Err: fmt.Errorf("%w: %w", library.ErrDiskFull, err)}
	}
	return fmt.Errorf("app: saving the download: %w", err)
}

// parseContentRange parses "bytes START-END/SIZE" or "bytes */SIZE"; start is
// -1 in the second form.
func parseContentRange(h string) (start, size int64, ok bool) {
	rest, found := strings.CutPrefix(h, "bytes ")
	if !found {
		return 0, 0, false
	}
	span, sz, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	size, err := strconv.ParseInt(sz, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if span == "*" {
		return -1, size, true
	}
	first, _, found := strings.Cut(span, "-")
	if !found {
		return 0, 0, false
	}
	start, err = strconv.ParseInt(first, 10, 64)
	return start, size, err == nil
}

// hfHostName names the server of u for messages: "Hugging Face
// (huggingface.co)" for Hugging Face and its mirrors.
func hfHostName(u *url.URL) string {
	return "Hugging Face (" + u.Host + ")"
}

// downloadTransferError turns a failed request or body read into a plain message:
// cancelled, offline or stalled, or cut off.
func downloadTransferError(ctx context.Context, u *url.URL, err error) error {
	if cause := context.Cause(ctx); errors.Is(cause, errStalled) {
		return &downloadError{Message: "The download stopped: " + hfHostName(u) + " sent nothing for a minute. Check the internet connection, then download again to continue where it stopped.",
			Err: cause}
	}
	if ctx.Err() != nil {
		return &downloadError{Message: "The download was stopped. Download again to continue where it stopped.", Err: context.Cause(ctx)}
	}
	if unreachable(err) {
		return &downloadError{Message: "Saji could not reach " + hfHostName(u) + ". Check the internet connection, or drop a GGUF file you already have onto this window.",
			Err: err}
	}
	return &downloadError{Message: "The connection to " + hfHostName(u) + " broke off. Download again to continue where it stopped.", Err: err}
}

// unreachable reports whether err means the server could not be reached at
// all: no name resolution, a refused or failed connection, a timeout.
func unreachable(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENETUNREACH) || errors.Is(err, syscall.EHOSTUNREACH)
}

// httpStatusError is the message for an HTTP error answer.
func httpStatusError(u *url.URL, code int) error {
	err := fmt.Errorf("HTTP %d %s from %s", code, http.StatusText(code), u.Redacted())
	var msg string
	switch {
	case code == http.StatusNotFound:
		msg = hfHostName(u) + " does not have this file (it may have been moved or renamed)."
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		msg = hfHostName(u) + " refused the download: this model needs a Hugging Face account that has accepted its terms."
	case code == http.StatusTooManyRequests:
		msg = hfHostName(u) + " asks Saji to slow down. Try again in a few minutes."
	case code >= 500:
		msg = hfHostName(u) + " is having trouble right now. Try again in a few minutes."
	default:
		msg = fmt.Sprintf("%s answered with an error (HTTP %d).", hfHostName(u), code)
	}
	return &downloadError{Message: msg, Err: err}
}

// invalidDownloadMessage explains a downloaded file that library.Validate
// rejected.
func invalidDownloadMessage(err error) string {
	switch {
	case errors.Is(err, library.ErrTruncated):
		return "The downloaded file is incomplete: it ends too soon. Download it again."
	case errors.Is(err, library.ErrUnsupportedArch):
		return "The downloaded model is of a kind Saji cannot run yet."
	default:
		return "The downloaded file is not a model Saji can read: it may be damaged. Download it again."
	}
}

// downloadSizeText writes a byte count as people read download sizes (decimal
// units: 1.1 GB, 491 MB).
func downloadSizeText(n int64) string {
	const (
		mb = 1000 * 1000
		gb = 1000 * mb
	)
	switch {
	case n >= 10*gb:
		return fmt.Sprintf("%.0f GB", float64(n)/gb)
	case n >= gb:
		return fmt.Sprintf("%.1f GB", float64(n)/gb)
	case n >= 10*mb:
		return fmt.Sprintf("%.0f MB", float64(n)/mb)
	case n >= mb/10:
		return fmt.Sprintf("%.1f MB", float64(n)/mb)
	default:
		return fmt.Sprintf("%d KB", (n+999)/1000)
	}
}
