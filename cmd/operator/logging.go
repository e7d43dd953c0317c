package main

import (
	"os"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	uberzap "go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// newLogger is controller-runtime's zap logger as the --zap-* flags set it,
// without the sampling its production mode adds (100 lines a second of one
// message, then every 100th): the operator logs a line per decision, and a
// burst of them (a namespace's denials, a fleet's deletions, 300 controllers
// starting) must be logged whole. Development mode samples nothing already.
func newLogger(o *zap.Options) logr.Logger {
	if o.Development {
		return zap.New(zap.UseFlagOptions(o))
	}
	var level zapcore.LevelEnabler = zapcore.InfoLevel
	if o.Level != nil {
		level = o.Level
	}
	var stack zapcore.LevelEnabler = zapcore.ErrorLevel
	if o.StacktraceLevel != nil {
		stack = o.StacktraceLevel
	}
	dest := o.DestWriter
	if dest == nil {
		dest = os.Stderr
	}
	timeEncoder := o.TimeEncoder
	if timeEncoder == nil {
		timeEncoder = zapcore.RFC3339TimeEncoder
	}
	cfgOpts := append([]zap.EncoderConfigOption{func(c *zapcore.EncoderConfig) { c.EncodeTime = timeEncoder }}, o.EncoderConfigOptions...)
	enc := o.Encoder
	if enc == nil && o.NewEncoder != nil {
		enc = o.NewEncoder(cfgOpts...)
	}
	if enc == nil {
		cfg := uberzap.NewProductionEncoderConfig()
		for _, f := range cfgOpts {
			f(&cfg)
		}
		enc = zapcore.NewJSONEncoder(cfg)
	}
	sink := zapcore.AddSync(dest)
	core := zapcore.NewCore(&zap.KubeAwareEncoder{Encoder: enc}, sink, level)
	opts := append([]uberzap.Option{uberzap.AddStacktrace(stack), uberzap.ErrorOutput(sink)}, o.ZapOpts...)
	return zapr.NewLogger(uberzap.New(core, opts...))
}
