package jinja

import (
	"math"
	"strings"
	"testing"
)

func TestDictKeepsOrder(t *testing.T) {
	// Past eight keys a dict indexes its keys; both ways must agree.
	for _, n := range []int{3, 20} {
		d := NewDict()
		var want []string
		for i := n; i > 0; i-- {
			k := strings.Repeat("k", i)
			d.Set(k, i)
			want = append(want, k)
		}
		d.Set("k", "again") // an existing key keeps its position
		if d.Len() != n {
			t.Errorf("n=%d: Len %d", n, d.Len())
		}
		for i, k := range d.Keys() {
			if k != want[i] {
				t.Errorf("n=%d: key %d is %v, want %s", n, i, k, want[i])
			}
		}
		if v, ok := d.Get("k"); !ok || v != "again" || d.Values()[n-1] != "again" {
			t.Errorf("n=%d: Get(k) = %v, %v", n, v, ok)
		}
		if _, ok := d.Get("missing"); ok {
			t.Errorf("n=%d: a missing key was found", n)
		}
	}
}

func TestDictKeysHashLikePython(t *testing.T) {
	// 1, 1.0 and True are one key in Python; "1" and (1,) are others.
	for _, n := range []int{2, 20} {
		d := NewDict()
		for i := 0; i < n; i++ {
			if err := d.set(int64(100+i), nil); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range []Value{int64(1), 1.0, true, "1", newTuple(int64(1)), nil} {
			if err := d.set(k, k); err != nil {
				t.Fatal(err)
			}
		}
		if got := d.Len() - n; got != 4 {
			t.Errorf("n=%d: %d new keys, want 4", n, got)
		}
		if v, ok := d.lookup(int64(1)); !ok || v != true {
			t.Errorf("n=%d: d[1] = %v, want True (the last set)", n, v)
		}
		if err := d.set(newList(nil), 1); err == nil {
			t.Errorf("n=%d: a list was accepted as a key", n)
		}
	}
}

func TestReprAndStr(t *testing.T) {
	d := NewDict()
	d.Set("a", nil)
	d.Set("b", newList([]Value{int64(1), 2.5, "x'y", true}))
	tests := []struct {
		v         Value
		repr, str string
	}{
		{nil, "None", "None"},
		{true, "True", "True"},
		{int64(-3), "-3", "-3"},
		{1.0, "1.0", "1.0"},
		{math.Copysign(0, -1), "-0.0", "-0.0"},
		{0.30000000000000004, "0.30000000000000004", "0.30000000000000004"},
		{1e15, "1000000000000000.0", "1000000000000000.0"},
		{1e16, "1e+16", "1e+16"},
		{0.00001, "1e-05", "1e-05"},
		{5e-324, "5e-324", "5e-324"},
		{math.NaN(), "nan", "nan"},
		{math.Inf(-1), "-inf", "-inf"},
		{"it's", `"it's"`, "it's"},
		{"a\nb\x00", `'a\nb\x00'`, "a\nb\x00"},
		{markup("<b>"), "Markup('<b>')", "<b>"},
		{newTuple(int64(1)), "(1,)", "(1,)"},
		{newTuple(), "()", "()"},
		{d, `{'a': None, 'b': [1, 2.5, "x'y", True]}`, `{'a': None, 'b': [1, 2.5, "x'y", True]}`},
		{undefined{}, "Undefined", ""},
	}
	for _, tt := range tests {
		if got := repr(tt.v); got != tt.repr {
			t.Errorf("repr(%#v) = %s, want %s", tt.v, got, tt.repr)
		}
		if got := toStr(tt.v); got != tt.str {
			t.Errorf("str(%#v) = %s, want %s", tt.v, got, tt.str)
		}
	}
}

func TestTruthy(t *testing.T) {
	tests := []struct {
		v    Value
		want bool
	}{
		{nil, false}, {false, false}, {true, true}, {int64(0), false}, {int64(-1), true},
		{0.0, false}, {0.5, true}, {"", false}, {" ", true}, {markup(""), false},
		{newList(nil), false}, {newTuple(nil), true}, {NewDict(), false},
		{undefined{}, false}, {&rangeValue{0, 0, 1}, false}, {&rangeValue{0, 3, 1}, true},
	}
	for _, tt := range tests {
		if got := truthy(tt.v); got != tt.want {
			t.Errorf("truthy(%s) = %v, want %v", repr(tt.v), got, tt.want)
		}
	}
}

func TestEqualAndCompare(t *testing.T) {
	tests := []struct {
		a, b  Value
		equal bool
		cmp   int // -1, 0, 1, 2 (unordered) or 9 (a TypeError)
	}{
		{int64(1), 1.0, true, 0},
		{true, int64(1), true, 0},
		{int64(2), 2.5, false, -1},
		{"a", markup("a"), true, 0},
		{"b", "ab", false, 1},
		{"1", int64(1), false, 9},
		{nil, nil, true, 9},
		{newList([]Value{int64(1), int64(2)}), newList([]Value{int64(1), int64(3)}), false, -1},
		{newList([]Value{int64(1)}), newTuple(int64(1)), false, 9},
		{newList([]Value{int64(1)}), newList([]Value{int64(1), int64(0)}), false, -1},
		{math.NaN(), math.NaN(), false, 2},
		{&rangeValue{0, 0, 1}, &rangeValue{5, 2, 1}, true, 9},
	}
	for _, tt := range tests {
		if got := equal(tt.a, tt.b); got != tt.equal {
			t.Errorf("%s == %s: %v, want %v", repr(tt.a), repr(tt.b), got, tt.equal)
		}
		got, err := compare(tt.a, tt.b, "<")
		if err != nil {
			got = 9
		}
		if got != tt.cmp {
			t.Errorf("compare(%s, %s) = %d (%v), want %d", repr(tt.a), repr(tt.b), got, err, tt.cmp)
		}
	}
}
