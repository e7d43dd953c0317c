// Package crdinstall installs and upgrades the operator's own
// CustomResourceDefinitions, those embedded in the binary (api.CRDs), as
// Azure Service Operator does: a pattern of groups and kinds (the chart's
// crds.pattern, the operator's --crd-pattern) selects which Azure kinds a
// cluster has, and the operator applies exactly those at start.
//
// Why the operator and not Helm: with some 300 kinds the CRDs are about
// 9 MB, and a Helm release that carries them is over the API server's
// 3 MiB request limit. The operator creates or updates them a few at a time
// (its own field manager), skips each one whose recorded digest is
// unchanged, never downgrades one a newer operator wrote, and never
// deletes one: deleting a CRD deletes every object of its kind.
package crdinstall
