package main

import (
	"context"
	"os"
	"strings"
)

// platform is a GOOS/GOARCH pair.
type platform struct{ OS, Arch string }

func (p platform) String() string { return p.OS + "/" + p.Arch }

// goBuild builds the main package pkg of the module at root into out, for p,
// reproducibly: the same commit gives the same bytes on any machine with the
// same Go toolchain.
func goBuild(ctx context.Context, root, pkg, out string, p platform, src source) error {
	env := append(os.Environ(),
		"CGO_ENABLED=0", // static: the image has no libc
		"GOOS="+p.OS, "GOARCH="+p.Arch,
		// The baseline instruction sets, so the binary runs on every node of
		// its architecture whatever the builder's environment says.
		"GOAMD64=v1", "GOARM64=v8.0",
		// The builder's GOFLAGS (-race, -tags, -buildvcs=false...) would change
		// the binary; the flags below are the whole build.
		"GOFLAGS=",
	)
	ldflags := strings.Join([]string{
		"-s", "-w", // no symbol table or DWARF: smaller; buildinfo stays
		"-buildid=", // nothing machine-specific in the binary
		"-X", "main.version=" + src.Version,
	}, " ")
	_, err := run(ctx, root, env, "go", "build",
		"-trimpath", // no builder paths in the binary
		// Go stamps vcs.* settings from a clone but not from a git worktree
		// (its .git is a file), so one commit would give two binaries; the
		// commit is in -X main.version, the image labels and the SBOM instead.
		"-buildvcs=false",
		"-ldflags", ldflags,
		"-o", out, pkg)
	return err
}
