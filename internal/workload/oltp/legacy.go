package oltp

// Mode04 is what sysbench 0.4's oltp test tells about a run before its
// threads start: the test mode, the distribution, how a transaction starts
// and whether ids are AUTO_INCREMENT. Valid after BeginIteration (which
// decides BEGIN or LOCK TABLES from the table's engine).
type Mode04 struct {
	TestMode string // "complex", "simple" or "nontrx"
	ReadOnly bool
	Dist     string // "uniform", "gaussian", "special", ...
	Iter     int64
	Pct, Res float64
	SkipTrx  bool
	// Start is the statement that starts a transaction: "BEGIN",
	// "LOCK TABLES READ" or "LOCK TABLES WRITE" (as 0.4 names them).
	Start   string
	AutoInc bool
}

// Mode04 describes the run in sysbench 0.4's terms.
func (w *Workload) Mode04() Mode04 {
	c := &w.cfg
	m := Mode04{TestMode: "complex", ReadOnly: !c.writes, Dist: c.dist.kind, Iter: c.dist.iter,
		Pct: c.dist.pct, Res: c.dist.res, SkipTrx: c.skipTrx, AutoInc: c.autoInc, Start: "BEGIN"}
	switch c.script {
	case scriptPointSelect:
		m.TestMode = "simple"
	case scriptNontrx:
		m.TestMode = "nontrx"
	}
	trx := w.trxEngine
	if c.engineTrx == "yes" {
		trx = true
	}
	if !trx {
		m.Start = "LOCK TABLES WRITE"
		if m.ReadOnly {
			m.Start = "LOCK TABLES READ"
		}
	}
	return m
}
