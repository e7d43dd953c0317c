package main

import (
	"flag"
	"testing"

	"github.com/spf13/pflag"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

func TestLogLevelFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want zapcore.Level
	}{
		{nil, zapcore.InfoLevel},
		{[]string{"--log-level=debug"}, zapcore.DebugLevel},
		{[]string{"--log-level=error"}, zapcore.ErrorLevel},
		{[]string{"--zap-log-level=debug"}, zapcore.DebugLevel},
		{[]string{"--zap-log-level=error", "--log-level=info"}, zapcore.InfoLevel},
	} {
		fs := pflag.NewFlagSet("operator", pflag.ContinueOnError)
		level := fs.String("log-level", "info", "")
		zopts := zap.Options{}
		zfs := flag.NewFlagSet("zap", flag.ContinueOnError)
		zopts.BindFlags(zfs)
		fs.AddGoFlagSet(zfs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := applyLogLevel(fs, *level); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if !zopts.Level.Enabled(c.want) || (c.want > zapcore.DebugLevel && zopts.Level.Enabled(c.want-1)) {
			t.Errorf("%v: level %v, want %v", c.args, zopts.Level, c.want)
		}
	}
	fs := pflag.NewFlagSet("operator", pflag.ContinueOnError)
	if err := applyLogLevel(fs, "verbose"); err == nil {
		t.Error("--log-level=verbose accepted")
	}
}
