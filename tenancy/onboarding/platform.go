package onboarding

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	identityv1alpha1 "github.com/aztenant/aztenant/api/identity/v1alpha1"
	"github.com/aztenant/aztenant/identity"
)

// ParsePlatformIdentity parses the --platform-identity flag, namespace/name.
func ParsePlatformIdentity(s string) (types.NamespacedName, error) {
	if s == "" {
		return types.NamespacedName{}, nil
	}
	ns, name, ok := strings.Cut(s, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return types.NamespacedName{}, fmt.Errorf("%q is not namespace/name of an Identity", s)
	}
	return types.NamespacedName{Namespace: ns, Name: name}, nil
}

// platformCredential resolves the platform Identity (read uncached: the
// operator's namespace need not be in the cache) into a credential.
func (r *Reconciler) platformCredential(ctx context.Context) (azcore.TokenCredential, error) {
	var id identityv1alpha1.Identity
	if err := r.APIReader.Get(ctx, r.Platform, &id); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, &StepError{Reason: ReasonPlatformIdentityMissing, Err: err, Message: fmt.Sprintf(
				"the platform Identity %s (operator flag --platform-identity) does not exist: create it for a ServiceAccount federated with a principal that has Contributor and User Access Administrator on the subscription", r.Platform)}
		}
		return nil, fmt.Errorf("read platform Identity %s: %w", r.Platform, err)
	}
	res, err := identity.ResolveIdentity(ctx, r.APIReader, &id)
	if err != nil {
		if identity.ReasonOf(err) == "" {
			return nil, err
		}
		return nil, &StepError{Reason: ReasonPlatformIdentityMissing, Err: err, Message: "platform Identity: " + err.Error()}
	}
	return r.Credentials.For(res)
}

// IssuerFromAPIServer returns a function reading the cluster's service-account
// issuer from the API server's OpenID discovery document, once it succeeds.
func IssuerFromAPIServer(cfg *rest.Config) (func(context.Context) (string, error), error) {
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	url := strings.TrimSuffix(cfg.Host, "/") + "/.well-known/openid-configuration"
	var (
		mu     sync.Mutex
		issuer string
	)
	return func(ctx context.Context) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		if issuer != "" {
			return issuer, nil
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return "", err
		}
		resp, err := hc.Do(req)
		if err != nil {
			return "", fmt.Errorf("read the cluster's issuer from %s: %w", url, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if resp.StatusCode != http.StatusOK {
			return "", fmt.Errorf("read the cluster's issuer from %s: HTTP %d", url, resp.StatusCode)
		}
		var doc struct {
			Issuer string `json:"issuer"`
		}
		if err := json.Unmarshal(body, &doc); err != nil || !strings.HasPrefix(doc.Issuer, "https://") {
			return "", fmt.Errorf("read the cluster's issuer from %s: no https issuer in the discovery document", url)
		}
		issuer = doc.Issuer
		return issuer, nil
	}, nil
}

// StaticIssuer returns the issuer given by flag.
func StaticIssuer(issuer string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) { return issuer, nil }
}

// EnsurePlatformIdentity creates the platform Identity from the operator's
// flags, or brings its spec back to them. The Helm chart cannot create it:
// its kind is a CRD the same release installs, which Helm cannot map until
// it is established.
func EnsurePlatformIdentity(ctx context.Context, c client.Client, name types.NamespacedName, spec identityv1alpha1.IdentitySpec) error {
	if spec.ServiceAccountName == "" || spec.ClientID == "" || spec.TenantID == "" || spec.SubscriptionID == "" {
		return fmt.Errorf("platform Identity %s: the ServiceAccount, client ID, tenant ID and subscription ID are all needed", name)
	}
	var id identityv1alpha1.Identity
	err := c.Get(ctx, name, &id)
	switch {
	case apierrors.IsNotFound(err):
		id = identityv1alpha1.Identity{ObjectMeta: metav1.ObjectMeta{Name: name.Name, Namespace: name.Namespace}, Spec: spec}
		if err := c.Create(ctx, &id); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create platform Identity %s: %w", name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("read platform Identity %s: %w", name, err)
	case equality.Semantic.DeepEqual(id.Spec, spec):
		return nil
	}
	base := id.DeepCopy()
	id.Spec = spec
	if err := c.Patch(ctx, &id, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("update platform Identity %s: %w", name, err)
	}
	return nil
}
