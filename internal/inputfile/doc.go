// Package inputfile opens the files a command reads as input: regular files, and directories
// of them, only.
//
// Opening a named pipe (FIFO) blocks until a writer opens its other end, and reading a device
// may never end: a command given one would hang holding the store's lock, deaf to SIGINT and
// SIGTERM. Every input is therefore checked before anything else (Check), opened without
// blocking and checked again on the open descriptor (Open, Root), so that a path swapped for a
// pipe between the check and the open is refused too, and read through a File whose reads stop
// with the command's context. The error names the path and what it is ("a named pipe", "a
// device", "a socket", "a directory").
package inputfile
