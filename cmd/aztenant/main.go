// Command aztenant is the project's CLI: today the local demo; later whoami,
// onboard and policy test.
package main

import (
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
	}
	root.AddCommand(newDemoCommand(), newWhoamiCommand())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
