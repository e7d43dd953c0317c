package testenv

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

// logLines is how many of its last lines a FailureLog keeps.
const logLines = 400

// chatter is what controller-runtime says of each controller starting and stopping:
// hundreds of lines for an operator serving every kind, none of them the story.
var chatter = []string{"Starting EventSource", "Starting Controller", "Starting workers",
	"Shutdown signal received", "All workers finished", "Stopping and waiting"}

// FailureLog is a logger for an operator a test runs in its own process: its last lines
// are printed, with their times, only if the test fails, so a condition that never came
// has the operator's side of the story beside it (without controller-runtime's lines on
// each controller starting and stopping). Lines logged after the test ended
// (goroutines still stopping) are dropped, never written to a finished test.
func FailureLog(t testing.TB) logr.Logger {
	l := &failureLog{}
	t.Cleanup(func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if t.Failed() && len(l.lines) > 0 {
			t.Logf("the operator's last %d log lines:\n%s", len(l.lines), strings.Join(l.lines, "\n"))
		}
		l.lines, l.ended = nil, true
	})
	return funcr.New(l.write, funcr.Options{})
}

type failureLog struct {
	mu    sync.Mutex
	lines []string
	ended bool
}

func (l *failureLog) write(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ended || slices.ContainsFunc(chatter, func(c string) bool { return strings.Contains(args, `"msg"="`+c) }) {
		return
	}
	if len(l.lines) == logLines {
		l.lines = l.lines[1:]
	}
	l.lines = append(l.lines, fmt.Sprintf("%s %s %s", time.Now().Format("15:04:05.000"), prefix, args))
}
