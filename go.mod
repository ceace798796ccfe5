module policyevolve

go 1.25.0

require (
	github.com/MaxHalford/eaopt v0.4.2
	github.com/schollz/progressbar/v3 v3.19.1
	github.com/tmc/langchaingo v0.1.14
	github.com/traefik/yaegi v0.16.1
	go.etcd.io/bbolt v1.4.3
	golang.org/x/sys v0.47.0
	golang.org/x/term v0.45.0
	kernel.org/pub/linux/libs/security/libcap/psx v1.2.78
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/dlclark/regexp2 v1.10.0 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/pkoukk/tiktoken-go v0.1.6 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	golang.org/x/sync v0.16.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
