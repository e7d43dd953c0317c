// Command aztenant is the project's CLI: the local demo, whoami, policy test, onboard,
// convert and the benchmarks.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	root := &cobra.Command{
		Use:           "aztenant",
		Short:         "Multi-tenant Azure resources from Kubernetes, each namespace with its own identity",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildVersion(),
	}
	root.AddCommand(newDemoCommand(), newWhoamiCommand(), newPolicyCommand(), newOnboardCommand(), newPlanCommand(), newImportCommand(), newConvertCommand(), newBenchCommand())
	if err := root.Execute(); err != nil {
		var code exitCode
		if errors.As(err, &code) {
			os.Exit(int(code)) // the answer is printed
		}
		if !errors.Is(err, errViolations) {
			fmt.Fprintln(os.Stderr, "error:", err)
		}
		os.Exit(1)
	}
}
