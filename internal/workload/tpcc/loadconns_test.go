package tpcc

import "testing"

// TestLoadConnectionsIsWhatTheLoadUses: the count a front end reports is
// the number of connections runLoad opens: at most one per task.
func TestLoadConnectionsIsWhatTheLoadUses(t *testing.T) {
	for _, tc := range []struct{ warehouses, asked int }{
		{1, 100000}, {2, 100000}, {7, 100000}, {1, 4}, {3, 0},
	} {
		want := max(min(tc.asked, len(loadTasks(tc.warehouses))), 1)
		if got := LoadConnections(tc.warehouses, tc.asked); got != want {
			t.Errorf("LoadConnections(%d, %d) = %d, want %d", tc.warehouses, tc.asked, got, want)
		}
	}
}
