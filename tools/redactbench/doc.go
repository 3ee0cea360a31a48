// Command redactbench measures the redactor alone for scripts/bench-redact.sh: it streams a
// file through redact.Redactor.Reader into nothing and prints "key=value" lines: bytes,
// seconds and mbps (10^6 bytes per second), and the peak memory of the process (VmHWM).
//
// Usage:
//
//	redactbench -values FILE -key FILE INPUT
//
// scripts/bench-redact.sh runs it beside `grep -F -c` on the same generated audit log.
package main
