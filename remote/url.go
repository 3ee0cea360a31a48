package remote

import (
	"fmt"
	"regexp"
	"strings"
)

// Schemes of remote URLs.
const (
	SchemeOCI = "oci"
	SchemeS3  = "s3"
)

// URL is a parsed remote URL: oci://HOST[:PORT]/REPOSITORY or s3://BUCKET[/PREFIX].
type URL struct {
	Scheme string
	// Host is the registry's host and port (oci).
	Host string
	// Repository is the repository path in the registry (oci).
	Repository string
	// Bucket and Prefix locate the keys in S3 (s3); Prefix has no leading or trailing slash.
	Bucket, Prefix string
}

// repositoryPath is the OCI distribution spec's repository name grammar
// (distribution-spec, "Pulling manifests": <name>).
var repositoryPath = regexp.MustCompile(`^[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)*$`)

// hostPort is a host name or IPv4 address with an optional port (IPv6 literals in brackets).
var hostPort = regexp.MustCompile(`^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?)(:[0-9]{1,5})?$`)

// bucketName is S3's rule for bucket names (3 to 63 lower-case letters, digits, dots, hyphens).
var bucketName = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$`)

// ParseURL parses a remote URL. A reference to a bundle after the repository
// (oci://host/repo@sha256:…) is not part of a remote URL: see SplitReference.
func ParseURL(s string) (URL, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		return URL{}, fmt.Errorf("%w: %q: want oci://HOST[:PORT]/REPOSITORY or s3://BUCKET[/PREFIX]", ErrURL, s)
	}
	switch scheme {
	case SchemeOCI:
		host, repo, _ := strings.Cut(rest, "/")
		if !hostPort.MatchString(host) {
			return URL{}, fmt.Errorf("%w: %q: %q is not HOST[:PORT]", ErrURL, s, host)
		}
		if !repositoryPath.MatchString(repo) || len(repo) > 255 {
			return URL{}, fmt.Errorf("%w: %q: %q is not a repository name (lower-case path components of letters, digits and separators . _ __ -)", ErrURL, s, repo)
		}
		return URL{Scheme: scheme, Host: host, Repository: repo}, nil
	case SchemeS3:
		bucket, prefix, _ := strings.Cut(rest, "/")
		prefix = strings.Trim(prefix, "/")
		if !bucketName.MatchString(bucket) {
			return URL{}, fmt.Errorf("%w: %q: %q is not an S3 bucket name", ErrURL, s, bucket)
		}
		if strings.Contains(prefix, "//") || strings.Contains(prefix, "..") || strings.ContainsAny(prefix, "\\\x00") {
			return URL{}, fmt.Errorf("%w: %q: prefix %q has an empty, \"..\" or unsafe path element", ErrURL, s, prefix)
		}
		return URL{Scheme: scheme, Bucket: bucket, Prefix: prefix}, nil
	default:
		return URL{}, fmt.Errorf("%w: %q: scheme %q is neither oci nor s3", ErrURL, s, scheme)
	}
}

// String is the URL in its canonical form.
func (u URL) String() string {
	if u.Scheme == SchemeOCI {
		return "oci://" + u.Host + "/" + u.Repository
	}
	if u.Prefix == "" {
		return "s3://" + u.Bucket
	}
	return "s3://" + u.Bucket + "/" + u.Prefix
}

// IsURL reports whether s is written as a remote URL rather than a remote's name.
func IsURL(s string) bool { return strings.HasPrefix(s, "oci://") || strings.HasPrefix(s, "s3://") }

// SplitReference splits a bundle reference written as one string, REMOTE@REF, into REMOTE (a
// remote's URL, as oci://host/repo, or its name) and REF (a digest, prefix or tag on it). ok is
// false when s has no "@" after its first character: tags and digests never hold one.
func SplitReference(s string) (remote, ref string, ok bool) {
	i := strings.LastIndex(s, "@")
	if i <= 0 || i == len(s)-1 {
		return "", "", false
	}
	return s[:i], s[i+1:], true
}
