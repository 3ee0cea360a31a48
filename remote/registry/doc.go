// Package registry is the OCI registry backend of package remote, over oras-go
// (oras.land/oras-go/v2): blobs and manifests through the distribution API, names as tags,
// referrers through the referrers API where the registry has it and the tag schema
// (sha256-<hex> indexes, distribution-spec "Referrers Tag Schema") where it does not.
//
// Credentials come from the Docker credentials file, as docker, oras and helm read it:
// $DOCKER_CONFIG/config.json, else ~/.docker/config.json, with its credential helpers. Plain
// HTTP is used only when the remote was added with --plain-http.
package registry
