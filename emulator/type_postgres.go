package emulator

import (
	"bytes"
	"net"
	"net/http"
)

// postgresServerBehaviour: fully qualified domain name and state; the administrator
// password is write-only (accepted, never returned), as in Azure. A create
// answers 202 with Azure-AsyncOperation and Location, as the service does.
func postgresServerBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.DBforPostgreSQL/flexibleServers",
		lro:      LROConfig{Write: LROAsyncOperationLocation, CreateStatus: http.StatusAccepted, Delete: LROAsyncOperation},
		prepare: func(w *writeRequest) *apiError {
			if err := w.requireLocation(); err != nil {
				return err
			}
			delete(w.props, "administratorLoginPassword")
			w.props["fullyQualifiedDomainName"] = w.target.name + ".postgres.database.azure.com"
			w.props["state"] = "Ready"
			if _, ok := w.props["version"]; !ok {
				w.props["version"] = "16"
			}
			return nil
		},
	}
}

func postgresDatabaseBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.DBforPostgreSQL/flexibleServers/databases",
		lro:      LROConfig{Write: LROAsyncOperation, Delete: LROAsyncOperation},
		prepare: func(w *writeRequest) *apiError {
			for k, v := range map[string]any{"charset": "UTF8", "collation": "en_US.utf8"} {
				if _, ok := w.props[k]; !ok {
					w.props[k] = v
				}
			}
			return nil
		},
	}
}

// postgresFirewallRuleBehaviour validates the IPv4 range.
func postgresFirewallRuleBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType: "Microsoft.DBforPostgreSQL/flexibleServers/firewallRules",
		lro:      LROConfig{Write: LROSync, Delete: LROSync},
		prepare: func(w *writeRequest) *apiError {
			start := net.ParseIP(str(w.props, "startIpAddress")).To4()
			end := net.ParseIP(str(w.props, "endIpAddress")).To4()
			if start == nil || end == nil {
				return badRequest("InvalidParameterValue", "Invalid value given for parameter 'startIpAddress' or 'endIpAddress'. Specify valid IPv4 addresses.")
			}
			if bytes.Compare(start, end) > 0 {
				return badRequest("FirewallRuleStartIpAddressGreaterThanEnd", "The start IP address of firewall rule '%s' is greater than its end IP address.", w.target.name)
			}
			return nil
		},
	}
}
