//go:build !linux

package command

// waitExited returns when done is closed: without waitid(2)'s WNOWAIT, the leader's exit is
// seen when cmd.Wait returns, which waits up to Spec.Grace for pipes a child still holds.
func waitExited(_ int, done <-chan struct{}) { <-done }
