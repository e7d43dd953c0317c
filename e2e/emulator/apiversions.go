package emulator

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// apiVersions lists, per emulated type (lower-cased full type), the ARM
// api-versions the emulator accepts: some of the versions Azure registers for
// the type (not all of them), those whose request and response shapes the
// emulator follows, including the ones aztenant's kinds and the SDK clients
// of the tests speak. ARM refuses a version its resource provider does not
// register, so a kind moved to a version nobody checked against the emulator
// fails here first. Types not listed (served generically) accept any
// well-formed version.
var apiVersions = map[string][]string{
	"microsoft.resources/resourcegroups":                                            {"2021-04-01", "2022-09-01", "2023-07-01", "2024-03-01", "2024-07-01", "2024-11-01", "2025-01-01", "2025-03-01", "2025-04-01"},
	"microsoft.managedidentity/userassignedidentities":                              {"2018-11-30", "2023-01-31", "2024-11-30"},
	"microsoft.managedidentity/userassignedidentities/federatedidentitycredentials": {"2022-01-31-preview", "2023-01-31", "2024-11-30"},
	"microsoft.authorization/roleassignments":                                       {"2020-04-01-preview", "2022-04-01"},
	"microsoft.authorization/roledefinitions":                                       {"2015-07-01", "2022-04-01"},
	"microsoft.storage/storageaccounts":                                             {"2023-01-01", "2023-04-01", "2023-05-01", "2024-01-01", "2025-01-01"},
	"microsoft.cache/redis":                                                         {"2023-08-01", "2024-03-01", "2024-11-01"},
	"microsoft.dbforpostgresql/flexibleservers":                                     {"2022-12-01", "2023-06-01-preview", "2024-08-01"},
	"microsoft.dbforpostgresql/flexibleservers/databases":                           {"2022-12-01", "2023-06-01-preview", "2024-08-01"},
	"microsoft.dbforpostgresql/flexibleservers/firewallrules":                       {"2022-12-01", "2023-06-01-preview", "2024-08-01"},
	"microsoft.containerservice/managedclusters":                                    {"2024-05-01", "2024-07-01", "2024-09-01", "2024-10-01", "2025-01-01"},
}

var apiVersionSyntax = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}(-(preview|alpha|beta|privatepreview))?$`)

// checkAPIVersion answers as ARM does for a malformed api-version or one the
// type's provider does not register. fullType is the addressed (or listed)
// type; "" for requests that are not about a resource type.
func checkAPIVersion(fullType, version string) *apiError {
	if !apiVersionSyntax.MatchString(version) {
		return badRequest("InvalidApiVersionParameter",
			"The api-version '%s' is invalid. The supported versions are in the form YYYY-MM-DD or YYYY-MM-DD-preview.", version)
	}
	supported, ok := apiVersions[strings.ToLower(fullType)]
	if !ok || slices.Contains(supported, version) {
		return nil
	}
	if strings.HasPrefix(strings.ToLower(fullType), "microsoft.resources/") {
		return badRequest("InvalidApiVersionParameter",
			"The api-version '%s' is invalid. The supported versions are '%s'.", version, strings.Join(supported, ","))
	}
	ns, typ, _ := strings.Cut(fullType, "/")
	return armErr(http.StatusBadRequest, "NoRegisteredProviderFound",
		"No registered resource provider found for API version '%s' and type '%s' of namespace '%s'. The supported api-versions are '%s'.",
		version, typ, ns, strings.Join(supported, ", "))
}
