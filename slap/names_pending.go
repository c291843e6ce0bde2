package slap

// worker.go is being changed on the hotpath branch at the same time as
// these types were renamed by role; it still spells them by their old
// names. Once both branches are merged, delete this file and run
//
//	sed -i 's/\bownRun\b/runRandom/g; s/\bclientOwn\b/clientState/g' slap/worker.go
type (
	ownRun    = runRandom
	clientOwn = clientState
)
