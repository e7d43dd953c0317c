package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/crane"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// TestImage builds the image twice from the repository's HEAD, as make image
// does, and checks the two are the same bytes, then reads the outputs back
// the way docker load, kind and crane push would.
func TestImage(t *testing.T) {
	ctx := t.Context()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	opts := imageOptions{
		Root:       root,
		Repository: "ghcr.io/aztenant/aztenant-operator",
		Arch:       runtime.GOARCH,
		CABundle:   "/etc/ssl/certs/ca-certificates.crt",
		Source:     "https://github.com/aztenant/aztenant",
	}
	build := func() imageResult {
		o := opts
		o.Out = t.TempDir()
		start := time.Now()
		res, err := buildImage(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s@%s in %s, %d bytes", res.Tag, res.Digest, time.Since(start).Round(time.Millisecond), res.Size)
		return res
	}
	a, b := build(), build()

	t.Run("two builds of one commit are the same bytes", func(t *testing.T) {
		if a.Digest != b.Digest {
			t.Errorf("digests differ: %s and %s", a.Digest, b.Digest)
		}
		for _, f := range []string{tarballName, filepath.Join(layoutDir, "index.json"), "operator"} {
			if sa, sb := fileSum(t, filepath.Join(filepath.Dir(a.Tarball), f)), fileSum(t, filepath.Join(filepath.Dir(b.Tarball), f)); sa != sb {
				t.Errorf("%s differs between the builds", f)
			}
		}
	})

	src, err := readSource(ctx, root, "")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("tarball", func(t *testing.T) {
		img, err := tarball.ImageFromPath(a.Tarball, &a.Tag)
		if err != nil {
			t.Fatal(err)
		}
		// docker load and kind read the config and layers; the manifest is
		// docker's, computed on load, so compare what it points at.
		checkSameContent(t, img, a)
		checkImage(t, img, src)
	})

	t.Run("layout", func(t *testing.T) {
		idx, err := layout.ImageIndexFromPath(a.Layout)
		if err != nil {
			t.Fatal(err)
		}
		im, err := idx.IndexManifest()
		if err != nil {
			t.Fatal(err)
		}
		if len(im.Manifests) != 1 || im.Manifests[0].Digest != a.Digest {
			t.Fatalf("layout index %+v, want the one image %s", im.Manifests, a.Digest)
		}
		if got := im.Manifests[0].Annotations["io.containerd.image.name"]; got != a.Tag.Name() {
			t.Errorf("io.containerd.image.name %q, want %q", got, a.Tag.Name())
		}
		img, err := layout.Path(a.Layout).Image(a.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, img, src)
	})

	t.Run("pushes to a registry with the same digest", func(t *testing.T) {
		reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
		defer reg.Close()
		img, err := layout.Path(a.Layout).Image(a.Digest)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := name.NewTag(strings.TrimPrefix(reg.URL, "http://") + "/aztenant/aztenant-operator:" + a.Tag.TagStr())
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Write(ref, img, remote.WithContext(ctx)); err != nil {
			t.Fatal(err)
		}
		desc, err := remote.Head(ref, remote.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		if desc.Digest != a.Digest {
			t.Errorf("registry has %s, want %s", desc.Digest, a.Digest)
		}

		// crane push of the tarball: crane.Load reads it as crane push does;
		// the manifest is docker's (another digest), the contents the same.
		fromTar, err := crane.Load(a.Tarball)
		if err != nil {
			t.Fatal(err)
		}
		tarRef := ref.Context().Tag("from-tarball")
		if err := remote.Write(tarRef, fromTar, remote.WithContext(ctx)); err != nil {
			t.Fatal(err)
		}
		pulled, err := remote.Image(tarRef, remote.WithContext(ctx))
		if err != nil {
			t.Fatal(err)
		}
		checkSameContent(t, pulled, a)
	})
}

// checkSameContent: img (read back from the tarball) has the config and
// layers of the image built.
func checkSameContent(t *testing.T, img v1.Image, want imageResult) {
	t.Helper()
	orig, err := layout.Path(want.Layout).Image(want.Digest)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(v1.Image) (v1.Hash, error){v1.Image.ConfigName, layerDigest} {
		g, err := f(img)
		if err != nil {
			t.Fatal(err)
		}
		w, err := f(orig)
		if err != nil {
			t.Fatal(err)
		}
		if g != w {
			t.Errorf("tarball has %s, the layout %s", g, w)
		}
	}
}

func layerDigest(img v1.Image) (v1.Hash, error) {
	ls, err := img.Layers()
	if err != nil {
		return v1.Hash{}, err
	}
	if len(ls) != 1 {
		return v1.Hash{}, errors.New("want one layer, got " + strconv.Itoa(len(ls)))
	}
	return ls[0].Digest()
}

// checkImage checks the config and the files of the image.
func checkImage(t *testing.T, img v1.Image, src source) {
	t.Helper()
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	uid, _, _ := strings.Cut(c.User, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("user %q: want a numeric non-root uid (kubelet's runAsNonRoot needs one)", c.User)
	}
	if c.User != nonrootUser || !slices.Equal(c.Entrypoint, []string{"/operator"}) {
		t.Errorf("user %q entrypoint %q", c.User, c.Entrypoint)
	}
	if !cf.Created.Time.Equal(src.Created) {
		t.Errorf("config created %s, want the commit's time %s", cf.Created.Time, src.Created)
	}
	wantLabels := map[string]string{
		"org.opencontainers.image.revision": src.Commit,
		"org.opencontainers.image.version":  src.Version,
		"org.opencontainers.image.created":  src.Created.Format(time.RFC3339),
		"org.opencontainers.image.source":   "https://github.com/aztenant/aztenant",
		"org.opencontainers.image.title":    "aztenant-operator",
	}
	for k, v := range wantLabels {
		if c.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, c.Labels[k], v)
		}
	}

	files := map[string]*tar.Header{}
	contents := map[string][]byte{}
	tr := tar.NewReader(mutate.Extract(img))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = h
		if contents[h.Name], err = io.ReadAll(tr); err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(src.Created) {
			t.Errorf("%s mtime %s, want %s", h.Name, h.ModTime, src.Created)
		}
	}

	bin := files["operator"]
	if bin == nil || bin.Typeflag != tar.TypeReg || bin.Mode&0o111 == 0 || bin.Uid != 0 {
		t.Fatalf("/operator: %+v, want an executable regular file owned by root", bin)
	}
	bi, err := buildinfo.Read(bytes.NewReader(contents["operator"]))
	if err != nil {
		t.Fatalf("/operator is not a Go binary: %v", err)
	}
	if bi.Path != "github.com/aztenant/aztenant/cmd/operator" || !slices.Contains(bi.Settings, debug.BuildSetting{Key: "CGO_ENABLED", Value: "0"}) {
		t.Errorf("/operator: path %s settings %v, want cmd/operator built with CGO_ENABLED=0", bi.Path, bi.Settings)
	}
	if !bytes.Contains(contents["etc/passwd"], []byte("nonroot:x:65532:65532:")) || !bytes.Contains(contents["etc/group"], []byte("nonroot:x:65532:")) {
		t.Errorf("passwd %q group %q: want the nonroot user 65532", contents["etc/passwd"], contents["etc/group"])
	}
	ca, err := os.ReadFile("/etc/ssl/certs/ca-certificates.crt")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(contents["etc/ssl/certs/ca-certificates.crt"], ca) {
		t.Error("the CA bundle is not the build machine's")
	}
	checkSBOM(t, contents["sbom.spdx.json"], bi)

	// The binary runs: --help is parsed before anything needs a cluster.
	if runtime.GOOS == "linux" && cf.Architecture == runtime.GOARCH {
		exe := filepath.Join(t.TempDir(), "operator")
		if err := os.WriteFile(exe, contents["operator"], 0o755); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), exe, "--help").CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--leader-elect")) {
			t.Errorf("/operator --help: %v\n%s", err, out)
		}
	}
}

// checkSBOM: the SPDX document lists exactly the modules of the binary.
func checkSBOM(t *testing.T, raw []byte, bi *buildinfo.BuildInfo) {
	t.Helper()
	var doc spdxDocument
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("/sbom.spdx.json: %v", err)
	}
	if doc.SPDXVersion != "SPDX-2.3" || doc.CreationInfo.Created == "" {
		t.Errorf("SBOM version %q created %q", doc.SPDXVersion, doc.CreationInfo.Created)
	}
	var names []string
	for _, p := range doc.Packages[2:] { // after the binary and stdlib
		names = append(names, p.Name+"@"+p.VersionInfo)
	}
	var want []string
	for _, d := range bi.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		want = append(want, d.Path+"@"+d.Version)
	}
	if !slices.Equal(names, want) || !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "sigs.k8s.io/controller-runtime@") }) {
		t.Errorf("SBOM modules %v\nwant %v", names, want)
	}
	if len(doc.Relationships) != len(doc.Packages) { // DESCRIBES + one DEPENDS_ON per other package
		t.Errorf("%d relationships for %d packages", len(doc.Relationships), len(doc.Packages))
	}
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func TestTarGzIsReproducible(t *testing.T) {
	src := source{Created: time.Unix(1700000000, 0).UTC()}
	e := tarEntry{name: "aztenant", mode: 0o755, data: []byte("binary")}
	a, err := targz(src, e)
	if err != nil {
		t.Fatal(err)
	}
	b, err := targz(src, e)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two archives of the same files differ")
	}
	// Every time in it is the source's, none the clock's.
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() && !zr.ModTime.Equal(src.Created) {
		t.Errorf("gzip header time %v, want %v or none", zr.ModTime, src.Created)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !h.ModTime.Equal(src.Created) {
			t.Errorf("%s: time %v, want %v", h.Name, h.ModTime, src.Created)
		}
	}
}

func TestDetectLicenses(t *testing.T) {
	for _, tc := range []struct {
		name, file, given, want string
		err                     bool
	}{
		{name: "no license file: no label"},
		{name: "Apache", file: "                                 Apache License\n                           Version 2.0, January 2004\n", want: "Apache-2.0"},
		{name: "MIT", file: "MIT License\n\nCopyright (c) 2026\n", want: "MIT"},
		{name: "unknown", file: "All rights reserved.\n", err: true},
		{name: "given wins", file: "All rights reserved.\n", given: "BSD-3-Clause", want: "BSD-3-Clause"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.file != "" {
				if err := os.WriteFile(filepath.Join(dir, "LICENSE"), []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := detectLicenses(dir, tc.given)
			var le *LicenseError
			if tc.err != errors.As(err, &le) || got != tc.want {
				t.Errorf("got %q, %v; want %q, error %v", got, err, tc.want, tc.err)
			}
		})
	}
}
