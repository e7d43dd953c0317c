// Command aztenant is the CLI a developer or platform engineer installs: whoami, policy
// test and vap, onboard, plan, import, convert and version. The demo and the benchmarks
// are cmd/aztenant-lab's, so this binary links no emulator, control plane or test harness.
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
	root.AddCommand(newWhoamiCommand(), newPolicyCommand(), newOnboardCommand(), newPlanCommand(), newImportCommand(), newConvertCommand())
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
