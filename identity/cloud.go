package identity

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
)

// Cloud says where Entra ID and ARM are: public Azure, a sovereign cloud, or
// the local emulator. One operator binary serves all of them.
type Cloud struct {
	// AuthorityHost is Entra ID's base URL, e.g. https://login.microsoftonline.com/.
	AuthorityHost string
	// ARMEndpoint is Resource Manager's base URL, e.g. https://management.azure.com.
	ARMEndpoint string
	// ARMAudience is the token audience for ARM, e.g. https://management.core.windows.net/.
	ARMAudience string
	// CABundle is extra PEM roots to trust (the emulator's CA); empty uses the
	// system roots only.
	CABundle []byte
}

// KnownCloud returns the settings of a named Azure cloud: AzurePublicCloud,
// AzureUSGovernment or AzureChinaCloud.
func KnownCloud(name string) (Cloud, error) {
	var c cloud.Configuration
	switch strings.ToLower(name) {
	case "", "azurepubliccloud", "public":
		c = cloud.AzurePublic
	case "azureusgovernment", "azureusgovernmentcloud", "usgovernment":
		c = cloud.AzureGovernment
	case "azurechinacloud", "china":
		c = cloud.AzureChina
	default:
		return Cloud{}, errors.New("unknown cloud " + name + ": use AzurePublicCloud, AzureUSGovernment or AzureChinaCloud, or set the endpoints explicitly")
	}
	arm := c.Services[cloud.ResourceManager]
	return Cloud{AuthorityHost: c.ActiveDirectoryAuthorityHost, ARMEndpoint: arm.Endpoint, ARMAudience: arm.Audience}, nil
}

// ARMScope is the OAuth scope of a token for ARM, spelled exactly as the ARM
// pipeline asks for it (audience + "/.default", so the public cloud's is
// "https://management.core.windows.net//.default"): azidentity caches tokens
// by scope string, and the Identity check then shares the ARM clients' token
// instead of causing a second exchange.
func (c Cloud) ARMScope() string {
	return c.ARMAudience + "/.default"
}

// ClientOptions returns azcore options for this cloud, with one shared HTTP
// transport (connection reuse across all identities) trusting CABundle.
func (c Cloud) ClientOptions() (azcore.ClientOptions, error) {
	opts := azcore.ClientOptions{Cloud: cloud.Configuration{
		ActiveDirectoryAuthorityHost: c.AuthorityHost,
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: c.ARMEndpoint, Audience: c.ARMAudience},
		},
	}}
	if len(c.CABundle) > 0 {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(c.CABundle) {
			return opts, errors.New("the CA bundle holds no PEM certificate")
		}
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
		tr.MaxIdleConnsPerHost = 64
		opts.Transport = &http.Client{Transport: tr, Timeout: 2 * time.Minute}
	}
	return opts, nil
}
