package app

// Pictures in the chat: attached to the next message with the composer's
// button, by dropping image files on the window or by pasting their paths
// (Fyne's clipboard carries text only), shown as thumbnails in the
// composer and in the messages.

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"golang.org/x/image/draw"

	"saji/engine/chat"
	"saji/engine/imagefile"
)

// maxAttached is the most pictures one message carries.
const maxAttached = 8

// Thumbnail sizes, in Fyne units: in the composer and in a message.
const (
	composerThumb = 64
	messageThumb  = 160
)

// attachment is a picture attached to the message being written.
type attachment struct {
	name  string
	data  []byte      // the file's bytes, as stored and sent
	thumb image.Image // a small copy for the composer
}

// readPicture reads and checks the picture at path: a JPEG, PNG, WebP or
// GIF file within imagefile's limits.
func readPicture(path string) (attachment, error) {
	f, err := os.Open(path)
	if err != nil {
		return attachment{}, err
	}
	defer f.Close()
	most := imagefile.DefaultLimits.MaxBytes
	data, err := io.ReadAll(io.LimitReader(f, int64(most)+1))
	if err != nil {
		return attachment{}, err
	}
	im, err := imagefile.Decode(data, imagefile.DefaultLimits)
	if err != nil {
		return attachment{}, err
	}
	return attachment{name: filepath.Base(path), data: data, thumb: shrink(im.Image, 256)}, nil
}

// shrink returns img scaled down to at most side pixels on its longer
// side (img itself when it is that small).
func shrink(img image.Image, side int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= side && h <= side {
		return img
	}
	if w >= h {
		w, h = side, max(1, h*side/w)
	} else {
		w, h = max(1, w*side/h), side
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.ApproxBiLinear.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
	return dst
}

// thumbnail draws img within a square of side units, keeping its aspect.
func thumbnail(img image.Image, side float32) *canvas.Image {
	c := canvas.NewImageFromImage(img)
	c.FillMode = canvas.ImageFillContain
	c.ScaleMode = canvas.ImageScaleSmooth
	c.SetMinSize(fyne.NewSquareSize(side))
	return c
}

// attachPaths attaches the pictures at paths to the message being
// written, read off the UI goroutine; a file that is not a picture Saji
// reads is said in the status line.
func (v *chatView) attachPaths(paths []string) {
	if len(paths) == 0 {
		return
	}
	v.bg.run(func() func() {
		var got []attachment
		var errs []string
		for _, p := range paths {
			a, err := readPicture(p)
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %s", filepath.Base(p), attachError(err)))
				continue
			}
			got = append(got, a)
		}
		return func() {
			room := maxAttached - len(v.attached)
			if len(got) > room {
				errs = append(errs, fmt.Sprintf("a message carries at most %d pictures", maxAttached))
				got = got[:max(room, 0)]
			}
			v.attached = append(v.attached, got...)
			v.showAttached()
			if len(errs) > 0 {
				v.setStatus("Could not attach "+strings.Join(errs, "; ")+".", false)
			} else {
				v.setStatus("", false)
			}
		}
	})
}

// attachError says in words why a file could not be attached.
func attachError(err error) string {
	switch {
	case errors.Is(err, imagefile.ErrFormat):
		return "not a JPEG, PNG, WebP or GIF picture"
	case errors.Is(err, imagefile.ErrTooLarge):
		return strings.TrimPrefix(err.Error(), "imagefile: ")
	}
	return userMessage(err)
}

// pickPictures opens a file dialog for pictures to attach.
func (v *chatView) pickPictures() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		r.Close()
		v.attachPaths([]string{r.URI().Path()})
	}, v.u.win)
	d.SetFilter(storage.NewExtensionFileFilter(imagefile.Exts))
	d.Show()
}

// showAttached draws the composer's row of attached pictures, each with a
// button that removes it.
func (v *chatView) showAttached() {
	var objs []fyne.CanvasObject
	for i, a := range v.attached {
		remove := widget.NewButtonWithIcon("", theme.CancelIcon(), func() { v.detach(i) })
		remove.Importance = widget.LowImportance
		objs = append(objs, container.NewBorder(nil, nil, nil, container.NewVBox(remove), thumbnail(a.thumb, composerThumb)))
	}
	v.attachBox.Objects = objs
	v.attachBox.Hidden = len(objs) == 0
	v.attachBox.Refresh()
}

// detach removes attached picture i.
func (v *chatView) detach(i int) {
	if i < len(v.attached) {
		v.attached = slices.Delete(v.attached, i, i+1)
		v.showAttached()
	}
}

// pastedPaths returns the picture files that pasted text names: one or
// more paths or file:// URIs, one a line, as file managers copy them
// (nil when the text is anything else, which pastes as text).
func pastedPaths(text string) []string {
	var paths []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if u, err := url.Parse(line); err == nil && u.Scheme == "file" {
			line = u.Path
		}
		if !filepath.IsAbs(line) || !imagefile.IsPicturePath(line) {
			return nil
		}
		if st, err := os.Stat(line); err != nil || !st.Mode().IsRegular() {
			return nil
		}
		paths = append(paths, line)
	}
	return paths
}

// pasted attaches the pictures a paste names and reports whether it did.
func (v *chatView) pasted(text string) bool {
	paths := pastedPaths(text)
	v.attachPaths(paths)
	return paths != nil
}

// messagePictures draws the thumbnails of a message's pictures (nil for
// none), decoding each once per hash.
func (v *chatView) messagePictures(images [][]byte) fyne.CanvasObject {
	if len(images) == 0 {
		return nil
	}
	var objs []fyne.CanvasObject
	for _, data := range images {
		img := v.thumbs.get(data)
		if img == nil {
			l := widget.NewLabel("(a picture Saji cannot read)")
			l.Importance = widget.LowImportance
			objs = append(objs, l)
			continue
		}
		objs = append(objs, thumbnail(img, messageThumb))
	}
	return container.NewHBox(objs...)
}

// chatMessage is a stored message as the model reads it: its text, and
// its pictures as image parts before it.
func chatMessage(role, content string, images [][]byte) (chat.Message, error) {
	if len(images) == 0 {
		return chat.Message{Role: role, Content: content}, nil
	}
	m := chat.Message{Role: role}
	for i, data := range images {
		im, err := imagefile.Decode(data, imagefile.DefaultLimits)
		if err != nil {
			return chat.Message{}, fmt.Errorf("app: picture %d of a message: %w", i+1, err)
		}
		m.Parts = append(m.Parts, chat.ContentPart{Type: "image", Image: &im})
	}
	m.Parts = append(m.Parts, chat.ContentPart{Type: "text", Text: content})
	return m, nil
}

// thumbCache keeps the message thumbnails drawn, by their file's hash, so
// that redrawing a conversation does not decode its pictures again.
type thumbCache struct {
	mu sync.Mutex
	m  map[[32]byte]image.Image // nil: not a picture
}

// maxThumbs bounds the thumbnails kept; past it the cache starts over.
const maxThumbs = 64

// get returns the thumbnail of the picture data (nil when it cannot be
// decoded).
func (c *thumbCache) get(data []byte) image.Image {
	key := sha256.Sum256(data)
	c.mu.Lock()
	defer c.mu.Unlock()
	if img, ok := c.m[key]; ok {
		return img
	}
	if c.m == nil || len(c.m) >= maxThumbs {
		c.m = map[[32]byte]image.Image{}
	}
	var img image.Image
	if im, err := imagefile.Decode(data, imagefile.DefaultLimits); err == nil {
		img = shrink(im.Image, 2*messageThumb)
	}
	c.m[key] = img
	return img
}
