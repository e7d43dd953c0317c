package identity

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"
)

// CloudFlags are the command-line settings of a Cloud, shared by the operator
// and the CLI so both talk to the same Azure.
type CloudFlags struct {
	Name          string
	AuthorityHost string
	ARMEndpoint   string
	ARMAudience   string
	CABundleFile  string
}

// Bind registers the flags.
func (f *CloudFlags) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.Name, "azure-cloud", "AzurePublicCloud", "Azure cloud: AzurePublicCloud, AzureUSGovernment or AzureChinaCloud; the endpoint flags override it")
	fs.StringVar(&f.AuthorityHost, "azure-authority-host", "", "Entra ID authority host URL (for example the local emulator's URL)")
	fs.StringVar(&f.ARMEndpoint, "azure-arm-endpoint", "", "Azure Resource Manager endpoint URL")
	fs.StringVar(&f.ARMAudience, "azure-arm-audience", "", "token audience for Azure Resource Manager")
	fs.StringVar(&f.CABundleFile, "azure-ca-bundle", "", "PEM file of extra CA certificates to trust for Entra ID and ARM")
}

// Cloud resolves the flags into a Cloud.
func (f *CloudFlags) Cloud() (Cloud, error) {
	c, err := KnownCloud(f.Name)
	if err != nil {
		return c, err
	}
	if f.AuthorityHost != "" {
		c.AuthorityHost = f.AuthorityHost
	}
	if f.ARMEndpoint != "" {
		c.ARMEndpoint = f.ARMEndpoint
	}
	if f.ARMAudience != "" {
		c.ARMAudience = f.ARMAudience
	}
	if f.CABundleFile != "" {
		if c.CABundle, err = os.ReadFile(f.CABundleFile); err != nil {
			return c, fmt.Errorf("--azure-ca-bundle: %w", err)
		}
	}
	return c, nil
}
