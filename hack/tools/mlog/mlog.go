// Package mlog is the part of monis.app/mlog's API that the
// azure-workload-identity webhook (cmd/webhook, pkg/webhook) uses, over
// logr's funcr: one JSON line per entry on stderr. The proxy does not serve
// the real module, so hack/tools/build.sh replaces it with this one.
// Levels are mlog's: "" (warnings and errors), info, debug, trace, all.
package mlog

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

type LogLevel string

type LogFormat string

type LogSpec struct {
	Level  LogLevel  `json:"level,omitempty"`
	Format LogFormat `json:"format,omitempty"`
}

const (
	LevelWarning LogLevel = ""
	LevelInfo    LogLevel = "info"
	LevelDebug   LogLevel = "debug"
	LevelTrace   LogLevel = "trace"
	LevelAll     LogLevel = "all"

	FormatJSON LogFormat = "json"
)

// verbosity is mlog's klog level of each of its levels.
var verbosity = map[LogLevel]int{LevelWarning: 0, LevelInfo: 2, LevelDebug: 4, LevelTrace: 6, LevelAll: 108}

var (
	mu    sync.RWMutex
	level = LevelWarning
	root  = newRoot(0)
)

func newRoot(v int) logr.Logger {
	return funcr.NewJSON(func(obj string) { fmt.Fprintln(os.Stderr, obj) }, funcr.Options{LogTimestamp: true, Verbosity: v})
}

func current() logr.Logger { mu.RLock(); defer mu.RUnlock(); return root }

// ValidateAndSetLogLevelAndFormatGlobally sets the level of every logger;
// JSON is the only format.
func ValidateAndSetLogLevelAndFormatGlobally(_ context.Context, spec LogSpec) error {
	v, ok := verbosity[spec.Level]
	if !ok {
		return fmt.Errorf("invalid log level %q, valid choices are the empty string, info, debug, trace and all", spec.Level)
	}
	if spec.Format != "" && spec.Format != FormatJSON {
		return fmt.Errorf("invalid log format %q, valid choices are the empty string and json", spec.Format)
	}
	mu.Lock()
	defer mu.Unlock()
	level, root = spec.Level, newRoot(v)
	return nil
}

// Enabled reports whether entries at the level are written.
func Enabled(l LogLevel) bool {
	v, ok := verbosity[l]
	mu.RLock()
	defer mu.RUnlock()
	return ok && v <= verbosity[level]
}

// Logr is the global logger as a logr.Logger (for controller-runtime).
func Logr() logr.Logger { return current() }

// Setup returns the function to call before exiting (nothing to flush).
func Setup() func() { return func() {} }

// Fatal logs err and exits.
func Fatal(err error, kv ...any) { current().Error(err, "fatal error", kv...); os.Exit(1) }

// Logger is a named logger with values; it follows later level changes.
type Logger struct {
	names []string
	kv    []any
}

func New() Logger { return Logger{} }

func (l Logger) WithName(name string) Logger {
	return Logger{names: append(l.names[:len(l.names):len(l.names)], name), kv: l.kv}
}

func (l Logger) WithValues(kv ...any) Logger {
	return Logger{names: l.names, kv: append(l.kv[:len(l.kv):len(l.kv)], kv...)}
}

func (l Logger) logr() logr.Logger {
	lg := current()
	for _, n := range l.names {
		lg = lg.WithName(n)
	}
	return lg.WithValues(l.kv...)
}

func (l Logger) Error(msg string, err error, kv ...any) { l.logr().Error(err, msg, kv...) }
func (l Logger) Warning(msg string, kv ...any) {
	l.logr().V(verbosity[LevelWarning]).Info(msg, append([]any{"warning", true}, kv...)...)
}
func (l Logger) Info(msg string, kv ...any)  { l.logr().V(verbosity[LevelInfo]).Info(msg, kv...) }
func (l Logger) Debug(msg string, kv ...any) { l.logr().V(verbosity[LevelDebug]).Info(msg, kv...) }
