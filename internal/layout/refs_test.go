package layout

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mdRef is a reference to a Markdown file: a name or a path ending in .md.
var mdRef = regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_]\.md\b`)

// designRef is a bare reference to the design notes ("DESIGN target").
var designRef = regexp.MustCompile(`\bDESIGN\b`)

// TestDocReferences: every Markdown file that a Go or Markdown file of the
// repository names (a help text, a doc comment, a README) is in the
// repository, at the path given from the root or from the naming file's
// folder, or by its name alone; and none points to the design notes,
// which live outside it with the protocol and style notes: a reader of
// the repository cannot follow them.
func TestDocReferences(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{} // the repository's files, by path and by name
	var sources []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		names[filepath.ToSlash(rel)], names[d.Name()] = true, true
		inTestdata := strings.Contains(filepath.ToSlash(rel), "testdata/")
		if !inTestdata && (strings.HasSuffix(path, ".go") || strings.HasSuffix(path, ".md")) {
			sources = append(sources, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range sources {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, path)
		if filepath.ToSlash(rel) == "internal/layout/refs_test.go" {
			continue // names what it looks for
		}
		dir := filepath.Dir(filepath.ToSlash(rel))
		for _, ref := range mdRef.FindAllString(string(b), -1) {
			ref = strings.TrimPrefix(ref, "./")
			if !names[ref] && !names[filepath.ToSlash(filepath.Join(dir, ref))] {
				t.Errorf("%s names %s, which is not in the repository", filepath.ToSlash(rel), ref)
			}
		}
		if designRef.Match(b) {
			t.Errorf("%s refers to DESIGN, the design notes, which are not in the repository", filepath.ToSlash(rel))
		}
	}
}
