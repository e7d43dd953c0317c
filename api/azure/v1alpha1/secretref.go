package v1alpha1

// SecretKeyReference is a key of a Secret in the object's namespace holding a value the
// object sends to Azure, such as an administrator password. ARM never returns such a
// value (it is write-only), so it is not compared: it is sent again when the Secret's
// value changes. The value never reaches status, events or logs.
type SecretKeyReference struct {
	// Name of the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
	// Key in the Secret.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key"`
}
