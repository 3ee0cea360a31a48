// Package errclass gives errors a class: what kind of failure they report, which is what a
// caller needs to decide what to do about them (and what the CLI needs to choose an exit
// status), independently of which package raised them.
//
// Every sentinel error of the module is made with New, which takes its class:
//
//	var ErrCorrupt = errclass.New(errclass.Integrity, "store: corrupt")
//
// The sentinel is an ordinary error value: callers test it with errors.Is and wrap it with
// fmt.Errorf("%w: …"), and its message is exactly the one given. Of finds the class of any
// error by walking its wrap tree (Unwrap() error and Unwrap() []error), so a sentinel keeps its
// class through any number of wrappings.
//
// # Classes
//
// The set is small on purpose; each class answers "whose fault, and would retrying help?":
//
//   - Input: what the user gave cannot be used as it is — a malformed file, flag value or
//     argument, a document of the wrong shape or version, a limit exceeded. Fix the input.
//   - NotFound: what the user named does not exist — a bundle, a profile, a scenario, a ref.
//   - Environment: the machine failed the command — a directory that cannot be written, a
//     resource of the system that is not available. Fix the machine, then retry.
//   - InUse: something the command needs is held or changed by another process — a locked
//     store, an input file rewritten while it was read. Retry when the other process is done.
//   - Internal: a defect of this program or a misuse of a package's API, never the user's
//     fault — an evaluator table with a gap, a write through a read-only store.
//   - Integrity: content does not match its digest or its references — corrupt storage, a
//     damaged or forged archive. A finding about the data, not a failure to run.
//
// A sentinel whose message only adds context to a cause it wraps (replay.ErrBundle: "bundle
// unreadable: …") takes Input, the least specific class, so that the cause decides.
//
// # Several classes in one error
//
// An error tree may hold sentinels of several classes (replay.ErrBundle wrapping
// store.ErrCorrupt). Of returns the one that ranks highest, in this order: Integrity,
// Internal, InUse, Environment, NotFound, Input. Integrity ranks first because a finding about
// the data must never be hidden behind the error that carried it; Internal next because a
// defect must not pass for the user's mistake; Input last because it is the class of the
// wrappers. Errors that carry no class (from the standard library or a dependency) are
// Unclassified.
//
// # Every sentinel has a class
//
// A test in this package parses every Go package of the module and fails on an exported
// package-level Err* variable that is not declared with New and a class, naming its package,
// file and name; so a sentinel added anywhere, in a package that does not exist yet, cannot
// fall through to the wrong exit status.
package errclass
