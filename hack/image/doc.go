// Command image builds aztenant's release artifacts without a container
// daemon and without network beyond the Go module proxy (issue 18):
//
//   - image: the operator (./cmd/operator) as an OCI image. A scratch base plus
//     one layer holding /operator, the build machine's CA bundle at
//     /etc/ssl/certs/ca-certificates.crt, /etc/passwd and /etc/group with the
//     nonroot user 65532, an empty /tmp and /home/nonroot, and the SBOM at
//     /sbom.spdx.json (SPDX 2.3 JSON listing the Go modules linked into the
//     binary, read back from it with debug/buildinfo). The SBOM is a file of
//     the image rather than a separate OCI artifact so that it travels with
//     every copy of the image: docker load, kind load, crane push of the
//     tarball. Written as an OCI image layout (dist/image/oci) and a
//     docker-compatible tarball (dist/image/aztenant-operator.tar).
//   - dist: the CLI (./cmd/aztenant) for linux and darwin on amd64 and arm64,
//     one .tar.gz each, and SHA256SUMS.
//
// Everything is reproducible: binaries are built with CGO_ENABLED=0,
// -trimpath and fixed -ldflags; every timestamp (files in tars, the image
// config, the SBOM) is SOURCE_DATE_EPOCH or else the commit's time, never
// the wall clock. Two builds of one commit give the same image digest and
// the same tarballs (TestImageIsReproducible).
//
// It is its own Go module so that go-containerregistry never enters the
// operator's build list; hack/image/go.mod pins it. Run it through make:
//
//	make image   # go -C hack/image run . image -root $PWD -out $PWD/dist/image
//	make dist    # go -C hack/image run . dist -root $PWD -out $PWD/dist
package main
