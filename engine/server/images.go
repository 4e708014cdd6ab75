package server

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"saji/engine/imagefile"
)

// The pictures a request attaches: OpenAI's image_url parts (data: URIs,
// and http(s) URLs where Config.AllowImageURLs allows them), Ollama's
// base64 images and Anthropic's image blocks. Each is decoded here,
// through imagefile.Decode, so that a malformed one is a 400 naming where
// it is; the runner decides whether the model can see them.

// maxImages is the most pictures one request may carry: past any chat a
// person has, and a bound on the work a request can ask before the model
// refuses it. Together the pictures hold at most
// imagefile.DefaultLimits.MaxPixels pixels, so that a request's decoded
// pictures stay within about 200 MB whatever their files' sizes.
const maxImages = 16

// imageFetchTimeout bounds the fetch of an image URL, from the request to
// the last byte.
const imageFetchTimeout = 30 * time.Second

// maxRedirects is the most redirects an image URL's fetch follows.
const maxRedirects = 5

// imageReader decodes the pictures of one request, in order, within its
// bounds: maxImages pictures and a total of pixels.
type imageReader struct {
	ctx context.Context
	// fetch fetches http(s) image URLs; nil refuses them.
	fetch *http.Client
	// n counts the pictures read; pixels is the pixels left to them.
	n, pixels int
}

// images returns a reader of the pictures of the request whose context
// is ctx.
func (s *Server) images(ctx context.Context) *imageReader {
	return newImageReader(ctx, s.cfg.AllowImageURLs)
}

// newImageReader returns a reader of one request's pictures that fetches
// http(s) URLs when fetch is set.
func newImageReader(ctx context.Context, fetch bool) *imageReader {
	ir := &imageReader{ctx: ctx, pixels: imagefile.DefaultLimits.MaxPixels}
	if fetch {
		ir.fetch = imageClient
	}
	return ir
}

// imageClient fetches image URLs: within imageFetchTimeout, following at
// most maxRedirects redirects, and only to http(s) URLs.
var imageClient = &http.Client{
	Timeout: imageFetchTimeout,
	CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("more than %d redirects", maxRedirects)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("a redirect to a %s: URL", req.URL.Scheme)
		}
		return nil
	},
}

// url reads the picture of an image URL at where: a data: URI, or an
// http(s) URL when the server fetches them.
func (ir *imageReader) url(where, u string) (*imagefile.Image, error) {
	u = strings.TrimSpace(u)
	if len(u) >= 5 && strings.EqualFold(u[:5], "data:") {
		data, err := parseDataURI(u)
		if err != nil {
			return nil, badRequest("%s: %v", where, err)
		}
		return ir.decode(where, data)
	}
	pu, err := url.Parse(u)
	if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, badRequest("%s: the image URL must be a data: URI (data:image/png;base64,...) or an http(s) URL", where)
	}
	if ir.fetch == nil {
		return nil, badRequest("%s: image URLs are not fetched: send the picture as a data: URI (data:image/png;base64,...), "+
			"or start the server with --allow-image-urls to fetch http(s) URLs", where)
	}
	if err := ir.count(where); err != nil {
		return nil, err
	}
	data, err := ir.get(pu.String())
	if err != nil {
		return nil, badRequest("%s: fetching %s: %v", where, pu.Redacted(), err)
	}
	return ir.decodeCounted(where, data)
}

// get fetches an image URL's bytes, at most imagefile's byte limit.
func (ir *imageReader) get(u string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ir.ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "image/*")
	resp, err := ir.fetch.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the caller's message
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the server answered %s", resp.Status)
	}
	most := imagefile.DefaultLimits.MaxBytes
	data, err := io.ReadAll(io.LimitReader(resp.Body, int64(most)+1))
	if err != nil {
		return nil, err
	}
	if len(data) > most {
		return nil, fmt.Errorf("%w: more than %d bytes", imagefile.ErrTooLarge, most)
	}
	return data, nil
}

// base64 reads a picture sent as base64 text at where (Ollama's images,
// Anthropic's base64 source).
func (ir *imageReader) base64(where, s string) (*imagefile.Image, error) {
	data, err := decodeBase64(s)
	if err != nil {
		return nil, badRequest("%s: %v", where, err)
	}
	return ir.decode(where, data)
}

// decode counts and decodes one picture at where.
func (ir *imageReader) decode(where string, data []byte) (*imagefile.Image, error) {
	if err := ir.count(where); err != nil {
		return nil, err
	}
	return ir.decodeCounted(where, data)
}

// count counts a picture at where, refusing one past maxImages.
func (ir *imageReader) count(where string) error {
	if ir.n++; ir.n > maxImages {
		return badRequest("%s: a request carries at most %d images", where, maxImages)
	}
	return nil
}

// decodeCounted decodes a counted picture within the pixels left.
func (ir *imageReader) decodeCounted(where string, data []byte) (*imagefile.Image, error) {
	lim := imagefile.DefaultLimits
	if ir.pixels <= 0 {
		return nil, badRequest("%s: the request's images hold more than %d pixels in all", where, imagefile.DefaultLimits.MaxPixels)
	}
	lim.MaxPixels = ir.pixels
	im, err := imagefile.Decode(data, lim)
	if err != nil {
		return nil, badRequest("%s: %s", where, strings.TrimPrefix(err.Error(), "imagefile: "))
	}
	ir.pixels -= im.Width() * im.Height()
	return &im, nil
}

// decodeBase64 decodes standard base64, with or without its padding (as
// Ollama's and Anthropic's clients send pictures).
func decodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("the image is empty")
	}
	enc := base64.StdEncoding
	if !strings.HasSuffix(s, "=") {
		enc = base64.RawStdEncoding
		if len(s)%4 == 0 {
			enc = base64.StdEncoding
		}
	}
	data, err := enc.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("the image is not valid base64: %w", err)
	}
	return data, nil
}

// parseDataURI returns the bytes of a data: URI of an image
// (data:image/png;base64,...; RFC 2397). Only base64 data of an image/
// media type is taken; imagefile tells the format from the bytes.
func parseDataURI(u string) ([]byte, error) {
	if len(u) < 5 || !strings.EqualFold(u[:5], "data:") {
		return nil, errors.New("not a data: URI")
	}
	head, data, ok := strings.Cut(u[5:], ",")
	if !ok {
		return nil, errors.New("a data: URI without a comma before its data")
	}
	params := strings.Split(head, ";")
	media := strings.ToLower(strings.TrimSpace(params[0]))
	if !strings.HasPrefix(media, "image/") {
		if media == "" {
			media = "none"
		}
		return nil, fmt.Errorf("a data: URI of media type %s, not an image (image/png, image/jpeg, image/webp or image/gif)", media)
	}
	if !strings.EqualFold(strings.TrimSpace(params[len(params)-1]), "base64") {
		return nil, errors.New("a data: URI without ;base64: the image must be base64 (data:image/png;base64,...)")
	}
	return decodeBase64(data)
}
