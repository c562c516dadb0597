// Package data holds the files Ocvist ships: the default forest model,
// embedded so that the engine finds it from any working directory (Gomocup
// managers choose the directory), and the opening sets under openings/. The
// default database, ocvist.db, is made by "train run" and not tracked; see
// README.md in this folder for how model.ocf was made.
package data

import _ "embed"

// Model is the shipped forest model (model.ocf), the default policy of
// cmd/play. Read it with forest.Load(bytes.NewReader(data.Model)).
//
//go:embed model.ocf
var Model []byte
