// Package emit writes aztenant's generated kinds from the reader's models (package model):
// per kind the API types (api/<group>/v1alpha1/zz_generated_<kind>.go), the adapter on
// reconcilers.Kind (reconcilers/kinds/zz_generated_<kind>.go) and a sample manifest
// (examples/generated/<group>/<kind>.yaml); once for all, the registration files (scheme,
// kinds list, RBAC markers, user roles, the emulator's per-type facts).
//
// Everything is derived from the models and api/kinds.yaml; the order of the kinds (the
// wave, wave.go) is computed from their parents, and the only hand-kept input here is the
// sample values (samples.go), data.
package emit
