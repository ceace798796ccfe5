module policyevolve

go 1.25

require (
	github.com/traefik/yaegi v0.16.1
	go.etcd.io/bbolt v1.4.3
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78
)

require golang.org/x/sys v0.29.0 // indirect
