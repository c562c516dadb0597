// Package data holds the files Ocvist ships: the default models,
// embedded so that the engine finds it from any working directory (Gomocup
// managers choose the directory), and the opening sets under openings/. The
// default database, ocvist.db, is made by "train run" and not tracked; see
// README.md in this folder for how model.ocf was made.
package data

import _ "embed"

// Model is the shipped policy forest (model.ocf, feature set 2, freestyle,
// radius 2), the default policy of cmd/play: the learning loop's
// generation 5 (README.md in this folder). Read it with
// policy.Load(bytes.NewReader(data.Model)).
//
//go:embed model.ocf
var Model []byte

// Value is the shipped value model (value.ocf, the value network of value
// feature set 3: package mlp's file, the learning loop's generation 5),
// which the search agent of cmd/play adds to its evaluation by default.
// Read it with policy.LoadValue(bytes.NewReader(data.Value)).
//
//go:embed value.ocf
var Value []byte

// Forest is the shipped pure policy (forest.ocf, feature set 3,
// freestyle, radius 2): the policy the forest agent of cmd/play and of the
// page plays alone, the learning loop's generation 2 with -policy-set 3
// (README.md in this folder). The search orders its moves with Model
// instead: as its prior set 3 was no stronger, at a time limit or a fixed
// node budget, and cost it a third of its nodes a second (loop/TUNING.md,
// "The policy's threat features").
//
//go:embed forest.ocf
var Forest []byte

// RenjuModel and RenjuValue are the shipped renju models (model-renju.ocf,
// value-renju.ocf, the renju recipe of README.md in this folder): the
// search agent of cmd/play and the page play renju games with them, the
// freestyle ones above serving freestyle and standard.
//
//go:embed model-renju.ocf
var RenjuModel []byte

// RenjuValue: see RenjuModel.
//
//go:embed value-renju.ocf
var RenjuValue []byte

// Model20261121 is the policy model shipped on 2026-11-21
// (model-2026-11-21.ocf, feature set 1, fitted on self-play statistics):
// the learning loop's default generation 0 and its fixed anchor.
//
//go:embed model-2026-11-21.ocf
var Model20261121 []byte
