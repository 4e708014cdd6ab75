package jinja

func initTests() {
	cmpTest := func(op string) testFunc {
		return func(s *state, v Value, args []Value, kw kwargs) (bool, error) {
			a, err := bindArgs(op, args, kw, []string{"other"})
			if err != nil {
				return false, err
			}
			return s.compareOp(op, v, a[0])
		}
	}
	eq, ne := cmpTest("eq"), cmpTest("ne")
	lt, le, gt, ge := cmpTest("lt"), cmpTest("lteq"), cmpTest("gt"), cmpTest("gteq")
	tests = map[string]testFunc{
		"odd":         intTest(func(n int64) bool { return n%2 != 0 }),
		"even":        intTest(func(n int64) bool { return n%2 == 0 }),
		"divisibleby": tDivisibleBy,
		"defined":     simpleTest(func(v Value) bool { _, u := v.(undefined); return !u }),
		"undefined":   simpleTest(func(v Value) bool { _, u := v.(undefined); return u }),
		"none":        simpleTest(func(v Value) bool { return v == nil }),
		"boolean":     simpleTest(func(v Value) bool { _, ok := v.(bool); return ok }),
		"false":       simpleTest(func(v Value) bool { b, ok := v.(bool); return ok && !b }),
		"true":        simpleTest(func(v Value) bool { b, ok := v.(bool); return ok && b }),
		"integer":     simpleTest(func(v Value) bool { _, ok := v.(int64); return ok }),
		"float":       simpleTest(func(v Value) bool { _, ok := v.(float64); return ok }),
		"number": simpleTest(func(v Value) bool {
			_, _, ok := asNumber(v)
			return ok
		}),
		"string":   simpleTest(func(v Value) bool { _, ok := isString(v); return ok }),
		"mapping":  simpleTest(func(v Value) bool { _, ok := v.(*Dict); return ok }),
		"sequence": simpleTest(isSequence),
		"iterable": simpleTest(isIterable),
		"callable": simpleTest(isCallable),
		"lower":    strTest(func(s string) bool { return pyLower(s) == s && pyUpper(s) != s }),
		"upper":    strTest(func(s string) bool { return pyUpper(s) == s && pyLower(s) != s }),
		"escaped":  simpleTest(func(v Value) bool { _, ok := v.(markup); return ok }),
		"sameas":   tSameAs,
		"in": func(s *state, v Value, args []Value, kw kwargs) (bool, error) {
			a, err := bindArgs("in", args, kw, []string{"seq"})
			if err != nil {
				return false, err
			}
			return s.contains(a[0], v)
		},
		"filter": simpleTest(func(v Value) bool {
			n, ok := v.(string)
			return ok && filters[n] != nil
		}),
		"test": simpleTest(func(v Value) bool {
			n, ok := v.(string)
			return ok && tests[n] != nil
		}),
		"==": eq, "eq": eq, "equalto": eq,
		"!=": ne, "ne": ne,
		">": gt, "gt": gt, "greaterthan": gt,
		">=": ge, "ge": ge,
		"<": lt, "lt": lt, "lessthan": lt,
		"<=": le, "le": le,
	}
}

func simpleTest(f func(Value) bool) testFunc {
	return func(s *state, v Value, args []Value, kw kwargs) (bool, error) {
		if len(args) > 0 || kw.len() > 0 {
			return false, typeErrorf("test takes no arguments")
		}
		return f(v), nil
	}
}

func strTest(f func(string) bool) testFunc {
	return func(s *state, v Value, args []Value, kw kwargs) (bool, error) {
		str, err := s.str(v)
		if err != nil {
			return false, err
		}
		return f(str), nil
	}
}

func intTest(f func(int64) bool) testFunc {
	return func(s *state, v Value, args []Value, kw kwargs) (bool, error) {
		if u, ok := v.(undefined); ok {
			return false, u.err()
		}
		n, ok := asInt(v)
		if !ok {
			if fl, isF := v.(float64); isF {
				m, err := floatOp(tMod, fl, 2)
				if err != nil {
					return false, err
				}
				return f(int64(m.(float64))), nil
			}
			return false, typeErrorf("unsupported operand type(s) for %%: '%s' and 'int'", typeName(v))
		}
		return f(n), nil
	}
}

func tDivisibleBy(s *state, v Value, args []Value, kw kwargs) (bool, error) {
	a, err := bindArgs("divisibleby", args, kw, []string{"num"})
	if err != nil {
		return false, err
	}
	r, err := s.binop(tMod, v, a[0])
	if err != nil {
		return false, err
	}
	return equal(r, int64(0)), nil
}

func tSameAs(s *state, v Value, args []Value, kw kwargs) (bool, error) {
	a, err := bindArgs("sameas", args, kw, []string{"other"})
	if err != nil {
		return false, err
	}
	o := a[0]
	switch x := v.(type) {
	case nil:
		return o == nil, nil
	case bool:
		y, ok := o.(bool)
		return ok && x == y, nil
	case int64, float64, string:
		return v == o, nil
	case *List:
		y, ok := o.(*List)
		return ok && x == y, nil
	case *Dict:
		y, ok := o.(*Dict)
		return ok && x == y, nil
	case *namespace:
		y, ok := o.(*namespace)
		return ok && x == y, nil
	}
	return false, nil
}

// isSequence is Jinja's sequence test: has len() and __getitem__.
func isSequence(v Value) bool {
	switch v.(type) {
	case string, markup, *List, *Dict, *rangeValue, undefined:
		return true
	}
	return false
}

// isIterable is Jinja's iterable test: iter() works.
func isIterable(v Value) bool {
	switch v.(type) {
	case string, markup, *List, *Dict, *rangeValue, undefined, *generator, *dictView, *loopState:
		return true
	}
	return false
}

func isCallable(v Value) bool {
	switch v.(type) {
	case *macro, *builtin, *method, *loopState, undefined:
		return true
	}
	return false
}
