package emulator

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/aztenant/aztenant/emulator/entra"
	"github.com/aztenant/aztenant/emulator/jwks"
)

// Duration is a time.Duration that reads and writes JSON as "150ms" or "2s" (or a number of
// nanoseconds), so config files and the Control API stay readable.
type Duration time.Duration

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON accepts a Go duration string or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return err
		}
		*d = Duration(v)
		return nil
	}
	var n int64
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("duration: want a string like \"1s\" or nanoseconds: %w", err)
	}
	*d = Duration(n)
	return nil
}

// Config configures an Emulator. The zero value works: it listens on 127.0.0.1 on a free
// port with nothing seeded.
type Config struct {
	// Addr is the listen address; "127.0.0.1:0" when empty.
	Addr string `json:"addr,omitempty"`
	// Hostnames are extra DNS names or IPs for the server certificate (127.0.0.1, ::1 and
	// localhost are always present).
	Hostnames []string `json:"hostnames,omitempty"`
	// CAFile, when set, receives the CA certificate (PEM) at Start so other processes can
	// trust the emulator.
	CAFile string `json:"caFile,omitempty"`
	// StateFile, when set, is loaded by New if it exists and written by Close. It also keeps
	// the CA and the token signing key so clients survive a restart.
	StateFile string `json:"stateFile,omitempty"`
	// ARMAudiences are the token audiences ARM accepts (trailing slashes ignored). Default:
	// https://management.core.windows.net/ and https://management.azure.com/.
	ARMAudiences []string `json:"armAudiences,omitempty"`
	// AuditSize bounds the audit ring buffer; 10000 when zero.
	AuditSize int `json:"auditSize,omitempty"`
	// PollRetryAfter is the Retry-After sent with long-running-operation responses; zero
	// makes clients use their own poll frequency (fast tests).
	PollRetryAfter Duration `json:"pollRetryAfter,omitempty"`
	// PrincipalReplication is how long after a managed identity is created
	// that a role assignment naming its principal without principalType is
	// refused with 400 PrincipalNotFound, as Entra's directory replication
	// makes Azure answer (zero: not at all).
	PrincipalReplication Duration `json:"principalReplication,omitempty"`
	// ListPageSize is how many items a list answers before its nextLink
	// (default 1000, as ARM's resource lists; $top asks for fewer).
	ListPageSize int `json:"listPageSize,omitempty"`
	// FICWriteSettle is how long after a federated identity credential is written
	// that another credential of the same managed identity cannot be written: Azure
	// refuses concurrent credential writes under one identity with 409
	// ConcurrentFederatedIdentityCredentialsWritesForSingleManagedIdentity. 100ms when
	// zero; negative turns the check off.
	FICWriteSettle Duration `json:"ficWriteSettle,omitempty"`
	// TokenLifetime of issued access tokens; one hour when zero.
	TokenLifetime Duration `json:"tokenLifetime,omitempty"`
	// LRO overrides the long-running-operation style per resource type (case-insensitive
	// full type such as "Microsoft.Storage/storageAccounts").
	LRO map[string]LROConfig `json:"lro,omitempty"`
	// Faults are active from the start.
	Faults Faults `json:"faults,omitempty"`
	// Answers are answer transforms active from the start (SetAnswerTransforms).
	Answers []AnswerTransform `json:"answers,omitempty"`
	// AnswerFromExamples answers writes of the generated kinds from Azure's documented
	// examples (defaults added, write-only values dropped, cited rewrites; README.md
	// "Azure's answers", answers/README.md per kind) instead of echoing them
	// (SetAnswerFromExamples). Off in a Config of its own (the emulator's unit tests
	// answer what they send); on in the azure-emulator binary (--answers), in
	// stacktest's stacks (AZTENANT_EMULATOR_ANSWERS), the demo and the bench.
	AnswerFromExamples bool `json:"answerFromExamples,omitempty"`
	// PerturbWrites, when set, answers every write of a generated kind through Perturb
	// too (SetPerturbWrites).
	PerturbWrites *PerturbWrites `json:"perturbWrites,omitempty"`
	// Seed is applied at New, after any state file was loaded.
	Seed
	// SigningKeyPEM is an optional RSA private key (PKCS#1 or PKCS#8 PEM) for access
	// tokens; a fresh key is generated when empty and no state file holds one.
	SigningKeyPEM string `json:"signingKeyPEM,omitempty"`
	// Logger receives operational messages; nothing is logged when nil. Assertions, secrets
	// and tokens are never logged.
	Logger *slog.Logger `json:"-"`
}

// Seed is directory and authorization state to add. Applying the same Seed twice is harmless.
type Seed struct {
	Tenants         []Tenant         `json:"tenants,omitempty"`
	Subscriptions   []Subscription   `json:"subscriptions,omitempty"`
	Principals      []Principal      `json:"principals,omitempty"`
	TrustedIssuers  []TrustedIssuer  `json:"trustedIssuers,omitempty"`
	RoleAssignments []RoleAssignment `json:"roleAssignments,omitempty"`
}

// Tenant is an Entra ID tenant (directory).
type Tenant struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName,omitempty"`
}

// Subscription belongs to a tenant; resource groups live in it.
type Subscription struct {
	ID          string `json:"id"`
	TenantID    string `json:"tenantId"`
	DisplayName string `json:"displayName,omitempty"`
}

// Principal is an app registration (service principal) that can authenticate with a client
// secret and/or federated identity credentials. User-assigned managed identities are not
// seeded this way: create them through ARM and they become principals automatically.
type Principal struct {
	ClientID     string `json:"clientId"`
	ObjectID     string `json:"objectId,omitempty"` // generated when empty
	TenantID     string `json:"tenantId"`
	DisplayName  string `json:"displayName,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// FederatedCredentials are the app registration's federated identity credentials.
	FederatedCredentials []FederatedCredential `json:"federatedCredentials,omitempty"`
	// Roles are role assignments for this principal, a shortcut for RoleAssignments.
	Roles []RoleAssignment `json:"roles,omitempty"`
}

// FederatedCredential trusts tokens of Issuer for Subject with one of Audiences (package
// entra matches them).
type FederatedCredential = entra.FederatedCredential

// TrustedIssuer is an external OIDC issuer whose signed tokens may be presented as client
// assertions (package jwks fetches and caches its keys).
type TrustedIssuer = jwks.TrustedIssuer

// RoleAssignment grants Role (a built-in role name such as "Contributor" or a role
// definition GUID/ID) to PrincipalID (object ID) at Scope (an ARM ID).
type RoleAssignment struct {
	Name        string `json:"name,omitempty"` // GUID; derived from the other fields when empty
	PrincipalID string `json:"principalId,omitempty"`
	Role        string `json:"role"`
	Scope       string `json:"scope"`
}

// LROStyle is how a resource type answers writes and deletes.
type LROStyle string

const (
	// LROSync answers 200/201 (deletes 200/204) with the final state.
	LROSync LROStyle = "sync"
	// LROAsyncOperation answers 201/202 with an Azure-AsyncOperation header to poll for
	// {"status":"InProgress|Succeeded|Failed"}.
	LROAsyncOperation LROStyle = "azure-async-operation"
	// LROLocation answers 202 with a Location header that answers 202 until done, then 200
	// with the resource (writes) or 204 (deletes).
	LROLocation LROStyle = "location"
	// LROProvisioningState answers 201 with a non-terminal properties.provisioningState;
	// the client polls the resource itself. For deletes it behaves like LROLocation.
	LROProvisioningState LROStyle = "provisioning-state"
	// LROAsyncOperationLocation answers like LROAsyncOperation with a Location header
	// too, as Redis and PostgreSQL flexible servers do; clients poll Azure-AsyncOperation.
	LROAsyncOperationLocation LROStyle = "azure-async-operation+location"
)

// LROConfig is the long-running-operation behaviour of one resource type.
type LROConfig struct {
	Write LROStyle `json:"write,omitempty"`
	// Update, when set, is how writes to an existing resource answer (a storage
	// account's create is long-running, its update answers 200 with the body).
	Update LROStyle `json:"update,omitempty"`
	// CreateStatus is the status of a long-running create (default 201; 202
	// answers with no body).
	CreateStatus int      `json:"createStatus,omitempty"`
	Delete       LROStyle `json:"delete,omitempty"`
	// Duration is how long an operation stays in progress; zero means it completes at the
	// first poll.
	Duration Duration `json:"duration,omitempty"`
}

// LoadConfigFile reads a JSON Config. Relative file paths inside stay as written.
func LoadConfigFile(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return c, fmt.Errorf("config %s: %w", path, err)
	}
	return c, nil
}
