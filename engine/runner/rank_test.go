package runner

import (
	"math"
	"testing"
)

func TestRankHeadScore(t *testing.T) {
	sigmoid := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	tests := []struct {
		name string
		head rankHead
		x    []float32
		want float64
	}{
		{"one label, raw", rankHead{w: []float32{1, -2, 0.5}, labels: 1}, []float32{2, 1, 4}, 2},
		{"yes and no, softmaxed", rankHead{w: []float32{1, 0, 0, 1}, labels: 2, softmax: true}, []float32{2, 0}, sigmoid(2)},
		{"no wins", rankHead{w: []float32{1, 0, 0, 1}, labels: 2, softmax: true}, []float32{0, 3}, sigmoid(-3)},
		{"a tie", rankHead{w: []float32{1, 1, 1, 1}, labels: 2, softmax: true}, []float32{5, -7}, 0.5},
		{"large values do not overflow", rankHead{w: []float32{1, 0, 0, 1}, labels: 2, softmax: true}, []float32{1000, 990}, sigmoid(10)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.head.score(tt.x); math.Abs(float64(got)-tt.want) > 1e-6 {
				t.Errorf("score = %v, want %v", got, tt.want)
			}
		})
	}
}
