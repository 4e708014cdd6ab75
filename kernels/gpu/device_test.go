package gpu

import (
	"strings"
	"testing"
)

// TestCheckArgs checks the argument checks of every launch.
func TestCheckArgs(t *testing.T) {
	k, ok := Lookup("scale")
	if !ok {
		t.Fatal("no kernel scale")
	}
	buf := Buf{Handle: 0x1000, Size: 64}
	tests := []struct {
		name string
		args []Arg
		want string // "" for no error
	}{
		{"fits", []Arg{P(buf, 0), P(buf, 64), I(16), F(2)}, ""},
		{"null ptr", []Arg{P(Buf{}, 0), P(buf, 0), I(16), F(2)}, ""},
		{"too few", []Arg{P(buf, 0), P(buf, 0), I(16)},
			"scale takes 4 arguments, not 3 (x ptr, dst ptr, n i32, s f32)"},
		{"too many", []Arg{P(buf, 0), P(buf, 0), I(16), F(2), I(0)}, "takes 4 arguments, not 5"},
		{"i32 for f32", []Arg{P(buf, 0), P(buf, 0), I(16), I(2)},
			"scale: argument 3 (s) is i32, not f32"},
		{"i32 for ptr", []Arg{I(0), P(buf, 0), I(16), F(2)}, "argument 0 (x) is i32, not ptr"},
		{"offset past the end", []Arg{P(buf, 65), P(buf, 0), I(16), F(2)},
			"argument 0 (x): offset 65 outside its buffer of 64 bytes"},
		{"negative offset", []Arg{P(buf, 0), P(buf, -4), I(16), F(2)}, "offset -4 outside"},
		{"offset without buffer", []Arg{P(buf, 0), P(Buf{}, 8), I(16), F(2)}, "argument 1 (dst) has an offset but no buffer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckArgs(k, tt.args)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("no error, want %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error %q, want %q", err, tt.want)
			}
		})
	}
}

func TestCheckRange(t *testing.T) {
	for _, tt := range []struct {
		size, off, n int
		want         string // "" for no error
	}{
		{64, 0, 64, ""},
		{64, 60, 4, ""},
		{64, 64, 0, ""},
		{0, 0, 0, ""},
		{64, 60, 8, "bytes [60, 68) outside a buffer of 64"},
		{64, 65, 0, "bytes [65, 65) outside"},
		{64, -1, 1, "bytes [-1, 0) outside"},
		{64, 8, -1, "bytes [8, 7) outside"},
		{64, 1, 1 << 62, "outside a buffer of 64"},
	} {
		err := CheckRange(tt.size, tt.off, tt.n)
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("CheckRange(%d, %d, %d) = %v, want %q", tt.size, tt.off, tt.n, err, tt.want)
		}
	}
}
