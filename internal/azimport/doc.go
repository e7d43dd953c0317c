// Package azimport turns resources that exist in Azure into aztenant manifests,
// for `aztenant import`: a resource group with everything in it (children and
// role assignments included) or single ARM IDs, each read with its kind's
// api-version and written as an object of that kind, owners linked by name and
// annotated aztenant.io/adopt: "true", so that applying them takes the resources
// over without changing them. No secret is copied: Azure does not return
// write-only values, and a spec field that needs one is reported. A resource no
// aztenant kind covers is reported, never skipped silently.
//
// Azure's answers are taken as Azure gives them: any value may be null, absent,
// or of another JSON type than its documentation says (a number as a string, an
// enum as an integer, a location by display name). Each value is fitted to what
// the kind's CRD schema takes (fit.go); one that cannot be, without guessing, is
// reported with its path in the spec and left out, and the rest of the resource
// is imported.
package azimport
