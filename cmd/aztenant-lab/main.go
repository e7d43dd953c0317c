// Command aztenant-lab is the project's demo and benchmark harness, not shipped to users:
// `demo up|down` runs the whole story on local processes (etcd and kube-apiserver, the
// Azure emulator, the operator), `bench` measures the operator as a process against the
// emulator, its last scenario the CRD footprint. It links the emulator, the control plane
// and the bench runner, which is why it is not cmd/aztenant, the CLI users install.
package main

import (
	"fmt"
	"os"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

func main() {
	// The lab's own clients (seeding the CRDs, the bench's informers) log
	// nothing worth reading, the processes' logs are in the demo's or bench's
	// directory; without a logger controller-runtime prints a stack trace to
	// the demo's output when a slow machine keeps it waiting.
	ctrllog.SetLogger(logr.Discard())
	root := &cobra.Command{
		Use:           "aztenant-lab",
		Short:         "aztenant's demo and benchmarks, on local processes (for the project, not shipped)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newDemoCommand(), newBenchCommand())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
