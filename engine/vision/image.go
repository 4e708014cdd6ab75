package vision

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// RGB is a picture as 8-bit red, green and blue values, pixel after pixel
// and row after row (mtmd's clip_image_u8: an image file's pixels without
// their alpha).
type RGB struct {
	W, H int
	Pix  []uint8
}

// ToRGB converts img to RGB, dropping alpha as stb_image does when mtmd
// asks it for three channels.
func ToRGB(img image.Image) RGB {
	b := img.Bounds()
	out := RGB{W: b.Dx(), H: b.Dy(), Pix: make([]uint8, 3*b.Dx()*b.Dy())}
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2] = c.R, c.G, c.B
			i += 3
		}
	}
	return out
}

// at returns the pixel at (x, y).
func (im RGB) at(x, y int) []uint8 { return im.Pix[3*(y*im.W+x) : 3*(y*im.W+x)+3] }

// lerp is mtmd's linear interpolation, in float32, the product rounded
// before the sum: Go fuses a*b+c into one instruction on arm64, and a
// channel truncated to a byte then differs from mtmd's by one.
func lerp(s, e, t float32) float32 { return s + float32((e-s)*t) }

// resizeBilinear resizes im to w × h as mtmd's resize_bilinear does:
// corners aligned, each channel interpolated in float32 and truncated.
func (im RGB) resizeBilinear(w, h int) RGB {
	w, h = max(w, 1), max(h, 1)
	out := RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	if im.W == 0 || im.H == 0 {
		return out
	}
	var xr, yr float32
	if w > 1 {
		xr = float32(im.W-1) / float32(w-1)
	}
	if h > 1 {
		yr = float32(im.H-1) / float32(h-1)
	}
	for y := range h {
		for x := range w {
			// Rounded here: Go may fuse a product into a later sum
			// (xf below) on arm64, and mtmd rounds it.
			px, py := float32(float32(x)*xr), float32(float32(y)*yr)
			x0, y0 := min(int(px), im.W-1), min(int(py), im.H-1)
			x1, y1 := min(x0+1, im.W-1), min(y0+1, im.H-1)
			xf, yf := px-float32(x0), py-float32(y0)
			p00, p10, p01, p11 := im.at(x0, y0), im.at(x1, y0), im.at(x0, y1), im.at(x1, y1)
			d := out.at(x, y)
			for c := range 3 {
				top := lerp(float32(p00[c]), float32(p10[c]), xf)
				bottom := lerp(float32(p01[c]), float32(p11[c]), xf)
				d[c] = uint8(lerp(top, bottom, yf))
			}
		}
	}
	return out
}

// resizeBicubic resizes im to w × h as mtmd's resize_bicubic does: the
// source sampled at (x·sw/w, y·sh/h), each channel interpolated by cubic
// rows then a cubic column over a 4 × 4 neighbourhood (edges clamped),
// the coefficients in float64 rounded to float32 and the sums in float32,
// rounded to the nearest byte.
func (im RGB) resizeBicubic(w, h int) RGB {
	w, h = max(w, 1), max(h, 1)
	out := RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	if im.W == 0 || im.H == 0 {
		return out
	}
	tx, ty := float32(im.W)/float32(w), float32(im.H)/float32(h)
	clampX := func(v int) int { return min(max(v, 0), im.W-1) }
	clampY := func(v int) int { return min(max(v, 0), im.H-1) }
	for i := range h {
		for j := range w {
			// Each product rounded on its own, as mtmd's is: Go may fuse
			// a product into a later sum on arm64.
			fx, fy := float32(tx*float32(j)), float32(ty*float32(i))
			x, y := int(fx), int(fy)
			dx, dy := fx-float32(x), fy-float32(y)
			d := out.at(j, i)
			for k := range 3 {
				var c [4]float32
				for jj := range c {
					row := clampY(y - 1 + jj)
					a0 := im.at(clampX(x), row)[k]
					c[jj] = cubic(float32(int(im.at(clampX(x-1), row)[k])-int(a0)), float32(a0),
						float32(int(im.at(clampX(x+1), row)[k])-int(a0)), float32(int(im.at(clampX(x+2), row)[k])-int(a0)), dx)
				}
				v := cubic(c[0]-c[1], c[1], c[2]-c[1], c[3]-c[1], dy)
				d[k] = uint8(min(max(float32(math.Round(float64(v))), 0), 255))
			}
		}
	}
	return out
}

// cubic is mtmd's cubic interpolation at t of four samples given as the
// second one (a0) and the differences d0, d2, d3 of the others from it.
func cubic(d0, a0, d2, d3, t float32) float32 {
	a1 := float32(-1.0/3*float64(d0) + float64(d2) - 1.0/6*float64(d3))
	a2 := float32(1.0/2*float64(d0) + 1.0/2*float64(d2))
	a3 := float32(-1.0/6*float64(d0) - 1.0/2*float64(d2) + 1.0/6*float64(d3))
	// a0 + a1·t + a2·t·t + a3·t·t·t, multiplied and summed left to right.
	return a0 + float32(a1*t) + float32(float32(a2*t)*t) + float32(float32(float32(a3*t)*t)*t)
}

// fit resizes im into a w × h rectangle as mtmd's img_tool resize does
// with PAD_CEIL: the aspect ratio is kept (the scaled sides rounded up),
// the picture resized by resize and centred on pad. A picture of the
// rectangle's size is kept as it is.
func (im RGB) fit(w, h int, pad [3]uint8, resize func(RGB, int, int) RGB) RGB {
	if im.W == w && im.H == h {
		return im
	}
	scale := min(float32(w)/float32(im.W), float32(h)/float32(im.H))
	nw := min(int(ceil32(float32(im.W)*scale)), w)
	nh := min(int(ceil32(float32(im.H)*scale)), h)
	r := resize(im, nw, nh)
	out := RGB{W: w, H: h, Pix: make([]uint8, 3*w*h)}
	for i := 0; i < len(out.Pix); i += 3 {
		copy(out.Pix[i:i+3], pad[:])
	}
	ox, oy := (w-nw)/2, (h-nh)/2
	for y := range nh {
		copy(out.Pix[3*((y+oy)*w+ox):3*((y+oy)*w+ox+nw)], r.Pix[3*y*nw:3*(y+1)*nw])
	}
	return out
}

// crop returns the w × h part of im at (x, y).
func (im RGB) crop(x, y, w, h int) RGB {
	out := RGB{W: w, H: h, Pix: make([]uint8, 0, 3*w*h)}
	for r := y; r < y+h; r++ {
		out.Pix = append(out.Pix, im.Pix[3*(r*im.W+x):3*(r*im.W+x+w)]...)
	}
	return out
}

// anyres returns the squares LLaVA 1.6's encoder reads for im, as mtmd's
// llava-uhd preprocessing with pinpoints makes them: a picture that fits
// the square is only stretched to it (bilinear); a larger one is first
// fitted into the best pinpoint (bicubic, black around it) and cut into
// squares, row after row, and its stretched overview comes last.
func (im RGB) anyres(size int, pinpoints [][2]int) []RGB {
	overview := im
	if im.W != size || im.H != size {
		overview = im.resizeBilinear(size, size)
	}
	if im.W <= size && im.H <= size {
		return []RGB{overview}
	}
	best := bestResolution(im.W, im.H, pinpoints)
	refined := im.fit(best[0], best[1], [3]uint8{}, RGB.resizeBicubic)
	var out []RGB
	for y := 0; y < best[1]; y += size {
		for x := 0; x < best[0]; x += size {
			out = append(out, refined.crop(x, y, size, size))
		}
	}
	return append(out, overview)
}

// idefics3Grid returns the size SmolVLM's preprocessing scales a w × h
// picture to before cutting it into size × size squares, as mtmd's
// calc_size_preserved_ratio computes it: its longer side scaled to
// longest (when not 0), each side then rounded up to whole squares; or,
// without a longest edge, each side rounded to the nearest whole squares
// (at least one).
func idefics3Grid(w, h, size, longest int) (int, int) {
	if longest > 0 {
		scale := min(float32(longest)/float32(w), float32(longest)/float32(h))
		up := func(x float32) int { return int(ceil32(x/float32(size))) * size }
		return up(float32(w) * scale), up(float32(h) * scale)
	}
	round := func(x int) int {
		return max(size, int(math.Round(float64(float32(x)/float32(size))))*size)
	}
	return round(w), round(h)
}

// idefics3Squares returns the squares SmolVLM's encoder reads for im, as
// mtmd's idefics3 preprocessing makes them: im fitted into its grid
// (bicubic, black around it) and cut into squares row after row, then
// the whole picture stretched to one square (bilinear) as the overview.
func (im RGB) idefics3Squares(size, longest int) []RGB {
	gw, gh := idefics3Grid(im.W, im.H, size, longest)
	refined := im.fit(gw, gh, [3]uint8{}, RGB.resizeBicubic)
	var out []RGB
	for y := 0; y < gh; y += size {
		for x := 0; x < gw; x += size {
			out = append(out, refined.crop(x, y, size, size))
		}
	}
	overview := im
	if im.W != size || im.H != size {
		overview = im.resizeBilinear(size, size)
	}
	return append(out, overview)
}

// bestResolution returns the pinpoint mtmd picks for a w × h picture: the
// one that keeps most of its pixels when fitted in, and of those the one
// that wastes the least area.
func bestResolution(w, h int, pinpoints [][2]int) [2]int {
	best := pinpoints[0]
	maxKept, minWasted := 0, math.MaxInt
	for _, c := range pinpoints {
		scale := min(float32(c[0])/float32(w), float32(c[1])/float32(h))
		kept := min(int(float32(w)*scale)*int(float32(h)*scale), w*h)
		wasted := c[0]*c[1] - kept
		if kept > maxKept || (kept == maxKept && wasted < minWasted) {
			best, maxKept, minWasted = c, kept, wasted
		}
	}
	return best
}

// fitBilinear is fit into a size × size square with bilinear resizing
// (Gemma 3's).
func (im RGB) fitBilinear(size int, pad [3]uint8) RGB {
	return im.fit(size, size, pad, RGB.resizeBilinear)
}

// llavaPad is the colour mtmd pads LLaVA's pictures with (the CLIP mean
// as bytes).
var llavaPad = [3]uint8{122, 116, 104}

// ceil32 rounds up a non-negative float32.
func ceil32(f float32) float32 {
	i := float32(int(f))
	if i < f {
		return i + 1
	}
	return i
}

// planar returns im's values scaled to [0, 1] and normalized by mean and
// std, one plane per channel (the encoder's input layout: R plane, G
// plane, B plane, each row after row).
func (im RGB) planar(mean, std [3]float32) []float32 {
	n := im.W * im.H
	out := make([]float32, 3*n)
	for i := range n {
		for c := range 3 {
			v := float32(im.Pix[3*i+c]) / 255
			out[c*n+i] = (v - mean[c]) / std[c]
		}
	}
	return out
}

// Preprocess returns the encoder's inputs for a picture: resized into the
// projector's square as mtmd does for its type (or cut into several, for
// LLaVA 1.6 and SmolVLM; or for Pixtral scaled to whole merges of
// patches, keeping its aspect), normalized, channel planes.
func (p *Projector) Preprocess(im RGB) ([]Pixels, error) {
	hp := p.hp
	if n := p.squares(im.W, im.H); n > maxSquares {
		return nil, fmt.Errorf("%w: %d×%d makes %d squares of %d pixels (at most %d)", ErrTooLarge, im.W, im.H, n, hp.imageSize, maxSquares)
	}
	var inputs []RGB
	switch {
	case p.typ == "mlp" && hp.pinpoints != nil:
		inputs = im.anyres(hp.imageSize, hp.pinpoints)
	case p.typ == "mlp":
		inputs = []RGB{im.fit(hp.imageSize, hp.imageSize, llavaPad, RGB.resizeBicubic)}
	case p.typ == "idefics3":
		inputs = im.idefics3Squares(hp.imageSize, hp.longestEdge)
	case p.dynamic():
		w, h := hp.dynSize(im.W, im.H)
		inputs = []RGB{im.fit(w, h, [3]uint8{}, RGB.resizeBilinear)}
	default:
		inputs = []RGB{im.fitBilinear(hp.imageSize, [3]uint8{})}
	}
	out := make([]Pixels, len(inputs))
	for i, in := range inputs {
		out[i] = Pixels{W: in.W, H: in.H, Values: in.planar(hp.mean, hp.std)}
	}
	return out, nil
}

// squares returns the number of encoder squares of a w × h picture: one,
// or LLaVA 1.6's tiles and overview, or SmolVLM's.
func (p *Projector) squares(w, h int) int {
	hp := p.hp
	switch {
	case p.typ == "mlp" && hp.pinpoints != nil:
		if w <= hp.imageSize && h <= hp.imageSize {
			return 1
		}
		best := bestResolution(w, h, hp.pinpoints)
		return (best[0]/hp.imageSize)*(best[1]/hp.imageSize) + 1
	case p.typ == "idefics3":
		gw, gh := idefics3Grid(w, h, hp.imageSize, hp.longestEdge)
		return (gw/hp.imageSize)*(gh/hp.imageSize) + 1
	}
	return 1
}

// Part is one piece of a picture's place in a prompt, in the order mtmd
// lays them out (its chunks): text the tokenizer reads with special
// tokens parsed, one token looked up whole by its text (mtmd's
// lookup_token), or the next N of the picture's embeddings.
type Part struct {
	Text, Token string
	N           int
	// Rows and Cols, where Cols is above 0, are the grid the N embeddings
	// lie on, row after row: a language model with M-RoPE (Qwen-VL's)
	// reads them at their rows and columns.
	Rows, Cols int
}

// Layout returns the parts of a w × h picture's place in a prompt: Gemma
// 3's markers around its embeddings; LLaVA's embeddings, a run for each
// square; SmolVLM's squares each after its row and column marker, a
// newline after each row but the last, then the overview between its
// markers; Pixtral's embeddings (with their [IMG_BREAK]s) and [IMG_END].
func (p *Projector) Layout(w, h int) []Part {
	n := p.Tokens()
	switch p.typ {
	case "pixtral":
		_, end := p.Markers()
		return []Part{{N: p.hp.pixtralTokens(w, h)}, {Text: end}}
	case "gemma3":
		begin, end := p.Markers()
		return []Part{{Text: begin}, {N: n}, {Text: end}}
	case typQwen2VL, typQwen25VL, typQwen3VL:
		begin, end := p.Markers()
		cols, rows := p.hp.qwenGrid(w, h)
		return []Part{{Text: begin}, {N: cols * rows, Rows: rows, Cols: cols}, {Text: end}}
	case "idefics3":
		gw, gh := idefics3Grid(w, h, p.hp.imageSize, p.hp.longestEdge)
		cols, rows := gw/p.hp.imageSize, gh/p.hp.imageSize
		var parts []Part
		for y := range rows {
			for x := range cols {
				parts = append(parts, Part{Text: fmt.Sprintf("<fake_token_around_image><row_%d_col_%d>", y+1, x+1)}, Part{N: n})
			}
			if y != rows-1 {
				parts = append(parts, Part{Token: "\n"})
			}
		}
		return append(parts, Part{Token: "\n\n"}, Part{Token: "<fake_token_around_image>"}, Part{Token: "<global-img>"},
			Part{N: n}, Part{Token: "<fake_token_around_image>"})
	}
	parts := make([]Part, p.squares(w, h))
	for i := range parts {
		parts[i].N = n
	}
	return parts
}

// WholeTokens returns the texts Layout's parts look up as whole tokens
// (SmolVLM's markers): the language model's vocabulary must have them.
func (p *Projector) WholeTokens() []string {
	if p.typ == "idefics3" {
		return []string{"\n", "\n\n", "<fake_token_around_image>", "<global-img>"}
	}
	return nil
}
