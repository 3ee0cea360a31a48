package badgerstore

import "syscall"

// freeSpace returns the bytes an unprivileged process may still write on the file system
// holding dir.
func freeSpace(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return int64(st.Bavail) * st.Bsize, nil
}

// allocated returns the bytes a file occupies on disk (its blocks), which for Badger's sparse,
// memory-mapped log files is far less than their length.
func allocated(st any) (int64, bool) {
	if s, ok := st.(*syscall.Stat_t); ok {
		return s.Blocks * 512, true
	}
	return 0, false
}
