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

// Size limits of the files of an oasisctl run, which are read whole.
const (
	MaxArtifactBytes  = 256 << 20
	MaxRunConfigBytes = 64 << 20
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
