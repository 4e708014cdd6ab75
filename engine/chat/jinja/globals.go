package jinja

// makeGlobals returns the global functions of a render.
func makeGlobals(s *state) map[string]Value {
	return map[string]Value{
		"range":           &builtin{"range", gRange},
		"dict":            &builtin{"dict", gDict},
		"namespace":       &builtin{"namespace", gNamespace},
		"raise_exception": &builtin{"raise_exception", gRaise},
		"strftime_now":    &builtin{"strftime_now", gStrftimeNow},
	}
}

// gRange is Python's range(stop) and range(start, stop[, step]).
func gRange(s *state, args []Value, kw kwargs) (Value, error) {
	if kw.len() > 0 {
		return nil, typeErrorf("range() takes no keyword arguments")
	}
	var n [3]int64
	for i, a := range args {
		if i >= 3 {
			return nil, typeErrorf("range expected at most 3 arguments, got %d", len(args))
		}
		x, ok := asInt(a)
		if !ok {
			if u, isU := a.(undefined); isU {
				return nil, u.err()
			}
			return nil, typeErrorf("'%s' object cannot be interpreted as an integer", typeName(a))
		}
		n[i] = x
	}
	switch len(args) {
	case 0:
		return nil, typeErrorf("range expected at least 1 argument, got 0")
	case 1:
		return &rangeValue{0, n[0], 1}, nil
	case 2:
		return &rangeValue{n[0], n[1], 1}, nil
	}
	if n[2] == 0 {
		return nil, typeErrorf("range() arg 3 must not be zero")
	}
	return &rangeValue{n[0], n[1], n[2]}, nil
}

// gDict is dict(): from a dict or a sequence of pairs, then keyword
// arguments.
func gDict(s *state, args []Value, kw kwargs) (Value, error) {
	d := NewDict()
	if len(args) > 1 {
		return nil, typeErrorf("dict expected at most 1 argument, got %d", len(args))
	}
	if len(args) == 1 {
		switch src := args[0].(type) {
		case *Dict:
			d = src.clone()
		default:
			items, err := s.toSlice(src)
			if err != nil {
				return nil, err
			}
			for _, it := range items {
				pair, err := s.toSlice(it)
				if err != nil || len(pair) != 2 {
					return nil, typeErrorf("dictionary update sequence element has wrong length")
				}
				if err := d.set(pair[0], pair[1]); err != nil {
					return nil, err
				}
			}
		}
	}
	for i, n := range kw.names {
		d.Set(n, kw.vals[i])
	}
	return d, nil
}

// gNamespace is namespace(): a dict whose attributes {% set %} may change.
func gNamespace(s *state, args []Value, kw kwargs) (Value, error) {
	v, err := gDict(s, args, kw)
	if err != nil {
		return nil, err
	}
	return &namespace{attrs: v.(*Dict)}, nil
}

// gRaise is Hugging Face's raise_exception(message): it fails the render
// with KindRaised.
func gRaise(s *state, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("raise_exception", args, kw, []string{"message"})
	if err != nil {
		return nil, err
	}
	msg, err := s.str(a[0])
	if err != nil {
		return nil, err
	}
	return nil, &Error{Kind: KindRaised, Msg: msg}
}

// gStrftimeNow is Hugging Face's strftime_now(format): the render's clock
// formatted as Python's strftime does.
func gStrftimeNow(s *state, args []Value, kw kwargs) (Value, error) {
	a, err := bindArgs("strftime_now", args, kw, []string{"format"})
	if err != nil {
		return nil, err
	}
	f, ok := isString(a[0])
	if !ok {
		return nil, typeErrorf("strftime() argument 1 must be str, not %s", typeName(a[0]))
	}
	if len(f) > 4096 {
		return nil, limitErrorf("strftime format too long")
	}
	return strftime(s.now(), f), nil
}
