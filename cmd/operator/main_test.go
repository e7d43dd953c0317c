package main

import (
	"bytes"
	"flag"
	"strings"
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

// A burst of one message (a namespace's denials, every controller starting)
// is logged whole: controller-runtime's production logger keeps 100 lines
// a second of a message, then every 100th.
func TestLoggerKeepsBursts(t *testing.T) {
	var buf bytes.Buffer
	lvl := zap.Options{DestWriter: &buf}
	zfs := flag.NewFlagSet("zap", flag.ContinueOnError)
	lvl.BindFlags(zfs)
	if err := zfs.Parse([]string{"--zap-log-level=info"}); err != nil {
		t.Fatal(err)
	}
	log := newLogger(&lvl)
	for i := range 500 {
		log.Info("denied", "n", i)
	}
	log.V(1).Info("a debug line")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 500 {
		t.Fatalf("%d of 500 lines logged", len(lines))
	}
	if !strings.Contains(lines[0], `"msg":"denied"`) || !strings.Contains(lines[0], `"ts":"`) || !strings.Contains(lines[0], `"level":"info"`) {
		t.Errorf("line %q is not the JSON controller-runtime writes", lines[0])
	}
}

// --shards: off at 0 and 1; with N > 1 it refuses --leader-elect,
// onboarding and more than 64 shards, and takes the identity and the
// leases' namespace from the downward API.
func TestCheckShards(t *testing.T) {
	t.Setenv("POD_NAME", "aztenant-5d8f7-x2p")
	t.Setenv("POD_NAMESPACE", "aztenant-system")
	for _, n := range []int{0, 1} {
		if on, err := checkShards(&options{shards: n}); on || err != nil {
			t.Errorf("--shards=%d: sharded %v, %v", n, on, err)
		}
	}
	o := options{shards: 3, shardLeasePrefix: "aztenant"}
	if on, err := checkShards(&o); !on || err != nil || o.shardIdentity != "aztenant-5d8f7-x2p" || o.leaderElectionNS != "aztenant-system" {
		t.Errorf("--shards=3: sharded %v, %v, identity %q, namespace %q", on, err, o.shardIdentity, o.leaderElectionNS)
	}
	for name, o := range map[string]options{
		"leader-elect":    {shards: 3, leaderElect: true, shardLeasePrefix: "aztenant"},
		"onboarding":      {shards: 3, platformIdentity: "aztenant-system/platform", shardLeasePrefix: "aztenant"},
		"too many":        {shards: 65, shardLeasePrefix: "aztenant"},
		"bad lease names": {shards: 2, shardLeasePrefix: "Az_"},
	} {
		if _, err := checkShards(&o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
