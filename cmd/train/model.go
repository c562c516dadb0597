package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"ocvist/coordinator"
	"ocvist/loop"
	"ocvist/policy"
	"ocvist/store"
	"ocvist/store/backend"
)

const modelAbout = `
Fetch a model file of the learning loop from a PostgreSQL database, so that
every machine feeding it plays with the same models: "train loop" stores
each generation's policy and value files in the database when it records
the generation (and generation 0's policy, the start model, when it
starts). -gen current is the generation the loop plays with now (the last
adopted; 0 before any). The file is written atomically (a temporary file
in the same directory, synced, renamed) after its SHA-256 was checked
against the one stored with it. -list lists the models kept instead.`

func modelCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("model", "-db URL [-gen N|current] [-role policy|value] -o FILE | -list", modelAbout, stderr)
	dbPath := fs.String("db", "", "the database's PostgreSQL `URL`")
	gen := fs.String("gen", "current", "generation `N`, or current")
	role := fs.String("role", store.RolePolicy, "policy or value")
	out := fs.String("o", "", "model `file` to write")
	list := fs.Bool("list", false, "list the models the database keeps")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := checkModelFlags(*dbPath, *gen, *role, *out, *list); err != nil {
		return err
	}
	db, err := backend.OpenReadOnlyAt(ctx, *dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	ms, ok := db.(store.ModelStore)
	if !ok {
		return fmt.Errorf("model: %s keeps no models", *dbPath)
	}
	if *list {
		return listModels(ctx, ms, stdout)
	}
	m, err := fetchModel(ctx, db, ms, *gen, *role)
	if err != nil {
		return err
	}
	if err := policy.WriteFileAtomic(*out, m.Bytes); err != nil {
		return fmt.Errorf("model: write %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "generation %d %s model: %s, %s, sha256 %s (checked)\n", m.Gen, m.Role, *out, coordinator.HumanBytes(m.Size), m.SHA256)
	return nil
}

// checkModelFlags refuses a command line that cannot fetch a model.
func checkModelFlags(db, gen, role, out string, list bool) error {
	switch {
	case db == "":
		return usageError{"model: give -db postgres://… (the database the loop records into)"}
	case !backend.IsURL(db):
		return usageError{fmt.Sprintf("model: -db %s is a SQLite file: its models are files already (the loop's -models directory); give a postgres:// URL", db)}
	case list:
		return nil
	case gen != "current" && !isGen(gen):
		return usageError{fmt.Sprintf("model: -gen %q: want a generation number (0, 1, …) or current", gen)}
	case role != store.RolePolicy && role != store.RoleValue:
		return usageError{fmt.Sprintf("model: -role %q: want policy or value", role)}
	case out == "":
		return usageError{"model: give -o FILE, the model file to write"}
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return usageError{fmt.Sprintf("model: -o %s is a directory", out)}
	}
	return nil
}

func isGen(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n >= 0
}

// fetchModel reads the model of generation gen ("current": the loop's
// current generation) and role.
func fetchModel(ctx context.Context, db store.Store, ms store.ModelStore, gen, role string) (store.Model, error) {
	n, err := strconv.Atoi(gen)
	if gen == "current" {
		n, err = loop.Current(ctx, db)
	}
	if err != nil {
		return store.Model{}, err
	}
	m, err := ms.Model(ctx, n, role)
	if errors.Is(err, store.ErrNoModel) {
		what := fmt.Sprintf("generation %d", n)
		if gen == "current" {
			what = fmt.Sprintf("the current generation (%d)", n)
		}
		return m, fmt.Errorf("model: the database keeps no %s model of %s (train model -list shows what it keeps)", role, what)
	}
	return m, err
}

// listModels prints one line a model.
func listModels(ctx context.Context, ms store.ModelStore, w io.Writer) error {
	list, err := ms.Models(ctx)
	if err != nil {
		return err
	}
	for _, m := range list {
		fmt.Fprintf(w, "generation %d %s: %s, sha256 %s, stored %s\n", m.Gen, m.Role, coordinator.HumanBytes(m.Size), m.SHA256, m.Created)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no models (train loop stores them as it records generations)")
	}
	return nil
}
