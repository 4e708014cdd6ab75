package gguf

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ValueType is the type tag of a metadata value, numbered as in GGUF files
// (enum gguf_type).
type ValueType uint32

// The metadata value types. The numbering is part of the file format.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// valueTypeCount is one past the largest defined ValueType.
const valueTypeCount = 13

var valueTypeNames = [valueTypeCount]string{
	"uint8", "int8", "uint16", "int16", "uint32", "int32", "float32",
	"bool", "string", "array", "uint64", "int64", "float64",
}

// String returns the type's name as gguf-py spells it in lower case, such as
// "uint32" or "array", or "type(N)" for an undefined tag.
func (t ValueType) String() string {
	if t < valueTypeCount {
		return valueTypeNames[t]
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// Valid reports whether t is one of the thirteen defined value types.
func (t ValueType) Valid() bool { return t < valueTypeCount }

// fixedSize is the encoded size in bytes of one value of a fixed-size type,
// and 0 for strings and arrays.
func (t ValueType) fixedSize() int {
	switch t {
	case TypeUint8, TypeInt8, TypeBool:
		return 1
	case TypeUint16, TypeInt16:
		return 2
	case TypeUint32, TypeInt32, TypeFloat32:
		return 4
	case TypeUint64, TypeInt64, TypeFloat64:
		return 8
	}
	return 0
}

// minSize is the smallest number of bytes one encoded value of type t can
// occupy: a string needs its 8-byte length, an array its 4-byte element
// type and 8-byte count.
func (t ValueType) minSize() int {
	switch t {
	case TypeString:
		return 8
	case TypeArray:
		return 12
	}
	return t.fixedSize()
}

// ErrNotFound is wrapped by the errors of the typed getters when a key is
// absent.
var ErrNotFound = errors.New("gguf: key not found")

// ErrType is wrapped by the errors of the typed getters when a value has a
// type the getter cannot convert.
var ErrType = errors.New("gguf: wrong value type")

// Value is one metadata value: a type tag and the Go value it holds.
//
// Scalars are held as the matching Go type (uint8 ... float64, bool,
// string). Arrays of a scalar type are held as a typed slice ([]uint8,
// []int32, []float32, []bool, []string, ...); arrays of arrays as []Value
// whose elements are themselves arrays. The zero Value is invalid.
//
// Slices returned by a Value's methods share its storage and must not be
// modified.
type Value struct {
	typ  ValueType // scalar type, or TypeArray
	elem ValueType // element type when typ is TypeArray
	data any
}

// NewUint8 returns a uint8 value.
func NewUint8(x uint8) Value { return Value{typ: TypeUint8, data: x} }

// NewInt8 returns an int8 value.
func NewInt8(x int8) Value { return Value{typ: TypeInt8, data: x} }

// NewUint16 returns a uint16 value.
func NewUint16(x uint16) Value { return Value{typ: TypeUint16, data: x} }

// NewInt16 returns an int16 value.
func NewInt16(x int16) Value { return Value{typ: TypeInt16, data: x} }

// NewUint32 returns a uint32 value.
func NewUint32(x uint32) Value { return Value{typ: TypeUint32, data: x} }

// NewInt32 returns an int32 value.
func NewInt32(x int32) Value { return Value{typ: TypeInt32, data: x} }

// NewFloat32 returns a float32 value.
func NewFloat32(x float32) Value { return Value{typ: TypeFloat32, data: x} }

// NewBool returns a bool value.
func NewBool(x bool) Value { return Value{typ: TypeBool, data: x} }

// NewString returns a string value.
func NewString(x string) Value { return Value{typ: TypeString, data: x} }

// NewUint64 returns a uint64 value.
func NewUint64(x uint64) Value { return Value{typ: TypeUint64, data: x} }

// NewInt64 returns an int64 value.
func NewInt64(x int64) Value { return Value{typ: TypeInt64, data: x} }

// NewFloat64 returns a float64 value.
func NewFloat64(x float64) Value { return Value{typ: TypeFloat64, data: x} }

// NewArray returns an array value holding elems, which must be a slice of
// one of the scalar Go types ([]uint8 ... []float64, []bool, []string) or a
// []Value of arrays (an array of arrays). The slice is not copied.
func NewArray(elems any) (Value, error) {
	switch s := elems.(type) {
	case []Value:
		for i, e := range s {
			if e.typ != TypeArray {
				return Value{}, fmt.Errorf("gguf: array of arrays: element %d is a %s, not an array", i, e.typ)
			}
			if err := e.check(2); err != nil {
				return Value{}, fmt.Errorf("gguf: array of arrays: element %d: %w", i, err)
			}
		}
		return Value{typ: TypeArray, elem: TypeArray, data: s}, nil
	}
	et, ok := sliceElemType(elems)
	if !ok {
		return Value{}, fmt.Errorf("gguf: cannot make an array of %T", elems)
	}
	return Value{typ: TypeArray, elem: et, data: elems}, nil
}

// sliceElemType maps a typed slice to its element's ValueType.
func sliceElemType(s any) (ValueType, bool) {
	switch s.(type) {
	case []uint8:
		return TypeUint8, true
	case []int8:
		return TypeInt8, true
	case []uint16:
		return TypeUint16, true
	case []int16:
		return TypeInt16, true
	case []uint32:
		return TypeUint32, true
	case []int32:
		return TypeInt32, true
	case []float32:
		return TypeFloat32, true
	case []bool:
		return TypeBool, true
	case []string:
		return TypeString, true
	case []uint64:
		return TypeUint64, true
	case []int64:
		return TypeInt64, true
	case []float64:
		return TypeFloat64, true
	}
	return 0, false
}

// ValueOf converts a Go value to a Value: x may be a Value (returned as is),
// one of the scalar types uint8 ... float64, bool and string, or a slice
// accepted by NewArray. Plain int and uint are not accepted: GGUF needs an
// explicit width.
func ValueOf(x any) (Value, error) {
	switch v := x.(type) {
	case Value:
		return v, v.check(1)
	case uint8:
		return NewUint8(v), nil
	case int8:
		return NewInt8(v), nil
	case uint16:
		return NewUint16(v), nil
	case int16:
		return NewInt16(v), nil
	case uint32:
		return NewUint32(v), nil
	case int32:
		return NewInt32(v), nil
	case float32:
		return NewFloat32(v), nil
	case bool:
		return NewBool(v), nil
	case string:
		return NewString(v), nil
	case uint64:
		return NewUint64(v), nil
	case int64:
		return NewInt64(v), nil
	case float64:
		return NewFloat64(v), nil
	}
	return NewArray(x)
}

// maxDepth bounds the nesting of arrays of arrays, for reading and writing.
const maxDepth = 8

// check verifies that v is well formed: its tag matches its Go value and
// nested arrays are at most maxDepth deep. depth is v's own nesting level,
// 1 for a top-level value.
func (v Value) check(depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("gguf: arrays nested deeper than %d", maxDepth)
	}
	if v.typ != TypeArray {
		if !v.typ.Valid() || v.data == nil {
			return fmt.Errorf("gguf: invalid value (type %s)", v.typ)
		}
		if _, ok := sliceElemType(v.data); ok {
			return fmt.Errorf("gguf: invalid %s value holding a slice", v.typ)
		}
		return nil
	}
	if s, ok := v.data.([]Value); ok {
		if v.elem != TypeArray {
			return fmt.Errorf("gguf: invalid array value")
		}
		for i, e := range s {
			if e.typ != TypeArray {
				return fmt.Errorf("gguf: array of arrays: element %d is a %s", i, e.typ)
			}
			if err := e.check(depth + 1); err != nil {
				return err
			}
		}
		return nil
	}
	et, ok := sliceElemType(v.data)
	if !ok || et != v.elem {
		return fmt.Errorf("gguf: invalid array value")
	}
	return nil
}

// Type returns the value's type tag (TypeArray for arrays).
func (v Value) Type() ValueType { return v.typ }

// ElemType returns the element type of an array (TypeArray for an array of
// arrays). It is meaningless for scalars.
func (v Value) ElemType() ValueType { return v.elem }

// IsArray reports whether v is an array.
func (v Value) IsArray() bool { return v.typ == TypeArray }

// Interface returns the Go value held: a scalar, a typed slice or []Value.
func (v Value) Interface() any { return v.data }

// Len returns the number of elements of an array, and 0 for a scalar.
func (v Value) Len() int {
	switch s := v.data.(type) {
	case []Value:
		return len(s)
	case []uint8:
		return len(s)
	case []int8:
		return len(s)
	case []uint16:
		return len(s)
	case []int16:
		return len(s)
	case []uint32:
		return len(s)
	case []int32:
		return len(s)
	case []float32:
		return len(s)
	case []bool:
		return len(s)
	case []string:
		return len(s)
	case []uint64:
		return len(s)
	case []int64:
		return len(s)
	case []float64:
		return len(s)
	}
	return 0
}

// Index returns element i of an array as a Value, and the zero Value when v
// is not an array or i is out of range.
func (v Value) Index(i int) Value {
	if i < 0 || i >= v.Len() {
		return Value{}
	}
	switch s := v.data.(type) {
	case []Value:
		return s[i]
	case []uint8:
		return NewUint8(s[i])
	case []int8:
		return NewInt8(s[i])
	case []uint16:
		return NewUint16(s[i])
	case []int16:
		return NewInt16(s[i])
	case []uint32:
		return NewUint32(s[i])
	case []int32:
		return NewInt32(s[i])
	case []float32:
		return NewFloat32(s[i])
	case []bool:
		return NewBool(s[i])
	case []string:
		return NewString(s[i])
	case []uint64:
		return NewUint64(s[i])
	case []int64:
		return NewInt64(s[i])
	case []float64:
		return NewFloat64(s[i])
	}
	return Value{}
}

// typeName describes v's type for error messages: "uint32" or
// "array of string".
func (v Value) typeName() string {
	if v.typ == TypeArray {
		return "array of " + v.elem.String()
	}
	return v.typ.String()
}

func typeErr(v Value, want string) error {
	return fmt.Errorf("%w: value is %s, want %s", ErrType, v.typeName(), want)
}

// AsUint returns an integer value of any width and signedness as a uint64;
// it fails for negative numbers and other types.
func (v Value) AsUint() (uint64, error) {
	switch x := v.data.(type) {
	case uint8:
		return uint64(x), nil
	case uint16:
		return uint64(x), nil
	case uint32:
		return uint64(x), nil
	case uint64:
		return x, nil
	case int8, int16, int32, int64:
		i, _ := v.AsInt()
		if i < 0 {
			return 0, fmt.Errorf("%w: %d is negative, want an unsigned integer", ErrType, i)
		}
		return uint64(i), nil
	}
	return 0, typeErr(v, "an integer")
}

// AsInt returns an integer value of any width and signedness as an int64;
// it fails for a uint64 above math.MaxInt64 and for other types.
func (v Value) AsInt() (int64, error) {
	switch x := v.data.(type) {
	case int8:
		return int64(x), nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case int64:
		return x, nil
	case uint8:
		return int64(x), nil
	case uint16:
		return int64(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return 0, fmt.Errorf("%w: %d does not fit an int64", ErrType, x)
		}
		return int64(x), nil
	}
	return 0, typeErr(v, "an integer")
}

// AsFloat returns a float32 or float64 value as a float64. Integer values
// are converted too, since some converters store whole numbers as integers.
func (v Value) AsFloat() (float64, error) {
	switch x := v.data.(type) {
	case float32:
		return float64(x), nil
	case float64:
		return x, nil
	case uint8, uint16, uint32, uint64:
		u, _ := v.AsUint()
		return float64(u), nil
	case int8, int16, int32, int64:
		i, _ := v.AsInt()
		return float64(i), nil
	}
	return 0, typeErr(v, "a number")
}

// AsBool returns a bool value.
func (v Value) AsBool() (bool, error) {
	if x, ok := v.data.(bool); ok {
		return x, nil
	}
	return false, typeErr(v, "bool")
}

// AsString returns a string value.
func (v Value) AsString() (string, error) {
	if x, ok := v.data.(string); ok {
		return x, nil
	}
	return "", typeErr(v, "string")
}

// AsStrings returns an array of strings (not a copy).
func (v Value) AsStrings() ([]string, error) {
	if x, ok := v.data.([]string); ok {
		return x, nil
	}
	return nil, typeErr(v, "array of string")
}

// AsUints returns an array of integers of any width as []uint64; it fails
// if an element is negative.
func (v Value) AsUints() ([]uint64, error) {
	if x, ok := v.data.([]uint64); ok {
		return x, nil
	}
	if !v.isIntArray() {
		return nil, typeErr(v, "array of integers")
	}
	out := make([]uint64, v.Len())
	for i := range out {
		u, err := v.Index(i).AsUint()
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = u
	}
	return out, nil
}

// AsInts returns an array of integers of any width as []int64.
func (v Value) AsInts() ([]int64, error) {
	if x, ok := v.data.([]int64); ok {
		return x, nil
	}
	if !v.isIntArray() {
		return nil, typeErr(v, "array of integers")
	}
	out := make([]int64, v.Len())
	for i := range out {
		n, err := v.Index(i).AsInt()
		if err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
		out[i] = n
	}
	return out, nil
}

// AsInt32s returns an array of int32 (not a copy), or converts an array of
// another integer type whose elements all fit an int32.
func (v Value) AsInt32s() ([]int32, error) {
	if x, ok := v.data.([]int32); ok {
		return x, nil
	}
	if !v.isIntArray() {
		return nil, typeErr(v, "array of int32")
	}
	out := make([]int32, v.Len())
	for i := range out {
		n, err := v.Index(i).AsInt()
		if err != nil || n < math.MinInt32 || n > math.MaxInt32 {
			return nil, fmt.Errorf("%w: element %d does not fit an int32", ErrType, i)
		}
		out[i] = int32(n)
	}
	return out, nil
}

// AsUint32s returns an array of uint32 (not a copy), or converts an array
// of another integer type whose elements all fit a uint32.
func (v Value) AsUint32s() ([]uint32, error) {
	if x, ok := v.data.([]uint32); ok {
		return x, nil
	}
	if !v.isIntArray() {
		return nil, typeErr(v, "array of uint32")
	}
	out := make([]uint32, v.Len())
	for i := range out {
		n, err := v.Index(i).AsUint()
		if err != nil || n > math.MaxUint32 {
			return nil, fmt.Errorf("%w: element %d does not fit a uint32", ErrType, i)
		}
		out[i] = uint32(n)
	}
	return out, nil
}

// AsFloat32s returns an array of float32 (not a copy), or converts an array
// of float64.
func (v Value) AsFloat32s() ([]float32, error) {
	switch x := v.data.(type) {
	case []float32:
		return x, nil
	case []float64:
		out := make([]float32, len(x))
		for i, f := range x {
			out[i] = float32(f)
		}
		return out, nil
	}
	return nil, typeErr(v, "array of float32")
}

// AsBools returns an array of bool (not a copy).
func (v Value) AsBools() ([]bool, error) {
	if x, ok := v.data.([]bool); ok {
		return x, nil
	}
	return nil, typeErr(v, "array of bool")
}

// AsArrays returns the elements of an array of arrays (not a copy).
func (v Value) AsArrays() ([]Value, error) {
	if x, ok := v.data.([]Value); ok {
		return x, nil
	}
	return nil, typeErr(v, "array of array")
}

func (v Value) isIntArray() bool {
	if v.typ != TypeArray {
		return false
	}
	switch v.elem {
	case TypeUint8, TypeInt8, TypeUint16, TypeInt16, TypeUint32, TypeInt32, TypeUint64, TypeInt64:
		return true
	}
	return false
}

// String formats the value for people: numbers and bools plainly, strings
// quoted, arrays as [a, b, c] with at most 8 elements shown.
func (v Value) String() string {
	var b strings.Builder
	v.format(&b, 8)
	return b.String()
}

func (v Value) format(b *strings.Builder, max int) {
	switch x := v.data.(type) {
	case string:
		b.WriteString(strconv.Quote(x))
	case float32:
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	case float64:
		b.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
	case nil:
		b.WriteString("<invalid>")
	default:
		if v.typ != TypeArray {
			fmt.Fprint(b, x)
			return
		}
		n := v.Len()
		b.WriteByte('[')
		for i := 0; i < n && i < max; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			v.Index(i).format(b, max)
		}
		if n > max {
			fmt.Fprintf(b, ", ... (%d elements)", n)
		}
		b.WriteByte(']')
	}
}
