package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// CommandError is a command (git, go) that failed, with what it printed on
// stderr: the reason is there, not in the exit status.
type CommandError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *CommandError) Error() string {
	return fmt.Sprintf("%s: %v: %s", strings.Join(e.Args, " "), e.Err, strings.TrimSpace(e.Stderr))
}

func (e *CommandError) Unwrap() error { return e.Err }

// run runs a command in dir and returns its trimmed stdout.
func run(ctx context.Context, dir string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", &CommandError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return strings.TrimSpace(stdout.String()), nil
}

// source is what a build records of the commit it is built from.
type source struct {
	Commit  string    // full hash
	Time    time.Time // the commit's committer time
	Created time.Time // what every timestamp of the artifacts is: SOURCE_DATE_EPOCH, else Time
	Version string    // the exact tag, else a Go pseudo-version; -dirty when the tree has changes
	Dirty   bool
}

// readSource asks git about the tree at root. version, when not empty,
// overrides the computed version (a release passes its tag).
func readSource(ctx context.Context, root, version string) (source, error) {
	var s source
	var err error
	if s.Commit, err = run(ctx, root, nil, "git", "rev-parse", "HEAD"); err != nil {
		return s, err
	}
	ct, err := run(ctx, root, nil, "git", "log", "-1", "--format=%ct", "HEAD")
	if err != nil {
		return s, err
	}
	if s.Time, err = unixTime(ct); err != nil {
		return s, fmt.Errorf("commit time: %w", err)
	}
	s.Created = s.Time
	if v := os.Getenv("SOURCE_DATE_EPOCH"); v != "" {
		if s.Created, err = unixTime(v); err != nil {
			return s, fmt.Errorf("SOURCE_DATE_EPOCH: %w", err)
		}
	}
	// Untracked files count: go build compiles them if they sit in a package.
	status, err := run(ctx, root, nil, "git", "status", "--porcelain")
	if err != nil {
		return s, err
	}
	s.Dirty = status != ""
	s.Version = version
	if s.Version == "" {
		s.Version = gitVersion(ctx, root, s)
	}
	return s, nil
}

// gitVersion is HEAD's tag, or a Go pseudo-version (v0.0.0-time-hash) of the
// commit, which sorts by time and names the commit; "-dirty" marks a tree
// with changes ("+dirty" as Go writes it is not allowed in an image tag).
func gitVersion(ctx context.Context, root string, s source) string {
	v, err := run(ctx, root, nil, "git", "describe", "--tags", "--exact-match", "HEAD")
	if err != nil { // no tag on HEAD
		v = "v0.0.0-" + s.Time.Format("20060102150405") + "-" + s.Commit[:12]
	}
	if s.Dirty {
		v += "-dirty"
	}
	return v
}

func unixTime(secs string) (time.Time, error) {
	n, err := strconv.ParseInt(secs, 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(n, 0).UTC(), nil
}
