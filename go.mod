module policyevolve

go 1.25

require github.com/traefik/yaegi v0.16.1 // indirect
