package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := runCLI(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// UsageError is a command line hack/image does not understand.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg + " (usage: image|dist [flags], -h for the flags)" }

func runCLI(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return &UsageError{Msg: "no command"}
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	root := fs.String("root", "", "repository root (default: git's top level of the working directory)")
	out := fs.String("out", "", "output directory (default: <root>/dist/image for image, <root>/dist for dist)")
	version := fs.String("version", "", "version (the image tag); default: HEAD's tag, else a pseudo-version of the commit")
	start := time.Now()
	switch args[0] {
	case "image":
		o := imageOptions{}
		fs.StringVar(&o.Repository, "repository", "ghcr.io/aztenant/aztenant-operator", "image repository")
		fs.StringVar(&o.Arch, "arch", runtime.GOARCH, "image architecture (GOARCH; linux only)")
		fs.StringVar(&o.CABundle, "ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "CA bundle (PEM) copied into the image")
		fs.StringVar(&o.Source, "source", "https://github.com/aztenant/aztenant", "source repository URL (org.opencontainers.image.source)")
		fs.StringVar(&o.Licenses, "licenses", "", "SPDX license expression; default: recognised from LICENSE, none without one")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		var err error
		if o.Root, o.Out, err = dirs(ctx, *root, *out, "dist/image"); err != nil {
			return err
		}
		o.Version = *version
		res, err := buildImage(ctx, o)
		if err != nil {
			return err
		}
		fmt.Printf("%s@%s\n  layout  %s\n  tarball %s\n  %d bytes compressed, built in %s\n",
			res.Tag, res.Digest, res.Layout, res.Tarball, res.Size, time.Since(start).Round(time.Second))
	case "dist":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		o := distOptions{Version: *version}
		var err error
		if o.Root, o.Out, err = dirs(ctx, *root, *out, "dist"); err != nil {
			return err
		}
		files, err := buildDist(ctx, o)
		if err != nil {
			return err
		}
		for _, f := range files {
			fmt.Println(f)
		}
		fmt.Printf("built in %s\n", time.Since(start).Round(time.Second))
	default:
		return &UsageError{Msg: "unknown command " + args[0]}
	}
	return nil
}

// dirs resolves the repository root and the output directory (relative to
// the root unless absolute).
func dirs(ctx context.Context, root, out, defaultOut string) (string, string, error) {
	if root == "" {
		var err error
		if root, err = run(ctx, ".", nil, "git", "rev-parse", "--show-toplevel"); err != nil {
			return "", "", err
		}
	}
	if out == "" {
		out = defaultOut
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(root, out)
	}
	return root, out, nil
}
