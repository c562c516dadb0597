// Command train is Ocvist's training job. It is a placeholder until the
// training job lands; the blank imports pin the design's dependencies.
package main

import (
	_ "github.com/mattn/go-sqlite3"
	_ "gonum.org/v1/gonum/mat"
	_ "gonum.org/v1/plot"
)

func main() {}
