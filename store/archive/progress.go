package archive

// Progress reports how far an Export or Import has come, so a caller can draw a progress bar.
// It carries no timing: rates and ETAs are the caller's business.
type Progress struct {
	// Entry is the archive entry being written or read, e.g. "blobs/sha256/ab12…".
	Entry string
	// Done counts bytes so far: content bytes written into the archive on export, archive
	// (compressed) bytes read on import.
	Done int64
	// Total is the number Done reaches at the end, or 0 when it is unknown (an import whose
	// ImportOptions.Size is not set).
	Total int64
}

// progressStep is how many bytes may pass between two reports inside one entry.
const progressStep = 1 << 20

// progress throttles reports to one per entry and one per progressStep bytes. Reports are made
// from the goroutine that moves the data, never concurrently with each other.
type progress struct {
	fn    func(Progress)
	total int64
	entry string
	last  int64
}

// startEntry reports the beginning of an entry.
func (p *progress) startEntry(name string, done int64) {
	if p == nil || p.fn == nil {
		return
	}
	p.entry, p.last = name, done
	p.fn(Progress{Entry: name, Done: done, Total: p.total})
}

// advance reports done if enough has passed since the last report.
func (p *progress) advance(done int64) {
	if p == nil || p.fn == nil || done-p.last < progressStep {
		return
	}
	p.last = done
	p.fn(Progress{Entry: p.entry, Done: done, Total: p.total})
}

// finish reports the final count.
func (p *progress) finish(done int64) {
	if p == nil || p.fn == nil {
		return
	}
	p.last = done
	p.fn(Progress{Entry: p.entry, Done: done, Total: p.total})
}
