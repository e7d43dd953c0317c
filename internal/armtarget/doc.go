// Package armtarget is what the reconcilers tell a guard about an ARM call
// before they make it: the Target (ARM ID, where the reconciler believes it
// lives, location, kind). It is a leaf at the bottom of the layering, below
// the guards (package tenancy, package policy) and the reconcilers that ask
// them, so that a guard that does not read the Target (the policy guard) need
// not import the tenancy guard that does, and neither imports the reconcilers.
package armtarget
