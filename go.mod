module policyevolve

go 1.25

require (
	github.com/tmc/langchaingo v0.1.14
	github.com/traefik/yaegi v0.16.1
	go.etcd.io/bbolt v1.4.3
)

require (
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkoukk/tiktoken-go v0.1.6 // indirect
	golang.org/x/sys v0.35.0 // indirect
)
