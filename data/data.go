// Package data holds the files Ocvist ships: the default forest model,
// embedded so that the engine finds it from any working directory (Gomocup
// managers choose the directory), and the opening sets under openings/. The
// default database, ocvist.db, is made by "train run" and not tracked; see
// README.md in this folder for how model.ocf was made.
package data

import _ "embed"

// Model is the shipped forest model (model.ocf), the default policy of
// cmd/play. Read it with policy.Load(bytes.NewReader(data.Model)); it was
// made before model files recorded their features' Spec, so it loads as
// feature set 1, freestyle, radius 2.
//
//go:embed model.ocf
var Model []byte

// Value is the shipped value model (value.ocf), which the search agent
// of cmd/play adds to its evaluation by default. Read it with
// forest.Load(bytes.NewReader(data.Value)) and policy.ValueFromForest.
//
//go:embed value.ocf
var Value []byte

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
