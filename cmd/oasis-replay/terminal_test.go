package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal: the controlling side, and the terminal a program writes to.
func openPTY(t *testing.T) (control, terminal *os.File) {
	t.Helper()
	control, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { control.Close() })
	var unlock int32
	var n uint32
	if err := ioctl(control, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	if err := ioctl(control, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	terminal, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	t.Cleanup(func() { terminal.Close() })
	return control, terminal
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), uintptr(req), uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// onTerminal calls use with a pseudo-terminal and returns everything written to it.
func onTerminal(t *testing.T, use func(terminal *os.File)) string {
	t.Helper()
	control, terminal := openPTY(t)
	const end = "\n-- end of the test's output --\n"
	drawn := make(chan string)
	go func() {
		var b bytes.Buffer
		buf := make([]byte, 4096)
		for {
			n, err := control.Read(buf)
			b.Write(buf[:n])
			if err != nil || strings.Contains(b.String(), strings.TrimSpace(end)) {
				drawn <- b.String()
				return
			}
		}
	}()
	use(terminal)
	if _, err := terminal.WriteString(end); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(<-drawn, "\r\n", "\n") // the terminal's own line ends
}
