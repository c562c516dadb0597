package layout

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "ocvist"

// pkg is one package of the module as its non-test files show it.
type pkg struct {
	path     string               // "patterns", "cmd/play", "internal/cli"
	imports  map[string]bool      // module packages imported directly
	external map[string]bool      // imports from other modules
	files    map[string]*ast.File // by file name
}

// load parses the non-test Go files of every package of the module.
func load(t *testing.T) map[string]*pkg {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs := map[string]*pkg{}
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		p := pkgs[filepath.ToSlash(rel)]
		if p == nil {
			p = &pkg{path: filepath.ToSlash(rel), imports: map[string]bool{}, external: map[string]bool{}, files: map[string]*ast.File{}}
			pkgs[p.path] = p
		}
		p.files[name] = f
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			switch {
			case strings.HasPrefix(ip, module+"/"):
				p.imports[strings.TrimPrefix(ip, module+"/")] = true
			case strings.Contains(strings.Split(ip, "/")[0], "."):
				p.external[ip] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages: is the test run from its directory?", len(pkgs))
	}
	return pkgs
}

// deps is the module packages p imports, directly or not.
func deps(pkgs map[string]*pkg, p string) map[string]bool {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(q string) {
		for d := range pkgs[q].imports {
			if !seen[d] && pkgs[d] != nil {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(p)
	return seen
}

func isCommand(p string) bool { return strings.HasPrefix(p, "cmd/") }

// graphHeading introduces README.md's drawing of the package graph: the
// fenced block after it has one line a package, "pkg → imports…".
const graphHeading = "The whole graph, each package with the module packages it imports"

// readmeGraph reads the package graph that README.md's Layout draws.
func readmeGraph(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(b), graphHeading)
	if !ok {
		t.Fatalf("README.md has no %q", graphHeading)
	}
	_, block, _ := strings.Cut(after, "```\n")
	block, _, _ = strings.Cut(block, "```")
	g := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		from, to, ok := strings.Cut(line, "→")
		if !ok {
			t.Fatalf("README.md's graph line %q has no →", line)
		}
		g[strings.TrimSpace(from)] = strings.Fields(to)
	}
	return g
}

// external is, for each package that imports other modules, the ones it
// may import (by prefix).
var external = map[string]string{
	"forest":       "gonum.org/v1/gonum/",
	"mlp":          "gonum.org/v1/gonum/blas/",
	"policy":       "gonum.org/v1/gonum/",
	"store/sqlite": "github.com/mattn/go-sqlite3",
	// the driver's error codes, which the backend and its young tier map
	"store/sqlite/internal/sqlerr": "github.com/mattn/go-sqlite3",
	"store/postgres":               "github.com/jackc/pgx/",
	"coordinator":                  "",
	"loop":                         "gonum.org/v1/gonum/",
	"web":                          "",
	"cmd/train":                    "gonum.org/v1/gonum/ gonum.org/v1/plot",
	"cmd/play":                     "",
	// the tests' fresh schemas (SchemaURL); only tests import it
	"internal/pgtest": "github.com/jackc/pgx/",
}

// lower are the packages below the engines and the storage: the words of
// the game, its keys, shapes, agents and the protocol. None of them may
// depend on the training job, the store or a model's learning.
var lower = []string{"gomoku", "canon", "patterns", "agent", "gomocup", "terminal"}

// TestDependencies: every package of the module imports exactly the
// module packages README.md's Layout draws for it (so the drawing is the
// graph, with no edge missing or extra), the other modules listed in
// external, and nothing forbidden: only commands use internal/cli and
// terminal, no library uses a command, internal/pgtest and store/storetest
// are for tests, and
// the lower packages never reach the training job, the store or gonum.
func TestDependencies(t *testing.T) {
	pkgs := load(t)
	graph := readmeGraph(t)
	for _, path := range slices.Sorted(maps.Keys(pkgs)) {
		p := pkgs[path]
		want, ok := graph[path]
		if !ok {
			t.Errorf("%s is not in README.md's graph", path)
		}
		if got := slices.Sorted(maps.Keys(p.imports)); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("%s imports %q; README.md's graph draws %q", path, got, want)
		}
		for ext := range p.external {
			if !slices.ContainsFunc(strings.Fields(external[path]), func(pre string) bool { return strings.HasPrefix(ext, pre) }) {
				t.Errorf("%s imports %s (other modules allowed: %q)", path, ext, external[path])
			}
		}
		d := deps(pkgs, path)
		for _, q := range onlyTests {
			if d[q] {
				t.Errorf("%s depends on %s, which only tests may use", path, q)
			}
		}
		if slices.Contains(lower, path) {
			for _, q := range []string{"store", "store/shard", "store/sqlite", "store/postgres", "store/backend", "coordinator", "loop", "selfplay", "forest", "policy", "search", "arena", "web"} {
				if d[q] {
					t.Errorf("%s depends on %s", path, q)
				}
			}
			if len(p.external) > 0 {
				t.Errorf("%s imports other modules: %v", path, slices.Sorted(maps.Keys(p.external)))
			}
		}
		if isCommand(path) || path == "terminal" {
			continue
		}
		for _, q := range onlyCommands {
			if d[q] && path != q {
				t.Errorf("library %s depends on %s, which only commands may use", path, q)
			}
		}
		for q := range d {
			if isCommand(q) {
				t.Errorf("library %s depends on the command %s", path, q)
			}
		}
	}
	for path := range graph {
		if pkgs[path] == nil {
			t.Errorf("README.md's graph draws %s, which has no Go files", path)
		}
	}
}

// onlyCommands are the packages that only commands may import.
var onlyCommands = []string{"internal/cli", "terminal"}

// onlyTests are the packages of helpers for tests, which no package's
// non-test files may reach.
var onlyTests = []string{"internal/pgtest", "store/storetest"}

// forbidden are the package-level names a library must not use: printing,
// exiting, the process's standard streams and signals.
var forbidden = map[string][]string{
	"fmt":       {"Print", "Printf", "Println"},
	"os":        {"Exit", "Stdout", "Stderr", "Stdin"},
	"log":       nil, // all of it
	"os/signal": nil,
}

// TestSilentLibraries: libraries never print, exit or touch the standard
// streams; commands (and their scaffold, internal/cli) own them.
func TestSilentLibraries(t *testing.T) {
	for path, p := range load(t) {
		if isCommand(path) || path == "internal/cli" {
			continue
		}
		for name, f := range p.files {
			local := importNames(f)
			ast.Inspect(f, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				names, bad := forbidden[local[x.Name]]
				if bad && (names == nil || slices.Contains(names, sel.Sel.Name)) {
					t.Errorf("%s/%s uses %s.%s: libraries never print, exit or use the standard streams", path, name, local[x.Name], sel.Sel.Name)
				}
				return true
			})
		}
	}
}

// importNames maps the names a file gives its imports to their paths.
func importNames(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, im := range f.Imports {
		ip, _ := strconv.Unquote(im.Path.Value)
		name := ip[strings.LastIndex(ip, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		m[name] = ip
	}
	return m
}

// goroutines are the library files that may start goroutines, and why:
// each is a bounded loop inside one call, done when the call returns
// (README.md, Layout: goroutines live in the commands and in a few
// library calls that are done when they return), or the commands'
// scaffold.
var goroutines = map[string]string{
	"forest/fit.go":            "Fit's bounded pool of workers, waited for before Fit returns",
	"mlp/fit.go":               "a minibatch step's gradient shards (Config.Shards), waited for before the step",
	"loop/rescore.go":          "Rescore's workers (Rescore.Workers), waited for before FitValue returns",
	"arena/match.go":           "MatchFactories' workers (Config.Concurrency), waited for before it returns",
	"coordinator/job.go":       "a job's merger, a PostgreSQL prune beside it and one reader per worker process, done before Run or PlayTeacher returns",
	"coordinator/run.go":       "a PostgreSQL job's prune beside its merger (started by it, waited for by it)",
	"gomocup/think.go":         "the engine's Move for one turn, waited for before the turn's call returns",
	"web/engine.go":            "one search per running search request (at most Config.MaxSearches at once, on a niced OS thread), waited for before the request returns",
	"search/search.go":         "a search's helper threads (Lazy SMP, Config.Threads − 1), halted and waited for before Search returns",
	"internal/cli/lines.go":    "the commands' input reader (internal/cli is the commands' scaffold)",
	"internal/cli/cli.go":      "the commands' signal listener, which cancels the command's context (internal/cli is the commands' scaffold)",
	"internal/pgtest/proxy.go": "the PostgreSQL tests' proxy, closed when its test ends (only tests import internal/pgtest)",
	"store/storetest/runs.go":  "the concurrency checks' handles, waited for before the check returns (only tests import store/storetest)",
}

// TestGoroutines: goroutines start only in commands and in the places
// listed in goroutines (which the README's Layout section describes).
func TestGoroutines(t *testing.T) {
	found := map[string]bool{}
	for path, p := range load(t) {
		if isCommand(path) {
			continue
		}
		for name, f := range p.files {
			file := path + "/" + name
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					found[file] = true
				case *ast.CallExpr: // sync.WaitGroup.Go and the like
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Go" && len(n.Args) == 1 {
						if _, ok := n.Args[0].(*ast.FuncLit); ok {
							found[file] = true
						}
					}
				}
				return true
			})
		}
	}
	for file := range found {
		if _, ok := goroutines[file]; !ok {
			t.Errorf("%s starts a goroutine: libraries are synchronous (add it to the list with the reason only for a bounded loop inside one call)", file)
		}
	}
	for file := range goroutines {
		if !found[file] {
			t.Errorf("%s is listed as starting goroutines but starts none: remove it from the list", file)
		}
	}
}
