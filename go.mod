module policyevolve

go 1.25

require (
	github.com/traefik/yaegi v0.16.1 // indirect
	go.etcd.io/bbolt v1.4.3 // indirect
	golang.org/x/sys v0.29.0 // indirect
)
