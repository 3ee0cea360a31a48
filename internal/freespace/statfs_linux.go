package freespace

import "syscall"

// Statfs returns the bytes an unprivileged process may still write on the file system holding
// dir (f_bavail blocks).
func Statfs(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}
