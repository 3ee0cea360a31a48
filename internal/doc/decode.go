package doc

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Raw, as the type of a field Decode fills, receives the value as compact JSON (Node.Compact):
// for a JSON document its text as written, whitespace between tokens removed.
type Raw []byte

// Extra, as the type of a struct field (any name, no tag needed), receives the members no
// other field of the struct takes, in document order, instead of Decode refusing them.
type Extra []Member

// Unmarshaler is a type that decodes itself from a node, for shapes struct tags cannot say
// ("a string or an object"). Its errors should come from n.Errorf or n.TypeError so they carry
// the position; any other error is wrapped with n's position.
type Unmarshaler interface {
	UnmarshalDoc(n *Node) error
}

// maxDecodeErrors is the number of errors Decode reports before it stops looking.
const maxDecodeErrors = 20

// Decode stores n into the value v points to, strictly:
//
//   - A struct field is matched by its json tag name (exact case), else by its Go name; a tag
//     of "-" skips it; anonymous struct fields are flattened. An object member no field takes is
//     an ErrUnknownField error naming it at its position, unless the struct has an Extra field.
//     A field tagged `doc:"required"` must be present and not null (ErrType otherwise).
//   - null, and an absent member, leave the target as it is (nil for pointers, slices and
//     maps), except for a *Node target, which receives the null node.
//   - *Node receives the sub-tree as it is (for "a string or an object" fields); Raw receives
//     its compact JSON; Unmarshaler and encoding.TextUnmarshaler types decode themselves (the
//     latter from a string's text or a number's plain decimal, see Node.Decimal, so
//     decimal.Decimal reads 0.35 and "0.35" alike).
//   - Strings, booleans, integers (exact integer values within the type's range) and floats
//     decode from their kinds only: no number from a string, no string from a number. []byte
//     reads base64 text, as encoding/json does. Arrays need the exact length. Maps need string
//     keys. An interface{} gets nil, bool, string, json.Number, []any or map[string]any.
//
// Every mismatch is an ErrType *Error with position and path. Decode reports up to 20 of them,
// joined (errors.As finds the first), and the target may then be partly filled.
func Decode(n *Node, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("doc: Decode needs a non-nil pointer, got %T", v)
	}
	d := decoder{}
	d.value(n, rv.Elem())
	return errors.Join(d.errs...)
}

type decoder struct {
	errs []error
}

// fail records an error; it reports false once there are enough.
func (d *decoder) fail(err error) bool {
	d.errs = append(d.errs, err)
	return len(d.errs) < maxDecodeErrors
}

func (d *decoder) full() bool { return len(d.errs) >= maxDecodeErrors }

var (
	nodePtrType   = reflect.TypeFor[*Node]()
	rawType       = reflect.TypeFor[Raw]()
	extraType     = reflect.TypeFor[Extra]()
	unmarshalType = reflect.TypeFor[Unmarshaler]()
	textType      = reflect.TypeFor[encoding.TextUnmarshaler]()
)

func (d *decoder) value(n *Node, v reflect.Value) {
	if d.full() {
		return
	}
	t := v.Type()
	switch t {
	case nodePtrType:
		v.Set(reflect.ValueOf(n))
		return
	case rawType:
		v.SetBytes(n.Compact())
		return
	}
	if n.IsNull() {
		return
	}
	if t.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		d.value(n, v.Elem())
		return
	}
	if reflect.PointerTo(t).Implements(unmarshalType) && v.CanAddr() {
		if err := v.Addr().Interface().(Unmarshaler).UnmarshalDoc(n); err != nil {
			d.fail(located(n, err))
		}
		return
	}
	if reflect.PointerTo(t).Implements(textType) && v.CanAddr() {
		d.text(n, v.Addr().Interface().(encoding.TextUnmarshaler), t)
		return
	}
	d.plain(n, v)
}

// located gives err n's position unless it has one.
func located(n *Node, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return n.Errorf("%w", err)
}

func (d *decoder) text(n *Node, u encoding.TextUnmarshaler, t reflect.Type) {
	var text string
	switch n.kind {
	case String:
		text = n.text
	case Number:
		var err error
		if text, err = n.Decimal(); err != nil {
			d.fail(err)
			return
		}
	default:
		d.fail(n.TypeError(describeType(t)))
		return
	}
	if err := u.UnmarshalText([]byte(text)); err != nil {
		d.fail(typeErrorf(n, "%v", err))
	}
}

func (d *decoder) plain(n *Node, v reflect.Value) {
	t := v.Type()
	switch t.Kind() {
	case reflect.String:
		if s, err := n.Str(); err != nil {
			d.fail(err)
		} else {
			v.SetString(s)
		}
	case reflect.Bool:
		if b, err := n.Bool(); err != nil {
			d.fail(err)
		} else {
			v.SetBool(b)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := n.Int64()
		if err == nil && v.OverflowInt(i) {
			err = typeErrorf(n, "want an integer within the range of %s, got %s", t.Kind(), n.text)
		}
		if err != nil {
			d.fail(err)
			return
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, err := n.Uint64()
		if err == nil && v.OverflowUint(u) {
			err = typeErrorf(n, "want an integer within the range of %s, got %s", t.Kind(), n.text)
		}
		if err != nil {
			d.fail(err)
			return
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		f, err := n.Float64()
		if err == nil && v.OverflowFloat(f) {
			err = typeErrorf(n, "number %s is out of the range of %s", n.text, t.Kind())
		}
		if err != nil {
			d.fail(err)
			return
		}
		v.SetFloat(f)
	case reflect.Slice:
		d.slice(n, v)
	case reflect.Array:
		d.array(n, v)
	case reflect.Map:
		d.mapping(n, v)
	case reflect.Struct:
		d.structure(n, v)
	case reflect.Interface:
		if t.NumMethod() != 0 {
			d.fail(n.Errorf("doc: cannot decode into %s (an interface with methods)", t))
			return
		}
		v.Set(reflect.ValueOf(toAny(n)))
	default:
		d.fail(n.Errorf("doc: cannot decode into %s", t))
	}
}

func (d *decoder) slice(n *Node, v reflect.Value) {
	t := v.Type()
	if t.Elem().Kind() == reflect.Uint8 && n.Kind() == String {
		b, err := base64.StdEncoding.DecodeString(n.text)
		if err != nil {
			d.fail(typeErrorf(n, "want base64 text: %v", err))
			return
		}
		v.SetBytes(b)
		return
	}
	if n.Kind() != Array {
		d.fail(n.TypeError(describeType(t)))
		return
	}
	items := n.Items()
	s := reflect.MakeSlice(t, len(items), len(items))
	for i, item := range items {
		d.value(item, s.Index(i))
	}
	v.Set(s)
}

func (d *decoder) array(n *Node, v reflect.Value) {
	t := v.Type()
	if n.Kind() != Array {
		d.fail(n.TypeError(describeType(t)))
		return
	}
	if n.Len() != t.Len() {
		d.fail(typeErrorf(n, "want %d items, got %d", t.Len(), n.Len()))
		return
	}
	for i, item := range n.Items() {
		d.value(item, v.Index(i))
	}
}

func (d *decoder) mapping(n *Node, v reflect.Value) {
	t := v.Type()
	if t.Key().Kind() != reflect.String {
		d.fail(n.Errorf("doc: cannot decode into %s: map keys must be strings", t))
		return
	}
	if n.Kind() != Object {
		d.fail(n.TypeError(describeType(t)))
		return
	}
	if v.IsNil() {
		v.Set(reflect.MakeMapWithSize(t, n.Len()))
	}
	for _, m := range n.Members() {
		elem := reflect.New(t.Elem()).Elem()
		d.value(m.Value, elem)
		v.SetMapIndex(reflect.ValueOf(m.Key).Convert(t.Key()), elem)
	}
}

func (d *decoder) structure(n *Node, v reflect.Value) {
	if n.Kind() != Object {
		d.fail(n.TypeError("an object"))
		return
	}
	info := structInfoOf(v.Type())
	seen := make([]bool, len(info.fields))
	for i := range n.Members() {
		m := &n.Members()[i]
		fi, ok := info.byName[m.Key]
		if !ok {
			if info.extra != nil {
				extra := fieldOf(v, info.extra)
				extra.Set(reflect.Append(extra, reflect.ValueOf(*m)))
				continue
			}
			pos := m.KeyPos()
			if !d.fail(newError(pos, n.Path().Key(m.Key), ErrUnknownField, "unknown field (known: %s)", info.known)) {
				return
			}
			continue
		}
		seen[fi] = !m.Value.IsNull()
		d.value(m.Value, fieldOf(v, info.fields[fi].index))
	}
	for i, f := range info.fields {
		if f.required && !seen[i] {
			e := typeErrorf(n, "missing required field").(*Error)
			e.Path = e.Path.Key(f.name)
			if !d.fail(e) {
				return
			}
		}
	}
}

// fieldOf returns the field at index, allocating the embedded pointers on the way.
func fieldOf(v reflect.Value, index []int) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}

type fieldInfo struct {
	name     string
	index    []int
	required bool
}

type structInfo struct {
	fields []fieldInfo
	byName map[string]int // only looked up, never iterated
	extra  []int          // the index of the Extra field, if any
	known  string         // the field names, for messages
}

var structInfos sync.Map // reflect.Type → *structInfo

func structInfoOf(t reflect.Type) *structInfo {
	if info, ok := structInfos.Load(t); ok {
		return info.(*structInfo)
	}
	info := &structInfo{byName: map[string]int{}}
	info.collect(t, nil)
	names := make([]string, len(info.fields))
	for i, f := range info.fields {
		names[i] = f.name
	}
	info.known = strings.Join(names, ", ")
	if len(info.known) > 200 {
		info.known = info.known[:200] + "…"
	}
	actual, _ := structInfos.LoadOrStore(t, info)
	return actual.(*structInfo)
}

// collect adds the fields of t, at index prefix; outer fields win over embedded ones.
func (info *structInfo) collect(t reflect.Type, prefix []int) {
	var embedded []reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		index := append(prefix[:len(prefix):len(prefix)], i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
			continue
		case f.Type == extraType && f.IsExported():
			if info.extra == nil {
				info.extra = index
			}
			continue
		case f.Anonymous && tag == "" && indirect(f.Type).Kind() == reflect.Struct:
			if !f.IsExported() && f.Type.Kind() == reflect.Pointer {
				continue // reflect cannot allocate it
			}
			f.Index = index
			embedded = append(embedded, f)
			continue
		case !f.IsExported():
			continue
		}
		name := tag
		if name == "" {
			name = f.Name
		}
		if _, taken := info.byName[name]; taken {
			continue
		}
		info.byName[name] = len(info.fields)
		info.fields = append(info.fields, fieldInfo{name: name, index: index, required: f.Tag.Get("doc") == "required"})
	}
	for _, f := range embedded {
		info.collect(indirect(f.Type), f.Index)
	}
}

func indirect(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// describeType names what a Go type wants, for "want …, got …" messages.
func describeType(t reflect.Type) string {
	t = indirect(t)
	if reflect.PointerTo(t).Implements(textType) {
		return "a string or a number"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		if plural := pluralOf(t.Elem()); plural != "" {
			return "an array of " + plural
		}
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a value"
}

// pluralOf names the items of an array of t: "strings", "objects"; "" when it says nothing.
func pluralOf(t reflect.Type) string {
	switch d := describeType(t); d {
	case "a string", "a boolean", "a number", "an integer", "an object":
		return strings.TrimPrefix(strings.TrimPrefix(d, "an "), "a ") + "s"
	case "an array":
		return "arrays"
	}
	return ""
}

// toAny converts n to the values encoding/json produces with UseNumber.
func toAny(n *Node) any {
	switch n.Kind() {
	case Bool:
		return n.text == "true"
	case Number:
		return json.Number(n.text)
	case String:
		return n.text
	case Array:
		out := make([]any, n.Len())
		for i, item := range n.Items() {
			out[i] = toAny(item)
		}
		return out
	case Object:
		out := make(map[string]any, n.Len())
		for _, m := range n.Members() {
			out[m.Key] = toAny(m.Value)
		}
		return out
	}
	return nil
}
