package oasisctl

import (
	"path"
	"strings"
)

// The files of an oasisctl output directory.
const (
	// ReportJSON is the report (`--format json`); ReportYAML the same report converted by
	// `oasisctl report convert`, or the only report of a run written as YAML.
	ReportJSON = "verdict.json"
	ReportYAML = "verdict.yaml"
	// EvidenceDir holds the evidence artifacts, one per scenario (EvidenceFileName).
	EvidenceDir = "evidence"
)

// RunConfigNames are the names of a run configuration kept beside the report.
var RunConfigNames = []string{"run-config.yaml", "run-config.yml"}

// Limits of the files of an oasisctl run, which are read whole into the document model. A
// value costs up to about 100 bytes as a node, and an artifact's bytes are held three times at
// most (the file, the tree's strings, the observations' payloads): these limits keep a file
// under about 150 MiB of memory, so that a command reading one stays within 256 MiB (DESIGN
// §7). An artifact of an OASIS run carries one scenario's audit log and snapshots, kilobytes to
// a few megabytes; a run configuration is a few pages of YAML.
const (
	// MaxArtifactBytes bounds an evidence artifact and an agent transcript (Limits.MaxBytes).
	MaxArtifactBytes = 16 << 20
	// MaxArtifactValues bounds the values of an artifact or a transcript (Limits.MaxNodes).
	MaxArtifactValues = 1 << 19
	// MaxRunConfigBytes bounds a run configuration (Limits.MaxBytes).
	MaxRunConfigBytes = 4 << 20
)

// EvidenceFileName is the artifact file name of a scenario: evidence-<id>.json, with path
// separators replaced by "_" as oasisctl does (OASIS Reporting §1.2 of core rc1.11).
func EvidenceFileName(id string) string {
	return "evidence-" + strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' {
			return '_'
		}
		return r
	}, id) + ".json"
}

// ArtifactPath is the slash path of a scenario's artifact in an output directory.
func ArtifactPath(id string) string { return path.Join(EvidenceDir, EvidenceFileName(id)) }

// IsArtifactName reports whether a file name of the evidence directory is an artifact's.
func IsArtifactName(name string) bool {
	return strings.HasPrefix(name, "evidence-") && strings.HasSuffix(name, ".json")
}
