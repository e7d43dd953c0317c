package kinds

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	azurev1alpha1 "github.com/aztenant/aztenant/api/azure/v1alpha1"
	dbforpostgresqlv1alpha1 "github.com/aztenant/aztenant/api/dbforpostgresql/v1alpha1"
	resourcesv1alpha1 "github.com/aztenant/aztenant/api/resources/v1alpha1"
	"github.com/aztenant/aztenant/reconcilers"
)

// FlexibleServer adapts Microsoft.DBforPostgreSQL/flexibleServers. The
// administrator password comes from a Secret of the namespace; ARM never
// returns it, so it is sent with every write and never compared: the
// reconciler keeps a keyed digest of it in status.writeOnlyHash and writes
// again when the Secret's value changes.
type FlexibleServer struct{}

var _ reconcilers.Kind = FlexibleServer{}

// flexibleServerPassword is the Resolve key of the administrator password.
const flexibleServerPassword = "administratorLoginPassword"

func (FlexibleServer) New() azurev1alpha1.Resource { return &dbforpostgresqlv1alpha1.FlexibleServer{} }
func (FlexibleServer) Facts() reconcilers.Facts {
	return reconcilers.Facts{
		ResourceType: "Microsoft.DBforPostgreSQL/flexibleServers",
		APIVersion:   "2024-08-01",
		OwnerKind:    resourcesv1alpha1.ResourceGroupGroupKind,
		WriteOnly:    []string{"properties.administratorLoginPassword"},
	}
}
func (k FlexibleServer) Hooks() reconcilers.Hooks {
	return reconcilers.Hooks{
		Location: func(obj azurev1alpha1.Resource) string {
			return armLocation(obj.(*dbforpostgresqlv1alpha1.FlexibleServer).Spec.Location)
		},
		Resolve:               k.resolve,
		References:            k.references,
		ConfigMapDestinations: k.configMapDestinations,
		ConfigMapValues:       k.configMapValues,
	}
}

// references names the password's Secret, so rotating it writes the new
// password at once.
func (FlexibleServer) references(obj azurev1alpha1.Resource) []reconcilers.Reference {
	if ref := obj.(*dbforpostgresqlv1alpha1.FlexibleServer).Spec.AdministratorLoginPassword; ref != nil {
		return []reconcilers.Reference{{Kind: reconcilers.ReferenceSecret, Name: ref.Name}}
	}
	return nil
}

// resolve reads the administrator password from its Secret.
func (FlexibleServer) resolve(ctx context.Context, c client.Reader, obj azurev1alpha1.Resource) (map[string]string, error) {
	fs := obj.(*dbforpostgresqlv1alpha1.FlexibleServer)
	ref := fs.Spec.AdministratorLoginPassword
	if ref == nil {
		return nil, nil
	}
	var sec corev1.Secret
	if err := c.Get(ctx, client.ObjectKey{Namespace: fs.Namespace, Name: ref.Name}, &sec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("administratorLoginPassword: Secret %q does not exist in this namespace", ref.Name)
		}
		return nil, fmt.Errorf("administratorLoginPassword: reading Secret %q: %w", ref.Name, err)
	}
	v, ok := sec.Data[ref.Key]
	if !ok || len(v) == 0 {
		return nil, fmt.Errorf("administratorLoginPassword: Secret %q has no key %q", ref.Name, ref.Key)
	}
	return map[string]string{flexibleServerPassword: string(v)}, nil
}

// Desired sends the password resolve read (none before it is read).
func (FlexibleServer) Desired(obj azurev1alpha1.Resource, resolved map[string]string) (map[string]any, error) {
	sp := obj.(*dbforpostgresqlv1alpha1.FlexibleServer).Spec
	props := map[string]any{"version": sp.Version}
	if s := sp.Storage; s != nil {
		st := map[string]any{}
		putInt(st, "storageSizeGB", s.StorageSizeGB)
		putStr(st, "autoGrow", s.AutoGrow)
		putObj(props, "storage", st)
	}
	putStr(props, "administratorLogin", sp.AdministratorLogin)
	putStr(props, "administratorLoginPassword", resolved[flexibleServerPassword])
	if n := sp.Network; n != nil {
		net := map[string]any{}
		putStr(net, "publicNetworkAccess", n.PublicNetworkAccess)
		putObj(props, "network", net)
	}
	if ha := sp.HighAvailability; ha != nil {
		h := map[string]any{}
		putStr(h, "mode", ha.Mode)
		putStr(h, "standbyAvailabilityZone", ha.StandbyAvailabilityZone)
		putObj(props, "highAvailability", h)
	}
	if b := sp.Backup; b != nil {
		bk := map[string]any{}
		putInt(bk, "backupRetentionDays", b.BackupRetentionDays)
		putStr(bk, "geoRedundantBackup", b.GeoRedundantBackup)
		putObj(props, "backup", bk)
	}
	putStr(props, "availabilityZone", sp.AvailabilityZone)
	return map[string]any{
		"location":   armLocation(sp.Location),
		"tags":       putTags(sp.Tags),
		"sku":        map[string]any{"name": sp.Sku.Name, "tier": sp.Sku.Tier},
		"properties": props,
	}, nil
}

func (FlexibleServer) Observe(obj azurev1alpha1.Resource, actual map[string]any) {
	fs := obj.(*dbforpostgresqlv1alpha1.FlexibleServer)
	p := propsOf(actual)
	fs.Status.FullyQualifiedDomainName = strOf(p, "fullyQualifiedDomainName")
	fs.Status.State = strOf(p, "state")
	fs.Status.MinorVersion = strOf(p, "minorVersion")
}

func (FlexibleServer) configMapDestinations(obj azurev1alpha1.Resource) map[string]*azurev1alpha1.ConfigMapDestination {
	os := obj.(*dbforpostgresqlv1alpha1.FlexibleServer).Spec.OperatorSpec
	if os == nil || os.ConfigMaps == nil {
		return nil
	}
	return map[string]*azurev1alpha1.ConfigMapDestination{"fullyQualifiedDomainName": os.ConfigMaps.FullyQualifiedDomainName}
}

func (FlexibleServer) configMapValues(obj azurev1alpha1.Resource) map[string]string {
	return map[string]string{"fullyQualifiedDomainName": obj.(*dbforpostgresqlv1alpha1.FlexibleServer).Status.FullyQualifiedDomainName}
}
