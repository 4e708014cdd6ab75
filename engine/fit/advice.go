package fit

import (
	"fmt"

	"saji/engine/units"
)

// ComfortableTokensPerSec is the predicted decode speed from which a model
// is comfortable to chat with: a little faster than people read. Slower
// models run, but a reply of a few hundred tokens takes a minute or more.
const ComfortableTokensPerSec = 8.0

// Pace is the planner's verdict for people: whether a model fits and, when
// it does, whether it writes fast enough to be comfortable. The app's
// first-run page, its wizard and Discover all say a plan's Pace, so that
// they give the same advice for the same machine.
type Pace int

// The paces, best first.
const (
	// Comfortable: it fits, and writes at ComfortableTokensPerSec or
	// faster (or on the GPU, or where the speed is not known).
	Comfortable Pace = iota
	// Slow: it fits but writes slower than ComfortableTokensPerSec.
	Slow
	// Tight: it fits the machine's memory but not what is free now.
	Tight
	// TooBig: it does not fit.
	TooBig
)

// PaceOf is the pace of a plan with verdict v predicted to decode at tps
// tokens a second (0: not known).
func PaceOf(v Verdict, tps float64) Pace {
	switch {
	case v.Kind == WontFit:
		return TooBig
	case v.Tight:
		return Tight
	case tps > 0 && tps < ComfortableTokensPerSec:
		return Slow
	}
	return Comfortable
}

// FastEnough reports whether a model file of size bytes decodes at
// ComfortableTokensPerSec or faster on a machine whose memory reads
// bandwidth bytes a second (true when the bandwidth is unknown): a token
// reads about every weight once, so before the file's header is read
// its size stands in for the plan's bytes per token.
func FastEnough(size int64, bandwidth float64) bool {
	return bandwidth <= 0 || size <= 0 || bandwidth/float64(size) >= ComfortableTokensPerSec
}

// Pace is p's pace.
func (p Plan) Pace() Pace { return PaceOf(p.Verdict, p.DecodeTokensPerSec) }

// SpeedText writes a decode speed for people: "about 12 tokens/s",
// "about 1.5 tokens/s".
func SpeedText(tps float64) string {
	if tps >= 10 {
		return fmt.Sprintf("about %.0f tokens/s", tps)
	}
	return fmt.Sprintf("about %.1f tokens/s", tps)
}

// Advice says p's verdict in one sentence for people, with the speed and
// the memory when they are known: "Fits: about 12 tokens/s, 5.1 GB of
// 23 GB free.", "Runs, slowly: about 1.5 tokens/s, 8.2 GB of 23 GB
// free.", "Tight: needs 20 GB, 12 GB free; close other programs first.",
// "Too big: needs 48 GB, this computer has 24 GB." The details (where the
// memory goes, the largest context) are Explain's.
func (p Plan) Advice() string {
	need, free, total := p.Breakdown.RAM, int64(p.Machine.Memory.Available), int64(p.Machine.Memory.Total)
	where := ""
	switch p.Verdict.Kind {
	case FullGPU:
		where = " on the GPU"
		need, free, total = p.Breakdown.GPU, 0, 0
		for _, g := range p.Machine.GPUs {
			free += int64(g.Free)
			total += int64(g.Total)
		}
	case PartialGPU:
		where = fmt.Sprintf(" partly on the GPU (%d of %d layers)", p.Verdict.GPULayers, p.Model.Layers)
	}
	if p.Verdict.Kind == WontFit {
		need = p.Breakdown.Total
		if total > 0 {
			return fmt.Sprintf("Too big: needs %s, this computer has %s.", units.Bytes(need), units.Bytes(total))
		}
		return fmt.Sprintf("Too big: needs %s.", units.Bytes(need))
	}
	var parts []string
	if tps := p.DecodeTokensPerSec; tps > 0 {
		parts = append(parts, SpeedText(tps))
	}
	switch {
	case free > 0:
		parts = append(parts, fmt.Sprintf("%s of %s free", units.Bytes(need), units.Bytes(free)))
	case need > 0:
		parts = append(parts, "needs "+units.Bytes(need))
	}
	var head string
	switch p.Pace() {
	case Tight:
		return fmt.Sprintf("Tight%s: needs %s, %s free; close other programs first.", where, units.Bytes(need), units.Bytes(free))
	case Slow:
		head = "Runs" + where + ", slowly"
	default:
		head = "Fits" + where
	}
	if len(parts) == 0 {
		return head + "."
	}
	s := head + ": " + parts[0]
	for _, x := range parts[1:] {
		s += ", " + x
	}
	return s + "."
}
