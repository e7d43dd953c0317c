package main

import "runtime/debug"

// version is the release this binary was built as. make image and make dist
// set it with -ldflags "-X main.version=..." (hack/image computes it from git);
// a plain go build leaves it empty.
var version string

// buildVersion is version, or else what the Go toolchain recorded of the main
// module ("(devel)" when nothing was), so a binary can always say what it is.
func buildVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return "unknown"
}
