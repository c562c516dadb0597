// Package openings holds start positions: the Opening type, the opening
// files (ReadFile, Parse: Gomocup's offset form and the plain move list)
// and Generate, which makes balanced openings from a seed (random stones
// near the centre, kept when the search finds no forced win and a level
// score). arena plays matches from them; the coordinator and the learning
// loop write and read each generation's set.
//
// Like every Ocvist library it never prints or exits; it keeps no state.
package openings
