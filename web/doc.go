// Package web serves Ocvist in the browser: a board to play and analyse
// against the engine, two agents watched playing each other, and a
// read-only dashboard of training databases. The page (assets/, embedded)
// is plain HTML, CSS and JavaScript; nothing is fetched from elsewhere.
//
// # Use
//
//	srv, err := web.New(web.Config{DBs: []string{"data/ocvist.db"}})
//	defer srv.Close()
//	http.Serve(listener, srv) // the caller owns the listener
//
// # Endpoints (JSON; errors are {"error": "one line"} with a 4xx or 5xx status)
//
//	GET  /                          the page
//	GET  /api/config                rules, agents, move times, databases
//	GET  /api/games                 the game list, newest first
//	POST /api/games                 a new game: rule, players, move time, set-up moves or an SGF
//	GET  /api/games/{id}            one game
//	POST /api/games/{id}/move       {"move":"h8"}: a person's move
//	POST /api/games/{id}/engine     the agent to move plays (event stream, see below)
//	POST /api/games/{id}/analyse    the search on the position after ply N (event stream)
//	POST /api/games/{id}/undo       back to the person's previous turn
//	POST /api/games/{id}/resign     the person to move resigns
//	GET  /api/games/{id}/sgf        the game as SGF (package arena's format)
//	GET  /api/dbs                   a snapshot of every database
//	GET  /api/dbs/{i}               one database's snapshot
//	GET  /api/dbs/{i}/events        its snapshots, live (server-sent events)
//
// The engine and analysis streams are server-sent events in the response
// to a POST (the page reads them with fetch): "info" after every finished
// search iteration (depth, score, principal variation, the top root
// moves), then one "done" (the move and its reason, the game) or "error".
//
// # Concurrency and bounds
//
// Every goroutine is one net/http starts for a request, or a search
// goroutine: one per running search, started by the request that wants
// it and waited for before that request returns. A game runs one search
// at a time: a new request on the game (a move, an undo, another
// analysis) stops the one running. At most Config.MaxSearches searches
// run in the server at once; up to Config.MaxQueue more wait for a slot
// in arrival order, and beyond that a request is refused with 503. A
// search stops at its move time (or node budget), and at once when its
// request's context ends: the page went away or aborted it. On Linux the
// search goroutine runs on its own OS thread at Config.Nice, so that a
// training job on the same cores keeps its speed; the thread ends with
// the search.
//
// The dashboard opens databases read-only (store.OpenReadOnlyAt) and reads
// only small things (totals, meta, generations, models); every watcher of
// a database shares one read per Config.Poll, done by whichever request
// finds the snapshot stale, so the job writing it waits for no one. A
// database that is missing, vanishes or is not Ocvist's is reported in
// its snapshot's error and read again at the next poll.
//
// The package never prints or exits.
package web
