package fit

import (
	"fmt"
	"os"

	"github.com/shirou/gopsutil/v3/process"
)

// Measurement sets what a run measured beside what its plan predicted, so
// that the planner is checked against reality (saji fit --measure, and
// the app after it loads a model).
type Measurement struct {
	// Tokens is the number of tokens in the cache when the memory was
	// read (prompt and generated).
	Tokens int `json:"tokens"`
	// RSS is the measured resident memory in bytes: the whole process's,
	// less Baseline. Predicted is the plan's figure for the same thing:
	// ResidentAt(Tokens), less the runtime's base overhead when Baseline
	// is set (the baseline already holds the program and the runtime).
	RSS       int64 `json:"rss"`
	Baseline  int64 `json:"baseline,omitempty"`
	Predicted int64 `json:"predicted_rss"`
	// DecodeTokensPerSec is the measured decode speed; PredictedTokensPerSec
	// the plan's DecodeTokensPerSecAt(Tokens) (0: not predicted).
	DecodeTokensPerSec    float64 `json:"decode_tokens_per_sec"`
	PredictedTokensPerSec float64 `json:"predicted_tokens_per_sec"`
}

// ResidentSetSize reads this process's resident memory in bytes.
func ResidentSetSize() (int64, error) {
	p, err := process.NewProcess(int32(os.Getpid()))
	if err != nil {
		return 0, fmt.Errorf("fit: %w", err)
	}
	mi, err := p.MemoryInfo()
	if err != nil {
		return 0, fmt.Errorf("fit: reading the resident memory: %w", err)
	}
	return int64(mi.RSS), nil
}

// Compare sets a run's measurements beside the plan's predictions. rss is
// the process's resident memory with tokens tokens in the cache; baseline
// (0: none) is what the process held before the model loaded, which is
// then subtracted from rss, so that a program bigger than saji's command
// line (the app, with its windows) or one holding other models compares
// the model's own share. tokensPerSec is the measured decode speed.
func (p Plan) Compare(tokens int, rss, baseline int64, tokensPerSec float64) Measurement {
	m := Measurement{Tokens: tokens, RSS: rss, Predicted: p.ResidentAt(tokens), DecodeTokensPerSec: tokensPerSec,
		PredictedTokensPerSec: p.DecodeTokensPerSecAt(tokens)}
	if baseline > 0 {
		m.Baseline = baseline
		m.RSS -= baseline
		m.Predicted -= baseOverhead
	}
	return m
}

// MemoryError is the measured resident memory's deviation from the
// prediction, as a fraction (+0.05: 5% more than predicted); 0 when
// nothing was predicted.
func (m Measurement) MemoryError() float64 {
	if m.Predicted == 0 {
		return 0
	}
	return float64(m.RSS-m.Predicted) / float64(m.Predicted)
}

// Lines says the comparison in two lines; full is the plan's resident
// memory with the KV pool full (Breakdown.Total), shown for reference
// when positive.
func (m Measurement) Lines(full int64) []string {
	pct := func(a, b float64) string {
		if b == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%+.0f%%", 100*(a-b)/b)
	}
	mem := fmt.Sprintf("Measured: resident %d MB with %d tokens in the cache; predicted %d MB (%s)",
		m.RSS/1_000_000, m.Tokens, m.Predicted/1_000_000, pct(float64(m.RSS), float64(m.Predicted)))
	if m.Baseline > 0 {
		mem += fmt.Sprintf(", over the %d MB the program held before loading", m.Baseline/1_000_000)
	}
	if full > 0 {
		mem += fmt.Sprintf("; %d MB once the KV pool is full", full/1_000_000)
	}
	speed := fmt.Sprintf("Measured: decode %.1f tokens/s at %d tokens; predicted %.1f there (%s)",
		m.DecodeTokensPerSec, m.Tokens, m.PredictedTokensPerSec, pct(m.DecodeTokensPerSec, m.PredictedTokensPerSec))
	if m.PredictedTokensPerSec == 0 {
		speed = fmt.Sprintf("Measured: decode %.1f tokens/s at %d tokens; not predicted (memory bandwidth unknown)",
			m.DecodeTokensPerSec, m.Tokens)
	}
	return []string{mem, speed}
}
