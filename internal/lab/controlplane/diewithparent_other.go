//go:build !linux

package controlplane

import "syscall"

// dieWithParent: only Linux has Pdeathsig. Elsewhere (the CLI built for
// darwin by make dist) a child outlives a parent that is killed, though not
// one that stops it on its way out.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{}
}
