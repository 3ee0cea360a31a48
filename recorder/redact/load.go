package redact

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/oasis-replay/oasis-replay/internal/inputfile"
)

// maxValueFileSize bounds a file of values: it is a list of secrets, not a data set.
const maxValueFileSize = 16 << 20

// ParseKey turns the content of a key file or variable into a key: one trailing line ending
// ("\n" or "\r\n") is removed, the rest is the key, byte for byte.
func ParseKey(b []byte) ([]byte, error) {
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) < MinKeyLength {
		return nil, fmt.Errorf("%w: %d bytes, want at least %d", ErrKey, len(b), MinKeyLength)
	}
	return b, nil
}

// LoadKey reads a key file (see ParseKey).
func LoadKey(path string) ([]byte, error) {
	b, err := readBounded(path, maxValueFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrKey, err)
	}
	key, err := ParseKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// ReadValues reads values to redact, one per line. Line endings ("\n", "\r\n") are not part
// of a value; empty lines are skipped; every other line is a value of at least MinValueLength
// bytes, taken as written (leading and trailing spaces included).
func ReadValues(r io.Reader, name string) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxValueFileSize)
	var values []string
	for line := 1; sc.Scan(); line++ {
		v := string(bytes.TrimSuffix(sc.Bytes(), []byte("\r")))
		if v == "" {
			continue
		}
		if len(v) < MinValueLength {
			return nil, fmt.Errorf("%w: %s line %d: %d bytes, want at least %d", ErrValue, name, line, len(v), MinValueLength)
		}
		values = append(values, v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrValue, name, err)
	}
	return values, nil
}

// LoadValues reads a file of values (see ReadValues).
func LoadValues(path string) ([]string, error) {
	b, err := readBounded(path, maxValueFileSize)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrValue, err)
	}
	return ReadValues(bytes.NewReader(b), path)
}

func readBounded(path string, limit int64) ([]byte, error) {
	f, err := inputfile.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return b, nil
}
