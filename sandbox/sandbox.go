package sandbox

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"policyevolve/envs"
	"policyevolve/envs/ssd/worker"
)

// Backend names a way of running policies.
type Backend string

const (
	// Auto picks Native when a Go toolchain is on PATH, else Yaegi (with a
	// one-line notice).
	Auto Backend = ""
	// Native compiles each policy, with the ssd API and the worker, into a
	// worker binary (cached); policies run at full Go speed.
	Native Backend = "native"
	// Yaegi interprets each policy in a worker process running
	// policyevolve's own binary; no toolchain needed, 100-650x slower.
	Yaegi Backend = "yaegi"
)

// ParseBackend accepts "native", "yaegi" and "auto" (or "").
func ParseBackend(s string) (Backend, error) {
	switch s {
	case "", "auto":
		return Auto, nil
	case "native":
		return Native, nil
	case "yaegi":
		return Yaegi, nil
	}
	return "", fmt.Errorf("unknown backend %q (want native, yaegi or auto)", s)
}

// Config configures a Sandbox. The zero value works: every field has a
// default, set in applyDefaults.
type Config struct {
	Backend Backend
	// StepTimeout bounds one step: the CPU time a worker may use to answer
	// the actions of all its agents. CPU time, not wall-clock time, so
	// that a loaded machine does not turn a policy's honest step into a
	// timeout. The worker's watchdog stops a longer step and names the
	// agent being asked.
	StepTimeout time.Duration
	// StepWall bounds the wall-clock wait for one step's answer: the
	// backstop for a worker that cannot answer at all (starved by an
	// overloaded machine, or broken). Past it the host kills the worker
	// and reports a timeout. Default 10×StepTimeout + 1 s, far beyond what
	// an honest step takes even on a busy machine.
	StepWall time.Duration
	// StartTimeout bounds starting a worker and loading its policy
	// (package-level initialisation included).
	StartTimeout time.Duration
	// CostBudget is the CPU time a policy may spend on a 1000-step episode
	// of 10 agents on the native backend (1 ms per agent and step),
	// scaled to the episode's agents and steps, and by YaegiCostFactor on
	// the yaegi backend. Admission (Smoke) refuses a policy whose smoke
	// test projects beyond it, and an episode that exceeds it stops with
	// ErrCost. Negative: no budget.
	CostBudget time.Duration
	// EpisodeCPU is the CPU time one episode may use in all, enforced by
	// the worker (ErrCPUBudget) behind the watchdog and the cost budget.
	// Behind it, the kernel's hard limit over a worker's life (RLIMIT_CPU)
	// is four times as much (see workerLifetime). Default
	// DefaultEpisodeCPU, YaegiCostFactor times that on the yaegi backend.
	EpisodeCPU time.Duration
	// MemoryLimit is a worker's address-space limit (RLIMIT_AS), bytes.
	MemoryLimit int64
	// StackLimit is a worker's goroutine stack limit, bytes: deep recursion
	// fails as a stack overflow before it exhausts MemoryLimit.
	StackLimit int64
	// OutputLimit is how much a worker may print (stdout and stderr
	// together) before it is stopped with ErrOutputLimit.
	OutputLimit int64
	// Unconfined leaves confinement layers off, for tests and diagnosis
	// only: by default every worker runs under every layer the kernel
	// offers (see worker.Layer).
	Unconfined worker.Layer
	// CacheDir holds compiled native workers, keyed by a hash of the
	// source, the ssd API and the Go version.
	CacheDir string
	// CacheMaxBytes bounds the worker cache, trimmed least recently used
	// first (default DefaultCacheMaxBytes; negative: no bound).
	CacheMaxBytes int64
	// GoCommand is the Go toolchain for the native backend.
	GoCommand string
	// BuildTimeout bounds one native build (compiler and linker
	// included). The first build on a machine also compiles the standard
	// library.
	BuildTimeout time.Duration
	// BuildMemory bounds the memory of each process of a native build
	// (the go command, the compiler, the linker), bytes of data
	// (RLIMIT_DATA); BuildCPU its CPU time (RLIMIT_CPU, whole seconds,
	// rounded up). A policy whose compilation passes either is refused,
	// saying so. Defaults DefaultBuildMemory and DefaultBuildCPU;
	// negative: no bound.
	BuildMemory int64
	BuildCPU    time.Duration
	// BuildFileSize bounds every file a process of a native build
	// writes (RLIMIT_FSIZE, bytes: object files, the worker binary); a
	// policy whose build passes it is refused. Default
	// DefaultBuildFileSize; negative: no bound.
	BuildFileSize int64
	// AnalysisMemory bounds the data (RLIMIT_DATA, bytes) of the child
	// process that analyses a source at admission (parsing, type
	// checking, the rules, the reset and the rewrites: see analyse),
	// AnalysisCPU its CPU time (RLIMIT_CPU, whole seconds, rounded up)
	// and AnalysisWall the wall-clock wait for it. A source whose
	// analysis passes one is refused ("policy source too costly to
	// analyse"). Defaults DefaultAnalysisMemory, DefaultAnalysisCPU and
	// ten times AnalysisCPU (at least a minute); negative memory or CPU:
	// no bound.
	AnalysisMemory int64
	AnalysisCPU    time.Duration
	AnalysisWall   time.Duration
	// WorkerExe is the executable that serves as interpreting worker; it
	// must link this package (policyevolve does). Default: this program.
	WorkerExe string
	// Notice receives one-line notices, such as the fallback to yaegi.
	Notice io.Writer
	// SkipCrossCheck turns off what admission (Check) does by default
	// when both backends are available, that is when a Go toolchain is
	// present: run the smoke test on the other backend too and refuse a
	// policy whose actions differ there (ErrDisagree). See crossCheck.
	SkipCrossCheck bool
	// AdmissionSteps is the length of the whole episode admission (Check)
	// plays after the smoke test: twice on this backend, to refuse a
	// policy whose actions differ from run to run (a map ranged over
	// late in an episode), and once on the other backend for the
	// cross-check. Default envs.DefaultMaxSteps, the evaluation's length;
	// negative: the smoke test only (its 50 steps, as the paper's).
	AdmissionSteps int
	// AdmissionCPU bounds the CPU time of each run of that whole episode,
	// on either backend (within the cost budget): a run that reaches it
	// stops, and the checks compare the steps played. Default
	// DefaultAdmissionCPU; negative: the cost budget alone.
	AdmissionCPU time.Duration
	// AdmissionKey keys the seeds admission's checks play (see
	// admissionSeed): a policy cannot predict them without it. Default:
	// the machine's key, kept in CacheDir.
	AdmissionKey []byte
	// AdmissionEnv, when its Map is set, is the environment the run
	// plays (its map, agent count and, when MaxSteps > 0, episode
	// length): admission's whole episode and the cross-check play it
	// instead of the game's default map (the smoke test stays the
	// paper's, on the default map). A policy that behaves differently
	// only on the run's map (if v.Height() < 15 { … }) is then compared
	// where it plays. Ignored for another game than the one admitted.
	AdmissionEnv envs.Config
}

// Defaults, with the reasons for them.
const (
	// 100 ms of CPU per step for all of a worker's agents, while a native
	// BFS-heavy policy needs well under 1 ms per step and a yaegi one ~10 ms.
	DefaultStepTimeout = 100 * time.Millisecond
	// 10 s of CPU for a 1000-step episode of 10 agents: ten times what an
	// expensive honest policy needs natively (a Voronoi flood per agent per
	// step), so that ordinary load cannot flip the verdict, and a hundred
	// times a BFS collector.
	DefaultCostBudget = 10 * time.Second
	// YaegiCostFactor scales the cost budget on the yaegi backend, where
	// policy code runs 100-650 times slower but the helpers it calls run
	// natively.
	YaegiCostFactor = 10
	// Starting a native worker takes milliseconds; yaegi needs ~10 ms to
	// compile a 200-line policy. 20 s leaves room for a loaded machine.
	DefaultStartTimeout = 20 * time.Second
	// An honest native episode takes well under a second of CPU, a yaegi
	// one under ten; a minute (ten on yaegi) is far behind the cost
	// budget, which stops a costly episode first.
	DefaultEpisodeCPU = 60 * time.Second
	// Go runs under 1 GiB of address space but not under ~300 MB.
	DefaultMemoryLimit = 1 << 30
	// Deep enough for any search over a grid (a recursive DFS over every
	// cell of the large map needs a few hundred KiB natively, a few MiB in
	// yaegi), small enough that the runtime, which copies a growing stack
	// and so needs 1.5x its size while it grows, overflows cleanly before
	// the address-space limit (under 1 GiB, ~300 MB of it is usable heap).
	DefaultStackLimit = 64 << 20
	// A policy builds in about a second; the first build on a machine
	// compiles the standard library too, a minute on two cores.
	DefaultBuildTimeout = 5 * time.Minute
	// 500 ms of CPU for each run of admission's whole episode: a native
	// policy needs 3-250 ms for 1000 steps of 10 agents, a BFS policy on
	// yaegi about that much; an expensive one on yaegi (6-7 s for a
	// Voronoi flood per agent and step) is compared on the steps it plays
	// in 500 ms, so that admission stays a fraction of an LLM call and of
	// the offline planner's evaluation (measured: the cmd and evolve
	// tests, which admit hundreds of candidates, took 29% and 8% longer
	// with 1 s).
	DefaultAdmissionCPU = 500 * time.Millisecond
	// Generous for debugging prints (a line per agent per step of a long
	// episode), small enough that a print loop is caught in milliseconds.
	DefaultOutputLimit = 1 << 20
)

// MaxStepTimeout is the longest step deadline the worker protocol carries.
const MaxStepTimeout = time.Hour

func (c *Config) applyDefaults() {
	if c.StepTimeout <= 0 {
		c.StepTimeout = DefaultStepTimeout
	}
	if c.StepWall <= 0 {
		c.StepWall = 10*c.StepTimeout + time.Second
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.CostBudget == 0 {
		c.CostBudget = DefaultCostBudget
	}
	if c.MemoryLimit <= 0 {
		c.MemoryLimit = DefaultMemoryLimit
	}
	if c.StackLimit <= 0 {
		c.StackLimit = DefaultStackLimit
	}
	if c.OutputLimit <= 0 {
		c.OutputLimit = DefaultOutputLimit
	}
	if c.GoCommand == "" {
		c.GoCommand = "go"
	}
	if c.BuildTimeout <= 0 {
		c.BuildTimeout = DefaultBuildTimeout
	}
	if c.BuildMemory == 0 {
		c.BuildMemory = DefaultBuildMemory
	}
	if c.BuildFileSize == 0 {
		c.BuildFileSize = DefaultBuildFileSize
	}
	if c.BuildCPU == 0 {
		c.BuildCPU = DefaultBuildCPU * time.Second
	}
	if c.AnalysisMemory == 0 {
		c.AnalysisMemory = DefaultAnalysisMemory
	}
	if c.AnalysisCPU == 0 {
		c.AnalysisCPU = DefaultAnalysisCPU
	}
	if c.AnalysisWall <= 0 {
		c.AnalysisWall = max(10*c.AnalysisCPU, time.Minute)
	}
	if c.CacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			c.CacheDir = filepath.Join(d, "policyevolve", "workers")
		} else {
			c.CacheDir = filepath.Join(os.TempDir(), "policyevolve-workers")
		}
	}
	if c.Notice == nil {
		c.Notice = io.Discard
	}
	if c.CacheMaxBytes == 0 {
		c.CacheMaxBytes = DefaultCacheMaxBytes
	}
	if c.AdmissionSteps == 0 {
		c.AdmissionSteps = envs.DefaultMaxSteps
	}
	if c.AdmissionCPU == 0 {
		c.AdmissionCPU = DefaultAdmissionCPU
	}
}

// Sandbox turns untrusted policy sources into running policies. It is safe
// for concurrent use.
type Sandbox struct {
	cfg       Config
	backend   Backend
	goCmd     string // resolved toolchain (native)
	goVersion string
	apiHash   string

	mu        sync.Mutex
	building  map[string]*buildCall // native builds in progress, by cache key
	staleOnce sync.Once             // build directories of killed builds removed
	builds    atomic.Int64          // native builds done (see afterBuild)
	trimming  atomic.Bool           // a trim of the cache runs
	// cacheEstimate is the cache's size at the last trim plus what this
	// process built since (see afterBuild).
	cacheEstimate atomic.Int64

	ns      nsState    // namespaces for workers, probed at the first start
	confMu  sync.Mutex // guards conf and noticed
	conf    worker.Confinement
	noticed bool

	noPrechecks bool // tests only: see skipPrechecks

	keyOnce sync.Once
	key     []byte // of admission's seeds (see admissionKey)

	otherOnce sync.Once
	other     *Sandbox // the other backend, for the cross-check; nil when unavailable
	otherWhy  string   // why other is nil
}

// New returns a Sandbox with the backend resolved: Auto becomes Native
// when the Go toolchain works, else Yaegi (with a notice); Native without a
// toolchain is an error.
func New(cfg Config) (*Sandbox, error) {
	cfg.applyDefaults()
	if cfg.StepTimeout > MaxStepTimeout {
		return nil, fmt.Errorf("step timeout %v is longer than %v", cfg.StepTimeout, MaxStepTimeout)
	}
	s := &Sandbox{cfg: cfg, building: map[string]*buildCall{}}
	switch cfg.Backend {
	case Auto, Native:
		err := s.findToolchain()
		if err == nil {
			s.backend = Native
			break
		}
		if cfg.Backend == Native {
			return nil, fmt.Errorf("native backend: %w", err)
		}
		fmt.Fprintf(cfg.Notice, "policyevolve: %v; running policies in the yaegi interpreter (slower)\n", err)
		s.backend = Yaegi
	case Yaegi:
		s.backend = Yaegi
	default:
		return nil, fmt.Errorf("unknown backend %q", cfg.Backend)
	}
	if s.cfg.EpisodeCPU <= 0 {
		s.cfg.EpisodeCPU = DefaultEpisodeCPU
		if s.backend == Yaegi {
			s.cfg.EpisodeCPU *= YaegiCostFactor
		}
	}
	if s.backend == Yaegi && cfg.WorkerExe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("yaegi backend: find this program to run as worker: %w", err)
		}
		s.cfg.WorkerExe = exe
	}
	return s, nil
}

// Backend is the backend in use.
func (s *Sandbox) Backend() Backend { return s.backend }

// Config returns the configuration in use, defaults applied.
func (s *Sandbox) Config() Config { return s.cfg }

func (s *Sandbox) findToolchain() error {
	p, err := exec.LookPath(s.cfg.GoCommand)
	if err != nil {
		return fmt.Errorf("no Go toolchain (%s) on PATH", s.cfg.GoCommand)
	}
	cmd := exec.Command(p, "env", "GOVERSION")
	cmd.Env = buildEnv()
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go toolchain %s does not work: %v", p, err)
	}
	s.goCmd, s.goVersion = p, strings.TrimSpace(string(out))
	h, err := apiHash()
	if err != nil {
		return err
	}
	s.apiHash = h
	return nil
}
