package errclass

import "strconv"

// Class is the kind of failure an error reports. Classes are ordered by rank: when an error
// tree holds several, the highest wins (see the package documentation).
type Class uint8

// The classes, lowest rank first.
const (
	// Unclassified: the error carries no class (it comes from the standard library or a
	// dependency, wrapped in no sentinel of the module).
	Unclassified Class = iota
	// Input: what the user gave cannot be used as it is.
	Input
	// NotFound: what the user named does not exist.
	NotFound
	// Environment: the machine failed the command (a file system, a system resource).
	Environment
	// InUse: something the command needs is held or changed by another process.
	InUse
	// Internal: a defect of this program or a misuse of a package's API.
	Internal
	// Integrity: content does not match its digest or its references.
	Integrity
)

// Classes lists every class, Unclassified included, lowest rank first. Only tests call it: the
// CLI's test checks that its table of exit statuses has every class, and this package's that
// every sentinel names one. It is not a test helper because the list belongs beside the
// constants, where a class added is listed in the same edit, and a test file of this package
// could not be read by the CLI's tests.
func Classes() []Class {
	return []Class{Unclassified, Input, NotFound, Environment, InUse, Internal, Integrity}
}

var names = [...]string{
	Unclassified: "unclassified",
	Input:        "input",
	NotFound:     "not-found",
	Environment:  "environment",
	InUse:        "in-use",
	Internal:     "internal",
	Integrity:    "integrity",
}

// String is the class's name: "input", "not-found", "in-use", ….
func (c Class) String() string {
	if int(c) < len(names) {
		return names[c]
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Classifier is implemented by errors that carry a class: the sentinels New makes, and any
// error type of the module that wants a class of its own rather than its wrapped sentinel's.
type Classifier interface {
	ErrorClass() Class
}

// sentinel is an error with a fixed message and class. Sentinels are compared by identity
// (errors.Is compares pointers), so two calls to New never make equal errors.
type sentinel struct {
	msg   string
	class Class
}

func (e *sentinel) Error() string { return e.msg }

// ErrorClass implements Classifier.
func (e *sentinel) ErrorClass() Class { return e.class }

// New returns a sentinel error of class c whose message is msg ("pkg: what went wrong").
func New(c Class, msg string) error {
	return &sentinel{msg: msg, class: c}
}

// Of returns the class of err: the highest-ranking class among err and every error it wraps,
// or Unclassified when none carries one (and for nil).
func Of(err error) Class {
	best := Unclassified
	walk(err, func(e error) {
		if c, ok := e.(Classifier); ok && c.ErrorClass() > best {
			best = c.ErrorClass()
		}
	})
	return best
}

// walk calls visit on err and on every error in its wrap tree, depth first, as errors.Is
// does.
func walk(err error, visit func(error)) {
	for err != nil {
		visit(err)
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walk(e, visit)
			}
			return
		default:
			return
		}
	}
}
