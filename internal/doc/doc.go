// Package doc is the decoded JSON/YAML document of the project.
package doc
