package kensa

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/oasis-replay/oasis-replay/internal/doc"
	"github.com/oasis-replay/oasis-replay/internal/pyvalue"
)

// TimestampError is an error of Kensa's translate._parse_timestamp, in Python's words: Kensa's
// runner fails the run with exactly this text (runner.read_spans raises it, _run_one records
// str(e)).
type TimestampError struct{ Msg string }

func (e *TimestampError) Error() string { return e.Msg }

func tsError(format string, args ...any) error {
	return &TimestampError{Msg: fmt.Sprintf(format, args...)}
}

// SpanTimestamp reads a span's start_time or end_time (n, nil when absent: Kensa's default 0)
// as translate._parse_timestamp does, and returns Unix nanoseconds whose MicrosFromNanos is
// the microsecond Kensa's datetime holds: a number (a bool too, as Python's int) is scaled by
// its magnitude (≥1e18 nanoseconds, ≥1e15 microseconds, ≥1e12 milliseconds, else seconds) and
// converted as datetime.fromtimestamp converts it; a string is read by Python 3.11's
// datetime.fromisoformat after every "Z" becomes "+00:00" (a time without an offset is read as
// UTC: Kensa keeps it naive, which only a trace mixing naive and aware times tells apart, and
// Kensa's judge then crashes). Anything else is Kensa's error. A time outside the years
// 1677–2262, which Kensa reads, cannot be held in nanoseconds here: an error too.
func SpanTimestamp(n *doc.Node) (int64, error) {
	if n == nil {
		return 0, nil
	}
	v, err := pyvalue.FromNode(n, nil)
	if err != nil {
		return 0, err
	}
	switch v.Kind() {
	case pyvalue.KindInt:
		i, _ := v.AsInt()
		if i >= 1e18 || i <= -1e18 {
			return i, nil // float(i) / 1e9 is what MicrosFromNanos computes
		}
		return fromTimestamp(float64(i))
	case pyvalue.KindFloat:
		f, _ := v.AsNumber()
		return fromTimestamp(f)
	case pyvalue.KindBool:
		if b, _ := v.AsBool(); b {
			return fromTimestamp(1)
		}
		return 0, nil
	case pyvalue.KindStr:
		s, _ := v.AsStr()
		return fromISOFormat(strings.ReplaceAll(s, "Z", "+00:00"))
	}
	return 0, tsError("Cannot parse timestamp: %s", pyvalue.Repr(v))
}

// fromTimestamp scales a number as _parse_timestamp does and converts it as
// datetime.fromtimestamp(x, tz=timezone.utc) does (_PyTime_ObjectToTimeval, half-even
// rounding of the fraction to microseconds), with its errors.
func fromTimestamp(f float64) (int64, error) {
	switch a := math.Abs(f); {
	case a >= 1e18:
		f /= 1e9
	case a >= 1e15:
		f /= 1e6
	case a >= 1e12:
		f /= 1e3
	}
	if math.IsNaN(f) {
		return 0, tsError("Invalid value NaN (not a number)")
	}
	whole, frac := math.Modf(f)
	us := math.RoundToEven(frac * 1e6)
	switch {
	case us >= 1e6:
		us -= 1e6
		whole++
	case us < 0:
		us += 1e6
		whole--
	}
	if !(whole > -9.2e18 && whole < 9.2e18) {
		return 0, tsError("timestamp out of range for platform time_t")
	}
	if y := time.Unix(int64(whole), 0).UTC().Year(); y < 1 || y > 9999 {
		return 0, tsError("year %d is out of range", y)
	}
	return nanos(int64(whole), int64(us))
}

// nanos is sec seconds and us microseconds as nanoseconds, or an error past int64.
func nanos(sec, us int64) (int64, error) {
	if sec > math.MaxInt64/int64(1e9)-1 || sec < math.MinInt64/int64(1e9)+1 {
		return 0, fmt.Errorf("a span time in %s is outside the years 1677–2262 this recorder holds", time.Unix(sec, 0).UTC().Format("2006"))
	}
	return sec*1e9 + us*1e3, nil
}

// fromISOFormat is Python 3.11's datetime.fromisoformat (Modules/_datetimemodule.c:
// _find_isoformat_datetime_separator, parse_isoformat_date, parse_isoformat_time,
// parse_hh_mm_ss_ff), returning the instant in Unix nanoseconds.
func fromISOFormat(s string) (int64, error) {
	invalid := func() error { return tsError("Invalid isoformat string: %s", pyvalue.StrRepr(s)) }
	runes := []rune(s)
	if len(runes) < 7 {
		return 0, invalid()
	}
	// The separator may be any one character (_sanitize_isoformat_str): one that is not ASCII
	// is read as a T; the rest is read as UTF-8 bytes.
	view := make([]byte, len(runes))
	for i, r := range runes {
		view[i] = byte(min(r, 0x80))
	}
	if at := isoSeparator(view); at >= 0 && at < len(runes) && runes[at] >= 0x80 {
		runes[at] = 'T'
	}
	b := []byte(string(runes))
	sep := isoSeparator(b)
	if sep < 0 || sep > len(b) {
		return 0, invalid()
	}
	year, month, day, ok := isoDate(b[:sep], sep)
	if !ok {
		return 0, invalid()
	}
	var t isoTime
	if len(b) > sep {
		if t, ok = isoTimeOf(b[sep+1:]); !ok {
			return 0, invalid()
		}
	}
	if err := checkDateTime(year, month, day, t); err != nil {
		return 0, err
	}
	date := time.Date(year, time.Month(month), day, t.hour, t.minute, t.second, 0, time.UTC)
	sec := date.Unix() - int64(t.tzOffset)
	us := int64(t.micro) - int64(t.tzMicro)
	sec += us / 1e6
	if us %= 1e6; us < 0 {
		us += 1e6
		sec--
	}
	return nanos(sec, us)
}

// isoSeparator is _find_isoformat_datetime_separator: where the date ends.
func isoSeparator(b []byte) int {
	at := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	if len(b) == 7 {
		return 7
	}
	if at(4) == '-' {
		if at(5) != 'W' {
			return 10
		}
		if len(b) < 8 {
			return -1
		}
		if len(b) > 8 && at(8) == '-' {
			if len(b) == 9 {
				return -1
			}
			if len(b) > 10 && isDigitByte(at(10)) {
				return 8
			}
			return 10
		}
		return 8
	}
	if at(4) != 'W' {
		return 8
	}
	idx := 7
	for ; idx < len(b) && isDigitByte(b[idx]); idx++ {
	}
	if idx < 9 {
		return idx
	}
	if idx%2 == 0 {
		return 7
	}
	return 8
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// digits reads n digits at b[*p:], as parse_digits does (a NUL past the end stops it).
func digits(b []byte, p *int, n int) (int, bool) {
	v := 0
	for range n {
		if *p >= len(b) || !isDigitByte(b[*p]) {
			return 0, false
		}
		v = v*10 + int(b[*p]-'0')
		*p++
	}
	return v, true
}

// isoDate is parse_isoformat_date over the first n bytes (it may read past them, as
// CPython's does).
func isoDate(b []byte, n int) (year, month, day int, ok bool) {
	p := 0
	if year, ok = digits(b, &p, 4); !ok {
		return
	}
	dash := p < len(b) && b[p] == '-'
	if dash {
		p++
	}
	if p < len(b) && b[p] == 'W' {
		p++
		week, ok := digits(b, &p, 2)
		if !ok {
			return 0, 0, 0, false
		}
		wd := 1
		if p < n {
			if dash {
				if p >= len(b) || b[p] != '-' {
					return 0, 0, 0, false
				}
				p++
			}
			if wd, ok = digits(b, &p, 1); !ok {
				return 0, 0, 0, false
			}
		}
		return isoWeekDate(year, week, wd)
	}
	if month, ok = digits(b, &p, 2); !ok {
		return
	}
	if dash {
		if p >= len(b) || b[p] != '-' {
			return 0, 0, 0, false
		}
		p++
	}
	day, ok = digits(b, &p, 2)
	return
}

// isoWeekDate is iso_to_ymd: week 1–52 (53 in a year that has it), weekday 1–7.
func isoWeekDate(year, week, wd int) (int, int, int, bool) {
	if week <= 0 || week >= 53 {
		jan1 := time.Date(year, 1, 1, 0, 0, 0, 0, time.UTC).Weekday()
		if !(week == 53 && (jan1 == time.Thursday || jan1 == time.Wednesday && isLeap(year))) {
			return 0, 0, 0, false
		}
	}
	if wd <= 0 || wd >= 8 {
		return 0, 0, 0, false
	}
	// Monday of week 1 is the Monday of the week holding January 4th.
	jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.UTC)
	offset := (int(jan4.Weekday()) + 6) % 7
	d := jan4.AddDate(0, 0, -offset+(week-1)*7+(wd-1))
	return d.Year(), int(d.Month()), d.Day(), true
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

type isoTime struct {
	hour, minute, second, micro int
	tzOffset, tzMicro           int // seconds and microseconds east of UTC
	aware                       bool
}

// isoTimeOf is parse_isoformat_time.
func isoTimeOf(b []byte) (isoTime, bool) {
	var t isoTime
	tz := 0
	for tz < len(b) && b[tz] != 'Z' && b[tz] != '+' && b[tz] != '-' {
		tz++
	}
	if len(b) == 0 {
		tz = 0
	}
	var more bool
	var ok bool
	t.hour, t.minute, t.second, t.micro, more, ok = hhmmssff(b, tz)
	if !ok {
		return t, false
	}
	if tz >= len(b) {
		return t, !more
	}
	if b[tz] == 'Z' {
		return t, tz+1 == len(b)
	}
	sign := 1
	if b[tz] == '-' {
		sign = -1
	}
	h, m, s, us, more, ok := hhmmssff(b[tz+1:], len(b)-tz-1)
	if !ok || more {
		return t, false
	}
	t.aware = true
	t.tzOffset = sign * (h*3600 + m*60 + s)
	t.tzMicro = sign * us
	return t, true
}

// hhmmssff is parse_hh_mm_ss_ff over b[:end] (reading b[end], or a NUL past b, as CPython
// reads its terminator); more is its "not the end of the string" result.
func hhmmssff(b []byte, end int) (h, m, s, us int, more, ok bool) {
	at := func(i int) byte {
		if i < len(b) {
			return b[i]
		}
		return 0
	}
	vals := [3]*int{&h, &m, &s}
	p := 0
	hasSep := true
components:
	for i := range 3 {
		v, good := digits(b, &p, 2)
		if !good {
			return 0, 0, 0, 0, false, false
		}
		*vals[i] = v
		c := at(p)
		p++
		if i == 0 {
			hasSep = c == ':'
		}
		switch {
		case p >= end:
			return h, m, s, 0, c != 0, true
		case hasSep && c == ':':
		case c == '.' || c == ',':
			break components
		case !hasSep:
			p--
		default:
			return 0, 0, 0, 0, false, false
		}
	}
	// After the seconds, or a separator past them, what is left is read as the fraction.
	rest := end - p
	n := min(rest, 6)
	if n <= 0 {
		return 0, 0, 0, 0, false, false
	}
	v, good := digits(b, &p, n)
	if !good {
		return 0, 0, 0, 0, false, false
	}
	for k := n; k < 6; k++ {
		v *= 10
	}
	for p < len(b) && isDigitByte(b[p]) {
		p++
	}
	return h, m, s, v, at(p) != 0, true
}

// checkDateTime is the range checks of new_datetime_ex2 and of the offset's timezone, with
// their messages.
func checkDateTime(year, month, day int, t isoTime) error {
	// The offset's timezone is made first (tzinfo_from_isoformat_results), then the datetime.
	if off := int64(t.tzOffset)*1e6 + int64(t.tzMicro); t.aware && (off <= -86400e6 || off >= 86400e6) {
		return tsError("offset must be a timedelta strictly between -timedelta(hours=24) and timedelta(hours=24), not %s.", pyTimedelta(off))
	}
	switch {
	case year < 1 || year > 9999:
		return tsError("year %d is out of range", year)
	case month < 1 || month > 12:
		return tsError("month must be in 1..12")
	case day < 1 || day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day():
		return tsError("day is out of range for month")
	case t.hour > 23:
		return tsError("hour must be in 0..23")
	case t.minute > 59:
		return tsError("minute must be in 0..59")
	case t.second > 59:
		return tsError("second must be in 0..59")
	}
	return nil
}

// pyTimedelta is repr() of a timedelta of us microseconds.
func pyTimedelta(us int64) string {
	days := us / 86400e6
	rem := us % 86400e6
	if rem < 0 {
		rem += 86400e6
		days--
	}
	secs, micro := rem/1e6, rem%1e6
	var parts []string
	if days != 0 {
		parts = append(parts, fmt.Sprintf("days=%d", days))
	}
	if secs != 0 {
		parts = append(parts, fmt.Sprintf("seconds=%d", secs))
	}
	if micro != 0 {
		parts = append(parts, fmt.Sprintf("microseconds=%d", micro))
	}
	if len(parts) == 0 {
		return "datetime.timedelta(0)"
	}
	return "datetime.timedelta(" + strings.Join(parts, ", ") + ")"
}
