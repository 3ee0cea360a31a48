// Command oasis-replay records the evidence of OASIS agent evaluations into content-addressed
// bundles and replays it through a pure evaluator, so anyone can prove that the same evidence
// yields the same verdict.
//
// Each command lives in its own file and only parses flags, opens the store and calls the
// library packages through store.Store; storeopen.go is the one place that opens (and names) a
// concrete store. Errors travel back to run, the one place that maps them to the exit status,
// by the class every sentinel of the module carries (internal/errclass; classStatus in
// errors.go): 0 success, 1 a mismatch or an integrity failure, 2 everything else — bad usage,
// bad input, unknown bundle, a store in use, a defect.
//
// What all commands share is given to them in one place, not written in each: args.go
// (flagsFirst) moves every flag of the command line before the positional arguments of the
// command that defines it, so flags may be written anywhere although urfave/cli v2 stops
// reading them at the first argument; commandtree.go (prepareCommands) gives every command its
// usage errors and its argument check, the number of arguments read from its ArgsUsage, which
// is therefore also what its usage line shows, after its required flags (Required, or a usage
// ending in "(required)" for a flag the command checks itself, the value named by the word the
// usage quotes in backquotes). A command states its exit statuses at the end of
// its Description. Tests walk the command tree, so a new command is held to all of this.
//
// Signing lives in receipt.go (receipt keygen, receipt verify) and receipt_sign.go (the flags
// replay, audit and golden share: --sign/--receipt, --require-signature/--key); the format is
// package attest's.
package main
