package jinja

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
)

// FromGo converts a Go value into a template value: nil, bool, integers,
// floats, strings, json.Number, json.RawMessage (decoded by DecodeJSON),
// slices and arrays (lists), maps with string keys (dicts, keys sorted
// since Go maps have no order), and values that already are template
// values (*Dict, *List). Structs are not converted; pass a *Dict or a map
// instead.
func FromGo(x any) (Value, error) { return fromGo(x, 0) }

func fromGo(x any, depth int) (Value, error) {
	if depth > maxJSONDepth {
		return nil, fmt.Errorf("jinja: value nested too deeply")
	}
	switch v := x.(type) {
	case nil:
		return nil, nil
	case bool, int64, float64, string, markup, undefined, *Dict, *List, *namespace:
		return v, nil
	case int:
		return int64(v), nil
	case int8:
		return int64(v), nil
	case int16:
		return int64(v), nil
	case int32:
		return int64(v), nil
	case uint8:
		return int64(v), nil
	case uint16:
		return int64(v), nil
	case uint32:
		return int64(v), nil
	case uint:
		if uint64(v) > math.MaxInt64 {
			return float64(v), nil
		}
		return int64(v), nil
	case uint64:
		if v > math.MaxInt64 {
			return float64(v), nil
		}
		return int64(v), nil
	case float32:
		return float64(v), nil
	case json.Number:
		return numberValue(v), nil
	case json.RawMessage:
		return DecodeJSON(v)
	case []any:
		items := make([]Value, len(v))
		for i, it := range v {
			c, err := fromGo(it, depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = c
		}
		return &List{Items: items}, nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		d := NewDict()
		for _, k := range keys {
			c, err := fromGo(v[k], depth+1)
			if err != nil {
				return nil, err
			}
			d.Set(k, c)
		}
		return d, nil
	}
	rv := reflect.ValueOf(x)
	switch rv.Kind() {
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, nil
		}
		return fromGo(rv.Elem().Interface(), depth+1)
	case reflect.Slice, reflect.Array:
		items := make([]Value, rv.Len())
		for i := range items {
			c, err := fromGo(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			items[i] = c
		}
		return &List{Items: items}, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("jinja: cannot convert %T: map keys must be strings", x)
		}
		keys := rv.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		d := NewDict()
		for _, k := range keys {
			c, err := fromGo(rv.MapIndex(k).Interface(), depth+1)
			if err != nil {
				return nil, err
			}
			d.Set(k.String(), c)
		}
		return d, nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Float32, reflect.Float64:
		return rv.Float(), nil
	}
	return nil, fmt.Errorf("jinja: cannot convert %T to a template value", x)
}
