package sample

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// Params configures a Sampler. The zero value is not useful; start from
// Defaults and change what you need. The meaning of every field follows
// llama.cpp's common sampling parameters.
type Params struct {
	// Temperature divides the logits before the random draw. A value <= 0
	// selects greedy decoding: the highest logit wins, ties going to the
	// lowest token id.
	Temperature float32
	// TopK keeps the K highest logits; 0 disables it.
	TopK int
	// TopP keeps the smallest set of most probable tokens whose cumulative
	// probability reaches TopP; 1 disables it.
	TopP float32
	// MinP drops tokens whose probability is below MinP times the
	// probability of the most likely token; 0 disables it.
	MinP float32
	// TypicalP is locally typical sampling's mass; 1 disables it.
	TypicalP float32
	// MinKeep is the least number of tokens top-p, min-p and typical-p keep
	// (0 and 1 both mean one).
	MinKeep int

	// RepeatPenalty divides the positive logits and multiplies the negative
	// ones of tokens seen in the window; 1 disables it.
	RepeatPenalty float32
	// FrequencyPenalty is subtracted from a token's logit once per
	// occurrence in the window; 0 disables it.
	FrequencyPenalty float32
	// PresencePenalty is subtracted once from the logit of every token that
	// occurs in the window; 0 disables it.
	PresencePenalty float32
	// LastN is the size of the penalty window in tokens: 0 disables the
	// penalties and -1 makes the window unbounded (every accepted token).
	LastN int

	// LogitBias is added to the logits of the given token ids before
	// anything else; -Inf bans a token. Ids beyond the logits vector are
	// ignored.
	LogitBias map[int32]float32

	// Seed seeds the random draw; a negative seed picks a random one (see
	// Sampler.Seed for the value actually used).
	Seed int64
}

// Defaults returns llama.cpp's default sampling parameters: temperature
// 0.8, top-k 40, top-p 0.95, min-p 0.05, typical-p 1 (off), repeat penalty
// 1 (off) over the last 64 tokens and a random seed.
func Defaults() Params {
	return Params{
		Temperature:   0.8,
		TopK:          40,
		TopP:          0.95,
		MinP:          0.05,
		TypicalP:      1,
		RepeatPenalty: 1,
		LastN:         64,
		Seed:          -1,
	}
}

// Greedy returns parameters for greedy decoding: temperature 0 with every
// other sampler and penalty off.
func Greedy() Params {
	return Params{TopP: 1, TypicalP: 1, RepeatPenalty: 1}
}

func finite(f float32) bool {
	return !math.IsNaN(float64(f)) && !math.IsInf(float64(f), 0)
}

func unit(f float32) bool { return f >= 0 && f <= 1 }

// Validate reports every parameter that is out of range, joined into one
// error, or nil when p is usable.
func (p Params) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("sample: "+format, args...))
	}
	if !finite(p.Temperature) {
		bad("temperature %v is not a finite number", p.Temperature)
	}
	if p.TopK < 0 {
		bad("top_k %d is negative (0 disables it)", p.TopK)
	}
	if !unit(p.TopP) {
		bad("top_p %v is outside [0, 1] (1 disables it)", p.TopP)
	}
	if !unit(p.MinP) {
		bad("min_p %v is outside [0, 1] (0 disables it)", p.MinP)
	}
	if !unit(p.TypicalP) {
		bad("typical_p %v is outside [0, 1] (1 disables it)", p.TypicalP)
	}
	if p.MinKeep < 0 {
		bad("min_keep %d is negative", p.MinKeep)
	}
	if !finite(p.RepeatPenalty) || p.RepeatPenalty <= 0 {
		bad("repeat_penalty %v must be a finite number above 0 (1 disables it)", p.RepeatPenalty)
	}
	if !finite(p.FrequencyPenalty) {
		bad("frequency_penalty %v is not a finite number", p.FrequencyPenalty)
	}
	if !finite(p.PresencePenalty) {
		bad("presence_penalty %v is not a finite number", p.PresencePenalty)
	}
	if p.LastN < -1 {
		bad("last_n %d is below -1 (0 disables the penalties, -1 is unbounded)", p.LastN)
	}
	for _, id := range slices.Sorted(maps.Keys(p.LogitBias)) {
		b := p.LogitBias[id]
		if id < 0 {
			bad("logit bias for negative token id %d", id)
		}
		if math.IsNaN(float64(b)) || math.IsInf(float64(b), 1) {
			bad("logit bias %v for token %d is NaN or +Inf", b, id)
		}
	}
	return errors.Join(errs...)
}

// penalised reports whether the penalties change anything.
func (p Params) penalised() bool {
	return p.LastN != 0 && (p.RepeatPenalty != 1 || p.FrequencyPenalty != 0 || p.PresencePenalty != 0)
}
