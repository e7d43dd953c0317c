// Package armlimit paces ARM requests per Azure principal, so that one
// tenant's identity exhausting its ARM budget is throttled here, in the
// operator, before ARM answers 429 — and never slows another tenant's
// identity down, since every principal has its own buckets.
//
// Each key (a principal: tenant ID + client ID, or an object ID) has a read
// bucket and a write bucket. The defaults approximate ARM's published
// token-bucket limits since 2024 (per subscription and principal: reads 250
// with 25 refilled per second, writes and deletes 200 with 10 per second);
// they are approximations, since ARM counts per subscription and region and
// resource providers add their own limits. Use Backoff to honour a
// Retry-After from ARM for every worker sharing the principal.
//
// The buckets are golang.org/x/time/rate limiters; this package adds one pair
// per key, Retry-After for everyone (Backoff, and Policy for azcore), and
// bounded memory (idle keys evicted, MaxKeys).
package armlimit
