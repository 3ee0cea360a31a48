// Package freespace keeps spool writes from filling a file system: a Guard admits each write
// only while the file system holding its directory keeps Margin bytes free, the same margin the
// store keeps for new content (store/badgerstore: "Free space"), and refuses it with ErrNoSpace
// otherwise, naming the margin.
//
// # Cost
//
// Measuring free space is a statfs(2) call. A guard measures again once its writers wrote
// Recheck bytes since the last measure, or as soon as the last measure leaves less than
// Margin+Recheck free after them; between two measures it counts its own writes. Writes by
// other programs between two measures are not seen, so the margin is kept up to Recheck bytes
// of theirs. Where free space cannot be measured (systems other than Linux, a statfs error)
// every write is admitted, as the store does.
package freespace
