package emulator

import "net/http"

// redisBehaviour: host name and ports, access keys; creation answers 201 with
// provisioningState Creating and both Azure-AsyncOperation and Location, as the
// real service does. Its answers spell the type Microsoft.Cache/Redis and the
// location by display name ("West US"), as the service's own examples in
// azure-rest-api-specs (RedisCacheGet.json) and az's output show.
func redisBehaviour() *typeBehaviour {
	return &typeBehaviour{
		fullType:        "Microsoft.Cache/redis",
		answerType:      "Microsoft.Cache/Redis",
		displayLocation: true,
		lro:             LROConfig{Write: LROAsyncOperationLocation, Delete: LROLocation},
		prepare: func(w *writeRequest) *apiError {
			if err := w.requireLocation(); err != nil {
				return err
			}
			if _, ok := w.props["sku"]; !ok {
				return badRequest("MissingRequiredProperty", "The request is missing required property 'properties.sku'.")
			}
			w.props["hostName"] = w.target.name + ".redis.cache.windows.net"
			w.props["port"] = 6379
			w.props["sslPort"] = 6380
			for k, v := range map[string]any{"redisVersion": "6.0", "enableNonSslPort": false, "minimumTlsVersion": "1.2", "publicNetworkAccess": "Enabled"} {
				if _, ok := w.props[k]; !ok {
					w.props[k] = v
				}
			}
			return nil
		},
		stored: func(e *Emulator, r *resource) {
			if r.secrets == nil {
				r.secrets = map[string]string{"primaryKey": randomKey(32), "secondaryKey": randomKey(32)}
			}
		},
		actions: map[string]actionFunc{
			"listkeys": func(e *Emulator, r *resource, _ map[string]any) (int, any, *apiError) {
				return http.StatusOK, map[string]any{"primaryKey": r.secrets["primaryKey"], "secondaryKey": r.secrets["secondaryKey"]}, nil
			},
			"regeneratekey": func(e *Emulator, r *resource, body map[string]any) (int, any, *apiError) {
				switch str(body, "keyType") {
				case "Primary":
					r.secrets["primaryKey"] = randomKey(32)
				case "Secondary":
					r.secrets["secondaryKey"] = randomKey(32)
				default:
					return 0, nil, badRequest("InvalidRequestBody", "keyType must be 'Primary' or 'Secondary'.")
				}
				return http.StatusOK, map[string]any{"primaryKey": r.secrets["primaryKey"], "secondaryKey": r.secrets["secondaryKey"]}, nil
			},
		},
	}
}
