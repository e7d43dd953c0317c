package entra

// Endpoints are the Entra paths under a tenant (or under /adfs), without the tenant: an
// outage answers them all.
var Endpoints = map[string]bool{
	"v2.0/.well-known/openid-configuration": true, ".well-known/openid-configuration": true,
	"discovery/v2.0/keys": true, "discovery/keys": true, "oauth2/v2.0/token": true, "oauth2/token": true,
}

// Discovery is a tenant's OpenID configuration. MSAL requires the issuer's scheme and
// host:port to match the authority it was given, so base is the host the client called.
func Discovery(base, tenant string) map[string]any {
	b := base + "/" + tenant
	return map[string]any{
		"issuer":                                b + "/v2.0",
		"authorization_endpoint":                b + "/oauth2/v2.0/authorize",
		"token_endpoint":                        b + "/oauth2/v2.0/token",
		"device_authorization_endpoint":         b + "/oauth2/v2.0/devicecode",
		"jwks_uri":                              b + "/discovery/v2.0/keys",
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "private_key_jwt", "client_secret_basic"},
		"scopes_supported":                      []string{"openid", "profile", "email", "offline_access"},
		"tenant_region_scope":                   "EU",
		"cloud_instance_name":                   "azure-emulator",
	}
}

// ADFSDiscovery is an AD FS authority's OpenID configuration (authority is
// https://<host>/adfs); MSAL takes the token endpoint from here and the "tenant" of its
// cache from that endpoint's first segment.
func ADFSDiscovery(authority string) map[string]any {
	b := authority
	return map[string]any{
		"issuer":                                b,
		"authorization_endpoint":                b + "/oauth2/authorize/",
		"token_endpoint":                        b + "/oauth2/token/",
		"jwks_uri":                              b + "/discovery/keys",
		"response_types_supported":              []string{"code", "id_token", "code id_token", "id_token token", "code token", "code id_token token"},
		"subject_types_supported":               []string{"pairwise"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"token_endpoint_auth_methods_supported": []string{"client_secret_post", "client_secret_basic", "private_key_jwt", "windows_client_authentication"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:jwt-bearer"},
		"scopes_supported":                      []string{"openid", "profile", "email", "allatclaims"},
	}
}
