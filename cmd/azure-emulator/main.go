// Command azure-emulator runs the local Azure (Entra ID + ARM) of package emulator
// (emulator/, a product of its own) as a process, for the demo and end-to-end tests. It prints the URL and the CA file when ready
// and saves its state (when --state-file is set) on SIGINT or SIGTERM.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aztenant/aztenant/emulator"
)

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

type options struct {
	addr, caOut, stateFile, configFile string
	trustIssuers, trustJWKS, audiences listFlag
	hostnames                          listFlag
	trustCA, trustTokenFile            string
	answers                            string
	tenantID, subscriptionID           string
	platformClientID, platformSecret   string
	pollRetryAfter                     time.Duration
	principalReplication               time.Duration
	auditSize                          int
	logLevel                           string
	set                                map[string]bool // flags given on the command line
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "azure-emulator:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("azure-emulator", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), `Usage: azure-emulator [flags]

A local Azure for tests and demos: Entra ID (OpenID discovery, client credentials with client
secrets or workload identity federation) and Azure Resource Manager on one HTTPS port with
its own CA. Clients use the real Azure SDK with the authority host and ARM endpoint set to
the printed URL and an HTTP client trusting the printed CA file. The Control API lives under
<URL>/_emulator/ (see emulator/README.md).

Flags:
`)
		fs.PrintDefaults()
	}
	fs.StringVar(&o.addr, "addr", "127.0.0.1:8443", "listen `address` (host:port; port 0 picks a free port)")
	fs.StringVar(&o.caOut, "ca-out", "", "write the CA certificate (PEM) to this `file` (default: a file in the temp directory)")
	fs.StringVar(&o.stateFile, "state-file", "", "load state from this JSON `file` at start and save it on shutdown (keeps CA, signing key, directory and resources)")
	fs.StringVar(&o.configFile, "config", "", "JSON config `file` (emulator.Config: tenants, subscriptions, principals, trustedIssuers, roleAssignments, lro, faults ...)")
	fs.Var(&o.trustIssuers, "trust-issuer", "trust client assertions of this OIDC issuer `URL`; keys come from <URL>/.well-known/openid-configuration (repeatable)")
	fs.StringVar(&o.trustCA, "trust-issuer-ca", "", "CA bundle `file` for fetching --trust-issuer discovery and keys")
	fs.StringVar(&o.trustTokenFile, "trust-issuer-token-file", "", "bearer token `file` sent when fetching --trust-issuer discovery and keys")
	fs.Var(&o.trustJWKS, "trust-jwks", "trust an issuer through a literal JWKS: `ISSUER=FILE`, or just FILE for the single --trust-issuer (repeatable)")
	fs.Var(&o.audiences, "arm-audience", "token `audience` ARM accepts (repeatable; default https://management.core.windows.net/ and https://management.azure.com/)")
	fs.Var(&o.hostnames, "hostname", "extra DNS `name` or IP for the server certificate (repeatable)")
	fs.StringVar(&o.tenantID, "tenant-id", "", "seed a tenant with this `ID`")
	fs.StringVar(&o.subscriptionID, "subscription-id", "", "seed a subscription with this `ID` in --tenant-id")
	fs.StringVar(&o.platformClientID, "platform-client-id", "", "seed a platform principal with this client `ID` (Owner on --subscription-id)")
	fs.StringVar(&o.platformSecret, "platform-client-secret", "", "client `secret` of the platform principal")
	fs.DurationVar(&o.pollRetryAfter, "poll-retry-after", 0, "Retry-After sent with long-running-operation responses")
	fs.DurationVar(&o.principalReplication, "principal-replication", 5*time.Second, "how long a new managed identity's principal is not yet replicated: role assignments naming it without principalType get 400 PrincipalNotFound, as in Azure (0: off)")
	fs.StringVar(&o.answers, "answers", "examples", "how writes of the generated kinds are `answered`: examples (from Azure's documented examples, as Azure answers them) or echo (the request echoed back); overrides the config file's answerFromExamples")
	fs.IntVar(&o.auditSize, "audit-size", 10000, "entries kept in the audit ring buffer")
	fs.StringVar(&o.logLevel, "log-level", "info", "log `level`: debug, info, warn, error")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	o.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { o.set[f.Name] = true })
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %v", fs.Args())
	}
	return o, nil
}

// config merges the config file with the flags; flags win where both say something.
func (o *options) config() (emulator.Config, error) {
	var cfg emulator.Config
	if o.configFile != "" {
		c, err := emulator.LoadConfigFile(o.configFile)
		if err != nil {
			return cfg, err
		}
		cfg = c
	}
	if o.set["addr"] || cfg.Addr == "" {
		cfg.Addr = o.addr
	}
	if o.set["audit-size"] || cfg.AuditSize == 0 {
		cfg.AuditSize = o.auditSize
	}
	// The flag decides: a config file's answerFromExamples false is also its zero value.
	switch o.answers {
	case "examples":
		cfg.AnswerFromExamples = true
	case "echo":
		cfg.AnswerFromExamples = false
	default:
		return cfg, fmt.Errorf("--answers %q: want examples or echo", o.answers)
	}
	cfg.StateFile = firstNonEmpty(o.stateFile, cfg.StateFile)
	cfg.Hostnames = append(cfg.Hostnames, o.hostnames...)
	if len(o.audiences) > 0 {
		cfg.ARMAudiences = o.audiences
	}
	if o.principalReplication > 0 && cfg.PrincipalReplication == 0 {
		cfg.PrincipalReplication = emulator.Duration(o.principalReplication)
	}
	if o.pollRetryAfter > 0 {
		cfg.PollRetryAfter = emulator.Duration(o.pollRetryAfter)
	}
	cfg.CAFile = firstNonEmpty(o.caOut, cfg.CAFile, filepath.Join(os.TempDir(), "azure-emulator-ca.pem"))

	var caPEM, token string
	if o.trustCA != "" {
		b, err := os.ReadFile(o.trustCA)
		if err != nil {
			return cfg, err
		}
		caPEM = string(b)
	}
	if o.trustTokenFile != "" {
		b, err := os.ReadFile(o.trustTokenFile)
		if err != nil {
			return cfg, err
		}
		token = strings.TrimSpace(string(b))
	}
	literal := map[string]json.RawMessage{}
	for _, v := range o.trustJWKS {
		issuer, file, ok := strings.Cut(v, "=")
		if !ok || !strings.Contains(issuer, "://") {
			if len(o.trustIssuers) != 1 {
				return cfg, fmt.Errorf("--trust-jwks %s: give ISSUER=FILE, or exactly one --trust-issuer", v)
			}
			issuer, file = o.trustIssuers[0], v
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return cfg, err
		}
		literal[issuer] = b
	}
	for issuer, jwks := range literal {
		cfg.TrustedIssuers = append(cfg.TrustedIssuers, emulator.TrustedIssuer{Issuer: issuer, JWKS: jwks})
	}
	for _, issuer := range o.trustIssuers {
		if _, ok := literal[issuer]; ok {
			continue
		}
		cfg.TrustedIssuers = append(cfg.TrustedIssuers, emulator.TrustedIssuer{Issuer: issuer, CAPEM: caPEM, BearerToken: token})
	}

	if o.tenantID != "" {
		cfg.Tenants = append(cfg.Tenants, emulator.Tenant{ID: o.tenantID})
	}
	if o.subscriptionID != "" {
		if o.tenantID == "" {
			return cfg, errors.New("--subscription-id needs --tenant-id")
		}
		cfg.Subscriptions = append(cfg.Subscriptions, emulator.Subscription{ID: o.subscriptionID, TenantID: o.tenantID})
	}
	if o.platformClientID != "" {
		if o.tenantID == "" || o.platformSecret == "" {
			return cfg, errors.New("--platform-client-id needs --tenant-id and --platform-client-secret")
		}
		p := emulator.Principal{ClientID: o.platformClientID, TenantID: o.tenantID, DisplayName: "platform", ClientSecret: o.platformSecret}
		if o.subscriptionID != "" {
			p.Roles = []emulator.RoleAssignment{{Role: "Owner", Scope: "/subscriptions/" + o.subscriptionID}}
		}
		cfg.Principals = append(cfg.Principals, p)
	}
	return cfg, nil
}

func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

func run(args []string) error {
	o, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	emu, err := emulator.New(cfg)
	if err != nil {
		return err
	}
	if err := emu.Start(ctx); err != nil {
		return err
	}
	// Machine-readable lines first, so scripts can `eval` or grep them.
	fmt.Printf("AZURE_EMULATOR_URL=%s\nAZURE_EMULATOR_CA=%s\n", emu.URL(), cfg.CAFile)
	<-ctx.Done()
	cfg.Logger.Info("shutting down")
	if err := emu.Close(); err != nil {
		return err
	}
	if cfg.StateFile != "" {
		cfg.Logger.Info("state saved", "file", cfg.StateFile)
	}
	return nil
}
