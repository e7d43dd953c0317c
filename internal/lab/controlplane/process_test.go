package controlplane

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// This very process has spent CPU and holds memory.
func TestProcUsage(t *testing.T) {
	for i := 0; i < 1e7; i++ {
		_ = i * i
	}
	u, err := ProcUsage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if u.RSSMiB <= 0 || u.PeakRSSMiB < u.RSSMiB || u.CPUSeconds < 0 {
		t.Errorf("usage %+v", u)
	}
}

// A process that ends is seen to: Exited wraps ErrExited with the log's
// tail, Alive says why, and Usage no longer reads a pid.
func TestProcessExits(t *testing.T) {
	dir := t.TempDir()
	p := &Process{Name: "sh", Path: "/bin/sh", Args: []string{"-c", "echo hello; exit 3"}, Log: filepath.Join(dir, "sh.log")}
	if err := p.Exited(); err != nil {
		t.Fatalf("not started yet, Exited = %v", err)
	}
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for p.Exited() == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	err := p.Exited()
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "hello") {
		t.Errorf("Exited = %v, want ErrExited with the log's tail", err)
	}
	if alive, why := p.Alive(); alive || !strings.Contains(why, "exit status 3") {
		t.Errorf("Alive = %v, %q", alive, why)
	}
	p.Stop(time.Second) // a no-op on an ended process
}
