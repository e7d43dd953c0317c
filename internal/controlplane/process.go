package controlplane

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// process is one child (etcd or kube-apiserver) with its log file.
type process struct {
	name    string
	path    string
	args    []string
	logFile string
	detach  bool
	env     []string // added to this process's environment

	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func (p *process) start() error {
	log, err := os.OpenFile(p.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout, cmd.Stderr = log, log
	if len(p.env) > 0 {
		cmd.Env = append(os.Environ(), p.env...)
	}
	if p.detach {
		// The demo's control plane outlives the command that started it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		// A test binary killed by a timeout or a signal takes its servers with it.
		cmd.SysProcAttr = dieWithParent()
	}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	p.cmd = cmd
	p.done = make(chan struct{})
	go func() {
		p.err = cmd.Wait()
		log.Close()
		close(p.done)
	}()
	if p.detach {
		return os.WriteFile(filepath.Join(filepath.Dir(p.logFile), p.name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
	}
	return nil
}

// exited reports whether the process has ended, with the tail of its log.
func (p *process) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); last log lines:\n%s", p.name, p.err, Tail(p.logFile, 20))
	default:
		return nil
	}
}

// stop asks the process to end and kills it if it has not within the grace period.
func (p *process) stop(grace time.Duration) error {
	if p.cmd == nil {
		return nil
	}
	select {
	case <-p.done:
		return nil
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return nil
}

// Tail returns the last lines of a log file (or why it cannot be read).
func Tail(file string, lines int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	parts := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return string(bytes.Join(parts, []byte("\n")))
}

// freePorts returns n distinct loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// waitFor polls check until it returns nil, the context ends or a process exits.
func waitFor(ctx context.Context, what string, check func(context.Context) error, procs ...*process) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, p := range procs {
			if err := p.exited(); err != nil {
				return false, err
			}
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		last = check(cctx)
		return last == nil, nil
	})
	if wait.Interrupted(err) {
		return fmt.Errorf("%s not ready: %w (last error: %v)", what, ctx.Err(), last)
	}
	return err
}

// StartDetached starts a helper process of the local environment (the demo's
// emulator and operator) that outlives this one, logging to dir/<name>.log and
// leaving dir/<name>.pid for StopDir.
func StartDetached(dir, name, path string, args, env []string) error {
	p := &process{name: name, path: path, args: args, logFile: filepath.Join(dir, name+".log"), detach: true, env: env}
	return p.start()
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}
