package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// distPlatforms are the CLI's release platforms.
var distPlatforms = []platform{
	{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"},
}

const sumsName = "SHA256SUMS"

type distOptions struct {
	Root    string
	Out     string // dist/: the archives and SHA256SUMS
	Version string // empty: computed from git
}

// buildDist builds the CLI for every release platform into
// aztenant_<version>_<os>_<arch>.tar.gz (holding the binary aztenant) and
// writes SHA256SUMS over them, in the format `sha256sum -c` checks.
func buildDist(ctx context.Context, o distOptions) ([]string, error) {
	src, err := readSource(ctx, o.Root, o.Version)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(o.Out, ".build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	var archives []string
	var sums strings.Builder
	for _, p := range distPlatforms {
		bin := filepath.Join(tmp, p.OS+"-"+p.Arch, "aztenant")
		if err := goBuild(ctx, o.Root, "./cmd/aztenant", bin, p, src); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		name := fmt.Sprintf("aztenant_%s_%s_%s.tar.gz", src.Version, p.OS, p.Arch)
		archive, err := targz(src, tarEntry{name: "aztenant", mode: 0o755, data: data})
		if err != nil {
			return nil, err
		}
		path := filepath.Join(o.Out, name)
		if err := os.WriteFile(path, archive, 0o644); err != nil {
			return nil, err
		}
		sum := sha256.Sum256(archive)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
		archives = append(archives, path)
	}
	sumsPath := filepath.Join(o.Out, sumsName)
	if err := os.WriteFile(sumsPath, []byte(sums.String()), 0o644); err != nil {
		return nil, err
	}
	return append(archives, sumsPath), nil
}

// targz is a gzipped tar of entries with fixed timestamps; the gzip header
// carries no name or time, so the bytes depend on the contents only.
func targz(src source, entries ...tarEntry) ([]byte, error) {
	files, err := tarLayer(src.Created, entries)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(files); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
