package command

import (
	"syscall"
	"unsafe"
)

// Arguments of waitid(2) (linux/wait.h).
const (
	pPID    = 1
	wExited = 0x4
	wNoWait = 0x01000000
)

// waitExited returns when the process pid has exited, without reaping it (WNOWAIT: cmd.Wait
// reaps it and reads its status), or when done is closed. waitid fails at once when the
// process is no longer a child of ours (already reaped): it has exited then too.
func waitExited(pid int, done <-chan struct{}) {
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		if errno != syscall.EINTR {
			return
		}
		select {
		case <-done:
			return
		default:
		}
	}
}
