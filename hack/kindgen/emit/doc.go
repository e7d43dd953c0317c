// Package emit writes aztenant's generated kinds from the reader's models (package model):
// per kind the API types (api/<group>/v1alpha1/zz_generated_<kind>.go), the adapter on
// reconcilers.Kind (reconcilers/kinds/zz_generated_<kind>.go) and a sample manifest
// (examples/generated/<group>/<kind>.yaml); once for all, the registration files (scheme,
// kinds list, RBAC markers, user roles, the emulator's per-type facts).
//
// Everything is derived from the model; the only hand-kept inputs are the wave (which kinds
// are generated now, wave.go) and the sample values (samples.go), both data.
package emit
