package finding

import (
	"math"
	"testing"
)

func TestPlotAdd(t *testing.T) {
	tests := []struct {
		v    float64
		want int // points after adding v
	}{
		{3.66, 1},
		{0, 1},
		{-2.5, 1},
		{math.NaN(), 0},
		{math.Inf(1), 0},
		{math.Inf(-1), 0},
	}
	for _, tt := range tests {
		var p Plot
		p.Add(Point{Label: "r", Value: tt.v})
		if len(p.Points) != tt.want {
			t.Errorf("Plot.Add(%v): %d points; want %d", tt.v, len(p.Points), tt.want)
		}
	}
}
