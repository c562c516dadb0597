// Package mlp is a small neural network, a multilayer perceptron with one
// hidden layer, that estimates a probability: Ocvist's value network
// (package policy's value model of feature set 3).
//
// # The model
//
// A row has sparse inputs, a bag of (column, count) pairs out of Sparse
// columns, and Dense inputs. The Hidden units are rectified linear:
//
//	pre_k = b1_k + Σ_i count_i·S[col_i][k] + Σ_j (x_j − μ_j)/σ_j · D[j][k]
//	z     = b2 + Σ_k W2_k · max(pre_k, 0)
//	p     = 1 / (1 + e^−z)
//
// μ and σ standardise the dense inputs (fitted on the training rows). A
// sparse column is a row of S, so a bag costs one vector addition per
// distinct column: the value network's columns are the kinds of cells on
// the board, of which a position has a few dozen (package policy).
//
// # Fitting
//
// Fit minimises the weighted cross-entropy between p and the rows'
// targets, probabilities in [0, 1] (soft targets: a row need not be won
// or lost), by Adam over shuffled minibatches, with weight decay on the
// weights (not the biases). Every draw comes from Config.Seed; a
// minibatch's gradient is summed over Config.Shards fixed slices of it,
// each computed on its own goroutine and added in order, so a fit gives
// the same model, bit for bit, however many cores run it. Adam moves a
// sparse row only in the minibatches that use it (lazy Adam).
//
// Why not a library: gonum, the project's numerical library, has no
// networks; the network is one hidden layer over a bag of table rows,
// whose forward and backward passes are a few loops, and whose speed in
// the search comes from reading only the rows a position uses. Adding a
// row to an Acc is gonum's Saxpy, vector code on amd64 with the same
// bits as the portable loop (axpyPortable, TestAxpy): a row of the value
// network's shape costs about 35% less (BenchmarkAcc: 825–1,058 ns
// against 1,394–1,529 at 32 hidden units, alternate runs).
//
// # The file
//
// Save writes a versioned binary file with a checksum (file.go); Load
// refuses another format, a damaged file or inconsistent dimensions with
// an error, never a panic.
//
// # Concurrency
//
// A Model is read-only once fitted or loaded; evaluate it through an Acc,
// one per goroutine (NewAcc), which allocates nothing per call.
package mlp
