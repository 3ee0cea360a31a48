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
//
// It is the one input policy of every reader: regular files only; a file read from inside an
// input directory is read through a Root (os.Root), so that a symbolic link, a ".." or an
// absolute path leading out of the directory is refused (ErrOutside, naming where it leads)
// rather than followed; every read ends with the command's context, which SIGINT and SIGTERM
// cancel; every file is read up to a named Limit (ErrTooLarge names the file, its size and
// the limit), checked on its size before anything is read.
package inputfile
