package controlplane

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Process is one child process of the local stack (etcd, kube-apiserver, the
// emulator, the operator) with its log file. It dies with this process
// (Pdeathsig) unless Detach is set, so an interrupted test, benchmark or
// command leaves nothing behind. The control plane, the demo and the
// benchmark's stack (internal/lab/bench) all run their children through it.
type Process struct {
	Name string
	Path string
	Args []string
	// Env is added to this process's environment.
	Env []string
	// Log receives the process's output (appended).
	Log string
	// Detach lets the process outlive this one (the demo's stack): it gets a
	// session of its own and leaves <Name>.pid beside Log for StopDir.
	Detach bool

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// ErrExited says the process is no longer running.
var ErrExited = errors.New("process exited")

// Start runs the process, appending its output to Log. A process that
// ended may be started again (with the same flags).
func (p *Process) Start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		select {
		case <-p.done:
		default:
			return fmt.Errorf("%s is already running (pid %d)", p.Name, p.cmd.Process.Pid)
		}
	}
	log, err := os.OpenFile(p.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.Path, p.Args...)
	cmd.Stdout, cmd.Stderr = log, log
	if len(p.Env) > 0 {
		cmd.Env = append(os.Environ(), p.Env...)
	}
	if p.Detach {
		// The demo's stack outlives the command that started it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	} else {
		// A test binary killed by a timeout or a signal takes its servers with it.
		cmd.SysProcAttr = dieWithParent()
	}
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("start %s: %w", p.Name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	go func() {
		err := cmd.Wait()
		log.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	if p.Detach {
		return os.WriteFile(filepath.Join(filepath.Dir(p.Log), p.Name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
	}
	return nil
}

// Pid is the id of the process last started, or 0.
func (p *Process) Pid() int {
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Exited returns an error wrapping ErrExited, with the log's tail, when the
// process has ended; nil while it runs (or before it was started).
func (p *Process) Exited() error {
	p.mu.Lock()
	done, err := p.done, p.err
	p.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return fmt.Errorf("%w: %s (%v); last log lines:\n%s", ErrExited, p.Name, err, Tail(p.Log, 20))
	default:
		return nil
	}
}

// Alive reports whether the process was started and has not ended; when
// it ended, why (its exit status).
func (p *Process) Alive() (bool, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return false, "never started"
	}
	select {
	case <-p.done:
		return false, fmt.Sprintf("exited (%v)", p.err)
	default:
		return true, fmt.Sprintf("running (pid %d)", p.cmd.Process.Pid)
	}
}

// Kill sends SIGKILL (a crash: no shutdown code runs) and waits for the end.
func (p *Process) Kill() { p.signal(syscall.SIGKILL, 0) }

// Stop sends SIGTERM and kills the process after grace; it returns when the
// process has ended.
func (p *Process) Stop(grace time.Duration) { p.signal(syscall.SIGTERM, grace) }

func (p *Process) signal(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	select {
	case <-done:
		return
	default:
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat. It
// is 100 on every Linux architecture Go supports.
const clockTicks = 100

// Usage is what /proc says about a process.
type Usage struct {
	// CPUSeconds is user + system time since the process started.
	CPUSeconds float64 `json:"cpuSeconds"`
	// RSSMiB is the resident set now (VmRSS), PeakRSSMiB its high-water mark (VmHWM).
	RSSMiB     float64 `json:"rssMiB"`
	PeakRSSMiB float64 `json:"peakRssMiB"`
}

// Usage reads the running process's CPU time and memory from /proc.
func (p *Process) Usage() (Usage, error) {
	pid := p.Pid()
	if pid == 0 {
		return Usage{}, fmt.Errorf("%s: %w", p.Name, ErrExited)
	}
	return ProcUsage(pid)
}

// ProcUsage reads utime+stime from /proc/<pid>/stat and VmRSS, VmHWM from
// /proc/<pid>/status (Linux only).
func ProcUsage(pid int) (Usage, error) {
	var u Usage
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return u, err
	}
	// The command name (field 2) may hold spaces: fields are counted after its ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return u, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(stat[i+1:]))
	// After ')' come state (field 3) ... utime is field 14, stime 15.
	if len(f) < 13 {
		return u, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return u, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	u.CPUSeconds = float64(utime+stime) / clockTicks
	status, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return u, err
	}
	defer status.Close()
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 64)
		if err != nil {
			return u, fmt.Errorf("/proc/%d/status %s: %w", pid, key, err)
		}
		if key == "VmRSS" {
			u.RSSMiB = kb / 1024
		} else {
			u.PeakRSSMiB = kb / 1024
		}
	}
	return u, sc.Err()
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

// Grep returns the last max lines of a log file that match keep, each cut
// to width characters, and how many matched in all.
func Grep(file string, max, width int, keep func(line string) bool) (lines []string, matched int, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !keep(line) {
			continue
		}
		matched++
		if len(line) > width {
			line = line[:width] + " …"
		}
		lines = append(lines, line)
		if len(lines) > max {
			lines = lines[1:]
		}
	}
	return lines, matched, sc.Err()
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

// WaitFor polls check until it returns nil, the context ends or one of procs
// exits. Either failure quotes the processes' logs: an exit, the tail of the one
// that ended (Exited); a timeout, the tail of each, which says what they were
// doing instead.
func WaitFor(ctx context.Context, what string, check func(context.Context) error, procs ...*Process) error {
	var last error
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		for _, p := range procs {
			if err := p.Exited(); err != nil {
				return false, err
			}
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		last = check(cctx)
		return last == nil, nil
	})
	if wait.Interrupted(err) {
		var logs strings.Builder
		for _, p := range procs {
			fmt.Fprintf(&logs, "\n%s's log ends:\n%s", p.Name, Tail(p.Log, 10))
		}
		return fmt.Errorf("%s not ready: %w (last error: %v)%s", what, ctx.Err(), last, logs.String())
	}
	return err
}

// StartDetached starts a helper process of the local environment (the demo's
// emulator and operator) that outlives this one, logging to dir/<name>.log and
// leaving dir/<name>.pid for StopDir. The Process says, while this one runs,
// whether it exited (Exited, with its log's tail).
func StartDetached(dir, name, path string, args, env []string) (*Process, error) {
	p := &Process{Name: name, Path: path, Args: args, Log: filepath.Join(dir, name+".log"), Detach: true, Env: env}
	return p, p.Start()
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	ports, err := freePorts(1)
	if err != nil {
		return 0, err
	}
	return ports[0], nil
}
