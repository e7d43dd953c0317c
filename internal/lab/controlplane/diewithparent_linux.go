package controlplane

import "syscall"

// dieWithParent is the attributes of a child killed when this process dies
// (Pdeathsig), so an interrupted test or command leaves nothing running.
func dieWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
