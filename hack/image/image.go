package main

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's fixed facts. The chart runs the pod as this user too
// (podSecurityContext.runAsUser), and kubelet's runAsNonRoot check needs a
// numeric User in the config.
const (
	imageTitle  = "aztenant-operator"
	nonrootUser = "65532:65532"
	binaryPath  = "/operator"
	caPath      = "/etc/ssl/certs/ca-certificates.crt"
	sbomPath    = "/sbom.spdx.json"
	layoutDir   = "oci"
	tarballName = "aztenant-operator.tar"
)

type imageOptions struct {
	Root       string // the repository (its git tree is the source)
	Out        string // output directory: oci/, aztenant-operator.tar, operator
	Repository string // e.g. ghcr.io/aztenant/aztenant-operator
	Version    string // the tag; empty: computed from git (see gitVersion)
	Arch       string // GOARCH of the image (linux only)
	CABundle   string // PEM bundle copied into the image
	Source     string // repository URL for org.opencontainers.image.source
	Licenses   string // SPDX expression; empty: detected from LICENSE, if any
}

type imageResult struct {
	Tag     name.Tag
	Digest  v1.Hash // the image manifest's digest: what a registry reports
	Size    int64   // compressed layer plus config and manifest, as pulled
	Layout  string
	Tarball string
	Binary  string
}

// buildImage builds the operator and its image and writes both outputs,
// replacing earlier ones.
func buildImage(ctx context.Context, o imageOptions) (imageResult, error) {
	var res imageResult
	src, err := readSource(ctx, o.Root, o.Version)
	if err != nil {
		return res, err
	}
	if res.Tag, err = name.NewTag(o.Repository+":"+src.Version, name.StrictValidation); err != nil {
		return res, fmt.Errorf("image reference: %w", err)
	}
	licenses, err := detectLicenses(o.Root, o.Licenses)
	if err != nil {
		return res, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return res, err
	}
	res.Binary = filepath.Join(o.Out, "operator")
	if err := goBuild(ctx, o.Root, "./cmd/operator", res.Binary, platform{"linux", o.Arch}, src); err != nil {
		return res, err
	}
	binary, err := os.ReadFile(res.Binary)
	if err != nil {
		return res, err
	}
	ca, err := os.ReadFile(o.CABundle)
	if err != nil {
		return res, fmt.Errorf("CA bundle: %w", err)
	}
	sbom, err := goSBOM(binary, sbomMeta{Name: imageTitle, Version: src.Version, Commit: src.Commit, Source: o.Source, Licenses: licenses, Created: src.Created})
	if err != nil {
		return res, err
	}
	img, err := operatorImage(o, src, licenses, binary, ca, sbom)
	if err != nil {
		return res, err
	}
	if res.Digest, err = img.Digest(); err != nil {
		return res, err
	}
	if res.Size, err = imageSize(img); err != nil {
		return res, err
	}

	// The layout holds this image only: rewriting it from nothing keeps an
	// earlier build's blobs and index entries out.
	res.Layout = filepath.Join(o.Out, layoutDir)
	if err := os.RemoveAll(res.Layout); err != nil {
		return res, err
	}
	lp, err := layout.Write(res.Layout, empty.Index)
	if err != nil {
		return res, err
	}
	err = lp.AppendImage(img,
		layout.WithPlatform(v1.Platform{OS: "linux", Architecture: o.Arch, Variant: variant(o.Arch)}),
		layout.WithAnnotations(map[string]string{
			// The tag, as the OCI spec says; containerd (ctr import, kind)
			// names the image by the full reference.
			"org.opencontainers.image.ref.name": res.Tag.TagStr(),
			"io.containerd.image.name":          res.Tag.Name(),
		}))
	if err != nil {
		return res, err
	}
	res.Tarball = filepath.Join(o.Out, tarballName)
	if err := tarball.WriteToFile(res.Tarball, res.Tag, img); err != nil {
		return res, err
	}
	return res, nil
}

// operatorImage is scratch plus one layer; nothing in it depends on the
// machine or the clock.
func operatorImage(o imageOptions, src source, licenses string, binary, ca, sbom []byte) (v1.Image, error) {
	passwd := "root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n"
	group := "root:x:0:\nnonroot:x:65532:\n"
	files, err := tarLayer(src.Created, []tarEntry{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, data: []byte(group)},
		{name: "etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: strings.TrimPrefix(caPath, "/"), mode: 0o644, data: ca},
		{name: "home/", mode: 0o755},
		{name: "home/nonroot/", mode: 0o700, owner: 65532},
		{name: strings.TrimPrefix(binaryPath, "/"), mode: 0o755, data: binary},
		{name: strings.TrimPrefix(sbomPath, "/"), mode: 0o644, data: sbom},
		// The chart mounts an emptyDir here (the root filesystem is read-only);
		// without the chart /tmp still exists.
		{name: "tmp/", mode: 0o1777},
	})
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}

	labels := map[string]string{
		"org.opencontainers.image.title":       imageTitle,
		"org.opencontainers.image.description": "aztenant operator: Azure resources from Kubernetes, each namespace with its own identity",
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.revision":    src.Commit,
		"org.opencontainers.image.version":     src.Version,
		"org.opencontainers.image.created":     src.Created.Format(time.RFC3339),
	}
	if licenses != "" {
		labels["org.opencontainers.image.licenses"] = licenses
	}
	created := v1.Time{Time: src.Created}
	img, err := mutate.ConfigFile(empty.Image, &v1.ConfigFile{
		Architecture: o.Arch,
		Variant:      variant(o.Arch),
		OS:           "linux",
		Created:      created,
		RootFS:       v1.RootFS{Type: "layers"},
		Config: v1.Config{
			User:       nonrootUser,
			Entrypoint: []string{binaryPath},
			WorkingDir: "/",
			Env:        []string{"SSL_CERT_FILE=" + caPath},
			Labels:     labels,
		},
	})
	if err != nil {
		return nil, err
	}
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	return mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History: v1.History{
			Created:   created,
			CreatedBy: "hack/image: " + binaryPath + ", CA bundle, nonroot user, " + sbomPath,
		},
	})
}

// variant is the platform variant OCI expects for arm64 (v8).
func variant(arch string) string {
	if arch == "arm64" {
		return "v8"
	}
	return ""
}

// imageSize is what a pull transfers: manifest, config and compressed layers.
func imageSize(img v1.Image) (int64, error) {
	m, err := img.Manifest()
	if err != nil {
		return 0, err
	}
	raw, err := img.RawManifest()
	if err != nil {
		return 0, err
	}
	n := int64(len(raw)) + m.Config.Size
	for _, l := range m.Layers {
		n += l.Size
	}
	return n, nil
}

// tarEntry is a file ("name") or a directory ("name/") of a layer, owned by
// root unless owner says otherwise.
type tarEntry struct {
	name  string
	mode  int64
	owner int
	data  []byte
}

// tarLayer writes entries, in the order given (parents first), with every
// timestamp set to mtime and no user or host names.
func tarLayer(mtime time.Time, entries []tarEntry) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			Uid:     e.owner,
			Gid:     e.owner,
			ModTime: mtime,
		}
		if strings.HasSuffix(e.name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("layer %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, fmt.Errorf("layer %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LicenseError is a license file whose license hack/image cannot name:
// pass its SPDX identifier with -licenses.
type LicenseError struct{ Path string }

func (e *LicenseError) Error() string {
	return e.Path + ": license not recognised; pass its SPDX identifier with -licenses (LICENSES= for make)"
}

// detectLicenses is the SPDX expression of the repository's license: given,
// else recognised from its LICENSE file, else "" when there is none.
func detectLicenses(root, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	for _, f := range []string{"LICENSE", "LICENSE.md", "LICENSE.txt", "COPYING"} {
		p := filepath.Join(root, f)
		b, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return "", err
		}
		text := string(b)
		switch {
		case strings.Contains(text, "Apache License") && strings.Contains(text, "Version 2.0"):
			return "Apache-2.0", nil
		case strings.Contains(text, "MIT License") || strings.Contains(text, "Permission is hereby granted, free of charge"):
			return "MIT", nil
		}
		return "", &LicenseError{Path: p}
	}
	return "", nil
}
