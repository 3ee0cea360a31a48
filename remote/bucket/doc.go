// Package bucket is the S3 backend of package remote, over minio-go
// (github.com/minio/minio-go/v7). Keys, under the remote's prefix:
//
//	blobs/sha256/<hex>                        every blob: index.json, objects, raw evidence
//	manifests/sha256/<hex>                    wrapper and referrer manifests
//	tags/<name>                               the descriptor (JSON) of the manifest a name points at
//	referrers/sha256/<subject hex>/<hex>      the descriptor (JSON, with artifactType) of a referrer
//
// Blobs, manifests and referrer entries are immutable and content addressed: a push asks (HEAD)
// before it writes, and writing one twice writes the same bytes. Tags are the only mutable
// keys; each is written by one conditional single PUT (If-None-Match: * when it is new,
// If-Match: its ETag when it moves), so two pushes racing on a tag cannot lose an update
// silently: the loser fails with remote.ErrConflict and is run again.
//
// Credentials and endpoint are the AWS SDKs' (docs/decisions.md, "Remotes: credentials"):
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, else the shared credentials
// file (AWS_SHARED_CREDENTIALS_FILE, ~/.aws/credentials) for AWS_PROFILE (default "default");
// AWS_REGION or AWS_DEFAULT_REGION (default us-east-1); AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL
// for an endpoint other than AWS, addressed path-style.
package bucket
