package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aztenant/aztenant/internal/controlplane"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat. It
// is 100 on every Linux architecture Go supports.
const clockTicks = 100

// Process is a child process with its log file. It dies with this process
// (Pdeathsig), so an interrupted benchmark or test leaves nothing behind.
type Process struct {
	Name string
	Path string
	Args []string
	Env  []string
	Log  string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// ErrExited says the process is no longer running.
var ErrExited = errors.New("process exited")

// Start runs the process, appending its output to Log.
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
	cmd.Env = append(os.Environ(), p.Env...)
	cmd.SysProcAttr = dieWithParent()
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
	return nil
}

// Pid is the running process's id, or 0.
func (p *Process) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// Exited returns an error with the log's tail when the process has ended.
func (p *Process) Exited() error {
	p.mu.Lock()
	done, err := p.done, p.err
	p.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return fmt.Errorf("%w: %s (%v); last log lines:\n%s", ErrExited, p.Name, err, Tail(p.Log, 15))
	default:
		return nil
	}
}

// Kill sends SIGKILL (a crash: no shutdown code runs) and waits for the end.
func (p *Process) Kill() { p.signal(syscall.SIGKILL, 0) }

// Stop sends SIGTERM and kills the process after grace.
func (p *Process) Stop(grace time.Duration) { p.signal(syscall.SIGTERM, grace) }

func (p *Process) signal(sig syscall.Signal, grace time.Duration) {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
}

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
// /proc/<pid>/status.
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

// Tail returns the last lines of a log file.
func Tail(file string, lines int) string { return controlplane.Tail(file, lines) }

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
